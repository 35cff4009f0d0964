/*
 * Main-world runtime on typst.app.
 *
 * CodeMirror's EditorView hangs off DOM expandos that only the page's own
 * JavaScript world can see, and typst.app's CSP may refuse WebAssembly, so
 * this part stays JavaScript: it reads raw facts from the page and CodeMirror
 * and answers nonce-authenticated requests from the isolated world. It makes
 * no decisions the worker can make; the worker interprets the answers in Rust.
 */
(function () {
  'use strict';
  const bridge = globalThis.__typstAgentBridgeProtocol;
  const constants = globalThis.__typstAgentProtocolConstants;
  if (!bridge || !constants) return;
  const RUNTIME_VERSION = 12;
  const previousRuntime = window.__typstAgentMainRuntime;
  if (previousRuntime?.version === RUNTIME_VERSION) return;
  try { previousRuntime?.dispose?.(); } catch { /* an older runtime that cannot clean up */ }
  window.__typstAgentMainLoaded = true;

  const { TYPES } = bridge;
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

  // ---------- Page facts ----------

  function visibleArea(element) {
    const rect = element.getBoundingClientRect();
    return { rect, area: Math.max(0, rect.width) * Math.max(0, rect.height) };
  }

  function largestCanvasArea() {
    let largest = 0;
    for (const canvas of document.querySelectorAll('canvas')) {
      largest = Math.max(largest, canvas.width * canvas.height);
    }
    return largest;
  }

  function intersectsViewport(rect) {
    return rect.bottom > 0 && rect.right > 0 && rect.top < window.innerHeight && rect.left < window.innerWidth;
  }

  // The largest visible image outside the editor, if it looks like the
  // preview column's image.
  function previewImageShown() {
    let best = null;
    for (const image of document.querySelectorAll('img')) {
      if (image.closest('.cm-editor')) continue;
      const { rect, area } = visibleArea(image);
      if (rect.width < 40 || rect.height < 40 || area < 12_000 || !intersectsViewport(rect)) continue;
      if (!best || area > best.area) best = { image, area };
    }
    return Boolean(best && /image preview|preview/i.test(best.image.alt || ''));
  }

  const IMPROVE_PANEL_LABELS = new Set([
    'no compiler errors', 'no compiler error', 'no compiler warnings', 'no compiler warning',
    'no spelling mistakes', 'misspellings', 'compiler errors', 'compiler error',
    'compiler warnings', 'compiler warning', 'improve'
  ]);

  function ownText(element) {
    let text = '';
    for (const child of element.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) text += child.textContent;
    }
    return text.replace(/\s+/g, ' ').trim();
  }

  function improvePanelShown() {
    const cutoff = Math.max(360, window.innerWidth * 0.5);
    for (const element of document.querySelectorAll('span, div, p, h1, h2, h3, h4, button, strong, em, a, li')) {
      const text = ownText(element);
      if (!text || text.length > 40 || !IMPROVE_PANEL_LABELS.has(text.toLowerCase())) continue;
      const rect = element.getBoundingClientRect();
      if (rect.width > 0 && rect.height > 0 && rect.left <= cutoff) return true;
    }
    return false;
  }

  function getProbe() {
    const view = findEditorView();
    return {
      editor: Boolean(view),
      selection: Boolean(view && !view.state.selection.main.empty),
      typstCanvas: largestCanvasArea() > 20_000,
      previewImage: previewImageShown(),
      improvePanel: improvePanelShown()
    };
  }

  // ---------- Bridge ----------

  function postResponse(request, result, error) {
    let failure = error;
    if (!failure && !bridge.validResponseData(request.type, result)) {
      failure = { code: 'INVALID_PAGE_RESPONSE', message: `${request.type} produced an invalid or oversized answer.` };
    }
    const payload = failure
      ? { ok: false, error: { code: failure.code || 'PAGE_REQUEST_FAILED', message: String(failure.message || failure).slice(0, 2_000) } }
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
    [TYPES.PAGE_GET_PROBE]: () => getProbe()
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
      postResponse(request, null, { code: 'CANCELLED', message: 'The page request was cancelled before it ran.' });
      return;
    }
    const handler = HANDLERS[request.type];
    if (!handler) {
      postResponse(request, null, { code: 'UNSUPPORTED_PAGE_REQUEST', message: `${request.type} is not served by this page runtime.` });
      return;
    }
    try {
      postResponse(request, handler(request.payload));
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
