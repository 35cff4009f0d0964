// Self-test of the harness itself, against a tiny throwaway MV3 extension written
// to a temporary folder (not the product build). It checks the machinery the
// product suites rely on: launch, messaging, CDP worker stop + wake, routing of the
// worker's fetch, the pass-through to exactly one loopback server the test
// started, the fixture page (both CodeMirror builds, strict CSP), the real side
// panel, and the ZIP reader (STORED and DEFLATE).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Harness } from './harness.mjs';
import { createZip, extractZip, listEntries } from './zip.mjs';
import { ModelEndpoint, parseSse, step } from '../fixtures/model-endpoint.mjs';
import { start } from '../tool-servers/launch.mjs';

const THROWAWAY = {
  'manifest.json': JSON.stringify({
    manifest_version: 3,
    name: 'TSA harness self-test',
    version: '0.0.1',
    background: { service_worker: 'src/background/sw.js', type: 'module' },
    side_panel: { default_path: 'src/sidepanel/index.html' },
    permissions: ['sidePanel', 'scripting', 'tabs', 'storage'],
    host_permissions: ['https://typst.app/*', 'https://*/*', 'http://127.0.0.1/*'],
  }, null, 2),
  'src/background/sw.js': `
globalThis.instance = Math.random().toString(36).slice(2);
const reply = (message, data) => ({ type: 'PROTOCOL_RESPONSE', requestId: message.requestId, payload: { ok: true, data } });
chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (message?.type === 'PING') { sendResponse(reply(message, { instance: globalThis.instance })); return false; }
  if (message?.type === 'FETCH') {
    fetch(message.payload.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message.payload.body) })
      .then(response => response.text())
      .then(text => sendResponse(reply(message, { text })), error => sendResponse(reply(message, { error: String(error) })));
    return true;
  }
  return false;
});
`,
  'src/sidepanel/index.html': '<!doctype html><html><head><meta charset="utf-8"><title>panel</title>' +
    '<script src="panel.js"></script></head><body><h1 id="app-title">Self-test panel</h1></body></html>',
  'src/sidepanel/panel.js': `
chrome.tabs.query({ active: true, currentWindow: true }).then(([tab]) => {
  document.documentElement.dataset.activeUrl = tab?.url ?? '';
  document.documentElement.dataset.panelReady = 'true';
});
`,
};

async function writeThrowaway(dir) {
  for (const [name, text] of Object.entries(THROWAWAY)) {
    const path = join(dir, ...name.split('/'));
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text);
  }
}

async function listFiles(dir, base = dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await listFiles(path, base));
    else out.push(relative(base, path).split('\\').join('/'));
  }
  return out.sort();
}

describe('harness self-test (throwaway extension)', () => {
  let temporary;
  let extensionDir;
  let h;

  before(async () => {
    temporary = await mkdtemp(join(tmpdir(), 'tsa-selftest-'));
    extensionDir = join(temporary, 'ext');
    await writeThrowaway(extensionDir);
    h = await Harness.launch(extensionDir, { label: 'self-test' });
  });

  after(async () => {
    await h?.close();
    if (temporary) await rm(temporary, { recursive: true, force: true });
  });

  it('finds the worker and the extension id, and messages it from the control page', async () => {
    assert.match(h.extensionId, /^[a-p]{32}$/);
    const data = await h.request('PING');
    assert.equal(typeof data.instance, 'string');
  });

  it('stops the worker through CDP and the next message wakes a new instance', async () => {
    const first = (await h.request('PING')).instance;
    const stop = await h.stopWorker();
    assert.equal(stop.method, 'Target.closeTarget');
    assert.equal((await h.serviceWorkerTargets()).length, 0);
    const second = (await h.request('PING')).instance;
    assert.notEqual(second, first, 'a fresh worker instance answers');
    const worker = await h.worker();
    assert.equal(await worker.evaluate(() => globalThis.instance), second, 'the worker handle reaches the new instance');
  });

  it("routes the worker's fetch to the scripted model endpoint, before and after a restart", async () => {
    const endpoint = new ModelEndpoint({ origin: 'https://model.selftest' });
    endpoint.setScript(() => [step.content('hi there', { chunks: 2 }), step.finish('stop')]);
    const remove = h.useModelEndpoint(endpoint);
    try {
      const one = await h.request('FETCH', { url: endpoint.url, body: { model: 'm', stream: true } });
      assert.equal(parseSse(one.text).at(-1), '[DONE]');
      await h.stopWorker();
      const two = await h.request('FETCH', { url: endpoint.url, body: { model: 'm', stream: true } });
      assert.equal(two.text, one.text.replaceAll('chatcmpl-fixture-1', 'chatcmpl-fixture-2').replace(/"created":1700000000/g, '"created":1700000001'));
      assert.equal(endpoint.requests.length, 2);
    } finally {
      remove();
    }
  });

  it('lets the worker reach exactly the loopback origin passed through, and nothing else', async () => {
    assert.throws(() => h.passThrough('https://example.test/'), /not https:\/\/example\.test/);
    assert.throws(() => h.passThrough('http://192.0.2.7:9000/mcp'), /not http:\/\/192\.0\.2\.7:9000/);
    const server = await start('custom');
    const remove = h.passThrough(server.url);
    try {
      const reached = await h.request('FETCH', { url: `${server.url}/ok`, body: { tool: 't', arguments: {} } });
      assert.equal(JSON.parse(reached.text).ok, true);
      const other = `http://127.0.0.1:${Number(new URL(server.url).port) === 65535 ? 65534 : Number(new URL(server.url).port) + 1}/ok`;
      const refused = await h.request('FETCH', { url: other, body: {} });
      assert.match(refused.error, /TypeError/);
      const aborted = h.unexpectedRequests.findIndex(request => request.url === other);
      assert.ok(aborted >= 0, 'the other port was aborted and recorded');
      h.unexpectedRequests.splice(aborted, 1);
    } finally {
      remove();
      await server.stop();
    }
    const after = await h.request('FETCH', { url: `${server.url}/ok`, body: {} });
    assert.match(after.error, /TypeError/, 'removed: aborted again');
    h.unexpectedRequests.splice(h.unexpectedRequests.findIndex(request => request.url === `${server.url}/ok`), 1);
  });

  for (const cm of ['6.38', 'latest']) {
    for (const csp of [false, true]) {
      it(`serves the fixture page (CodeMirror ${cm}, ${csp ? "strict CSP" : 'no CSP'})`, async () => {
        const { page, tabId } = await h.openFixtureTab({ cm, csp });
        assert.ok(Number.isInteger(tabId));
        const info = await page.evaluate(() => ({
          title: document.title,
          version: window.__typstFixture.viewVersion,
          handles: window.__typstFixture.domHandles(),
          text: window.__typstFixture.text(),
          lines: document.querySelectorAll('.cm-gutterElement').length,
          canvas: (() => { const c = document.querySelector('canvas'); return c.width * c.height; })(),
          pixel: Array.from(document.querySelector('canvas').getContext('2d').getImageData(2, 2, 1, 1).data),
          crumbs: Array.from(document.querySelectorAll('[role="heading"][aria-level="1"] > span')).map(s => s.textContent.trim()),
          improve: document.querySelector('[role="region"] [role="list"] [role="listitem"]')?.textContent.replace(/\s+/g, ' ').trim(),
        }));
        assert.equal(info.title, 'Harness Thesis – main.typ – Typst');
        assert.deepEqual(info.crumbs, ['Fixture Account', 'Harness Thesis', 'main.typ']);
        if (cm === '6.38') {
          assert.match(info.version, /^6\.38\./);
          assert.deepEqual(info.handles, { cmView: true, cmTile: false, viewViaCmView: true, viewViaCmTile: false });
        } else {
          assert.ok(!info.version.startsWith('6.38.'));
          assert.deepEqual(info.handles, { cmView: false, cmTile: true, viewViaCmView: false, viewViaCmTile: true });
        }
        assert.ok(info.text.includes('𝔸'));
        assert.ok(info.lines >= 9, `line numbers rendered (${info.lines})`);
        assert.ok(info.canvas > 20_000);
        assert.deepEqual(info.pixel, [255, 255, 255, 255]);
        assert.match(info.improve, /\(line 3\)/);

        // A real keyboard selection inside CodeMirror.
        await page.click('.cm-line >> nth=2');
        await page.keyboard.press('Home');
        await page.keyboard.press('Shift+End');
        const selection = await page.evaluate(() => window.__typstFixture.selection());
        assert.equal(selection.text, 'We cite @knuth and call #undefined-thing here.');
        await page.close();
        assert.equal(h.describeErrors(), '');
      });
    }
  }

  it('opens the real side panel through a gesture on an extension page and drives it over CDP', async () => {
    const { page, tabId } = await h.openFixtureTab({});
    await h.activateTab(tabId);
    const { windowId } = await h.tabInfo(tabId);
    const panel = await h.openSidePanel({ windowId });
    assert.ok(!h.context.pages().some(p => p.url().startsWith(h.sidePanelUrl)),
      'Playwright does not list the side panel as a page (if this changes, the harness can use it)');
    await panel.waitForReady();
    assert.equal(await panel.evaluate(() => document.getElementById('app-title').textContent), 'Self-test panel');
    assert.equal(await panel.evaluate(() => document.documentElement.dataset.activeUrl), page.url());
    await panel.reload();
    await panel.waitForReady();
    await panel.close();
    await page.close();
    assert.equal(h.describeErrors(), '');
  });

  it('recorded no unexpected network request', () => {
    assert.deepEqual(h.unexpectedRequests, []);
  });
});

describe('ZIP reader (STORED and DEFLATE)', () => {
  it('round-trips an archive of stored and deflated entries and launches the extension from it', async () => {
    const temporary = await mkdtemp(join(tmpdir(), 'tsa-selftest-zip-'));
    let h;
    try {
      // Every other entry deflated, as the release ZIP mixes text (deflated) and icons (stored).
      const files = Object.entries(THROWAWAY).map(([name, data], index) => ({ name, data, deflate: index % 2 === 0 }));
      const zip = createZip(files);
      assert.deepEqual(listEntries(zip).map(entry => entry.method), files.map(file => (file.deflate ? 8 : 0)));
      const out = join(temporary, 'extension');
      const written = await extractZip(zip, out);
      assert.deepEqual(written.slice().sort(), Object.keys(THROWAWAY).sort());
      assert.deepEqual(await listFiles(out), Object.keys(THROWAWAY).sort());
      for (const [name, data] of Object.entries(THROWAWAY)) {
        assert.equal(await readFile(join(out, ...name.split('/')), 'utf8'), data, name);
      }
      h = await Harness.launch(out, { label: 'self-test zip' });
      assert.equal(typeof (await h.request('PING')).instance, 'string');
    } finally {
      await h?.close();
      await rm(temporary, { recursive: true, force: true });
    }
  });

  it('refuses entries that would escape the target folder', async () => {
    const temporary = await mkdtemp(join(tmpdir(), 'tsa-selftest-zip-'));
    try {
      for (const name of ['../evil.txt', 'a/../../evil.txt', '/abs.txt', 'C:/x.txt', 'a\\b.txt', 'a//b.txt']) {
        await assert.rejects(extractZip(createZip([{ name, data: 'x' }]), join(temporary, 'out')),
          /entry name|absolute|escape|backslash/, name);
      }
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  });

  /** Offset of the central header in a one-entry archive. */
  const centralOf = zip => zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));

  it('refuses other methods, corrupted data and deflated entries that inflate to another size', async () => {
    const zip = createZip([{ name: 'a.txt', data: 'hello' }]);
    const bzip2 = Buffer.from(zip);
    // Method field: local header offset 8, central header offset 10.
    bzip2.writeUInt16LE(12, 8);
    bzip2.writeUInt16LE(12, centralOf(zip) + 10);
    assert.throws(() => listEntries(bzip2), /neither STORED nor DEFLATE/);
    const disagreeing = Buffer.from(zip);
    disagreeing.writeUInt16LE(8, centralOf(zip) + 10);
    assert.throws(() => listEntries(disagreeing), /local header disagrees/);

    const text = 'hello, hello, hello, hello';
    const deflated = createZip([{ name: 'a.txt', data: text, deflate: true }]);
    // Declared uncompressed size (local offset 22, central offset 24) one byte short or long.
    const declared = size => {
      const copy = Buffer.from(deflated);
      copy.writeUInt32LE(size, 22);
      copy.writeUInt32LE(size, centralOf(deflated) + 24);
      return copy;
    };
    const corrupt = Buffer.from(zip);
    corrupt[30 + 'a.txt'.length] ^= 0xff;
    const garbage = Buffer.from(deflated);
    garbage.fill(0xff, 30 + 'a.txt'.length, centralOf(deflated));
    const temporary = await mkdtemp(join(tmpdir(), 'tsa-selftest-zip-'));
    try {
      await assert.rejects(extractZip(corrupt, join(temporary, 'corrupt')), /CRC mismatch/);
      await assert.rejects(extractZip(declared(text.length - 1), join(temporary, 'short')), /inflates to|does not inflate/);
      await assert.rejects(extractZip(declared(text.length + 1), join(temporary, 'long')), /inflates to/);
      await assert.rejects(extractZip(garbage, join(temporary, 'garbage')), /does not inflate|inflates to|CRC/);
      assert.deepEqual(await extractZip(deflated, join(temporary, 'good')), ['a.txt']);
      assert.equal(await readFile(join(temporary, 'good', 'a.txt'), 'utf8'), text);
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  });
});
