//! The one allowlist of shipped files and where each comes from.
//!
//! `build` lays out exactly these files in [`extension_dir`]; `package` zips
//! exactly these and checks that the folder holds nothing else. A file that is
//! not listed here does not ship.

use crate::process::root;
use std::path::PathBuf;

/// Where a shipped file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Copied from this path, relative to the workspace root.
    Repo(&'static str),
    /// Produced by the wasm build: wasm-bindgen output after wasm-opt, and
    /// the digests of the wasm files ([`DIGESTS_PATH`]).
    Wasm,
}

/// One shipped file: its path inside the extension and its source.
pub struct Shipped {
    pub path: &'static str,
    pub source: Source,
}

const fn repo(path: &'static str, from: &'static str) -> Shipped {
    Shipped {
        path,
        source: Source::Repo(from),
    }
}

const fn wasm(path: &'static str) -> Shipped {
    Shipped {
        path,
        source: Source::Wasm,
    }
}

/// Every file of the extension, in no particular order (the ZIP sorts them).
pub const SHIPPED: &[Shipped] = &[
    repo("manifest.json", "manifest.json"),
    repo("LICENSE", "LICENSE"),
    repo("PRIVACY.md", "PRIVACY.md"),
    repo("icons/icon16.png", "extension/icons/icon16.png"),
    repo("icons/icon32.png", "extension/icons/icon32.png"),
    repo("icons/icon48.png", "extension/icons/icon48.png"),
    repo("icons/icon128.png", "extension/icons/icon128.png"),
    repo(
        "src/background/service-worker.js",
        "extension/src/background/service-worker.js",
    ),
    repo("src/sidepanel/index.html", "extension/src/sidepanel/index.html"),
    repo("src/sidepanel/styles.css", "extension/src/sidepanel/styles.css"),
    repo("src/sidepanel/chat.css", "extension/src/sidepanel/chat.css"),
    repo("src/sidepanel/sidepanel.js", "extension/src/sidepanel/sidepanel.js"),
    repo(
        "src/background/wasm-loader.js",
        "extension/src/background/wasm-loader.js",
    ),
    repo(
        "src/content/protocol-constants.js",
        "extension/src/content/protocol-constants.js",
    ),
    repo(
        "src/content/bridge-protocol.js",
        "extension/src/content/bridge-protocol.js",
    ),
    repo("src/content/isolated.js", "extension/src/content/isolated.js"),
    repo("src/content/workspace.js", "extension/src/content/workspace.js"),
    repo("src/content/diagnostics.js", "extension/src/content/diagnostics.js"),
    repo("src/content/builtins.js", "extension/src/content/builtins.js"),
    repo("src/content/edit-guard.js", "extension/src/content/edit-guard.js"),
    repo("src/content/inline-diff.js", "extension/src/content/inline-diff.js"),
    repo("src/content/quick-attach.js", "extension/src/content/quick-attach.js"),
    repo("src/content/main.js", "extension/src/content/main.js"),
    wasm("src/wasm/worker_core.js"),
    wasm("src/wasm/worker_core_bg.wasm"),
    wasm("src/wasm/sidepanel.js"),
    wasm("src/wasm/sidepanel_bg.wasm"),
    wasm(DIGESTS_PATH),
];

/// The build's SHA-256 of each wasm file, for the wasm loader
/// (`extension/src/background/wasm-loader.js`) to key its Cache Storage copy with.
pub const DIGESTS_PATH: &str = "src/wasm/digests.js";

/// Files shipped for people, not referenced by the extension itself.
pub const DOCUMENTS: &[&str] = &["LICENSE", "PRIVACY.md"];

/// The wasm crates: (cargo package, output stem in `src/wasm/`).
pub const WASM_CRATES: &[(&str, &str)] = &[("worker-core", "worker_core"), ("sidepanel", "sidepanel")];

/// The unpacked extension that Chrome's "Load unpacked" accepts.
pub fn extension_dir() -> PathBuf {
    root().join("target").join("extension")
}

/// The release ZIP.
pub fn zip_path() -> PathBuf {
    root().join("target").join("typst-side-agent.zip")
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::page_bridge::{ISOLATED_WORLD_FILES, MAIN_WORLD_FILES};
    use std::collections::HashSet;

    /// The manifest loads the page bridge's file lists, and every page file
    /// ships from `extension/` under the same path.
    #[test]
    fn the_page_files_are_the_bridge_lists() {
        let text = std::fs::read_to_string(root().join("manifest.json")).expect("manifest");
        let manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let strings = |value: &serde_json::Value| -> Vec<String> {
            value
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        };
        assert_eq!(strings(&manifest["content_scripts"][0]["js"]), ISOLATED_WORLD_FILES);
        assert_eq!(
            strings(&manifest["web_accessible_resources"][0]["resources"]),
            MAIN_WORLD_FILES
        );
        for file in ISOLATED_WORLD_FILES.iter().chain(MAIN_WORLD_FILES) {
            let shipped = SHIPPED.iter().find(|s| s.path == *file).map(|s| match s.source {
                Source::Repo(from) => from.to_owned(),
                Source::Wasm => String::new(),
            });
            assert_eq!(shipped, Some(format!("extension/{file}")), "{file}");
        }
    }

    #[test]
    fn paths_are_unique_relative_and_sources_exist() {
        let mut seen = HashSet::new();
        for file in SHIPPED {
            assert!(seen.insert(file.path), "{} listed twice", file.path);
            assert!(
                !file.path.starts_with('/') && !file.path.contains(".."),
                "{}",
                file.path
            );
            if let Source::Repo(from) = file.source {
                assert!(root().join(from).is_file(), "{from} is missing");
            }
        }
        for (_, stem) in WASM_CRATES {
            assert!(seen.contains(format!("src/wasm/{stem}.js").as_str()));
            assert!(seen.contains(format!("src/wasm/{stem}_bg.wasm").as_str()));
        }
    }
}
