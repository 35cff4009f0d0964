// The real side panel (opened with chrome.sidePanel.open, not a tab): the Rust UI
// renders, follows the saved theme, and gates on the active tab being typst.app.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBuild } from './suite.mjs';

function panelState() {
  const banner = document.getElementById('tab-gate-banner');
  return {
    ready: document.documentElement.dataset.panelReady ?? null,
    theme: document.documentElement.dataset.theme ?? null,
    title: document.getElementById('app-title')?.textContent ?? null,
    banner: banner ? { hidden: banner.hidden, visible: banner.checkVisibility() } : null,
  };
}

forEachBuild('side panel', get => {
  let panel = null;
  let fixture = null;

  it('renders from Rust on a typst.app tab, with the default theme and no tab-gate banner', async () => {
    const h = get();
    fixture = await h.openFixtureTab({ cm: 'latest' });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    panel = await h.openSidePanel({ windowId });
    assert.ok(panel.url.startsWith(h.sidePanelUrl), panel.url);
    await panel.waitForReady();

    const state = await panel.evaluate(panelState);
    assert.equal(state.ready, 'true');
    assert.match(state.title ?? '', /Typst Side Agent/, '#app-title');
    assert.equal(state.theme, 'dark', 'data-theme is the default (dark)');
    assert.notEqual(state.banner, null, '#tab-gate-banner exists');
    const banner = await panel.waitFor(() => {
      const element = document.getElementById('tab-gate-banner');
      return element?.hidden === true ? { hidden: true, visible: element.checkVisibility() } : null;
    }, undefined, { message: '#tab-gate-banner to be hidden on the typst.app tab' });
    assert.deepEqual(banner, { hidden: true, visible: false });
  });

  it('data-theme follows the saved theme', async () => {
    const h = get();
    assert.ok(panel, 'panel opened by the previous test');
    assert.deepEqual(await h.request('SAVE_THEME', { theme: 'light' }), { ok: true });
    await panel.reload();
    await panel.waitForReady();
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'light');

    assert.deepEqual(await h.request('SAVE_THEME', { theme: 'dark' }), { ok: true });
    await panel.reload();
    await panel.waitForReady();
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'dark');
  });

  it('shows the tab-gate banner when a non-typst tab becomes active, and hides it again on typst.app', async () => {
    const h = get();
    assert.ok(panel, 'panel opened by the first test');
    const other = await h.openNonTypstTab();
    await h.activateTab(other.tabId);
    const shown = await panel.waitFor(() => {
      const element = document.getElementById('tab-gate-banner');
      return element && element.hidden === false ? { hidden: false, visible: element.checkVisibility() } : null;
    }, undefined, { message: '#tab-gate-banner to be shown on the non-typst tab' });
    assert.deepEqual(shown, { hidden: false, visible: true });

    await h.activateTab(fixture.tabId);
    await panel.waitFor(() => document.getElementById('tab-gate-banner')?.hidden === true, undefined,
      { message: '#tab-gate-banner to be hidden again on the typst.app tab' });

    await panel.close();
    panel = null;
    await other.page.close();
    await fixture.page.close();
  });
});
