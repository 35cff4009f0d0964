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
 * An answer is never relayed as the main world sent it: it is checked,
 * rebuilt from the checked fields only, its error text cut, and refused
 * (PAGE_ANSWER_TOO_LARGE) when the rebuilt answer is over its type's byte
 * cap, so a page script that answers first cannot hand the worker unknown
 * fields, deep nesting or a 60 MB string.
 */
(function () {
  'use strict';
  const bridge = globalThis.__typstAgentBridgeProtocol;
  const constants = globalThis.__typstAgentProtocolConstants;
  if (!bridge || !constants) return;
  if (globalThis.__typstAgentIsolatedLoaded) return;
  globalThis.__typstAgentIsolatedLoaded = true;

  // The built-ins this script calls, taken while it loads (document_start).
  // The isolated world has globals of its own, so scripts of the page cannot
  // reach them; keeping them also guards against a later script of this
  // extension, or a library, replacing one.
  const uncurry = Function.prototype.call.bind(Function.prototype.bind, Function.prototype.call);
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapHas = uncurry(Map.prototype.has);
  const mapDelete = uncurry(Map.prototype.delete);
  const mapClear = uncurry(Map.prototype.clear);
  const mapSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, 'size').get);
  const mapValues = uncurry(Map.prototype.values);
  const setHas = uncurry(Set.prototype.has);
  const trim = uncurry(String.prototype.trim);
  const windowPostMessage = window.postMessage.bind(window);
  const windowAddEventListener = window.addEventListener.bind(window);
  const { setTimeout, clearTimeout } = globalThis;
  const dateNow = Date.now;
  const mathMin = Math.min;
  const randomUUID = crypto.randomUUID.bind(crypto);
  const runtime = chrome.runtime;
  const getURL = runtime.getURL.bind(runtime);
  const sendRuntimeMessage = runtime.sendMessage.bind(runtime);
  const addRuntimeListener = runtime.onMessage.addListener.bind(runtime.onMessage);
  const createElement = document.createElement.bind(document);
  const warn = console.warn.bind(console);
  const { rebuildResponse, withinByteCap, validResponse, valid, envelope } = bridge;

  const { TYPES } = bridge;
  const { ERRORS } = constants;
  const nonce = randomUUID();
  const pending = new Map();
  const cancelledRequests = new Map();
  let ready = false;
  let unloading = false;
  let handshakeTimer = null;
  let recoveryTimer = null;
  let recoveryRunning = false;
  let recoveryAttempts = 0;

  function respond(sendResponse, request, payload) {
    sendResponse(envelope(TYPES.RESPONSE, payload, {
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
      const script = createElement('script');
      script.src = getURL(file);
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
        warn('Typst Side Agent: main-world recovery failed:', error?.message || String(error));
        recoveryAttempts += 1;
        const backoff = constants.MAIN_RECOVERY_DELAY_MS * (2 ** mathMin(recoveryAttempts, 5));
        scheduleRecovery(mathMin(constants.MAIN_RECOVERY_MAX_DELAY_MS, backoff));
      });
    }, delay);
  }

  // ---------- Handshake ----------

  function postHandshake() {
    if (ready || unloading) return;
    windowPostMessage(envelope(TYPES.PAGE_BRIDGE_INIT, {}, {
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
    for (const item of mapValues(pending)) {
      if (!item.sent) item.send();
    }
  }

  // ---------- Requests from the worker ----------

  function rememberCancelled(requestId) {
    clearTimeout(mapGet(cancelledRequests, requestId));
    mapSet(cancelledRequests, requestId, setTimeout(() => mapDelete(cancelledRequests, requestId), constants.REQUEST_TIMEOUT_MS));
  }

  function cancelPending(targetRequestId) {
    rememberCancelled(targetRequestId);
    const item = mapGet(pending, targetRequestId);
    if (!item) return false;
    mapDelete(pending, targetRequestId);
    clearTimeout(item.timeout);
    respondError(item.sendResponse, item.request, ERRORS.CANCELLED, 'The page request was cancelled before it finished.');
    return true;
  }

  function forwardToMainWorld(request) {
    windowPostMessage(envelope(request.type, request.payload, {
      requestId: request.requestId,
      runId: request.runId,
      nonce
    }), '*');
  }

  addRuntimeListener((message, _sender, sendResponse) => {
    if (!setHas(bridge.PAGE_REQUESTS, message?.type)) return false;
    if (typeof message.requestId !== 'string' || trim(message.requestId) === '') {
      respondError(sendResponse, { requestId: bridge.requestId('invalid') }, ERRORS.INVALID_REQUEST_ID, 'A page request needs a requestId.');
      return false;
    }
    if (!setHas(bridge.SERVED_PAGE_REQUESTS, message.type)) {
      respondError(sendResponse, message, ERRORS.UNSUPPORTED_PAGE_REQUEST, `${message.type} is not served by this page runtime.`);
      return false;
    }
    if (!valid(message)) {
      respondError(sendResponse, message, ERRORS.INVALID_PAGE_REQUEST, `${message.type} has an invalid envelope or payload.`);
      return false;
    }
    if (message.type === TYPES.PAGE_CANCEL_REQUEST) {
      const cancelled = cancelPending(message.payload.targetRequestId);
      if (ready) forwardToMainWorld(message);
      respond(sendResponse, message, { ok: true, data: { cancelled } });
      return false;
    }
    if (mapHas(cancelledRequests, message.requestId)) {
      clearTimeout(mapGet(cancelledRequests, message.requestId));
      mapDelete(cancelledRequests, message.requestId);
      respondError(sendResponse, message, ERRORS.CANCELLED, 'The page request was cancelled before it was sent.');
      return false;
    }
    if (mapSize(pending) >= constants.MAX_PENDING_REQUESTS) {
      respondError(sendResponse, message, ERRORS.PAGE_PENDING_LIMIT, 'Too many page requests are waiting at once.');
      return false;
    }
    if (mapHas(pending, message.requestId)) {
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
        if (mapGet(pending, message.requestId) !== item) return;
        mapDelete(pending, message.requestId);
        respondError(sendResponse, message, ERRORS.PAGE_REQUEST_TIMEOUT, `${message.type} (${message.requestId}) got no answer in time.`);
      }, constants.REQUEST_TIMEOUT_MS)
    };
    mapSet(pending, message.requestId, item);
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
    const now = dateNow();
    if (now - lastQuickAttach < constants.QUICK_ATTACH_MIN_INTERVAL_MS) return;
    lastQuickAttach = now;
    const type = pageType === TYPES.PAGE_QUICK_SELECTION ? TYPES.QUICK_ATTACH_SELECTION : TYPES.QUICK_ATTACH_IMAGE_PREVIEW;
    sendRuntimeMessage(envelope(type, {}, { requestId: bridge.requestId('quick') })).catch(() => {});
  }

  // ---------- Messages from the main world ----------

  // Checked, rebuilt from the checked fields, then measured: only the
  // rebuilt answer is relayed, and only when it fits its type's byte cap.
  function relayAnswer(item, message) {
    const { request, sendResponse } = item;
    if (!validResponse(message, request.type)) {
      respondError(sendResponse, request, ERRORS.INVALID_PAGE_RESPONSE, `${request.type} answered with an invalid or oversized response.`);
      return;
    }
    const answer = rebuildResponse(message, request, nonce);
    if (!withinByteCap(answer, request.type)) {
      respondError(sendResponse, request, ERRORS.PAGE_ANSWER_TOO_LARGE, `${request.type} answered with more bytes than the bridge relays.`);
      return;
    }
    sendResponse(answer);
  }

  windowAddEventListener('message', event => {
    const message = event.data;
    if (event.source !== window || message?.nonce !== nonce || !valid(message)) return;
    if (message.type === TYPES.PAGE_BRIDGE_READY) {
      markReady();
      return;
    }
    if (message.type === TYPES.RESPONSE) {
      const item = mapGet(pending, message.requestId);
      if (!item) return;
      mapDelete(pending, message.requestId);
      clearTimeout(item.timeout);
      relayAnswer(item, message);
      return;
    }
    if (message.type === TYPES.PAGE_QUICK_SELECTION || message.type === TYPES.PAGE_QUICK_IMAGE_PREVIEW) {
      forwardQuickAttach(message.type);
    }
  });

  windowAddEventListener('pagehide', () => {
    unloading = true;
    clearTimeout(handshakeTimer);
    clearTimeout(recoveryTimer);
    for (const item of mapValues(pending)) {
      clearTimeout(item.timeout);
      respondError(item.sendResponse, item.request, ERRORS.PAGE_UNLOADED, 'The page unloaded before it answered.');
    }
    mapClear(pending);
    for (const timer of mapValues(cancelledRequests)) clearTimeout(timer);
    mapClear(cancelledRequests);
  }, { once: true });

  scheduleRecovery(constants.MAIN_RECOVERY_DELAY_MS);
  postHandshake();
})();
