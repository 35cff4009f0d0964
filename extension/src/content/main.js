/*
 * Main-world runtime on typst.app.
 *
 * CodeMirror's EditorView hangs off DOM expandos that only the page's own
 * JavaScript world can see, and typst.app's CSP may refuse WebAssembly, so
 * this part stays JavaScript: it reads raw facts from the page and CodeMirror
 * and answers nonce-authenticated requests from the isolated world. It makes
 * no decisions the worker can make; the worker interprets the answers in Rust.
 * It loads last of the main-world files: the bounds and codes come from
 * protocol-constants.js, the page facts from workspace.js and diagnostics.js,
 * the checks of a prepared edit from edit-guard.js, the drawing of a
 * proposed edit from inline-diff.js, and the "Add to agent"
 * buttons from quick-attach.js (started here with this file's readers).
 *
 * It runs in the main world, where typst.app's own scripts run too, so every
 * built-in it calls comes from builtins.js, captured before they ran.
 */
(function () {
  'use strict';
  const builtins = globalThis.__typstAgentBuiltins2;
  const bridge = globalThis.__typstAgentBridgeProtocol;
  const constants = globalThis.__typstAgentProtocolConstants;
  const inlineDiff = globalThis.__typstAgentInlineDiff;
  const editGuard = globalThis.__typstAgentEditGuard;
  if (!builtins || !bridge || !constants?.LIMITS || !inlineDiff || !editGuard) return;
  const RUNTIME_VERSION = 16;
  const previousRuntime = window.__typstAgentMainRuntime;
  if (previousRuntime?.version === RUNTIME_VERSION) return;
  try { previousRuntime?.dispose?.(); } catch { /* an older runtime that cannot clean up */ }
  window.__typstAgentMainLoaded = true;

  const { TYPES } = bridge;
  const { LIMITS, ERRORS } = constants;

  // ---------- Built-ins ----------

  // Taken from builtins.js, which captured them at document_start: a page
  // script that replaces a built-in later cannot change what this runtime
  // does (the rules of their use are in builtins.js).
  const {
    own, pattern, min, max, floor, isInteger, isArray, ToString, ToNumber, SafeMap, SafeSet, SafeWeakMap,
    randomUUID, TEXT_NODE, postMessage: postToWindow, setTimeout: later, clearTimeout: cancelLater
  } = builtins;
  const { slice, padStart, indexOf, lastIndexOf, toLowerCase, trim, includes: includesText } = builtins.string;
  const { push, join, filter, find, sort, splice, includes: arrayIncludes } = builtins.array;
  const { get: mapGet, set: mapSet, has: mapHas, delete: mapDelete, clear: mapClear, forEach: mapForEach } = builtins.map;
  const { has: setHas, add: setAdd } = builtins.set;
  const { get: weakGet, set: weakSet } = builtins.weakMap;
  const { test: regexpTest, replace: regexpReplace } = builtins.regexp;
  const { querySelector, querySelectorAll, createElement } = builtins.document;
  const { querySelectorAll: querySelectorAllIn, closest, getBoundingClientRect: boundingRect } = builtins.element;
  const { getContext: getContext2d, toDataURL } = builtins.canvas;
  const { drawImage } = builtins;
  const { addEventListener: addListener, removeEventListener: removeListener } = builtins.events;
  const { jsonLength, valid, envelope, validResponseData, requestId: newRequestId, PAGE_REQUESTS } = bridge;

  const bridgeNonces = [];
  const cancelledRequests = new SafeMap();
  let activeNonce = null;

  // ---------- CodeMirror ----------

  let cachedView = null;

  // CodeMirror 6 up to 6.38 puts its ContentView on `.cm-content` as `cmView`;
  // from 6.39 the tile tree sits there as `cmTile`. Either way the EditorView
  // is reached by walking `.view`/`.editorView` up through parents.
  function findEditorView() {
    if (cachedView?.dom?.isConnected && cachedView.state && cachedView.dispatch) return cachedView;
    cachedView = null;
    const element = querySelector(document, '.cm-content') || querySelector(document, '.cm-line');
    let node = element && (element.cmView || element.cmTile);
    for (let depth = 0; node && depth < 64; depth += 1) {
      const view = node.editorView || node.view;
      if (view && view.state && typeof view.dispatch === 'function') {
        cachedView = view;
        return view;
      }
      node = node.parent;
    }
    return null;
  }

  // One random token per EditorView object: a replaced view (another file was
  // opened) gets a new token, so a prepared edit can tell it is stale.
  const editorTokens = new SafeWeakMap();

  // The token `map` holds for `object`, made (random) on the first ask.
  function tokenIn(map, object) {
    let token = weakGet(map, object);
    if (!token) {
      token = randomUUID();
      weakSet(map, object, token);
    }
    return token;
  }

  function editorToken(view) {
    return tokenIn(editorTokens, view);
  }

  // One random token per document object (CodeMirror's `Text` is immutable:
  // every change makes a new one), given out with each `edit` read. A
  // preview that names it instead of the whole text passes the guard only
  // while the editor holds that very object, so the 600 KB text of a large
  // document does not travel back to be compared.
  const documentTokens = new SafeWeakMap();

  function documentToken(doc) {
    return tokenIn(documentTokens, doc);
  }

  const documentTokenOf = doc => weakGet(documentTokens, doc);

  // ---------- Workspace ----------

  function readWorkspace(includeProjectTree) {
    const extract = globalThis.__typstAgentWorkspaceExtract;
    if (typeof extract !== 'function') return null;
    try {
      const workspace = extract(document, { includeProjectTree });
      if (workspace == null) return null;
      if (jsonLength(workspace) <= LIMITS.MAX_PAGE_WORKSPACE_CHARS) return workspace;
      return { error: 'Workspace metadata was omitted because it exceeded the bridge limit.' };
    } catch (error) {
      return { error: slice(ToString(error?.message || error), 0, LIMITS.MAX_WORKSPACE_ERROR_CHARS) };
    }
  }

  // ---------- PAGE_GET_CONTEXT ----------

  const clamp = (value, low, high) => min(max(value, low), high);

  // Lines `first..last` as "<number padded to the widest line number>|<text>",
  // joined by "\n", stopping before `maxChars` would be exceeded. A first line
  // that alone is too long is cut to `maxChars`.
  function numberedLines(doc, first, last, maxChars) {
    const width = ToString(doc.lines).length;
    const lines = [];
    let used = 0;
    let lastShown = first - 1;
    let truncated = false;
    for (let number = first; number <= last; number += 1) {
      const line = `${padStart(ToString(number), width, ' ')}|${doc.line(number).text}`;
      const separator = lines.length ? 1 : 0;
      if (used + separator + line.length > maxChars) {
        if (!lines.length) {
          push(lines, slice(line, 0, maxChars));
          lastShown = number;
        }
        truncated = true;
        break;
      }
      push(lines, line);
      used += separator + line.length;
      lastShown = number;
    }
    return {
      text: join(lines, '\n'),
      endLine: max(first, lastShown),
      truncated,
      nextStartLine: truncated && lastShown < last ? lastShown + 1 : null
    };
  }

  function getContext(options) {
    const projection = own(options, 'projection') || 'full';
    const workspace = readWorkspace(projection === 'identity');
    if (projection === 'identity') return { workspace };
    const view = findEditorView();
    if (!view) return { error: 'EditorView not found', workspace };
    const { state } = view;
    const { doc } = state;
    const selection = state.selection.main;
    const headLine = doc.lineAt(selection.head);
    const common = {
      cursorPos: selection.head,
      cursorLine: headLine.number,
      cursorColumn: selection.head - headLine.from + 1,
      selectedText: state.sliceDoc(selection.from, min(selection.to, selection.from + LIMITS.MAX_PAGE_SELECTION_CHARS)),
      selectionTruncated: selection.to - selection.from > LIMITS.MAX_PAGE_SELECTION_CHARS,
      selectionFrom: selection.from,
      selectionTo: selection.to,
      docLength: doc.length,
      lineCount: doc.lines,
      editorToken: editorToken(view),
      workspace
    };
    if (projection === 'numbered') {
      const startLine = clamp(own(options, 'startLine') || 1, 1, doc.lines);
      const endLine = clamp(own(options, 'endLine') || doc.lines, startLine, doc.lines);
      const maxChars = clamp(own(options, 'maxChars') || LIMITS.DEFAULT_READ_DOC_CHARS, 1, LIMITS.MAX_CONTEXT_REQUEST_CHARS);
      const range = numberedLines(doc, startLine, endLine, maxChars);
      const answer = { ...common, numberedDocument: range.text, startLine, endLine: range.endLine, truncated: range.truncated };
      if (range.nextStartLine != null) answer.nextStartLine = range.nextStartLine;
      return answer;
    }
    if (projection === 'edit' && doc.length > LIMITS.MAX_PAGE_DOCUMENT_CHARS) {
      return {
        error: `The document exceeds the ${LIMITS.MAX_PAGE_DOCUMENT_CHARS}-character safe edit limit.`,
        docLength: doc.length,
        lineCount: doc.lines
      };
    }
    if (projection === 'edit') {
      const token = documentToken(doc);
      // The worker named the token of the text it already holds: while the
      // editor holds that very (immutable) document object, the text is not
      // sent again.
      if (own(options, 'knownDocumentToken') === token) return { ...common, truncated: false, documentToken: token };
      return { ...common, fullText: state.sliceDoc(0, doc.length), truncated: false, documentToken: token };
    }
    return {
      ...common,
      fullText: state.sliceDoc(0, min(doc.length, LIMITS.MAX_PAGE_DOCUMENT_CHARS)),
      truncated: doc.length > LIMITS.MAX_PAGE_DOCUMENT_CHARS
    };
  }

  // ---------- PAGE_GET_PREVIEW ----------

  function intersectsViewport(rect) {
    const width = window.innerWidth || 1200;
    const height = window.innerHeight || 800;
    return !(rect.bottom < 0 || rect.top > height || rect.right < 0 || rect.left > width);
  }

  const IMAGE_EXTENSION = pattern(/\.(png|jpe?g|gif|webp|svg)$/i);
  const PREVIEW_ALT = pattern(/image preview|preview/i);
  const IMAGE_FORMAT = pattern(/^(PNG|JPEG|JPG|GIF|WebP|SVG)/i);

  // The last segment of a path with `/` or `\` separators.
  function basenameOf(path) {
    return slice(path, max(lastIndexOf(path, '/'), lastIndexOf(path, '\\')) + 1);
  }

  // The largest visible image outside the editor, preferring one that names
  // the opened asset, then one labelled as a preview.
  function dominantImage(workspace) {
    const detailPath = ToString(workspace?.detail_path || '');
    const basename = toLowerCase(basenameOf(detailPath));
    const stem = regexpReplace(IMAGE_EXTENSION, basename, '');
    let best = null;
    const images = querySelectorAll(document, 'img');
    for (let index = 0; index < images.length; index += 1) {
      const image = images[index];
      if (closest(image, '.cm-editor')) continue;
      const rect = boundingRect(image);
      const area = rect.width * rect.height;
      if (rect.width < 40 || rect.height < 40 || area < 12000 || !intersectsViewport(rect)) continue;
      let score = area;
      const described = toLowerCase(`${image.currentSrc || image.src || ''} ${image.alt || ''}`);
      if (basename && (includesText(described, basename) || includesText(described, stem))) score += 1e15;
      if (regexpTest(PREVIEW_ALT, image.alt || '')) score += 1e12;
      if (!best || score > best.score) best = { image, score };
    }
    return best?.image || null;
  }

  // Whether the image is an opened asset rather than page decoration.
  function isAssetImage(image, workspace) {
    if (!image) return false;
    if (workspace?.preview_kind === 'binary_image_asset') return true;
    if (regexpTest(IMAGE_FORMAT, trim(ToString(workspace?.detail_format || '')))) return true;
    return regexpTest(PREVIEW_ALT, image.alt || '');
  }

  // Draws the source onto a canvas no larger than 2048 px per side and encodes
  // WebP at falling qualities, shrinking until the data URL fits the bridge.
  function rasterize(source, width, height) {
    try {
      let scale = min(1, 2048 / max(width, height));
      const qualities = [0.9, 0.78, 0.64];
      for (let attempt = 0; attempt < 7; attempt += 1) {
        const canvas = createElement(document, 'canvas');
        canvas.width = max(1, floor(width * scale));
        canvas.height = max(1, floor(height * scale));
        drawImage(getContext2d(canvas, '2d'), source, 0, 0, width, height, 0, 0, canvas.width, canvas.height);
        for (let index = 0; index < qualities.length; index += 1) {
          const dataUrl = toDataURL(canvas, 'image/webp', qualities[index]);
          if (dataUrl.length <= LIMITS.MAX_PREVIEW_DATA_URL_CHARS) {
            return { dataUrl, width: canvas.width, height: canvas.height, mimeType: 'image/webp' };
          }
        }
        scale *= 0.72;
      }
      return { error: 'Preview image exceeds the 2 MiB bridge limit after resizing.' };
    } catch (error) {
      // A cross-origin (tainted) source lands here with the browser's reason.
      return { error: slice(ToString(error?.message || error), 0, LIMITS.MAX_PAGE_ERROR_CHARS) };
    }
  }

  function rasterizeImage(image) {
    let width = image.naturalWidth || image.width;
    let height = image.naturalHeight || image.height;
    if (!width || !height) {
      const rect = boundingRect(image);
      width = max(1, floor(rect.width));
      height = max(1, floor(rect.height));
    }
    return rasterize(image, width, height);
  }

  const rasterizeCanvas = canvas => rasterize(canvas, max(1, ToNumber(canvas.width) || 1), max(1, ToNumber(canvas.height) || 1));

  function getPreview(options) {
    if (own(options, 'preferTypstCanvas')) {
      const canvas = querySelector(document, 'canvas');
      return canvas ? rasterizeCanvas(canvas) : { error: 'No Typst render canvas found' };
    }
    const workspace = readWorkspace(false);
    const image = dominantImage(workspace);
    if (own(options, 'preferAssetImage')) {
      if (!image) return { error: 'No large preview image found. Open an image in the preview column first.' };
      return rasterizeImage(image);
    }
    if (isAssetImage(image, workspace)) {
      const captured = rasterizeImage(image);
      if (!captured.error) return captured;
    }
    const canvas = querySelector(document, 'canvas');
    if (!canvas) return { error: image ? 'Image raster failed and no canvas found' : 'No canvas found' };
    return rasterizeCanvas(canvas);
  }

  // ---------- PAGE_GET_DIAGNOSTICS ----------

  // The text before the first line break.
  function firstLine(text) {
    const end = indexOf(text, '\n');
    return end < 0 ? text : slice(text, 0, end);
  }

  // CodeMirror's lint underlines: exact positions, but only the severity.
  function lintRanges(view) {
    const found = [];
    const seen = new SafeSet();
    const marks = querySelectorAllIn(view.dom, '.cm-lintRange, .cm-lintRange-error, .cm-lintRange-warning, .cm-lintRange-info, [class*="cm-lintRange"]');
    for (let index = 0; index < marks.length; index += 1) {
      const mark = marks[index];
      try {
        const position = view.posAtDOM(mark);
        if (position == null) continue;
        const className = ToString(mark.className);
        const severity = includesText(className, 'error') ? 'error' : includesText(className, 'warning') ? 'warning' : 'info';
        const line = view.state.doc.lineAt(position);
        const key = `${line.number}:${severity}`;
        if (setHas(seen, key)) continue;
        setAdd(seen, key);
        const near = firstLine(view.state.sliceDoc(position, min(position + 40, view.state.doc.length)));
        push(found, { severity, message: `${severity}: near "${near}"`, line: line.number, column: position - line.from + 1 });
      } catch {
        // A mark that left the document while we read it.
      }
    }
    return found;
  }

  // The Improve panel's rows. A missing or failing parser must not read as a
  // clean document, so it becomes a status row.
  function improveRows() {
    try {
      const rows = globalThis.__typstAgentImproveExtract?.(document);
      if (isArray(rows)) return rows;
    } catch {
      // Reported as a status row below.
    }
    return [{
      severity: 'warning',
      message: 'The Improve panel parser is unavailable. Reload the Typst tab and read diagnostics again.',
      line: null,
      column: null,
      kind: 'typst-status',
      original: null,
      suggestion: null
    }];
  }

  // Each lint range takes the text of an unused Improve compiler row on the
  // same line (same severity first) and keeps its own column. Spelling rows
  // never replace a compiler underline; unpaired Improve rows follow.
  function mergeDiagnostics(ranges, rows) {
    const byLine = new SafeMap();
    for (let index = 0; index < rows.length; index += 1) {
      const row = rows[index];
      if (!row || typeof row.line !== 'number') continue;
      if (!mapHas(byLine, row.line)) mapSet(byLine, row.line, []);
      push(mapGet(byLine, row.line), row);
    }
    const used = new SafeSet();
    const merged = [];
    for (let index = 0; index < ranges.length; index += 1) {
      const range = ranges[index];
      const candidates = filter(mapGet(byLine, range.line) || [], row => row.kind !== 'spelling' && !setHas(used, row));
      const match = find(candidates, row => row.severity === range.severity) || candidates[0];
      if (!match) {
        push(merged, range);
        continue;
      }
      setAdd(used, match);
      push(merged, {
        severity: match.severity || range.severity,
        message: match.message || range.message,
        line: range.line,
        column: range.column ?? match.column ?? null,
        kind: match.kind || 'typst',
        original: match.original || null,
        suggestion: match.suggestion || null
      });
    }
    for (let index = 0; index < rows.length; index += 1) {
      if (!setHas(used, rows[index])) push(merged, rows[index]);
    }
    const seen = new SafeSet();
    const unique = filter(merged, item => {
      const key = `${item.line}|${item.severity}|${slice(ToString(item.message || ''), 0, 160)}`;
      if (setHas(seen, key)) return false;
      setAdd(seen, key);
      return true;
    });
    return sort(unique, (a, b) => (a.line || 0) - (b.line || 0));
  }

  const countOrNull = value => (isInteger(value) && value >= 0 ? value : null);
  const textOrNull = (value, limit) => (value == null ? null : slice(ToString(value), 0, limit));

  function getDiagnostics() {
    const view = findEditorView();
    if (!view) return { diagnostics: [], error: 'EditorView not found' };
    const all = mergeDiagnostics(lintRanges(view), improveRows());
    const diagnostics = [];
    // Room for the envelope around the items.
    let budget = LIMITS.MAX_PAGE_DIAGNOSTICS_CHARS - 1000;
    for (let index = 0; index < all.length; index += 1) {
      const item = all[index];
      if (diagnostics.length >= LIMITS.MAX_PAGE_DIAGNOSTICS) break;
      const bounded = {
        severity: slice(ToString(item?.severity || 'info'), 0, LIMITS.MAX_DIAGNOSTIC_SEVERITY_CHARS),
        message: slice(ToString(item?.message || ''), 0, LIMITS.MAX_DIAGNOSTIC_MESSAGE_CHARS),
        line: countOrNull(item?.line),
        column: countOrNull(item?.column),
        kind: slice(ToString(item?.kind || 'typst'), 0, LIMITS.MAX_DIAGNOSTIC_KIND_CHARS),
        original: textOrNull(item?.original, LIMITS.MAX_DIAGNOSTIC_TEXT_CHARS),
        suggestion: textOrNull(item?.suggestion, LIMITS.MAX_DIAGNOSTIC_TEXT_CHARS)
      };
      const length = jsonLength(bounded);
      if (length > budget) break;
      budget -= length;
      push(diagnostics, bounded);
    }
    return { diagnostics, totalCount: all.length, truncated: diagnostics.length < all.length };
  }

  // ---------- PAGE_GET_PROBE ----------

  function largestCanvasArea() {
    let largest = 0;
    const canvases = querySelectorAll(document, 'canvas');
    for (let index = 0; index < canvases.length; index += 1) {
      largest = max(largest, (canvases[index].width || 0) * (canvases[index].height || 0));
    }
    return largest;
  }

  function ownText(element) {
    let text = '';
    const children = element.childNodes;
    for (let index = 0; index < children.length; index += 1) {
      if (children[index].nodeType === TEXT_NODE) text += children[index].textContent;
    }
    return trim(regexpReplace(WHITESPACE_RUN, text, ' '));
  }

  const WHITESPACE_RUN = pattern(/\s+/g);
  const IMPROVE_MARKER = pattern(/^(No\s+compiler\s+(errors?|warnings?)|No\s+spelling\s+mistakes|Misspellings|Compiler\s+(errors?|warnings?)|Improve)$/i);

  // The Improve panel shows one of its section labels in the left half.
  function improvePanelShown() {
    const cutoff = max(360, (window.innerWidth || 1200) * 0.5);
    const elements = querySelectorAll(document, 'span, div, p, h1, h2, h3, h4, button, strong, em, a, li');
    for (let index = 0; index < elements.length; index += 1) {
      const element = elements[index];
      const text = ownText(element);
      if (!text || text.length > 40 || !regexpTest(IMPROVE_MARKER, text)) continue;
      const rect = boundingRect(element);
      if ((rect.width > 0 || rect.height > 0) && rect.left <= cutoff) return true;
    }
    return false;
  }

  function getProbe() {
    const view = findEditorView();
    let previewImage = false;
    try {
      const workspace = readWorkspace(false);
      previewImage = isAssetImage(dominantImage(workspace), workspace);
    } catch {
      // No image can be offered then.
    }
    return {
      editor: Boolean(view),
      selection: Boolean(view && !view.state.selection.main.empty),
      typstCanvas: largestCanvasArea() > 20000,
      previewImage,
      improvePanel: improvePanelShown()
    };
  }


  // ---------- Guarded edits: validation (edit-guard.js) ----------

  const { checkPreparedEdit, showsOtherFile, refuse } = editGuard.create({ findEditorView, editorToken, documentTokenOf });

  // ---------- Guarded edits: the inline diff overlay (inline-diff.js) ----------

  const overlay = inlineDiff.create({
    findEditorView,
    editorToken,
    showsOtherFile
  });

  const busy = () => refuse(ERRORS.EDIT_PREVIEW_BUSY, 'Another agent edit is being reviewed in this editor.');

  const boundedWarning = text => slice(ToString(text), 0, LIMITS.MAX_EDIT_WARNING_CHARS);

  // ---------- PAGE_SHOW_EDIT_PREVIEW ----------

  function showEditPreview(payload, runId) {
    const callId = own(payload, 'callId');
    if (overlay.ownedByOther(runId, callId)) return busy();
    const checked = checkPreparedEdit(payload);
    if (checked.failure) return checked.failure;
    overlay.clear(runId, callId);
    const target = {
      runId,
      callId,
      view: checked.view,
      doc: checked.view.state.doc,
      editorToken: own(payload, 'expectedEditorToken'),
      fileLabel: own(payload, 'expectedFileLabel'),
      diff: own(payload, 'preview')
    };
    try {
      const status = overlay.show(target);
      let warning;
      if (!status.shown) warning = 'No changed row could be drawn over the editor. Review the proposal in the side panel.';
      else if (status.truncated) warning = 'The editor shows only part of this proposal. Review all of it in the side panel.';
      return {
        ok: true,
        shown: status.shown,
        presentation: 'editor-diff-surface',
        changes_previewed: checked.changes.length,
        additions_rendered: status.additions,
        deletions_rendered: status.deletions,
        truncated: status.truncated,
        ...(warning ? { warning } : {})
      };
    } catch (error) {
      overlay.clear(runId, callId);
      return { ok: true, shown: false, warning: boundedWarning(`The proposal could not be drawn over the editor: ${error?.message || error}`) };
    }
  }

  // ---------- PAGE_APPLY_EDIT ----------

  // One CodeMirror transaction with every change, in the coordinates of the
  // text that was checked, so the edit lands whole or not at all.
  function applyEdit(payload, runId) {
    const callId = own(payload, 'callId');
    if (overlay.ownedByOther(runId, callId)) return busy();
    const checked = checkPreparedEdit(payload);
    if (checked.failure) return checked.failure;
    checked.view.dispatch({ changes: checked.changes });
    overlay.clear(runId, callId);
    return { ok: true, edits_applied: checked.changes.length, reviewed_diff: own(payload, 'reviewedDiff') === true };
  }

  // ---------- Quick attach (quick-attach.js) ----------

  // A page event for the isolated world, which turns it into the worker's
  // QUICK_ATTACH_* message. Before the handshake there is nobody to tell.
  function postBridgeEvent(type) {
    if (!activeNonce) return;
    postToWindow(envelope(type, {}, {
      requestId: newRequestId('page-event'),
      nonce: activeNonce
    }), '*');
  }

  // The image the image button offers: the opened asset, as GET_PREVIEW
  // without preferences would capture it.
  function findOpenedImage() {
    const workspace = readWorkspace(false);
    const image = dominantImage(workspace);
    return isAssetImage(image, workspace) ? image : null;
  }

  let quickAttach = null;
  function startQuickAttach() {
    const factory = globalThis.__typstAgentQuickAttach;
    if (!factory || quickAttach || !document.body) return;
    quickAttach = factory.create({
      findEditorView,
      findOpenedImage,
      minIntervalMs: constants.QUICK_ATTACH_MIN_INTERVAL_MS,
      post: kind => postBridgeEvent(kind === 'selection' ? TYPES.PAGE_QUICK_SELECTION : TYPES.PAGE_QUICK_IMAGE_PREVIEW)
    });
  }
  if (document.body) startQuickAttach();
  else addListener(document, 'DOMContentLoaded', startQuickAttach, { once: true });

  // ---------- Bridge ----------

  function postResponse(request, result, error) {
    let failure = error;
    if (!failure && !validResponseData(request.type, result)) {
      failure = { code: ERRORS.INVALID_PAGE_RESPONSE, message: `${request.type} produced an invalid or oversized answer.` };
    }
    const payload = failure
      ? { ok: false, error: { code: failure.code || ERRORS.PAGE_REQUEST_FAILED, message: slice(ToString(failure.message || failure), 0, LIMITS.MAX_PAGE_ERROR_CHARS) } }
      : { ok: true, data: result };
    postToWindow(envelope(TYPES.RESPONSE, payload, {
      requestId: request.requestId,
      runId: request.runId,
      nonce: request.nonce
    }), '*');
  }

  // The newest nonces, oldest first.
  function rememberNonce(nonce) {
    for (let index = bridgeNonces.length - 1; index >= 0; index -= 1) {
      if (bridgeNonces[index] === nonce) splice(bridgeNonces, index, 1);
    }
    push(bridgeNonces, nonce);
    if (bridgeNonces.length > constants.MAX_REMEMBERED_NONCES) {
      splice(bridgeNonces, 0, bridgeNonces.length - constants.MAX_REMEMBERED_NONCES);
    }
    activeNonce = nonce;
  }

  function rememberCancelled(requestId) {
    cancelLater(mapGet(cancelledRequests, requestId));
    mapSet(cancelledRequests, requestId, later(() => mapDelete(cancelledRequests, requestId), constants.REQUEST_TIMEOUT_MS));
  }

  // No prototype: a type the page adds to Object.prototype is no handler.
  const HANDLERS = {
    __proto__: null,
    [TYPES.PAGE_GET_PROBE]: () => getProbe(),
    [TYPES.PAGE_GET_CONTEXT]: payload => getContext(payload),
    [TYPES.PAGE_GET_DIAGNOSTICS]: () => getDiagnostics(),
    [TYPES.PAGE_GET_PREVIEW]: payload => getPreview(payload),
    [TYPES.PAGE_SHOW_EDIT_PREVIEW]: (payload, request) => ({ result: showEditPreview(payload, request.runId) }),
    [TYPES.PAGE_APPLY_EDIT]: (payload, request) => ({ result: applyEdit(payload, request.runId) }),
    [TYPES.PAGE_CLEAR_EDIT_PREVIEW]: (payload, request) => ({ result: overlay.clear(request.runId, own(payload, 'callId')) })
  };

  function handleBridgeMessage(event) {
    const request = event.data;
    if (event.source !== window || !valid(request)) return;
    if (request.type === TYPES.PAGE_BRIDGE_INIT) {
      if (typeof request.nonce !== 'string' || typeof request.requestId !== 'string') return;
      rememberNonce(request.nonce);
      postToWindow(envelope(TYPES.PAGE_BRIDGE_READY, {}, {
        requestId: request.requestId,
        nonce: request.nonce
      }), '*');
      return;
    }
    if (!arrayIncludes(bridgeNonces, request.nonce) || !setHas(PAGE_REQUESTS, request.type)) return;
    if (typeof request.requestId !== 'string') return;
    if (request.type === TYPES.PAGE_CANCEL_REQUEST) {
      rememberCancelled(own(request.payload, 'targetRequestId'));
      postResponse(request, { cancelled: true });
      return;
    }
    if (mapHas(cancelledRequests, request.requestId)) {
      cancelLater(mapGet(cancelledRequests, request.requestId));
      mapDelete(cancelledRequests, request.requestId);
      postResponse(request, null, { code: ERRORS.CANCELLED, message: 'The page request was cancelled before it ran.' });
      return;
    }
    const handler = HANDLERS[request.type];
    if (!handler) {
      postResponse(request, null, { code: ERRORS.UNSUPPORTED_PAGE_REQUEST, message: `${request.type} is not served by this page runtime.` });
      return;
    }
    try {
      postResponse(request, handler(request.payload, request));
    } catch (error) {
      postResponse(request, null, error);
    }
  }

  addListener(window, 'message', handleBridgeMessage);

  const runtime = {
    version: RUNTIME_VERSION,
    dispose() {
      removeListener(window, 'message', handleBridgeMessage);
      removeListener(window, 'pagehide', handlePageHide);
      removeListener(document, 'DOMContentLoaded', startQuickAttach);
      quickAttach?.stop();
      quickAttach = null;
      overlay.clear();
      mapForEach(cancelledRequests, timer => cancelLater(timer));
      mapClear(cancelledRequests);
      splice(bridgeNonces, 0, bridgeNonces.length);
      activeNonce = null;
      cachedView = null;
      if (window.__typstAgentMainRuntime === runtime) delete window.__typstAgentMainRuntime;
      window.__typstAgentMainLoaded = false;
    }
  };
  function handlePageHide() { runtime.dispose(); }
  window.__typstAgentMainRuntime = runtime;
  addListener(window, 'pagehide', handlePageHide, { once: true });
})();
