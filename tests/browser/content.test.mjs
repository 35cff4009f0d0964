// Content scripts on the typst.app stand-in: the isolated/main-world nonce
// handshake and the PAGE_GET_PROBE answer, with and without a strict page CSP,
// with CodeMirror 6.38 (`.cm-content.cmView`) and the latest 6.x (`.cm-content.cmTile`),
// and on a tab that was already open when the worker restarted.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';

const PROBE_FIELDS = ['editor', 'improvePanel', 'previewImage', 'selection', 'typstCanvas'];

/** Sends PAGE_GET_PROBE from the worker; returns the response envelope. */
function probe(h, tabId, requestId = 'probe-1') {
  return h.sendToTab(tabId, { type: 'PAGE_GET_PROBE', requestId, payload: {} });
}

function checkProbeEnvelope(response, requestId) {
  assert.equal(response?.type, 'PROTOCOL_RESPONSE', `not a response: ${JSON.stringify(response)}`);
  assert.equal(response.requestId, requestId);
  assert.equal(typeof response.nonce, 'string');
  assert.ok(response.nonce.length > 0, 'nonce is empty');
  assert.equal(response.payload?.ok, true, `ok:false: ${JSON.stringify(response.payload)}`);
  const data = response.payload.data;
  assert.deepEqual(Object.keys(data).sort(), PROBE_FIELDS);
  for (const field of PROBE_FIELDS) assert.equal(typeof data[field], 'boolean', `${field} is boolean`);
  return data;
}

/**
 * Probes until `accept(data)` holds. The content scripts answer only after their
 * handshake, and a just-loaded page may not have its receiver yet, so failures
 * and non-matching answers are retried (polling, no fixed waits).
 */
async function probeUntil(h, tabId, accept, what, requestId = 'probe-1') {
  let last;
  await poll(async () => {
    last = await probe(h, tabId, requestId);
    return last?.payload?.ok === true && accept(last.payload.data);
  }, { timeout: 45_000, interval: 200, message: `PAGE_GET_PROBE ${what}` });
  return checkProbeEnvelope(last, requestId);
}

forEachBuild('content scripts', get => {
  for (const cm of ['6.38', 'latest']) {
    for (const csp of [false, true]) {
      const variant = `CodeMirror ${cm === '6.38' ? '6.38 (cmView)' : 'latest (cmTile)'}, ${csp ? "CSP script-src 'self'" : 'no CSP'}`;
      it(`handshake and probe on the fixture page: ${variant}`, async t => {
        const h = get();
        const { page, tabId } = await h.openFixtureTab({ cm, csp });
        const handles = await page.evaluate(() => window.__typstFixture.domHandles());
        assert.equal(cm === '6.38' ? handles.cmView : handles.cmTile, true, `fixture exposes the expected handle: ${JSON.stringify(handles)}`);

        const initial = await probeUntil(h, tabId, data => data.editor === true, 'with editor:true');
        t.diagnostic(`probe: ${JSON.stringify(initial)}`);
        assert.equal(initial.editor, true);
        assert.equal(initial.typstCanvas, true);
        assert.equal(initial.selection, false, 'nothing is selected after load');

        // A real selection with the keyboard: line 3 from Home to End.
        await page.click('.cm-line >> nth=2');
        await page.keyboard.press('Home');
        await page.keyboard.press('Shift+End');
        assert.ok((await page.evaluate(() => window.__typstFixture.selection())).text.length > 0);
        const selected = await probeUntil(h, tabId, data => data.selection === true, 'with selection:true', 'probe-2');
        assert.equal(selected.editor, true);

        // Collapse it through the page's own CodeMirror, then select the astral line.
        await page.evaluate(() => window.__typstFixture.clearSelection());
        await probeUntil(h, tabId, data => data.selection === false, 'with selection:false', 'probe-3');
        const astral = await page.evaluate(() => window.__typstFixture.selectLine(5));
        assert.ok(astral.text.includes('𝔸'));
        await probeUntil(h, tabId, data => data.selection === true, 'with selection:true (dispatch)', 'probe-4');

        await page.close();
      });
    }
  }

  it('a typst.app tab that was open when the worker restarted still answers the probe', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest' });
    await probeUntil(h, tabId, data => data.editor === true, 'before the restart');
    // Marks this document so a reload would be noticed.
    await page.evaluate(() => { window.__harnessMarker = 'not reloaded'; });

    await h.stopWorker();
    assert.equal((await h.serviceWorkerTargets()).length, 0);
    await h.request('LOAD_THEME');

    const data = await probeUntil(h, tabId, value => value.editor === true, 'after the restart', 'probe-after-restart');
    assert.equal(data.typstCanvas, true);
    assert.equal(await page.evaluate(() => window.__harnessMarker), 'not reloaded', 'the same document answered');
    await page.close();
  });
});
