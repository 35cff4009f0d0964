// The browser figures of `cargo xtask bench`, each measured the same way for
// this extension and for the one given with `--against` (the JavaScript
// original): only what both builds share is used — the message envelope, the
// panel's element ids and classes, the editor fixture and the model endpoint.
// Each figure returns its samples; bench.mjs summarises and prints them.

import { poll, RawTargetSession } from '../browser/harness.mjs';
import { composerReady, measurePanelRender, openPanel, send, useFixtureModel } from '../browser/panel-render.mjs';
import { step } from '../fixtures/model-endpoint.mjs';

/** Worker cold start: the worker is stopped through CDP, then LOAD_SETTINGS is timed to its answer. */
export async function coldStart(h, rounds) {
  const samples = [];
  for (let round = 0; round < rounds; round += 1) {
    await h.request('LOAD_SETTINGS', {});
    await h.stopWorker();
    const { ms, ok } = await h.control.evaluate(async envelope => {
      const started = performance.now();
      const answer = await chrome.runtime.sendMessage(envelope);
      return { ms: performance.now() - started, ok: answer?.payload?.ok === true };
    }, { type: 'LOAD_SETTINGS', requestId: `bench-cold-${round}`, payload: {} });
    if (!ok) throw new Error('the woken worker did not answer LOAD_SETTINGS');
    samples.push(ms);
  }
  return samples;
}

// Runs in every new panel document before its own scripts: records when
// #user-input last became enabled (a later disable clears it), so "ready"
// means enabled for good, not a first flash of the static HTML.
const READY_PROBE = `(() => {
  const record = window.__benchReady = { enabledAt: null, changedAt: performance.now() };
  const check = () => {
    const input = document.getElementById('user-input');
    const enabled = !!input && !input.disabled;
    if (enabled && record.enabledAt === null) { record.enabledAt = performance.now(); record.changedAt = record.enabledAt; }
    if (!enabled && record.enabledAt !== null) { record.enabledAt = null; record.changedAt = performance.now(); }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
  check();
})();`;

/** How long #user-input must stay enabled before a reload counts as finished. */
const SETTLE_MS = 750;

/**
 * Panel ready: the real side panel is reloaded, and the time from the start of
 * its navigation (performance.now() of the new document) to #user-input
 * enabled for good is read in the panel.
 */
export async function panelReady(h, rounds) {
  const { fixture, panel } = await openPanel(h, { ready: composerReady });
  const samples = [];
  try {
    await panel.session.send('Page.enable');
    await panel.session.send('Page.addScriptToEvaluateOnNewDocument', { source: READY_PROBE });
    for (let round = 0; round < rounds; round += 1) {
      await panel.reload();
      const ms = await poll(() => panel.evaluate(settle => {
        const record = window.__benchReady;
        if (!record || record.enabledAt === null) return null;
        return performance.now() - record.changedAt >= settle ? record.enabledAt : null;
      }, SETTLE_MS), { message: '#user-input enabled for good after the reload', interval: 50 });
      samples.push(ms);
    }
  } finally {
    await panel.close();
    await fixture.page.close();
  }
  return samples;
}

/** The JS heap of a target (used bytes; for this extension it excludes wasm linear memory). */
async function heapUsage(session) {
  const usage = await session.send('Runtime.getHeapUsage');
  return { used: usage.usedSize, backing: usage.backingStorageSize ?? 0 };
}

async function workerHeap(h) {
  const [target] = await h.serviceWorkerTargets();
  if (!target) return null;
  const session = await RawTargetSession.attach(h.browserSession, target.targetId);
  try {
    return await heapUsage(session);
  } finally {
    await session.detach();
  }
}

/** How long one streamed answer may take before its round counts as stuck. */
const STREAM_ROUND_TIMEOUT_MS = 20_000;
/** How many stuck rounds the figure retries before giving up. */
const STREAM_RETRIES = 5;

/**
 * Streaming render: 100 KB of Markdown in 2,000 SSE deltas sent from the real
 * panel's composer; main-thread task time (CDP metrics), long tasks, and after
 * the last round the panel's and the worker's heaps.
 *
 * The JavaScript original sometimes never takes its answer out of the
 * streaming state when the whole answer arrives at once (about one round in
 * three here); such a round is retried in a fresh panel and counted in
 * `stuck`, so the table says how often it happened.
 */
export async function streamRender(h, endpoint, rounds) {
  const samples = { taskMs: [], wallMs: [], longestTaskMs: [], longTasks: [], memory: null, stuck: 0 };
  for (let round = 0; round < rounds; round += 1) {
    const last = round === rounds - 1;
    let result;
    while (!result) {
      try {
        result = await measurePanelRender(h, endpoint, {
          bytes: 100 * 1024, deltas: 2000, ready: composerReady, timeout: STREAM_ROUND_TIMEOUT_MS,
          inspect: last ? async panel => ({ panel: await heapUsage(panel.session), worker: await workerHeap(h) }) : undefined,
        });
      } catch (error) {
        if (!/Timed out/.test(error.message) || samples.stuck >= STREAM_RETRIES) throw error;
        samples.stuck += 1;
        console.log(`  streaming round ${round + 1}: the answer never left the streaming state; retrying`);
      }
    }
    if (result.paragraphs !== result.expectedParagraphs) {
      throw new Error(`the streamed answer rendered ${result.paragraphs} of ${result.expectedParagraphs} paragraphs`);
    }
    samples.taskMs.push(result.taskMs);
    samples.wallMs.push(result.wallMs);
    samples.longestTaskMs.push(result.longestTaskMs);
    samples.longTasks.push(result.longTasks);
    if (last) samples.memory = result.inspected;
  }
  return samples;
}

// Runs in the panel: the wall-clock time (epoch ms, the clock the test's model
// endpoint also reads) when an "Apply changes" button first appears.
const APPLY_PROBE = () => {
  window.__benchApplyShown = null;
  new MutationObserver(() => {
    if (window.__benchApplyShown !== null) return;
    const shown = [...document.querySelectorAll('#messages button')].some(button => button.textContent.trim() === 'Apply changes');
    if (shown) window.__benchApplyShown = performance.timeOrigin + performance.now();
  }).observe(document.getElementById('messages'), { subtree: true, childList: true, characterData: true });
};

/** How long one diff round may wait for "Apply changes" before it counts as stuck. */
const DIFF_ROUND_TIMEOUT_MS = 20_000;
/** How many stuck diff rounds the figure retries before giving up. */
const DIFF_RETRIES = 5;

/**
 * Diff preview: in Ask mode the model proposes replace_lines in the middle of
 * a 20,000-line document; timed from the moment the endpoint answers with the
 * tool call to the panel showing "Apply changes" (both read the wall clock).
 * The edit is rejected so every round starts from the same document.
 *
 * The JavaScript original sometimes takes no message from its composer (the
 * model is never asked), and then never shows the review; such a round is
 * retried in a fresh panel and tab and counted in `stuck`, as the streaming
 * figure does.
 */
export async function diffPreview(h, endpoint, rounds) {
  await useFixtureModel(h, endpoint);
  const lines = Array.from({ length: 20_000 }, (_, index) => `Line ${index + 1}: #emph[text].`);
  let answeredAt = null;
  let round = 0;
  endpoint.setScript(body => {
    const last = body.messages[body.messages.length - 1];
    if (last?.role === 'tool') return [step.content('Done.'), step.finish('stop')];
    answeredAt = Date.now();
    return [step.toolCall({ index: 0, id: `bench-edit-${round}`, name: 'replace_lines',
      arguments: JSON.stringify({ start_line: 10_000, end_line: 10_002, new_content: 'A replaced line.\nAnd one more.' }) }),
    step.finish('tool_calls')];
  });
  const samples = { ms: [], stuck: 0 };
  let opened = null;
  // CodeMirror 6.38: the editor build the original can find (it reads the
  // view through `cmView`, which later CodeMirror releases no longer set).
  const open = async () => {
    opened = await openPanel(h, { ready: composerReady, cm: '6.38' });
    await opened.fixture.page.evaluate(text => window.__typstFixture.setText(text), lines.join('\n'));
    // A fresh panel may show the project's chat with earlier rounds in it.
    return opened.panel.evaluate(() => [...document.querySelectorAll('#messages .msg-content')]
      .filter(node => node.textContent.trim() === 'Done.').length);
  };
  const close = async () => {
    if (!opened) return;
    const { fixture, panel } = opened;
    opened = null;
    await panel.close();
    await fixture.page.close();
  };
  try {
    let done = await open();
    for (round = 0; round < rounds; round += 1) {
      const { panel } = opened;
      await panel.evaluate(APPLY_PROBE);
      answeredAt = null;
      await send(panel, 'Replace three lines.');
      let shownAt;
      try {
        shownAt = await poll(() => panel.evaluate(() => window.__benchApplyShown), {
          timeout: DIFF_ROUND_TIMEOUT_MS, message: '"Apply changes" for the 20,000-line document',
        });
      } catch (error) {
        if (!/Timed out/.test(error.message) || samples.stuck >= DIFF_RETRIES) throw error;
        samples.stuck += 1;
        const what = answeredAt === null ? 'the message never reached the model' : 'the review never showed';
        console.log(`  diff round ${round + 1}: ${what}; retrying in a fresh panel`);
        await close();
        done = await open();
        round -= 1;
        continue;
      }
      if (answeredAt === null) throw new Error('the endpoint never answered with the tool call');
      samples.ms.push(shownAt - answeredAt);
      await panel.evaluate(() => [...document.querySelectorAll('#messages button')]
        .find(button => button.textContent.trim() === 'Reject')?.click());
      done += 1;
      await panel.waitFor(count => !document.querySelector('#messages .msg-assistant.streaming') &&
        [...document.querySelectorAll('#messages .msg-content')].filter(node => node.textContent.trim() === 'Done.').length >= count,
      done, { timeout: 60_000, message: 'the run to finish after the rejected edit' });
    }
  } finally {
    await close();
  }
  return samples;
}
