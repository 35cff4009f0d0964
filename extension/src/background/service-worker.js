/*
 * Service-worker shim (module).
 *
 * Manifest V3 delivers only events whose listeners exist after the first,
 * synchronous evaluation of this script, and WebAssembly instantiates
 * asynchronously. So every listener is registered here, at the top level;
 * events that arrive before the module is ready wait in a queue; and
 * onMessage returns true so that sendResponse stays usable until the Rust
 * router answers (and every such channel is answered or closed). Who may
 * send what is decided in Rust from the browser's `sender`, which the shim
 * passes on untouched. All decisions are made in Rust (crate `worker-core`); the
 * one call the shim makes itself is opening the side panel for a quick attach
 * that arrives while the module loads (see openPanelWhileLoading).
 */
import init, * as core from '../wasm/worker_core.js';
import { compileWasm } from './wasm-loader.js';
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

function runWaiting() {
  for (const task of waiting.splice(0)) task();
}

// core.start() comes first and the waiting messages right after it, in the
// same turn: start() marks the start-up sequence begun, so each waiting
// message sees what its answer must wait for, and the sequence's side work
// (tabs, panels, rules) waits for the storage answers among them (the order
// is decided in Rust: worker-core's startup module). The module is compiled
// from a copy in Cache Storage, which answers a just-woken worker faster than
// its own package does (wasm-loader.js).
init({ module_or_path: compileWasm(new URL('../wasm/worker_core_bg.wasm', import.meta.url)) }).then(
  () => {
    state = 'ready';
    try {
      core.start();
    } finally {
      runWaiting();
    }
  },
  error => {
    state = 'failed';
    failure = error;
    console.error('Typst Side Agent: the worker module failed to load.', error);
    runWaiting();
  }
);

// A click on the page's "Add to agent" opens the side panel, and Chrome allows
// chrome.sidePanel.open only synchronously inside this listener (the click's
// user gesture ends with it). A ready module makes that call itself (Rust
// polls each answer once inside the listener); a click that woke a stopped
// worker arrives while the module still loads, so the shim opens the sender's
// window's panel then. Whether the event is accepted is still decided in Rust
// when the queued message runs; the panel opened here only shows what Rust
// queued.
const QUICK_ATTACH_TYPES = new Set([TYPES.QUICK_ATTACH_SELECTION, TYPES.QUICK_ATTACH_IMAGE_PREVIEW]);

function openPanelWhileLoading(message, sender) {
  const windowId = sender?.tab?.windowId;
  if (state !== 'loading' || !QUICK_ATTACH_TYPES.has(message.type) || !Number.isInteger(windowId) || windowId < 0) return;
  chrome.sidePanel.open({ windowId }).catch(error => console.warn('Typst Side Agent: the side panel did not open.', error));
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // Only messages with a requestId are ever answered by the worker.
  if (typeof message?.requestId !== 'string') return false;
  openPanelWhileLoading(message, sender);
  whenReady(() => {
    if (state === 'failed') {
      sendResponse({
        type: TYPES.RESPONSE,
        requestId: message.requestId,
        payload: { ok: false, error: { code: ERRORS.WORKER_UNAVAILABLE, message: `The worker module failed to load: ${failure?.message || failure}` } }
      });
      return;
    }
    // Every channel kept open by `return true` is answered or closed: an
    // answer of `undefined` (nothing for the worker to say) still calls
    // sendResponse, which closes the channel instead of leaving the sender's
    // promise to wait until the worker stops. A throw anywhere (a sender
    // that cannot be read, an answer that cannot be sent) answers the error.
    const fail = error => sendResponse({
      type: TYPES.RESPONSE,
      requestId: message.requestId,
      payload: { ok: false, error: { code: ERRORS.INTERNAL_ERROR, message: String(error?.message || error) } }
    });
    try {
      core.handle_message(message, sender).then(response => {
        try { sendResponse(response); } catch (error) { fail(error); }
      }, fail);
    } catch (error) {
      fail(error);
    }
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
