//! `cargo xtask build`: wasm → wasm-bindgen → wasm-opt → the unpacked extension.
//!
//! It first installs the wasm target and wasm-opt when they are missing
//! ([`setup::ensure_build_tools`]), so it works on a fresh machine.

use crate::layout::{self, SHIPPED, Source, WASM_CRATES};
use crate::process::{self, root};
use crate::setup::{self, WASM_TARGET};
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The features rustc enables by default for wasm32-unknown-unknown; wasm-opt
/// must accept them all.
const WASM_OPT_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// Paths baked into the wasm (panic locations) are made independent of where
/// the checkout and the cargo registry live, so every clone builds the same bytes.
fn reproducible_rustflags() -> String {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    let mut flags = vec![format!("--remap-path-prefix={}=/typst-side-agent", root().display())];
    if let Some(cargo_home) = cargo_home {
        flags.push(format!("--remap-path-prefix={}=/cargo", cargo_home.display()));
    }
    flags.join("\u{1f}")
}

/// One cargo run per crate: a run that builds both would unify their
/// dependencies' features, and the panel must not link what only the worker
/// enables (protocol's `patterns`: regex-automata and its Unicode tables).
fn compile_wasm() -> Result<()> {
    for (package, _) in WASM_CRATES {
        link_wasm(package, &root().join("target"), &[])?;
    }
    Ok(())
}

/// Builds and links one wasm crate (release, reproducible paths) into
/// `target_dir`, with `extra_flags` for rustc (the bench's size report adds a
/// linker map); its file is [`linked_wasm`].
pub(crate) fn link_wasm(package: &str, target_dir: &Path, extra_flags: &[String]) -> Result<()> {
    let mut flags = reproducible_rustflags();
    for flag in extra_flags {
        flags.push('\u{1f}');
        flags.push_str(flag);
    }
    let mut cargo = process::cargo();
    cargo.args(["build", "--release", "--target", WASM_TARGET, "--package", package]);
    cargo.env("CARGO_TARGET_DIR", target_dir);
    cargo.env("CARGO_ENCODED_RUSTFLAGS", flags);
    process::run(&mut cargo)
}

/// The linked (pre-wasm-bindgen) file of the crate `stem` in `target_dir`.
pub(crate) fn linked_wasm(target_dir: &Path, stem: &str) -> PathBuf {
    target_dir
        .join(WASM_TARGET)
        .join("release")
        .join(format!("{stem}.wasm"))
}

fn bindgen(stem: &str, out_dir: &Path) -> Result<()> {
    let input = linked_wasm(&root().join("target"), stem);
    let mut bindgen = wasm_bindgen_cli_support::Bindgen::new();
    bindgen
        .input_path(&input)
        .web(true)
        .context("selecting the web target")?
        .typescript(false)
        .out_name(stem)
        .generate(out_dir)
        .with_context(|| format!("wasm-bindgen on {}", input.display()))
}

/// Chrome compiles a wasm function the first time it runs, whole. wasm-opt
/// by default inlines every function that has one caller, however big, which
/// folds whole call trees into single functions of 100 KB and more (the
/// worker's message routing was one); a woken worker's first answer then
/// compiles all of it. Bounding that inlining keeps the code a first answer
/// reaches close to the code it runs, at no cost in size.
const WASM_OPT_LAZY_COMPILE: &[&str] = &["--one-caller-inline-max-function-size", "1000"];

fn optimize(wasm_opt: &Path, input: &Path, output: &Path) -> Result<()> {
    let mut command = Command::new(wasm_opt);
    command
        .arg(input)
        .arg("-Oz")
        .args(WASM_OPT_FEATURES)
        .args(WASM_OPT_LAZY_COMPILE)
        .arg("-o")
        .arg(output);
    process::run(&mut command)
}

pub fn build() -> Result<()> {
    let started = Instant::now();
    let wasm_opt = setup::ensure_build_tools()?;
    compile_wasm()?;

    let bindgen_dir = root().join("target").join("wasm-bindgen");
    let out = layout::extension_dir();
    if out.exists() {
        fs::remove_dir_all(&out).with_context(|| format!("removing {}", out.display()))?;
    }
    for file in SHIPPED {
        let target = out.join(file.path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        if let Source::Repo(from) = file.source {
            fs::copy(root().join(from), &target).with_context(|| format!("copying {from}"))?;
        }
    }

    let mut wasm_sizes = Vec::new();
    for (_, stem) in WASM_CRATES {
        let dir = bindgen_dir.join(stem);
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        bindgen(stem, &dir)?;
        let produced: Vec<String> = fs::read_dir(&dir)?
            .filter_map(|entry| entry.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        let expected = [format!("{stem}.js"), format!("{stem}_bg.wasm")];
        if let Some(extra) = produced.iter().find(|name| !expected.contains(name)) {
            bail!("wasm-bindgen produced {extra} for {stem}, which is not in the shipped allowlist");
        }
        let wasm_dir = out.join("src").join("wasm");
        fs::copy(dir.join(&expected[0]), wasm_dir.join(&expected[0]))?;
        let shipped_wasm = wasm_dir.join(&expected[1]);
        optimize(&wasm_opt, &dir.join(&expected[1]), &shipped_wasm)?;
        wasm_sizes.push((expected[1].clone(), fs::metadata(&shipped_wasm)?.len()));
    }

    let elapsed = started.elapsed();
    println!(
        "Built the extension in {} ({:.1} s)",
        out.display(),
        elapsed.as_secs_f64()
    );
    for (name, size) in &wasm_sizes {
        println!("  {name}: {size} bytes");
    }
    Ok(())
}
