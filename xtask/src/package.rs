//! `cargo xtask package`: the deterministic release ZIP and its checks.
//!
//! Determinism: entries in byte order of their paths, each entry deflated at
//! level 9 by one pure-Rust encoder (miniz_oxide, its version pinned by
//! Cargo.lock) or STORED when deflating would not make it smaller (the PNG
//! icons), the DOS epoch (1980-01-01 00:00) as every time and mode 0644, no
//! comments and no extra fields. The same files always give the same bytes.
//!
//! Deflated because users download it: the two wasm files shrink to well
//! under half.

use crate::build;
use crate::layout::{self, DOCUMENTS, SHIPPED};
use anyhow::{Context, Result, bail};
use protocol::page_bridge::MAIN_WORLD_FILES;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{Cursor, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// Suffixes that must never ship: sources, maps, type stubs, keys, logs.
const FORBIDDEN_SUFFIXES: &[&str] = &[
    ".rs", ".map", ".ts", ".mjs", ".pem", ".key", ".crx", ".log", ".p12", ".pfx",
];

/// Reads the laid-out extension: every file, by its `/`-separated path.
fn read_tree(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    fn walk(base: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) -> Result<()> {
        for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_symlink() {
                bail!(
                    "{} is a symbolic link; the package takes regular files only",
                    path.display()
                );
            } else if kind.is_dir() {
                walk(base, &path, files)?;
            } else {
                let relative = path
                    .strip_prefix(base)?
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                files.insert(relative, fs::read(&path)?);
            }
        }
        Ok(())
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files)?;
    Ok(files)
}

/// Resolves `reference` relative to the file at `from` (both archive paths).
fn resolve(from: &str, reference: &str) -> Option<String> {
    let reference = reference.split(['?', '#']).next()?;
    let mut parts: Vec<&str> = if let Some(absolute) = reference.strip_prefix('/') {
        return Some(absolute.to_owned());
    } else {
        from.split('/').collect()
    };
    parts.pop();
    for part in reference.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

fn is_external(reference: &str) -> bool {
    reference.is_empty()
        || reference.starts_with('#')
        || ["http:", "https:", "data:", "mailto:", "chrome:", "blob:"]
            .iter()
            .any(|scheme| reference.starts_with(scheme))
}

/// The quoted values that follow each of `markers` in `text`.
fn quoted_after<'a>(text: &'a str, markers: &[&str]) -> Vec<&'a str> {
    let mut found = Vec::new();
    for marker in markers {
        let mut rest = text;
        while let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
            let trimmed = rest.trim_start();
            let Some(quote) = trimmed.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
                continue;
            };
            let body = &trimmed[1..];
            if let Some(end) = body.find(quote) {
                found.push(&body[..end]);
            }
        }
    }
    found
}

/// Files a shipped file refers to: manifest entries, HTML `src`/`href`,
/// JavaScript static imports and `new URL(…, import.meta.url)`.
fn references(path: &str, content: &[u8]) -> Result<Vec<String>> {
    let text = String::from_utf8_lossy(content);
    let mut refs = Vec::new();
    if path == "manifest.json" {
        let manifest: Value = serde_json::from_str(&text).context("manifest.json is not JSON")?;
        let mut push = |value: &Value| {
            if let Some(text) = value.as_str() {
                refs.push(text.to_owned());
            }
        };
        push(&manifest["background"]["service_worker"]);
        push(&manifest["side_panel"]["default_path"]);
        manifest["icons"]
            .as_object()
            .into_iter()
            .flatten()
            .for_each(|(_, v)| push(v));
        manifest["action"]["default_icon"]
            .as_object()
            .into_iter()
            .flatten()
            .for_each(|(_, v)| push(v));
        for script in manifest["content_scripts"].as_array().into_iter().flatten() {
            script["js"].as_array().into_iter().flatten().for_each(&mut push);
            script["css"].as_array().into_iter().flatten().for_each(&mut push);
        }
        for entry in manifest["web_accessible_resources"].as_array().into_iter().flatten() {
            entry["resources"].as_array().into_iter().flatten().for_each(&mut push);
        }
        return Ok(refs.into_iter().map(|r| r.trim_start_matches('/').to_owned()).collect());
    }
    let found = if path.ends_with(".html") {
        quoted_after(&text, &[" src=", " href="])
    } else if path.ends_with(".js") {
        let mut found = quoted_after(&text, &[" from ", "\nimport ", "new URL("]);
        found.retain(|r| r.starts_with('.') || r.starts_with('/'));
        found
    } else {
        Vec::new()
    };
    Ok(found
        .into_iter()
        .filter(|r| !is_external(r))
        .filter_map(|r| resolve(path, r))
        .collect())
}

/// Every file the manifest and the pages reference must ship, and every
/// shipped file must be referenced (or be a document); nothing else ships.
pub fn check_contents(files: &BTreeMap<String, Vec<u8>>) -> Result<()> {
    let allowed: BTreeSet<&str> = SHIPPED.iter().map(|f| f.path).collect();
    let present: BTreeSet<&str> = files.keys().map(String::as_str).collect();
    if let Some(extra) = present.difference(&allowed).next() {
        bail!("{extra} is in the extension but not in the shipped allowlist");
    }
    if let Some(missing) = allowed.difference(&present).next() {
        bail!("{missing} is in the shipped allowlist but was not built");
    }
    for path in &present {
        if path.split('/').any(|part| part.starts_with('.')) || FORBIDDEN_SUFFIXES.iter().any(|s| path.ends_with(s)) {
            bail!("{path} must not ship");
        }
    }
    // The main-world files are registered by the worker at run time.
    let mut reached: BTreeSet<String> = DOCUMENTS
        .iter()
        .chain(MAIN_WORLD_FILES)
        .map(|p| (*p).to_owned())
        .collect();
    let mut queue: Vec<String> = vec!["manifest.json".to_owned()];
    queue.extend(reached.iter().cloned());
    while let Some(path) = queue.pop() {
        let Some(content) = files.get(&path) else {
            bail!("{path} is referenced but not in the package");
        };
        reached.insert(path.clone());
        for reference in references(&path, content)? {
            if !files.contains_key(&reference) {
                bail!("{path} references {reference}, which is not in the package");
            }
            if !reached.contains(&reference) {
                reached.insert(reference.clone());
                queue.push(reference);
            }
        }
    }
    if let Some(orphan) = present.iter().find(|p| !reached.contains(**p)) {
        bail!("{orphan} ships but nothing references it");
    }
    Ok(())
}

/// The deflate level of every deflated entry: the smallest output miniz_oxide makes.
const DEFLATE_LEVEL: u32 = 9;

/// Deflate, unless the raw deflate stream of `content` would not be smaller
/// than `content` itself (already compressed files, empty files).
fn compression_for(content: &[u8]) -> Result<CompressionMethod> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(DEFLATE_LEVEL));
    encoder.write_all(content)?;
    let deflated = encoder.finish()?;
    Ok(if deflated.len() < content.len() {
        CompressionMethod::Deflated
    } else {
        CompressionMethod::Stored
    })
}

/// The ZIP bytes for these files.
pub fn zip_bytes(files: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (path, content) in files {
        let method = compression_for(content)?;
        let level = (method == CompressionMethod::Deflated).then_some(i64::from(DEFLATE_LEVEL));
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .compression_level(level)
            .last_modified_time(DateTime::default())
            .unix_permissions(0o644);
        writer.start_file(path.as_str(), options)?;
        writer.write_all(content)?;
    }
    Ok(writer.finish()?.into_inner())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

pub fn package(check: bool) -> Result<()> {
    build::build()?;
    let files = read_tree(&layout::extension_dir())?;
    check_contents(&files)?;
    let bytes = zip_bytes(&files)?;
    let zip_path = layout::zip_path();
    if check {
        let existing = fs::read(&zip_path)
            .with_context(|| format!("reading {} (run `cargo xtask package` first)", zip_path.display()))?;
        if existing != bytes {
            bail!(
                "rebuilding gave different bytes: {} has sha256 {}, the rebuild {}",
                zip_path.display(),
                sha256_hex(&existing),
                sha256_hex(&bytes)
            );
        }
        println!(
            "Verified {} entries, {} bytes, sha256 {} (rebuild is identical)",
            files.len(),
            bytes.len(),
            sha256_hex(&bytes)
        );
        return Ok(());
    }
    let temporary = zip_path.with_extension(format!("zip.tmp-{}", std::process::id()));
    fs::write(&temporary, &bytes)?;
    fs::rename(&temporary, &zip_path)?;
    println!(
        "Packaged {} files, {} bytes, sha256 {}",
        files.len(),
        bytes.len(),
        sha256_hex(&bytes)
    );
    println!("  {}", zip_path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(entries: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        entries
            .iter()
            .map(|(p, c)| ((*p).to_owned(), c.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn resolves_relative_references() {
        assert_eq!(
            resolve("src/sidepanel/index.html", "styles.css").as_deref(),
            Some("src/sidepanel/styles.css")
        );
        assert_eq!(
            resolve("src/sidepanel/sidepanel.js", "../wasm/sidepanel.js").as_deref(),
            Some("src/wasm/sidepanel.js")
        );
        assert_eq!(resolve("a.js", "../../x.js"), None);
        assert_eq!(resolve("src/a.html", "./b.js?v=1#x").as_deref(), Some("src/b.js"));
    }

    #[test]
    fn finds_html_and_module_references() {
        let html = r#"<link rel="stylesheet" href="styles.css"><script type="module" src="app.js"></script><a href="https://x.test/">x</a>"#;
        assert_eq!(
            references("p/index.html", html.as_bytes()).ok(),
            Some(vec!["p/app.js".to_owned(), "p/styles.css".to_owned()])
        );
        let js = "import init, * as core from '../wasm/core.js';\nconst u = new URL('../wasm/core_bg.wasm', import.meta.url);\nimport x from 'bare';";
        let mut found = references("src/bg/sw.js", js.as_bytes()).unwrap_or_default();
        found.sort();
        assert_eq!(
            found,
            vec!["src/wasm/core.js".to_owned(), "src/wasm/core_bg.wasm".to_owned()]
        );
    }

    #[test]
    fn the_zip_is_deterministic_and_sorted() {
        let files = tree(&[("b.txt", "bee"), ("a/c.txt", "sea")]);
        let first = zip_bytes(&files).expect("zip");
        let second = zip_bytes(&files).expect("zip");
        assert_eq!(first, second);
        let mut archive = zip::ZipArchive::new(Cursor::new(first)).expect("readable");
        let names: Vec<String> = (0..archive.len())
            .map(|i| {
                archive
                    .by_index(i)
                    .ok()
                    .and_then(|f| f.name().ok().map(|n| n.into_owned()))
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(
            names,
            vec!["a/c.txt".to_owned(), "b.txt".to_owned()],
            "entries are in byte order"
        );
        let entry = archive.by_index(0).expect("entry");
        assert_eq!(entry.unix_mode().map(|m| m & 0o777), Some(0o644));
    }

    #[test]
    fn text_is_deflated_and_incompressible_bytes_are_stored() {
        let text = "a line of the panel's stylesheet\n".repeat(200);
        // xorshift bytes: nothing repeats, so a deflate stream of them is longer than they are.
        let mut state = 0x9E37_79B9_u32;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state.to_le_bytes()[0]
            })
            .collect();
        let mut files = tree(&[("style.css", &text), ("empty.txt", "")]);
        files.insert("icon.png".to_owned(), noise.clone());
        let bytes = zip_bytes(&files).expect("zip");
        assert!(
            bytes.len() < text.len(),
            "the archive is smaller than the text it holds"
        );
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("readable");
        let mut read = |name: &str| {
            let mut entry = archive.by_name(name).expect("entry");
            let method = entry.compression();
            let mut content = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut content).expect("inflates");
            (method, content)
        };
        let (method, content) = read("style.css");
        assert!(
            method == CompressionMethod::Deflated && content == text.as_bytes(),
            "{method:?}"
        );
        let (method, content) = read("icon.png");
        assert!(method == CompressionMethod::Stored && content == noise, "{method:?}");
        let (method, content) = read("empty.txt");
        assert!(method == CompressionMethod::Stored && content.is_empty(), "{method:?}");
    }

    #[test]
    fn contents_check_refuses_strays() {
        let shipped: Vec<(&str, &str)> = SHIPPED.iter().map(|f| (f.path, "")).collect();
        let mut files = tree(&shipped);
        files.insert("src/notes.rs".to_owned(), Vec::new());
        let error = check_contents(&files).map_err(|e| e.to_string());
        assert!(error.as_ref().is_err_and(|e| e.contains("src/notes.rs")), "{error:?}");
    }
}
