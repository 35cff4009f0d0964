// Editor writes in the real side panel: the Edits control above the composer
// (saved at once, only its field), a stored chat with editor-write receipts
// (tool labels and results, the Revert control in each of its states, the
// Revert dialog and every way to cancel it, a refused revert), the Snapshot
// button of the latest complete answer with its popover, and approval banners
// (an editor review with a complete 2,403-row diff rendered as text, Apply
// reaching the worker for the run and call; an external call's three choices),
// and the whole flow through the worker on the CodeMirror fixture: Ask with
// Apply changes and with Reject from the panel, Revert of the older answer
// (the original text comes back, the chat stores the reverted receipt), and
// the answer's snapshot restored from the popover (diff preview, rescue copy,
// editor-state update saved on the last message; deleting a copy after its
// confirmation).
//
// Everything goes through public seams: worker messages from the control page
// and the panel's DOM (clicks, keys and reads).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBuild, sharedFixture } from './suite.mjs';
import { poll } from './harness.mjs';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';
import { openPanel, send, useFixtureModel, waitForAnswer } from './panel-render.mjs';
import { assertAccessible, enableKeyboard, expectFocusOn, isFocused, press, tabTo } from './a11y.mjs';

function visible(selector) {
  const element = document.querySelector(selector);
  return !!element && !element.hidden && element.checkVisibility();
}

function click(selector) {
  const element = document.querySelector(selector);
  if (!element) throw new Error(`no ${selector}`);
  element.click();
  return true;
}

function keydown([selector, init]) {
  const element = document.querySelector(selector);
  const event = new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
  return !element.dispatchEvent(event);
}

function projectOf(url) {
  return new URL(url).pathname.split('/')[2];
}

/** A saved model, so the panel opens on the chat rather than on Settings. */
async function withModel(h) {
  await useFixtureModel(h, { baseUrl: 'https://model.fixture/v1' });
}

const RECEIPT = (id, status) => ({ id, status, fileLabel: 'main.typ', createdAt: Date.now() - 60_000 });

/** Two answers with editor writes: the older one can be reverted, the newer one was. */
function editedChat() {
  return [
    { role: 'user', content: 'Tidy the heading' },
    {
      role: 'assistant',
      content: 'I replaced the heading.',
      responseStatus: 'complete',
      segments: [
        {
          type: 'tools',
          calls: [
            { id: 'call-lines', name: 'replace_lines', args: { start_line: 2, end_line: 3, new_content: '= Better <b>title</b>' } },
            { id: 'call-search', name: 'search_replace', args: { search: 'old\ntext', replace: 'new' } },
          ],
          results: {
            'call-lines': { ok: true, edits_applied: 1, reviewed_diff: true, editCheckpoint: RECEIPT('edit-older', 'applied') },
            'call-search': { ok: true, no_changes: true },
          },
        },
        { type: 'text', content: 'I replaced the heading.' },
      ],
    },
    { role: 'user', content: 'Now the rest' },
    {
      role: 'assistant',
      content: 'Patched.',
      responseStatus: 'complete',
      segments: [
        {
          type: 'tools',
          calls: [
            { id: 'call-patch', name: 'patch_document', args: { edits: [{ search: 'a', replace: 'b' }, { search: 'c', replace: 'd' }] } },
            { id: 'call-insert', name: 'insert_at_cursor', args: { text: 'inserted' } },
            { id: 'call-selection', name: 'replace_selection', args: { text: 'chosen' } },
          ],
          results: {
            'call-selection': { ok: true, edits_applied: 1, reviewed_diff: false, editCheckpoint: RECEIPT('edit-newer', 'reverted') },
            'call-patch': { ok: true, edits_applied: 2, reviewed_diff: false, editCheckpoint: RECEIPT('edit-newer', 'reverted') },
            'call-insert': { ok: false, code: 'STALE_EDIT_PREVIEW', error: 'The document changed after the proposal was computed; nothing was applied.' },
          },
        },
        { type: 'text', content: 'Patched.' },
      ],
    },
  ];
}

/** Runs in the panel: what each answer's tool blocks and recovery control show. */
function answers() {
  return [...document.querySelectorAll('#messages .msg-assistant')].map(group => ({
    tools: [...group.querySelectorAll('.tool-block')].map(block => ({
      label: block.querySelector('.tool-block-name')?.textContent,
      status: block.querySelector('.tool-status')?.textContent,
      detail: block.querySelector('.tool-block-detail')?.textContent,
      elementsInDetail: block.querySelector('.tool-block-detail')?.children.length,
    })),
    control: (() => {
      const control = group.querySelector('.edit-revert-control');
      if (!control) return null;
      return {
        state: control.dataset.revertState,
        checkpoint: control.dataset.checkpointId ?? null,
        revert: control.querySelector('.edit-revert-button')?.textContent ?? null,
        revertDisabled: control.querySelector('.edit-revert-button')?.disabled ?? null,
        status: control.querySelector('.edit-revert-status')?.textContent ?? null,
        statusTitle: control.querySelector('.edit-revert-status')?.title ?? null,
        snapshot: !!control.querySelector('.response-snapshot-button'),
        note: control.querySelector('.edit-revert-note')?.textContent ?? null,
      };
    })(),
  }));
}

forEachBuild('panel edits', get => {
  it('saves the Edits mode at once, only that field, and shows it', async () => {
    const h = get();
    const { fixture, panel } = await openPanel(h);
    await panel.waitFor(() => document.getElementById('editor-permission-current')?.textContent === 'Ask',
      undefined, { message: 'the Edits control to show Ask' });
    assert.equal((await h.request('LOAD_SETTINGS')).editorApprovalMode, 'ask');

    await panel.evaluate(click, '#editor-permission-btn');
    assert.equal(await panel.evaluate(visible, '#editor-permission-menu'), true, 'the menu opens');
    await assertAccessible(panel, 'the Edits menu');
    const options = await panel.evaluate(() => [...document.querySelectorAll('#editor-permission-menu [data-editor-approval-mode]')]
      .map(option => ({ mode: option.dataset.editorApprovalMode, title: option.querySelector('.opt-title')?.textContent, checked: option.getAttribute('aria-checked') })));
    assert.deepEqual(options, [
      { mode: 'ask', title: 'Ask before applying', checked: 'true' },
      { mode: 'auto', title: 'Auto approve', checked: 'false' },
    ]);
    await panel.evaluate(click, '#editor-permission-menu [data-editor-approval-mode="auto"]');
    await poll(async () => (await h.request('LOAD_SETTINGS')).editorApprovalMode === 'auto',
      { message: 'editorApprovalMode saved as auto' });
    await panel.waitFor(() => document.getElementById('editor-permission-current')?.textContent === 'Auto'
      && document.getElementById('editor-permission-btn')?.dataset.mode === 'auto'
      && !document.getElementById('editor-permission-btn')?.disabled,
    undefined, { message: 'the control to show Auto' });
    assert.equal(await panel.evaluate(visible, '#editor-permission-menu'), false, 'choosing closes the menu');

    // Escape closes an open menu without a change.
    await panel.evaluate(click, '#editor-permission-btn');
    assert.equal(await panel.evaluate(keydown, ['#editor-permission-btn', { key: 'Escape' }]), true);
    assert.equal(await panel.evaluate(visible, '#editor-permission-menu'), false);

    // Back to Ask; the other settings were not touched.
    const before = await h.request('LOAD_SETTINGS');
    await panel.evaluate(click, '#editor-permission-btn');
    await panel.evaluate(click, '#editor-permission-menu [data-editor-approval-mode="ask"]');
    await poll(async () => (await h.request('LOAD_SETTINGS')).editorApprovalMode === 'ask',
      { message: 'editorApprovalMode saved as ask' });
    const after = await h.request('LOAD_SETTINGS');
    assert.deepEqual({ ...after, editorApprovalMode: 'auto' }, before, 'only editorApprovalMode changed');
    await panel.close();
    await fixture.page.close();
  });

  it('shows editor-write results and the Revert control of a stored chat, and its dialog cancels every way', async () => {
    const h = get();
    const url = h.fixtureUrl({ cm: 'latest' });
    const projectId = projectOf(url);
    await withModel(h);
    const session = await h.request('SESSION_CREATE', { projectId, name: 'Edited chat' });
    await h.request('SESSION_UPDATE', { sessionId: session.id, messages: editedChat() });
    const fixture = await h.openFixtureTab({ cm: 'latest', project: projectId });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await panel.waitFor(() => document.querySelectorAll('#messages .edit-revert-control').length === 2,
      undefined, { message: 'two recovery controls' });

    const [older, newer] = await panel.evaluate(answers);
    assert.deepEqual(older.tools.map(t => [t.label, t.status]), [
      ['Replace lines 2–3', 'applied · reviewed'],
      ['Search & replace: "old↵text"', 'no changes'],
    ]);
    assert.equal(older.tools[0].detail, '= Better <b>title</b>', 'the new content is shown as text');
    assert.equal(older.tools[0].elementsInDetail, 0);
    assert.deepEqual(newer.tools.map(t => t.label), ['Patch document (2 edits)', 'Insert at cursor', 'Replace selection']);
    assert.equal(newer.tools[0].status, '2 edits applied');
    assert.equal(newer.tools[1].status, 'The document changed after the proposal was computed; nothing was applied.'.slice(0, 50));
    assert.equal(newer.tools[2].status, 'applied');

    assert.deepEqual(older.control, {
      state: 'available', checkpoint: 'edit-older', revert: 'Revert', revertDisabled: false,
      status: null, statusTitle: null, snapshot: false, note: null,
    });
    assert.equal(newer.control.state, 'success');
    assert.equal(newer.control.status, 'Changes reverted');
    assert.match(newer.control.statusTitle, /main\.typ/);
    assert.equal(newer.control.snapshot, true, 'only the latest complete answer has Snapshot');
    await assertAccessible(panel, 'a stored chat with edit receipts and Revert controls');

    const open = async () => {
      await panel.evaluate(click, '#messages .edit-revert-control[data-checkpoint-id="edit-older"] .edit-revert-button');
      await panel.waitFor(visible, '#revert-dialog-layer', { message: 'the Revert dialog' });
      return panel.evaluate(() => ({
        title: document.getElementById('revert-dialog-title')?.textContent,
        subtitle: document.getElementById('revert-dialog-subtitle')?.textContent,
        body: document.getElementById('revert-dialog-body')?.textContent,
        confirm: document.getElementById('revert-dialog-confirm')?.textContent,
        focused: document.activeElement?.id,
        expanded: document.querySelector('.edit-revert-control[data-checkpoint-id="edit-older"] .edit-revert-button')?.getAttribute('aria-expanded'),
      }));
    };
    const dialog = await open();
    await assertAccessible(panel, 'the Revert dialog');
    assert.equal(dialog.title, 'Revert these changes?');
    assert.equal(dialog.subtitle, 'main.typ');
    assert.match(dialog.body, /main\.typ/);
    assert.equal(dialog.confirm, 'Revert changes');
    assert.equal(dialog.focused, 'revert-dialog-confirm');
    assert.equal(dialog.expanded, 'true');

    await panel.evaluate(keydown, ['#revert-dialog-confirm', { key: 'Escape' }]);
    assert.equal(await panel.evaluate(visible, '#revert-dialog-layer'), false, 'Escape cancels');
    await open();
    await panel.evaluate(() => {
      const layer = document.getElementById('revert-dialog-layer');
      layer.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    });
    assert.equal(await panel.evaluate(visible, '#revert-dialog-layer'), false, 'the backdrop cancels');
    await open();
    await panel.evaluate(click, '#revert-dialog-close');
    assert.equal(await panel.evaluate(visible, '#revert-dialog-layer'), false, '× cancels');
    await open();
    await panel.evaluate(click, '#revert-dialog-cancel');
    assert.equal(await panel.evaluate(visible, '#revert-dialog-layer'), false, 'Cancel cancels');
    const stored = await h.request('SESSION_GET', { sessionId: session.id });
    assert.equal(stored.messages[1].segments[0].results['call-lines'].editCheckpoint.status, 'applied',
      'cancelling changes nothing');

    // This receipt has no checkpoint in the worker's journal: the revert is
    // refused, the control offers another try and says why.
    await open();
    await panel.evaluate(click, '#revert-dialog-confirm');
    await panel.waitFor(() => document.querySelector('.edit-revert-control[data-checkpoint-id="edit-older"]')?.dataset.revertState === 'error',
      undefined, { message: 'the refused revert' });
    const [refused] = await panel.evaluate(answers);
    assert.equal(refused.control.revert, 'Try revert again');
    assert.ok(refused.control.note && refused.control.note.length > 1, 'the reason is shown');
    const after = await h.request('SESSION_GET', { sessionId: session.id });
    assert.equal(after.messages[1].segments[0].results['call-lines'].editCheckpoint.status, 'applied');
    await panel.close();
    await fixture.page.close();
  });

  it('opens the Snapshot popover from the latest complete answer and closes it with Escape', async () => {
    const h = get();
    const url = h.fixtureUrl({ cm: 'latest' });
    const projectId = projectOf(url);
    await withModel(h);
    const session = await h.request('SESSION_CREATE', { projectId, name: 'Snapshot chat' });
    await h.request('SESSION_UPDATE', { sessionId: session.id, messages: editedChat() });
    const fixture = await h.openFixtureTab({ cm: 'latest', project: projectId });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await panel.waitFor(() => !!document.querySelector('#messages .response-snapshot-button'),
      undefined, { message: 'the Snapshot button' });
    assert.equal(await panel.evaluate(() => document.querySelectorAll('#messages .response-snapshot-button').length), 1);

    await panel.evaluate(click, '#messages .response-snapshot-button');
    await panel.waitFor(visible, '#snapshot-menu', { message: 'the snapshot popover' });
    // Loading ends in a list, the empty note or the worker's refusal: never stuck.
    await panel.waitFor(() => !/^Loading/.test(document.getElementById('snapshot-list')?.textContent ?? 'Loading'),
      undefined, { message: 'the snapshot list to load' });
    const menu = await panel.evaluate(() => {
      const box = document.getElementById('snapshot-menu').getBoundingClientRect();
      return {
        inside: box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight,
        expanded: document.querySelector('#messages .response-snapshot-button')?.getAttribute('aria-expanded'),
        text: document.getElementById('snapshot-list').textContent,
      };
    });
    assert.equal(menu.inside, true, 'the popover stays in the window');
    assert.equal(menu.expanded, 'true');
    assert.ok(menu.text.length > 0);
    await assertAccessible(panel, 'the snapshot popover');

    await panel.evaluate(keydown, ['#snapshot-menu-close', { key: 'Escape' }]);
    assert.equal(await panel.evaluate(visible, '#snapshot-menu'), false, 'Escape closes the popover');
    assert.equal(await panel.evaluate(() => document.activeElement?.classList.contains('response-snapshot-button')), true,
      'focus returns to Snapshot');

    // A click elsewhere closes it too.
    await panel.evaluate(click, '#messages .response-snapshot-button');
    await panel.waitFor(visible, '#snapshot-menu', { message: 'the snapshot popover again' });
    await panel.evaluate(() => document.querySelector('#messages .msg-user').click());
    assert.equal(await panel.evaluate(visible, '#snapshot-menu'), false, 'an outside click closes the popover');
    await panel.close();
    await fixture.page.close();
  });
  it('works by keyboard alone: the Edits menu (arrow keys, Enter, Space, Escape)', async () => {
    const h = get();
    await withModel(h);
    await h.request('SAVE_SETTINGS', { settings: { editorApprovalMode: 'ask' }, fields: ['editorApprovalMode'] });
    const { fixture, panel } = await openPanel(h);
    await enableKeyboard(panel);
    const option = mode => `#editor-permission-menu [data-editor-approval-mode="${mode}"]`;
    const shows = mode => panel.waitFor(expected => document.getElementById('editor-permission-btn')?.dataset.mode === expected
      && !document.getElementById('editor-permission-btn').disabled, mode, { message: `the control to show ${mode}` });
    await shows('ask');

    await tabTo(panel, '#editor-permission-btn', { shift: true });
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#editor-permission-menu', { message: 'Enter opens the Edits menu' });
    await expectFocusOn(panel, option('ask'), 'the menu opens on the current mode');
    await press(panel, 'ArrowDown');
    await expectFocusOn(panel, option('auto'), 'ArrowDown');
    await press(panel, 'ArrowDown');
    await expectFocusOn(panel, option('ask'), 'ArrowDown wraps');
    await press(panel, 'End');
    await expectFocusOn(panel, option('auto'), 'End');
    await press(panel, 'Enter');
    await poll(async () => (await h.request('LOAD_SETTINGS')).editorApprovalMode === 'auto', { message: 'auto saved' });
    await shows('auto');
    assert.equal(await panel.evaluate(visible, '#editor-permission-menu'), false, 'choosing closes the menu');
    await expectFocusOn(panel, '#editor-permission-btn', 'focus back on the control after the save');

    // Space opens the menu; Escape closes it onto its button without a change.
    await press(panel, ' ');
    await expectFocusOn(panel, option('auto'), 'Space opens on the current mode');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('editor-permission-menu').hidden, undefined, { message: 'Escape closes it' });
    await expectFocusOn(panel, '#editor-permission-btn', 'after Escape');

    // ArrowUp on the button opens the menu on its last item; back to Ask.
    await press(panel, 'ArrowUp');
    await expectFocusOn(panel, option('auto'), 'ArrowUp opens on the last item');
    await press(panel, 'Home');
    await press(panel, 'Enter');
    await poll(async () => (await h.request('LOAD_SETTINGS')).editorApprovalMode === 'ask', { message: 'ask saved' });
    await shows('ask');
    await expectFocusOn(panel, '#editor-permission-btn', 'after choosing Ask');
    await panel.close();
    await fixture.page.close();
  });

  it('works by keyboard alone: the Revert dialog (Tab stays inside, Escape and Cancel) and the Snapshot popover', async () => {
    const h = get();
    const url = h.fixtureUrl({ cm: 'latest' });
    const projectId = projectOf(url);
    await withModel(h);
    const session = await h.request('SESSION_CREATE', { projectId, name: 'Keyboard chat' });
    await h.request('SESSION_UPDATE', { sessionId: session.id, messages: editedChat() });
    const fixture = await h.openFixtureTab({ cm: 'latest', project: projectId });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await enableKeyboard(panel);
    await panel.waitFor(() => document.querySelectorAll('#messages .edit-revert-control').length === 2,
      undefined, { message: 'two recovery controls' });
    const revert = '#messages .edit-revert-control[data-checkpoint-id="edit-older"] .edit-revert-button';
    const expanded = () => panel.evaluate(selector => document.querySelector(selector).getAttribute('aria-expanded'), revert);

    await tabTo(panel, revert);
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#revert-dialog-layer', { message: 'Enter opens the Revert dialog' });
    await expectFocusOn(panel, '#revert-dialog-confirm', 'the dialog opens on its confirmation');
    assert.equal(await expanded(), 'true');
    await press(panel, 'Tab');
    await expectFocusOn(panel, '#revert-dialog-close', 'Tab from the last control goes round to the first');
    await press(panel, 'Tab', { shift: true });
    await expectFocusOn(panel, '#revert-dialog-confirm', 'Shift+Tab from the first goes to the last');
    await press(panel, 'Tab', { shift: true });
    await expectFocusOn(panel, '#revert-dialog-cancel', 'Shift+Tab');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('revert-dialog-layer').hidden, undefined, { message: 'Escape cancels' });
    await expectFocusOn(panel, revert, 'after Escape');
    assert.equal(await expanded(), 'false');

    await press(panel, ' ');
    await expectFocusOn(panel, '#revert-dialog-confirm', 'Space opens the dialog');
    await press(panel, 'Tab', { shift: true });
    await expectFocusOn(panel, '#revert-dialog-cancel', 'Shift+Tab to Cancel');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.getElementById('revert-dialog-layer').hidden, undefined, { message: 'Cancel cancels' });
    await expectFocusOn(panel, revert, 'after Cancel');
    const stored = await h.request('SESSION_GET', { sessionId: session.id });
    assert.equal(stored.messages[1].segments[0].results['call-lines'].editCheckpoint.status, 'applied',
      'nothing was reverted');

    // The Snapshot popover: focus goes into it, Tab stays inside, Escape returns.
    await tabTo(panel, '#messages .response-snapshot-button');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#snapshot-menu', { message: 'Enter opens the snapshot popover' });
    await expectFocusOn(panel, '#snapshot-menu', 'the popover takes the focus');
    await panel.waitFor(() => !/^Loading/.test(document.getElementById('snapshot-list')?.textContent ?? 'Loading'),
      undefined, { message: 'the snapshot list to load' });
    await press(panel, 'Tab');
    await expectFocusOn(panel, '#snapshot-menu-close', 'Tab to its close button');
    await press(panel, 'Tab', { shift: true });
    assert.equal(await panel.evaluate(() => document.getElementById('snapshot-menu').contains(document.activeElement)), true,
      'Shift+Tab stays in the popover');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('snapshot-menu').hidden, undefined, { message: 'Escape closes it' });
    await expectFocusOn(panel, '#messages .response-snapshot-button', 'after Escape in the popover');
    await panel.close();
    await fixture.page.close();
  });
});

/** A valid unified-diff preview of `lines` replaced lines plus a hostile row. */
function largePreview(lines) {
  const first = { oldStart: 1, oldLines: lines, newStart: 1, newLines: lines, rows: [] };
  for (let i = 1; i <= lines; i += 1) first.rows.push({ kind: 'delete', oldLine: i, newLine: null, text: `old line ${i}` });
  for (let i = 1; i <= lines; i += 1) first.rows.push({ kind: 'insert', oldLine: null, newLine: i, text: `new line ${i}` });
  const second = {
    oldStart: lines + 10, oldLines: 2, newStart: lines + 10, newLines: 2,
    rows: [
      { kind: 'context', oldLine: lines + 10, newLine: lines + 10, text: '= Section' },
      { kind: 'delete', oldLine: lines + 11, newLine: null, text: 'plain' },
      { kind: 'insert', oldLine: null, newLine: lines + 11, text: '<img src=x onerror="window.__diffRan=1"><b>bold</b>' },
    ],
  };
  return { kind: 'unified-diff', fileLabel: 'main.typ', additions: lines + 1, deletions: lines + 1, hunks: [first, second] };
}

forEachBuild('panel edits: approval banners', get => {
  // The run's model answer is held open, so the run stays active while the
  // approval events arrive. They are sent from the service worker with the
  // run's id, exactly as the worker broadcasts them; the worker's own
  // editor-write path is covered where it lives.
  const endpoint = new ModelEndpoint();
  let release = null;
  let routed = false;
  const harness = () => {
    const h = get();
    if (!routed) {
      h.useModelEndpoint(endpoint);
      routed = true;
    }
    return h;
  };

  it('shows an editor review with the complete diff as text and answers for its run and call', async () => {
    const h = harness();
    endpoint.setScript(() => new Promise(resolve => {
      release = () => resolve([step.content('Held answer'), step.finish('stop')]);
    }));
    await useFixtureModel(h, endpoint);
    const { fixture, panel } = await openPanel(h);
    const projectId = projectOf(fixture.url);
    await send(panel, 'Rewrite everything');
    await endpoint.waitForRequests(1);
    const [meta] = await h.request('SESSION_LIST', { projectId });
    const runId = await poll(async () => {
      const runs = await h.request('AI_RUN_STATUS', { projectId, sessionId: meta.id });
      return runs[0]?.runId;
    }, { message: 'the active run' });
    // Sent by the service worker itself: the panel takes broadcasts only
    // from the worker's script (the sender policy).
    const broadcast = async (type, payload) => (await h.worker()).evaluate(
      message => chrome.runtime.sendMessage(message).catch(() => null), { type, runId, payload });

    const lines = 1200;
    const preview = largePreview(lines);
    const args = { start_line: 1, end_line: lines, new_content: 'x'.repeat(2500) };
    const pretty = JSON.stringify(args, null, 2);
    await broadcast('AI_TOOL_CALLS', { calls: [{ id: 'call-review', name: 'replace_lines', args }] });
    // The worker sends the review before the page has drawn the overlay,
    // and the same review again with the notice the drawing brought.
    const reviewEvent = {
      callId: 'call-review', name: 'replace_lines', identity: 'builtin:replace_lines', effect: 'editor-write',
      destination: 'main.typ in the Typst editor', arguments: pretty.slice(0, 2000), argumentChars: pretty.length,
      argumentsTruncated: true, preview,
    };
    await broadcast('AI_TOOL_APPROVAL_REQUIRED', reviewEvent);
    await panel.waitFor(() => !!document.querySelector('.tool-block[data-call-id="call-review"] .tool-edit-approval'),
      undefined, { message: 'the editor review banner' });
    assert.equal(await panel.evaluate(() => {
      const banner = document.querySelector('.tool-block[data-call-id="call-review"] .tool-edit-approval');
      banner.dataset.testFirst = 'yes';
      return !!banner.querySelector('.tool-edit-preview-notice');
    }), false, 'no notice before the drawing answered');
    await broadcast('AI_TOOL_APPROVAL_REQUIRED', { ...reviewEvent, previewNotice: 'The inline preview could not be drawn.' });
    await panel.waitFor(() => !!document.querySelector('.tool-block[data-call-id="call-review"] .tool-edit-preview-notice'),
      undefined, { message: 'the drawing\'s notice on the review' });
    assert.deepEqual(await panel.evaluate(() => {
      const block = document.querySelector('.tool-block[data-call-id="call-review"]');
      return {
        banners: block.querySelectorAll('.tool-preflight').length,
        same: block.querySelector('.tool-edit-approval').dataset.testFirst,
        afterDestination: block.querySelector('.tool-preflight-missing').nextElementSibling?.className,
      };
    }), { banners: 1, same: 'yes', afterDestination: 'tool-edit-preview-notice' }, 'the banner stays; its notice is added');
    await assertAccessible(panel, 'an editor review with its diff');
    const banner = await panel.evaluate(() => {
      const block = document.querySelector('.tool-block[data-call-id="call-review"]');
      const rows = [...block.querySelectorAll('.edit-diff-row')];
      const cells = row => [...row.children].map(cell => cell.textContent);
      return {
        label: block.querySelector('.tool-block-name')?.textContent,
        status: block.querySelector('.tool-status')?.textContent,
        destination: block.querySelector('.tool-preflight-missing')?.textContent,
        notice: block.querySelector('.tool-edit-preview-notice')?.textContent,
        file: block.querySelector('.edit-diff-file')?.textContent,
        additions: block.querySelector('.edit-diff-additions')?.textContent,
        deletions: block.querySelector('.edit-diff-deletions')?.textContent,
        hunks: [...block.querySelectorAll('.edit-diff-hunk-header')].map(h => h.textContent),
        rows: rows.length,
        inserts: block.querySelectorAll('.edit-diff-row.edit-diff-insert').length,
        deletes: block.querySelectorAll('.edit-diff-row.edit-diff-delete').length,
        first: cells(rows[0]),
        middle: cells(rows[1200]),
        last: cells(rows[rows.length - 1]),
        elementsInCode: block.querySelectorAll('.edit-diff-code *').length,
        summary: block.querySelector('.tool-approval-disclosure summary')?.textContent,
        argumentsShown: block.querySelector('.tool-approval-arguments')?.textContent.length,
        buttons: [...block.querySelectorAll('.tool-approval-btn')].map(b => [b.textContent, b.dataset.approvalAction]),
        ran: window.__diffRan ?? null,
      };
    });
    assert.equal(banner.label, `Replace lines 1–${lines}`);
    assert.equal(banner.status, 'approval…');
    assert.equal(banner.destination, 'Destination: main.typ in the Typst editor');
    assert.equal(banner.notice, 'The inline preview could not be drawn.');
    assert.equal(banner.file, 'main.typ');
    assert.equal(banner.additions, `+${lines + 1}`);
    assert.equal(banner.deletions, `\u2212${lines + 1}`);
    assert.deepEqual(banner.hunks, [`@@ -1,${lines} +1,${lines} @@`, `@@ -${lines + 10},2 +${lines + 10},2 @@`]);
    assert.equal(banner.rows, 2 * lines + 3, 'every row of the diff is shown');
    assert.equal(banner.inserts, lines + 1);
    assert.equal(banner.deletes, lines + 1);
    assert.deepEqual(banner.first, ['1', '', '\u2212', 'old line 1']);
    assert.deepEqual(banner.middle, ['', '1', '+', 'new line 1']);
    assert.deepEqual(banner.last, ['', String(lines + 11), '+', '<img src=x onerror="window.__diffRan=1"><b>bold</b>']);
    assert.equal(banner.elementsInCode, 0, 'diff text is never markup');
    assert.equal(banner.ran, null);
    assert.equal(banner.summary, `Tool arguments (first 2,000 of ${pretty.length.toLocaleString('en-US')} characters)`);
    assert.equal(banner.argumentsShown, 2000);
    assert.deepEqual(banner.buttons, [['Apply changes', 'approve_once'], ['Reject', 'deny']]);

    // By keyboard: the review took the focus that was nowhere (the composer
    // turned off at Send) onto its first choice; Tab and Shift+Tab move
    // between the choices. Apply (Enter) goes to the worker for this run and
    // call. Nothing waits for it there (the event came from the test), so
    // the worker says so, the banner keeps its buttons off, and focus is on
    // the call's header.
    await enableKeyboard(panel);
    const review = '.tool-block[data-call-id="call-review"]';
    await expectFocusOn(panel, `${review} [data-approval-action="approve_once"]`, 'the review asks for an answer');
    await press(panel, 'Tab');
    assert.equal(await isFocused(panel, `${review} [data-approval-action="deny"]`), true, 'Tab to Reject');
    await press(panel, 'Tab', { shift: true });
    assert.equal(await isFocused(panel, `${review} [data-approval-action="approve_once"]`), true, 'Shift+Tab to Apply');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.querySelector('.tool-block[data-call-id="call-review"] .tool-preflight-msg')?.textContent
      === 'This call is no longer waiting for an answer.', undefined, { message: 'the worker to answer the approval' });
    await expectFocusOn(panel, `${review} .tool-block-header`, 'after Apply');
    assert.equal(await panel.evaluate(() => [...document.querySelectorAll('.tool-block[data-call-id="call-review"] .tool-approval-btn')]
      .every(b => b.disabled)), true);

    // An external call offers three choices and no diff.
    const mcpArgs = JSON.stringify({ q: 'grid' }, null, 2);
    await broadcast('AI_TOOL_CALLS', { calls: [{ id: 'call-mcp', name: 'mcp__docs__search', args: { q: 'grid' } }] });
    await broadcast('AI_TOOL_APPROVAL_REQUIRED', {
      callId: 'call-mcp', name: 'mcp__docs__search', identity: 'mcp:docs:search', effect: 'external',
      destination: 'https://mcp.fixture/', arguments: mcpArgs, argumentChars: mcpArgs.length, argumentsTruncated: false,
    });
    await panel.waitFor(() => !!document.querySelector('.tool-block[data-call-id="call-mcp"] .tool-approval'),
      undefined, { message: 'the external approval banner' });
    const external = await panel.evaluate(() => {
      const block = document.querySelector('.tool-block[data-call-id="call-mcp"]');
      return {
        diff: !!block.querySelector('.edit-diff'),
        buttons: [...block.querySelectorAll('.tool-approval-btn')].map(b => b.textContent),
        summary: block.querySelector('.tool-approval-disclosure summary')?.textContent,
      };
    });
    assert.deepEqual(external, {
      diff: false, buttons: ['Approve once', 'Allow for run', 'Deny'], summary: `Tool arguments (${mcpArgs.length} characters)`,
    });
    await assertAccessible(panel, 'an external call\'s approval');

    // By keyboard: Tab reaches its three choices in order; Deny with Enter.
    const mcp = '.tool-block[data-call-id="call-mcp"]';
    await tabTo(panel, `${mcp} [data-approval-action="approve_once"]`);
    await press(panel, 'Tab');
    assert.equal(await isFocused(panel, `${mcp} [data-approval-action="allow_run"]`), true, 'Tab to Allow for run');
    await press(panel, 'Tab');
    assert.equal(await isFocused(panel, `${mcp} [data-approval-action="deny"]`), true, 'Tab to Deny');
    await press(panel, 'Enter');
    await panel.waitFor(selector => document.querySelector(`${selector} .tool-preflight-msg`)?.textContent
      === 'This call is no longer waiting for an answer.', mcp, { message: 'the worker to answer the denial' });
    await expectFocusOn(panel, `${mcp} .tool-block-header`, 'after Deny');

    release();
    await waitForAnswer(panel, 1, 'the held answer to finish');
    await panel.close();
    await fixture.page.close();
  });
});

/** The model: each user request maps to edit calls; after tool results it answers. */
function panelEditScript(plans) {
  return body => {
    const last = body.messages[body.messages.length - 1];
    if (last?.role === 'tool') return [step.content('Done.'), step.finish('stop')];
    const users = body.messages.filter(message => message.role === 'user');
    const request = String(users[users.length - 1]?.content ?? '');
    const plan = Object.entries(plans).find(([key]) => request.includes(key))?.[1];
    if (!plan) return [step.content('Nothing to change.'), step.finish('stop')];
    return [
      ...plan.map((call, index) => step.toolCall({ index, id: call.id, name: call.name, arguments: JSON.stringify(call.args) })),
      step.finish('tool_calls'),
    ];
  };
}

function documentText(page) {
  return page.evaluate(() => window.__typstFixture.text());
}

const RENAME_THESIS = { search: '= Harness Thesis', replace: '= Harness Dissertation' };

/** Sends `request` and waits for the editor review of `callId` in the panel. */
async function askForEdit(panel, request, callId, message) {
  await send(panel, request);
  await panel.waitFor(id => !!document.querySelector(`.tool-block[data-call-id="${id}"] .tool-edit-approval .edit-diff`),
    callId, { timeout: 45_000, message });
}

/** Answers the review of `callId` and waits until `answers` answers are done. */
async function answerReview(panel, callId, action, answers, message) {
  await panel.evaluate(([id, choice]) => document
    .querySelector(`.tool-block[data-call-id="${id}"] .tool-approval-btn[data-approval-action="${choice}"]`).click(), [callId, action]);
  await waitForAnswer(panel, answers, message);
}

/** The first answer, applied: the heading renamed after its review. */
async function applyRename(panel) {
  await askForEdit(panel, 'Rename the thesis', 'edit-apply', 'the editor review in the panel');
  await answerReview(panel, 'edit-apply', 'approve_once', 1, 'the first answer');
  await panel.waitFor(() => document.querySelector('.tool-block[data-call-id="edit-apply"] .tool-status')?.textContent === 'applied · reviewed',
    undefined, { message: 'the reviewed result' });
}

/** The second answer, rejected: nothing changes. */
async function rejectMethodRename(panel) {
  await askForEdit(panel, 'Rename the method', 'edit-reject', 'the second review');
  await answerReview(panel, 'edit-reject', 'deny', 2, 'the second answer');
}

/** Reverts the first answer through its Revert dialog and waits for the result. */
async function revertFirstAnswer(panel) {
  await panel.evaluate(click, '#messages .msg-assistant .edit-revert-button');
  await panel.waitFor(visible, '#revert-dialog-layer', { message: 'the Revert dialog' });
  await panel.evaluate(click, '#revert-dialog-confirm');
  await panel.waitFor(() => document.querySelector('#messages .msg-assistant .edit-revert-control')?.dataset.revertState === 'success',
    undefined, { timeout: 45_000, message: 'the revert to finish' });
}

/**
 * Restores the latest answer's snapshot from its popover; returns the kinds
 * the list showed and the restore dialog as it was before Restore.
 */
async function restoreResponseSnapshot(panel, { audit = false } = {}) {
  await panel.evaluate(click, '#messages .response-snapshot-button');
  await panel.waitFor(() => !!document.querySelector('#snapshot-list .snapshot-item'), undefined, { message: 'the snapshot list' });
  const items = await panel.evaluate(() => [...document.querySelectorAll('#snapshot-list .snapshot-item')]
    .map(item => item.querySelector('.snapshot-kind')?.textContent));
  await panel.evaluate(() => [...document.querySelectorAll('#snapshot-list .snapshot-item')]
    .find(item => item.querySelector('.snapshot-kind')?.textContent === 'Response')
    .querySelector('[data-action="restore"]').click());
  await panel.waitFor(visible, '#snapshot-dialog-layer', { message: 'the restore preview' });
  const dialog = await panel.evaluate(() => ({
    title: document.getElementById('snapshot-dialog-title').textContent,
    diff: !!document.querySelector('#snapshot-dialog-body .edit-diff'),
    safety: document.querySelector('#snapshot-dialog-body .snapshot-dialog-safety')?.textContent,
    confirm: document.getElementById('snapshot-dialog-confirm').textContent,
    disabled: document.getElementById('snapshot-dialog-confirm').disabled,
  }));
  if (audit) await assertAccessible(panel, 'the snapshot restore preview');
  await panel.evaluate(click, '#snapshot-dialog-confirm');
  await panel.waitFor(() => document.getElementById('snapshot-dialog-layer').hidden, undefined,
    { timeout: 45_000, message: 'the restore to finish' });
  return { items, dialog };
}

forEachBuild('panel edits: review, revert and snapshots through the worker', get => {
  const endpoint = new ModelEndpoint();
  const routed = sharedFixture(async h => {
    h.useModelEndpoint(endpoint);
  });

  /**
   * Each test's own start: the edit script, the fixture model, a new fixture
   * project with the panel beside it, and the document's text as loaded.
   */
  async function openEditPanel() {
    const h = get();
    await routed(h);
    endpoint.setScript(panelEditScript({
      'Rename the thesis': [{ id: 'edit-apply', name: 'search_replace', args: RENAME_THESIS }],
      'Rename the method': [{ id: 'edit-reject', name: 'search_replace', args: { search: '== Method', replace: '== Approach' } }],
    }));
    await useFixtureModel(h, endpoint);
    const { fixture, panel } = await openPanel(h);
    await poll(async () => (await h.send('GET_EDITOR_CONTEXT', { tabId: fixture.tabId, projection: 'identity' }))?.payload?.ok === true,
      { timeout: 45_000, message: 'the page bridge answers' });
    return { h, fixture, panel, projectId: projectOf(fixture.url), original: await documentText(fixture.page) };
  }

  async function close({ panel, fixture }) {
    await panel.close();
    await fixture.page.close();
  }

  it('Ask: the panel shows the diff, and Apply changes the document exactly', async () => {
    const edit = await openEditPanel();
    const { fixture, panel, original } = edit;
    await askForEdit(panel, 'Rename the thesis', 'edit-apply', 'the editor review in the panel');
    const rows = await panel.evaluate(() => [...document.querySelectorAll('.tool-block[data-call-id="edit-apply"] .edit-diff-row')]
      .filter(row => !row.classList.contains('edit-diff-context'))
      .map(row => [...row.children].map(cell => cell.textContent)));
    assert.deepEqual(rows, [['1', '', '\u2212', '= Harness Thesis'], ['', '1', '+', '= Harness Dissertation']]);
    assert.equal(await documentText(fixture.page), original, 'nothing changes before Apply');
    await answerReview(panel, 'edit-apply', 'approve_once', 1, 'the first answer');
    assert.equal(await documentText(fixture.page), original.replace('= Harness Thesis', '= Harness Dissertation'));
    await panel.waitFor(() => document.querySelector('.tool-block[data-call-id="edit-apply"] .tool-status')?.textContent === 'applied · reviewed',
      undefined, { message: 'the reviewed result' });
    const [first] = await panel.evaluate(answers);
    assert.equal(first.control.revert, 'Revert');
    assert.equal(first.control.snapshot, true);
    await close(edit);
  });

  it('Ask: Reject leaves the document as it was', async () => {
    const edit = await openEditPanel();
    const { fixture, panel } = edit;
    await applyRename(panel);
    const before = await documentText(fixture.page);
    await askForEdit(panel, 'Rename the method', 'edit-reject', 'the second review');
    await answerReview(panel, 'edit-reject', 'deny', 2, 'the second answer');
    assert.equal(await documentText(fixture.page), before);
    const [first, second] = await panel.evaluate(answers);
    assert.match(second.tools[0].status, /.+/);
    assert.equal(await panel.evaluate(() => document.querySelector('.tool-block[data-call-id="edit-reject"] .tool-status')?.classList.contains('tool-status-err')), true);
    assert.equal(first.control.snapshot, false, 'the newer complete answer took the Snapshot button');
    assert.equal(second.control?.snapshot, true);
    await close(edit);
  });

  it('Revert on the first answer restores the original text and is saved in the chat', async () => {
    const edit = await openEditPanel();
    const { h, fixture, panel, projectId, original } = edit;
    await applyRename(panel);
    await rejectMethodRename(panel);
    await revertFirstAnswer(panel);
    assert.equal(await documentText(fixture.page), original);
    const [meta] = await h.request('SESSION_LIST', { projectId });
    const stored = await poll(async () => {
      const session = await h.request('SESSION_GET', { sessionId: meta.id });
      const answer = session.messages.find(message => message.role === 'assistant');
      return answer?.segments?.find(s => s.type === 'tools')?.results?.['edit-apply']?.editCheckpoint?.status === 'reverted' && session;
    }, { message: 'the reverted receipt in the stored chat' });
    assert.ok(stored);
    await close(edit);
  });

  it('Snapshot: restoring the answer\'s snapshot shows its diff, keeps a rescue copy and notes it in the chat', async () => {
    const edit = await openEditPanel();
    const { h, fixture, panel, projectId, original } = edit;
    await applyRename(panel);
    await rejectMethodRename(panel);
    await revertFirstAnswer(panel);
    const { items, dialog } = await restoreResponseSnapshot(panel, { audit: true });
    assert.ok(items.includes('Response'), JSON.stringify(items));
    assert.equal(dialog.title, 'Restore this snapshot?');
    assert.equal(dialog.diff, true);
    assert.match(dialog.safety, /Before restore/);
    assert.deepEqual([dialog.confirm, dialog.disabled], ['Restore', false]);
    assert.equal(await documentText(fixture.page), original.replace('= Harness Thesis', '= Harness Dissertation'));
    const [meta] = await h.request('SESSION_LIST', { projectId });
    const session = await poll(async () => {
      const stored = await h.request('SESSION_GET', { sessionId: meta.id });
      return stored.messages.at(-1)?.editorStateUpdates?.length === 1 && stored;
    }, { message: 'the editor-state update in the stored chat' });
    assert.equal(session.messages.at(-1).editorStateUpdates[0].kind, 'snapshot-restored');
    const listed = await h.request('DOCUMENT_SNAPSHOT_LIST', { tabId: fixture.tabId, projectId, sessionId: meta.id });
    assert.ok(listed.snapshots.some(snapshot => snapshot.kind === 'rescue'), 'a "Before restore" copy was kept');
    await close(edit);
  });

  it('Snapshot: deleting asks first, removes the copy and reopens the list', async () => {
    const edit = await openEditPanel();
    const { h, fixture, panel, projectId } = edit;
    await applyRename(panel);
    await rejectMethodRename(panel);
    await revertFirstAnswer(panel);
    await restoreResponseSnapshot(panel);
    const [meta] = await h.request('SESSION_LIST', { projectId });
    await panel.evaluate(click, '#messages .response-snapshot-button');
    await panel.waitFor(() => [...document.querySelectorAll('#snapshot-list .snapshot-kind')].some(kind => kind.textContent === 'Recovery'),
      undefined, { message: 'the rescue copy in the list' });
    await panel.evaluate(() => [...document.querySelectorAll('#snapshot-list .snapshot-item')]
      .find(item => item.querySelector('.snapshot-kind')?.textContent === 'Recovery')
      .querySelector('[data-action="delete"]').click());
    await panel.waitFor(visible, '#snapshot-dialog-layer', { message: 'the delete confirmation' });
    const dialog = await panel.evaluate(() => ({
      title: document.getElementById('snapshot-dialog-title').textContent,
      confirm: document.getElementById('snapshot-dialog-confirm').textContent,
      danger: document.getElementById('snapshot-dialog-confirm').classList.contains('btn-danger'),
      menuOpen: !document.getElementById('snapshot-menu').hidden,
    }));
    assert.deepEqual(dialog, { title: 'Delete this snapshot?', confirm: 'Delete', danger: true, menuOpen: false });
    await assertAccessible(panel, 'the snapshot delete confirmation');
    const rescue = (await h.request('DOCUMENT_SNAPSHOT_LIST', { tabId: fixture.tabId, projectId, sessionId: meta.id }))
      .snapshots.filter(snapshot => snapshot.kind === 'rescue');
    await panel.evaluate(click, '#snapshot-dialog-confirm');
    await panel.waitFor(() => document.getElementById('snapshot-dialog-layer').hidden
      && !document.getElementById('snapshot-menu').hidden
      && ![...document.querySelectorAll('#snapshot-list .snapshot-kind')].some(kind => kind.textContent === 'Recovery')
      && !/^Loading/.test(document.getElementById('snapshot-list').textContent),
    undefined, { timeout: 45_000, message: 'the list to reopen without the deleted copy' });
    const after = await h.request('DOCUMENT_SNAPSHOT_LIST', { tabId: fixture.tabId, projectId, sessionId: meta.id });
    assert.equal(after.snapshots.filter(snapshot => snapshot.kind === 'rescue').length, rescue.length - 1);
    await close(edit);
  });
});
