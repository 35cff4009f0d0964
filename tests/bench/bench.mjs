// `cargo xtask bench`: performance figures of the built extension in the real
// browser. Reported, never asserted: the numbers depend on the machine.
//
// Each measurement runs several times and prints min / median / max:
// - worker cold wake: the worker is stopped through CDP, then one request is
//   timed from chrome.runtime.sendMessage to its answer (in an extension page).
// - panel render: a 100 KB answer streamed by the fixture model in 2,000
//   deltas, sent from the real side panel's composer; wall time from Send to
//   the finished answer, and the panel's main-thread task time (CDP metrics).
// - diff preview of a 20,000-line document: an Ask-mode run proposes
//   replace_lines in the middle; timed from the AI_TOOL_CALLS event to the
//   AI_TOOL_APPROVAL_REQUIRED event carrying the diff (reading the document,
//   resolving the edit, building the hunks and drawing the page overlay).

import { Harness, poll, unpackedExtensionDir } from '../browser/harness.mjs';
import { measurePanelRender } from '../browser/panel-render.mjs';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';

const ROUNDS = Number(process.env.TSA_BENCH_ROUNDS || 10);

function summary(label, samples, unit = 'ms') {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const fmt = value => value.toFixed(1);
  console.log(`${label}: median ${fmt(median)} ${unit}, min ${fmt(sorted[0])}, max ${fmt(sorted[sorted.length - 1])} (${sorted.length} runs)`);
}

async function coldWake(h) {
  const samples = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    await h.request('LOAD_THEME', {});
    await h.stopWorker();
    const { ms, ok } = await h.control.evaluate(async envelope => {
      const started = performance.now();
      const answer = await chrome.runtime.sendMessage(envelope);
      return { ms: performance.now() - started, ok: answer?.payload?.ok === true };
    }, { type: 'LOAD_THEME', requestId: `bench-wake-${round}`, payload: {} });
    if (!ok) throw new Error('the woken worker did not answer LOAD_THEME');
    samples.push(ms);
  }
  summary('worker cold wake', samples);
}

async function panelRender(h, endpoint) {
  const wall = [];
  const task = [];
  const renderRounds = Math.max(3, Math.floor(ROUNDS / 2));
  for (let round = 0; round < renderRounds; round += 1) {
    const result = await measurePanelRender(h, endpoint, { bytes: 100 * 1024, deltas: 2000 });
    if (result.paragraphs !== result.expectedParagraphs) throw new Error('the streamed answer was not fully rendered');
    wall.push(result.wallMs);
    task.push(result.taskMs);
  }
  summary('panel render, 100 KB in 2,000 deltas, wall', wall);
  summary('panel render, 100 KB in 2,000 deltas, panel main-thread tasks', task);
}

const FIXTURE_FILE = {
  projectLabel: 'Harness Thesis', relativePath: 'main.typ', basename: 'main.typ',
  source: 'header_breadcrumb', confidence: 'high',
};

async function diffPreview20k(h, endpoint) {
  await h.control.evaluate(() => {
    if (globalThis.__benchEvents) return;
    globalThis.__benchEvents = [];
    chrome.runtime.onMessage.addListener(message => {
      if (message && typeof message.runId === 'string' && !message.requestId) {
        globalThis.__benchEvents.push({ type: message.type, runId: message.runId, payload: message.payload, at: performance.now() });
      }
    });
  });
  const lines = Array.from({ length: 20_000 }, (_, index) => `Line ${index + 1}: #emph[text].`);
  endpoint.setScript(body => body.messages.some(message => message.role === 'tool')
    ? [step.content('Done.'), step.finish('stop')]
    : [step.toolCall({ index: 0, id: 'bench-edit', name: 'replace_lines',
      arguments: JSON.stringify({ start_line: 10_000, end_line: 10_002, new_content: 'A replaced line.\nAnd one more.' }) }),
    step.finish('tool_calls')]);
  const samples = [];
  for (let round = 0; round < 3; round += 1) {
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(fixture.tabId);
    await fixture.page.evaluate(text => window.__typstFixture.setText(text), lines.join('\n'));
    const projectId = new URL(fixture.url).pathname.split('/').pop();
    const session = await h.request('SESSION_CREATE', { projectId });
    const messages = [{ role: 'user', content: 'Replace three lines.', activeEditorFile: FIXTURE_FILE }];
    await h.request('SESSION_UPDATE', { sessionId: session.id, messages });
    const runId = `bench-diff-${round}`;
    const identity = { tabId: fixture.tabId, projectId, sessionId: session.id };
    await h.request('AI_RUN_RESERVE', identity, { runId });
    // The worker runs on the stored model the start names (its copy must match).
    const record = {
      id: 'bench', name: 'Bench', apiBaseUrl: endpoint.baseUrl, apiKey: 'bench-key', modelId: 'bench-diff',
      supportsVision: false, reasoningEffort: 'default',
    };
    await h.request('SAVE_SETTINGS', {
      settings: { maxHistoryMessages: 40, editorApprovalMode: 'ask' },
      fields: ['maxHistoryMessages', 'editorApprovalMode'],
      modelMutation: { type: 'upsert', record },
    });
    const finished = h.send('AI_STREAM_START', {
      ...identity, messages, attachments: {}, activeEditorFile: FIXTURE_FILE,
      settings: { maxHistoryMessages: 40, editorApprovalMode: 'ask' },
      modelConfig: record,
    }, { runId });
    // Keep the start's answer observed so a failure below is the one reported.
    finished.catch(() => {});
    const timing = await poll(() => h.control.evaluate(id => {
      const mine = globalThis.__benchEvents.filter(event => event.runId === id);
      const calls = mine.find(event => event.type === 'AI_TOOL_CALLS');
      const review = mine.find(event => event.type === 'AI_TOOL_APPROVAL_REQUIRED');
      return calls && review ? { ms: review.at - calls.at, rows: review.payload.preview?.hunks?.[0]?.rows?.length ?? 0 } : null;
    }, runId), { timeout: 60_000, message: 'the diff review of the 20,000-line document' }).catch(async error => {
      const seen = await h.control.evaluate(id => globalThis.__benchEvents.filter(event => event.runId === id)
        .map(event => `${event.type} ${JSON.stringify(event.payload).slice(0, 300)}`), runId);
      throw new Error(`${error.message}\n${seen.join('\n')}`);
    });
    if (timing.rows === 0) throw new Error('the review carried no diff');
    samples.push(timing.ms);
    await h.request('AI_TOOL_APPROVAL_RESOLVE', { callId: 'bench-edit', action: 'deny' }, { runId });
    await finished;
    await fixture.page.close();
  }
  summary('diff preview, 20,000-line document (tool call to review)', samples);
}

async function main() {
  const h = await Harness.launch(unpackedExtensionDir(), { label: 'bench' });
  try {
    await coldWake(h);
    const endpoint = new ModelEndpoint();
    h.useModelEndpoint(endpoint);
    await panelRender(h, endpoint);
    await diffPreview20k(h, endpoint);
  } finally {
    await h.close();
  }
}

main().catch(error => {
  console.error(error);
  process.exitCode = 1;
});
