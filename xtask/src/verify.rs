//! `cargo xtask verify`: the README's test command and CI's only step.
//!
//! It first installs what a fresh machine lacks (the wasm target, Debian's
//! Chromium, the npm packages; see [`setup`]), then runs every check. A failing step does not
//! hide the others: all independent steps run, each prints its own summary,
//! and the exit status is non-zero if any failed.

use crate::layout;
use crate::process::{self, root};
use crate::setup::{self, CHROMIUM, ensure_npm_packages};
use crate::{codegen, package, tidy};
use anyhow::{Context, Result, bail};
use protocol::page_bridge::{ISOLATED_WORLD_FILES, MAIN_WORLD_FILES};
use std::process::Command;
use std::time::Instant;

/// The classic (non-module) scripts that run in pages, in the repository;
/// `node --check` parses them. They are the page bridge's file lists, so a new
/// page script is checked as soon as it is loaded anywhere.
fn classic_scripts() -> Vec<String> {
    let mut scripts: Vec<String> = Vec::new();
    for file in ISOLATED_WORLD_FILES.iter().chain(MAIN_WORLD_FILES) {
        let path = format!("extension/{file}");
        if !scripts.contains(&path) {
            scripts.push(path);
        }
    }
    scripts
}

struct Step {
    name: &'static str,
    ok: bool,
    seconds: f64,
}

fn step(steps: &mut Vec<Step>, name: &'static str, action: impl FnOnce() -> Result<()>) -> bool {
    println!("\n==> {name}");
    let started = Instant::now();
    let result = action();
    let seconds = started.elapsed().as_secs_f64();
    if let Err(error) = &result {
        eprintln!("xtask: {name} failed: {error:#}");
    }
    steps.push(Step {
        name,
        ok: result.is_ok(),
        seconds,
    });
    result.is_ok()
}

fn cargo(args: &[&str]) -> Result<()> {
    process::run(process::cargo().args(args))
}

fn browser_tests() -> Result<()> {
    let tests = root().join("tests");
    ensure_npm_packages(&tests)?;
    let mut npm = Command::new("npm");
    npm.args(["test"])
        .current_dir(&tests)
        .env("TSA_EXTENSION_DIR", layout::extension_dir())
        .env("TSA_PACKAGE_ZIP", layout::zip_path())
        .env("TSA_CHROMIUM_PATH", CHROMIUM);
    process::run(&mut npm)
}

pub fn verify() -> Result<()> {
    let started = Instant::now();
    let mut steps = Vec::new();
    let prepared = step(&mut steps, "install what is missing", || {
        setup::ensure_build_tools()?;
        setup::ensure_chromium().context("Debian's chromium")?;
        setup::ensure_tool_servers().context("the loopback tool servers of the browser tests")?;
        ensure_npm_packages(&root().join("tests")).context("the browser-test packages")
    });
    step(&mut steps, "rustfmt", || cargo(&["fmt", "--all", "--", "--check"]));
    step(&mut steps, "clippy (native)", || {
        cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])
    });
    if prepared {
        step(&mut steps, "clippy (wasm32)", || {
            cargo(&[
                "clippy",
                "--workspace",
                "--exclude",
                "xtask",
                "--target",
                "wasm32-unknown-unknown",
                "--",
                "-D",
                "warnings",
            ])
        });
    }
    step(&mut steps, "native tests", || cargo(&["test", "--workspace"]));
    // A workspace run unifies features, so protocol is tested there with the
    // worker's `patterns`; this run tests it as the panel links it.
    step(&mut steps, "protocol as the panel links it", || {
        cargo(&[
            "clippy",
            "--package",
            "protocol",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ])?;
        cargo(&["test", "--package", "protocol"])
    });
    // The fuzz targets are a workspace of their own that nothing else
    // compiles; `cargo xtask fuzz` runs them on nightly, but they build on
    // this toolchain too, so an API change that breaks them fails here.
    step(&mut steps, "fuzz targets build", || {
        let fuzz = root().join("fuzz");
        let target = root().join("target").join("fuzz-check");
        process::run(
            process::cargo()
                .args(["check", "--bins", "--manifest-path"])
                .arg(fuzz.join("Cargo.toml"))
                .arg("--target-dir")
                .arg(target),
        )
    });
    step(&mut steps, "generated page constants", || codegen::codegen(true));
    step(&mut steps, "tidy (project rules)", tidy::tidy);
    step(&mut steps, "page script syntax", || {
        for script in classic_scripts() {
            process::run(Command::new("node").arg("--check").arg(root().join(script)))?;
        }
        Ok(())
    });
    let packaged = prepared
        && step(&mut steps, "build and package", || package::package(false))
        && step(&mut steps, "package is reproducible", || package::package(true));
    if packaged {
        step(&mut steps, "browser tests", browser_tests);
    }

    println!("\n==> summary ({:.0} s)", started.elapsed().as_secs_f64());
    for s in &steps {
        println!(
            "  {:<4} {:<28} {:>7.1} s",
            if s.ok { "ok" } else { "FAIL" },
            s.name,
            s.seconds
        );
    }
    let failed: Vec<&str> = steps.iter().filter(|s| !s.ok).map(|s| s.name).collect();
    if !failed.is_empty() {
        bail!("verify failed: {}", failed.join(", "));
    }
    if !packaged {
        bail!("verify could not build the extension");
    }
    Ok(())
}
