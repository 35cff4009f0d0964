// Local storage that refuses a write, in the real extension: the worker's
// chrome.storage.local.set is made to fail with Chrome's quota message
// (through CDP Runtime.evaluate on the service-worker target, which is what
// Playwright's worker.evaluate sends), then the user saves from the real side
// panel. The panel must say which action failed (the error toast names it),
// the data stored before must read back unchanged, and the same save must
// succeed once storage accepts writes again.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';

// Chrome's own text when chrome.storage.local is over its quota.
const QUOTA_MESSAGE = 'QUOTA_BYTES quota exceeded';

// ------------------------------------------------------------ panel helpers
// (serialised into the panel with Function.prototype.toString)

function click(selector) {
  const element = document.querySelector(selector);
  if (!element) throw new Error(`no element ${selector}`);
  element.click();
  return true;
}

function setValue([selector, value]) {
  const element = document.querySelector(selector);
  if (!element) throw new Error(`no element ${selector}`);
  element.value = value;
  element.dispatchEvent(new Event('input', { bubbles: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}

function visible(selector) {
  const element = document.querySelector(selector);
  return !!element && !element.hidden && element.checkVisibility();
}

function toast() {
  const status = document.getElementById('status');
  return {
    visible: !status.hidden && status.classList.contains('is-visible'),
    error: status.classList.contains('is-error'),
    text: document.getElementById('status-message').textContent,
  };
}

// ----------------------------------------------------------- worker helpers

/** Makes every chrome.storage.local.set of the running worker fail as a full store does. */
async function failWrites(h) {
  const worker = await h.worker();
  await worker.evaluate(message => {
    const local = chrome.storage.local;
    globalThis.__tsaRealSet ??= local.set;
    const refuse = () => Promise.reject(new Error(message));
    Object.defineProperty(local, 'set', { value: refuse, configurable: true, writable: true });
  }, QUOTA_MESSAGE);
}

/** Gives the worker its real chrome.storage.local.set back. */
async function acceptWrites(h) {
  const worker = await h.worker();
  await worker.evaluate(() => {
    const real = globalThis.__tsaRealSet;
    if (real) Object.defineProperty(chrome.storage.local, 'set', { value: real, configurable: true, writable: true });
    delete globalThis.__tsaRealSet;
  });
}

forEachBuild('storage faults', get => {
  it('a refused write of Settings → General tells the user which save failed and keeps what was stored', async () => {
    const h = get();
    const model = {
      id: 'fault-model', name: 'Fault model', apiBaseUrl: 'https://model.fixture/v1',
      apiKey: 'sk-fixture', modelId: 'fixture-chat', supportsVision: false, reasoningEffort: 'default',
    };
    await h.request('SAVE_SETTINGS', {
      settings: { models: [model], activeModelId: model.id, systemPrompt: 'Keep this prompt.' },
    });
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(fixture.tabId);
    const projectId = new URL(fixture.url).pathname.split('/').pop();
    const chat = await h.request('SESSION_CREATE', { projectId, name: 'Saved before' });
    const messages = [{ role: 'user', content: 'Written before the disk filled.' }];
    await h.request('SESSION_UPDATE', { sessionId: chat.id, messages });
    const before = await h.request('LOAD_SETTINGS', {});

    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await panel.evaluate(click, '#settings-toggle');
    await panel.waitFor(visible, '#settings-panel', { message: 'settings to open' });
    await panel.evaluate(click, '.settings-tab[data-tab="general"]');
    await panel.waitFor(visible, '[data-pane="general"]');

    await failWrites(h);
    try {
      await panel.evaluate(setValue, ['#system-prompt', 'A prompt that cannot be stored.']);
      await panel.evaluate(click, '#save-general-settings');
      const shown = await panel.waitFor(() => {
        const status = document.getElementById('status');
        const text = document.getElementById('status-message').textContent;
        return status.classList.contains('is-error') && text.includes('failed') ? text : null;
      }, undefined, { message: 'the error toast of the refused save' });
      assert.match(shown, /Saving the settings failed: /, 'the toast names the action that failed');
      assert.match(shown, /storage is full/, 'and why');
      assert.deepEqual(await panel.evaluate(toast), { visible: true, error: true, text: shown });

      // Everything stored before reads back as it was (reads do not write).
      assert.deepEqual(await h.request('LOAD_SETTINGS', {}), before, 'the settings are as stored before');
      const stored = await h.request('SESSION_GET', { sessionId: chat.id });
      assert.equal(stored.name, 'Saved before');
      assert.deepEqual(stored.messages, messages, 'the chat is as stored before');
    } finally {
      await acceptWrites(h);
    }

    // The same save succeeds once storage takes writes again.
    await panel.evaluate(click, '#save-general-settings');
    await poll(async () => (await h.request('LOAD_SETTINGS', {})).systemPrompt === 'A prompt that cannot be stored.',
      { message: 'the retried save stored the prompt' });
    await panel.waitFor(() => document.getElementById('status-message').textContent === 'Settings saved',
      undefined, { message: 'the success toast' });
    await panel.close();
    await fixture.page.close();
  });

  it('a refused write of a chat rename names the chat and leaves the chat as it was', async () => {
    const h = get();
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    const projectId = new URL(fixture.url).pathname.split('/').pop();
    const chat = await h.request('SESSION_CREATE', { projectId, name: 'Named before' });
    await failWrites(h);
    let answer;
    try {
      answer = await h.send('SESSION_UPDATE', { sessionId: chat.id, name: 'Never stored', userRenamed: true },
        { requestId: 'rename-under-quota' });
    } finally {
      await acceptWrites(h);
    }
    assert.equal(answer.payload.ok, false);
    assert.equal(answer.payload.error.code, 'STORAGE_QUOTA_EXCEEDED');
    assert.match(answer.payload.error.message, /^Saving the chat failed: /);
    const stored = await h.request('SESSION_GET', { sessionId: chat.id });
    assert.equal(stored.name, 'Named before');
    assert.equal(stored.userRenamed, false);
    await fixture.page.close();
  });

  it('ships unlimitedStorage, so the 10 MiB quota of chrome.storage.local does not apply', async () => {
    const h = get();
    const permissions = await h.control.evaluate(() => chrome.permissions.getAll());
    assert.ok(permissions.permissions.includes('unlimitedStorage'), JSON.stringify(permissions));
  });
});
