// Settings → Sessions in the real side panel, by keyboard alone (CDP key
// events and text input, never element.click()): "Manage all chats…" opens
// the tab, the filter narrows the cards as the user types (name, project,
// message text), rename, delete with its confirmation (Escape keeps the
// chat), switch (offered only for the open project's other chats),
// deleting the open chat moves the panel to another chat of its
// project, "Delete all" names its count, "Open project" focuses the
// project's tab or opens one at https://typst.app/project/<id>; Export is a
// real download (read back: format typst-side-agent-sessions, version 2,
// chats only) and importing that file through Import and its file input
// reports the counts and leaves every existing chat as it was; a corrupt
// file is refused and changes nothing. axe-core (a11y.mjs: the whole panel,
// both themes) finds no violation on the empty tab, the tab with chats, the
// filtered tab and the confirmation.
//
// What the panel did is read back from the worker (SESSION_LIST_ALL_GROUPED,
// SESSION_GET) and from chrome.tabs, so a test fails when either side is
// wrong. Each test resets the chats and opens its own panel.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';
import { assertAccessible, enableKeyboard, focused, press, retype, tabTo, type } from './a11y.mjs';

// ------------------------------------------------------------ panel helpers
// (serialised into the panel with Function.prototype.toString)

function visible(selector) {
  const element = document.querySelector(selector);
  return !!element && !element.hidden && element.checkVisibility();
}

function cards() {
  return [...document.querySelectorAll('#sessions-projects [data-project-id]')].map(card => ({
    project: card.dataset.projectId,
    chats: [...card.querySelectorAll('[data-session-id] .managed-session-name')].map(n => n.textContent),
  }));
}

function toast() {
  const status = document.getElementById('status');
  if (status.hidden) return null;
  return { text: document.getElementById('status-message').textContent, error: status.classList.contains('is-error') };
}

// ------------------------------------------------------------ suite

forEachBuild('panel sessions manager', get => {
  const chat = (id, projectId, name, updatedAt, texts) => ({
    id, projectId, name, createdAt: updatedAt, updatedAt,
    messages: texts.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content })),
  });

  /** Every chat the worker keeps, by project (names only). */
  async function stored(h) {
    const groups = await h.request('SESSION_LIST_ALL_GROUPED', {});
    return Object.fromEntries(groups.map(g => [g.projectId, g.sessions.map(s => s.name).sort()]));
  }

  async function resetChats(h) {
    for (const group of await h.request('SESSION_LIST_ALL_GROUPED', {})) {
      await h.request('SESSION_DELETE_BY_PROJECT', { projectId: group.projectId });
    }
  }

  /** A fixture project with two chats, another with one, a third with two. */
  async function seed(h, project) {
    await h.request('SESSION_IMPORT', {
      records: [
        chat('c-intro', project, 'Thesis intro', 1_700_000_100_000, ['Explain the bibliography setup', 'Use #bibliography.']),
        chat('c-table', project, 'Table fixes', 1_700_000_200_000, ['Fix the table header', 'Done.']),
        chat('c-other', 'other-proj', 'Other notes', 1_700_000_000_000, ['Hello world']),
        chat('c-old1', 'old-proj', 'Old one', 1_600_000_000_000, ['First']),
        chat('c-old2', 'old-proj', 'Old two', 1_600_000_000_000, ['Second']),
      ],
    });
  }

  async function openPanel({ seeded = true } = {}) {
    const h = get();
    await resetChats(h);
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    const project = new URL(fixture.url).pathname.split('/')[2];
    if (seeded) await seed(h, project);
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await enableKeyboard(panel);
    return { h, fixture, project, panel, windowId };
  }

  async function close({ panel, fixture }) {
    await panel.close();
    await fixture.page.close();
  }

  /** "Manage all chats…" from the chats menu, by keyboard; the filter has the focus after. */
  async function manage(panel) {
    await tabTo(panel, '#session-current');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#session-menu', { message: 'the chats menu' });
    await tabTo(panel, '#session-manage');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '[data-pane="sessions"]', { message: 'the Sessions tab' });
    await panel.waitFor(() => document.activeElement?.id === 'sessions-search', undefined,
      { message: 'focus on the filter' });
  }

  /** Tabs to a row's (or card's) button. */
  async function tabToAction(panel, holder, action) {
    await tabTo(panel, `${holder} [data-action="${action}"]`);
  }

  async function confirmDialog(panel, expected) {
    await panel.waitFor(visible, '#sessions-dialog-layer', { message: 'the confirmation' });
    const question = await panel.evaluate(() => document.getElementById('sessions-dialog-subtitle').textContent);
    assert.equal(question, expected);
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'sessions-dialog-cancel', 'Cancel has the focus');
  }

  it('opens from the chats menu, filters as the user types, renames and deletes with confirmation', async () => {
    const shell = await openPanel();
    const { h, panel, project } = shell;
    await panel.waitFor(() => document.getElementById('session-name').textContent === 'Table fixes', undefined,
      { message: 'the newest chat of the project open' });
    await manage(panel);
    await panel.waitFor(() => document.querySelectorAll('#sessions-projects [data-project-id]').length === 3,
      undefined, { message: 'three project cards' });
    assert.deepEqual(await panel.evaluate(cards), [
      { project, chats: ['Table fixes', 'Thesis intro'] },
      { project: 'other-proj', chats: ['Other notes'] },
      { project: 'old-proj', chats: ['Old one', 'Old two'] },
    ]);
    assert.equal(await panel.evaluate(() => document.getElementById('sessions-summary').textContent),
      '3 projects · 5 chats · 7 messages');
    assert.match(await panel.evaluate(() => document.getElementById('sessions-storage-status').textContent),
      /^Local chat storage in use: \d+(\.\d)? (B|KiB|MiB)$/);
    await assertAccessible(panel, 'the Sessions tab with chats');

    // The filter: message text, project id, chat name; nothing asked of the worker meanwhile.
    await type(panel, 'BIBLIO');
    await panel.waitFor(() => document.querySelectorAll('#sessions-projects [data-session-id]').length === 1,
      undefined, { message: 'the filter by message text' });
    assert.deepEqual(await panel.evaluate(cards), [{ project, chats: ['Thesis intro'] }]);
    await retype(panel, 'old-proj');
    await panel.waitFor(() => document.querySelector('#sessions-projects [data-project-id]')?.dataset.projectId === 'old-proj',
      undefined, { message: 'the filter by project' });
    await retype(panel, 'other notes');
    await panel.waitFor(() => document.querySelector('#sessions-projects .managed-session-name')?.textContent === 'Other notes',
      undefined, { message: 'the filter by name' });
    await retype(panel, 'no such chat anywhere');
    await panel.waitFor(() => document.getElementById('sessions-summary').textContent === 'No chat matches the filter.',
      undefined, { message: 'the empty filter result' });
    await assertAccessible(panel, 'the Sessions tab filtered to nothing');
    await retype(panel, '');
    await panel.waitFor(() => document.querySelectorAll('#sessions-projects [data-project-id]').length === 3,
      undefined, { message: 'the filter cleared' });

    // Rename by keyboard: the field takes the focus, Enter saves a user name.
    await tabToAction(panel, '#sessions-projects [data-session-id="c-intro"]', 'rename');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.activeElement?.classList.contains('managed-session-rename-input'), undefined,
      { message: 'the rename field' });
    await retype(panel, 'Bibliography');
    await press(panel, 'Enter');
    await poll(async () => (await stored(h))[project]?.includes('Bibliography'), { message: 'the rename stored' });
    const renamed = await h.request('SESSION_GET', { sessionId: 'c-intro' });
    assert.equal(renamed.userRenamed, true);
    await panel.waitFor(() => document.activeElement?.matches('#sessions-projects [data-session-id="c-intro"] [data-action="rename"]'),
      undefined, { message: 'focus back on Rename' });

    // Delete another project's chat: Escape keeps it, Delete chat removes it.
    await tabToAction(panel, '#sessions-projects [data-session-id="c-other"]', 'delete');
    await press(panel, 'Enter');
    await confirmDialog(panel, 'Delete the chat “Other notes”? This cannot be undone.');
    await assertAccessible(panel, 'the delete confirmation');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('sessions-dialog-layer').hidden, undefined,
      { message: 'the dialog closed' });
    assert.equal(await panel.evaluate(visible, '[data-pane="sessions"]'), true, 'Settings stays open');
    assert.equal(await panel.evaluate(() => document.activeElement?.matches('#sessions-projects [data-session-id="c-other"] [data-action="delete"]')),
      true, 'focus back on Delete');
    assert.deepEqual((await stored(h))['other-proj'], ['Other notes'], 'nothing deleted');
    await press(panel, 'Enter');
    await confirmDialog(panel, 'Delete the chat “Other notes”? This cannot be undone.');
    await press(panel, 'Tab');
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'sessions-dialog-confirm');
    await press(panel, 'Enter');
    await poll(async () => !(await stored(h))['other-proj'], { message: 'the chat deleted' });
    await panel.waitFor(() => !document.querySelector('#sessions-projects [data-project-id="other-proj"]'), undefined,
      { message: 'its card gone' });

    // Switch: only chats of the open project other than the open one offer it.
    const row = id => `#sessions-projects [data-session-id="${id}"]`;
    assert.equal(await panel.evaluate(s => !!document.querySelector(s), `${row('c-table')} [data-action="switch"]`),
      false, 'the open chat');
    assert.equal(await panel.evaluate(() => !!document.querySelector('#sessions-projects [data-project-id="old-proj"] [data-action="switch"]')),
      false, 'another project');
    await tabToAction(panel, row('c-intro'), 'switch');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.getElementById('session-name').textContent === 'Bibliography', undefined,
      { message: 'the panel on the chosen chat' });
    await panel.waitFor(s => document.querySelector(s)?.classList.contains('is-active'), row('c-intro'),
      { message: 'its row marked open' });
    await panel.waitFor(s => document.activeElement?.matches(s), `${row('c-intro')} [data-action]`,
      { message: 'focus stays on its row' });

    // Delete the open chat: the panel moves to the other chat of the project.
    await tabToAction(panel, row('c-intro'), 'delete');
    await press(panel, 'Enter');
    await confirmDialog(panel, 'Delete the chat “Bibliography”? This cannot be undone.');
    await press(panel, 'Tab');
    await press(panel, 'Enter');
    await panel.waitFor(() => document.getElementById('session-name').textContent === 'Table fixes', undefined,
      { message: 'the panel on the remaining chat' });
    assert.deepEqual((await stored(h))[project], ['Table fixes']);

    // Delete all names its count.
    await tabToAction(panel, '#sessions-projects [data-project-id="old-proj"] .project-card-actions', 'delete-all');
    await press(panel, 'Enter');
    await confirmDialog(panel, 'Delete all 2 chats of project “old-proj”? This cannot be undone.');
    await press(panel, 'Tab');
    await press(panel, 'Enter');
    await poll(async () => !(await stored(h))['old-proj'], { message: 'the project emptied' });
    await panel.waitFor(() => /Deleted 2 chats/.test(document.getElementById('status-message').textContent), undefined,
      { message: 'the toast' });
    await panel.waitFor(() => document.querySelectorAll('#sessions-projects [data-project-id]').length === 1,
      undefined, { message: 'the card gone' });
    assert.deepEqual(await panel.evaluate(cards), [{ project, chats: ['Table fixes'] }]);
    await close(shell);
  });

  it('Open project focuses the project tab, or opens https://typst.app/project/<id>', async () => {
    const shell = await openPanel();
    const { h, panel, fixture, project } = shell;
    await manage(panel);
    await panel.waitFor(() => document.querySelectorAll('#sessions-projects [data-project-id]').length === 3,
      undefined, { message: 'the cards' });
    const other = await h.openNonTypstTab();
    await h.activateTab(other.tabId);
    const activeUrl = () => h.control.evaluate(async () => {
      const tabs = await chrome.tabs.query({ active: true });
      return tabs.map(tab => tab.url);
    });

    await tabToAction(panel, `#sessions-projects [data-project-id="${project}"] .project-card-actions`, 'open-project');
    await press(panel, 'Enter');
    await poll(async () => (await activeUrl()).includes(fixture.url), { message: 'the project tab focused' });
    const count = async url => (await h.control.evaluate(() => chrome.tabs.query({}))).filter(t => t.url === url).length;
    assert.equal(await count(fixture.url), 1, 'no second tab of the project');

    const wanted = 'https://typst.app/project/other-proj';
    h.fixtureUrl({ project: 'other-proj' });
    await tabToAction(panel, '#sessions-projects [data-project-id="other-proj"] .project-card-actions', 'open-project');
    await press(panel, 'Enter');
    await poll(async () => (await activeUrl()).includes(wanted), { message: 'the new project tab active' });
    assert.equal(await count(wanted), 1);
    await press(panel, 'Enter');
    await poll(async () => (await activeUrl()).includes(wanted), { message: 'focused again' });
    assert.equal(await count(wanted), 1, 'the second click focuses the same tab');

    const opened = (await h.control.evaluate(() => chrome.tabs.query({}))).filter(t => t.url === wanted);
    await h.control.evaluate(ids => chrome.tabs.remove(ids), opened.map(t => t.id));
    await other.page.close();
    await close(shell);
  });

  it('exports a real download and imports it back through the file input; a corrupt file changes nothing', async () => {
    const shell = await openPanel();
    const { h, panel, project } = shell;
    const downloads = await mkdtemp(join(tmpdir(), 'tsa-downloads-'));
    try {
      await h.browserSession.send('Browser.setDownloadBehavior',
        { behavior: 'allow', downloadPath: downloads, eventsEnabled: true });
      const begun = [];
      const done = [];
      h.browserSession.on('Browser.downloadWillBegin', event => begun.push(event));
      h.browserSession.on('Browser.downloadProgress', event => {
        if (event.state === 'completed') done.push(event);
      });
      await manage(panel);
      await panel.waitFor(() => document.querySelectorAll('#sessions-projects [data-project-id]').length === 3,
        undefined, { message: 'the cards' });
      const before = await stored(h);

      await tabTo(panel, '#sessions-export');
      await press(panel, 'Enter');
      await poll(() => done.length === 1, { message: 'the download to complete' });
      const name = begun[0].suggestedFilename;
      assert.match(name, /^typst-side-agent-sessions-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.json$/);
      const files = await poll(async () => {
        const list = await readdir(downloads);
        return list.includes(name) && list;
      }, { message: 'the file on disk' });
      assert.deepEqual(files, [name]);
      const text = await readFile(join(downloads, name), 'utf8');
      const file = JSON.parse(text);
      assert.equal(file.format, 'typst-side-agent-sessions');
      assert.equal(file.version, 2);
      assert.equal(file.sessions.length, 5);
      assert.deepEqual(Object.keys(file).sort(), ['exportedAt', 'format', 'retention', 'sessions', 'version']);
      for (const forbidden of ['apiKey', 'settings', 'customTools', 'mcpServers', 'trustedAutoRun', 'checkpoint', 'snapshot']) {
        assert.ok(!text.includes(forbidden), `the export holds no ${forbidden}`);
      }
      await panel.waitFor(() => document.getElementById('status-message').textContent === 'Exported 5 chats',
        undefined, { message: 'the export toast' });

      // Import that file through Import and the file chooser it opens.
      await panel.session.send('Page.enable');
      await panel.session.send('Page.setInterceptFileChooserDialog', { enabled: true });
      const choose = async path => {
        const opened = new Promise(resolveOpened => panel.session.once('Page.fileChooserOpened', resolveOpened));
        await tabTo(panel, '#sessions-import');
        await press(panel, 'Enter');
        const { backendNodeId } = await opened;
        await panel.session.send('DOM.setFileInputFiles', { files: [path], backendNodeId });
      };
      const fullBefore = await h.request('SESSION_GET', { sessionId: 'c-intro' });
      await choose(join(downloads, name));
      const imported = await panel.waitFor(toast, undefined, { message: 'the import toast' }).then(async () =>
        panel.waitFor(() => /^Imported/.test(document.getElementById('status-message').textContent)
          && document.getElementById('status-message').textContent, undefined, { message: 'the import counts' }));
      assert.equal(imported, 'Imported 5 chats; 5 chats given a new id (the id was taken)', 'the copies got fresh ids');
      const after = await stored(h);
      for (const [projectId, names] of Object.entries(before)) {
        assert.deepEqual(after[projectId], [...names, ...names].sort(), `${projectId}: the copies beside the chats`);
      }
      const fullAfter = await h.request('SESSION_GET', { sessionId: 'c-intro' });
      assert.deepEqual(fullAfter, fullBefore, 'an existing chat is unchanged');
      await panel.waitFor(() => document.querySelectorAll('#sessions-projects [data-session-id]').length === 10,
        undefined, { message: 'the manager shows the copies' });
      assert.equal(await panel.evaluate(() => document.getElementById('session-name').textContent), 'Table fixes',
        'the open chat stays');

      // A corrupt file: refused with a clear message, nothing changes.
      const corrupt = join(downloads, 'corrupt.json');
      await writeFile(corrupt, '{"format": "typst-side-agent-sessions", "sessions": [');
      await choose(corrupt);
      const refused = await panel.waitFor(() => {
        const status = document.getElementById('status');
        return status.classList.contains('is-error') && document.getElementById('status-message').textContent;
      }, undefined, { message: 'the refusal' });
      assert.equal(refused, 'Import failed, nothing was changed: The file is not valid JSON.');
      assert.deepEqual(await stored(h), after);
      const wrong = join(downloads, 'wrong.json');
      await writeFile(wrong, JSON.stringify({ version: 2, chats: [] }));
      await choose(wrong);
      await panel.waitFor(() => /not a chat export/.test(document.getElementById('status-message').textContent),
        undefined, { message: 'the wrong-format refusal' });
      assert.deepEqual(await stored(h), after);
      assert.equal(project.length > 0, true);
    } finally {
      await h.browserSession.send('Browser.setDownloadBehavior', { behavior: 'default' }).catch(() => {});
      await rm(downloads, { recursive: true, force: true });
    }
    await close(shell);
  });

  it('the empty Sessions tab passes axe-core and is reached by keyboard', async () => {
    const h = get();
    await resetChats(h);
    const other = await h.openNonTypstTab();
    await h.activateTab(other.tabId);
    const { windowId } = await h.tabInfo(other.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await enableKeyboard(panel);
    if (!(await panel.evaluate(visible, '#settings-panel'))) {
      await tabTo(panel, '#settings-toggle');
      await press(panel, 'Enter');
    }
    await panel.waitFor(visible, '#settings-panel', { message: 'settings open' });
    await tabTo(panel, '.settings-tab[aria-selected="true"]');
    await press(panel, 'End');
    await panel.waitFor(visible, '[data-pane="sessions"]', { message: 'the Sessions tab by End' });
    assert.equal(await panel.evaluate(() => document.activeElement?.id), 'settings-tab-sessions');
    await panel.waitFor(() => document.getElementById('sessions-summary').textContent === 'No chats saved yet.',
      undefined, { message: 'the empty summary' });
    assert.deepEqual(await panel.evaluate(cards), []);
    await assertAccessible(panel, 'the empty Sessions tab');
    await tabTo(panel, '#sessions-search');
    assert.ok(await panel.evaluate(focused));
    await panel.close();
    await other.page.close();
  });
});
