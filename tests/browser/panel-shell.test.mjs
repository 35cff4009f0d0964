// The panel shell in the real side panel (chrome.sidePanel.open, not a tab):
// first run, the model form and menu, General settings, the About dialog and
// the toast, the session menu, and a message sent from the composer reaching
// the scripted model endpoint with the user's text; then Stop and a panel
// reopened during a run.
//
// Everything is driven through the panel's own DOM (clicks, input events,
// key events) and checked against the worker's stored state through
// h.request(), so a test fails when either side is wrong.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';
import { poll } from './harness.mjs';
import { forEachBuild, sharedFixture } from './suite.mjs';
import { assertAccessible, enableKeyboard, expectFocusOn, press, retype, tabTo, type } from './a11y.mjs';

const FIXTURE_BASE_URL = 'https://model.fixture/v1';
const REPLY = 'The fixture document has one heading.';

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
  if (element.type === 'checkbox') element.checked = value;
  else element.value = value;
  element.dispatchEvent(new Event('input', { bubbles: true }));
  element.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}

function visible(selector) {
  const element = document.querySelector(selector);
  return !!element && !element.hidden && element.checkVisibility();
}

function text(selector) {
  return document.querySelector(selector)?.textContent ?? null;
}

function toast() {
  const status = document.getElementById('status');
  return {
    visible: !status.hidden && status.classList.contains('is-visible'),
    error: status.classList.contains('is-error'),
    role: status.getAttribute('role'),
    text: document.getElementById('status-message').textContent,
  };
}

/** Dispatches a keydown on `selector`; true when the panel handled it (prevented the default). */
function keydown([selector, init]) {
  const element = document.querySelector(selector);
  const event = new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
  return !element.dispatchEvent(event);
}

function sessionRows() {
  return [...document.querySelectorAll('#session-list [data-session-id]')].map(row => ({
    id: row.dataset.sessionId,
    name: row.querySelector('.dropdown-item-name')?.textContent ?? null,
    active: row.classList.contains('active'),
  }));
}

// ------------------------------------------------------------ node helpers

async function settings(h) {
  return h.request('LOAD_SETTINGS', {});
}

async function addModelThroughForm(panel, { name, url, key = 'sk-fixture', modelId, vision = false, effort = 'default', insecure = false }) {
  await panel.evaluate(click, '#add-model-btn');
  await panel.waitFor(visible, '#model-form', { message: '#model-form to open' });
  for (const [selector, value] of [
    ['#mf-name', name], ['#mf-base-url', url], ['#mf-api-key', key], ['#mf-model-id', modelId],
    ['#mf-vision', vision], ['#mf-reasoning-effort', effort],
  ]) {
    await panel.evaluate(setValue, [selector, value]);
  }
  if (insecure) await panel.evaluate(setValue, ['#mf-insecure', true]);
  await panel.evaluate(click, '#mf-save');
}

/**
 * The model the form test adds, saved directly (for the tests that need a
 * model); with `second`, a second model after it (the first stays active).
 */
async function saveFixtureModel(h, { second = false } = {}) {
  const model = {
    id: 'fixture-model-entry',
    name: 'Fixture',
    apiBaseUrl: FIXTURE_BASE_URL,
    apiKey: 'sk-fixture',
    modelId: 'fixture-model',
    supportsVision: true,
    reasoningEffort: 'low',
  };
  const models = second
    ? [model, { ...model, id: 'second-model-entry', name: 'Second', modelId: 'second-model', supportsVision: false }]
    : [model];
  await h.request('SAVE_SETTINGS', {
    settings: { models, activeModelId: model.id },
    fields: ['models', 'activeModelId'],
  });
}

forEachBuild('panel shell', get => {
  // One scripted endpoint for the suite, routed once; each test sets its script.
  const endpoint = new ModelEndpoint();
  const routed = sharedFixture(async h => {
    h.useModelEndpoint(endpoint);
  });
  const answerWithReply = () => [step.content(REPLY, { chunks: 3 }), step.finish('stop')];

  /**
   * Each test's own start: no saved settings (the first run) or just the
   * fixture model, the default answer, a new fixture project, and the real
   * panel beside it.
   */
  async function openShell({ model, second = false }) {
    const h = get();
    await routed(h);
    endpoint.setScript(answerWithReply);
    await h.control.evaluate(key => chrome.storage.local.remove(key), 'typstAgent.settings');
    if (model) await saveFixtureModel(h, { second });
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    return { h, fixture, panel, projectId: new URL(fixture.url).pathname.split('/').pop() };
  }

  /** Whether the element of `selector` says it is expanded. */
  function expanded(panel, selector) {
    return panel.evaluate(s => document.querySelector(s).getAttribute('aria-expanded'), selector);
  }

  /** Opens Settings from the header, as the user does. */
  async function openSettings(panel) {
    await panel.evaluate(click, '#settings-toggle');
    await panel.waitFor(visible, '#settings-panel', { message: 'settings to open' });
  }

  async function close({ panel, fixture }) {
    await panel.close();
    await fixture.page.close();
  }

  it('opens settings on the Models tab on first run, with no model', async () => {
    const shell = await openShell({ model: false });
    const { panel } = shell;

    await panel.waitFor(visible, '#settings-panel', { message: 'settings to open on first run' });
    const state = await panel.evaluate(() => ({
      collapsed: document.getElementById('settings-panel').classList.contains('collapsed'),
      toggleExpanded: document.getElementById('settings-toggle').getAttribute('aria-expanded'),
      tabs: [...document.querySelectorAll('.settings-tab')].map(t => [t.dataset.tab, t.classList.contains('active')]),
      modelsPane: !document.querySelector('[data-pane="models"]').hidden,
      generalPane: !document.querySelector('[data-pane="general"]').hidden,
      modelName: document.getElementById('model-name').textContent,
    }));
    assert.deepEqual(state, {
      collapsed: false,
      toggleExpanded: 'true',
      tabs: [['general', false], ['models', true], ['tools', false], ['mcp', false], ['sessions', false]],
      modelsPane: true,
      generalPane: false,
      modelName: 'No model',
    }, 'General, Models, Tools, MCP and Sessions exist; Models is open');
    await assertAccessible(panel, 'the first run: Settings → Models with no model');
    await panel.evaluate(click, '#model-current');
    assert.match(await panel.evaluate(text, '#model-list'), /Settings → Models/);
    await assertAccessible(panel, 'the model menu with no model');
    await panel.evaluate(click, '#model-current');
    await close(shell);
  });

  it('adds models through the form (endpoint policy, cleartext acknowledgement) and selects one from the menu', async () => {
    const shell = await openShell({ model: false });
    const { h, panel } = shell;
    await panel.waitFor(visible, '#settings-panel', { message: 'settings to open on first run' });
    // Missing fields: refused with an error toast, nothing stored.
    await panel.evaluate(click, '#add-model-btn');
    await panel.evaluate(click, '#mf-save');
    const missing = await panel.waitFor(() => {
      const status = document.getElementById('status');
      return status.classList.contains('is-error') ? document.getElementById('status-message').textContent : null;
    }, undefined, { message: 'an error toast for missing fields' });
    assert.match(missing, /Fill in/);
    assert.equal((await panel.evaluate(toast)).role, 'alert');
    await assertAccessible(panel, 'the open model form and an error toast');
    await panel.evaluate(click, '#status-close');
    await panel.waitFor(() => document.getElementById('status').hidden, undefined, { message: 'toast dismissed' });
    await panel.evaluate(click, '#mf-cancel');

    // Cleartext HTTP to a non-loopback origin needs the exact-origin acknowledgement.
    await addModelThroughForm(panel, { name: 'LAN model', url: 'http://192.0.2.10:8080/v1', modelId: 'lan' });
    const refused = await panel.waitFor(() => document.getElementById('status').classList.contains('is-error')
      && document.getElementById('status-message').textContent, undefined, { message: 'cleartext refusal' });
    assert.match(refused, /http:\/\/192\.0\.2\.10:8080/);
    assert.deepEqual((await settings(h)).models, []);
    await panel.evaluate(setValue, ['#mf-insecure', true]);
    await panel.evaluate(setValue, ['#mf-base-url', 'http://192.0.2.10:8080/v1']);
    assert.equal(await panel.evaluate(() => document.getElementById('mf-insecure').checked), false,
      'editing the URL unticks the acknowledgement');
    await panel.evaluate(setValue, ['#mf-insecure', true]);
    await panel.evaluate(click, '#mf-save');
    const lan = await poll(async () => (await settings(h)).models.find(m => m.name === 'LAN model'),
      { message: 'the LAN model stored' });
    assert.equal(lan.insecureTransportAcknowledgedOrigin, 'http://192.0.2.10:8080');
    assert.equal(lan.insecureTransportAcknowledged, true);

    await addModelThroughForm(panel, {
      name: 'Fixture', url: FIXTURE_BASE_URL, modelId: 'fixture-model', vision: true, effort: 'low',
    });
    const fixtureModel = await poll(async () => (await settings(h)).models.find(m => m.name === 'Fixture'),
      { message: 'the fixture model stored' });
    assert.equal(fixtureModel.apiBaseUrl, FIXTURE_BASE_URL);
    assert.equal(fixtureModel.modelId, 'fixture-model');
    assert.equal(fixtureModel.supportsVision, true);
    assert.equal(fixtureModel.reasoningEffort, 'low');
    assert.equal(fixtureModel.insecureTransportAcknowledged, false);
    await panel.waitFor(() => document.querySelectorAll('#model-registry [data-model-id]').length === 2, undefined,
      { message: 'two registry rows' });
    assert.equal(await panel.evaluate(visible, '#model-form'), false, 'the form closes after saving');

    await assertAccessible(panel, 'Settings → Models with two models');

    // Select the fixture model from the header menu.
    await panel.evaluate(click, '#model-current');
    await assertAccessible(panel, 'the model menu with two models');
    await panel.evaluate(id => document.querySelector(`#model-list [data-model-id="${id}"]`).click(), fixtureModel.id);
    await poll(async () => (await settings(h)).activeModelId === fixtureModel.id, { message: 'activeModelId saved' });
    await panel.waitFor(() => document.getElementById('model-name').textContent === 'Fixture', undefined,
      { message: '#model-name shows the selected model' });
    assert.equal(await panel.evaluate(visible, '#model-menu'), false);

    // Delete the LAN model from the registry.
    await panel.evaluate(id => document.querySelector(`#model-registry [data-model-id="${id}"] [data-action="delete"]`).click(), lan.id);
    await poll(async () => (await settings(h)).models.length === 1, { message: 'LAN model removed' });
    assert.equal((await settings(h)).activeModelId, fixtureModel.id);
    await close(shell);
  });

  it('saves General settings (fields, shortcut, theme) and the composer follows the shortcut', async () => {
    const shell = await openShell({ model: true });
    const { h, panel } = shell;
    await openSettings(panel);
    await panel.evaluate(click, '.settings-tab[data-tab="general"]');
    await panel.waitFor(visible, '[data-pane="general"]');
    await assertAccessible(panel, 'Settings → General');
    const modelId = (await settings(h)).activeModelId;
    await panel.evaluate(setValue, ['#send-message-shortcut', 'ctrl-enter']);
    await panel.evaluate(setValue, ['#history-cap', '300']);
    await panel.evaluate(setValue, ['#system-prompt', '  Answer briefly.  ']);
    await panel.evaluate(setValue, ['#auto-name-model', modelId]);
    await panel.evaluate(click, '#save-general-settings');
    const saved = await poll(async () => {
      const s = await settings(h);
      return s.sendMessageShortcut === 'ctrl-enter' ? s : null;
    }, { message: 'General settings saved' });
    assert.equal(saved.maxHistoryMessages, 200);
    assert.equal(saved.systemPrompt, 'Answer briefly.');
    assert.equal(saved.autoNameModelId, modelId);
    assert.equal(saved.models.length, 1, 'a General save leaves the models alone');
    await panel.waitFor(() => document.getElementById('send-shortcut-hint').textContent === 'Ctrl + Enter');
    assert.equal(await panel.evaluate(() => document.getElementById('send-btn').getAttribute('aria-label')),
      'Send message (Ctrl + Enter)');
    assert.equal(await panel.evaluate(() => document.getElementById('history-cap').value), '200');

    // With Ctrl + Enter configured, plain Enter and Shift + Enter stay newlines.
    assert.equal(await panel.evaluate(keydown, ['#user-input', { key: 'Enter' }]), false);
    assert.equal(await panel.evaluate(keydown, ['#user-input', { key: 'Enter', shiftKey: true }]), false);
    assert.equal(await panel.evaluate(keydown, ['#user-input', { key: 'Enter', ctrlKey: true }]), true);
    assert.equal(await panel.evaluate(keydown, ['#user-input', { key: 'Enter', ctrlKey: true, isComposing: true }]), false);

    // Back to Enter and no auto-naming (the send test checks the endpoint's requests).
    await panel.evaluate(setValue, ['#send-message-shortcut', 'enter']);
    await panel.evaluate(setValue, ['#auto-name-model', '']);
    await panel.evaluate(click, '#save-general-settings');
    await poll(async () => (await settings(h)).sendMessageShortcut === 'enter', { message: 'shortcut restored' });
    assert.equal((await settings(h)).autoNameModelId, null);

    // The theme switch applies and saves at once.
    await panel.evaluate(click, '#theme-switch [data-theme="light"]');
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'light');
    await poll(async () => (await h.request('LOAD_THEME', {})) === 'light', { message: 'light theme saved' });
    await panel.evaluate(click, '#theme-switch [data-theme="dark"]');
    await poll(async () => (await h.request('LOAD_THEME', {})) === 'dark', { message: 'dark theme saved' });
    await close(shell);
  });

  it('shows the About dialog with the manifest version, and Escape closes it, then settings', async () => {
    const shell = await openShell({ model: true });
    const { h, panel } = shell;
    await openSettings(panel);
    await panel.evaluate(click, '#about-settings-button');
    await panel.waitFor(visible, '#about-dialog-layer');
    const about = await panel.evaluate(() => ({
      title: document.getElementById('about-dialog-title').textContent,
      version: document.getElementById('about-dialog-version').textContent,
      links: [...document.querySelectorAll('.about-resource-link')].map(a => [a.href, a.rel, a.target]),
      store: document.getElementById('about-chrome-store-link').href,
      focused: document.activeElement?.id,
      modal: document.querySelector('#about-dialog-layer [role="dialog"]').getAttribute('aria-modal'),
    }));
    assert.equal(about.title, 'About Typst Side Agent');
    assert.equal(about.version, `Version ${h.manifest.version}`);
    assert.equal(about.links.length, 3);
    assert.ok(about.links.every(([href, rel, target]) => href.startsWith('https://') && rel === 'noopener noreferrer' && target === '_blank'));
    assert.equal(about.store, 'https://chromewebstore.google.com/detail/eljacjoifoamnmbclmhlpcdabdioleab');
    assert.equal(about.focused, 'about-dialog-close');
    assert.equal(about.modal, 'true');
    await assertAccessible(panel, 'the About dialog');
    await panel.evaluate(keydown, ['body', { key: 'Escape' }]);
    assert.equal(await panel.evaluate(visible, '#about-dialog-layer'), false);
    assert.equal(await panel.evaluate(visible, '#settings-panel'), true, 'Escape closes only the dialog first');
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'about-settings-button');
    await panel.evaluate(keydown, ['body', { key: 'Escape' }]);
    assert.equal(await panel.evaluate(visible, '#settings-panel'), false);
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'settings-toggle');

    await panel.evaluate(click, '#about-icon-button');
    await panel.waitFor(visible, '#about-dialog-layer');
    await panel.evaluate(click, '#about-dialog-close');
    assert.equal(await panel.evaluate(visible, '#about-dialog-layer'), false);
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'about-icon-button');
    await close(shell);
  });

  it('creates, renames, switches and deletes chats from the session menu', async () => {
    const shell = await openShell({ model: true });
    const { h, panel, projectId } = shell;
    const list = () => h.request('SESSION_LIST', { projectId });
    const first = await poll(async () => {
      const sessions = await list();
      return sessions.length === 1 ? sessions[0] : null;
    }, { message: 'the project got its first chat' });
    assert.equal(first.name, 'New chat');
    assert.equal(await panel.evaluate(text, '#session-name'), 'New chat');

    await panel.evaluate(click, '#session-current');
    await panel.waitFor(visible, '#session-menu');
    await assertAccessible(panel, 'the chats menu');
    await panel.evaluate(click, '#session-new');
    const two = await poll(async () => {
      const sessions = await list();
      return sessions.length === 2 ? sessions : null;
    }, { message: 'a second chat' });
    const second = two.find(s => s.id !== first.id);
    await panel.waitFor(id => document.querySelector('#session-list .active')?.dataset.sessionId === id, second.id,
      { message: 'the new chat is the active row' });

    // Rename the first chat inline: the input is bounded and Enter commits.
    await panel.evaluate(click, '#session-current');
    await panel.waitFor(visible, '#session-menu');
    await panel.evaluate(id => document.querySelector(`#session-list [data-session-id="${id}"] [data-action="rename"]`).click(), first.id);
    const maxLength = await panel.waitFor(() => document.querySelector('.dropdown-item-rename-input')?.maxLength, undefined,
      { message: 'the rename input' });
    assert.equal(maxLength, 80);
    await assertAccessible(panel, 'the chats menu renaming a chat');
    await panel.evaluate(setValue, ['.dropdown-item-rename-input', '  Chapter one  ']);
    assert.equal(await panel.evaluate(keydown, ['.dropdown-item-rename-input', { key: 'Enter' }]), true);
    const renamed = await poll(async () => (await list()).find(s => s.id === first.id && s.name === 'Chapter one'),
      { message: 'rename stored' });
    assert.equal(renamed.userRenamed, true);
    await panel.waitFor(id => [...document.querySelectorAll('#session-list [data-session-id]')]
      .some(r => r.dataset.sessionId === id && r.textContent.includes('Chapter one')), first.id,
    { message: 'the row shows the new name' });

    // Switch to it.
    await panel.evaluate(id => document.querySelector(`#session-list [data-session-id="${id}"] [data-action="open"]`).click(), first.id);
    await panel.waitFor(() => document.getElementById('session-name').textContent === 'Chapter one', undefined,
      { message: '#session-name after switching' });
    assert.equal(await panel.evaluate(visible, '#session-menu'), false);

    // Delete the open chat: the newest remaining one opens.
    await panel.evaluate(click, '#session-current');
    await panel.evaluate(id => document.querySelector(`#session-list [data-session-id="${id}"] [data-action="delete"]`).click(), first.id);
    await poll(async () => (await list()).length === 1, { message: 'chat deleted' });
    await panel.waitFor(id => document.querySelector('#session-list .active')?.dataset.sessionId === id, second.id,
      { message: 'the remaining chat opened' });
    assert.deepEqual((await panel.evaluate(sessionRows)).map(r => r.id), [second.id]);

    // Deleting the last chat creates a fresh one.
    await panel.evaluate(id => document.querySelector(`#session-list [data-session-id="${id}"] [data-action="delete"]`).click(), second.id);
    const fresh = await poll(async () => {
      const sessions = await list();
      return sessions.length === 1 && sessions[0].id !== second.id ? sessions[0] : null;
    }, { message: 'a fresh chat after deleting the last' });
    assert.equal(fresh.name, 'New chat');
    await panel.evaluate(click, 'body');
    await close(shell);
  });

  it('sends a message from the composer and the scripted model endpoint receives the user text', async () => {
    const shell = await openShell({ model: true });
    const { h, panel, projectId } = shell;
    const before = endpoint.requests.length;
    await panel.waitFor(() => !document.getElementById('user-input').disabled, undefined,
      { message: 'the composer is enabled on the fixture project' });
    await assertAccessible(panel, 'the empty chat with its suggestions');
    // A suggestion only prefills.
    await panel.evaluate(click, '.empty-suggestion');
    assert.ok((await panel.evaluate(() => document.getElementById('user-input').value)).length > 0);
    await panel.evaluate(setValue, ['#user-input', 'What does this document contain?']);
    await panel.evaluate(click, '#send-btn');

    await panel.waitFor(() => document.querySelector('#messages .msg-user') !== null, undefined,
      { message: 'the user message is shown' });
    assert.equal(await panel.evaluate(() => document.getElementById('user-input').value), '');
    await poll(() => endpoint.requests.length > before, { message: 'a request at the model endpoint', timeout: 30_000 });
    const request = endpoint.requests[before];
    assert.equal(request.body.model, 'fixture-model');
    assert.equal(request.body.stream, true);
    const userTexts = request.body.messages
      .filter(m => m.role === 'user')
      .map(m => typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
    assert.ok(userTexts.some(t => t.includes('What does this document contain?')), JSON.stringify(userTexts));

    await panel.waitFor(reply => document.querySelector('#messages .msg-assistant:not(.streaming)')?.textContent.includes(reply),
      REPLY, { message: 'the streamed answer is rendered' });
    await panel.waitFor(() => !document.getElementById('send-btn').classList.contains('is-stop'), undefined,
      { message: 'Stop turns back into Send' });
    await assertAccessible(panel, 'a chat with a streamed answer');
    const [session] = await h.request('SESSION_LIST', { projectId });
    const stored = await poll(async () => {
      const full = await h.request('SESSION_GET', { sessionId: session.id });
      return full?.messages?.length === 2 ? full : null;
    }, { message: 'the chat saved with both turns' });
    assert.equal(stored.messages[0].role, 'user');
    assert.equal(stored.messages[0].content, 'What does this document contain?');
    assert.equal(stored.messages[0].activeEditorFile.relativePath, 'main.typ');
    assert.equal(stored.messages[1].role, 'assistant');
    assert.equal(stored.messages[1].content, REPLY);
    assert.equal(stored.messages[1].responseStatus, 'complete');
    await close(shell);
  });

  it('attaches the editor selection and a preview screenshot as chips, sent with the next message', async () => {
    const shell = await openShell({ model: true });
    const { h, fixture, panel, projectId } = shell;
    const selected = await fixture.page.evaluate(() => window.__typstFixture.selectLine(1));
    assert.ok(selected.text.trim().length > 0, 'line 1 of the fixture has text');

    await panel.evaluate(click, '#add-context-btn');
    await panel.waitFor(visible, '#add-context-menu');
    await assertAccessible(panel, 'the Context menu');
    await panel.evaluate(click, '#add-context-menu [data-add="selection"]');
    const chip = await panel.waitFor(() => document.querySelector('#context-attachments .context-chip-label')?.textContent,
      undefined, { message: 'a selection chip' });
    assert.match(chip, /^Selection 1 · main\.typ: /);
    assert.equal(await panel.evaluate(visible, '#add-context-menu'), false);

    await panel.evaluate(click, '#add-context-btn');
    await panel.evaluate(click, '#add-context-menu [data-add="preview"]');
    const image = await panel.waitFor(() => document.querySelector('#context-attachments .preview-chip img')?.src,
      undefined, { message: 'a preview chip' });
    assert.match(image, /^data:image\/(png|jpeg|webp);base64,/);
    await assertAccessible(panel, 'the composer with a selection and a preview attached');

    // Removing and re-adding works through the chip's own button.
    await panel.evaluate(click, '#context-attachments .context-chip-del');
    await panel.waitFor(() => !document.querySelector('#context-attachments .context-chip'), undefined,
      { message: 'the selection chip removed' });
    await panel.evaluate(click, '#add-context-btn');
    await panel.evaluate(click, '#add-context-menu [data-add="selection"]');
    await panel.waitFor(() => document.querySelector('#context-attachments .context-chip'), undefined,
      { message: 'the selection chip again' });

    const before = endpoint.requests.length;
    await panel.evaluate(setValue, ['#user-input', 'Look at what I attached.']);
    await panel.evaluate(click, '#send-btn');
    await poll(() => endpoint.requests.length > before, { message: 'the request with attachments' });
    const messages = endpoint.requests[before].body.messages;
    const texts = messages.filter(m => m.role === 'user').map(m => JSON.stringify(m.content));
    assert.ok(texts.some(t => t.includes(JSON.stringify(selected.text.trim()).slice(1, -1))), 'the selection reaches the model');
    const images = messages.flatMap(m => Array.isArray(m.content) ? m.content : [])
      .filter(part => part.type === 'image_url');
    assert.equal(images.length, 1, 'the preview reaches the (vision) model');
    assert.match(images[0].image_url.url, /^data:image\/(png|jpeg|webp);base64,/);
    await panel.waitFor(() => document.getElementById('context-attachments').children.length === 0, undefined,
      { message: 'chips cleared at Send' });
    await panel.waitFor(() => !document.getElementById('send-btn').classList.contains('is-stop'), undefined,
      { message: 'the run ends' });
    const pills = await panel.evaluate(() => [...document.querySelectorAll('#messages .msg-user')].at(-1)?.textContent ?? '');
    assert.match(pills, /Selection 1/);

    // The stored chat keeps the selection text and a small WebP thumbnail, not the full image.
    const [session] = await h.request('SESSION_LIST', { projectId });
    const stored = await h.request('SESSION_GET', { sessionId: session.id });
    const user = stored.messages.filter(m => m.role === 'user').at(-1);
    assert.equal(user.content, 'Look at what I attached.');
    assert.deepEqual(user.sentAttachments.selections, [{ text: selected.text.trim(), fileLabel: 'main.typ' }]);
    const [thumb] = user.sentAttachments.previews;
    assert.equal(thumb.thumbnail, true);
    assert.equal(thumb.mimeType, 'image/webp');
    assert.ok(Math.max(thumb.width, thumb.height) <= 256, JSON.stringify([thumb.width, thumb.height]));
    assert.ok(thumb.dataUrl.length <= 204_800);
    await close(shell);
  });

  it('names the chat with the auto-naming model after a message, without delaying the answer', async () => {
    const shell = await openShell({ model: true });
    const { h, panel, projectId } = shell;
    endpoint.setScript(body => body.stream
      ? [step.content(REPLY), step.finish('stop')]
      : [step.content('"Fixture notes."'), step.finish('stop')]);
    await panel.evaluate(click, '#settings-toggle');
    await panel.evaluate(click, '.settings-tab[data-tab="general"]');
    const modelId = (await settings(h)).activeModelId;
    await panel.evaluate(setValue, ['#auto-name-model', modelId]);
    await panel.evaluate(click, '#save-general-settings');
    await poll(async () => (await settings(h)).autoNameModelId === modelId, { message: 'auto-naming on' });
    await panel.evaluate(click, '#settings-close');

    const before = endpoint.requests.length;
    await panel.evaluate(setValue, ['#user-input', 'Summarise my notes.']);
    await panel.evaluate(click, '#send-btn');
    await panel.waitFor(() => document.getElementById('session-name').textContent === 'Fixture notes', undefined,
      { message: 'the header shows the generated title' });
    const title = endpoint.requests.slice(before).find(r => r.body.stream !== true);
    assert.ok(title, 'a title request reached the endpoint');
    assert.ok(JSON.stringify(title.body.messages).includes('Summarise my notes.'));
    // The title and the run go out side by side; the run reads the page
    // first, so on a busy machine the title can be back before the run's
    // model request arrives. Waiting for it (instead of asserting it at the
    // title's moment) still fails if the title held the run back for good.
    await poll(() => endpoint.requests.slice(before).some(r => r.body.stream === true),
      { message: 'the run itself was started too' });
    const [session] = await h.request('SESSION_LIST', { projectId });
    assert.equal(session.name, 'Fixture notes');
    assert.equal(session.userRenamed, false);
    await panel.waitFor(() => !document.getElementById('send-btn').classList.contains('is-stop'), undefined,
      { message: 'the run ends' });

    await panel.evaluate(click, '#settings-toggle');
    await panel.evaluate(setValue, ['#auto-name-model', '']);
    await panel.evaluate(click, '#save-general-settings');
    await poll(async () => (await settings(h)).autoNameModelId === null, { message: 'auto-naming off' });
    await panel.evaluate(click, '#settings-close');
    await close(shell);
  });

  it('a panel reopened during a run shows it continues and reloads the chat at its end', async () => {
    const shell = await openShell({ model: true });
    const { h, panel, projectId } = shell;
    let release;
    const gate = new Promise(resolve => { release = resolve; });
    endpoint.setScript(async () => {
      await gate;
      return [step.content('Finished while the panel was away.'), step.finish('stop')];
    });
    const before = endpoint.requests.length;
    await panel.evaluate(setValue, ['#user-input', 'Take your time.']);
    await panel.evaluate(click, '#send-btn');
    await poll(() => endpoint.requests.length > before, { message: 'the slow request arrived' });
    assert.equal(await panel.evaluate(() => document.getElementById('send-btn').classList.contains('is-stop')), true);

    await panel.reload();
    await panel.waitForReady();
    const reconnected = await panel.waitFor(() => {
      const message = document.getElementById('status-message').textContent;
      return /continuing/i.test(message) ? {
        stop: document.getElementById('send-btn').classList.contains('is-stop'),
        inputDisabled: document.getElementById('user-input').disabled,
      } : null;
    }, undefined, { message: 'the reconnect notice' });
    assert.deepEqual(reconnected, { stop: true, inputDisabled: true });
    await assertAccessible(panel, 'a reopened panel during a run (Stop, the notice toast)');

    release();
    await panel.waitFor(() => [...document.querySelectorAll('#messages .msg-assistant')]
      .some(m => m.textContent.includes('Finished while the panel was away.')), undefined,
    { message: 'the chat reloaded with the answer the worker saved' });
    assert.equal(await panel.evaluate(() => document.getElementById('send-btn').classList.contains('is-stop')), false);
    const [session] = await h.request('SESSION_LIST', { projectId });
    const stored = await h.request('SESSION_GET', { sessionId: session.id });
    assert.equal(stored.messages.at(-1).content, 'Finished while the panel was away.');
    await close(shell);
  });

  it('Stop during a run keeps the partial answer in the saved chat', async () => {
    const shell = await openShell({ model: true });
    const { h, panel, projectId } = shell;
    // Round one streams text and asks for the file tree; round two never
    // answers, so the run is still going when Stop is pressed. (The pending
    // route is left alone: the worker aborts its fetch.)
    endpoint.setScript(body => {
      if (!body.messages.some(m => m.role === 'tool')) {
        return [
          step.content('Partial answer', { chunks: 2 }),
          step.toolCall({ id: 'call-tree-1', name: 'read_file_structure', arguments: '{}' }),
          step.finish('tool_calls'),
        ];
      }
      return new Promise(() => {});
    });
    const before = endpoint.requests.length;
    await panel.evaluate(setValue, ['#user-input', 'Write a long essay.']);
    await panel.evaluate(click, '#send-btn');
    await poll(() => endpoint.requests.length > before + 1, { message: 'the second round is waiting' });
    await panel.waitFor(() => document.querySelector('#messages .msg-assistant.streaming')?.textContent.includes('Partial answer'),
      undefined, { message: 'the partial answer streams in' });
    await panel.evaluate(click, '#send-btn');
    await panel.waitFor(() => document.getElementById('status-message').textContent === 'Stopped', undefined,
      { message: 'Stopped' });
    const [session] = await h.request('SESSION_LIST', { projectId });
    const stored = await poll(async () => {
      const full = await h.request('SESSION_GET', { sessionId: session.id });
      const last = full.messages.at(-1);
      return last?.role === 'assistant' && last.content.includes('Partial answer') ? last : null;
    }, { message: 'the partial answer saved' });
    assert.equal(stored.responseStatus, 'incomplete');
    await close(shell);
  });
  // ------------------------------------------------------------ keyboard alone
  // Real key presses (a11y.mjs), never element.click(): each control is
  // reached with Tab / Shift+Tab and operated with Enter, Space, Escape and
  // the arrow keys where its pattern uses them; focus is checked after each.

  it('works by keyboard alone: the chats menu (open, Escape, new, rename, open, delete)', async () => {
    const shell = await openShell({ model: true });
    const { h, panel, projectId } = shell;
    await enableKeyboard(panel);
    const list = () => h.request('SESSION_LIST', { projectId });
    const first = await poll(async () => {
      const sessions = await list();
      return sessions.length === 1 ? sessions[0] : null;
    }, { message: 'the project got its first chat' });

    await tabTo(panel, '#session-current');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#session-menu', { message: 'Enter opens the chats menu' });
    assert.equal(await expanded(panel, '#session-current'), 'true');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('session-menu').hidden, undefined, { message: 'Escape closes it' });
    await expectFocusOn(panel, '#session-current', 'after Escape');
    assert.equal(await expanded(panel, '#session-current'), 'false');

    // Space opens it; Tab reaches New chat.
    await press(panel, ' ');
    await panel.waitFor(visible, '#session-menu', { message: 'Space opens the chats menu' });
    await tabTo(panel, '#session-new');
    await press(panel, 'Enter');
    const two = await poll(async () => {
      const sessions = await list();
      return sessions.length === 2 ? sessions : null;
    }, { message: 'a second chat' });
    const other = two.find(s => s.id !== first.id);
    await panel.waitFor(() => document.getElementById('session-menu').hidden, undefined,
      { message: 'New chat closes the menu' });
    await expectFocusOn(panel, '#session-current', 'after New chat');

    // Rename the first chat: its Rename button, the field, Enter; focus comes back.
    const row = id => `#session-list [data-session-id="${id}"]`;
    await press(panel, 'Enter');
    await tabTo(panel, `${row(first.id)} [data-action="rename"]`);
    await press(panel, 'Enter');
    await expectFocusOn(panel, '.dropdown-item-rename-input', 'the rename field');
    await retype(panel, 'Keyboard chapter');
    await press(panel, 'Enter');
    const renamed = await poll(async () => (await list()).find(s => s.id === first.id && s.name === 'Keyboard chapter'),
      { message: 'the rename stored' });
    assert.equal(renamed.userRenamed, true);
    await expectFocusOn(panel, `${row(first.id)} [data-action="rename"]`, 'after the rename');

    // Escape in the field cancels: nothing stored, the menu stays open.
    await press(panel, 'Enter');
    await expectFocusOn(panel, '.dropdown-item-rename-input', 'the rename field again');
    await type(panel, 'Not kept');
    await press(panel, 'Escape');
    await expectFocusOn(panel, `${row(first.id)} [data-action="rename"]`, 'after Escape in the field');
    assert.equal(await panel.evaluate(visible, '#session-menu'), true, 'Escape in the field keeps the menu open');
    assert.equal((await list()).find(s => s.id === first.id).name, 'Keyboard chapter');

    // Open the first chat from its name: the menu closes onto its button.
    await tabTo(panel, `${row(first.id)} [data-action="open"]`, { shift: true });
    await press(panel, 'Enter');
    await panel.waitFor(() => document.getElementById('session-name').textContent === 'Keyboard chapter', undefined,
      { message: 'the chat opened' });
    await panel.waitFor(() => document.getElementById('session-menu').hidden, undefined, { message: 'the menu closed' });
    await expectFocusOn(panel, '#session-current', 'after opening a chat');

    // Delete the other chat: focus stays in the list, on the row now in its place.
    await press(panel, 'Enter');
    await tabTo(panel, `${row(other.id)} [data-action="delete"]`);
    await press(panel, 'Enter');
    await poll(async () => (await list()).length === 1, { message: 'the other chat deleted' });
    await expectFocusOn(panel, `${row(first.id)} [data-action="open"]`, 'after deleting a row');
    await press(panel, 'Escape');
    await expectFocusOn(panel, '#session-current', 'Escape after deleting');
    await close(shell);
  });

  it('works by keyboard alone: the model menu (arrow keys, Home, End, Enter, Escape, Tab out)', async () => {
    const shell = await openShell({ model: true, second: true });
    const { h, panel } = shell;
    await enableKeyboard(panel);
    const item = id => `#model-list [data-model-id="${id}"]`;
    await panel.waitFor(() => document.querySelectorAll('#model-list [role="menuitemradio"]').length === 2, undefined,
      { message: 'two models in the menu' });

    await tabTo(panel, '#model-current');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#model-menu', { message: 'Enter opens the model menu' });
    await expectFocusOn(panel, item('fixture-model-entry'), 'the menu opens on the checked model');
    assert.equal(await expanded(panel, '#model-current'), 'true');
    assert.deepEqual(await panel.evaluate(() => [...document.querySelectorAll('#model-list [role="menuitemradio"]')]
      .map(option => [option.dataset.modelId, option.getAttribute('aria-checked')])),
    [['fixture-model-entry', 'true'], ['second-model-entry', 'false']]);
    await press(panel, 'ArrowDown');
    await expectFocusOn(panel, item('second-model-entry'), 'ArrowDown');
    await press(panel, 'ArrowDown');
    await expectFocusOn(panel, item('fixture-model-entry'), 'ArrowDown wraps');
    await press(panel, 'End');
    await expectFocusOn(panel, item('second-model-entry'), 'End');
    await press(panel, 'Home');
    await expectFocusOn(panel, item('fixture-model-entry'), 'Home');
    await press(panel, 'ArrowUp');
    await expectFocusOn(panel, item('second-model-entry'), 'ArrowUp wraps');
    await press(panel, 'Enter');
    await poll(async () => (await settings(h)).activeModelId === 'second-model-entry', { message: 'the second model chosen' });
    await panel.waitFor(() => document.getElementById('model-name').textContent === 'Second', undefined,
      { message: '#model-name shows the choice' });
    await panel.waitFor(() => document.getElementById('model-menu').hidden, undefined, { message: 'choosing closes the menu' });
    await expectFocusOn(panel, '#model-current', 'after choosing');

    // ArrowDown on the button opens the menu on the checked model; Escape closes it.
    await press(panel, 'ArrowDown');
    await panel.waitFor(visible, '#model-menu', { message: 'ArrowDown opens the menu' });
    await expectFocusOn(panel, item('second-model-entry'), 'ArrowDown on the button');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('model-menu').hidden, undefined, { message: 'Escape closes it' });
    await expectFocusOn(panel, '#model-current', 'after Escape');

    // Tab leaves the menu and closes it; Shift+Tab lands on its button.
    await press(panel, 'Enter');
    await expectFocusOn(panel, item('second-model-entry'), 'open again');
    await press(panel, 'Tab');
    await panel.waitFor(() => document.getElementById('model-menu').hidden, undefined, { message: 'Tab closes the menu' });
    await expectFocusOn(panel, '#settings-toggle', 'Tab goes on past the menu');
    await press(panel, 'Tab', { shift: true });
    await expectFocusOn(panel, '#model-current', 'Shift+Tab back to the button');
    await press(panel, 'Enter');
    await press(panel, 'Tab', { shift: true });
    await panel.waitFor(() => document.getElementById('model-menu').hidden, undefined, { message: 'Shift+Tab closes it' });
    await expectFocusOn(panel, '#model-current', 'Shift+Tab out of the menu');
    assert.equal((await settings(h)).activeModelId, 'second-model-entry', 'moving through the menu chose nothing');
    await close(shell);
  });

  it('works by keyboard alone: Settings (tabs by arrow keys, the model form, the toast, About, closing)', async () => {
    const shell = await openShell({ model: true });
    const { panel } = shell;
    await enableKeyboard(panel);
    const selectedTab = () => panel.evaluate(() => ({
      selected: document.querySelector('.settings-tab[aria-selected="true"]')?.dataset.tab,
      pane: [...document.querySelectorAll('.settings-tab-pane')].filter(pane => !pane.hidden).map(pane => pane.dataset.pane),
      focused: document.activeElement?.dataset.tab ?? null,
    }));

    await tabTo(panel, '#settings-toggle');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#settings-panel', { message: 'Enter opens Settings' });
    assert.equal(await expanded(panel, '#settings-toggle'), 'true');
    await tabTo(panel, '#settings-tab-general');
    for (const [key, tab] of [['ArrowRight', 'models'], ['End', 'sessions'], ['ArrowRight', 'general'], ['ArrowLeft', 'sessions'],
      ['Home', 'general'], ['ArrowRight', 'models']]) {
      await press(panel, key);
      assert.deepEqual(await selectedTab(), { selected: tab, pane: [tab], focused: tab }, `${key} shows and focuses ${tab}`);
    }

    // The model form: Enter opens it on its first field, Escape cancels it (Settings stays).
    await tabTo(panel, '#add-model-btn');
    await press(panel, 'Enter');
    await expectFocusOn(panel, '#mf-name', 'the model form opens on its first field');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('model-form').hidden, undefined, { message: 'Escape closes the form' });
    assert.equal(await panel.evaluate(visible, '#settings-panel'), true, 'Escape in the form keeps Settings open');
    await expectFocusOn(panel, '#add-model-btn', 'after Escape in the form');

    // Editing: Cancel gives focus back to the row's Edit button.
    const edit = '#model-registry [data-model-id="fixture-model-entry"] [data-action="edit"]';
    await tabTo(panel, edit, { shift: true });
    await press(panel, 'Enter');
    await expectFocusOn(panel, '#mf-name', 'the edit form');
    assert.equal(await panel.evaluate(() => document.getElementById('mf-name').value), 'Fixture');
    await tabTo(panel, '#mf-cancel');
    await press(panel, 'Enter');
    await expectFocusOn(panel, edit, 'after Cancel');

    // An error toast is reached with Shift+Tab and dismissed with Enter; focus goes back.
    await tabTo(panel, '#add-model-btn');
    await press(panel, 'Enter');
    await tabTo(panel, '#mf-save');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.getElementById('status').classList.contains('is-error'), undefined,
      { message: 'the refusal toast' });
    await tabTo(panel, '#status-close', { shift: true });
    await press(panel, 'Enter');
    await panel.waitFor(() => document.getElementById('status').hidden, undefined, { message: 'the toast dismissed' });
    await expectFocusOn(panel, '#settings-close', 'focus back where it came from');
    await press(panel, 'Escape');
    await expectFocusOn(panel, '#settings-toggle', 'Escape closes Settings (the form was open)');

    // About: it opens on its close button, Tab stays inside, Escape returns focus.
    await press(panel, 'Enter');
    await tabTo(panel, '#settings-tab-general');
    await press(panel, 'Enter');
    await tabTo(panel, '#about-settings-button');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#about-dialog-layer', { message: 'the About dialog' });
    await expectFocusOn(panel, '#about-dialog-close', 'About opens on its close button');
    for (let i = 0; i < 4; i += 1) await press(panel, 'Tab');
    await expectFocusOn(panel, '#about-dialog-close', 'Tab goes round the dialog (close and three links)');
    await press(panel, 'Tab', { shift: true });
    await expectFocusOn(panel, '#about-chrome-store-link', 'Shift+Tab from the first control goes to the last');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('about-dialog-layer').hidden, undefined, { message: 'Escape closes About' });
    await expectFocusOn(panel, '#about-settings-button', 'after Escape in About');
    await tabTo(panel, '#about-settings-button');
    await press(panel, ' ');
    await expectFocusOn(panel, '#about-dialog-close', 'Space opens About');
    await press(panel, 'Enter');
    await expectFocusOn(panel, '#about-settings-button', 'its close button returns focus');

    // The close button closes Settings onto the Settings button.
    await tabTo(panel, '#settings-close', { shift: true });
    await press(panel, 'Enter');
    await panel.waitFor(() => document.getElementById('settings-panel').hidden, undefined, { message: 'Settings closed' });
    await expectFocusOn(panel, '#settings-toggle', 'after closing Settings');
    assert.equal(await expanded(panel, '#settings-toggle'), 'false');
    await close(shell);
  });

  it('works by keyboard alone: the Context menu and the attachment chips', async () => {
    const shell = await openShell({ model: true });
    const { fixture, panel } = shell;
    await enableKeyboard(panel);
    await fixture.page.evaluate(() => window.__typstFixture.selectLine(1));
    await panel.waitFor(() => !document.getElementById('add-context-btn').disabled, undefined,
      { message: 'the Context button is enabled' });
    const option = kind => `#add-context-menu [data-add="${kind}"]`;

    await tabTo(panel, '#add-context-btn', { shift: true });
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#add-context-menu', { message: 'Enter opens the Context menu' });
    await expectFocusOn(panel, option('selection'), 'the menu opens on its first item');
    assert.equal(await expanded(panel, '#add-context-btn'), 'true');
    for (const [key, kind] of [['ArrowDown', 'preview'], ['End', 'opened_image'], ['ArrowDown', 'selection'],
      ['ArrowUp', 'opened_image'], ['Home', 'selection']]) {
      await press(panel, key);
      await expectFocusOn(panel, option(kind), key);
    }
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('add-context-menu').hidden, undefined, { message: 'Escape closes it' });
    await expectFocusOn(panel, '#add-context-btn', 'after Escape');

    await press(panel, 'ArrowDown');
    await expectFocusOn(panel, option('selection'), 'ArrowDown opens it on its first item');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.querySelector('#context-attachments .context-chip'), undefined,
      { message: 'the selection chip' });
    await expectFocusOn(panel, '#add-context-btn', 'after choosing');
    assert.equal(await panel.evaluate(visible, '#add-context-menu'), false);

    // The chip's Remove button: reached with Shift+Tab; focus goes to the message field after.
    await tabTo(panel, '#context-attachments .context-chip-del', { shift: true });
    await press(panel, 'Enter');
    await panel.waitFor(() => !document.querySelector('#context-attachments .context-chip'), undefined,
      { message: 'the chip removed' });
    await expectFocusOn(panel, '#user-input', 'after removing the last chip');
    await close(shell);
  });
});
