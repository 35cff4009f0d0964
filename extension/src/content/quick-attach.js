/*
 * Main-world "Add to agent" buttons on typst.app (quick attach).
 *
 * One button beside the end of a non-empty CodeMirror selection, one beside
 * the opened image in the preview column. A click only tells the isolated
 * world that it happened (PAGE_QUICK_SELECTION / PAGE_QUICK_IMAGE_PREVIEW,
 * empty payload): the panel then reads the selection or the image itself
 * through the ordinary page requests, so nothing chosen here travels.
 *
 * The buttons must not disturb the editor: they are fixed-position overlays
 * appended to <body> (no layout shift), they swallow mousedown so the
 * editor keeps its focus and selection, and they never write into
 * CodeMirror's DOM. They go away on scroll, typing and when the editor loses
 * focus, and come back when the selection (or the image) changes.
 * Page events are coalesced into one animation frame; mutations inside the
 * editor are ignored, so typing costs no page scan. main.js creates the
 * controller with its own readers (editor view, opened image) and disposes
 * it with the runtime.
 */
(function (root) {
  'use strict';
  const SELECTION_ID = 'typst-side-agent-selection-float';
  const IMAGE_ID = 'typst-side-agent-image-float';
  // Beside the selection's end / the image's edge, and kept this far inside
  // the viewport (the original's numbers).
  const SELECTION_GAP = 6;
  const IMAGE_GAP = 8;
  const VIEWPORT_MARGIN = 8;
  // Mutations outside the editor come in bursts (a preview re-render).
  const BURST_MS = 40;

  function styleButton(button) {
    Object.assign(button.style, {
      position: 'fixed',
      zIndex: '2147483646',
      display: 'none',
      margin: '0',
      padding: '5px 11px',
      font: '600 12px/1.2 ui-sans-serif, system-ui, sans-serif',
      borderRadius: '8px',
      border: '1px solid rgb(124, 124, 240)',
      background: 'rgba(25, 24, 31, 0.96)',
      color: '#e5e5ff',
      boxShadow: '0 4px 14px rgba(0, 0, 0, 0.35)',
      cursor: 'pointer',
      pointerEvents: 'auto',
      whiteSpace: 'nowrap'
    });
  }

  function create(options) {
    const { findEditorView, findOpenedImage, post, minIntervalMs } = options;
    const cleanups = [];
    const dirty = new Set();
    let frame = null;
    let burst = null;
    let stopped = false;
    let image = undefined; // the opened image, until the preview changes
    let lastClick = -Infinity;
    // What was dismissed: the selection range / image shown at the time. The
    // button returns only for another one.
    let dismissedSelection = null;
    let dismissedImage = null;

    function makeButton(id, text, title, type) {
      document.getElementById(id)?.remove();
      const button = document.createElement('button');
      button.id = id;
      button.type = 'button';
      button.textContent = text;
      button.title = title;
      styleButton(button);
      // The editor keeps focus and selection: no mousedown default, and
      // the page's own pointer handlers never see the press.
      button.addEventListener('mousedown', event => event.preventDefault(), true);
      button.addEventListener('pointerdown', event => event.stopPropagation(), true);
      button.addEventListener('click', event => {
        event.preventDefault();
        event.stopPropagation();
        const now = Date.now();
        if (now - lastClick < minIntervalMs) return;
        lastClick = now;
        post(type);
      });
      return button;
    }

    const selectionButton = makeButton(SELECTION_ID, 'Add to agent',
      'Attach the selected text to the Typst Side Agent chat', 'selection');
    const imageButton = makeButton(IMAGE_ID, 'Add image to agent',
      'Attach the opened image to the Typst Side Agent chat', 'image');
    document.body.append(selectionButton, imageButton);

    const hide = button => { button.style.display = 'none'; };
    const shown = button => button.style.display !== 'none';

    // Shows `button` at (left, top), then moves it back inside the viewport
    // (to the other side of the anchor, or up) when it would stick out.
    function place(button, left, top, flipLeft, flipTop) {
      button.style.display = 'block';
      button.style.left = `${Math.round(left)}px`;
      button.style.top = `${Math.round(top)}px`;
      const rect = button.getBoundingClientRect();
      if (rect.right > window.innerWidth - VIEWPORT_MARGIN) {
        button.style.left = `${Math.round(Math.max(VIEWPORT_MARGIN, flipLeft(rect)))}px`;
      }
      if (rect.bottom > window.innerHeight - VIEWPORT_MARGIN) {
        button.style.top = `${Math.round(Math.max(VIEWPORT_MARGIN, flipTop(rect)))}px`;
      }
    }

    function selectionRange() {
      const view = findEditorView();
      const main = view?.state.selection.main;
      return main && !main.empty ? { view, main, key: `${main.from}:${main.to}` } : null;
    }

    function updateSelectionButton() {
      const range = selectionRange();
      if (!range || range.key === dismissedSelection) return hide(selectionButton);
      dismissedSelection = null;
      let coords = null;
      try { coords = range.view.coordsAtPos(range.main.to, 1); } catch { /* outside the rendered lines */ }
      if (!coords || typeof coords.left !== 'number') return hide(selectionButton);
      place(selectionButton, coords.right + SELECTION_GAP, coords.top,
        rect => coords.left - rect.width - SELECTION_GAP,
        rect => coords.bottom - rect.height);
    }

    function updateImageButton() {
      if (selectionRange()) return hide(imageButton);
      if (image === undefined) {
        try { image = findOpenedImage() || null; } catch { image = null; }
      }
      const key = image && image.isConnected ? image.currentSrc || image.src || 'image' : null;
      if (!key || key === dismissedImage) return hide(imageButton);
      dismissedImage = null;
      const r = image.getBoundingClientRect();
      if (r.width < 8 || r.height < 8) return hide(imageButton);
      place(imageButton, r.right + IMAGE_GAP, r.top + IMAGE_GAP,
        rect => r.right - rect.width - IMAGE_GAP,
        rect => r.bottom - rect.height - IMAGE_GAP);
    }

    function flush() {
      frame = null;
      if (stopped || document.hidden || dirty.size === 0) return;
      const flags = new Set(dirty);
      dirty.clear();
      if (flags.has('preview')) image = undefined;
      updateSelectionButton();
      updateImageButton();
    }

    function invalidate(...flags) {
      if (stopped) return;
      flags.forEach(flag => dirty.add(flag));
      if (!document.hidden && frame == null) frame = requestAnimationFrame(flush);
    }

    function invalidateAfterBurst(...flags) {
      flags.forEach(flag => dirty.add(flag));
      clearTimeout(burst);
      burst = setTimeout(() => { burst = null; invalidate(); }, BURST_MS);
    }

    // Scroll, typing and blur put the buttons away for what they show now.
    function dismiss() {
      dismissedSelection = shown(selectionButton) ? selectionRange()?.key ?? null : dismissedSelection;
      dismissedImage = shown(imageButton) && image ? image.currentSrc || image.src || 'image' : dismissedImage;
      hide(selectionButton);
      hide(imageButton);
    }

    function listen(target, type, handler, capture) {
      target.addEventListener(type, handler, capture);
      cleanups.push(() => target.removeEventListener(type, handler, capture));
    }

    const ours = node => node === selectionButton || node === imageButton;
    const inEditor = node => Boolean((node?.nodeType === 1 ? node : node?.parentElement)?.closest?.('.cm-editor'));

    // A released pointer is the user choosing again, so what was dismissed
    // may show again; a released key only for the selection (a selection made
    // by keyboard scrolls the editor, which dismissed the button a moment
    // before), so typing keeps the image button away.
    listen(document, 'selectionchange', () => invalidate('selection'));
    listen(document, 'pointerup', () => {
      dismissedSelection = null;
      dismissedImage = null;
      invalidate('selection');
    });
    listen(document, 'keyup', () => {
      dismissedSelection = null;
      invalidate('selection');
    });
    listen(document, 'input', event => { if (inEditor(event.target)) dismiss(); }, true);
    listen(document, 'focusout', event => {
      if (inEditor(event.target) && !inEditor(event.relatedTarget) && !ours(event.relatedTarget)) dismiss();
    }, true);
    listen(window, 'scroll', event => { if (!ours(event.target)) dismiss(); }, true);
    listen(window, 'resize', () => invalidate('layout'));
    listen(document, 'visibilitychange', () => invalidate('selection', 'preview'));
    listen(window, 'popstate', () => invalidateAfterBurst('preview'));

    // The preview column changes by DOM mutation (another file opened, an
    // image loaded); the editor's own mutations are typing and never matter.
    const observer = new MutationObserver(records => {
      if (records.some(record => !inEditor(record.target) && !ours(record.target))) invalidateAfterBurst('preview');
    });
    observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['src', 'class', 'aria-selected'] });

    invalidate('selection', 'preview');
    return {
      stop() {
        stopped = true;
        if (frame != null) cancelAnimationFrame(frame);
        clearTimeout(burst);
        observer.disconnect();
        cleanups.forEach(cleanup => cleanup());
        selectionButton.remove();
        imageButton.remove();
      }
    };
  }

  // Always the newest factory: a running controller belongs to the main.js
  // runtime that created it and is stopped with it.
  root.__typstAgentQuickAttach = Object.freeze({ create, SELECTION_ID, IMAGE_ID });
})(globalThis);
