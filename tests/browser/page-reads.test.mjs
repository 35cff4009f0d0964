// Page reads through the worker's panel routes on the typst.app stand-in:
// GET_EDITOR_CONTEXT (identity, full, numbered), GET_DIAGNOSTICS and
// GET_PREVIEW, sent from the control page (an extension page) like the side
// panel sends them. Covers CodeMirror 6.38 (`cmView`) and the latest 6.x
// (`cmTile`), with and without a strict page CSP, UTF-16 offsets on the
// astral line, the breadcrumb identity and the Files tree, the Improve panel
// merged with lint underlines, and the canvas captured as WebP.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';

const FIXTURE_FILE = {
  projectLabel: 'Harness Thesis',
  relativePath: 'main.typ',
  basename: 'main.typ',
  source: 'header_breadcrumb',
  confidence: 'high'
};

const FIXTURE_TREE = {
  source: 'files_panel_dom',
  entries: [
    { path: 'chapters', kind: 'folder', state: 'expanded' },
    { path: 'chapters/intro.typ', kind: 'file' },
    { path: 'chapters/methods.typ', kind: 'file' },
    { path: 'drafts', kind: 'folder', state: 'collapsed' },
    { path: 'main.typ', kind: 'file' },
    { path: 'refs.bib', kind: 'file' },
    { path: 'logo.png', kind: 'file' }
  ],
  truncated: false
};

const COMMON_FIELDS = [
  'cursorColumn', 'cursorLine', 'cursorPos', 'docLength', 'editorToken', 'lineCount',
  'selectedText', 'selectionFrom', 'selectionTo', 'selectionTruncated', 'workspace'
];

/** Sends a worker request; returns the response envelope's payload. */
async function ask(h, type, payload) {
  const response = await h.send(type, payload);
  assert.equal(response?.type, 'PROTOCOL_RESPONSE', `not a response: ${JSON.stringify(response)}`);
  return response.payload;
}

/** Waits until the page answers a full context read with an editor. */
async function waitForEditor(h, tabId) {
  let last;
  await poll(async () => {
    last = await ask(h, 'GET_EDITOR_CONTEXT', { tabId });
    return last.ok === true && typeof last.data.fullText === 'string';
  }, { timeout: 45_000, interval: 200, message: `an editor context from tab ${tabId}` });
  return last.data;
}

/** The document's lines and offsets as JavaScript (UTF-16) sees them. */
function documentFacts(text) {
  const lines = text.split('\n');
  const starts = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const width = String(lines.length).length;
  const numbered = (from, to) => lines.slice(from - 1, to)
    .map((line, index) => `${String(from + index).padStart(width, ' ')}|${line}`)
    .join('\n');
  return { lines, starts, numbered };
}

forEachBuild('page reads', get => {
  for (const cm of ['6.38', 'latest']) {
    for (const csp of [false, true]) {
      const variant = `CodeMirror ${cm}, ${csp ? "CSP script-src 'self'" : 'no CSP'}`;

      it(`GET_EDITOR_CONTEXT identity, full and numbered: ${variant}`, async () => {
        const h = get();
        const { page, tabId } = await h.openFixtureTab({ cm, csp });
        const full = await waitForEditor(h, tabId);
        const text = await page.evaluate(() => window.__typstFixture.text());
        const { lines, starts, numbered } = documentFacts(text);

        // identity: the breadcrumb's file and the Files tree, no editor state.
        const identity = await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'identity' });
        assert.equal(identity.ok, true, JSON.stringify(identity));
        assert.deepEqual(Object.keys(identity.data), ['workspace']);
        const workspace = identity.data.workspace;
        assert.deepEqual(workspace.active_editor_file, FIXTURE_FILE);
        assert.equal(workspace.files_panel_open, true);
        assert.deepEqual(workspace.project_file_tree, FIXTURE_TREE);
        assert.equal(workspace.preview_kind, 'typst_document_render');

        // full: the whole text, counted in UTF-16 units; no tree outside identity.
        assert.deepEqual(Object.keys(full).sort(), [...COMMON_FIELDS, 'fullText', 'truncated'].sort());
        assert.equal(full.fullText, text);
        assert.equal(full.docLength, text.length);
        assert.equal(full.lineCount, lines.length);
        assert.equal(full.truncated, false);
        assert.equal(typeof full.editorToken, 'string');
        assert.ok(full.editorToken.length > 0 && full.editorToken.length <= 200);
        assert.deepEqual(full.workspace.active_editor_file, FIXTURE_FILE);
        assert.equal('project_file_tree' in full.workspace, false);

        // The cursor right after "𝔹" on the astral line 5: offsets and the
        // column count both halves of every astral character before it.
        const afterB = text.indexOf('𝔹') + '𝔹'.length;
        await page.evaluate(offset => window.__typstFixture.placeCursor(offset), afterB);
        const cursor = await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'full' });
        assert.equal(cursor.ok, true, JSON.stringify(cursor));
        assert.equal(cursor.data.cursorPos, afterB);
        assert.equal(cursor.data.cursorLine, 5);
        assert.equal(cursor.data.cursorColumn, afterB - starts[4] + 1);
        assert.equal(cursor.data.selectedText, '');
        assert.equal(cursor.data.editorToken, full.editorToken, 'the same EditorView keeps its token');

        // The whole astral line selected.
        await page.evaluate(() => window.__typstFixture.selectLine(5));
        const selected = (await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'edit' })).data;
        assert.equal(selected.selectedText, lines[4]);
        assert.equal(selected.selectionFrom, starts[4]);
        assert.equal(selected.selectionTo, starts[4] + lines[4].length);
        assert.equal(selected.selectionTruncated, false);
        assert.equal(selected.fullText, text);

        // numbered: exactly lines 3–5 in "<n>|<text>" form.
        const range = await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'numbered', startLine: 3, endLine: 5, maxChars: 64000 });
        assert.equal(range.ok, true, JSON.stringify(range));
        assert.equal(range.data.numberedDocument, numbered(3, 5));
        assert.deepEqual([range.data.startLine, range.data.endLine, range.data.truncated], [3, 5, false]);
        assert.equal('nextStartLine' in range.data, false);
        assert.equal('fullText' in range.data, false);

        // A budget that holds lines 1–2 and part of 3 stops after line 2.
        const budget = numbered(1, 2).length + 5;
        const paged = (await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'numbered', maxChars: budget })).data;
        assert.equal(paged.numberedDocument, numbered(1, 2));
        assert.deepEqual([paged.startLine, paged.endLine, paged.truncated, paged.nextStartLine], [1, 2, true, 3]);

        // One character: the first line is cut, nothing remains of the range.
        const cut = (await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'numbered', startLine: 1, endLine: 1, maxChars: 1 })).data;
        assert.deepEqual([cut.numberedDocument, cut.endLine, cut.truncated, cut.nextStartLine], ['1', 1, true, undefined]);

        // Out-of-range lines are clamped to the document.
        const clamped = (await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'numbered', startLine: 50 })).data;
        assert.equal(clamped.numberedDocument, numbered(lines.length, lines.length));
        assert.equal(clamped.startLine, lines.length);

        await page.close();
      });
    }
  }

  it('numbering pads to the widest line number once the document has ten lines', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest' });
    await waitForEditor(h, tabId);
    const text = Array.from({ length: 12 }, (_, index) => `line ${index + 1}`).join('\n');
    await page.evaluate(value => window.__typstFixture.setText(value), text);
    const data = (await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'numbered', startLine: 8, endLine: 11 })).data;
    assert.equal(data.numberedDocument, ' 8|line 8\n 9|line 9\n10|line 10\n11|line 11');
    assert.equal(data.lineCount, 12);
    await page.close();
  });

  for (const cm of ['6.38', 'latest']) {
    it(`GET_DIAGNOSTICS merges lint underlines with the Improve panel: CodeMirror ${cm}`, async () => {
      const h = get();
      const { page, tabId } = await h.openFixtureTab({ cm, csp: cm === 'latest' });
      const { fullText: text } = await waitForEditor(h, tabId);
      const { starts } = documentFacts(text);

      // The fixture's panel: one compiler error on line 3, no underline yet.
      const first = await ask(h, 'GET_DIAGNOSTICS', { tabId });
      assert.equal(first.ok, true, JSON.stringify(first));
      assert.deepEqual(first.data, {
        diagnostics: [{
          severity: 'error', message: 'unknown variable: undefined-thing', line: 3, column: null,
          kind: 'typst', original: null, suggestion: null
        }],
        totalCount: 1,
        truncated: false
      });

      // An underline on "#undefined-thing": the row keeps the panel's text and
      // takes the underline's column (UTF-16, 1-based).
      const from = text.indexOf('#undefined-thing');
      const marks = await page.evaluate(range => window.__typstFixture.setLint([range]),
        { from, to: from + '#undefined-thing'.length, severity: 'error' });
      assert.equal(marks, 1);
      const merged = (await ask(h, 'GET_DIAGNOSTICS', { tabId })).data;
      assert.deepEqual(merged.diagnostics, [{
        severity: 'error', message: 'unknown variable: undefined-thing', line: 3, column: from - starts[2] + 1,
        kind: 'typst', original: null, suggestion: null
      }]);

      // A Misspellings row ("teh → the", line 9) is a spelling suggestion.
      await page.evaluate(() => {
        const section = document.createElement('section');
        section.className = 'misspellings';
        section.innerHTML = '<h3>Misspellings</h3><div class="spelling-row"><span>teh → the</span> <span>line 9</span></div>';
        document.querySelector('.left-column').appendChild(section);
      });
      const spelled = (await ask(h, 'GET_DIAGNOSTICS', { tabId })).data;
      assert.equal(spelled.totalCount, 2);
      assert.deepEqual(spelled.diagnostics[1], {
        severity: 'info', message: 'teh → the', line: 9, column: null,
        kind: 'spelling', original: 'teh', suggestion: 'the'
      });

      // A panel whose compiler section cannot be read is never reported clean.
      await page.evaluate(() => {
        document.querySelector('.improve-toggle').remove();
        document.querySelector('.improve [role="list"]').remove();
      });
      const unsure = (await ask(h, 'GET_DIAGNOSTICS', { tabId })).data;
      const status = unsure.diagnostics.filter(item => item.kind === 'typst-status');
      assert.equal(status.length, 1, JSON.stringify(unsure));
      assert.equal(status[0].severity, 'warning');
      assert.match(status[0].message, /could not be verified/);
      // The underline alone still reports the error at its position.
      assert.ok(unsure.diagnostics.some(item => item.line === 3 && item.severity === 'error' && item.column != null));
      await page.close();
    });
  }

  it('the file identity falls back from the breadcrumb to the title, the selected row and body text', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest' });
    await waitForEditor(h, tabId);
    const identity = async () => {
      const answer = await ask(h, 'GET_EDITOR_CONTEXT', { tabId, projection: 'identity' });
      assert.equal(answer.ok, true, JSON.stringify(answer));
      return answer.data.workspace;
    };
    const file = async () => {
      const { projectLabel, relativePath, source, confidence } = (await identity()).active_editor_file || {};
      return { projectLabel, relativePath, source, confidence };
    };

    // account › project › folder › file: the account is not part of the path.
    await page.evaluate(() => {
      const crumbs = document.querySelector('.crumbs');
      const folder = crumbs.children[1].cloneNode(true);
      folder.querySelector('span').textContent = 'chapters';
      crumbs.insertBefore(folder, crumbs.children[2]);
      crumbs.children[3].querySelector('span').textContent = 'intro.typ';
    });
    assert.deepEqual(await file(), {
      projectLabel: 'Harness Thesis', relativePath: 'chapters/intro.typ', source: 'header_breadcrumb', confidence: 'high'
    });

    // Without a header: "<project> – <file> – Typst". (The layout moves down
    // so that no Files row sits where a header would be.)
    await page.evaluate(() => {
      document.querySelector('.app-header').remove();
      document.querySelector('.workspace').style.marginTop = '160px';
    });
    assert.deepEqual(await file(), {
      projectLabel: 'Harness Thesis', relativePath: 'main.typ', source: 'document_title', confidence: 'medium'
    });

    // Without a title: the Files row marked current, by name, then by its declared path.
    await page.evaluate(() => { document.title = ''; });
    assert.deepEqual(await file(), {
      projectLabel: null, relativePath: 'main.typ', source: 'selected_tree_filename', confidence: 'medium'
    });
    await page.evaluate(() => document.querySelector('[aria-current="true"]').setAttribute('data-path', 'drafts/notes.typ'));
    assert.deepEqual(await file(), {
      projectLabel: null, relativePath: 'drafts/notes.typ', source: 'selected_tree_path', confidence: 'high'
    });

    // Without a marked row: a breadcrumb in the page text.
    await page.evaluate(() => {
      document.querySelector('[aria-current="true"]').removeAttribute('aria-current');
      const note = document.createElement('p');
      note.textContent = 'Fixture Account › Harness Thesis › chapters › methods.typ';
      document.querySelector('.editor-pane').prepend(note);
    });
    assert.deepEqual(await file(), {
      projectLabel: 'Harness Thesis', relativePath: 'chapters/methods.typ', source: 'body_breadcrumb', confidence: 'medium'
    });

    // An opened image: its detail panel, not the editor, describes the view.
    await page.evaluate(() => {
      const panel = document.createElement('dl');
      panel.innerText = 'Path: images/logo.png\nFormat: PNG\nResolution: 64 × 48\nSize: 2 kB';
      document.querySelector('.preview-pane').prepend(panel);
    });
    const asset = await identity();
    assert.deepEqual(
      [asset.detail_path, asset.detail_path_source, asset.detail_format, asset.preview_kind],
      ['images/logo.png', 'body_text', 'PNG', 'binary_image_asset']
    );

    // A hidden Files sidebar is closed: no tree is reported.
    await page.evaluate(() => { document.querySelector('aside.files').style.display = 'none'; });
    const closed = await identity();
    assert.equal(closed.files_panel_open, false);
    assert.equal('project_file_tree' in closed, false);
    await page.close();
  });

  it('the Improve panel reader handles project-level rows, summaries and clean states', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest' });
    await waitForEditor(h, tabId);
    const improve = html => page.evaluate(markup => {
      document.querySelector('.improve').innerHTML = `<h2>Improve</h2>${markup}`;
    }, html);
    const read = async () => {
      const answer = await ask(h, 'GET_DIAGNOSTICS', { tabId });
      assert.equal(answer.ok, true, JSON.stringify(answer));
      return answer.data.diagnostics.map(({ severity, message, line, kind }) => ({ severity, message, line, kind }));
    };
    const card = (message, badge = '') =>
      `<div role="listitem"><p>${message}</p>${badge ? `<span>${badge}</span>` : ''}<a>Learn how to fix this error</a></div>`;

    // A bibliography error has no line; the warning's badge names its severity.
    await improve(`<button>1 compiler error, 1 warning</button><div role="list">${
      card('Failed to parse BibLaTeX (expected comma)')}${card('Unknown font family', '(warning, line 7)')}</div>`);
    assert.deepEqual(await read(), [
      { severity: 'error', message: 'Failed to parse BibLaTeX (expected comma)', line: null, kind: 'typst' },
      { severity: 'warning', message: 'Unknown font family', line: 7, kind: 'typst' }
    ]);

    // A reported error whose card is not rendered becomes a placeholder.
    await improve(`<button>2 compiler errors</button><div role="list">${card('Failed to parse BibLaTeX (expected comma)')}</div>`);
    const summarized = await read();
    assert.equal(summarized.length, 2);
    assert.equal(summarized[1].kind, 'typst-summary');
    assert.equal(summarized[1].severity, 'error');
    assert.match(summarized[1].message, /reports 2 compiler errors/);

    // Clean only when the page says so.
    await improve('<button>No compiler errors</button>');
    assert.deepEqual(await read(), []);
    await improve('<p>There is nothing we can suggest at the moment. Keep up the good work!</p>');
    assert.deepEqual(await read(), []);
    await page.close();
  });

  it('GET_PREVIEW captures the canvas as WebP and an opened image when asked', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest', csp: true });
    await waitForEditor(h, tabId);

    const canvas = await ask(h, 'GET_PREVIEW', { tabId, preferTypstCanvas: true });
    assert.equal(canvas.ok, true, JSON.stringify(canvas).slice(0, 300));
    assert.deepEqual([canvas.data.width, canvas.data.height, canvas.data.mimeType], [420, 594, 'image/webp']);
    assert.match(canvas.data.dataUrl, /^data:image\/webp;base64,[A-Za-z0-9+/=]+$/);
    assert.ok(canvas.data.dataUrl.length <= 2_097_152);
    const bytes = Buffer.from(canvas.data.dataUrl.slice(canvas.data.dataUrl.indexOf(',') + 1), 'base64');
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF');
    assert.equal(bytes.subarray(8, 12).toString('latin1'), 'WEBP');

    // No opened image yet: an answer with the reason, not a failure.
    const none = await ask(h, 'GET_PREVIEW', { tabId, preferAssetImage: true });
    assert.equal(none.ok, true);
    assert.match(none.data.error, /No large preview image found/);
    const before = await h.sendToTab(tabId, { type: 'PAGE_GET_PROBE', requestId: 'probe-image-before', payload: {} });
    assert.equal(before.payload.data.previewImage, false);

    // An image preview (as typst.app shows an opened PNG) is preferred by
    // default and captured at its natural size.
    await page.evaluate(async () => {
      const source = document.createElement('canvas');
      source.width = 64;
      source.height = 48;
      const context = source.getContext('2d');
      context.fillStyle = '#3366cc';
      context.fillRect(0, 0, 64, 48);
      const image = document.createElement('img');
      image.alt = 'Image preview';
      image.style.cssText = 'position:fixed;left:40%;top:30%;width:240px;height:180px;z-index:5';
      image.src = source.toDataURL('image/png');
      await image.decode();
      document.querySelector('.preview-pane').appendChild(image);
    });
    const shown = await h.sendToTab(tabId, { type: 'PAGE_GET_PROBE', requestId: 'probe-image-after', payload: {} });
    assert.equal(shown.payload.data.previewImage, true, JSON.stringify(shown.payload));
    const image = await ask(h, 'GET_PREVIEW', { tabId });
    assert.equal(image.ok, true, JSON.stringify(image).slice(0, 300));
    assert.deepEqual([image.data.width, image.data.height, image.data.mimeType], [64, 48, 'image/webp']);
    await page.close();
  });

  it('page reads refuse bad payloads and tabs that are not typst.app', async () => {
    const h = get();
    const { tabId: typstTab } = await h.openFixtureTab({ cm: 'latest' });
    await waitForEditor(h, typstTab);
    const { page: other, tabId: otherTab } = await h.openNonTypstTab();
    await h.activateTab(otherTab);

    const code = async (type, payload) => {
      const answer = await ask(h, type, payload);
      assert.equal(answer.ok, false, JSON.stringify(answer).slice(0, 300));
      return answer.error.code;
    };
    assert.equal(await code('GET_EDITOR_CONTEXT', { tabId: otherTab }), 'NOT_TYPST_TAB');
    assert.equal(await code('GET_DIAGNOSTICS', {}), 'NO_TYPST_TAB');
    assert.equal(await code('GET_EDITOR_CONTEXT', { tabId: typstTab, projection: 'everything' }), 'INVALID_CONTEXT_PROJECTION');
    assert.equal(await code('GET_EDITOR_CONTEXT', { tabId: typstTab, startLine: 4, endLine: 2 }), 'INVALID_CONTEXT_RANGE');
    assert.equal(await code('GET_PREVIEW', { tabId: typstTab, preferTypstCanvas: 'yes' }), 'INVALID_PREVIEW_REQUEST');

    // With the Typst tab active again, the tab can be left out.
    await h.activateTab(typstTab);
    const active = await ask(h, 'GET_EDITOR_CONTEXT', { projection: 'identity' });
    assert.equal(active.ok, true, JSON.stringify(active));
    assert.equal(active.data.workspace.active_editor_file.relativePath, 'main.typ');
    await other.close();
  });
});
