/*
 * Side-panel shim: instantiates the `sidepanel` WebAssembly module, whose
 * start function builds the whole UI through web-sys.
 */
import init from '../wasm/sidepanel.js';

init({ module_or_path: new URL('../wasm/sidepanel_bg.wasm', import.meta.url) }).catch(error => {
  console.error('Typst Side Agent: the panel module failed to load.', error);
  const app = document.getElementById('app');
  if (app) app.textContent = `The panel could not start: ${error?.message || error}`;
});
