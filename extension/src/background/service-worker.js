/*
 * Service-worker shim (module).
 *
 * Manifest V3 delivers only events whose listeners exist after the first,
 * synchronous evaluation of this script, and WebAssembly instantiates
 * asynchronously. So every listener is registered here, at the top level;
 * events that arrive before the module is ready wait in a queue; and
 * onMessage returns true so that sendResponse stays usable until the Rust
 * router answers. All decisions are made in Rust (crate `worker-core`).
 */
import init, * as core from '../wasm/worker_core.js';
// The wire names the shim writes itself (the response type, the code of a
// failed call), generated from the Rust `protocol` crate like the page's.
import '../content/protocol-constants.js';

const { TYPES, ERRORS } = globalThis.__typstAgentProtocolConstants;

const waiting = [];
let state = 'loading';
let failure = null;

function whenReady(task) {
  if (state === 'loading') waiting.push(task);
  else task();
}

init({ module_or_path: new URL('../wasm/worker_core_bg.wasm', import.meta.url) }).then(
  () => {
    state = 'ready';
    core.start();
  },
  error => {
    state = 'failed';
    failure = error;
    console.error('Typst Side Agent: the worker module failed to load.', error);
  }
).finally(() => {
  for (const task of waiting.splice(0)) task();
});

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only messages with a requestId are ever answered by the worker.
  if (typeof message?.requestId !== 'string') return false;
  whenReady(() => {
    if (state === 'failed') {
      sendResponse({
        type: TYPES.RESPONSE,
        requestId: message.requestId,
        payload: { ok: false, error: { code: ERRORS.WORKER_UNAVAILABLE, message: `The worker module failed to load: ${failure?.message || failure}` } }
      });
      return;
    }
    core.handle_message(message, sender).then(
      response => { if (response !== undefined) sendResponse(response); },
      error => sendResponse({
        type: TYPES.RESPONSE,
        requestId: message.requestId,
        payload: { ok: false, error: { code: ERRORS.INTERNAL_ERROR, message: String(error?.message || error) } }
      })
    );
  });
  return true;
});

const onReady = task => (...args) => whenReady(() => { if (state === 'ready') task(...args); });

chrome.runtime.onInstalled.addListener(onReady(() => core.bootstrap()));
chrome.runtime.onStartup.addListener(onReady(() => core.bootstrap()));
chrome.tabs.onUpdated.addListener(onReady((tabId, change, tab) => core.tab_updated(tabId, change, tab)));
chrome.tabs.onActivated.addListener(onReady(info => core.tab_activated(info.tabId)));
chrome.webNavigation.onHistoryStateUpdated.addListener(onReady(details => {
  core.history_state_updated(details.tabId, details.frameId, details.url);
}));
