/*
 * The guard of a prepared edit (main world).
 *
 * Before PAGE_SHOW_EDIT_PREVIEW draws a proposal and before PAGE_APPLY_EDIT
 * writes it, the editor must still show exactly what the worker computed
 * the change set for: the same file, the same EditorView, the same text, and
 * the changes must fit that text. A preview may name its text by the token
 * main.js gave the document object of the `edit` read instead of sending
 * the text back: it passes only while the editor holds that very object
 * (CodeMirror's documents are immutable; every change makes a new one, so
 * the text is then the one read), and is stale otherwise, even for an
 * equal text (the worker then sends the whole text). A file the page cannot name fails closed
 * (EDIT_FILE_UNKNOWN): two unidentified files carry the same default label,
 * so comparing labels could not tell them apart. The worker checks the same
 * before it asks (protocol::active_file::is_identified_file_label).
 *
 * Exposes globalThis.__typstAgentEditGuard.create(editor) →
 * {checkPreparedEdit, showsOtherFile, refuse}; main.js passes the editor
 * lookups it owns: findEditorView(), editorToken(view) and
 * documentTokenOf(doc) (the token given out for `doc`, if any). Every built-in
 * comes from builtins.js (captured at document_start).
 */
(function (root) {
  'use strict';
  const builtins = root.__typstAgentBuiltins2;
  const constants = root.__typstAgentProtocolConstants;
  if (!builtins || !constants?.LIMITS) return;
  const VERSION = 2;
  if (root.__typstAgentEditGuard?.version === VERSION) return;
  const { LIMITS, ERRORS } = constants;
  const { own, pattern, isInteger, isArray, freeze } = builtins;
  const { slice, indexOf, trim, charCodeAt } = builtins.string;
  const { push, join } = builtins.array;
  const { test: regexpTest, replace: regexpReplace } = builtins.regexp;

  // The label the worker sends when the page named no file
  // (protocol::active_file). Two unidentified files share it, so it never
  // passes the file guard: an edit needs a named file on both sides.
  const DEFAULT_FILE_LABEL = constants.DEFAULT_FILE_LABEL;
  const FILE_NAME = pattern(/\.[a-z0-9][a-z0-9+_-]{0,31}$/i);
  const URL_SCHEME = pattern(/^[a-z][a-z0-9+.-]*:/i);
  const LINE_BREAK_OR_NUL = pattern(/[\0\r\n]/);
  const BACKSLASHES = pattern(/\\/g);
  const LEADING_DOT_SLASHES = pattern(/^\.\/+/);
  const LEADING_SLASHES = pattern(/^\/+/);
  const SLASH_RUNS = pattern(/\/{2,}/g);

  // `text` cut at every `separator` (a plain string, never a pattern).
  function splitOn(text, separator) {
    const parts = [];
    let from = 0;
    for (let at = indexOf(text, separator); at >= 0; at = indexOf(text, separator, from)) {
      push(parts, slice(text, from, at));
      from = at + separator.length;
    }
    push(parts, slice(text, from));
    return parts;
  }

  // A clean project-relative file path or null, by the rules the worker
  // applies to the same workspace hints (protocol::active_file), so the label
  // the page compares is the label the worker computed.
  function projectFilePath(value) {
    if (typeof value !== 'string') return null;
    let path = regexpReplace(BACKSLASHES, trim(value), '/');
    path = regexpReplace(SLASH_RUNS, regexpReplace(LEADING_SLASHES, regexpReplace(LEADING_DOT_SLASHES, path, ''), ''), '/');
    if (!path || path.length > LIMITS.MAX_PROJECT_PATH_CHARS || regexpTest(URL_SCHEME, path)) return null;
    const segments = splitOn(path, '/');
    for (let index = 0; index < segments.length; index += 1) {
      const segment = trim(segments[index]);
      if (!segment || segment === '.' || segment === '..' || regexpTest(LINE_BREAK_OR_NUL, segment)) return null;
      segments[index] = segment;
    }
    return regexpTest(FILE_NAME, segments[segments.length - 1]) ? join(segments, '/') : null;
  }

  // The focused file as the worker names it: the breadcrumb's file, else the
  // focused-element hint, else the asset panel's path; null when the page
  // names none.
  function liveFileLabel() {
    try {
      const workspace = globalThis.__typstAgentWorkspaceExtract?.(document, { includeProjectTree: false });
      if (!workspace || typeof workspace !== 'object') return null;
      const active = workspace.active_editor_file;
      const candidates = [
        active && typeof active === 'object' ? active.relativePath : null,
        workspace.focused_element_file_hint,
        workspace.detail_path
      ];
      for (let index = 0; index < candidates.length; index += 1) {
        const path = projectFilePath(candidates[index]);
        if (path) return path;
      }
    } catch {
      // An unreadable layout names no file.
    }
    return null;
  }

  const identified = label => typeof label === 'string' && trim(label) !== '' && label !== DEFAULT_FILE_LABEL;

  // Whether the editor shows another file than `label`, or one the page
  // cannot name (which may be another file just as well).
  const showsOtherFile = label => !identified(label) || liveFileLabel() !== label;

  const refuse = (code, error, staleReason) => (staleReason ? { ok: false, code, staleReason, error } : { ok: false, code, error });

  // Offsets that would cut a surrogate pair in half cannot come from a
  // correct proposal. `around(offset)` is the text's two units around it.
  function splitsCharacter(around, length, offset) {
    if (offset <= 0 || offset >= length) return false;
    const pair = around(offset);
    const before = charCodeAt(pair, 0);
    const after = charCodeAt(pair, 1);
    return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
  }

  // The file guard: both the change set and the editor name a file, and the
  // same one. A file the page cannot name fails closed (EDIT_FILE_UNKNOWN);
  // another named file is stale, and the worker may wait for it to return.
  function checkFile(expectedLabel) {
    if (!identified(expectedLabel)) {
      return refuse(ERRORS.EDIT_FILE_UNKNOWN, 'This change was prepared without a known file name, so it was not applied.');
    }
    const liveLabel = liveFileLabel();
    if (liveLabel === null) {
      return refuse(ERRORS.EDIT_FILE_UNKNOWN, 'The page does not show which file is open in the editor, so the change was not applied.');
    }
    if (liveLabel !== expectedLabel) {
      return refuse(ERRORS.STALE_EDIT_PREVIEW, 'Another file is open in the editor than the one this change was prepared for.', 'file');
    }
    return null;
  }

  // The change set, in order, non-overlapping, inside a text of `length`
  // units (`around(offset)`: its two units around an offset), on whole
  // characters and within the insert bound; read by own property only.
  function checkChanges(changes, length, around) {
    let previousTo = 0;
    let inserted = 0;
    const checked = [];
    for (let index = 0; index < changes.length; index += 1) {
      const change = changes[index];
      const from = own(change, 'from');
      const to = own(change, 'to');
      const insert = own(change, 'insert');
      const inRange = isInteger(from) && isInteger(to) && from >= previousTo && to >= from && to <= length
        && typeof insert === 'string' && !splitsCharacter(around, length, from) && !splitsCharacter(around, length, to);
      if (!inRange) {
        return { failure: refuse(ERRORS.INVALID_PREPARED_EDIT, `Change ${index + 1} is out of order, overlapping or outside the document.`) };
      }
      inserted += insert.length;
      if (inserted > LIMITS.MAX_PREPARED_INSERT_CHARS) {
        return { failure: refuse(ERRORS.INVALID_PREPARED_EDIT, 'The prepared edit inserts more text than one edit may.') };
      }
      previousTo = to;
      push(checked, { from, to, insert });
    }
    return { changes: checked };
  }

  const staleDocument = () => refuse(ERRORS.STALE_EDIT_PREVIEW, 'The document was modified after this change was prepared.', 'document');

  function create(editor) {
    // The editor must still show exactly what the change set was computed for:
    // the same file, the same EditorView, the same text. Checked in this order
    // so a switched file is reported as such (the worker may wait for it).
    function checkPreparedEdit(payload) {
      const view = editor.findEditorView();
      if (!view) return { failure: refuse(ERRORS.EDITOR_UNAVAILABLE, 'No CodeMirror editor was found on the page.') };
      const changes = own(payload, 'changes');
      if (!isArray(changes) || changes.length === 0 || changes.length > LIMITS.MAX_PREPARED_CHANGES) {
        return { failure: refuse(ERRORS.INVALID_PREPARED_EDIT, `A prepared edit needs between 1 and ${LIMITS.MAX_PREPARED_CHANGES} changes.`) };
      }
      const fileFailure = checkFile(own(payload, 'expectedFileLabel'));
      if (fileFailure) return { failure: fileFailure };
      if (editor.editorToken(view) !== own(payload, 'expectedEditorToken')) {
        return { failure: refuse(ERRORS.STALE_EDIT_PREVIEW, 'The editor was replaced after this change was prepared.', 'editor') };
      }
      const doc = view.state.doc;
      const expectedText = own(payload, 'expectedText');
      let length;
      let around;
      if (typeof expectedText === 'string') {
        const text = doc.toString();
        if (text !== expectedText) return { failure: staleDocument() };
        length = text.length;
        around = offset => slice(text, offset - 1, offset + 1);
      } else {
        const token = editor.documentTokenOf(doc);
        if (token === undefined || token !== own(payload, 'expectedDocumentToken') || doc.length !== own(payload, 'expectedTextLength')) {
          return { failure: staleDocument() };
        }
        length = doc.length;
        around = offset => doc.sliceString(offset - 1, offset + 1);
      }
      const checked = checkChanges(changes, length, around);
      return checked.failure ? checked : { view, changes: checked.changes };
    }


    return freeze({ checkPreparedEdit, showsOtherFile, refuse });
  }

  root.__typstAgentEditGuard = freeze({ version: VERSION, create });
})(globalThis);
