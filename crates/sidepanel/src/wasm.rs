//! The cdylib's only export: the start function the shim's `init()` runs.

use wasm_bindgen::prelude::*;

/// Builds the panel and starts its controller (wasm-bindgen runs it when the
/// shim's `init()` has loaded the module).
#[wasm_bindgen(start)]
pub fn start() {
    crate::shell::start();
}
