//! `cargo xtask fuzz [TARGET…] [SECONDS | --seconds S | --runs N] [--sanitizer NAME]`:
//! runs the named cargo-fuzz targets of `fuzz/` (all of them when none is
//! named), one after the other, for SECONDS each (default 60) or for exactly
//! N executions each, on the machine's nightly toolchain, installing
//! cargo-fuzz first when it is missing. `--sanitizer none` builds without
//! AddressSanitizer (the targets are safe Rust; it runs several times
//! faster, which long runs such as 10^7 executions need). Fuzzing is not
//! part of `verify`.
//!
//! New inputs go to `fuzz/corpus/<target>` (ignored by git); the committed
//! seeds in `fuzz/seeds/<target>` are read as a second corpus. A crash stops
//! the run with the target's artifacts listed under `fuzz/artifacts/`.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The targets, in run order (each is a `[[bin]]` of `fuzz/Cargo.toml`).
pub const TARGETS: &[&str] = &[
    "envelope",
    "schema",
    "arguments",
    "endpoint",
    "pattern",
    // The page-answer readers (content-bridge): the byte-capped, depth-limited
    // first reading under every answer type, then each interpreter fed from it.
    "page_answer",
    "page_context",
    "page_diagnostics",
    "page_preview",
    "page_probe",
    "page_edit",
];

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

const USAGE: &str = "usage: cargo xtask fuzz [TARGET…] [SECONDS | --seconds S | --runs N] [--sanitizer NAME]";

/// How long each target runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Budget {
    /// `-max_total_time`.
    Seconds(u64),
    /// `-runs`: exactly this many executions.
    Runs(u64),
}

impl Budget {
    fn flag(self) -> String {
        match self {
            Budget::Seconds(seconds) => format!("-max_total_time={seconds}"),
            Budget::Runs(runs) => format!("-runs={runs}"),
        }
    }

    fn describe(self) -> String {
        match self {
            Budget::Seconds(seconds) => format!("{seconds} s per target"),
            Budget::Runs(runs) => format!("{runs} executions per target"),
        }
    }
}

/// The parsed command line.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    targets: Vec<&'static str>,
    budget: Budget,
    sanitizer: Option<String>,
}

fn whole_number(value: Option<&String>, what: &str) -> Result<u64> {
    let value = value.with_context(|| format!("{what} needs a value; {USAGE}"))?;
    let n = value
        .parse::<u64>()
        .with_context(|| format!("{what} must be a whole number, not {value:?}"))?;
    if n == 0 {
        bail!("{what} must be at least 1");
    }
    Ok(n)
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut targets = Vec::new();
    let mut budget = None;
    let mut sanitizer = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let next_budget = match arg.as_str() {
            "--runs" => Some(Budget::Runs(whole_number(rest.next(), "--runs")?)),
            "--seconds" => Some(Budget::Seconds(whole_number(rest.next(), "--seconds")?)),
            "--sanitizer" => {
                sanitizer = Some(
                    rest.next()
                        .with_context(|| format!("--sanitizer needs a value; {USAGE}"))?
                        .clone(),
                );
                None
            }
            _ if arg.bytes().all(|b| b.is_ascii_digit()) => Some(Budget::Seconds(whole_number(Some(arg), "SECONDS")?)),
            _ => {
                let target = TARGETS.iter().find(|t| **t == arg).with_context(|| {
                    format!("unknown fuzz target {arg:?} (targets: {}); {USAGE}", TARGETS.join(", "))
                })?;
                targets.push(*target);
                None
            }
        };
        if let Some(next) = next_budget
            && budget.replace(next).is_some()
        {
            bail!("give one of SECONDS, --seconds and --runs; {USAGE}");
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    Ok(Options {
        targets,
        budget: budget.unwrap_or(Budget::Seconds(DEFAULT_SECONDS)),
        sanitizer,
    })
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    let fuzz_dir = repo_root().join("fuzz");
    if !fuzz_dir.join("Cargo.toml").is_file() {
        bail!("{} has no Cargo.toml", fuzz_dir.display());
    }
    ensure_nightly()?;
    ensure_cargo_fuzz()?;

    let mut summary = Vec::new();
    for target in &options.targets {
        let corpus = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).with_context(|| format!("creating {}", corpus.display()))?;
        let seeds = fuzz_dir.join("seeds").join(target);
        println!("fuzz: {target}, {}", options.budget.describe());
        let mut command = cargo_nightly();
        command.current_dir(&fuzz_dir).args(["fuzz", "run", "--release"]);
        if let Some(sanitizer) = &options.sanitizer {
            command.args(["--sanitizer", sanitizer]);
        }
        command
            .arg(target)
            .arg(&corpus)
            .args(seeds.is_dir().then_some(&seeds))
            .arg("--")
            .arg(options.budget.flag())
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
        summary.push((*target, runs, seconds_taken(&log)));
    }
    println!("fuzz summary ({}):", options.budget.describe());
    for (target, runs, seconds) in summary {
        let time = seconds.map_or_else(String::new, |s| format!(" in {s} s"));
        match runs {
            Some(n) => println!("  {target:<16} {n} executions{time}, no findings"),
            None => println!("  {target:<16} finished, no findings (execution count not reported)"),
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

/// The seconds from libFuzzer's closing `Done N runs in S second(s)` line.
fn seconds_taken(log: &str) -> Option<u64> {
    log.lines().rev().find_map(|line| {
        let rest = line.trim().strip_prefix("Done ")?;
        rest.split_once(" runs in ")?.1.split_whitespace().next()?.parse().ok()
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
        assert_eq!(seconds_taken(log), Some(11));
        assert_eq!(executions("no summary"), None);
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_targets_and_budgets() {
        let all = parse_options(&[]).expect("no arguments");
        assert_eq!(all.targets, TARGETS.to_vec());
        assert_eq!(all.budget, Budget::Seconds(DEFAULT_SECONDS));
        let old = parse_options(&args(&["30"])).expect("bare seconds");
        assert_eq!(old.budget, Budget::Seconds(30));
        let one =
            parse_options(&args(&["page_context", "--runs", "10000000", "--sanitizer", "none"])).expect("one target");
        assert_eq!(one.targets, vec!["page_context"]);
        assert_eq!(one.budget, Budget::Runs(10_000_000));
        assert_eq!(one.budget.flag(), "-runs=10000000");
        assert_eq!(one.sanitizer.as_deref(), Some("none"));
        for bad in [
            &["nope"][..],
            &["--runs"],
            &["--runs", "0"],
            &["5", "--runs", "9"],
            &["--seconds", "x"],
        ] {
            assert!(parse_options(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
