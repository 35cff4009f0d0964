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
  if (!constants) return;
  if (root.__typstAgentBridgeProtocol?.version === constants.BRIDGE_VERSION) return;

  const { TYPES } = constants;
  const PAGE_REQUESTS = new Set(constants.PAGE_REQUESTS);
  const KNOWN_TYPES = new Set(Object.values(TYPES));
  const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

  function isPlainObject(value) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    const prototype = Object.getPrototypeOf(value);
    return prototype === Object.prototype || prototype === null;
  }

  function nonBlank(value, maxLength) {
    return typeof value === 'string' && value.trim() !== '' && value.length <= maxLength;
  }

  // Exact payload rules for what the page accepts. A payload with any field
  // outside `allowed`, or missing one in `required`, is refused.
  const PAYLOAD_RULES = {
    [TYPES.PAGE_GET_PROBE]: { allowed: [], required: [] },
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
          && nonBlank(payload.error.code, 200) && typeof payload.error.message === 'string'
    }
  };

  function validPayload(type, payload) {
    const rule = PAYLOAD_RULES[type];
    if (!rule || !isPlainObject(payload)) return false;
    if (Object.keys(payload).some(field => !rule.allowed.includes(field))) return false;
    if (!rule.required.every(field => hasOwn(payload, field))) return false;
    return rule.check ? rule.check(payload) : true;
  }

  function valid(message, expectedType) {
    if (!isPlainObject(message) || !KNOWN_TYPES.has(message.type)) return false;
    if (expectedType && message.type !== expectedType) return false;
    if (hasOwn(message, 'requestId') && !nonBlank(message.requestId, constants.MAX_REQUEST_ID_CHARS)) return false;
    if (hasOwn(message, 'runId') && message.runId !== undefined && !nonBlank(message.runId, constants.MAX_REQUEST_ID_CHARS)) return false;
    if (hasOwn(message, 'nonce') && !nonBlank(message.nonce, 200)) return false;
    return validPayload(message.type, message.payload);
  }

  // What each page request may answer with. Types without a rule here are not
  // served by this runtime yet, so the isolated world refuses them up front.
  const RESPONSE_DATA_RULES = {
    [TYPES.PAGE_GET_PROBE]: data => isPlainObject(data)
      && Object.keys(data).length === constants.PROBE_FIELDS.length
      && constants.PROBE_FIELDS.every(field => typeof data[field] === 'boolean'),
    [TYPES.PAGE_CANCEL_REQUEST]: data => isPlainObject(data)
      && Object.keys(data).length === 1 && typeof data.cancelled === 'boolean'
  };

  function validResponseData(requestType, data) {
    const rule = RESPONSE_DATA_RULES[requestType];
    return Boolean(rule && rule(data));
  }

  function validResponse(message, requestType) {
    if (!valid(message, TYPES.RESPONSE)) return false;
    return message.payload.ok === false || validResponseData(requestType, message.payload.data);
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
    TYPES,
    PAGE_REQUESTS,
    SERVED_PAGE_REQUESTS: new Set(Object.keys(RESPONSE_DATA_RULES)),
    requestId(prefix = 'page') {
      return `${prefix}-${crypto.randomUUID()}`;
    },
    envelope,
    valid,
    validResponse,
    validResponseData
  });
})(globalThis);
