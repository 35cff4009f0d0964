// Settings → Tools and Settings → MCP in the real side panel, driven by the
// keyboard only (CDP key events and text input, never element.click()):
// adding, editing (Trusted unticks when a covered field changes), toggling
// and deleting a custom tool and an MCP server; invalid JSON shown beside its
// field with line and column and never sent; the save-time name rules as the
// user types; focus after every action; and
// axe-core 4 (a11y.mjs: the whole panel, both themes) with no violations in
// both tabs and in each open form.
//
// What the panel stored is read back from the worker (LOAD_CUSTOM_TOOLS,
// LOAD_MCP_SERVERS through h.request), so a test fails when either side is
// wrong. Each test clears both registries and opens its own panel.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';
import { assertAccessible, enableKeyboard, focused, press, retype, tabTo, type } from './a11y.mjs';

const STORAGE_KEYS = ['typstAgent.customTools', 'typstAgent.mcpServers'];

// ------------------------------------------------------------ panel helpers
// (serialised into the panel with Function.prototype.toString)

function visible(selector) {
  const element = document.querySelector(selector);
  return !!element && !element.hidden && element.checkVisibility();
}

/** A field's problem and its ARIA state once it shows one, else null (for waitFor). */
function fieldProblem(id) {
  const control = document.getElementById(id);
  const error = document.getElementById(`${id}-error`);
  if (!error || error.hidden || !error.textContent) return null;
  return {
    invalid: control.getAttribute('aria-invalid'),
    describedBy: control.getAttribute('aria-describedby'),
    error: error.textContent,
  };
}

function rows(registry) {
  return [...document.querySelectorAll(`#${registry} [data-record-id]`)].map(row => {
    const toggle = row.querySelector('[data-action="toggle"]');
    return {
      id: row.dataset.recordId,
      name: row.querySelector('.reg-name')?.textContent ?? null,
      meta: row.querySelector('.reg-meta')?.textContent ?? null,
      switch: toggle ? { checked: toggle.getAttribute('aria-checked'), label: toggle.getAttribute('aria-label') } : null,
    };
  });
}

function toastText() {
  const status = document.getElementById('status');
  return !status.hidden && status.classList.contains('is-error')
    ? document.getElementById('status-message').textContent
    : null;
}

// ------------------------------------------------------------ suite

forEachBuild('panel tools and MCP', get => {
  async function stored(h, kind) {
    return h.request(kind === 'tools' ? 'LOAD_CUSTOM_TOOLS' : 'LOAD_MCP_SERVERS', {});
  }

  /** Each test's start: empty registries, a fixture project and the real panel beside it. */
  async function openPanel() {
    const h = get();
    await h.control.evaluate(keys => chrome.storage.local.remove(keys), STORAGE_KEYS);
    const fixture = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    await enableKeyboard(panel);
    return { h, fixture, panel };
  }

  async function close({ panel, fixture }) {
    await panel.close();
    await fixture.page.close();
  }

  /**
   * Opens Settings from the header and the tab `name`, by keyboard. With
   * `reopen`, an open Settings is closed first (Escape), so opening it loads
   * the registries again.
   */
  async function openTab(panel, name, { reopen = false } = {}) {
    if (reopen && (await panel.evaluate(visible, '#settings-panel'))) {
      await press(panel, 'Escape');
      await panel.waitFor(() => document.getElementById('settings-panel').hidden, undefined,
        { message: 'settings to close' });
    }
    if (!(await panel.evaluate(visible, '#settings-panel'))) {
      await tabTo(panel, '#settings-toggle');
      await press(panel, 'Enter');
      await panel.waitFor(visible, '#settings-panel', { message: 'settings to open' });
    }
    await tabTo(panel, `.settings-tab[data-tab="${name}"]`);
    await press(panel, 'Enter');
    await panel.waitFor(visible, `[data-pane="${name}"]`, { message: `the ${name} pane` });
  }

  async function expectFocus(panel, expected, message) {
    const found = await panel.waitFor(wanted => {
      const element = document.activeElement;
      if (!element) return null;
      const row = element.closest('[data-record-id]');
      const now = { id: element.id || null, action: element.dataset.action ?? null, row: row?.dataset.recordId ?? null };
      return Object.entries(wanted).every(([k, v]) => now[k] === v) ? now : null;
    }, expected, { message: `${message}: focus on ${JSON.stringify(expected)}`, timeout: 10_000 }).catch(async error => {
      throw new Error(`${error.message}; focus is on ${JSON.stringify(await panel.evaluate(focused))}`);
    });
    return found;
  }

  it('adds, edits, toggles and deletes a custom tool by keyboard; invalid JSON is shown and not sent', async () => {
    const shell = await openPanel();
    const { h, panel } = shell;
    await openTab(panel, 'tools');
    await panel.waitFor(visible, '#tool-registry-empty', { message: 'the empty note' });
    assert.match(await panel.evaluate(() => document.querySelector('[data-pane="tools"] .settings-help').textContent),
      /\{"tool": <name>, "arguments"/);
    await assertAccessible(panel, 'the Tools tab');

    // Add: the form opens on its first field.
    await tabTo(panel, '#add-tool-btn');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#tool-form', { message: 'the tool form' });
    await expectFocus(panel, { id: 'tf-name' }, 'the form opens');
    assert.equal(await panel.evaluate(() => document.getElementById('tool-form-title').textContent), 'Add custom tool');
    assert.equal(await panel.evaluate(() => document.getElementById('tf-enabled').checked), true);
    await assertAccessible(panel, 'the empty tool form');

    // The save-time rules run as the user types: a built-in's name is refused beside the field.
    await type(panel, 'read_document');
    const reserved = await panel.waitFor(fieldProblem, 'tf-name', { message: 'the reserved-name problem' });
    assert.match(reserved.error ?? '', /built-in tool/);
    await retype(panel, 'search_papers');
    await panel.waitFor(id => document.getElementById(id).getAttribute('aria-invalid') === null, 'tf-name',
      { message: 'the name problem cleared' });
    await press(panel, 'Tab');
    await type(panel, 'Searches the fixture library.');
    await press(panel, 'Tab');
    await type(panel, 'https://tools.fixture/run');
    await tabTo(panel, '#tf-headers');
    await type(panel, '{\n  "X-Key": "a"\n  "X-Other": "b"\n}');
    const headers = await panel.waitFor(fieldProblem, 'tf-headers', { message: 'the headers problem' });
    assert.equal(headers.invalid, 'true');
    assert.equal(headers.describedBy, 'tf-headers-error');
    assert.match(headers.error, /line 3, column 3/);
    await assertAccessible(panel, 'the tool form with a problem');

    // Save with invalid JSON: refused in the panel, nothing stored.
    await tabTo(panel, '#tool-save');
    await press(panel, 'Enter');
    const refused = await panel.waitFor(toastText, undefined, { message: 'the refusal in the status line' });
    assert.match(refused, /not saved: Not valid JSON/);
    assert.deepEqual(await stored(h, 'tools'), []);
    assert.equal(await panel.evaluate(visible, '#tool-form'), true, 'the form stays open');
    assert.equal(await panel.evaluate(() => document.getElementById('tf-name').value), 'search_papers', 'nothing typed is lost');

    await tabTo(panel, '#tf-headers', { shift: true });
    await retype(panel, '{"X-Key": "secret"}');
    await panel.waitFor(id => document.getElementById(id).getAttribute('aria-invalid') === null, 'tf-headers',
      { message: 'the headers problem cleared' });
    await tabTo(panel, '#tool-save');
    await press(panel, 'Enter');
    const [tool] = await poll(async () => {
      const list = await stored(h, 'tools');
      return list.length === 1 && list;
    }, { message: 'the tool stored' });
    assert.equal(tool.name, 'search_papers');
    assert.equal(tool.description, 'Searches the fixture library.');
    assert.equal(tool.endpoint, 'https://tools.fixture/run');
    assert.deepEqual(tool.headers, { 'X-Key': 'secret' });
    assert.deepEqual(tool.parameters, { type: 'object', properties: {}, required: [] });
    assert.equal(tool.enabled, true);
    assert.equal(tool.trustedAutoRun, false);
    await panel.waitFor(() => document.getElementById('tool-form').hidden, undefined, { message: 'the form closes' });
    await expectFocus(panel, { action: 'edit', row: tool.id }, 'after saving');
    assert.deepEqual(await panel.evaluate(rows, 'tool-registry'), [{
      id: tool.id, name: 'search_papers', meta: 'tools.fixture · Searches the fixture library.',
      switch: { checked: 'true', label: 'search_papers enabled' },
    }]);
    await assertAccessible(panel, 'the Tools tab with a tool');

    // Edit: tick Trusted and save; the fingerprint is the panel's.
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#tool-form', { message: 'the edit form' });
    await expectFocus(panel, { id: 'tf-name' }, 'the edit form opens');
    assert.equal(await panel.evaluate(() => document.getElementById('tool-form-title').textContent), 'Edit custom tool');
    await assertAccessible(panel, 'the filled tool form');
    await tabTo(panel, '#tf-trusted');
    await press(panel, ' ');
    assert.equal(await panel.evaluate(() => document.getElementById('tf-trusted').checked), true);
    await tabTo(panel, '#tool-save');
    await press(panel, 'Enter');
    const trusted = await poll(async () => (await stored(h, 'tools')).find(t => t.trustedAutoRun),
      { message: 'trust stored' });
    assert.match(trusted.trustedAutoRunFingerprint, /^custom-v1:\d+:[0-9a-z]{7}$/);

    // Edit again: changing a covered field unticks Trusted.
    await expectFocus(panel, { action: 'edit', row: tool.id }, 'after saving the edit');
    await press(panel, 'Enter');
    await expectFocus(panel, { id: 'tf-name' }, 'the edit form opens again');
    assert.equal(await panel.evaluate(() => document.getElementById('tf-trusted').checked), true);
    await press(panel, 'End');
    await type(panel, '_v2');
    assert.equal(await panel.evaluate(() => document.getElementById('tf-trusted').checked), false,
      'editing the name unticks Trusted');
    await tabTo(panel, '#tool-save');
    await press(panel, 'Enter');
    const renamed = await poll(async () => (await stored(h, 'tools')).find(t => t.name === 'search_papers_v2'),
      { message: 'the rename stored' });
    assert.equal(renamed.id, tool.id);
    assert.equal(renamed.trustedAutoRun, false);
    assert.equal(renamed.trustedAutoRunFingerprint, null);

    // Cancel and Escape give focus back to the Edit button that opened the form.
    await expectFocus(panel, { action: 'edit', row: tool.id }, 'after the rename');
    await press(panel, 'Enter');
    await expectFocus(panel, { id: 'tf-name' }, 'the form opens for Escape');
    await press(panel, 'Escape');
    await panel.waitFor(() => document.getElementById('tool-form').hidden, undefined, { message: 'Escape closes the form' });
    assert.equal(await panel.evaluate(visible, '#settings-panel'), true, 'Escape in the form keeps Settings open');
    await expectFocus(panel, { action: 'edit', row: tool.id }, 'after Escape');

    // Toggle: the switch keeps focus and says off.
    await tabTo(panel, '#tool-registry [data-action="toggle"]');
    await press(panel, ' ');
    await poll(async () => (await stored(h, 'tools'))[0]?.enabled === false, { message: 'the tool switched off' });
    await expectFocus(panel, { action: 'toggle', row: tool.id }, 'after toggling');
    assert.equal((await panel.evaluate(rows, 'tool-registry'))[0].switch.checked, 'false');

    // Delete: focus goes to the Add button when no row is left.
    await tabTo(panel, '#tool-registry [data-action="delete"]');
    await press(panel, 'Enter');
    await poll(async () => (await stored(h, 'tools')).length === 0, { message: 'the tool deleted' });
    await expectFocus(panel, { id: 'add-tool-btn' }, 'after deleting the last tool');
    assert.equal(await panel.evaluate(visible, '#tool-registry-empty'), true);
    await close(shell);
  });

  it('adds, edits, toggles and deletes an MCP server by keyboard; invalid forms are neither saved nor probed', async () => {
    const shell = await openPanel();
    const { h, panel } = shell;
    await openTab(panel, 'mcp');
    assert.match(await panel.evaluate(() => document.querySelector('[data-pane="mcp"] .settings-help').textContent),
      /mcp__<server>_<hash>__<tool>_<hash>/);
    await assertAccessible(panel, 'the MCP tab');

    await tabTo(panel, '#add-mcp-btn');
    await press(panel, 'Enter');
    await panel.waitFor(visible, '#mcp-form', { message: 'the MCP form' });
    await expectFocus(panel, { id: 'mcp-name' }, 'the MCP form opens');
    assert.deepEqual(await panel.evaluate(() => [...document.querySelectorAll('#mcp-protocol option')].map(o => o.value)),
      ['auto', '2026-07-28', '2025-11-25']);
    const region = await panel.evaluate(() => {
      const result = document.getElementById('mcp-probe-result');
      return { live: result.getAttribute('aria-live'), role: result.getAttribute('role'), hidden: result.hidden };
    });
    assert.deepEqual(region, { live: 'polite', role: 'status', hidden: true });
    await assertAccessible(panel, 'the empty MCP form');

    // A cleartext non-loopback URL needs the acknowledgement: shown beside the URL, not probed.
    await type(panel, 'lab');
    await press(panel, 'Tab');
    await type(panel, 'http://192.0.2.7:9000/mcp');
    const url = await panel.waitFor(fieldProblem, 'mcp-url', { message: 'the URL problem' });
    assert.match(url.error, /http:\/\/192\.0\.2\.7:9000/);
    await tabTo(panel, '#mcp-probe');
    await press(panel, 'Enter');
    const probe = await panel.waitFor(() => {
      const result = document.getElementById('mcp-probe-result');
      return !result.hidden && result.classList.contains('err') && result.textContent;
    }, undefined, { message: 'the probe refused in the panel' });
    assert.match(probe, /^Not probed: /);
    await assertAccessible(panel, 'the MCP form with a problem and a probe result');

    // Invalid headers JSON: line and column beside the field; Save sends nothing.
    await tabTo(panel, '#mcp-url', { shift: true });
    await retype(panel, 'http://localhost:7000/mcp');
    await tabTo(panel, '#mcp-headers');
    await type(panel, '{"Authorization": }');
    const headers = await panel.waitFor(fieldProblem, 'mcp-headers', { message: 'the headers problem' });
    assert.match(headers.error, /line 1, column 19/);
    await tabTo(panel, '#mcp-save');
    await press(panel, 'Enter');
    await panel.waitFor(toastText, undefined, { message: 'the refusal in the status line' });
    assert.deepEqual(await stored(h, 'mcp'), []);
    await tabTo(panel, '#mcp-headers', { shift: true });
    await retype(panel, '{"Authorization": "Bearer fixture"}');

    // The protocol select, by keyboard: the first arrow press picks 2026-07-28.
    await tabTo(panel, '#mcp-protocol');
    await press(panel, 'ArrowDown');
    await panel.waitFor(() => document.getElementById('mcp-protocol').value === '2026-07-28', undefined,
      { message: 'the protocol chosen' });
    await tabTo(panel, '#mcp-trusted');
    await press(panel, ' ');
    await tabTo(panel, '#mcp-save');
    await press(panel, 'Enter');
    const [server] = await poll(async () => {
      const list = await stored(h, 'mcp');
      return list.length === 1 && list;
    }, { message: 'the server stored' });
    assert.equal(server.name, 'lab');
    assert.equal(server.url, 'http://localhost:7000/mcp');
    assert.deepEqual(server.headers, { Authorization: 'Bearer fixture' });
    assert.equal(server.protocolMode, '2026-07-28');
    assert.equal(server.trustedAutoRun, true);
    assert.match(server.trustedAutoRunFingerprint, /^mcp-v1:\d+:[0-9a-z]{7}$/);
    await expectFocus(panel, { action: 'edit', row: server.id }, 'after saving the server');
    assert.deepEqual(await panel.evaluate(rows, 'mcp-registry'), [{
      id: server.id, name: 'lab', meta: 'localhost:7000', switch: { checked: 'true', label: 'lab enabled' },
    }]);
    await assertAccessible(panel, 'the MCP tab with a server');

    // Edit: the protocol is a covered field, so changing it unticks Trusted.
    await press(panel, 'Enter');
    await expectFocus(panel, { id: 'mcp-name' }, 'the server edit form');
    assert.equal(await panel.evaluate(() => document.getElementById('mcp-trusted').checked), true);
    await assertAccessible(panel, 'the filled MCP form');
    await tabTo(panel, '#mcp-protocol');
    await press(panel, 'ArrowDown');
    await panel.waitFor(() => document.getElementById('mcp-protocol').value === '2025-11-25', undefined,
      { message: 'the handshake mode chosen' });
    assert.equal(await panel.evaluate(() => document.getElementById('mcp-trusted').checked), false);
    await tabTo(panel, '#mcp-save');
    await press(panel, 'Enter');
    const edited = await poll(async () => (await stored(h, 'mcp')).find(s => s.protocolMode === '2025-11-25'),
      { message: 'the edit stored' });
    assert.equal(edited.trustedAutoRun, false);

    // Toggle off and delete.
    await tabTo(panel, '#mcp-registry [data-action="toggle"]');
    await press(panel, 'Enter');
    await poll(async () => (await stored(h, 'mcp'))[0]?.enabled === false, { message: 'the server switched off' });
    await expectFocus(panel, { action: 'toggle', row: server.id }, 'after toggling the server');
    await tabTo(panel, '#mcp-registry [data-action="delete"]');
    await press(panel, 'Enter');
    await poll(async () => (await stored(h, 'mcp')).length === 0, { message: 'the server deleted' });
    await expectFocus(panel, { id: 'add-mcp-btn' }, 'after deleting the server');
    await close(shell);
  });

  it('deleting a row hands focus to its neighbour', async () => {
    const shell = await openPanel();
    const { h, panel } = shell;
    const tool = (id, name) => ({
      id, name, description: '', endpoint: 'https://tools.fixture/run', headers: {},
      parameters: { type: 'object', properties: {} }, enabled: true,
    });
    const three = [tool('t-a', 'alpha_tool'), tool('t-b', 'beta_tool'), tool('t-c', 'gamma_tool')];
    await h.request('SAVE_CUSTOM_TOOLS', { tools: three, mutation: { type: 'replace', records: three } });
    await openTab(panel, 'tools', { reopen: true });
    await panel.waitFor(() => document.querySelectorAll('#tool-registry [data-record-id]').length === 3, undefined,
      { message: 'three rows' });
    await tabTo(panel, '#tool-registry [data-record-id="t-b"] [data-action="delete"]');
    await press(panel, 'Enter');
    await poll(async () => (await stored(h, 'tools')).map(t => t.id).join() === 't-a,t-c', { message: 'beta deleted' });
    await expectFocus(panel, { action: 'edit', row: 't-c' }, 'the next row takes focus');
    await tabTo(panel, '#tool-registry [data-record-id="t-c"] [data-action="delete"]');
    await press(panel, 'Enter');
    await expectFocus(panel, { action: 'edit', row: 't-a' }, 'the row before takes focus after the last one');
    await close(shell);
  });
});
