/*
 * Page bridge adapter, loaded in both the isolated and the main world.
 *
 * Builds envelopes and checks the exact shape of what crosses
 * window.postMessage between the two worlds. The message types and numbers
 * come from protocol-constants.js, which is generated from the Rust
 * `protocol` crate; this file holds only the JavaScript that must run in the
 * page. The worker validates every page answer again in Rust.
 */
(function (root) {
  'use strict';
  const constants = root.__typstAgentProtocolConstants;
  if (!constants?.LIMITS) return;
  // The bridge version is the wire contract; the revision counts changes to
  // this adapter's rules. A page that kept an older adapter (the extension was
  // updated while the tab stayed open) gets the new rules on re-injection.
  const ADAPTER_REVISION = 6;
  const installed = root.__typstAgentBridgeProtocol;
  if (installed?.version === constants.BRIDGE_VERSION && installed.revision >= ADAPTER_REVISION) return;

  // Bounds of page requests and answers, in UTF-16 code units (JavaScript
  // string length) unless named otherwise: the Rust `protocol` crate's
  // constants of the same names, generated into protocol-constants.js.
  const { LIMITS, ERRORS, TYPES } = constants;
  const PAGE_REQUESTS = new Set(constants.PAGE_REQUESTS);
  const KNOWN_TYPES = new Set(Object.values(TYPES));

  // The built-ins every check below calls, taken once while this adapter
  // loads (document_start, before scripts of the page run): a page script
  // that later replaces Object.keys, Array.prototype.every or JSON.stringify
  // in the main world cannot change what these checks do. Loops index arrays
  // instead of iterating them, since the array iterator is replaceable too.
  const uncurry = Function.prototype.call.bind(Function.prototype.bind, Function.prototype.call);
  const ObjectPrototype = Object.prototype;
  const { getPrototypeOf, keys: objectKeys } = Object;
  const { isArray } = Array;
  const { isInteger } = Number;
  const { stringify } = JSON;
  const StringOf = String;
  const textEncoder = new TextEncoder();
  const encode = uncurry(TextEncoder.prototype.encode);
  const slice = uncurry(String.prototype.slice);
  const arraySlice = uncurry(Array.prototype.slice);
  const push = uncurry(Array.prototype.push);
  const hasOwn = uncurry(ObjectPrototype.hasOwnProperty);
  const trim = uncurry(String.prototype.trim);
  const every = uncurry(Array.prototype.every);
  const some = uncurry(Array.prototype.some);
  const includes = uncurry(Array.prototype.includes);
  const setHas = uncurry(Set.prototype.has);
  const regexpTest = uncurry(RegExp.prototype.test);
  const randomUUID = root.crypto.randomUUID.bind(root.crypto);

  function isPlainObject(value) {
    if (value === null || typeof value !== 'object' || isArray(value)) return false;
    const prototype = getPrototypeOf(value);
    return prototype === ObjectPrototype || prototype === null;
  }

  function nonBlank(value, maxLength) {
    return typeof value === 'string' && trim(value) !== '' && value.length <= maxLength;
  }

  // `null` and absent mean the same, as in the worker's checks.
  const given = value => value !== undefined && value !== null;
  const isCount = value => isInteger(value) && value >= 0;
  const optional = (value, test) => !given(value) || test(value);
  const boundedText = max => value => typeof value === 'string' && value.length <= max;

  function jsonLength(value) {
    try {
      return stringify(value).length;
    } catch {
      return Infinity;
    }
  }

  function onlyFields(object, allowed) {
    return every(objectKeys(object), field => includes(allowed, field));
  }

  // ---------- Prepared edits ----------

  // 1..128 changes `{from, to, insert}` in UTF-16 offsets of `textLength`
  // units: sorted, non-overlapping, inside the text, at most 1,000,000
  // inserted units in all. The same rules as the worker's (protocol crate).
  function validChanges(changes, textLength) {
    if (!isArray(changes) || changes.length === 0 || changes.length > LIMITS.MAX_PREPARED_CHANGES) return false;
    let previousTo = 0;
    let inserted = 0;
    for (let index = 0; index < changes.length; index += 1) {
      const change = changes[index];
      if (!isPlainObject(change) || !onlyFields(change, ['from', 'to', 'insert'])) return false;
      const { from, to, insert } = change;
      if (!isCount(from) || !isCount(to) || typeof insert !== 'string') return false;
      if (to < from || to > textLength || from < previousTo) return false;
      inserted += insert.length;
      if (inserted > LIMITS.MAX_PREPARED_INSERT_CHARS) return false;
      previousTo = to;
    }
    return true;
  }

  const lineNumber = value => !given(value) || (isInteger(value) && value >= 1);
  const DIFF_ROW_KINDS = ['context', 'delete', 'insert'];

  // A unified diff as the worker builds it: exact fields, 1..256 hunks of at
  // least one row, at most 5,000 rows and 512,000 text units in all, inserted
  // rows without an old line, deleted rows without a new one.
  function validDiffPreview(preview) {
    if (!isPlainObject(preview) || !onlyFields(preview, ['kind', 'fileLabel', 'additions', 'deletions', 'hunks'])) return false;
    if (preview.kind !== 'unified-diff' || !nonBlank(preview.fileLabel, LIMITS.MAX_FILE_LABEL_CHARS)) return false;
    if (!isCount(preview.additions) || !isCount(preview.deletions) || preview.additions + preview.deletions === 0) return false;
    const hunks = preview.hunks;
    if (!isArray(hunks) || hunks.length === 0 || hunks.length > LIMITS.MAX_DIFF_HUNKS) return false;
    let rows = 0;
    let textUnits = 0;
    for (let hunkIndex = 0; hunkIndex < hunks.length; hunkIndex += 1) {
      const hunk = hunks[hunkIndex];
      if (!isPlainObject(hunk) || !onlyFields(hunk, ['oldStart', 'oldLines', 'newStart', 'newLines', 'rows'])) return false;
      if (!every(['oldStart', 'oldLines', 'newStart', 'newLines'], field => isCount(hunk[field]))) return false;
      if (!isArray(hunk.rows) || hunk.rows.length === 0) return false;
      for (let rowIndex = 0; rowIndex < hunk.rows.length; rowIndex += 1) {
        const row = hunk.rows[rowIndex];
        if (!isPlainObject(row) || !onlyFields(row, ['kind', 'oldLine', 'newLine', 'text'])) return false;
        if (!includes(DIFF_ROW_KINDS, row.kind) || typeof row.text !== 'string') return false;
        if (!lineNumber(row.oldLine) || !lineNumber(row.newLine)) return false;
        if ((row.kind === 'insert' && given(row.oldLine)) || (row.kind === 'delete' && given(row.newLine))) return false;
        rows += 1;
        textUnits += row.text.length;
        if (rows > LIMITS.MAX_DIFF_ROWS || textUnits > LIMITS.MAX_DIFF_TEXT_CHARS) return false;
      }
    }
    return true;
  }

  const PREPARED_EDIT_FIELDS = ['expectedEditorToken', 'expectedFileLabel', 'changes', 'callId'];
  // How a prepared edit names its document: the whole text, or (previews
  // only) the page's token of the document object an `edit` read answered
  // with, and that text's length.
  const TEXT_FIELD = 'expectedText';
  const TOKEN_FIELDS = ['expectedDocumentToken', 'expectedTextLength'];
  const withinTransaction = value => isCount(value) && value <= LIMITS.MAX_EDITOR_TRANSACTION_CHARS;

  // The length of the document `payload` names, or -1 unless it names it in
  // exactly one allowed form.
  function expectedLength(payload, tokenAllowed) {
    const text = hasOwn(payload, TEXT_FIELD);
    const token = some(TOKEN_FIELDS, field => hasOwn(payload, field));
    if (text && !token) {
      return typeof payload.expectedText === 'string' && withinTransaction(payload.expectedText.length)
        ? payload.expectedText.length : -1;
    }
    if (token && !text && tokenAllowed) {
      return nonBlank(payload.expectedDocumentToken, LIMITS.MAX_EDITOR_TOKEN_CHARS) && withinTransaction(payload.expectedTextLength)
        ? payload.expectedTextLength : -1;
    }
    return -1;
  }

  function validPreparedEdit(payload, tokenAllowed) {
    const textLength = expectedLength(payload, tokenAllowed);
    return textLength >= 0
      && nonBlank(payload.expectedEditorToken, LIMITS.MAX_EDITOR_TOKEN_CHARS)
      && nonBlank(payload.expectedFileLabel, LIMITS.MAX_FILE_LABEL_CHARS)
      && nonBlank(payload.callId, constants.MAX_REQUEST_ID_CHARS)
      && validChanges(payload.changes, textLength);
  }

  // Edit requests belong to a run: the page binds its preview to the run id.
  const RUN_SCOPED = new Set([TYPES.PAGE_SHOW_EDIT_PREVIEW, TYPES.PAGE_CLEAR_EDIT_PREVIEW, TYPES.PAGE_APPLY_EDIT]);

  // Exact payload rules for what the page accepts. A payload with any field
  // outside `allowed`, or missing one in `required`, is refused.
  const PAYLOAD_RULES = {
    [TYPES.PAGE_GET_PROBE]: { allowed: [], required: [] },
    [TYPES.PAGE_GET_DIAGNOSTICS]: { allowed: [], required: [] },
    [TYPES.PAGE_GET_CONTEXT]: {
      allowed: ['projection', 'startLine', 'endLine', 'maxChars', 'knownDocumentToken'],
      required: [],
      check: payload => optional(payload.projection, value => includes(['full', 'edit', 'numbered', 'identity'], value))
        && optional(payload.knownDocumentToken, value => payload.projection === 'edit' && nonBlank(value, LIMITS.MAX_EDITOR_TOKEN_CHARS))
        && optional(payload.startLine, value => isInteger(value) && value >= 1)
        && optional(payload.endLine, value => isInteger(value) && value >= 1)
        && !(given(payload.startLine) && given(payload.endLine) && payload.endLine < payload.startLine)
        && optional(payload.maxChars, value => isInteger(value) && value >= 1 && value <= LIMITS.MAX_CONTEXT_REQUEST_CHARS)
    },
    [TYPES.PAGE_GET_PREVIEW]: {
      allowed: ['tabId', 'preferTypstCanvas', 'preferAssetImage'],
      required: [],
      check: payload => optional(payload.tabId, isCount)
        && optional(payload.preferTypstCanvas, value => typeof value === 'boolean')
        && optional(payload.preferAssetImage, value => typeof value === 'boolean')
    },
    [TYPES.PAGE_SHOW_EDIT_PREVIEW]: {
      allowed: [...PREPARED_EDIT_FIELDS, TEXT_FIELD, ...TOKEN_FIELDS, 'preview'],
      required: [...PREPARED_EDIT_FIELDS, 'preview'],
      check: payload => validPreparedEdit(payload, true) && validDiffPreview(payload.preview)
    },
    [TYPES.PAGE_APPLY_EDIT]: {
      allowed: [...PREPARED_EDIT_FIELDS, TEXT_FIELD, 'reviewedDiff'],
      required: [...PREPARED_EDIT_FIELDS, TEXT_FIELD, 'reviewedDiff'],
      check: payload => validPreparedEdit(payload, false) && typeof payload.reviewedDiff === 'boolean'
    },
    [TYPES.PAGE_CLEAR_EDIT_PREVIEW]: {
      allowed: ['callId'],
      required: ['callId'],
      check: payload => nonBlank(payload.callId, constants.MAX_REQUEST_ID_CHARS)
    },
    [TYPES.PAGE_BRIDGE_INIT]: { allowed: [], required: [] },
    [TYPES.PAGE_BRIDGE_READY]: { allowed: [], required: [] },
    [TYPES.PAGE_QUICK_SELECTION]: { allowed: [], required: [] },
    [TYPES.PAGE_QUICK_IMAGE_PREVIEW]: { allowed: [], required: [] },
    [TYPES.PAGE_CANCEL_REQUEST]: {
      allowed: ['targetRequestId'],
      required: ['targetRequestId'],
      check: payload => nonBlank(payload.targetRequestId, constants.MAX_REQUEST_ID_CHARS)
    },
    [TYPES.RESPONSE]: {
      allowed: ['ok', 'data', 'error'],
      required: ['ok'],
      check: payload => payload.ok === true
        ? hasOwn(payload, 'data') && !hasOwn(payload, 'error')
        : payload.ok === false && !hasOwn(payload, 'data') && isPlainObject(payload.error)
          && nonBlank(payload.error.code, LIMITS.MAX_ERROR_CODE_CHARS) && typeof payload.error.message === 'string'
    }
  };

  function validPayload(type, payload) {
    const rule = PAYLOAD_RULES[type];
    if (!rule || !isPlainObject(payload)) return false;
    if (some(objectKeys(payload), field => !includes(rule.allowed, field))) return false;
    if (!every(rule.required, field => hasOwn(payload, field))) return false;
    return rule.check ? rule.check(payload) : true;
  }

  function valid(message, expectedType) {
    if (!isPlainObject(message) || !setHas(KNOWN_TYPES, message.type)) return false;
    if (expectedType && message.type !== expectedType) return false;
    if (hasOwn(message, 'requestId') && !nonBlank(message.requestId, constants.MAX_REQUEST_ID_CHARS)) return false;
    if (hasOwn(message, 'runId') && message.runId !== undefined && !nonBlank(message.runId, constants.MAX_REQUEST_ID_CHARS)) return false;
    if (hasOwn(message, 'nonce') && !nonBlank(message.nonce, constants.MAX_REQUEST_ID_CHARS)) return false;
    if (setHas(RUN_SCOPED, message.type) && !nonBlank(message.runId, constants.MAX_REQUEST_ID_CHARS)) return false;
    return validPayload(message.type, message.payload);
  }

  const CONTEXT_FIELDS = [
    'error', 'fullText', 'numberedDocument', 'cursorPos', 'cursorLine', 'cursorColumn',
    'selectedText', 'selectionFrom', 'selectionTo', 'docLength', 'lineCount', 'editorToken', 'documentToken',
    'workspace', 'truncated', 'selectionTruncated', 'startLine', 'endLine', 'nextStartLine'
  ];
  const CONTEXT_COUNTS = [
    'cursorPos', 'cursorLine', 'cursorColumn', 'selectionFrom', 'selectionTo',
    'docLength', 'lineCount', 'startLine', 'endLine', 'nextStartLine'
  ];

  function validContextData(data) {
    if (!onlyFields(data, CONTEXT_FIELDS) || jsonLength(data) > LIMITS.MAX_CONTEXT_RESPONSE_CHARS) return false;
    return optional(data.error, boundedText(LIMITS.MAX_PAGE_ERROR_CHARS))
      && optional(data.fullText, boundedText(LIMITS.MAX_PAGE_DOCUMENT_CHARS))
      && optional(data.numberedDocument, boundedText(LIMITS.MAX_NUMBERED_DOCUMENT_CHARS))
      && optional(data.selectedText, boundedText(LIMITS.MAX_PAGE_SELECTION_CHARS))
      && optional(data.editorToken, value => nonBlank(value, LIMITS.MAX_EDITOR_TOKEN_CHARS))
      && optional(data.documentToken, value => nonBlank(value, LIMITS.MAX_EDITOR_TOKEN_CHARS))
      && optional(data.workspace, value => jsonLength(value) <= LIMITS.MAX_PAGE_WORKSPACE_CHARS)
      && every(CONTEXT_COUNTS, field => optional(data[field], isCount))
      && every(['truncated', 'selectionTruncated'], field => optional(data[field], value => typeof value === 'boolean'));
  }

  const PREVIEW_DATA_URL = /^data:image\/(?:png|jpeg|webp);base64,[A-Za-z0-9+/=]+$/i;
  const PREVIEW_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
  const previewSide = value => isInteger(value) && value >= 1 && value <= LIMITS.MAX_PREVIEW_SIDE_PX;

  function validPreviewData(data) {
    if (!onlyFields(data, ['error', 'dataUrl', 'width', 'height', 'mimeType'])) return false;
    if (given(data.error)) return boundedText(LIMITS.MAX_PAGE_ERROR_CHARS)(data.error);
    return typeof data.dataUrl === 'string' && data.dataUrl.length <= LIMITS.MAX_PREVIEW_DATA_URL_CHARS
      && regexpTest(PREVIEW_DATA_URL, data.dataUrl)
      && previewSide(data.width) && previewSide(data.height)
      && optional(data.mimeType, value => includes(PREVIEW_MIME_TYPES, value));
  }

  const DIAGNOSTIC_FIELDS = ['severity', 'message', 'line', 'column', 'kind', 'original', 'suggestion'];

  function validDiagnostic(item) {
    return isPlainObject(item) && onlyFields(item, DIAGNOSTIC_FIELDS)
      && boundedText(LIMITS.MAX_DIAGNOSTIC_MESSAGE_CHARS)(item.message)
      && optional(item.severity, boundedText(LIMITS.MAX_DIAGNOSTIC_SEVERITY_CHARS))
      && optional(item.kind, boundedText(LIMITS.MAX_DIAGNOSTIC_KIND_CHARS))
      && optional(item.original, boundedText(LIMITS.MAX_DIAGNOSTIC_TEXT_CHARS))
      && optional(item.suggestion, boundedText(LIMITS.MAX_DIAGNOSTIC_TEXT_CHARS))
      && optional(item.line, isCount) && optional(item.column, isCount);
  }

  function validDiagnosticsData(data) {
    if (!onlyFields(data, ['diagnostics', 'error', 'truncated', 'totalCount'])) return false;
    if (jsonLength(data) > LIMITS.MAX_PAGE_DIAGNOSTICS_CHARS) return false;
    const items = data.diagnostics;
    return isArray(items) && items.length <= LIMITS.MAX_PAGE_DIAGNOSTICS && every(items, item => validDiagnostic(item))
      && optional(data.error, boundedText(LIMITS.MAX_PAGE_ERROR_CHARS))
      && optional(data.truncated, value => typeof value === 'boolean')
      && optional(data.totalCount, value => isCount(value) && value >= items.length);
  }

  const STALE_REASONS = ['file', 'editor', 'document'];
  const REFUSAL_CODES = [
    ERRORS.EDITOR_UNAVAILABLE, ERRORS.STALE_EDIT_PREVIEW, ERRORS.EDIT_PREVIEW_BUSY, ERRORS.INVALID_PREPARED_EDIT,
    ERRORS.EDIT_FILE_UNKNOWN
  ];
  const warningText = value => nonBlank(value, LIMITS.MAX_EDIT_WARNING_CHARS);

  // `{ok:false, code, error, staleReason?}`: the page declined and changed nothing.
  function validRefusal(result) {
    return onlyFields(result, ['ok', 'code', 'error', 'staleReason'])
      && includes(REFUSAL_CODES, result.code)
      && nonBlank(result.error, LIMITS.MAX_PAGE_ERROR_CHARS)
      && (result.code === ERRORS.STALE_EDIT_PREVIEW ? includes(STALE_REASONS, result.staleReason) : !hasOwn(result, 'staleReason'));
  }

  function validShowResult(result) {
    if (!hasOwn(result, 'presentation')) {
      return onlyFields(result, ['ok', 'shown', 'warning']) && result.shown === false && warningText(result.warning);
    }
    return onlyFields(result, ['ok', 'shown', 'presentation', 'changes_previewed', 'additions_rendered', 'deletions_rendered', 'truncated', 'warning'])
      && result.presentation === 'editor-diff-surface'
      && typeof result.shown === 'boolean' && typeof result.truncated === 'boolean'
      && every(['changes_previewed', 'additions_rendered', 'deletions_rendered'], field => isCount(result[field]))
      && optional(result.warning, warningText);
  }

  const EDIT_RESULT_FIELDS = [
    'ok', 'code', 'error', 'staleReason', 'shown', 'presentation', 'changes_previewed', 'additions_rendered',
    'deletions_rendered', 'truncated', 'warning', 'edits_applied', 'reviewed_diff', 'cleared'
  ];

  const EDIT_RESULT_RULES = {
    [TYPES.PAGE_SHOW_EDIT_PREVIEW]: validShowResult,
    [TYPES.PAGE_APPLY_EDIT]: result => onlyFields(result, ['ok', 'edits_applied', 'reviewed_diff'])
      && isCount(result.edits_applied) && typeof result.reviewed_diff === 'boolean',
    [TYPES.PAGE_CLEAR_EDIT_PREVIEW]: result => onlyFields(result, ['ok', 'cleared']) && typeof result.cleared === 'boolean'
  };

  // `{result}` of the edit requests; refusals travel as data, not as errors,
  // so the worker can tell a stale editor from a broken bridge.
  function validEditData(requestType, data) {
    if (!isPlainObject(data) || !onlyFields(data, ['result']) || !isPlainObject(data.result)) return false;
    if (jsonLength(data) > LIMITS.MAX_EDIT_RESULT_CHARS) return false;
    const result = data.result;
    if (result.ok === false) return requestType !== TYPES.PAGE_CLEAR_EDIT_PREVIEW && validRefusal(result);
    return result.ok === true && EDIT_RESULT_RULES[requestType](result);
  }

  // What each page request may answer with. Types without a rule here are not
  // served by this runtime yet, so the isolated world refuses them up front.
  const RESPONSE_DATA_RULES = {
    [TYPES.PAGE_GET_CONTEXT]: data => isPlainObject(data) && validContextData(data),
    [TYPES.PAGE_GET_PREVIEW]: data => isPlainObject(data) && validPreviewData(data),
    [TYPES.PAGE_GET_DIAGNOSTICS]: data => isPlainObject(data) && validDiagnosticsData(data),
    [TYPES.PAGE_GET_PROBE]: data => isPlainObject(data)
      && objectKeys(data).length === constants.PROBE_FIELDS.length
      && every(constants.PROBE_FIELDS, field => typeof data[field] === 'boolean'),
    [TYPES.PAGE_CANCEL_REQUEST]: data => isPlainObject(data)
      && objectKeys(data).length === 1 && typeof data.cancelled === 'boolean',
    [TYPES.PAGE_SHOW_EDIT_PREVIEW]: data => validEditData(TYPES.PAGE_SHOW_EDIT_PREVIEW, data),
    [TYPES.PAGE_APPLY_EDIT]: data => validEditData(TYPES.PAGE_APPLY_EDIT, data),
    [TYPES.PAGE_CLEAR_EDIT_PREVIEW]: data => validEditData(TYPES.PAGE_CLEAR_EDIT_PREVIEW, data)
  };

  function validResponseData(requestType, data) {
    const rule = RESPONSE_DATA_RULES[requestType];
    return Boolean(rule && rule(data));
  }

  function validResponse(message, requestType) {
    if (!valid(message, TYPES.RESPONSE)) return false;
    return message.payload.ok === false || validResponseData(requestType, message.payload.data);
  }

  // ---------- Rebuilt answers ----------

  // What the isolated world relays is never the main world's object: it is a
  // new one holding only the fields the worker reads for that answer type,
  // each a checked primitive, so unknown fields, getters and nesting the
  // checks did not look at stay behind. The worker reads the relayed answer
  // again, from its JSON text, under a byte cap per type.

  const isPrimitive = value => value === null || (typeof value !== 'object' && typeof value !== 'function');

  // A copy of `fields` of `object` whose values are primitives.
  function pick(object, fields) {
    const copy = {};
    if (!isPlainObject(object)) return copy;
    for (let index = 0; index < fields.length; index += 1) {
      const field = fields[index];
      if (hasOwn(object, field) && isPrimitive(object[field])) copy[field] = object[field];
    }
    return copy;
  }

  const ACTIVE_FILE_FIELDS = ['relativePath', 'relative_path', 'path', 'projectLabel', 'project_label', 'basename', 'source', 'confidence'];
  const TREE_ENTRY_FIELDS = ['path', 'kind', 'state'];
  const FILE_FIELDS = ['active_editor_file', 'activeEditorFile'];
  const TREE_FIELDS = ['project_file_tree', 'projectFileTree'];
  const WORKSPACE_SCALARS = [
    'error', 'preview_kind', 'detail_path', 'detail_path_source', 'detail_format', 'detail_resolution', 'detail_size',
    'detail_last_changed', 'canvas_max_pixel_area', 'files_panel_open', 'focused_element_file_hint'
  ];

  function rebuildTree(tree) {
    const copy = pick(tree, ['source', 'truncated']);
    if (!isArray(tree.entries)) return copy;
    // One row more than the worker keeps, so it still sees that rows were cut.
    const rows = arraySlice(tree.entries, 0, LIMITS.MAX_PROJECT_TREE_ENTRIES + 1);
    copy.entries = [];
    for (let index = 0; index < rows.length; index += 1) {
      if (isPlainObject(rows[index])) push(copy.entries, pick(rows[index], TREE_ENTRY_FIELDS));
    }
    return copy;
  }

  // The workspace hints: the scalars, the active file and the Files tree
  // under either spelling the worker reads; nothing nests deeper than three.
  function rebuildWorkspace(workspace) {
    if (!isPlainObject(workspace)) return null;
    const copy = pick(workspace, WORKSPACE_SCALARS);
    for (let index = 0; index < FILE_FIELDS.length; index += 1) {
      const field = FILE_FIELDS[index];
      if (isPlainObject(workspace[field])) copy[field] = pick(workspace[field], ACTIVE_FILE_FIELDS);
      else if (workspace[field] === null) copy[field] = null;
    }
    for (let index = 0; index < TREE_FIELDS.length; index += 1) {
      const field = TREE_FIELDS[index];
      if (isPlainObject(workspace[field])) copy[field] = rebuildTree(workspace[field]);
    }
    return copy;
  }

  const REBUILD_DATA = {
    [TYPES.PAGE_GET_CONTEXT]: data => {
      const copy = pick(data, CONTEXT_FIELDS);
      if (given(data.workspace)) copy.workspace = rebuildWorkspace(data.workspace);
      return copy;
    },
    [TYPES.PAGE_GET_PREVIEW]: data => given(data.error)
      ? { error: data.error }
      : pick(data, ['dataUrl', 'width', 'height', 'mimeType']),
    [TYPES.PAGE_GET_DIAGNOSTICS]: data => {
      const copy = pick(data, ['error', 'truncated', 'totalCount']);
      copy.diagnostics = [];
      for (let index = 0; index < data.diagnostics.length; index += 1) {
        push(copy.diagnostics, pick(data.diagnostics[index], DIAGNOSTIC_FIELDS));
      }
      return copy;
    },
    [TYPES.PAGE_GET_PROBE]: data => pick(data, constants.PROBE_FIELDS),
    [TYPES.PAGE_CANCEL_REQUEST]: data => pick(data, ['cancelled']),
    [TYPES.PAGE_SHOW_EDIT_PREVIEW]: data => ({ result: pick(data.result, EDIT_RESULT_FIELDS) }),
    [TYPES.PAGE_APPLY_EDIT]: data => ({ result: pick(data.result, EDIT_RESULT_FIELDS) }),
    [TYPES.PAGE_CLEAR_EDIT_PREVIEW]: data => ({ result: pick(data.result, EDIT_RESULT_FIELDS) })
  };

  // Page error text is cut to its bound here, before it is relayed.
  function boundedError(error) {
    const code = StringOf(error.code);
    const message = StringOf(error.message);
    return {
      code,
      message: message.length > LIMITS.MAX_PAGE_ERROR_CHARS ? slice(message, 0, LIMITS.MAX_PAGE_ERROR_CHARS) : message
    };
  }

  // The answer to relay for `request`, rebuilt from the checked `message`
  // (validResponse(message, request.type) must hold). Ids come from the
  // request, not from the page.
  function rebuildResponse(message, request, nonce) {
    const payload = message.payload.ok === true
      ? { ok: true, data: REBUILD_DATA[request.type](message.payload.data) }
      : { ok: false, error: boundedError(message.payload.error) };
    return envelope(TYPES.RESPONSE, payload, { requestId: request.requestId, runId: request.runId, nonce });
  }

  const ANSWER_BYTE_CAPS = {
    [TYPES.PAGE_GET_CONTEXT]: LIMITS.MAX_CONTEXT_ANSWER_BYTES,
    [TYPES.PAGE_GET_PREVIEW]: LIMITS.MAX_PREVIEW_ANSWER_BYTES,
    [TYPES.PAGE_GET_DIAGNOSTICS]: LIMITS.MAX_DIAGNOSTICS_ANSWER_BYTES,
    [TYPES.PAGE_GET_PROBE]: LIMITS.MAX_PROBE_ANSWER_BYTES,
    [TYPES.PAGE_CANCEL_REQUEST]: LIMITS.MAX_CANCEL_ANSWER_BYTES,
    [TYPES.PAGE_SHOW_EDIT_PREVIEW]: LIMITS.MAX_EDIT_ANSWER_BYTES,
    [TYPES.PAGE_APPLY_EDIT]: LIMITS.MAX_EDIT_ANSWER_BYTES,
    [TYPES.PAGE_CLEAR_EDIT_PREVIEW]: LIMITS.MAX_EDIT_ANSWER_BYTES
  };

  // Whether `answer` (a rebuilt response) fits its type's byte cap as UTF-8
  // JSON text, the same cap the worker checks before it parses.
  function withinByteCap(answer, requestType) {
    const cap = ANSWER_BYTE_CAPS[requestType];
    let text;
    try {
      text = stringify(answer);
    } catch {
      return false;
    }
    // UTF-8 has at least one byte per UTF-16 unit and at most three.
    if (text.length > cap) return false;
    if (text.length * 3 <= cap) return true;
    return encode(textEncoder, text).length <= cap;
  }

  function envelope(type, payload, { requestId, runId, nonce } = {}) {
    const message = { type, payload };
    if (requestId != null) message.requestId = requestId;
    if (runId != null) message.runId = runId;
    if (nonce != null) message.nonce = nonce;
    return message;
  }

  root.__typstAgentBridgeProtocol = Object.freeze({
    version: constants.BRIDGE_VERSION,
    revision: ADAPTER_REVISION,
    TYPES,
    PAGE_REQUESTS,
    SERVED_PAGE_REQUESTS: new Set(Object.keys(RESPONSE_DATA_RULES)),
    requestId(prefix = 'page') {
      return `${prefix}-${randomUUID()}`;
    },
    envelope,
    valid,
    validResponse,
    validResponseData,
    rebuildResponse,
    withinByteCap,
    jsonLength
  });
})(globalThis);
