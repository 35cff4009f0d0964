//! `cargo xtask`: every piece of automation of Typst Side Agent.
//!
//! Architecture invariant: xtask is the only place that knows how the
//! extension is assembled — which files ship (the allowlist in [`layout`]),
//! how the wasm is produced, how the ZIP is written, and what `verify` runs.
//! It needs only the machine's Rust (rustup), Node and apt; everything else it
//! installs ([`setup`]).

mod bench;
mod build;
mod catalogue;
mod codegen;
mod fuzz;
mod layout;
mod package;
mod process;
mod scan;
mod setup;
mod size_map;
mod tidy;
mod verify;

use anyhow::{Result, bail};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  build              build the wasm and lay out the unpacked extension in target/extension/
  package [--check]  build, then write target/typst-side-agent.zip (--check: rebuild and
                     compare the bytes with the existing ZIP)
  codegen [--check]  write extension/src/content/protocol-constants.js from the protocol crate
                     (--check: fail if the committed file differs)
  tidy               check the project's rules (adapter files, file and function sizes, wire
                     strings written out, generated code, `pub mod` in the wasm crates, import
                     cycles); prints file:line, rule and hint for each finding
  bench [--against DIR]
                     package, profile the wasm sizes, then measure the extension in Chromium
                     (reported, not asserted); --against DIR: the same figures of a second
                     unpacked extension in the same run, side by side with the ratio
  fuzz [TARGET…] [SECONDS | --seconds S | --runs N] [--sanitizer NAME]
                     run the cargo-fuzz targets (all when none is named) for SECONDS
                     each (default 60) or N executions each (nightly; not part of verify)
  verify             every check and test: fmt, clippy (native and wasm32), native tests,
                     codegen drift, tidy, build, package checks, browser tests
";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(error) = run(&args) {
        eprintln!("xtask: error: {error:#}");
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Result<()> {
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let check = match rest.as_slice() {
        [] => false,
        ["--check"] => true,
        _ if matches!(args.first().map(String::as_str), Some("fuzz" | "bench")) => false,
        other => bail!("unexpected arguments {other:?}\n\n{USAGE}"),
    };
    match args.first().map(String::as_str) {
        Some("build") if !check => build::build(),
        Some("package") => package::package(check),
        Some("codegen") => codegen::codegen(check),
        Some("tidy") if !check => tidy::tidy(),
        Some("verify") if !check => verify::verify(),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("bench") => bench::bench(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command `{other}`\n\n{USAGE}"),
    }
}
