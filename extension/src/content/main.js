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
 * the drawing of a proposed edit from inline-diff.js, and the "Add to agent"
 * buttons from quick-attach.js (started here with this file's readers).
 */
(function () {
  'use strict';
  const bridge = globalThis.__typstAgentBridgeProtocol;
  const constants = globalThis.__typstAgentProtocolConstants;
  const inlineDiff = globalThis.__typstAgentInlineDiff;
  if (!bridge || !constants?.LIMITS || !inlineDiff) return;
  const RUNTIME_VERSION = 15;
  const previousRuntime = window.__typstAgentMainRuntime;
  if (previousRuntime?.version === RUNTIME_VERSION) return;
  try { previousRuntime?.dispose?.(); } catch { /* an older runtime that cannot clean up */ }
  window.__typstAgentMainLoaded = true;

  const { TYPES } = bridge;
  const { LIMITS, ERRORS } = constants;
  const bridgeNonces = new Set();
  const cancelledRequests = new Map();
  let activeNonce = null;

  // ---------- CodeMirror ----------

  let cachedView = null;

  // CodeMirror 6 up to 6.38 puts its ContentView on `.cm-content` as `cmView`;
  // from 6.39 the tile tree sits there as `cmTile`. Either way the EditorView
  // is reached by walking `.view`/`.editorView` up through parents.
  function findEditorView() {
    if (cachedView?.dom?.isConnected && cachedView.state && cachedView.dispatch) return cachedView;
    cachedView = null;
    const element = document.querySelector('.cm-content') || document.querySelector('.cm-line');
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
  const editorTokens = new WeakMap();

  function editorToken(view) {
    let token = editorTokens.get(view);
    if (!token) {
      token = crypto.randomUUID();
      editorTokens.set(view, token);
    }
    return token;
  }

  // ---------- Workspace ----------

  function readWorkspace(includeProjectTree) {
    const extract = globalThis.__typstAgentWorkspaceExtract;
    if (typeof extract !== 'function') return null;
    try {
      const workspace = extract(document, { includeProjectTree });
      if (workspace == null) return null;
      if (bridge.jsonLength(workspace) <= LIMITS.MAX_PAGE_WORKSPACE_CHARS) return workspace;
      return { error: 'Workspace metadata was omitted because it exceeded the bridge limit.' };
    } catch (error) {
      return { error: String(error?.message || error).slice(0, LIMITS.MAX_WORKSPACE_ERROR_CHARS) };
    }
  }

  // ---------- PAGE_GET_CONTEXT ----------

  const clamp = (value, low, high) => Math.min(Math.max(value, low), high);

  // Lines `first..last` as "<number padded to the widest line number>|<text>",
  // joined by "\n", stopping before `maxChars` would be exceeded. A first line
  // that alone is too long is cut to `maxChars`.
  function numberedLines(doc, first, last, maxChars) {
    const width = String(doc.lines).length;
    const lines = [];
    let used = 0;
    let lastShown = first - 1;
    let truncated = false;
    for (let number = first; number <= last; number += 1) {
      const line = `${String(number).padStart(width, ' ')}|${doc.line(number).text}`;
      const separator = lines.length ? 1 : 0;
      if (used + separator + line.length > maxChars) {
        if (!lines.length) {
          lines.push(line.slice(0, maxChars));
          lastShown = number;
        }
        truncated = true;
        break;
      }
      lines.push(line);
      used += separator + line.length;
      lastShown = number;
    }
    return {
      text: lines.join('\n'),
      endLine: Math.max(first, lastShown),
      truncated,
      nextStartLine: truncated && lastShown < last ? lastShown + 1 : null
    };
  }

  function getContext(options) {
    const projection = options.projection || 'full';
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
      selectedText: state.sliceDoc(selection.from, Math.min(selection.to, selection.from + LIMITS.MAX_PAGE_SELECTION_CHARS)),
      selectionTruncated: selection.to - selection.from > LIMITS.MAX_PAGE_SELECTION_CHARS,
      selectionFrom: selection.from,
      selectionTo: selection.to,
      docLength: doc.length,
      lineCount: doc.lines,
      editorToken: editorToken(view),
      workspace
    };
    if (projection === 'numbered') {
      const startLine = clamp(options.startLine || 1, 1, doc.lines);
      const endLine = clamp(options.endLine || doc.lines, startLine, doc.lines);
      const maxChars = clamp(options.maxChars || LIMITS.DEFAULT_READ_DOC_CHARS, 1, LIMITS.MAX_CONTEXT_REQUEST_CHARS);
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
    return {
      ...common,
      fullText: state.sliceDoc(0, Math.min(doc.length, LIMITS.MAX_PAGE_DOCUMENT_CHARS)),
      truncated: doc.length > LIMITS.MAX_PAGE_DOCUMENT_CHARS
    };
  }

  // ---------- PAGE_GET_PREVIEW ----------

  function intersectsViewport(rect) {
    const width = window.innerWidth || 1200;
    const height = window.innerHeight || 800;
    return !(rect.bottom < 0 || rect.top > height || rect.right < 0 || rect.left > width);
  }

  // The largest visible image outside the editor, preferring one that names
  // the opened asset, then one labelled as a preview.
  function dominantImage(workspace) {
    const detailPath = String(workspace?.detail_path || '');
    const basename = detailPath.split(/[/\\]/).pop().toLowerCase();
    const stem = basename.replace(/\.(png|jpe?g|gif|webp|svg)$/i, '');
    let best = null;
    for (const image of document.querySelectorAll('img')) {
      if (image.closest('.cm-editor')) continue;
      const rect = image.getBoundingClientRect();
      const area = rect.width * rect.height;
      if (rect.width < 40 || rect.height < 40 || area < 12000 || !intersectsViewport(rect)) continue;
      let score = area;
      const described = `${image.currentSrc || image.src || ''} ${image.alt || ''}`.toLowerCase();
      if (basename && (described.includes(basename) || described.includes(stem))) score += 1e15;
      if (/image preview|preview/i.test(image.alt || '')) score += 1e12;
      if (!best || score > best.score) best = { image, score };
    }
    return best?.image || null;
  }

  // Whether the image is an opened asset rather than page decoration.
  function isAssetImage(image, workspace) {
    if (!image) return false;
    if (workspace?.preview_kind === 'binary_image_asset') return true;
    if (/^(PNG|JPEG|JPG|GIF|WebP|SVG)/i.test(String(workspace?.detail_format || '').trim())) return true;
    return /image preview|preview/i.test(image.alt || '');
  }

  // Draws the source onto a canvas no larger than 2048 px per side and encodes
  // WebP at falling qualities, shrinking until the data URL fits the bridge.
  function rasterize(source, width, height) {
    try {
      let scale = Math.min(1, 2048 / Math.max(width, height));
      for (let attempt = 0; attempt < 7; attempt += 1) {
        const canvas = document.createElement('canvas');
        canvas.width = Math.max(1, Math.floor(width * scale));
        canvas.height = Math.max(1, Math.floor(height * scale));
        canvas.getContext('2d').drawImage(source, 0, 0, width, height, 0, 0, canvas.width, canvas.height);
        for (const quality of [0.9, 0.78, 0.64]) {
          const dataUrl = canvas.toDataURL('image/webp', quality);
          if (dataUrl.length <= LIMITS.MAX_PREVIEW_DATA_URL_CHARS) {
            return { dataUrl, width: canvas.width, height: canvas.height, mimeType: 'image/webp' };
          }
        }
        scale *= 0.72;
      }
      return { error: 'Preview image exceeds the 2 MiB bridge limit after resizing.' };
    } catch (error) {
      // A cross-origin (tainted) source lands here with the browser's reason.
      return { error: String(error?.message || error).slice(0, LIMITS.MAX_PAGE_ERROR_CHARS) };
    }
  }

  function rasterizeImage(image) {
    let width = image.naturalWidth || image.width;
    let height = image.naturalHeight || image.height;
    if (!width || !height) {
      const rect = image.getBoundingClientRect();
      width = Math.max(1, Math.floor(rect.width));
      height = Math.max(1, Math.floor(rect.height));
    }
    return rasterize(image, width, height);
  }

  const rasterizeCanvas = canvas => rasterize(canvas, Math.max(1, Number(canvas.width) || 1), Math.max(1, Number(canvas.height) || 1));

  function getPreview(options) {
    if (options.preferTypstCanvas) {
      const canvas = document.querySelector('canvas');
      return canvas ? rasterizeCanvas(canvas) : { error: 'No Typst render canvas found' };
    }
    const workspace = readWorkspace(false);
    const image = dominantImage(workspace);
    if (options.preferAssetImage) {
      if (!image) return { error: 'No large preview image found. Open an image in the preview column first.' };
      return rasterizeImage(image);
    }
    if (isAssetImage(image, workspace)) {
      const captured = rasterizeImage(image);
      if (!captured.error) return captured;
    }
    const canvas = document.querySelector('canvas');
    if (!canvas) return { error: image ? 'Image raster failed and no canvas found' : 'No canvas found' };
    return rasterizeCanvas(canvas);
  }

  // ---------- PAGE_GET_DIAGNOSTICS ----------

  // CodeMirror's lint underlines: exact positions, but only the severity.
  function lintRanges(view) {
    const found = [];
    const seen = new Set();
    const marks = view.dom.querySelectorAll('.cm-lintRange, .cm-lintRange-error, .cm-lintRange-warning, .cm-lintRange-info, [class*="cm-lintRange"]');
    for (const mark of marks) {
      try {
        const position = view.posAtDOM(mark);
        if (position == null) continue;
        const className = String(mark.className);
        const severity = className.includes('error') ? 'error' : className.includes('warning') ? 'warning' : 'info';
        const line = view.state.doc.lineAt(position);
        const key = `${line.number}:${severity}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const near = view.state.sliceDoc(position, Math.min(position + 40, view.state.doc.length)).split('\n')[0];
        found.push({ severity, message: `${severity}: near "${near}"`, line: line.number, column: position - line.from + 1 });
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
      if (Array.isArray(rows)) return rows;
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
    const byLine = new Map();
    for (const row of rows) {
      if (!row || typeof row.line !== 'number') continue;
      if (!byLine.has(row.line)) byLine.set(row.line, []);
      byLine.get(row.line).push(row);
    }
    const used = new Set();
    const merged = [];
    for (const range of ranges) {
      const candidates = (byLine.get(range.line) || []).filter(row => row.kind !== 'spelling' && !used.has(row));
      const match = candidates.find(row => row.severity === range.severity) || candidates[0];
      if (!match) {
        merged.push(range);
        continue;
      }
      used.add(match);
      merged.push({
        severity: match.severity || range.severity,
        message: match.message || range.message,
        line: range.line,
        column: range.column ?? match.column ?? null,
        kind: match.kind || 'typst',
        original: match.original || null,
        suggestion: match.suggestion || null
      });
    }
    for (const row of rows) if (!used.has(row)) merged.push(row);
    const seen = new Set();
    return merged
      .filter(item => {
        const key = `${item.line}|${item.severity}|${String(item.message || '').slice(0, 160)}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .sort((a, b) => (a.line || 0) - (b.line || 0));
  }

  const countOrNull = value => (Number.isInteger(value) && value >= 0 ? value : null);
  const textOrNull = (value, max) => (value == null ? null : String(value).slice(0, max));

  function getDiagnostics() {
    const view = findEditorView();
    if (!view) return { diagnostics: [], error: 'EditorView not found' };
    const all = mergeDiagnostics(lintRanges(view), improveRows());
    const diagnostics = [];
    // Room for the envelope around the items.
    let budget = LIMITS.MAX_PAGE_DIAGNOSTICS_CHARS - 1000;
    for (const item of all) {
      if (diagnostics.length >= LIMITS.MAX_PAGE_DIAGNOSTICS) break;
      const bounded = {
        severity: String(item?.severity || 'info').slice(0, LIMITS.MAX_DIAGNOSTIC_SEVERITY_CHARS),
        message: String(item?.message || '').slice(0, LIMITS.MAX_DIAGNOSTIC_MESSAGE_CHARS),
        line: countOrNull(item?.line),
        column: countOrNull(item?.column),
        kind: String(item?.kind || 'typst').slice(0, LIMITS.MAX_DIAGNOSTIC_KIND_CHARS),
        original: textOrNull(item?.original, LIMITS.MAX_DIAGNOSTIC_TEXT_CHARS),
        suggestion: textOrNull(item?.suggestion, LIMITS.MAX_DIAGNOSTIC_TEXT_CHARS)
      };
      const length = bridge.jsonLength(bounded);
      if (length > budget) break;
      budget -= length;
      diagnostics.push(bounded);
    }
    return { diagnostics, totalCount: all.length, truncated: diagnostics.length < all.length };
  }

  // ---------- PAGE_GET_PROBE ----------

  function largestCanvasArea() {
    let largest = 0;
    for (const canvas of document.querySelectorAll('canvas')) {
      largest = Math.max(largest, (canvas.width || 0) * (canvas.height || 0));
    }
    return largest;
  }

  function ownText(element) {
    let text = '';
    for (const child of element.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) text += child.textContent;
    }
    return text.replace(/\s+/g, ' ').trim();
  }

  const IMPROVE_MARKER = /^(No\s+compiler\s+(errors?|warnings?)|No\s+spelling\s+mistakes|Misspellings|Compiler\s+(errors?|warnings?)|Improve)$/i;

  // The Improve panel shows one of its section labels in the left half.
  function improvePanelShown() {
    const cutoff = Math.max(360, (window.innerWidth || 1200) * 0.5);
    for (const element of document.querySelectorAll('span, div, p, h1, h2, h3, h4, button, strong, em, a, li')) {
      const text = ownText(element);
      if (!text || text.length > 40 || !IMPROVE_MARKER.test(text)) continue;
      const rect = element.getBoundingClientRect();
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


  // ---------- Guarded edits: validation ----------

  const DEFAULT_FILE_LABEL = 'Current Typst document';
  const FILE_NAME = /\.[a-z0-9][a-z0-9+_-]{0,31}$/i;

  // A clean project-relative file path or null, by the rules the worker
  // applies to the same workspace hints (protocol::active_file), so the label
  // the page compares is the label the worker computed.
  function projectFilePath(value) {
    if (typeof value !== 'string') return null;
    const path = value.trim().replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/^\/+/, '').replace(/\/{2,}/g, '/');
    if (!path || path.length > LIMITS.MAX_PROJECT_PATH_CHARS || /^[a-z][a-z0-9+.-]*:/i.test(path)) return null;
    const segments = path.split('/').map(segment => segment.trim());
    if (segments.some(segment => !segment || segment === '.' || segment === '..' || /[\0\r\n]/.test(segment))) return null;
    return FILE_NAME.test(segments[segments.length - 1]) ? segments.join('/') : null;
  }

  // The focused file as the worker names it: the breadcrumb's file, else the
  // focused-element hint, else the asset panel's path, else the default.
  function liveFileLabel() {
    try {
      const workspace = globalThis.__typstAgentWorkspaceExtract?.(document, { includeProjectTree: false });
      if (!workspace || typeof workspace !== 'object') return DEFAULT_FILE_LABEL;
      const active = workspace.active_editor_file;
      const candidates = [
        active && typeof active === 'object' ? active.relativePath : null,
        workspace.focused_element_file_hint,
        workspace.detail_path
      ];
      for (const candidate of candidates) {
        const path = projectFilePath(candidate);
        if (path) return path;
      }
    } catch {
      // An unreadable layout names no file.
    }
    return DEFAULT_FILE_LABEL;
  }

  const refuse = (code, error, staleReason) => (staleReason ? { ok: false, code, staleReason, error } : { ok: false, code, error });

  // Offsets that would cut a surrogate pair in half cannot come from a
  // correct proposal.
  function splitsCharacter(text, offset) {
    if (offset <= 0 || offset >= text.length) return false;
    const before = text.charCodeAt(offset - 1);
    const after = text.charCodeAt(offset);
    return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
  }

  // The editor must still show exactly what the change set was computed for:
  // the same file, the same EditorView, the same text. Checked in this order
  // so a switched file is reported as such (the worker may wait for it).
  function checkPreparedEdit(payload) {
    const view = findEditorView();
    if (!view) return { failure: refuse(ERRORS.EDITOR_UNAVAILABLE, 'No CodeMirror editor was found on the page.') };
    const { changes } = payload;
    if (!Array.isArray(changes) || changes.length === 0 || changes.length > LIMITS.MAX_PREPARED_CHANGES) {
      return { failure: refuse(ERRORS.INVALID_PREPARED_EDIT, `A prepared edit needs between 1 and ${LIMITS.MAX_PREPARED_CHANGES} changes.`) };
    }
    const expectedLabel = payload.expectedFileLabel;
    if (expectedLabel !== DEFAULT_FILE_LABEL && liveFileLabel() !== expectedLabel) {
      return { failure: refuse(ERRORS.STALE_EDIT_PREVIEW, 'Another file is open in the editor than the one this change was prepared for.', 'file') };
    }
    if (editorToken(view) !== payload.expectedEditorToken) {
      return { failure: refuse(ERRORS.STALE_EDIT_PREVIEW, 'The editor was replaced after this change was prepared.', 'editor') };
    }
    const text = view.state.doc.toString();
    if (text !== payload.expectedText) {
      return { failure: refuse(ERRORS.STALE_EDIT_PREVIEW, 'The document was modified after this change was prepared.', 'document') };
    }
    let previousTo = 0;
    let inserted = 0;
    const checked = [];
    for (let index = 0; index < changes.length; index += 1) {
      const { from, to, insert } = changes[index];
      const inRange = Number.isInteger(from) && Number.isInteger(to) && from >= previousTo && to >= from && to <= text.length
        && typeof insert === 'string' && !splitsCharacter(text, from) && !splitsCharacter(text, to);
      if (!inRange) {
        return { failure: refuse(ERRORS.INVALID_PREPARED_EDIT, `Change ${index + 1} is out of order, overlapping or outside the document.`) };
      }
      inserted += insert.length;
      if (inserted > LIMITS.MAX_PREPARED_INSERT_CHARS) {
        return { failure: refuse(ERRORS.INVALID_PREPARED_EDIT, 'The prepared edit inserts more text than one edit may.') };
      }
      previousTo = to;
      checked.push({ from, to, insert });
    }
    return { view, changes: checked };
  }

  // ---------- Guarded edits: the inline diff overlay (inline-diff.js) ----------

  const overlay = inlineDiff.create({
    findEditorView,
    editorToken,
    showsOtherFile: label => label !== DEFAULT_FILE_LABEL && liveFileLabel() !== label
  });

  const busy = () => refuse(ERRORS.EDIT_PREVIEW_BUSY, 'Another agent edit is being reviewed in this editor.');

  const boundedWarning = text => String(text).slice(0, LIMITS.MAX_EDIT_WARNING_CHARS);

  // ---------- PAGE_SHOW_EDIT_PREVIEW ----------

  function showEditPreview(payload, runId) {
    if (overlay.ownedByOther(runId, payload.callId)) return busy();
    const checked = checkPreparedEdit(payload);
    if (checked.failure) return checked.failure;
    overlay.clear(runId, payload.callId);
    const target = {
      runId,
      callId: payload.callId,
      view: checked.view,
      doc: checked.view.state.doc,
      editorToken: payload.expectedEditorToken,
      fileLabel: payload.expectedFileLabel,
      diff: payload.preview
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
      overlay.clear(runId, payload.callId);
      return { ok: true, shown: false, warning: boundedWarning(`The proposal could not be drawn over the editor: ${error?.message || error}`) };
    }
  }

  // ---------- PAGE_APPLY_EDIT ----------

  // One CodeMirror transaction with every change, in the coordinates of the
  // text that was checked, so the edit lands whole or not at all.
  function applyEdit(payload, runId) {
    if (overlay.ownedByOther(runId, payload.callId)) return busy();
    const checked = checkPreparedEdit(payload);
    if (checked.failure) return checked.failure;
    checked.view.dispatch({ changes: checked.changes });
    overlay.clear(runId, payload.callId);
    return { ok: true, edits_applied: checked.changes.length, reviewed_diff: payload.reviewedDiff === true };
  }

  // ---------- Quick attach (quick-attach.js) ----------

  // A page event for the isolated world, which turns it into the worker's
  // QUICK_ATTACH_* message. Before the handshake there is nobody to tell.
  function postBridgeEvent(type) {
    if (!activeNonce) return;
    window.postMessage(bridge.envelope(type, {}, {
      requestId: bridge.requestId('page-event'),
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
  else document.addEventListener('DOMContentLoaded', startQuickAttach, { once: true });

  // ---------- Bridge ----------

  function postResponse(request, result, error) {
    let failure = error;
    if (!failure && !bridge.validResponseData(request.type, result)) {
      failure = { code: ERRORS.INVALID_PAGE_RESPONSE, message: `${request.type} produced an invalid or oversized answer.` };
    }
    const payload = failure
      ? { ok: false, error: { code: failure.code || ERRORS.PAGE_REQUEST_FAILED, message: String(failure.message || failure).slice(0, LIMITS.MAX_PAGE_ERROR_CHARS) } }
      : { ok: true, data: result };
    window.postMessage(bridge.envelope(TYPES.RESPONSE, payload, {
      requestId: request.requestId,
      runId: request.runId,
      nonce: request.nonce
    }), '*');
  }

  function rememberNonce(nonce) {
    bridgeNonces.delete(nonce);
    bridgeNonces.add(nonce);
    while (bridgeNonces.size > constants.MAX_REMEMBERED_NONCES) {
      bridgeNonces.delete(bridgeNonces.values().next().value);
    }
    activeNonce = nonce;
  }

  function rememberCancelled(requestId) {
    clearTimeout(cancelledRequests.get(requestId));
    cancelledRequests.set(requestId, setTimeout(() => cancelledRequests.delete(requestId), constants.REQUEST_TIMEOUT_MS));
  }

  const HANDLERS = {
    [TYPES.PAGE_GET_PROBE]: () => getProbe(),
    [TYPES.PAGE_GET_CONTEXT]: payload => getContext(payload),
    [TYPES.PAGE_GET_DIAGNOSTICS]: () => getDiagnostics(),
    [TYPES.PAGE_GET_PREVIEW]: payload => getPreview(payload),
    [TYPES.PAGE_SHOW_EDIT_PREVIEW]: (payload, request) => ({ result: showEditPreview(payload, request.runId) }),
    [TYPES.PAGE_APPLY_EDIT]: (payload, request) => ({ result: applyEdit(payload, request.runId) }),
    [TYPES.PAGE_CLEAR_EDIT_PREVIEW]: (payload, request) => ({ result: overlay.clear(request.runId, payload.callId) })
  };

  function handleBridgeMessage(event) {
    const request = event.data;
    if (event.source !== window || !bridge.valid(request)) return;
    if (request.type === TYPES.PAGE_BRIDGE_INIT) {
      if (typeof request.nonce !== 'string' || typeof request.requestId !== 'string') return;
      rememberNonce(request.nonce);
      window.postMessage(bridge.envelope(TYPES.PAGE_BRIDGE_READY, {}, {
        requestId: request.requestId,
        nonce: request.nonce
      }), '*');
      return;
    }
    if (!bridgeNonces.has(request.nonce) || !bridge.PAGE_REQUESTS.has(request.type)) return;
    if (typeof request.requestId !== 'string') return;
    if (request.type === TYPES.PAGE_CANCEL_REQUEST) {
      rememberCancelled(request.payload.targetRequestId);
      postResponse(request, { cancelled: true });
      return;
    }
    if (cancelledRequests.has(request.requestId)) {
      clearTimeout(cancelledRequests.get(request.requestId));
      cancelledRequests.delete(request.requestId);
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

  window.addEventListener('message', handleBridgeMessage);

  const runtime = {
    version: RUNTIME_VERSION,
    dispose() {
      window.removeEventListener('message', handleBridgeMessage);
      window.removeEventListener('pagehide', handlePageHide);
      document.removeEventListener('DOMContentLoaded', startQuickAttach);
      quickAttach?.stop();
      quickAttach = null;
      overlay.clear();
      for (const timer of cancelledRequests.values()) clearTimeout(timer);
      cancelledRequests.clear();
      bridgeNonces.clear();
      activeNonce = null;
      cachedView = null;
      if (window.__typstAgentMainRuntime === runtime) delete window.__typstAgentMainRuntime;
      window.__typstAgentMainLoaded = false;
    }
  };
  function handlePageHide() { runtime.dispose(); }
  window.__typstAgentMainRuntime = runtime;
  window.addEventListener('pagehide', handlePageHide, { once: true });
})();
