// The service worker: theme requests, protocol errors, surviving a CDP stop
// (cold wake), and re-registering the main-world content script on every start.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { MAIN_WORLD_SCRIPT_ID, poll } from './harness.mjs';
import { expectError, expectOk, forEachBuild } from './suite.mjs';

const MAIN_WORLD_FILES = [
  'src/content/builtins.js',
  'src/content/protocol-constants.js',
  'src/content/bridge-protocol.js',
  'src/content/workspace.js',
  'src/content/diagnostics.js',
  'src/content/edit-guard.js',
  'src/content/inline-diff.js',
  'src/content/quick-attach.js',
  'src/content/main.js',
];

/** Registered content scripts with the main-world id, read from the control page. */
function registrations(h) {
  return h.control.evaluate(id => chrome.scripting.getRegisteredContentScripts({ ids: [id] }), MAIN_WORLD_SCRIPT_ID);
}

forEachBuild('service worker', get => {
  it('answers LOAD_THEME with the default theme, dark', async () => {
    const h = get();
    // No saved theme, whatever ran before.
    await h.control.evaluate(() => chrome.storage.local.remove('typstAgent.theme'));
    const data = expectOk(await h.send('LOAD_THEME', {}, { requestId: 'theme-load-1' }), 'theme-load-1');
    assert.equal(data, 'dark');
  });

  it('SAVE_THEME light is persisted and LOAD_THEME then answers light', async () => {
    const h = get();
    const saved = expectOk(await h.send('SAVE_THEME', { theme: 'light' }, { requestId: 'theme-save-1' }), 'theme-save-1');
    assert.deepEqual(saved, { ok: true });
    const stored = await h.control.evaluate(() => chrome.storage.local.get('typstAgent.theme'));
    assert.equal(stored['typstAgent.theme'], 'light');
    const data = expectOk(await h.send('LOAD_THEME', {}, { requestId: 'theme-load-2' }), 'theme-load-2');
    assert.equal(data, 'light');
  });

  it('answers an unknown message type with ok:false and an error code', async () => {
    const h = get();
    const error = expectError(await h.send('NOT_A_TYPE', {}, { requestId: 'unknown-1' }), 'unknown-1');
    assert.ok(error.code.length > 0);
  });

  it('is stopped through CDP; the next message wakes a fresh worker that still has the saved theme', async () => {
    const h = get();
    expectOk(await h.send('SAVE_THEME', { theme: 'light' }, { requestId: 'theme-save-2' }), 'theme-save-2');
    const before = await h.serviceWorkerTargets();
    assert.equal(before.length, 1, 'one running worker before the stop');
    // Marks the running instance; a fresh instance starts without the mark.
    await (await h.worker()).evaluate(() => { globalThis.__harnessInstanceMark = 'stopped instance'; });

    const stop = await h.stopWorker();
    assert.deepEqual(stop.stoppedTargets, [before[0].targetId]);
    assert.equal((await h.serviceWorkerTargets()).length, 0, 'no worker target after the stop');

    // Timed inside the control page: from sendMessage to the answer of the woken worker.
    const { response, ms } = await h.control.evaluate(async envelope => {
      const started = performance.now();
      const answer = await chrome.runtime.sendMessage(envelope);
      return { response: answer, ms: performance.now() - started };
    }, { type: 'LOAD_THEME', requestId: 'cold-wake-1', payload: {} });
    console.log(`cold-wake-ms: ${Math.round(ms)}`);
    assert.equal(expectOk(response, 'cold-wake-1'), 'light');

    assert.equal((await h.serviceWorkerTargets()).length, 1, 'a worker runs again');
    // (Chromium may reuse the target id for the restarted worker, so identity is checked by the mark.)
    const mark = await (await h.worker()).evaluate(() => globalThis.__harnessInstanceMark ?? null);
    assert.equal(mark, null, 'the answer came from a fresh worker instance');

    // The woken worker keeps answering normally.
    expectOk(await h.send('SAVE_THEME', { theme: 'dark' }, { requestId: 'theme-save-3' }), 'theme-save-3');
    assert.equal(expectOk(await h.send('LOAD_THEME', {}, { requestId: 'theme-load-3' }), 'theme-load-3'), 'dark');
    expectError(await h.send('NOT_A_TYPE', {}, { requestId: 'unknown-2' }), 'unknown-2');
  });

  it(`registers the main-world script "${MAIN_WORLD_SCRIPT_ID}"`, async () => {
    const h = get();
    await h.worker();
    const [registration, ...rest] = await poll(async () => {
      const found = await registrations(h);
      return found.length ? found : null;
    }, { message: `registration ${MAIN_WORLD_SCRIPT_ID}` });
    assert.equal(rest.length, 0);
    assert.equal(registration.id, MAIN_WORLD_SCRIPT_ID);
    assert.equal(registration.world, 'MAIN');
    assert.deepEqual(registration.js, MAIN_WORLD_FILES);
    assert.ok(registration.matches.some(pattern => pattern.startsWith('https://typst.app/')),
      `matches cover typst.app: ${JSON.stringify(registration.matches)}`);
  });

  it('registers it again when a woken worker finds it missing', async () => {
    const h = get();
    await h.control.evaluate(id => chrome.scripting.unregisterContentScripts({ ids: [id] }), MAIN_WORLD_SCRIPT_ID);
    assert.deepEqual(await registrations(h), [], 'unregistered');
    await h.stopWorker();
    assert.deepEqual(await registrations(h), [], 'still unregistered while the worker is stopped');

    expectOk(await h.send('LOAD_THEME', {}, { requestId: 'wake-for-registration' }), 'wake-for-registration');
    const [registration] = await poll(async () => {
      const found = await registrations(h);
      return found.length ? found : null;
    }, { message: `the woken worker to register ${MAIN_WORLD_SCRIPT_ID}` });
    assert.equal(registration.world, 'MAIN');
    assert.deepEqual(registration.js, MAIN_WORLD_FILES);
  });
});
