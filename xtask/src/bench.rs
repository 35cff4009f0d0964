//! `cargo xtask bench`: builds the extension and runs `tests/bench/bench.mjs`
//! in Chromium. The figures are printed for people to read; nothing asserts
//! them, because they depend on the machine.

use crate::build;
use crate::layout;
use crate::process::{self, root};
use crate::setup::{CHROMIUM, ensure_chromium, ensure_npm_packages};
use anyhow::Result;
use std::process::Command;

pub fn bench() -> Result<()> {
    ensure_chromium()?;
    build::build()?;
    let tests = root().join("tests");
    ensure_npm_packages(&tests)?;
    let mut node = Command::new("node");
    node.arg("bench/bench.mjs")
        .current_dir(&tests)
        .env("TSA_EXTENSION_DIR", layout::extension_dir())
        .env("TSA_CHROMIUM_PATH", CHROMIUM);
    process::run(&mut node)
}
