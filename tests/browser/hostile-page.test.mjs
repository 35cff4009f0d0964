// A hostile typst.app page (issue 11): a script of the page answers the page
// bridge's requests before the extension's runtime does, with a 60 MB error
// string, arrays nested 5,000 deep and fields the bridge does not know
// (tests/fixtures/site/hostile-bridge.js). Each of that tab's requests fails
// with a clear, bounded error or comes back rebuilt and shallow; meanwhile a
// second, normal typst.app tab keeps working (a context read and a whole run
// that reads the document), and the service worker is the same one
// throughout (no restart).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';
import { FIXTURES_DIR, poll } from './harness.mjs';
import { forEachBuild, sharedFixture } from './suite.mjs';
import { TERMINAL, events, listen, saveRunModel } from './run-control.mjs';

const FIXTURE_FILE = {
  projectLabel: 'Harness Thesis',
  relativePath: 'main.typ',
  basename: 'main.typ',
  source: 'header_breadcrumb',
  confidence: 'high'
};

// The generated constants the page scripts load (it sets a global and exports nothing).
await import('../../extension/src/content/protocol-constants.js');

/** Longest page error text the bridge relays, as the page scripts read it. */
const { MAX_PAGE_ERROR_CHARS } = globalThis.__typstAgentProtocolConstants.LIMITS;

/** Codes a hostile answer may end in: each says what was wrong with it. */
const CLEAR_CODES = ['PAGE_REQUEST_FAILED', 'INVALID_PAGE_RESPONSE', 'PAGE_ANSWER_TOO_LARGE', 'PAGE_ANSWER_MALFORMED'];

/** Opens a fixture tab and waits until its page bridge answers. */
async function openReady(h) {
  const tab = await h.openFixtureTab({ cm: 'latest' });
  await poll(async () => {
    const probe = await h.send('GET_EDITOR_CONTEXT', { tabId: tab.tabId, projection: 'identity' });
    return probe?.payload?.ok === true;
  }, { timeout: 45_000, message: 'the page bridge answers' });
  return { ...tab, projectId: new URL(tab.url).pathname.split('/').pop() };
}

/** Marks the running worker's global scope; the mark survives only if the worker does. */
async function markWorker(h) {
  const worker = await h.worker();
  const mark = `mark-${Date.now()}`;
  await worker.evaluate(value => { globalThis.__hostileTestMark = value; }, mark);
  const [target] = await h.serviceWorkerTargets();
  return { mark, targetId: target?.targetId };
}

async function assertSameWorker(h, before) {
  const targets = await h.serviceWorkerTargets();
  assert.deepEqual(targets.map(t => t.targetId), [before.targetId], 'the same worker target is running');
  const worker = await h.worker();
  assert.equal(await worker.evaluate(() => globalThis.__hostileTestMark), before.mark, 'the worker did not restart');
}

function assertClearError(payload, what) {
  assert.equal(payload?.ok, false, `${what}: ${JSON.stringify(payload)?.slice(0, 300)}`);
  assert.ok(CLEAR_CODES.includes(payload.error.code), `${what}: code ${payload.error.code}`);
  assert.ok(payload.error.message.length <= MAX_PAGE_ERROR_CHARS, `${what}: message of ${payload.error.message.length}`);
}

/**
 * A run whose model reads the document once. A preflight banner (the page
 * could not show that the file is open) is answered with Skip. Resolves with
 * the start's answer, the banner if one came, the run's end and the read's
 * result.
 */
async function runReadingTheDocument(h, tab, runId) {
  const session = await h.request('SESSION_CREATE', { projectId: tab.projectId });
  const messages = [{ role: 'user', content: 'Read my document.', activeEditorFile: FIXTURE_FILE }];
  await h.request('SESSION_UPDATE', { sessionId: session.id, messages });
  const identity = { tabId: tab.tabId, projectId: tab.projectId, sessionId: session.id };
  assert.equal((await h.request('AI_RUN_RESERVE', identity, { runId })).reserved, true);
  const model = await saveRunModel(h, 'hostile-run', 'ask');
  const started = h.send('AI_STREAM_START', {
    ...identity,
    messages,
    settings: { maxHistoryMessages: 40, editorApprovalMode: 'ask' },
    modelConfig: model,
    attachments: {},
    activeEditorFile: FIXTURE_FILE
  }, { runId });
  const waiting = await poll(async () => {
    const runEvents = await events(h, runId);
    if (runEvents.some(event => TERMINAL.includes(event.type))) return { none: true };
    return runEvents.find(event => event.type === 'AI_TOOL_PREFLIGHT_WAITING') ?? null;
  }, { timeout: 60_000, message: `the end of ${runId} or its preflight banner` });
  if (!waiting.none) {
    await h.request('AI_TOOL_PREFLIGHT_RESOLVE', { callId: 'call-read', action: 'cancel' }, { runId });
  }
  const answer = await started;
  assert.equal(answer?.type, 'PROTOCOL_RESPONSE');
  const runEvents = await events(h, runId);
  const terminal = runEvents.filter(event => TERMINAL.includes(event.type));
  assert.equal(terminal.length, 1, `one end of ${runId}`);
  const result = runEvents.find(event => event.type === 'AI_TOOL_RESULT' && event.payload.callId === 'call-read')?.payload.result;
  return { answer, banner: waiting.none ? null : waiting, terminal: terminal[0], result };
}

forEachBuild('hostile page', get => {
  const endpoint = new ModelEndpoint();
  const fixture = sharedFixture(async h => {
    h.useModelEndpoint(endpoint);
    await listen(h);
    const good = await openReady(h);
    const hostile = await openReady(h);
    const script = await readFile(join(FIXTURES_DIR, 'site', 'hostile-bridge.js'), 'utf8');
    await hostile.page.addScriptTag({ content: script });
    await hostile.page.waitForFunction(() => Array.isArray(window.__hostileAnswered));
    endpoint.setScript(body => {
      if (!body.messages.some(message => message.role === 'tool')) {
        return [step.toolCall({ id: 'call-read', name: 'read_document', arguments: '{}' }), step.finish('tool_calls')];
      }
      return [step.content('Read it.'), step.finish('stop')];
    });
    return { good, hostile };
  });

  it('panel reads of the hostile tab fail with bounded errors; the other tab and the worker are unaffected', async () => {
    const h = get();
    const { good, hostile } = await fixture(h);
    const worker = await markWorker(h);

    const context = await h.send('GET_EDITOR_CONTEXT', { tabId: hostile.tabId });
    assertClearError(context.payload, 'the 60 MB error answer');
    const diagnostics = await h.send('GET_DIAGNOSTICS', { tabId: hostile.tabId });
    assertClearError(diagnostics.payload, 'diagnostics nested 5,000 deep');
    const answered = await hostile.page.evaluate(() => window.__hostileAnswered.slice());
    assert.ok(answered.includes('PAGE_GET_CONTEXT') && answered.includes('PAGE_GET_DIAGNOSTICS'), answered.join());

    // Deep workspace hints: refused, or relayed rebuilt without the nesting.
    await hostile.page.evaluate(() => { window.__hostileContext = 'deep-workspace'; });
    const deep = await h.send('GET_EDITOR_CONTEXT', { tabId: hostile.tabId, projection: 'identity' });
    if (deep.payload.ok) {
      const depth = value => (value && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0);
      assert.ok(depth(deep.payload.data) <= 4, `rebuilt context nests ${depth(deep.payload.data)} deep`);
    } else {
      assertClearError(deep.payload, 'a workspace nested 5,000 deep');
    }
    await hostile.page.evaluate(() => { window.__hostileContext = 'huge-error'; });

    const read = await h.send('GET_EDITOR_CONTEXT', { tabId: good.tabId });
    assert.equal(read.payload.ok, true, JSON.stringify(read.payload).slice(0, 300));
    assert.equal(typeof read.payload.data.fullText, 'string');
    await assertSameWorker(h, worker);
  });

  it('the isolated world relays a rebuilt answer: no unknown fields, no nesting, error text cut', async () => {
    const h = get();
    const { hostile } = await fixture(h);
    const worker = await markWorker(h);
    // What the worker's chrome.tabs.sendMessage receives, before any Rust check.
    const ask = (type, payload) => h.sendToTab(hostile.tabId, { type, requestId: `raw-${type}-${Date.now()}`, payload });
    const context = await ask('PAGE_GET_CONTEXT', {});
    assert.equal(context.type, 'PROTOCOL_RESPONSE');
    assert.deepEqual(Object.keys(context).sort(), ['nonce', 'payload', 'requestId', 'type']);
    assert.equal(context.payload.ok, false);
    assert.deepEqual(Object.keys(context.payload.error).sort(), ['code', 'message']);
    assert.equal(context.payload.error.message.length, MAX_PAGE_ERROR_CHARS);
    assert.ok(JSON.stringify(context).length < 4_000, 'the relayed answer is small');

    await hostile.page.evaluate(() => { window.__hostileContext = 'deep-workspace'; });
    const deep = await ask('PAGE_GET_CONTEXT', { projection: 'identity' });
    await hostile.page.evaluate(() => { window.__hostileContext = 'huge-error'; });
    assert.ok(!('injected' in deep), 'unknown envelope fields stay behind');
    assert.ok(JSON.stringify(deep).length < 4_000, JSON.stringify(deep).slice(0, 300));
    for (const type of ['PAGE_GET_DIAGNOSTICS', 'PAGE_GET_PROBE']) {
      const answer = await ask(type, {});
      assert.equal(answer.payload.ok, false, type);
      assert.equal(answer.payload.error.code, 'INVALID_PAGE_RESPONSE', type);
      assert.ok(!('injected' in answer), type);
    }
    await assertSameWorker(h, worker);
  });

  it('a run in the hostile tab ends with a clear error while a run in the normal tab succeeds', async t => {
    const h = get();
    const { good, hostile } = await fixture(h);
    const worker = await markWorker(h);

    const bad = await runReadingTheDocument(h, hostile, 'run-hostile');
    t.diagnostic(`hostile run: banner ${JSON.stringify(bad.banner?.payload)}, end ${bad.terminal.type}, ` +
      `result ${JSON.stringify(bad.result)?.slice(0, 300)}`);
    assert.ok(bad.result?.ok !== true, 'the hostile tab gave the run no document');
    assert.ok(bad.banner || bad.result || bad.terminal.type === 'AI_STREAM_ERROR', 'the run says why it has no document');
    for (const part of [bad.banner, bad.result, bad.terminal]) {
      assert.ok(JSON.stringify(part ?? null).length < 4_000, 'what the run reports is bounded');
    }

    const ok = await runReadingTheDocument(h, good, 'run-good');
    assert.equal(ok.answer.payload.ok, true, JSON.stringify(ok.answer.payload));
    assert.equal(ok.banner, null);
    assert.equal(ok.terminal.type, 'AI_STREAM_DONE');
    assert.equal(ok.result?.ok, true, JSON.stringify(ok.result).slice(0, 300));
    assert.match(ok.result.numbered_document, /^1\|= Harness Thesis\n/);
    await assertSameWorker(h, worker);
  });
});
