//! The identity of the file open in the Typst editor.
//!
//! The page reports it, the panel stores it with each user message and the
//! worker compares it before every read and write, so its normalisation must
//! be the same everywhere: a clean project-relative path with a file
//! extension, a bounded project label, a source tag and a confidence level.

use crate::js;
use crate::limits::{self, to_usize};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Label used when no file could be identified.
pub const DEFAULT_ACTIVE_FILE_LABEL: &str = "Current Typst document";

/// Whether `label` names a file the page identified. The default label (and
/// an empty one) stands for "some document": two unidentified files carry
/// the same label, so a write, revert or restore bound to it could land in
/// another file than the one it was computed for. Every write checks both
/// sides with this and fails closed (`EDIT_FILE_UNKNOWN`) when either is
/// unknown.
pub fn is_identified_file_label(label: &str) -> bool {
    !label.trim().is_empty() && label != DEFAULT_ACTIVE_FILE_LABEL
}

/// How sure the page was about the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The page read a whole path (a breadcrumb or a declared path).
    High,
    /// The page read only a file name or the tab title; also what an
    /// unknown value becomes.
    Medium,
    /// A weak guess.
    Low,
}

impl Confidence {
    /// Parses a wire string; `None` for anything else.
    pub fn from_wire(value: &str) -> Option<Confidence> {
        match value {
            "high" => Some(Confidence::High),
            "medium" => Some(Confidence::Medium),
            "low" => Some(Confidence::Low),
            _ => None,
        }
    }
}

/// A normalised active editor file. Serialises with the key order
/// `projectLabel, relativePath, basename, source, confidence` (the model sees
/// this JSON text) and always includes `projectLabel`, `null` when unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveEditorFile {
    /// The project's name, `null` when the page could not read it.
    pub project_label: Option<String>,
    /// Clean project-relative path with an extension (`chapters/intro.typ`).
    pub relative_path: String,
    /// The path's last segment.
    pub basename: String,
    /// Which part of the page named the file (`header_breadcrumb`, …), or
    /// `unknown`.
    pub source: String,
    /// How sure the page was.
    pub confidence: Confidence,
}

fn has_url_scheme(path: &str) -> bool {
    let mut chars = path.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    for c in chars {
        if c == ':' {
            return true;
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')) {
            return false;
        }
    }
    false
}

fn has_file_extension(segment: &str) -> bool {
    let Some(dot) = segment.rfind('.') else {
        return false;
    };
    let ext = &segment[dot + 1..];
    let mut chars = ext.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && ext.len() <= 32
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '_' | '-'))
}

/// Shared path clean-up of the active file and the project tree: trim,
/// backslashes to slashes, leading `./` and `/` removed, repeated slashes
/// collapsed; then URL schemes, empty, `.`/`..` segments and NUL/CR/LF are
/// refused. Returns the trimmed segments.
pub(crate) fn clean_path_segments(
    value: &str,
    max_chars: usize,
    max_segment_chars: Option<usize>,
) -> Option<Vec<String>> {
    let mut path = js::js_trim(value).replace('\\', "/");
    if let Some(rest) = path.strip_prefix("./") {
        path = rest.trim_start_matches('/').to_owned();
    }
    let path = path.trim_start_matches('/');
    let mut collapsed = String::with_capacity(path.len());
    for ch in path.chars() {
        if ch == '/' && collapsed.ends_with('/') {
            continue;
        }
        collapsed.push(ch);
    }
    if collapsed.is_empty() || js::utf16_len(&collapsed) > max_chars || has_url_scheme(&collapsed) {
        return None;
    }
    let segments: Vec<String> = collapsed
        .split('/')
        .map(|segment| js::js_trim(segment).to_owned())
        .collect();
    let bad = segments.iter().any(|segment| {
        segment.is_empty()
            || segment == "."
            || segment == ".."
            || max_segment_chars.is_some_and(|max| js::utf16_len(segment) > max)
            || segment.contains(['\0', '\r', '\n'])
    });
    (!bad).then_some(segments)
}

/// Normalises a project-relative file path (`normalizeProjectRelativePath`):
/// the last segment must end in an extension of 1–32 characters.
pub fn normalize_project_relative_path(value: &str) -> Option<String> {
    let segments = clean_path_segments(value, to_usize(limits::MAX_PROJECT_PATH_CHARS), None)?;
    if !has_file_extension(segments.last()?) {
        return None;
    }
    Some(segments.join("/"))
}

fn bounded_text(value: Option<&Value>, max: usize) -> String {
    match value {
        Some(Value::String(s)) => js::truncate_utf16(&js::collapse_whitespace(s), max).to_owned(),
        _ => String::new(),
    }
}

fn first_defined<'a>(map: &'a serde_json::Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    // `a ?? b ?? c`: the first key whose value is neither absent nor null.
    keys.iter().find_map(|key| map.get(*key).filter(|v| !v.is_null()))
}

impl ActiveEditorFile {
    /// Lenient normalisation of page or stored data
    /// (`normalizeActiveEditorFile`): camelCase and snake_case keys, `path`
    /// alias, bounded label, unknown source → `unknown`, unknown confidence →
    /// `medium`.
    pub fn normalize(value: &Value) -> Option<ActiveEditorFile> {
        let map = value.as_object()?;
        let path = first_defined(map, &["relativePath", "relative_path", "path"])?;
        let relative_path = normalize_project_relative_path(path.as_str()?)?;
        let basename = relative_path.rsplit('/').next().unwrap_or_default().to_owned();
        let label = bounded_text(
            first_defined(map, &["projectLabel", "project_label"]),
            to_usize(limits::MAX_PROJECT_LABEL_CHARS),
        );
        let source = bounded_text(map.get("source"), to_usize(limits::MAX_ACTIVE_FILE_SOURCE_CHARS)).to_lowercase();
        let source = if !source.is_empty()
            && source
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '+' | '-'))
        {
            source
        } else {
            "unknown".to_owned()
        };
        let confidence = Confidence::from_wire(&bounded_text(map.get("confidence"), 16).to_lowercase())
            .unwrap_or(Confidence::Medium);
        Some(ActiveEditorFile {
            project_label: (!label.is_empty()).then_some(label),
            relative_path,
            basename,
            source,
            confidence,
        })
    }

    /// Strict validation of the `activeEditorFile` a panel sends with
    /// `AI_STREAM_START`: only the five fields, already normalised.
    pub fn parse_strict(value: &Value) -> Option<ActiveEditorFile> {
        let map = value.as_object()?;
        let allowed = ["projectLabel", "relativePath", "basename", "source", "confidence"];
        if map.keys().any(|key| !allowed.contains(&key.as_str())) {
            return None;
        }
        let project_label = match map.get("projectLabel") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if js::utf16_len(s) <= to_usize(limits::MAX_PROJECT_LABEL_CHARS) => Some(s.clone()),
            Some(_) => return None,
        };
        let path = map.get("relativePath")?.as_str()?;
        if !js::is_non_blank(path)
            || js::utf16_len(path) > to_usize(limits::MAX_PROJECT_PATH_CHARS)
            || path.contains(['\0', '\r', '\n', '\\'])
            || path != js::js_trim(path)
            || path.starts_with('/')
            || path.contains("//")
            || has_url_scheme(path)
        {
            return None;
        }
        let segments: Vec<&str> = path.split('/').collect();
        if segments
            .iter()
            .any(|s| s.is_empty() || *s == "." || *s == ".." || *s != js::js_trim(s))
        {
            return None;
        }
        let last = *segments.last()?;
        if !has_file_extension(last) {
            return None;
        }
        let basename = map.get("basename")?.as_str()?;
        if basename != last {
            return None;
        }
        let source = map.get("source")?.as_str()?;
        if source.is_empty()
            || js::utf16_len(source) > to_usize(limits::MAX_ACTIVE_FILE_SOURCE_CHARS)
            || !source
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
        {
            return None;
        }
        let confidence = Confidence::from_wire(map.get("confidence")?.as_str()?)?;
        Some(ActiveEditorFile {
            project_label,
            relative_path: path.to_owned(),
            basename: basename.to_owned(),
            source: source.to_owned(),
            confidence,
        })
    }

    /// Finds the file in a page context or stored record
    /// (`activeEditorFileFromContext`).
    pub fn from_context(context: &Value) -> Option<ActiveEditorFile> {
        let map = context.as_object()?;
        let workspace = map.get("workspace").and_then(Value::as_object);
        let candidate = first_defined(
            map,
            &["activeFile", "active_file", "activeEditorFile", "active_editor_file"],
        )
        .or_else(|| workspace.and_then(|w| first_defined(w, &["active_editor_file", "activeEditorFile"])))?;
        ActiveEditorFile::normalize(candidate)
    }

    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        crate::wire::to_value(self)
    }
}

/// Two values name the same file when both normalise and their paths match.
pub fn same_active_editor_file(left: &Value, right: &Value) -> bool {
    match (ActiveEditorFile::normalize(left), ActiveEditorFile::normalize(right)) {
        (Some(a), Some(b)) => a.relative_path == b.relative_path,
        _ => false,
    }
}

/// The file's path, or `fallback` (`activeEditorFileLabel`).
pub fn active_editor_file_label(value: &Value, fallback: &str) -> String {
    ActiveEditorFile::normalize(value)
        .or_else(|| ActiveEditorFile::from_context(value))
        .map_or_else(|| fallback.to_owned(), |file| file.relative_path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_named_file_is_identified() {
        assert!(is_identified_file_label("main.typ"));
        assert!(is_identified_file_label("chapters/intro.typ"));
        assert!(!is_identified_file_label(DEFAULT_ACTIVE_FILE_LABEL));
        assert!(!is_identified_file_label(""));
        assert!(!is_identified_file_label("  "));
    }

    #[test]
    fn relative_paths_are_bounded_and_clean() {
        assert_eq!(
            normalize_project_relative_path(" ./chapters\\main.typ ").as_deref(),
            Some("chapters/main.typ")
        );
        assert_eq!(
            normalize_project_relative_path("references/ref.bib").as_deref(),
            Some("references/ref.bib")
        );
        assert_eq!(
            normalize_project_relative_path("images/figure.png").as_deref(),
            Some("images/figure.png")
        );
        assert_eq!(normalize_project_relative_path("../main.typ"), None);
        assert_eq!(normalize_project_relative_path("https://example.com/main.typ"), None);
        assert_eq!(normalize_project_relative_path("LICENSE"), None);
        assert_eq!(normalize_project_relative_path("a//b.typ").as_deref(), Some("a/b.typ"));
        assert_eq!(
            normalize_project_relative_path("/a/ b .typ").as_deref(),
            Some("a/b .typ")
        );
        assert_eq!(normalize_project_relative_path("a\nb.typ"), None);
        assert_eq!(
            normalize_project_relative_path(&format!("{}.typ", "x".repeat(237))),
            None
        );
    }

    #[test]
    fn normalisation_matches_the_original() {
        let normalized = ActiveEditorFile::normalize(&json!({
            "projectLabel": " test ", "relativePath": "./references/ref.bib",
            "basename": "ignored.typ", "source": "HEADER_BREADCRUMB", "confidence": "HIGH"
        }));
        assert_eq!(
            normalized.map(|f| f.to_value()),
            Some(json!({
                "projectLabel": "test", "relativePath": "references/ref.bib", "basename": "ref.bib",
                "source": "header_breadcrumb", "confidence": "high"
            }))
        );
        let snake = ActiveEditorFile::normalize(&json!({"relative_path": "a.typ", "source": "x y"}));
        assert_eq!(
            snake.map(|f| (f.source, f.confidence, f.project_label)),
            Some(("unknown".to_owned(), Confidence::Medium, None))
        );
    }

    #[test]
    fn identity_is_read_from_the_workspace_and_compares_full_paths() {
        let context = json!({"workspace": {"active_editor_file": {
            "projectLabel": "Project", "relativePath": "references/ref.bib",
            "source": "header_breadcrumb", "confidence": "high"
        }}});
        let active = ActiveEditorFile::from_context(&context).map(|f| f.to_value());
        assert_eq!(
            active.as_ref().and_then(|v| v["relativePath"].as_str()),
            Some("references/ref.bib")
        );
        assert_eq!(
            active_editor_file_label(&context, DEFAULT_ACTIVE_FILE_LABEL),
            "references/ref.bib"
        );
        let active = active.unwrap_or_default();
        assert!(same_active_editor_file(
            &active,
            &json!({"relativePath": "references/ref.bib"})
        ));
        assert!(!same_active_editor_file(
            &active,
            &json!({"relativePath": "appendix/ref.bib"})
        ));
        assert_eq!(active_editor_file_label(&json!({}), "fallback.typ"), "fallback.typ");
    }

    #[test]
    fn strict_form_rejects_anything_unnormalised() {
        let valid = json!({"projectLabel": "Project", "relativePath": "chapters/intro.typ",
            "basename": "intro.typ", "source": "header_breadcrumb", "confidence": "high"});
        assert!(ActiveEditorFile::parse_strict(&valid).is_some());
        for (key, value) in [
            ("relativePath", json!("../secret.typ")),
            ("relativePath", json!("/a.typ")),
            ("relativePath", json!("a//b.typ")),
            ("relativePath", json!("a\\b.typ")),
            ("relativePath", json!("chapters/intro")),
            ("basename", json!("other.typ")),
            ("source", json!("bad source")),
            ("confidence", json!("certain")),
            ("projectLabel", json!(1)),
            ("extra", json!(true)),
        ] {
            let mut broken = valid.clone();
            broken[key] = value;
            assert!(ActiveEditorFile::parse_strict(&broken).is_none(), "{key}");
        }
    }
}
