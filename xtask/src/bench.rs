//! `cargo xtask bench [--against DIR]`: packages the extension, prints what each
//! wasm file is made of, and runs `tests/bench/bench.mjs` in Chromium.
//!
//! With `--against DIR` the same figures are measured in the same run for a
//! second unpacked extension (for this project: the JavaScript original), and
//! each row prints both figures and their ratio. The figures are printed for
//! people to read; nothing asserts them, because they depend on the machine.

use crate::layout;
use crate::package;
use crate::process::{self, root};
use crate::setup::{CHROMIUM, ensure_chromium, ensure_npm_packages};
use crate::size_map;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// How many of each wasm file's largest items the size profile lists.
const TOP_ITEMS: &str = "12";

pub fn bench(args: &[String]) -> Result<()> {
    let against = parse_args(args)?;
    ensure_chromium()?;
    // The packaged build, so the ZIP row measures the file users download.
    package::package(false)?;
    size_profile()?;
    let tests = root().join("tests");
    ensure_npm_packages(&tests)?;
    let mut node = Command::new("node");
    node.arg("bench/bench.mjs")
        .current_dir(&tests)
        .env("TSA_EXTENSION_DIR", layout::extension_dir())
        .env("TSA_BENCH_ZIP", layout::zip_path())
        .env("TSA_CHROMIUM_PATH", CHROMIUM);
    if let Some(dir) = &against {
        node.env("TSA_BENCH_AGAINST", dir);
    }
    process::run(&mut node)
}

/// Reads `[--against DIR]`; DIR must be an unpacked extension (a folder with a
/// manifest.json), so a typo fails before the long build.
fn parse_args(args: &[String]) -> Result<Option<PathBuf>> {
    match args {
        [] => Ok(None),
        [flag, dir] if flag == "--against" => {
            let dir = std::fs::canonicalize(dir).with_context(|| format!("--against {dir}: no such folder"))?;
            if !dir.join("manifest.json").is_file() {
                bail!(
                    "--against {}: not an unpacked extension (no manifest.json)",
                    dir.display()
                );
            }
            Ok(Some(dir))
        }
        _ => bail!("usage: cargo xtask bench [--against DIR]"),
    }
}

/// Prints the largest items of each wasm file as wasm-bindgen wrote it (before
/// wasm-opt, which drops the names a profile needs), with twiggy, installed
/// from crates.io when missing; then each file's bytes by crate
/// ([`size_map`]), which says what the ZIP is made of.
fn size_profile() -> Result<()> {
    let twiggy = ensure_twiggy()?;
    let bindgen = root().join("target").join("wasm-bindgen");
    let shipped = layout::extension_dir().join("src").join("wasm");
    for (package, stem) in layout::WASM_CRATES {
        let file = format!("{stem}_bg.wasm");
        let size = std::fs::metadata(shipped.join(&file)).map(|m| m.len()).unwrap_or(0);
        println!("\n{file}: {size} bytes shipped; largest items before wasm-opt (twiggy top):");
        let input = bindgen.join(stem).join(&file);
        let mut command = Command::new(&twiggy);
        command.args(["top", "-n", TOP_ITEMS]).arg(&input);
        process::run(&mut command)?;
        size_map::report(package, stem)?;
    }
    Ok(())
}

fn ensure_twiggy() -> Result<PathBuf> {
    let installed = cargo_bin("twiggy");
    if installed.is_file() {
        return Ok(installed);
    }
    println!("bench: installing twiggy (the wasm size profiler) from crates.io");
    let mut install = Command::new("cargo");
    install.args(["install", "twiggy"]);
    process::run(&mut install)?;
    if !installed.is_file() {
        bail!("cargo install twiggy did not provide {}", installed.display());
    }
    Ok(installed)
}

/// Where `cargo install` puts a binary: `$CARGO_HOME/bin`, by default `~/.cargo/bin`.
fn cargo_bin(name: &str) -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"));
    home.join("bin").join(name)
}
