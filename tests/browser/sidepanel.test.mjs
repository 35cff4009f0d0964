// The real side panel (opened with chrome.sidePanel.open, not a tab): the Rust UI
// renders, follows the saved theme, and gates on the active tab being typst.app
// (the banner off typst.app, the notice on typst.app without a project), with
// no axe-core violations in either state; its page preloads the wasm.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBuild } from './suite.mjs';
import { assertAccessible } from './a11y.mjs';

function panelState() {
  const banner = document.getElementById('tab-gate-banner');
  return {
    ready: document.documentElement.dataset.panelReady ?? null,
    theme: document.documentElement.dataset.theme ?? null,
    title: document.getElementById('app-title')?.textContent ?? null,
    banner: banner ? { hidden: banner.hidden, visible: banner.checkVisibility() } : null,
  };
}

/** Opens a fixture tab, makes it active and opens the real panel beside it. */
async function openBesideFixture(h) {
  const fixture = await h.openFixtureTab({ cm: 'latest' });
  await h.activateTab(fixture.tabId);
  const { windowId } = await h.tabInfo(fixture.tabId);
  const panel = await h.openSidePanel({ windowId });
  assert.ok(panel.url.startsWith(h.sidePanelUrl), panel.url);
  await panel.waitForReady();
  return { fixture, panel };
}

forEachBuild('side panel', get => {
  it('renders from Rust on a typst.app tab, with the default theme and no tab-gate banner', async () => {
    const h = get();
    // No saved theme: the default applies.
    await h.control.evaluate(() => chrome.storage.local.remove('typstAgent.theme'));
    const { fixture, panel } = await openBesideFixture(h);

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
    await panel.close();
    await fixture.page.close();
  });

  it('asks for its wasm glue and module once each, from the page itself, not after its script ran', async () => {
    const h = get();
    const { fixture, panel } = await openBesideFixture(h);
    const requested = [];
    const onRequest = event => requested.push({ url: event.request.url, initiator: event.initiator?.type });
    panel.session.on('Network.requestWillBeSent', onRequest);
    try {
      await panel.session.send('Network.enable');
      await panel.reload();
      await panel.waitForReady();
    } finally {
      panel.session.off('Network.requestWillBeSent', onRequest);
      await panel.session.send('Network.disable');
    }
    for (const file of ['src/wasm/sidepanel.js', 'src/wasm/sidepanel_bg.wasm']) {
      const asked = requested.filter(request => request.url === `${h.extensionOrigin}/${file}`);
      assert.deepEqual(asked.map(request => request.initiator), ['parser'], `${file}: ${JSON.stringify(requested)}`);
    }
    await panel.close();
    await fixture.page.close();
  });

  it('data-theme follows the saved theme', async () => {
    const h = get();
    const { fixture, panel } = await openBesideFixture(h);
    assert.deepEqual(await h.request('SAVE_THEME', { theme: 'light' }), { ok: true });
    await panel.reload();
    await panel.waitForReady();
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'light');

    assert.deepEqual(await h.request('SAVE_THEME', { theme: 'dark' }), { ok: true });
    await panel.reload();
    await panel.waitForReady();
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await panel.close();
    await fixture.page.close();
  });

  it('shows the tab-gate banner when a non-typst tab becomes active, and hides it again on typst.app', async () => {
    const h = get();
    const { fixture, panel } = await openBesideFixture(h);
    await panel.waitFor(() => document.getElementById('tab-gate-banner')?.hidden === true, undefined,
      { message: '#tab-gate-banner to be hidden on the typst.app tab first' });
    const other = await h.openNonTypstTab();
    await h.activateTab(other.tabId);
    const shown = await panel.waitFor(() => {
      const element = document.getElementById('tab-gate-banner');
      return element && element.hidden === false ? { hidden: false, visible: element.checkVisibility() } : null;
    }, undefined, { message: '#tab-gate-banner to be shown on the non-typst tab' });
    assert.deepEqual(shown, { hidden: false, visible: true });
    await assertAccessible(panel, 'the tab gate banner off typst.app');

    await h.activateTab(fixture.tabId);
    await panel.waitFor(() => document.getElementById('tab-gate-banner')?.hidden === true, undefined,
      { message: '#tab-gate-banner to be hidden again on the typst.app tab' });

    await panel.close();
    await other.page.close();
    await fixture.page.close();
  });
  it('asks for a project on typst.app outside a project, with no axe-core violations', async () => {
    const h = get();
    const dashboard = 'https://typst.app/dashboard';
    const unroute = h.addRoute(url => url === dashboard, route => route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard – Typst</title>' +
        '<link rel="icon" href="data:,"></head><body><p>Your projects.</p></body></html>',
    }));
    try {
      const { fixture, panel } = await openBesideFixture(h);
      const other = await h.openNonTypstTab(dashboard);
      await h.activateTab(other.tabId);
      const notice = await panel.waitFor(() => {
        const message = document.getElementById('status-message')?.textContent ?? '';
        return /project/i.test(message) && !document.getElementById('status').hidden ? {
          message,
          banner: document.getElementById('tab-gate-banner').hidden,
        } : null;
      }, undefined, { message: 'the notice asking for a project' });
      assert.deepEqual(notice, { message: 'Open a typst.app project to start.', banner: true });
      await assertAccessible(panel, 'the tab gate on typst.app without a project');
      await panel.close();
      await other.page.close();
      await fixture.page.close();
    } finally {
      unroute();
    }
  });
});
