/*
 * Isolated-world content script on typst.app (document_start).
 *
 * Relays the worker's page requests to the main-world runtime and its answers
 * back. A per-document nonce, fixed at load, marks this bridge's messages on
 * window; it is not a secret (scripts of the page can observe postMessage),
 * so it separates our traffic from unrelated messages but authenticates
 * nothing, and the worker checks every answer again. The worker's requests
 * arrive only through chrome.runtime.
 * Requests wait for the handshake, are bounded in number and time, can be
 * cancelled, and are rejected when the page unloads. If the registered
 * main-world script never answers, the main-world files are loaded by
 * <script> tags from the extension (recovery).
 */
(function () {
  'use strict';
  const bridge = globalThis.__typstAgentBridgeProtocol;
  const constants = globalThis.__typstAgentProtocolConstants;
  if (!bridge || !constants) return;
  if (globalThis.__typstAgentIsolatedLoaded) return;
  globalThis.__typstAgentIsolatedLoaded = true;

  const { TYPES } = bridge;
  const { ERRORS } = constants;
  const nonce = crypto.randomUUID();
  const pending = new Map();
  const cancelledRequests = new Map();
  let ready = false;
  let unloading = false;
  let handshakeTimer = null;
  let recoveryTimer = null;
  let recoveryRunning = false;
  let recoveryAttempts = 0;

  function respond(sendResponse, request, payload) {
    sendResponse(bridge.envelope(TYPES.RESPONSE, payload, {
      requestId: request.requestId,
      runId: request.runId,
      nonce
    }));
  }

  function respondError(sendResponse, request, code, message) {
    respond(sendResponse, request, { ok: false, error: { code, message } });
  }

  // ---------- Main-world recovery ----------

  function loadMainWorldFile(file) {
    return new Promise((resolve, reject) => {
      const parent = document.head || document.documentElement;
      if (!parent) {
        reject(new Error('The page has no document element yet.'));
        return;
      }
      const script = document.createElement('script');
      script.src = chrome.runtime.getURL(file);
      script.async = false;
      script.dataset.typstSideAgentMainRecovery = file;
      script.onload = () => { script.remove(); resolve(); };
      script.onerror = () => { script.remove(); reject(new Error(`Loading ${file} into the page failed.`)); };
      parent.appendChild(script);
    });
  }

  async function recoverMainWorld() {
    if (ready || recoveryRunning) return;
    recoveryRunning = true;
    try {
      for (const file of constants.MAIN_WORLD_FILES) {
        if (ready) return;
        await loadMainWorldFile(file);
      }
    } finally {
      recoveryRunning = false;
    }
  }

  function scheduleRecovery(delay) {
    if (ready || unloading || recoveryTimer != null) return;
    recoveryTimer = setTimeout(() => {
      recoveryTimer = null;
      recoverMainWorld().catch(error => {
        console.warn('Typst Side Agent: main-world recovery failed:', error?.message || String(error));
        recoveryAttempts += 1;
        const backoff = constants.MAIN_RECOVERY_DELAY_MS * (2 ** Math.min(recoveryAttempts, 5));
        scheduleRecovery(Math.min(constants.MAIN_RECOVERY_MAX_DELAY_MS, backoff));
      });
    }, delay);
  }

  // ---------- Handshake ----------

  function postHandshake() {
    if (ready || unloading) return;
    window.postMessage(bridge.envelope(TYPES.PAGE_BRIDGE_INIT, {}, {
      requestId: bridge.requestId('bridge'),
      nonce
    }), '*');
    handshakeTimer = setTimeout(postHandshake, constants.HANDSHAKE_RETRY_MS);
  }

  function markReady() {
    ready = true;
    recoveryAttempts = 0;
    clearTimeout(handshakeTimer);
    clearTimeout(recoveryTimer);
    recoveryTimer = null;
    for (const item of pending.values()) {
      if (!item.sent) item.send();
    }
  }

  // ---------- Requests from the worker ----------

  function rememberCancelled(requestId) {
    clearTimeout(cancelledRequests.get(requestId));
    cancelledRequests.set(requestId, setTimeout(() => cancelledRequests.delete(requestId), constants.REQUEST_TIMEOUT_MS));
  }

  function cancelPending(targetRequestId) {
    rememberCancelled(targetRequestId);
    const item = pending.get(targetRequestId);
    if (!item) return false;
    pending.delete(targetRequestId);
    clearTimeout(item.timeout);
    respondError(item.sendResponse, item.request, ERRORS.CANCELLED, 'The page request was cancelled before it finished.');
    return true;
  }

  function forwardToMainWorld(request) {
    window.postMessage(bridge.envelope(request.type, request.payload, {
      requestId: request.requestId,
      runId: request.runId,
      nonce
    }), '*');
  }

  chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
    if (!bridge.PAGE_REQUESTS.has(message?.type)) return false;
    if (typeof message.requestId !== 'string' || message.requestId.trim() === '') {
      respondError(sendResponse, { requestId: bridge.requestId('invalid') }, ERRORS.INVALID_REQUEST_ID, 'A page request needs a requestId.');
      return false;
    }
    if (!bridge.SERVED_PAGE_REQUESTS.has(message.type)) {
      respondError(sendResponse, message, ERRORS.UNSUPPORTED_PAGE_REQUEST, `${message.type} is not served by this page runtime.`);
      return false;
    }
    if (!bridge.valid(message)) {
      respondError(sendResponse, message, ERRORS.INVALID_PAGE_REQUEST, `${message.type} has an invalid envelope or payload.`);
      return false;
    }
    if (message.type === TYPES.PAGE_CANCEL_REQUEST) {
      const cancelled = cancelPending(message.payload.targetRequestId);
      if (ready) forwardToMainWorld(message);
      respond(sendResponse, message, { ok: true, data: { cancelled } });
      return false;
    }
    if (cancelledRequests.has(message.requestId)) {
      clearTimeout(cancelledRequests.get(message.requestId));
      cancelledRequests.delete(message.requestId);
      respondError(sendResponse, message, ERRORS.CANCELLED, 'The page request was cancelled before it was sent.');
      return false;
    }
    if (pending.size >= constants.MAX_PENDING_REQUESTS) {
      respondError(sendResponse, message, ERRORS.PAGE_PENDING_LIMIT, 'Too many page requests are waiting at once.');
      return false;
    }
    if (pending.has(message.requestId)) {
      respondError(sendResponse, message, ERRORS.DUPLICATE_REQUEST_ID, 'A page request with this id is already waiting.');
      return false;
    }
    const item = {
      request: message,
      sendResponse,
      sent: false,
      send() {
        item.sent = true;
        forwardToMainWorld(message);
      },
      timeout: setTimeout(() => {
        if (pending.get(message.requestId) !== item) return;
        pending.delete(message.requestId);
        respondError(sendResponse, message, ERRORS.PAGE_REQUEST_TIMEOUT, `${message.type} (${message.requestId}) got no answer in time.`);
      }, constants.REQUEST_TIMEOUT_MS)
    };
    pending.set(message.requestId, item);
    if (ready) item.send();
    return true;
  });

  // ---------- Quick attach ----------

  // A click on an "Add to agent" button becomes the worker's QUICK_ATTACH_*
  // request with an empty payload: the worker takes the tab and window from
  // the sender. Any script of the page can post these events (the nonce is
  // observable), so at most one is forwarded per interval, and it carries
  // nothing of the page. The answer is not needed here: the worker opens the
  // panel and tells it.
  let lastQuickAttach = -Infinity;

  function forwardQuickAttach(pageType) {
    const now = Date.now();
    if (now - lastQuickAttach < constants.QUICK_ATTACH_MIN_INTERVAL_MS) return;
    lastQuickAttach = now;
    const type = pageType === TYPES.PAGE_QUICK_SELECTION ? TYPES.QUICK_ATTACH_SELECTION : TYPES.QUICK_ATTACH_IMAGE_PREVIEW;
    chrome.runtime.sendMessage(bridge.envelope(type, {}, { requestId: bridge.requestId('quick') })).catch(() => {});
  }

  // ---------- Messages from the main world ----------

  window.addEventListener('message', event => {
    const message = event.data;
    if (event.source !== window || message?.nonce !== nonce || !bridge.valid(message)) return;
    if (message.type === TYPES.PAGE_BRIDGE_READY) {
      markReady();
      return;
    }
    if (message.type === TYPES.RESPONSE) {
      const item = pending.get(message.requestId);
      if (!item) return;
      pending.delete(message.requestId);
      clearTimeout(item.timeout);
      if (bridge.validResponse(message, item.request.type)) item.sendResponse(message);
      else respondError(item.sendResponse, item.request, ERRORS.INVALID_PAGE_RESPONSE, `${item.request.type} answered with an invalid or oversized response.`);
      return;
    }
    if (message.type === TYPES.PAGE_QUICK_SELECTION || message.type === TYPES.PAGE_QUICK_IMAGE_PREVIEW) {
      forwardQuickAttach(message.type);
    }
  });

  window.addEventListener('pagehide', () => {
    unloading = true;
    clearTimeout(handshakeTimer);
    clearTimeout(recoveryTimer);
    for (const item of pending.values()) {
      clearTimeout(item.timeout);
      respondError(item.sendResponse, item.request, ERRORS.PAGE_UNLOADED, 'The page unloaded before it answered.');
    }
    pending.clear();
    for (const timer of cancelledRequests.values()) clearTimeout(timer);
    cancelledRequests.clear();
  }, { once: true });

  scheduleRecovery(constants.MAIN_RECOVERY_DELAY_MS);
  postHandshake();
})();
