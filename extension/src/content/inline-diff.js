/*
 * The inline diff overlay of a proposed edit (main world).
 *
 * While the user reviews an agent's edit, the proposal is drawn over the
 * editor: a fixed layer of our own covers CodeMirror's scroller with the
 * editor's font and background, shows the hunks as text rows (at most
 * LIMITS.MAX_INLINE_DIFF_ROWS) and turns into a notice once the editor moves
 * on from what the proposal was computed for. Nothing is added to
 * CodeMirror's DOM, so its measurement stays untouched.
 *
 * Exposes globalThis.__typstAgentInlineDiff.create(editor) → {show, clear,
 * ownedByOther}; the main-world runtime (main.js) creates one overlay and
 * passes the editor lookups it owns: findEditorView(), editorToken(view) and
 * showsOtherFile(label).
 *
 * Characters a reviewer cannot see (zero-width, soft hyphen, tag characters)
 * and bidirectional controls, the list protocol::invisible_chars generates
 * into INVISIBLE_CHARS, are never handed to the text renderer: each is drawn
 * as a bordered `U+202E` mark with an accessible name, so a proposal cannot
 * hide text or reorder what the reviewer reads. Every built-in comes from
 * builtins.js (captured at document_start), so a page script that replaces
 * one later cannot change what is drawn.
 */
(function (root) {
  'use strict';
  const constants = root.__typstAgentProtocolConstants;
  const builtins = root.__typstAgentBuiltins2;
  const LIMITS = constants?.LIMITS;
  if (!LIMITS || !builtins || !constants.INVISIBLE_CHARS) return;
  const VERSION = 2;
  if (root.__typstAgentInlineDiff?.version === VERSION) return;

  const { max, freeze, ToString, pattern, SafeMutationObserver, SafeResizeObserver } = builtins;
  const { slice, toLowerCase, toUpperCase, trim, codePointAt, padStart } = builtins.string;
  const { numberToString } = builtins;
  const { push } = builtins.array;
  const { createElement, getElementById } = builtins.document;
  const { closest, getBoundingClientRect, setAttribute, append, replaceChildren, remove } = builtins.element;
  const { appendChild, setText } = builtins.node;
  const { setClassName, getComputedStyle, requestAnimationFrame, cancelAnimationFrame } = builtins;
  const { setProperty } = builtins.style;
  const { addEventListener, removeEventListener } = builtins.events;
  const { observe, disconnect, observeSize, disconnectSize } = builtins.observer;

  // One proposal at a time is drawn on a fixed layer of our own, over the
  // editor's scroller. Nothing is added to CodeMirror's DOM or decorations,
  // so its line heights and measurement stay untouched; everything drawn is
  // text nodes.
  const DIFF_STYLE_ID = 'typst-side-agent-inline-diff-style';
  const DIFF_LAYER_ID = 'typst-side-agent-inline-diff-rows';
  const FALLBACK_BACKGROUND = 'rgb(25, 24, 31)';
  const FALLBACK_LINE_HEIGHT = '18px';

  const DIFF_STYLE = `
#${DIFF_LAYER_ID} { position: fixed; inset: 0; z-index: 2147483000; overflow: hidden; pointer-events: none; }
#${DIFF_LAYER_ID} .tsa-inline-diff-surface {
  position: absolute; box-sizing: border-box; overflow: auto; pointer-events: auto; outline: none;
  border: 1px solid rgba(255, 255, 255, .14); scrollbar-gutter: stable;
  background: var(--tsa-inline-diff-background, ${FALLBACK_BACKGROUND});
}
#${DIFF_LAYER_ID} .tsa-inline-diff-header {
  position: sticky; top: 0; z-index: 1; display: flex; align-items: center; justify-content: space-between;
  gap: 12px; min-height: 30px; padding: 4px 10px; box-sizing: border-box;
  border-bottom: 1px solid rgba(255, 255, 255, .14);
  background: linear-gradient(rgba(40, 38, 50, .9), rgba(40, 38, 50, .9)), var(--tsa-inline-diff-background, ${FALLBACK_BACKGROUND});
}
#${DIFF_LAYER_ID} .tsa-inline-diff-file { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#${DIFF_LAYER_ID} .tsa-inline-diff-stats { display: flex; gap: 10px; font-weight: 700; flex: none; }
#${DIFF_LAYER_ID} .tsa-inline-diff-stat-add { color: #56d364; }
#${DIFF_LAYER_ID} .tsa-inline-diff-stat-delete { color: #ff7b72; }
#${DIFF_LAYER_ID} .tsa-inline-diff-row {
  display: grid; grid-template-columns: 44px 44px 22px minmax(0, 1fr); box-sizing: border-box;
  min-height: var(--tsa-inline-diff-line-height, ${FALLBACK_LINE_HEIGHT});
  white-space: pre-wrap; word-break: break-all; overflow-wrap: anywhere;
}
#${DIFF_LAYER_ID} .tsa-inline-diff-line-number { padding-inline-end: 6px; text-align: right; opacity: .6; user-select: none; }
#${DIFF_LAYER_ID} .tsa-inline-diff-marker { text-align: center; user-select: none; }
#${DIFF_LAYER_ID} .tsa-inline-diff-code { padding-inline-end: 12px; }
#${DIFF_LAYER_ID} .tsa-inline-diff-insert {
  background: linear-gradient(rgba(46, 160, 67, .3), rgba(46, 160, 67, .3)), var(--tsa-inline-diff-background, ${FALLBACK_BACKGROUND});
  box-shadow: inset 3px 0 #2ea043;
}
#${DIFF_LAYER_ID} .tsa-inline-diff-delete {
  background: linear-gradient(rgba(248, 81, 73, .26), rgba(248, 81, 73, .26)), var(--tsa-inline-diff-background, ${FALLBACK_BACKGROUND});
  box-shadow: inset 3px 0 #f85149;
}
#${DIFF_LAYER_ID} .tsa-inline-diff-hunk, #${DIFF_LAYER_ID} .tsa-inline-diff-notice {
  display: block; box-sizing: border-box; padding-inline: 10px;
  min-height: var(--tsa-inline-diff-line-height, ${FALLBACK_LINE_HEIGHT});
  line-height: var(--tsa-inline-diff-line-height, ${FALLBACK_LINE_HEIGHT});
  background: linear-gradient(rgba(80, 74, 110, .6), rgba(80, 74, 110, .6)), var(--tsa-inline-diff-background, ${FALLBACK_BACKGROUND});
}
#${DIFF_LAYER_ID} .tsa-inline-diff-mark {
  display: inline-block; margin: 0 1px; padding: 0 3px; border: 1px solid #f1c66d; border-radius: 3px;
  font-size: .85em; line-height: 1.25; color: #f1c66d; white-space: nowrap; unicode-bidi: isolate;
}
#${DIFF_LAYER_ID} .tsa-inline-diff-mark-bidi { border-color: #ff7b72; color: #ff7b72; }
#${DIFF_LAYER_ID} .tsa-inline-diff-notice {
  color: #f1c66d; font-style: italic;
  background: linear-gradient(rgba(241, 198, 109, .12), rgba(241, 198, 109, .12)), var(--tsa-inline-diff-background, ${FALLBACK_BACKGROUND});
}`;

  // The element whose box the surface covers: the editor's scroller.
  function coveredElement(view) {
    return view.scrollDOM || (view.dom && closest(view.dom, '.cm-editor')) || view.dom || view.contentDOM || null;
  }

  // pattern() gives the expression its own captured `exec`.
  const ALPHA = pattern(/^rgba?\([^)]*[,/]\s*([\d.]+)(%?)\s*\)$/);

  function opaque(color) {
    const value = toLowerCase(trim(ToString(color || '')));
    if (!value || value === 'transparent') return false;
    const alpha = ALPHA.exec(value);
    if (!alpha) return true;
    return alpha[2] ? +alpha[1] >= 99.9 : +alpha[1] >= 0.999;
  }

  // The colour the editor is painted on: the first opaque background from
  // the editor up through its ancestors.
  function editorBackground(element) {
    for (let node = element; node; node = node.parentElement) {
      const color = getComputedStyle(node).backgroundColor;
      if (opaque(color)) return color;
    }
    return FALLBACK_BACKGROUND;
  }

  function span(className, text) {
    const element = createElement(document, 'span');
    setClassName(element, className);
    setText(element, text);
    return element;
  }

  function block(className, text) {
    const element = createElement(document, 'div');
    setClassName(element, className);
    setText(element, text);
    return element;
  }

  // The kind of a code point of INVISIBLE_CHARS ('invisible', 'bidi'), or null.
  function invisibleKind(code) {
    const ranges = constants.INVISIBLE_CHARS;
    for (let index = 0; index < ranges.length; index += 1) {
      if (code < ranges[index][0]) return null;
      if (code <= ranges[index][1]) return ranges[index][2];
    }
    return null;
  }

  // A mark's text: `U+` and at least four upper-case hex digits
  // (protocol::invisible_chars::mark_text).
  const markText = code => `U+${padStart(toUpperCase(numberToString(code, 16)), 4, '0')}`;

  // `text` as text nodes and marks: every invisible or bidi character is a
  // bordered `U+XXXX` token named for screen readers, never the character.
  function codeCell(text) {
    const cell = span('tsa-inline-diff-code', '');
    let start = 0;
    for (let index = 0; index < text.length;) {
      const code = codePointAt(text, index);
      const width = code > 0xffff ? 2 : 1;
      const kind = invisibleKind(code);
      if (kind) {
        if (start < index) append(cell, slice(text, start, index));
        const token = markText(code);
        const mark = span(`tsa-inline-diff-mark tsa-inline-diff-mark-${kind}`, token);
        setAttribute(mark, 'role', 'img');
        setAttribute(mark, 'aria-label', `${constants.INVISIBLE_KIND_WORDS[kind]} ${token}`);
        append(cell, mark);
        start = index + width;
      }
      index += width;
    }
    if (start < text.length) append(cell, slice(text, start));
    return cell;
  }

  // Removes our element `id` if the page holds one.
  function removeById(id) {
    const element = getElementById(document, id);
    if (element) remove(element);
  }

  // The file label as the reviewer may read it: invisible and bidi
  // characters as their code points (an aria-label is plain text).
  function spokenLabel(text) {
    let out = '';
    for (let index = 0; index < text.length;) {
      const code = codePointAt(text, index);
      const width = code > 0xffff ? 2 : 1;
      out += invisibleKind(code) ? ` ${markText(code)} ` : slice(text, index, index + width);
      index += width;
    }
    return out;
  }

  function mountSurface(preview) {
    if (preview.layer?.isConnected) return;
    removeById(DIFF_LAYER_ID);
    if (!getElementById(document, DIFF_STYLE_ID)) {
      const style = createElement(document, 'style');
      setAttribute(style, 'id', DIFF_STYLE_ID);
      setText(style, DIFF_STYLE);
      appendChild(document.head || document.documentElement, style);
    }
    const layer = createElement(document, 'div');
    setAttribute(layer, 'id', DIFF_LAYER_ID);
    const surface = createElement(document, 'section');
    setClassName(surface, 'tsa-inline-diff-surface');
    setAttribute(surface, 'tabindex', '0');
    setAttribute(surface, 'role', 'region');
    setAttribute(surface, 'aria-label', `Proposed changes to ${spokenLabel(preview.diff.fileLabel)}`);
    appendChild(layer, surface);
    appendChild(document.body || document.documentElement, layer);
    preview.layer = layer;
    preview.surface = surface;
  }

  // Puts the surface exactly over the editor's scroller and gives it the
  // editor's font and background, so the proposal reads like the document.
  function placeSurface(preview) {
    const { surface, view } = preview;
    const covered = coveredElement(view);
    const rect = covered ? getBoundingClientRect(covered) : null;
    if (rect) {
      surface.style.left = `${rect.left}px`;
      surface.style.top = `${rect.top}px`;
      surface.style.width = `${max(0, rect.width)}px`;
      surface.style.height = `${max(0, rect.height)}px`;
    }
    const content = view.contentDOM;
    if (content) {
      const font = getComputedStyle(content);
      const lineHeight = font.lineHeight === 'normal' ? FALLBACK_LINE_HEIGHT : font.lineHeight;
      surface.style.fontFamily = font.fontFamily;
      surface.style.fontSize = font.fontSize;
      surface.style.fontWeight = font.fontWeight;
      surface.style.lineHeight = lineHeight;
      surface.style.color = font.color;
      setProperty(surface.style, '--tsa-inline-diff-line-height', lineHeight);
    }
    const background = editorBackground(view.dom || content);
    surface.style.backgroundColor = background;
    setProperty(surface.style, '--tsa-inline-diff-background', background);
  }

  const ROW_MARKERS = { insert: '+', delete: '\u2212', context: ' ' };

  function drawDiff(preview) {
    const { diff, surface } = preview;
    const header = block('tsa-inline-diff-header', '');
    const stats = span('tsa-inline-diff-stats', '');
    append(stats,
      span('tsa-inline-diff-stat-add', `+${diff.additions}`),
      span('tsa-inline-diff-stat-delete', `\u2212${diff.deletions}`)
    );
    const file = codeCell(diff.fileLabel);
    setClassName(file, 'tsa-inline-diff-file');
    append(header, file, stats);
    const body = block('tsa-inline-diff-body', '');
    let rows = 0;
    let additions = 0;
    let deletions = 0;
    let truncated = false;
    const { hunks } = diff;
    for (let hunkIndex = 0; hunkIndex < hunks.length; hunkIndex += 1) {
      const hunk = hunks[hunkIndex];
      if (rows >= LIMITS.MAX_INLINE_DIFF_ROWS) {
        truncated = true;
        break;
      }
      appendChild(body, block('tsa-inline-diff-hunk', `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
      for (let rowIndex = 0; rowIndex < hunk.rows.length; rowIndex += 1) {
        const source = hunk.rows[rowIndex];
        if (rows >= LIMITS.MAX_INLINE_DIFF_ROWS) {
          truncated = true;
          break;
        }
        const row = block(`tsa-inline-diff-row tsa-inline-diff-${source.kind}`, '');
        append(row,
          span('tsa-inline-diff-line-number', source.oldLine == null ? '' : ToString(source.oldLine)),
          span('tsa-inline-diff-line-number', source.newLine == null ? '' : ToString(source.newLine)),
          span('tsa-inline-diff-marker', ROW_MARKERS[source.kind] || ' '),
          codeCell(source.text)
        );
        appendChild(body, row);
        rows += 1;
        if (source.kind === 'insert') additions += 1;
        if (source.kind === 'delete') deletions += 1;
      }
      if (truncated) break;
    }
    if (truncated) {
      appendChild(body, block('tsa-inline-diff-notice',
        `Only the first ${LIMITS.MAX_INLINE_DIFF_ROWS} rows are drawn here. The side panel shows the whole proposal.`));
    }
    replaceChildren(surface, header, body);
    return { shown: additions + deletions > 0, additions, deletions, truncated };
  }

  // Redraws on every scroll, resize and edit of the editor; an edit also
  // rechecks the focused file.
  function watch(preview, schedule) {
    const listen = (target, type, options) => {
      if (!target) return;
      addEventListener(target, type, schedule, options);
      push(preview.cleanups, () => removeEventListener(target, type, schedule, options));
    };
    const covered = coveredElement(preview.view);
    listen(window, 'resize', { passive: true });
    listen(window, 'scroll', { passive: true, capture: true });
    listen(covered, 'scroll', { passive: true });
    if (preview.view.contentDOM) {
      const mutations = new SafeMutationObserver(() => {
        preview.checkFile = true;
        schedule();
      });
      observe(mutations, preview.view.contentDOM, { childList: true, subtree: true, characterData: true });
      push(preview.cleanups, () => disconnect(mutations));
    }
    if (covered && SafeResizeObserver) {
      const sizes = new SafeResizeObserver(schedule);
      observeSize(sizes, covered);
      push(preview.cleanups, () => disconnectSize(sizes));
    }
  }

  function create(editor) {
    // The proposal on screen, if any: one at a time per runtime.
    let activePreview = null;

    // Whether the editor moved on from what the proposal was computed for.
    // Reading the file label walks the page layout, so it is only done when
    // the editor's content changed, not on every scroll or resize frame.
    function previewIsStale(preview) {
      const checkFile = preview.checkFile;
      preview.checkFile = false;
      return editor.findEditorView() !== preview.view
        || editor.editorToken(preview.view) !== preview.editorToken
        || preview.view.state.doc !== preview.doc
        || (checkFile && editor.showsOtherFile(preview.fileLabel));
    }

    function renderPreview(preview) {
      if (activePreview !== preview) return preview.status;
      mountSurface(preview);
      placeSurface(preview);
      if (preview.stale || previewIsStale(preview)) {
        if (!preview.stale) {
          preview.stale = true;
          replaceChildren(preview.surface, block('tsa-inline-diff-notice',
            'The editor changed after this proposal was drawn, so it no longer applies. Reject it and ask the agent to prepare it again.'));
        }
        return preview.status;
      }
      if (!preview.status) preview.status = drawDiff(preview);
      return preview.status;
    }

    function scheduleRender(preview) {
      if (activePreview !== preview || preview.frame != null) return;
      preview.frame = requestAnimationFrame(() => {
        preview.frame = null;
        try {
          renderPreview(preview);
        } catch {
          // The page is rebuilding the editor; the next event draws again.
        }
      });
    }

    // Removes the preview when it belongs to `runId`/`callId` (either may be
    // omitted to match any): listeners, observers, the pending frame, the layer
    // and the style element.
    function clear(runId, callId) {
      const preview = activePreview;
      if (!preview || (runId != null && preview.runId !== runId) || (callId != null && preview.callId !== callId)) {
        return { ok: true, cleared: false };
      }
      activePreview = null;
      for (let index = 0; index < preview.cleanups.length; index += 1) {
        try { preview.cleanups[index](); } catch { /* the page is tearing the target down */ }
      }
      if (preview.frame != null) cancelAnimationFrame(preview.frame);
      if (preview.layer) remove(preview.layer);
      removeById(DIFF_LAYER_ID);
      removeById(DIFF_STYLE_ID);
      return { ok: true, cleared: true };
    }

    // Draws `target` ({runId, callId, view, doc, editorToken, fileLabel,
    // diff}) and keeps it in place; returns what was drawn. Throws when the
    // page refuses the drawing (the caller clears and reports it).
    function show(target) {
      const preview = {
        ...target,
        layer: null,
        surface: null,
        status: null,
        stale: false,
        checkFile: false,
        frame: null,
        cleanups: []
      };
      activePreview = preview;
      watch(preview, () => scheduleRender(preview));
      return renderPreview(preview);
    }

    // Whether another run or tool call owns the overlay.
    const ownedByOther = (runId, callId) => activePreview != null && (activePreview.runId !== runId || activePreview.callId !== callId);

    return freeze({ show, clear, ownedByOther });
  }

  root.__typstAgentInlineDiff = freeze({ version: VERSION, create });
})(globalThis);
