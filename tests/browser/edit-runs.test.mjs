// Editor writes inside agent runs, driven from the control page through the
// worker's run messages (as the side panel drives them), on the typst.app
// stand-in with a real CodeMirror: Ask mode with Apply (the document changes
// exactly, the receipt says the diff was reviewed) and Reject (nothing
// changes); Auto approve; the user typing between the proposal and Apply
// (fails closed, no change); the overlay present during the review and gone
// after every terminal path (Apply, Reject, stale, Stop); two responses with
// edits and a Revert of the older one (the cascade restores the original);
// the automatic snapshot of a completed run and its restore with the rescue
// copy; a page that names no file gets no write (EDIT_FILE_UNKNOWN).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';
import { poll } from './harness.mjs';
import { forEachBuild, sharedFixture } from './suite.mjs';
import { TERMINAL, events, listen, saveRunModel } from './run-control.mjs';

const LAYER = '#typst-side-agent-inline-diff-rows';

const FIXTURE_FILE = {
  projectLabel: 'Harness Thesis',
  relativePath: 'main.typ',
  basename: 'main.typ',
  source: 'header_breadcrumb',
  confidence: 'high'
};

async function eventOf(h, runId, type) {
  return poll(async () => (await events(h, runId)).find(event => event.type === type),
    { timeout: 30_000, message: `${type} of ${runId}` });
}

async function toolResult(h, runId, callId) {
  const found = (await events(h, runId)).find(event => event.type === 'AI_TOOL_RESULT' && event.payload.callId === callId);
  return found?.payload.result;
}

async function chat(h, projectId, text) {
  const session = await h.request('SESSION_CREATE', { projectId });
  const messages = [{ role: 'user', content: text, activeEditorFile: FIXTURE_FILE }];
  await h.request('SESSION_UPDATE', { sessionId: session.id, messages });
  return { sessionId: session.id, messages };
}

/** Reserves and starts a run; resolves with the start's answer when the run ends. */
async function startRun(h, { runId, tabId, projectId, sessionId, messages, model, mode }) {
  const identity = { tabId, projectId, sessionId };
  const reserved = await h.request('AI_RUN_RESERVE', identity, { runId });
  assert.equal(reserved.reserved, true);
  const record = await saveRunModel(h, model, mode);
  return h.send('AI_STREAM_START', {
    ...identity,
    messages,
    settings: { maxHistoryMessages: 40, editorApprovalMode: mode },
    modelConfig: record,
    attachments: {},
    activeEditorFile: FIXTURE_FILE
  }, { runId }).then(response => {
    assert.equal(response?.type, 'PROTOCOL_RESPONSE');
    assert.equal(response.payload.ok, true, JSON.stringify(response.payload));
    return response.payload.data;
  });
}

function text(page) {
  return page.evaluate(() => window.__typstFixture.text());
}

function setText(page, value) {
  return page.evaluate(next => window.__typstFixture.setText(next), value);
}

function overlayShown(page) {
  return page.evaluate(selector => Boolean(document.querySelector(selector)), LAYER);
}

async function typeInEditor(page, offset, typed) {
  await page.bringToFront();
  await page.evaluate(at => window.__typstFixture.select(at, at), offset);
  await page.keyboard.type(typed);
}

/**
 * The model's script: the first request of a model id answers with the
 * given edit calls, the one after the tool results with a sentence.
 */
function editScript(plans) {
  return body => {
    const plan = plans[body.model];
    if (!plan) return [step.content('unexpected'), step.finish('stop')];
    if (!body.messages.some(message => message.role === 'tool')) {
      return [
        ...plan.map((call, index) => step.toolCall({ index, id: call.id, name: call.name, arguments: JSON.stringify(call.args) })),
        step.finish('tool_calls')
      ];
    }
    return [step.content('Done.'), step.finish('stop')];
  };
}

const RENAME = { search: '= Harness Thesis', replace: '= Harness Dissertation' };

/** Waits until the tab's page bridge answers the worker. */
// A restore request as the panel sends it after the user reviewed the
// snapshot: with the base (hash and length) the preview diffed against.
async function reviewed(h, snapshotId, scope) {
  const preview = await h.request('DOCUMENT_SNAPSHOT_PREVIEW', { snapshotId, ...scope });
  assert.match(preview.baseHash, /^[0-9a-f]{64}$/, JSON.stringify(preview));
  return { snapshotId, ...scope, baseHash: preview.baseHash, baseLength: preview.baseLength };
}

async function bridgeReady(h, tab) {
  await poll(async () => (await h.send('GET_EDITOR_CONTEXT', { tabId: tab.tabId, projection: 'identity' }))?.payload?.ok === true,
    { timeout: 45_000, message: 'the page bridge answers' });
}

forEachBuild('edits in agent runs', get => {
  const endpoint = new ModelEndpoint();

  // Shared by the tests, each of which sets the document's text itself: the
  // routed endpoint, the run-event listener, and one fixture project with
  // its text as loaded.
  const project = sharedFixture(async h => {
    h.useModelEndpoint(endpoint);
    await listen(h);
    const tab = await h.openFixtureTab({ cm: 'latest' });
    await bridgeReady(h, tab);
    return { tab, projectId: new URL(tab.url).pathname.split('/').pop(), original: await text(tab.page) };
  });

  /** The harness with the shared project ready, and the project. */
  async function prepared() {
    const h = get();
    return { h, ...(await project(h)) };
  }

  for (const variant of [{ cm: 'latest', csp: false }, { cm: '6.38', csp: true }]) {
    const label = `CodeMirror ${variant.cm}${variant.csp ? ", CSP script-src 'self'" : ''}`;
    it(`Ask: the proposal is drawn and reviewed, and Apply changes the document exactly (${label})`, async () => {
      const { h, tab, original } = await prepared();
      const own = variant.cm === 'latest' ? null : await h.openFixtureTab(variant);
      const target = own ?? tab;
      const project = new URL(target.url).pathname.split('/').pop();
      if (own) await bridgeReady(h, own);
      await setText(target.page, original);
      const runId = `run-ask-apply-${variant.cm}`;
      endpoint.setScript(editScript({ [runId]: [{ id: 'edit-apply', name: 'search_replace', args: RENAME }] }));
      const { sessionId, messages } = await chat(h, project, 'Rename the thesis');
      const run = startRun(h, { runId, tabId: target.tabId, projectId: project, sessionId, messages, model: runId, mode: 'ask' });
      const banner = await eventOf(h, runId, 'AI_TOOL_APPROVAL_REQUIRED');
      assert.equal(banner.payload.callId, 'edit-apply');
      assert.equal(banner.payload.effect, 'editor-write');
      assert.equal(banner.payload.preview.fileLabel, 'main.typ');
      assert.equal(banner.payload.preview.additions, 1);
      assert.equal(banner.payload.preview.deletions, 1);
      assert.equal(await overlayShown(target.page), true, 'the overlay is drawn during the review');
      assert.equal(await text(target.page), original, 'nothing changes before Apply');

      const wrong = await h.request('AI_TOOL_APPROVAL_RESOLVE', { callId: 'edit-apply', action: 'approve_once' }, { runId: 'run-other' });
      assert.deepEqual(wrong, { ok: false });
      const resolved = await h.request('AI_TOOL_APPROVAL_RESOLVE', { callId: 'edit-apply', action: 'approve_once' }, { runId });
      assert.deepEqual(resolved, { ok: true });
      assert.deepEqual(await run, { ok: true, runId });
      assert.equal(await text(target.page), original.replace('= Harness Thesis', '= Harness Dissertation'));
      assert.equal(await overlayShown(target.page), false, 'the overlay is gone after Apply');

      const result = await toolResult(h, runId, 'edit-apply');
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(result.reviewed_diff, true);
      assert.equal(result.edits_applied, 1);
      assert.equal(result.editCheckpoint.status, 'applied');
      assert.equal(result.editCheckpoint.fileLabel, 'main.typ');
      assert.match(result.editCheckpoint.id, /^edit-/);
      const done = await eventOf(h, runId, 'AI_STREAM_DONE');
      assert.equal(done.payload.snapshot?.kind, 'automatic', JSON.stringify(done.payload));
      if (own) await own.page.close();
    });
  }

  it('Ask: Reject leaves the document untouched and removes the overlay', async () => {
    const { h, tab, projectId, original } = await prepared();
    await setText(tab.page, original);
    endpoint.setScript(editScript({ 'ask-reject': [{ id: 'edit-reject', name: 'search_replace', args: RENAME }] }));
    const { sessionId, messages } = await chat(h, projectId, 'Rename it, maybe');
    const run = startRun(h, { runId: 'run-ask-reject', tabId: tab.tabId, projectId, sessionId, messages, model: 'ask-reject', mode: 'ask' });
    await eventOf(h, 'run-ask-reject', 'AI_TOOL_APPROVAL_REQUIRED');
    assert.equal(await overlayShown(tab.page), true);
    await h.request('AI_TOOL_APPROVAL_RESOLVE', { callId: 'edit-reject', action: 'deny' }, { runId: 'run-ask-reject' });
    assert.deepEqual(await run, { ok: true, runId: 'run-ask-reject' });
    assert.equal((await toolResult(h, 'run-ask-reject', 'edit-reject')).code, 'TOOL_DENIED');
    assert.equal(await text(tab.page), original);
    assert.equal(await overlayShown(tab.page), false);
  });

  it('Auto approve applies without a review', async () => {
    const { h, tab, projectId, original } = await prepared();
    await setText(tab.page, original);
    endpoint.setScript(editScript({
      'auto-apply': [{ id: 'edit-auto', name: 'replace_lines', args: { start_line: 9, end_line: 9, new_content: '#lorem(30)' } }]
    }));
    const { sessionId, messages } = await chat(h, projectId, 'Longer filler');
    const answer = await startRun(h, { runId: 'run-auto', tabId: tab.tabId, projectId, sessionId, messages, model: 'auto-apply', mode: 'auto' });
    assert.deepEqual(answer, { ok: true, runId: 'run-auto' });
    const types = (await events(h, 'run-auto')).map(event => event.type);
    assert.equal(types.includes('AI_TOOL_APPROVAL_REQUIRED'), false);
    assert.equal(await text(tab.page), original.replace('#lorem(20)', '#lorem(30)'));
    const result = await toolResult(h, 'run-auto', 'edit-auto');
    assert.equal(result.reviewed_diff, false, JSON.stringify(result));
    assert.equal(result.editCheckpoint.status, 'applied');
    assert.equal(await overlayShown(tab.page), false);
  });

  it('a page whose file name cannot be read gets no write from a run, in Auto approve too', async () => {
    const h = get();
    await project(h);
    const own = await h.openFixtureTab({ cm: 'latest' });
    await bridgeReady(h, own);
    const projectId = new URL(own.url).pathname.split('/').pop();
    const before = await text(own.page);
    // Nothing on the page names the file any more: no breadcrumb, no Files
    // sidebar, no title with a file name.
    await own.page.evaluate(() => {
      document.querySelector('[role="heading"][aria-level="1"]').remove();
      document.querySelector('aside.files')?.remove();
      document.title = 'Typst';
    });
    endpoint.setScript(editScript({ 'unnamed-file': [{ id: 'edit-unnamed', name: 'search_replace', args: RENAME }] }));
    const session = await h.request('SESSION_CREATE', { projectId });
    const messages = [{ role: 'user', content: 'Rename the thesis' }];
    await h.request('SESSION_UPDATE', { sessionId: session.id, messages });
    const identity = { tabId: own.tabId, projectId, sessionId: session.id };
    assert.equal((await h.request('AI_RUN_RESERVE', identity, { runId: 'run-unnamed' })).reserved, true);
    const record = await saveRunModel(h, 'unnamed-file', 'auto');
    const answer = await h.request('AI_STREAM_START', {
      ...identity,
      messages,
      settings: { maxHistoryMessages: 40, editorApprovalMode: 'auto' },
      modelConfig: record,
      attachments: {}
    }, { runId: 'run-unnamed' });
    assert.deepEqual(answer, { ok: true, runId: 'run-unnamed' });
    const result = await toolResult(h, 'run-unnamed', 'edit-unnamed');
    assert.equal(result.ok, false, JSON.stringify(result));
    assert.equal(result.code, 'EDIT_FILE_UNKNOWN');
    assert.equal(await text(own.page), before, 'the document is unchanged');
    assert.equal(await overlayShown(own.page), false);
    await own.page.close();
  });

  it('typing in the editor between the proposal and Apply fails closed', async () => {
    const { h, tab, projectId, original } = await prepared();
    await setText(tab.page, original);
    endpoint.setScript(editScript({ 'ask-stale': [{ id: 'edit-stale', name: 'search_replace', args: RENAME }] }));
    const { sessionId, messages } = await chat(h, projectId, 'Rename while I type');
    const run = startRun(h, { runId: 'run-stale', tabId: tab.tabId, projectId, sessionId, messages, model: 'ask-stale', mode: 'ask' });
    await eventOf(h, 'run-stale', 'AI_TOOL_APPROVAL_REQUIRED');
    await typeInEditor(tab.page, 0, 'Y');
    await h.request('AI_TOOL_APPROVAL_RESOLVE', { callId: 'edit-stale', action: 'approve_once' }, { runId: 'run-stale' });
    assert.deepEqual(await run, { ok: true, runId: 'run-stale' });
    const result = await toolResult(h, 'run-stale', 'edit-stale');
    assert.deepEqual([result.ok, result.code, result.staleReason], [false, 'STALE_EDIT_PREVIEW', 'document']);
    assert.equal(await text(tab.page), `Y${original}`, 'only what the user typed');
    assert.equal(await overlayShown(tab.page), false, 'a stale proposal is removed too');
  });

  it('Stop during the review removes the overlay and changes nothing', async () => {
    const { h, tab, projectId, original } = await prepared();
    await setText(tab.page, original);
    endpoint.setScript(editScript({ 'ask-stop': [{ id: 'edit-stop', name: 'search_replace', args: RENAME }] }));
    const { sessionId, messages } = await chat(h, projectId, 'Rename, then I stop');
    const run = startRun(h, { runId: 'run-stop', tabId: tab.tabId, projectId, sessionId, messages, model: 'ask-stop', mode: 'ask' });
    await eventOf(h, 'run-stop', 'AI_TOOL_APPROVAL_REQUIRED');
    assert.equal(await overlayShown(tab.page), true);
    await h.request('AI_STREAM_CANCEL', {}, { runId: 'run-stop' });
    assert.deepEqual(await run, { ok: true, cancelled: true, runId: 'run-stop' });
    await poll(async () => !(await overlayShown(tab.page)), { message: 'the overlay is removed after Stop' });
    assert.equal(await text(tab.page), original);
    const terminal = (await events(h, 'run-stop')).filter(event => TERMINAL.includes(event.type));
    assert.deepEqual(terminal.map(event => event.type), ['AI_STREAM_CANCELLED']);
  });

  it('two responses with edits: reverting the older one restores the original text', async () => {
    const { h, tab, projectId, original } = await prepared();
    await setText(tab.page, original);
    endpoint.setScript(editScript({
      'revert-first': [{ id: 'edit-first', name: 'search_replace', args: RENAME }],
      'revert-second': [{ id: 'edit-second', name: 'search_replace', args: { search: '== Method', replace: '== Approach' } }]
    }));
    const { sessionId, messages } = await chat(h, projectId, 'Two edits');
    const first = await startRun(h, { runId: 'run-rev-1', tabId: tab.tabId, projectId, sessionId, messages, model: 'revert-first', mode: 'auto' });
    assert.equal(first.ok, true);
    const second = await startRun(h, { runId: 'run-rev-2', tabId: tab.tabId, projectId, sessionId, messages, model: 'revert-second', mode: 'auto' });
    assert.equal(second.ok, true);
    const edited = original.replace('= Harness Thesis', '= Harness Dissertation').replace('== Method', '== Approach');
    assert.equal(await text(tab.page), edited);
    const older = (await toolResult(h, 'run-rev-1', 'edit-first')).editCheckpoint.id;
    const newer = (await toolResult(h, 'run-rev-2', 'edit-second')).editCheckpoint.id;
    assert.notEqual(older, newer);

    const reverted = await h.send('EDIT_CHECKPOINT_REVERT', { checkpointId: older, tabId: tab.tabId, projectId, sessionId });
    assert.equal(reverted?.payload?.ok, true, JSON.stringify(reverted?.payload));
    const data = reverted.payload.data;
    assert.equal(data.revertedCount, 2, JSON.stringify(data));
    assert.deepEqual(data.checkpoints.map(checkpoint => [checkpoint.id, checkpoint.status]),
      [[newer, 'reverted'], [older, 'reverted']]);
    assert.equal(await text(tab.page), original, 'both responses were undone, newest first');
  });

  it('a completed run leaves a snapshot; restoring it saves a rescue copy of the current text first', async () => {
    const { h, tab, projectId, original } = await prepared();
    await setText(tab.page, original);
    endpoint.setScript(editScript({ 'snapshot-run': [{ id: 'edit-snap', name: 'search_replace', args: RENAME }] }));
    const { sessionId, messages } = await chat(h, projectId, 'Edit and keep a snapshot');
    const answer = await startRun(h, { runId: 'run-snap', tabId: tab.tabId, projectId, sessionId, messages, model: 'snapshot-run', mode: 'auto' });
    assert.equal(answer.ok, true);
    const done = await eventOf(h, 'run-snap', 'AI_STREAM_DONE');
    const snapshot = done.payload.snapshot;
    assert.equal(snapshot?.kind, 'automatic', JSON.stringify(done.payload));
    const afterRun = await text(tab.page);

    // The user rewrites the document; the snapshot restores the run's result.
    await setText(tab.page, 'A different document.');
    const scope = { tabId: tab.tabId, projectId, sessionId };
    const listed = await h.request('DOCUMENT_SNAPSHOT_LIST', scope);
    assert.deepEqual(listed.snapshots.map(entry => entry.id), [snapshot.id]);
    // Text typed after the preview: the restore names the document the
    // preview diffed against, so it fails closed and the typed text stays.
    const stale = await reviewed(h, snapshot.id, scope);
    await typeInEditor(tab.page, 0, 'Z');
    const refused = await h.send('DOCUMENT_SNAPSHOT_RESTORE', stale);
    assert.equal(refused?.payload?.error?.code, 'STALE_EDIT_PREVIEW', JSON.stringify(refused?.payload));
    assert.equal(await text(tab.page), 'ZA different document.', 'the typed text is kept');
    const untouched = await h.request('DOCUMENT_SNAPSHOT_LIST', scope);
    assert.deepEqual(untouched.snapshots.map(entry => entry.kind), ['automatic'], 'no rescue copy was made');
    await setText(tab.page, 'A different document.');
    const restored = await h.send('DOCUMENT_SNAPSHOT_RESTORE', await reviewed(h, snapshot.id, scope));
    assert.equal(restored?.payload?.ok, true, JSON.stringify(restored?.payload));
    assert.equal(restored.payload.data.rescueSnapshot.kind, 'rescue');
    assert.equal(await text(tab.page), afterRun);
    const after = await h.request('DOCUMENT_SNAPSHOT_LIST', scope);
    const rescue = after.snapshots.find(entry => entry.kind === 'rescue');
    assert.ok(rescue, JSON.stringify(after));
    const back = await h.send('DOCUMENT_SNAPSHOT_RESTORE', await reviewed(h, rescue.id, scope));
    assert.equal(back?.payload?.ok, true, JSON.stringify(back?.payload));
    assert.equal(await text(tab.page), 'A different document.', 'the rescue copy holds what was replaced');
    await setText(tab.page, original);
  });
});
