//! The cdylib's only export: the start function the shim's `init()` runs.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    crate::shell::start();
}
