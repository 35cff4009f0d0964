//! `cargo xtask fuzz [SECONDS]`: runs every cargo-fuzz target of `fuzz/` for
//! SECONDS each (default 60) on the machine's nightly toolchain, installing
//! cargo-fuzz first when it is missing. Fuzzing is not part of `verify`.
//!
//! New inputs go to `fuzz/corpus/<target>` (ignored by git); the committed
//! seeds in `fuzz/seeds/<target>` are read as a second corpus. A crash stops
//! the run with the target's artifacts listed under `fuzz/artifacts/`.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The targets, in run order (each is a `[[bin]]` of `fuzz/Cargo.toml`).
pub const TARGETS: &[&str] = &["envelope", "schema", "arguments", "endpoint", "pattern"];

const DEFAULT_SECONDS: u64 = 60;

/// Environment set by the outer `cargo run` that must not leak into the
/// nightly build (it would pin the stable toolchain or its tools).
const TOOLCHAIN_ENV: &[&str] = &[
    "RUSTUP_TOOLCHAIN",
    "RUSTC",
    "RUSTDOC",
    "RUSTC_WRAPPER",
    "CARGO",
    "CARGO_TARGET_DIR",
];

pub fn run(args: &[String]) -> Result<()> {
    let seconds = match args {
        [] => DEFAULT_SECONDS,
        [value] => value
            .parse::<u64>()
            .with_context(|| format!("SECONDS must be a whole number, not {value:?}"))?,
        _ => bail!("usage: cargo xtask fuzz [SECONDS]"),
    };
    if seconds == 0 {
        bail!("SECONDS must be at least 1");
    }
    let fuzz_dir = repo_root().join("fuzz");
    if !fuzz_dir.join("Cargo.toml").is_file() {
        bail!("{} has no Cargo.toml", fuzz_dir.display());
    }
    ensure_nightly()?;
    ensure_cargo_fuzz()?;

    let mut summary = Vec::new();
    for target in TARGETS {
        let corpus = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).with_context(|| format!("creating {}", corpus.display()))?;
        let seeds = fuzz_dir.join("seeds").join(target);
        println!("fuzz: {target} for {seconds} s");
        let mut command = cargo_nightly();
        command
            .current_dir(&fuzz_dir)
            .args(["fuzz", "run", target])
            .arg(&corpus)
            .args(seeds.is_dir().then_some(&seeds))
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .stdout(Stdio::inherit())
            .stderr(Stdio::piped());
        let output = command
            .output()
            .with_context(|| format!("running cargo fuzz for {target}"))?;
        let log = String::from_utf8_lossy(&output.stderr);
        eprint!("{}", tail(&log, 40));
        let runs = executions(&log);
        if !output.status.success() {
            bail!(
                "fuzz target {target} failed ({}) after {} executions; see {}",
                output.status,
                runs.map_or_else(|| "an unknown number of".to_owned(), |n| n.to_string()),
                fuzz_dir.join("artifacts").join(target).display()
            );
        }
        summary.push((*target, runs));
    }
    println!("fuzz summary ({seconds} s per target):");
    for (target, runs) in summary {
        match runs {
            Some(n) => println!("  {target:<10} {n} executions, no findings"),
            None => println!("  {target:<10} finished, no findings (execution count not reported)"),
        }
    }
    Ok(())
}

fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map_or_else(|| manifest.to_path_buf(), Path::to_path_buf)
}

fn cargo_nightly() -> Command {
    let mut command = Command::new("cargo");
    command.arg("+nightly");
    for name in TOOLCHAIN_ENV {
        command.env_remove(name);
    }
    command
}

fn ensure_nightly() -> Result<()> {
    let status = cargo_nightly()
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("running cargo +nightly --version")?;
    if !status.success() {
        bail!("fuzzing needs the nightly toolchain (rustup toolchain install nightly)");
    }
    Ok(())
}

fn ensure_cargo_fuzz() -> Result<()> {
    let present = cargo_nightly()
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if present {
        return Ok(());
    }
    println!("fuzz: installing cargo-fuzz");
    let mut install = Command::new("cargo");
    for name in TOOLCHAIN_ENV {
        install.env_remove(name);
    }
    let status = install
        .args(["install", "cargo-fuzz"])
        .status()
        .context("running cargo install cargo-fuzz")?;
    if !status.success() {
        bail!("cargo install cargo-fuzz failed ({status})");
    }
    Ok(())
}

/// The count from libFuzzer's closing `Done N runs in S second(s)` line.
fn executions(log: &str) -> Option<u64> {
    log.lines().rev().find_map(|line| {
        line.trim()
            .strip_prefix("Done ")?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

fn tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.lines().collect();
    let start = all.len().saturating_sub(lines);
    let mut out = all[start..].join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_execution_count() {
        let log = "#1024 pulse cov: 10\nDone 465528 runs in 11 second(s)\n";
        assert_eq!(executions(log), Some(465_528));
        assert_eq!(executions("no summary"), None);
    }
}
