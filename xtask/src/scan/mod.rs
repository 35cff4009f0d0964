//! Reading the project's own sources: which files there are, which of them
//! are test code, and tokenizers for Rust ([`rust`]) and JavaScript ([`js`]).

pub mod js;
pub mod rust;

use anyhow::{Context, Result};
use std::fs;
use std::path::Path;

/// Folders that never hold project sources.
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", ".git", ".cache"];

/// One source file: its `/`-separated path from the workspace root and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

impl SourceFile {
    /// Whether the whole file is test code (see [`is_test_path`]).
    pub fn is_test(&self) -> bool {
        is_test_path(&self.path)
    }
}

/// Test files: `tests.rs`, `*_tests.rs`, and anything under a `tests/` folder
/// (the browser harness included).
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    name == "tests.rs" || name.ends_with("_tests.rs") || parts.contains(&"tests")
}

/// Every file under `root/dir` whose name ends in one of `extensions`, sorted.
pub fn files_under(root: &Path, dir: &str, extensions: &[&str]) -> Result<Vec<SourceFile>> {
    fn walk(root: &Path, dir: &Path, extensions: &[&str], out: &mut Vec<SourceFile>) -> Result<()> {
        let entries = fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type()?.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    walk(root, &path, extensions, out)?;
                }
            } else if extensions.iter().any(|ext| name.ends_with(ext)) {
                let relative = path
                    .strip_prefix(root)?
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
                out.push(SourceFile { path: relative, text });
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    let start = root.join(dir);
    if start.is_dir() {
        walk(root, &start, extensions, &mut out)?;
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_are_recognised_by_name_and_folder() {
        for path in [
            "crates/a/src/tests.rs",
            "crates/a/src/app_tests.rs",
            "crates/a/tests/flow.rs",
            "tests/browser/harness.mjs",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "crates/a/src/lib.rs",
            "crates/a/src/contests.rs",
            "extension/src/content/main.js",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }
}
