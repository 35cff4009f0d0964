// Guarded editor writes on the typst.app stand-in, sent from the service
// worker like the worker sends them: PAGE_APPLY_EDIT (one CodeMirror
// transaction in UTF-16 offsets; stale file, editor and document refused with
// no change), PAGE_SHOW_EDIT_PREVIEW (the read-only diff surface over the
// editor, outside CodeMirror's DOM, with a truncation notice for a large
// proposal and a stale notice after the user types), PAGE_CLEAR_EDIT_PREVIEW,
// and one preview per run and call (EDIT_PREVIEW_BUSY). CodeMirror 6.38
// (`cmView`) and the latest 6.x (`cmTile`); apply also under a strict CSP.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { poll } from './harness.mjs';
import { forEachBuild } from './suite.mjs';

const RUN = 'run-edits-1';
const FILE = 'main.typ';
const LAYER = '#typst-side-agent-inline-diff-rows';
const STYLE = '#typst-side-agent-inline-diff-style';

let counter = 0;

/** Sends one page request from the worker; returns the response envelope. */
async function pageRequest(h, tabId, type, payload, runId = RUN) {
  counter += 1;
  const requestId = `edits-${counter}`;
  const envelope = { type, requestId, payload };
  if (runId) envelope.runId = runId;
  const response = await h.sendToTab(tabId, envelope);
  assert.equal(response?.type, 'PROTOCOL_RESPONSE', `not a response: ${JSON.stringify(response)}`);
  assert.equal(response.requestId, requestId);
  return response.payload;
}

/** The `result` of an edit request that the bridge delivered. */
async function editResult(h, tabId, type, payload, runId = RUN) {
  const answer = await pageRequest(h, tabId, type, payload, runId);
  assert.equal(answer.ok, true, `the bridge failed: ${JSON.stringify(answer)}`);
  assert.deepEqual(Object.keys(answer.data), ['result']);
  return answer.data.result;
}

/** The editor snapshot a change set is computed against (polled until the bridge is up). */
async function snapshot(h, tabId) {
  let last;
  await poll(async () => {
    last = await pageRequest(h, tabId, 'PAGE_GET_CONTEXT', { projection: 'edit' }, null);
    return last.ok === true && typeof last.data.fullText === 'string';
  }, { timeout: 45_000, interval: 200, message: `an edit snapshot from tab ${tabId}` });
  const { fullText, editorToken, documentToken, workspace } = last.data;
  assert.equal(workspace.active_editor_file.relativePath, FILE);
  return { text: fullText, token: editorToken, documentToken };
}

/** A preview request that names the snapshot's document by its token, not by its text. */
function preparedByToken(snap, changes, callId, preview) {
  const { expectedText, ...rest } = prepared(snap, changes, callId, { preview });
  assert.equal(expectedText, snap.text);
  return { ...rest, expectedDocumentToken: snap.documentToken, expectedTextLength: snap.text.length };
}

/** Applies sorted changes like CodeMirror does (UTF-16 offsets of the original). */
function applyChanges(text, changes) {
  let out = '';
  let at = 0;
  for (const { from, to, insert } of changes) {
    out += text.slice(at, from) + insert;
    at = to;
  }
  return out + text.slice(at);
}

/**
 * A unified diff of `before` → `after` good enough for drawing: the changed
 * middle (after the common prefix and suffix lines) as deletions then
 * insertions, with one context line on each side.
 */
function diffOf(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const rows = [];
  const start = Math.max(0, head - 1);
  for (let i = start; i < head; i += 1) rows.push({ kind: 'context', oldLine: i + 1, newLine: i + 1, text: a[i] });
  for (let i = head; i < a.length - tail; i += 1) rows.push({ kind: 'delete', oldLine: i + 1, newLine: null, text: a[i] });
  for (let i = head; i < b.length - tail; i += 1) rows.push({ kind: 'insert', oldLine: null, newLine: i + 1, text: b[i] });
  if (tail > 0) rows.push({ kind: 'context', oldLine: a.length - tail + 1, newLine: b.length - tail + 1, text: a[a.length - tail] });
  const deletions = rows.filter(row => row.kind === 'delete').length;
  const additions = rows.filter(row => row.kind === 'insert').length;
  return {
    kind: 'unified-diff',
    fileLabel: FILE,
    additions,
    deletions,
    hunks: [{
      oldStart: start + 1,
      oldLines: rows.filter(row => row.kind !== 'insert').length,
      newStart: start + 1,
      newLines: rows.filter(row => row.kind !== 'delete').length,
      rows
    }]
  };
}

function prepared(snap, changes, callId, extra = {}) {
  return {
    expectedText: snap.text,
    expectedEditorToken: snap.token,
    expectedFileLabel: FILE,
    changes,
    callId,
    ...extra
  };
}

const fixtureText = page => page.evaluate(() => window.__typstFixture.text());

/** Types into the editor with the keyboard, as a user would. */
async function typeInEditor(page, offset, text) {
  await page.bringToFront();
  await page.evaluate(at => window.__typstFixture.select(at, at), offset);
  await page.keyboard.type(text);
}

/** What the page shows of the overlay, read in the page. */
function overlayFacts(page) {
  return page.evaluate(([layerSelector, styleSelector]) => {
    const layer = document.querySelector(layerSelector);
    const style = document.querySelector(styleSelector);
    if (!layer) return { layer: false, style: Boolean(style) };
    const surface = layer.querySelector('.tsa-inline-diff-surface');
    const scroller = document.querySelector('.cm-scroller');
    const content = document.querySelector('.cm-content');
    const box = element => {
      const r = element.getBoundingClientRect();
      return { left: r.left, top: r.top, width: r.width, height: r.height };
    };
    const layerStyle = getComputedStyle(layer);
    const tags = new Set(Array.from(layer.querySelectorAll('*'), element => element.tagName.toLowerCase()));
    return {
      layer: true,
      style: Boolean(style),
      layerPosition: layerStyle.position,
      layerPointerEvents: layerStyle.pointerEvents,
      insideEditor: Boolean(layer.closest('.cm-editor')),
      surfaceBox: surface ? box(surface) : null,
      scrollerBox: box(scroller),
      surfaceFont: surface ? getComputedStyle(surface).fontFamily : null,
      contentFont: getComputedStyle(content).fontFamily,
      surfaceLabel: surface?.getAttribute('aria-label') ?? null,
      header: layer.querySelector('.tsa-inline-diff-header')?.textContent ?? null,
      hunks: Array.from(layer.querySelectorAll('.tsa-inline-diff-hunk'), element => element.textContent),
      rows: Array.from(layer.querySelectorAll('.tsa-inline-diff-row'), row => ({
        kind: row.className.replace('tsa-inline-diff-row tsa-inline-diff-', ''),
        cells: Array.from(row.children, cell => cell.textContent)
      })),
      rowCount: layer.querySelectorAll('.tsa-inline-diff-row').length,
      notices: Array.from(layer.querySelectorAll('.tsa-inline-diff-notice'), element => element.textContent),
      tags: [...tags].sort(),
      ourMarksInEditor: document.querySelector('.cm-editor').querySelectorAll('[class*="tsa-"], [id^="typst-side-agent"]').length
    };
  }, [LAYER, STYLE]);
}

/** Remembers CodeMirror's own DOM (children of .cm-content, line heights) in the page. */
function rememberEditorDom(page) {
  return page.evaluate(() => {
    const content = document.querySelector('.cm-content');
    window.__editsTestBefore = {
      children: Array.from(content.children),
      heights: Array.from(document.querySelectorAll('.cm-line'), line => line.getBoundingClientRect().height)
    };
    return window.__editsTestBefore.children.length;
  });
}

/** Whether CodeMirror's own DOM is as remembered (same nodes, same line heights). */
function editorDomUnchanged(page) {
  return page.evaluate(() => new Promise(resolve => {
    // Two frames: the overlay repositions in requestAnimationFrame.
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const before = window.__editsTestBefore;
      const children = Array.from(document.querySelector('.cm-content').children);
      const heights = Array.from(document.querySelectorAll('.cm-line'), line => line.getBoundingClientRect().height);
      resolve({
        sameChildren: children.length === before.children.length && children.every((child, i) => child === before.children[i]),
        sameHeights: JSON.stringify(heights) === JSON.stringify(before.heights),
        heights,
        before: before.heights
      });
    }));
  }));
}

/**
 * Takes away everything the layout reader names a file from (the breadcrumb,
 * the Files sidebar, the title): the page then names no file.
 */
const hideFileName = page => page.evaluate(() => {
  document.querySelector('[role="heading"][aria-level="1"]').remove();
  document.querySelector('aside.files')?.remove();
  document.title = 'Typst';
});

/**
 * Replaces built-ins after the page loaded, as a page script could: the
 * replacements still work (the fixture's CodeMirror calls them too) but
 * record every call made from this extension's main-world files, and a few
 * that CodeMirror does not need answer wrongly.
 */
const redefineBuiltins = page => page.evaluate(() => {
  Error.stackTraceLimit = 50;
  const calls = window.__builtinCallsFromExtension = [];
  const ours = /chrome-extension:\/\/[^/]+\/src\/content\/(main|inline-diff|edit-guard|workspace|diagnostics)\.js/;
  // Only the direct caller counts: a frame of ours deeper down called
  // CodeMirror or another file, which may use the built-in itself.
  // The recorder itself uses wrapped built-ins; it does not record itself.
  let recording = false;
  const record = name => {
    if (recording) return;
    recording = true;
    try {
      const caller = (new Error().stack || '').split('\n')[3] || '';
      if (ours.test(caller)) calls.push(`${name} from${caller}`);
    } finally {
      recording = false;
    }
  };
  const wrap = (owner, name, label) => {
    const original = owner[name];
    Object.defineProperty(owner, name, {
      configurable: true,
      writable: true,
      value: function (...args) {
        record(label);
        return Reflect.apply(original, this, args);
      }
    });
  };
  wrap(Array.prototype, 'map', 'Array.prototype.map');
  wrap(Array.prototype, 'forEach', 'Array.prototype.forEach');
  wrap(Array.prototype, 'some', 'Array.prototype.some');
  wrap(Array.prototype, 'find', 'Array.prototype.find');
  wrap(Array.prototype, 'slice', 'Array.prototype.slice');
  wrap(Array.prototype, 'pop', 'Array.prototype.pop');
  wrap(Array.prototype, Symbol.iterator, 'Array.prototype[Symbol.iterator]');
  wrap(NodeList.prototype, Symbol.iterator, 'NodeList.prototype[Symbol.iterator]');
  wrap(HTMLCollection.prototype, Symbol.iterator, 'HTMLCollection.prototype[Symbol.iterator]');
  wrap(Set.prototype, 'add', 'Set.prototype.add');
  wrap(String.prototype, 'match', 'String.prototype.match');
  wrap(String.prototype, 'includes', 'String.prototype.includes');
  wrap(Element.prototype, 'querySelectorAll', 'Element.prototype.querySelectorAll');
  wrap(Element.prototype, 'getBoundingClientRect', 'Element.prototype.getBoundingClientRect');
  wrap(Array.prototype, 'push', 'Array.prototype.push');
  wrap(Array.prototype, 'join', 'Array.prototype.join');
  wrap(Array.prototype, 'filter', 'Array.prototype.filter');
  wrap(String.prototype, 'slice', 'String.prototype.slice');
  wrap(String.prototype, 'split', 'String.prototype.split');
  wrap(String.prototype, 'replace', 'String.prototype.replace');
  wrap(String.prototype, 'toLowerCase', 'String.prototype.toLowerCase');
  wrap(Map.prototype, 'get', 'Map.prototype.get');
  wrap(RegExp.prototype, 'test', 'RegExp.prototype.test');
  wrap(RegExp.prototype, 'exec', 'RegExp.prototype.exec');
  wrap(Document.prototype, 'createElement', 'Document.prototype.createElement');
  wrap(Node.prototype, 'appendChild', 'Node.prototype.appendChild');
  wrap(EventTarget.prototype, 'addEventListener', 'EventTarget.prototype.addEventListener');
  wrap(window, 'postMessage', 'window.postMessage');
  for (const [owner, name, label] of [
    [JSON, 'stringify', 'JSON.stringify'], [Object, 'keys', 'Object.keys'], [Array, 'isArray', 'Array.isArray'],
    [Math, 'min', 'Math.min'], [Math, 'max', 'Math.max'], [Number, 'isInteger', 'Number.isInteger'],
    [Math, 'abs', 'Math.abs'], [Array, 'from', 'Array.from'], [window, 'parseInt', 'parseInt'],
    [Number, 'isFinite', 'Number.isFinite'], [window, 'getComputedStyle', 'window.getComputedStyle']
  ]) wrap(owner, name, label);
  wrap(Set.prototype, 'has', 'Set.prototype.has');
  // Not used by the fixture's editor: these lie outright (every text trims
  // to "X", no text ends in anything, a text holds no match, the Files tree
  // is asked away) and record their calls too.
  const lie = (owner, name, label, answer) => Object.defineProperty(owner, name, {
    configurable: true,
    writable: true,
    value: function () {
      record(label);
      return answer();
    }
  });
  lie(String.prototype, 'trim', 'String.prototype.trim', () => 'X');
  lie(String.prototype, 'endsWith', 'String.prototype.endsWith', () => false);
  lie(String.prototype, 'matchAll', 'String.prototype.matchAll', () => [][Symbol.iterator]());
  Object.defineProperty(Object.prototype, 'includeProjectTree', { configurable: true, get: () => false });
  // Not used by the fixture's editor: this one lies outright.
  String.prototype.padStart = function () { return 'X'; };
  Object.defineProperty(Object.prototype, 'expectedFileLabel', { configurable: true, get: () => 'main.typ' });
  window.__typstAgentBuiltins2 = null;
  return true;
});

forEachBuild('page edits', get => {
  it('a page whose file name cannot be read gets no write: unknown identity fails closed', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest' });
    const snap = await snapshot(h, tabId);
    const changes = [{ from: 0, to: 1, insert: '' }];
    await hideFileName(page);
    const context = await pageRequest(h, tabId, 'PAGE_GET_CONTEXT', { projection: 'edit' }, null);
    const workspace = context.data.workspace ?? {};
    assert.deepEqual([workspace.active_editor_file ?? null, workspace.focused_element_file_hint ?? null,
      workspace.detail_path ?? null], [null, null, null], `the page names no file now: ${JSON.stringify(workspace)}`);
    const preview = diffOf(snap.text, applyChanges(snap.text, changes));
    const shown = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(snap, changes, 'call-u1', { preview }));
    assert.deepEqual([shown.ok, shown.code], [false, 'EDIT_FILE_UNKNOWN']);
    for (const expectedFileLabel of [FILE, 'Current Typst document']) {
      const applied = await editResult(h, tabId, 'PAGE_APPLY_EDIT',
        { ...prepared(snap, changes, 'call-u2', { reviewedDiff: true }), expectedFileLabel });
      assert.deepEqual([applied.ok, applied.code], [false, 'EDIT_FILE_UNKNOWN'], expectedFileLabel);
    }
    assert.equal(await fixtureText(page), snap.text, 'the document is unchanged');
    assert.deepEqual(await overlayFacts(page), { layer: false, style: false });
    await page.close();
  });

  it('invisible and bidi characters in a proposal are drawn as named marks on the overlay', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest' });
    const snap = await snapshot(h, tabId);
    const line3 = snap.text.indexOf('We cite');
    const line3End = snap.text.indexOf('\n', line3);
    const hidden = 'admin\u202E \u2066// check\u2069\u2066 ok\u200Bend\u00AD';
    const changes = [{ from: line3, to: line3End, insert: hidden }];
    const preview = diffOf(snap.text, applyChanges(snap.text, changes));
    const shown = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(snap, changes, 'call-m', { preview }));
    assert.equal(shown.shown, true);
    const marks = await page.evaluate(selector => {
      const row = document.querySelector(`${selector} .tsa-inline-diff-insert`);
      const code = row.querySelector('.tsa-inline-diff-code');
      const drawn = Array.from(code.childNodes, node => (node.nodeType === Node.TEXT_NODE ? node.data : ''));
      return {
        marks: Array.from(code.querySelectorAll('.tsa-inline-diff-mark'), mark => ({
          text: mark.textContent,
          label: mark.getAttribute('aria-label'),
          role: mark.getAttribute('role'),
          bidi: mark.classList.contains('tsa-inline-diff-mark-bidi'),
          border: getComputedStyle(mark).borderTopStyle
        })),
        text: drawn.join(''),
        hiddenLeft: /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/.test(code.textContent)
      };
    }, LAYER);
    assert.deepEqual(marks.marks.map(mark => mark.text), ['U+202E', 'U+2066', 'U+2069', 'U+2066', 'U+200B', 'U+00AD']);
    assert.deepEqual(marks.marks.map(mark => mark.bidi), [true, true, true, true, false, false]);
    assert.equal(marks.marks[0].label, 'text direction control U+202E');
    assert.equal(marks.marks[4].label, 'invisible character U+200B');
    assert.ok(marks.marks.every(mark => mark.role === 'img' && mark.border === 'solid'), JSON.stringify(marks.marks));
    assert.equal(marks.text, 'admin // check okend', 'only the visible characters are text');
    assert.equal(marks.hiddenLeft, false, 'no invisible or bidi character reaches the page as text');
    assert.deepEqual(await editResult(h, tabId, 'PAGE_CLEAR_EDIT_PREVIEW', { callId: 'call-m' }), { ok: true, cleared: true });
    await page.close();
  });

  it('built-ins a page replaces after load change nothing the page scripts do', async () => {
    const h = get();
    const { page, tabId } = await h.openFixtureTab({ cm: 'latest' });
    const snap = await snapshot(h, tabId);
    // What the layout and Improve panel readers answer before the page
    // replaces anything: file identity, Files tree, workspace hints, rows.
    const identityBefore = await pageRequest(h, tabId, 'PAGE_GET_CONTEXT', { projection: 'identity' }, null);
    assert.equal(identityBefore.ok, true, JSON.stringify(identityBefore));
    assert.equal(identityBefore.data.workspace.active_editor_file.relativePath, FILE);
    assert.ok(identityBefore.data.workspace.project_file_tree.entries.length > 0);
    const diagnosticsBefore = await pageRequest(h, tabId, 'PAGE_GET_DIAGNOSTICS', {}, null);
    assert.equal(diagnosticsBefore.ok, true, JSON.stringify(diagnosticsBefore));
    assert.ok(diagnosticsBefore.data.diagnostics.length > 0, JSON.stringify(diagnosticsBefore));
    assert.equal(await redefineBuiltins(page), true);
    const identityAfter = await pageRequest(h, tabId, 'PAGE_GET_CONTEXT', { projection: 'identity' }, null);
    assert.deepEqual(identityAfter, identityBefore, 'the layout reader answers as before');

    // Reads: a numbered range (padStart, slice, join), the probe, diagnostics.
    const numbered = await pageRequest(h, tabId, 'PAGE_GET_CONTEXT',
      { projection: 'numbered', startLine: 1, endLine: 2, maxChars: 4000 }, null);
    assert.equal(numbered.ok, true, JSON.stringify(numbered));
    const lines = snap.text.split('\n');
    assert.equal(numbered.data.numberedDocument, `1|${lines[0]}\n2|${lines[1]}`);
    assert.equal(numbered.data.workspace.active_editor_file.relativePath, FILE);
    const probe = await pageRequest(h, tabId, 'PAGE_GET_PROBE', {}, null);
    assert.equal(probe.ok, true);
    assert.equal(probe.data.editor, true);
    const diagnostics = await pageRequest(h, tabId, 'PAGE_GET_DIAGNOSTICS', {}, null);
    assert.deepEqual(diagnostics, diagnosticsBefore, 'the Improve panel reader answers as before');

    // The overlay and a write, with the guard's checks intact.
    const line3 = snap.text.indexOf('We cite');
    const line3End = snap.text.indexOf('\n', line3);
    const changes = [{ from: line3, to: line3End, insert: 'We cite @knuth\u202E here.' }];
    const after = applyChanges(snap.text, changes);
    const shown = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW',
      prepared(snap, changes, 'call-b', { preview: diffOf(snap.text, after) }));
    assert.equal(shown.shown, true, JSON.stringify(shown));
    const facts = await overlayFacts(page);
    assert.deepEqual(facts.rows.map(row => row.kind), ['context', 'delete', 'insert', 'context']);
    assert.deepEqual(facts.rows[2].cells, ['', '3', '+', 'We cite @knuthU+202E here.']);
    // The guard's checks still hold: a change set for other text is stale.
    const stale = await editResult(h, tabId, 'PAGE_APPLY_EDIT',
      { ...prepared(snap, changes, 'call-b', { reviewedDiff: true }), expectedText: `${snap.text}!` });
    assert.deepEqual([stale.ok, stale.code, stale.staleReason], [false, 'STALE_EDIT_PREVIEW', 'document']);
    const applied = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(snap, changes, 'call-b', { reviewedDiff: true }));
    assert.deepEqual(applied, { ok: true, edits_applied: 1, reviewed_diff: true });
    assert.equal(await fixtureText(page), after);
    const calls = await page.evaluate(() => window.__builtinCallsFromExtension);
    assert.deepEqual(calls, [], 
      'no replaced built-in was called from main.js, edit-guard.js, inline-diff.js, workspace.js or diagnostics.js');
    await page.close();
  });


  for (const cm of ['6.38', 'latest']) {
    for (const csp of [false, true]) {
      const variant = `CodeMirror ${cm}, ${csp ? "CSP script-src 'self'" : 'no CSP'}`;

      it(`PAGE_APPLY_EDIT applies exactly and fails closed when stale: ${variant}`, async () => {
        const h = get();
        const { page, tabId } = await h.openFixtureTab({ cm, csp });
        const snap = await snapshot(h, tabId);
        assert.equal(snap.text, await fixtureText(page));

        // Offsets on the astral line count both halves of 𝔸, 𝔹 and 🙂.
        const b = snap.text.indexOf('𝔹');
        const smile = snap.text.indexOf('🙂');
        const changes = [
          { from: 2, to: 16, insert: 'Prüfung 𝒯' },
          { from: b, to: b + '𝔹'.length, insert: '𝕮' },
          { from: smile + '🙂'.length, to: smile + '🙂'.length, insert: ' 🎉' },
          { from: snap.text.length, to: snap.text.length, insert: '\n// done' }
        ];
        const expected = applyChanges(snap.text, changes);

        // Each stale condition is refused and changes nothing.
        const wrongToken = await editResult(h, tabId, 'PAGE_APPLY_EDIT',
          prepared({ ...snap, token: 'another-editor' }, changes, 'call-a', { reviewedDiff: true }));
        assert.deepEqual({ code: wrongToken.code, staleReason: wrongToken.staleReason, ok: wrongToken.ok },
          { code: 'STALE_EDIT_PREVIEW', staleReason: 'editor', ok: false });
        const wrongFile = await editResult(h, tabId, 'PAGE_APPLY_EDIT',
          { ...prepared(snap, changes, 'call-a', { reviewedDiff: true }), expectedFileLabel: 'chapters/intro.typ' });
        assert.deepEqual([wrongFile.code, wrongFile.staleReason], ['STALE_EDIT_PREVIEW', 'file']);
        assert.equal(typeof wrongFile.error, 'string');
        // An offset inside a surrogate pair cannot come from a real proposal.
        const split = await editResult(h, tabId, 'PAGE_APPLY_EDIT',
          prepared(snap, [{ from: b + 1, to: b + 2, insert: 'x' }], 'call-a', { reviewedDiff: false }));
        assert.equal(split.code, 'INVALID_PREPARED_EDIT');
        // Overlapping changes never reach the main world.
        const overlapping = await pageRequest(h, tabId, 'PAGE_APPLY_EDIT',
          prepared(snap, [{ from: 0, to: 5, insert: '' }, { from: 3, to: 6, insert: '' }], 'call-a', { reviewedDiff: false }));
        assert.deepEqual([overlapping.ok, overlapping.error?.code], [false, 'INVALID_PAGE_REQUEST']);
        // Nor does an edit without a run.
        const runless = await pageRequest(h, tabId, 'PAGE_APPLY_EDIT',
          prepared(snap, changes, 'call-a', { reviewedDiff: false }), null);
        assert.deepEqual([runless.ok, runless.error?.code], [false, 'INVALID_PAGE_REQUEST']);
        assert.equal(await fixtureText(page), snap.text, 'no refused request changed the document');

        const applied = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(snap, changes, 'call-a', { reviewedDiff: true }));
        assert.deepEqual(applied, { ok: true, edits_applied: 4, reviewed_diff: true });
        assert.equal(await fixtureText(page), expected);

        // One transaction: a single undo restores the original text.
        await page.bringToFront();
        await page.evaluate(() => document.querySelector('.cm-content').focus());
        await page.keyboard.press('Control+z');
        await poll(async () => (await fixtureText(page)) === snap.text, { message: 'one undo to restore the text' });

        // The user types: the snapshot no longer matches the document.
        const fresh = await snapshot(h, tabId);
        await typeInEditor(page, 0, 'X');
        const typed = await fixtureText(page);
        assert.equal(typed, `X${fresh.text}`);
        const stale = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(fresh, changes, 'call-b', { reviewedDiff: false }));
        assert.deepEqual([stale.ok, stale.code, stale.staleReason], [false, 'STALE_EDIT_PREVIEW', 'document']);
        assert.equal(await fixtureText(page), typed, 'the stale edit changed nothing');

        // A change set prepared without a known file is refused: another
        // unidentified file would carry the same default label.
        const now = await snapshot(h, tabId);
        const unlabelled = await editResult(h, tabId, 'PAGE_APPLY_EDIT', {
          ...prepared(now, [{ from: 0, to: 1, insert: '' }], 'call-c', { reviewedDiff: false }),
          expectedFileLabel: 'Current Typst document'
        });
        assert.deepEqual([unlabelled.ok, unlabelled.code], [false, 'EDIT_FILE_UNKNOWN']);
        assert.equal(await fixtureText(page), now.text, 'the unlabelled edit changed nothing');
        await page.close();
      });
    }

    it(`PAGE_SHOW_EDIT_PREVIEW draws over the editor without touching it; clear, apply and busy: CodeMirror ${cm}`, async () => {
      const h = get();
      const { page, tabId } = await h.openFixtureTab({ cm });
      const snap = await snapshot(h, tabId);
      const line3 = snap.text.indexOf('We cite');
      const line3End = snap.text.indexOf('\n', line3);
      const changes = [{ from: line3, to: line3End, insert: 'We cite <b>@knuth</b> & <img src=x onerror=alert(1)> here.' }];
      const after = applyChanges(snap.text, changes);
      const preview = diffOf(snap.text, after);
      await rememberEditorDom(page);

      const shown = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(snap, changes, 'call-1', { preview }));
      assert.deepEqual(shown, {
        ok: true, shown: true, presentation: 'editor-diff-surface', changes_previewed: 1,
        additions_rendered: 1, deletions_rendered: 1, truncated: false
      });
      const facts = await overlayFacts(page);
      assert.equal(facts.layer, true);
      assert.equal(facts.style, true);
      assert.equal(facts.layerPosition, 'fixed');
      assert.equal(facts.layerPointerEvents, 'none');
      assert.equal(facts.insideEditor, false);
      assert.equal(facts.ourMarksInEditor, 0, 'nothing of ours inside .cm-editor');
      for (const side of ['left', 'top', 'width', 'height']) {
        assert.ok(Math.abs(facts.surfaceBox[side] - facts.scrollerBox[side]) < 1, `surface ${side} over the scroller: ${JSON.stringify(facts)}`);
      }
      assert.equal(facts.surfaceFont, facts.contentFont, 'the editor font');
      assert.equal(facts.surfaceLabel, `Proposed changes to ${FILE}`);
      assert.ok(facts.header.includes(FILE) && facts.header.includes('+1') && facts.header.includes('\u22121'), facts.header);
      assert.deepEqual(facts.hunks, ['@@ -2,3 +2,3 @@']);
      assert.deepEqual(facts.rows.map(row => row.kind), ['context', 'delete', 'insert', 'context']);
      assert.deepEqual(facts.rows[2].cells, ['', '3', '+', changes[0].insert.split('\n')[0]], 'markup in the proposal is text');
      assert.deepEqual(facts.rows[1].cells.slice(0, 3), ['3', '', '\u2212']);
      assert.deepEqual(facts.tags, ['div', 'section', 'span'], 'only our text containers, no markup from the proposal');
      // The surface follows the editor when the window is resized.
      const viewport = page.viewportSize();
      await page.setViewportSize({ width: Math.round(viewport.width * 0.75), height: Math.round(viewport.height * 0.8) });
      let moved;
      await poll(async () => {
        moved = await overlayFacts(page);
        return ['left', 'top', 'width', 'height'].every(side => Math.abs(moved.surfaceBox[side] - moved.scrollerBox[side]) < 1);
      }, { message: 'the surface to follow the resized editor' });
      assert.notDeepEqual(moved.scrollerBox, facts.scrollerBox, 'the editor did change size');
      await page.setViewportSize(viewport);

      const dom = await editorDomUnchanged(page);
      assert.equal(dom.sameChildren, true, '.cm-content keeps its children');
      assert.equal(dom.sameHeights, true, `no .cm-line changed height: ${JSON.stringify(dom)}`);

      // Another call (same run) and another run are busy for show and apply.
      const otherCall = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(snap, changes, 'call-2', { preview }));
      assert.deepEqual([otherCall.ok, otherCall.code], [false, 'EDIT_PREVIEW_BUSY']);
      const otherRun = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(snap, changes, 'call-1', { reviewedDiff: true }), 'run-other');
      assert.deepEqual([otherRun.ok, otherRun.code], [false, 'EDIT_PREVIEW_BUSY']);
      assert.equal(await fixtureText(page), snap.text);

      // Clearing another call leaves the preview; clearing this one removes all of it.
      const wrongClear = await editResult(h, tabId, 'PAGE_CLEAR_EDIT_PREVIEW', { callId: 'call-2' });
      assert.deepEqual(wrongClear, { ok: true, cleared: false });
      assert.equal((await overlayFacts(page)).layer, true);
      const cleared = await editResult(h, tabId, 'PAGE_CLEAR_EDIT_PREVIEW', { callId: 'call-1' });
      assert.deepEqual(cleared, { ok: true, cleared: true });
      assert.deepEqual(await overlayFacts(page), { layer: false, style: false });

      // Shown again, then applied: the document changes and the overlay is gone.
      const again = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(snap, changes, 'call-3', { preview }));
      assert.equal(again.shown, true);
      const applied = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(snap, changes, 'call-3', { reviewedDiff: true }));
      assert.deepEqual(applied, { ok: true, edits_applied: 1, reviewed_diff: true });
      assert.equal(await fixtureText(page), after);
      assert.deepEqual(await overlayFacts(page), { layer: false, style: false });

      // The user types while a proposal is shown: the surface says it is stale,
      // and applying it fails closed.
      const next = await snapshot(h, tabId);
      const back = [{ from: line3, to: line3 + changes[0].insert.length, insert: snap.text.slice(line3, line3End) }];
      const backPreview = diffOf(next.text, applyChanges(next.text, back));
      const shownNext = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(next, back, 'call-4', { preview: backPreview }));
      assert.equal(shownNext.shown, true);
      await typeInEditor(page, 0, 'Y');
      await poll(async () => (await overlayFacts(page)).notices.length === 1,
        { message: 'the stale notice on the surface' });
      const staleFacts = await overlayFacts(page);
      assert.equal(staleFacts.rowCount, 0, 'the proposal is no longer drawn');
      const staleApply = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(next, back, 'call-4', { reviewedDiff: true }));
      assert.deepEqual([staleApply.code, staleApply.staleReason], ['STALE_EDIT_PREVIEW', 'document']);
      assert.equal(await fixtureText(page), `Y${after}`);
      assert.deepEqual(await editResult(h, tabId, 'PAGE_CLEAR_EDIT_PREVIEW', { callId: 'call-4' }), { ok: true, cleared: true });
      assert.deepEqual(await overlayFacts(page), { layer: false, style: false });

      // Another file focused while a proposal is shown (the breadcrumb changes,
      // then the editor redraws without a text change): stale as well.
      const current = await snapshot(h, tabId);
      const trim = [{ from: 0, to: 1, insert: '' }];
      const trimPreview = diffOf(current.text, applyChanges(current.text, trim));
      const shownFile = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(current, trim, 'call-5', { preview: trimPreview }));
      assert.equal(shownFile.shown, true);
      await page.evaluate(() => {
        const crumb = document.querySelector('[role="heading"][aria-level="1"] .crumb:last-child span');
        crumb.textContent = 'refs.typ';
        window.__typstFixture.setLint([{ from: 0, to: 1, severity: 'info' }]);
      });
      await poll(async () => (await overlayFacts(page)).notices.length === 1,
        { message: 'the stale notice after the file changed' });
      const fileApply = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(current, trim, 'call-5', { reviewedDiff: true }));
      assert.deepEqual([fileApply.code, fileApply.staleReason], ['STALE_EDIT_PREVIEW', 'file']);
      assert.equal(await fixtureText(page), current.text);
      assert.deepEqual(await editResult(h, tabId, 'PAGE_CLEAR_EDIT_PREVIEW', { callId: 'call-5' }), { ok: true, cleared: true });
      await page.evaluate(() => {
        document.querySelector('[role="heading"][aria-level="1"] .crumb:last-child span').textContent = 'main.typ';
        window.__typstFixture.setLint([]);
      });

      // Leaving the page disposes the runtime, and the preview with it.
      const last = await snapshot(h, tabId);
      const lastChange = [{ from: 0, to: 1, insert: '' }];
      const lastShown = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW',
        prepared(last, lastChange, 'call-6', { preview: diffOf(last.text, applyChanges(last.text, lastChange)) }));
      assert.equal(lastShown.shown, true);
      assert.equal((await overlayFacts(page)).layer, true);
      await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true })));
      assert.deepEqual(await overlayFacts(page), { layer: false, style: false });
      await page.close();
    });

    it(`a preview may name its document by token: only the very document read passes: CodeMirror ${cm}`, async () => {
      const h = get();
      const { page, tabId } = await h.openFixtureTab({ cm });
      const snap = await snapshot(h, tabId);
      assert.equal(typeof snap.documentToken, 'string');
      assert.equal((await snapshot(h, tabId)).documentToken, snap.documentToken, 'the same document, the same token');
      const changes = [{ from: 0, to: 1, insert: '' }];
      const preview = diffOf(snap.text, applyChanges(snap.text, changes));

      const shown = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', preparedByToken(snap, changes, 'call-t1', preview));
      assert.equal(shown.shown, true, JSON.stringify(shown));
      assert.equal((await overlayFacts(page)).rowCount > 0, true);
      assert.deepEqual(await editResult(h, tabId, 'PAGE_CLEAR_EDIT_PREVIEW', { callId: 'call-t1' }), { ok: true, cleared: true });

      // A token of another length, a foreign token, or both forms at once.
      const wrongLength = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW',
        { ...preparedByToken(snap, changes, 'call-t2', preview), expectedTextLength: snap.text.length + 1 });
      assert.deepEqual([wrongLength.code, wrongLength.staleReason], ['STALE_EDIT_PREVIEW', 'document']);
      const foreign = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW',
        { ...preparedByToken(snap, changes, 'call-t2', preview), expectedDocumentToken: 'not-a-token' });
      assert.deepEqual([foreign.code, foreign.staleReason], ['STALE_EDIT_PREVIEW', 'document']);
      const both = await pageRequest(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW',
        { ...preparedByToken(snap, changes, 'call-t2', preview), expectedText: snap.text });
      assert.deepEqual([both.ok, both.error?.code], [false, 'INVALID_PAGE_REQUEST']);
      const { preview: _drawn, ...tokenApply } = preparedByToken(snap, changes, 'call-t2', preview);
      const applyByToken = await pageRequest(h, tabId, 'PAGE_APPLY_EDIT', { ...tokenApply, reviewedDiff: true });
      assert.deepEqual([applyByToken.ok, applyByToken.error?.code], [false, 'INVALID_PAGE_REQUEST'], 'a write compares the text');

      // Typed and undone: the same text in a new document object. The token
      // is stale; the whole text still passes.
      await typeInEditor(page, 0, 'Z');
      await page.keyboard.press('Backspace');
      await poll(async () => (await fixtureText(page)) === snap.text, { message: 'the text typed and undone' });
      const replaced = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', preparedByToken(snap, changes, 'call-t3', preview));
      assert.deepEqual([replaced.code, replaced.staleReason], ['STALE_EDIT_PREVIEW', 'document']);
      const byText = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(snap, changes, 'call-t3', { preview }));
      assert.equal(byText.shown, true);
      assert.deepEqual(await editResult(h, tabId, 'PAGE_CLEAR_EDIT_PREVIEW', { callId: 'call-t3' }), { ok: true, cleared: true });
      const fresh = await snapshot(h, tabId);
      assert.notEqual(fresh.documentToken, snap.documentToken, 'a new document object, a new token');
      assert.equal(await fixtureText(page), snap.text, 'no preview changed the document');
      await page.close();
    });

    it(`an edit read that names the document the editor holds comes without its text: CodeMirror ${cm}`, async () => {
      const h = get();
      const { page, tabId } = await h.openFixtureTab({ cm });
      const snap = await snapshot(h, tabId);
      const read = knownDocumentToken => pageRequest(h, tabId, 'PAGE_GET_CONTEXT', { projection: 'edit', knownDocumentToken }, null);

      const known = await read(snap.documentToken);
      assert.equal(known.ok, true, JSON.stringify(known));
      assert.equal('fullText' in known.data, false, 'the text is left out');
      assert.equal(known.data.documentToken, snap.documentToken);
      assert.equal(known.data.docLength, snap.text.length);
      assert.equal(known.data.truncated, false);
      assert.equal(known.data.workspace.active_editor_file.relativePath, FILE);

      const foreign = await read('not-a-token');
      assert.equal(foreign.data.fullText, snap.text, 'another token gets the text');
      const full = await pageRequest(h, tabId, 'PAGE_GET_CONTEXT', { projection: 'full', knownDocumentToken: snap.documentToken }, null);
      assert.deepEqual([full.ok, full.error?.code], [false, 'INVALID_PAGE_REQUEST'], 'only an edit read names a document');

      // Typed and undone: the same text in a new document object is sent again.
      await typeInEditor(page, 0, 'Z');
      await page.keyboard.press('Backspace');
      await poll(async () => (await fixtureText(page)) === snap.text, { message: 'the text typed and undone' });
      const replaced = await read(snap.documentToken);
      assert.equal(replaced.data.fullText, snap.text);
      assert.notEqual(replaced.data.documentToken, snap.documentToken);
      await page.close();
    });

    it(`a large proposal is drawn up to 2,000 rows with a truncation notice: CodeMirror ${cm}`, async () => {
      const h = get();
      const { page, tabId } = await h.openFixtureTab({ cm });
      const lines = Array.from({ length: 2_400 }, (_, i) => `line ${i + 1}`);
      await page.evaluate(text => window.__typstFixture.setText(text), lines.join('\n'));
      const snap = await snapshot(h, tabId);
      const changes = [{ from: 0, to: snap.text.length, insert: lines.map(line => line.toUpperCase()).join('\n') }];
      const after = applyChanges(snap.text, changes);
      const preview = diffOf(snap.text, after);
      assert.equal(preview.hunks[0].rows.length, 4_800);
      await rememberEditorDom(page);

      const shown = await editResult(h, tabId, 'PAGE_SHOW_EDIT_PREVIEW', prepared(snap, changes, 'call-big', { preview }));
      assert.equal(shown.shown, true);
      assert.equal(shown.truncated, true);
      assert.equal(shown.deletions_rendered, 2_000, 'the first 2,000 rows are the deletions');
      assert.equal(shown.additions_rendered, 0);
      assert.equal(typeof shown.warning, 'string');
      const facts = await overlayFacts(page);
      assert.equal(facts.rowCount, 2_000);
      assert.equal(facts.notices.length, 1);
      assert.ok(facts.notices[0].includes('2000'), facts.notices[0]);
      assert.ok(facts.header.includes('+2400') && facts.header.includes('\u22122400'), facts.header);
      const dom = await editorDomUnchanged(page);
      assert.equal(dom.sameChildren && dom.sameHeights, true, 'CodeMirror untouched by a large overlay');

      const applied = await editResult(h, tabId, 'PAGE_APPLY_EDIT', prepared(snap, changes, 'call-big', { reviewedDiff: true }));
      assert.equal(applied.ok, true);
      assert.equal(await fixtureText(page), after);
      assert.deepEqual(await overlayFacts(page), { layer: false, style: false });
      await page.close();
    });
  }
});
