//! Installing what a fresh machine lacks, for every command that needs it.
//!
//! The pinned toolchain (`rust-toolchain.toml`) names the wasm target, but
//! rustup adds it only when it installs the toolchain itself: a machine that
//! already had that toolchain lacks the target, and the first wasm build fails
//! with "can't find crate for `core`". So `build`, `package`, `bench` and
//! `verify` all start with [`ensure_build_tools`], one function, and never
//! differ in what they install.

use crate::process::{self, root};
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The target the two wasm crates compile to.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// The browser the harness drives (Debian's package `chromium`).
pub const CHROMIUM: &str = "/usr/lib/chromium/chromium";

/// The wasm target and the wasm-opt npm package; returns the path of wasm-opt.
pub fn ensure_build_tools() -> Result<PathBuf> {
    ensure_wasm_target().with_context(|| format!("the {WASM_TARGET} target"))?;
    let dir = root().join("xtask").join("npm");
    ensure_npm_packages(&dir).context("the build tools (xtask/npm)")?;
    Ok(dir.join("node_modules").join(".bin").join("wasm-opt"))
}

/// Adds the wasm target to the pinned toolchain when it is missing (rustup
/// runs in the workspace root, so `rust-toolchain.toml` selects the toolchain).
fn ensure_wasm_target() -> Result<()> {
    let installed = process::output(
        Command::new("rustup")
            .args(["target", "list", "--installed"])
            .current_dir(root()),
    )?;
    if !installed.lines().any(|line| line.trim() == WASM_TARGET) {
        process::run(
            Command::new("rustup")
                .args(["target", "add", WASM_TARGET])
                .current_dir(root()),
        )?;
    }
    Ok(())
}

/// Installs the npm packages of `dir` when they are missing or older than its
/// lock file.
pub fn ensure_npm_packages(dir: &Path) -> Result<()> {
    let installed = dir.join("node_modules").join(".package-lock.json");
    let lock = dir.join("package-lock.json");
    let fresh = match (fs::metadata(&installed), fs::metadata(&lock)) {
        (Ok(installed), Ok(lock)) => installed.modified()? >= lock.modified()?,
        _ => false,
    };
    if !fresh {
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund"]).current_dir(dir);
        process::run(&mut npm)?;
    }
    Ok(())
}

fn apt_get() -> Command {
    let is_root = process::output(Command::new("id").arg("-u"))
        .map(|uid| uid.trim() == "0")
        .unwrap_or(false);
    let mut command = if is_root {
        Command::new("apt-get")
    } else {
        let mut sudo = Command::new("sudo");
        sudo.arg("apt-get");
        sudo
    };
    command.env("DEBIAN_FRONTEND", "noninteractive");
    command
}

/// Debian's Chromium, for the browser tests and the bench.
pub fn ensure_chromium() -> Result<()> {
    if Path::new(CHROMIUM).exists() {
        return Ok(());
    }
    process::run(apt_get().arg("update"))?;
    process::run(apt_get().args(["install", "-y", "--no-install-recommends", "chromium"]))?;
    if !Path::new(CHROMIUM).exists() {
        bail!("installing chromium did not provide {CHROMIUM}");
    }
    Ok(())
}

/// The loopback MCP and custom-tool servers the browser tests start
/// (`tests/tool-servers/`): their npm packages and a Python venv with the
/// pinned `mcp` package, made by the folder's own idempotent `setup.mjs`.
/// `python3 -m venv` needs Debian's `python3-venv` (ensurepip); it is
/// installed when missing, like Chromium.
pub fn ensure_tool_servers() -> Result<()> {
    let has_ensurepip = Command::new("python3")
        .args(["-c", "import ensurepip"])
        .status()
        .map(|status| status.success())
        .unwrap_or(false);
    if !has_ensurepip {
        process::run(apt_get().arg("update"))?;
        process::run(apt_get().args(["install", "-y", "--no-install-recommends", "python3-venv"]))?;
    }
    let script = root().join("tests").join("tool-servers").join("setup.mjs");
    process::run(Command::new("node").arg(script).current_dir(root()))
}
