//! The bundled Typst reference behind the `read_typst_docs` tool.
//!
//! The agent writes Typst for users, and a model's memory of the language lags
//! behind releases (0.14 and 0.15 added and removed real API). So the
//! extension ships condensed, checked reference pages and lets the model read
//! them on demand instead of guessing. The pages live as Markdown in
//! `docs/typst/` next to this crate and are embedded at compile time, so the
//! tool needs no network, no storage and no fetch from the extension package.
//!
//! The tool contract (topic resolution and the three JSON result shapes) is
//! kept identical to the original extension, because prompts and transcripts
//! depend on it.

use serde_json::{Value, json};

/// The newest Typst release line the pages were written and checked for.
///
/// Reported with every tool result so the model can tell the user which
/// version the advice targets.
const DOCS_TYPST_VERSION: &str = "0.15";

/// When the pages were last reviewed against the Typst releases.
///
/// Reported with every result so a stale bundle is visible in transcripts.
const DOCS_REVIEWED_DATE: &str = "2026-11-30";

/// One reference page.
#[derive(Debug, PartialEq, Eq)]
struct DocTopic {
    /// Stable identifier the model passes back to read the page.
    pub(crate) id: &'static str,
    /// Position in the index, 1-based; also accepted as a topic.
    pub(crate) number: u8,
    /// Human-readable page title.
    pub(crate) title: &'static str,
    /// One sentence that helps the model pick the right page from the list.
    pub(crate) summary: &'static str,
    /// File name under `docs/typst/`, which the overview's index names.
    #[cfg(test)]
    file: &'static str,
    /// The whole Markdown page.
    pub(crate) content: &'static str,
}

/// One page of [`DOC_TOPICS`]: its file name is written once, for the
/// embedded text and for the tests that hold it against the overview.
macro_rules! page {
    (id: $id:literal, number: $number:literal, title: $title:literal, file: $file:literal, summary: $summary:literal $(,)?) => {
        DocTopic {
            id: $id,
            number: $number,
            title: $title,
            summary: $summary,
            #[cfg(test)]
            file: $file,
            content: include_str!(concat!("../docs/typst/", $file)),
        }
    };
}

/// All pages in index order; `number` equals the position plus one.
static DOC_TOPICS: &[DocTopic] = &[
    page! {
        id: "syntax-basics",
        number: 1,
        title: "Syntax Basics",
        file: "01-syntax-basics.md",
        summary: "The three modes (markup, code, math), literals, comments, identifiers, escapes, file paths and operators.",
    },
    page! {
        id: "markup",
        number: 2,
        title: "Markup",
        file: "02-markup.md",
        summary: "Paragraphs, headings, lists, emphasis, links, labels and references, and raw text.",
    },
    page! {
        id: "math",
        number: 3,
        title: "Math",
        file: "03-math.md",
        summary: "Inline and display equations, sub- and superscripts, fractions, matrices, symbols and alignment.",
    },
    page! {
        id: "scripting",
        number: 4,
        title: "Scripting",
        file: "04-scripting.md",
        summary: "Bindings, conditionals, loops, functions, closures, modules, import and include.",
    },
    page! {
        id: "types",
        number: 5,
        title: "Types",
        file: "05-types.md",
        summary: "Primitive values, content, strings, arrays, dictionaries, the calc module and conversions.",
    },
    page! {
        id: "styling",
        number: 6,
        title: "Styling",
        file: "06-styling.md",
        summary: "Set rules, show rules, selectors and document templates.",
    },
    page! {
        id: "context",
        number: 7,
        title: "Context & Introspection",
        file: "07-context-introspection.md",
        summary: "The context keyword, counters, state, query, locate, here and measure.",
    },
    page! {
        id: "layout",
        number: 8,
        title: "Layout",
        file: "08-layout.md",
        summary: "Page setup, alignment, spacing, grid, stack, place, columns, boxes and blocks.",
    },
    page! {
        id: "visualize",
        number: 9,
        title: "Visualize",
        file: "09-visualize.md",
        summary: "Images, shapes, curves, colors, gradients, strokes and tilings.",
    },
    page! {
        id: "model",
        number: 10,
        title: "Model / Elements",
        file: "10-model.md",
        summary: "Document metadata and title, figures, tables, outlines, bibliographies, footnotes and numbering.",
    },
    page! {
        id: "data-loading",
        number: 11,
        title: "Data Loading",
        file: "11-data-loading.md",
        summary: "Reading files and structured data with read, json, csv, xml, yaml, toml and cbor.",
    },
    page! {
        id: "cheat-sheet",
        number: 12,
        title: "Cheat Sheet",
        file: "12-cheat-sheet.md",
        summary: "A quick reference of common syntax, version differences and frequent mistakes.",
    },
];

/// Alternative names the model tends to use, mapped to topic ids.
///
/// Kept to the original extension's list so that the same inputs keep
/// resolving the same way.
const ALIASES: &[(&str, &str)] = &[
    ("basics", "syntax-basics"),
    ("syntax", "syntax-basics"),
    ("syntax_basics", "syntax-basics"),
    ("element", "model"),
    ("elements", "model"),
    ("models", "model"),
    ("model-elements", "model"),
    ("ctx", "context"),
    ("introspection", "context"),
    ("context-introspection", "context"),
    ("visual", "visualize"),
    ("visualise", "visualize"),
    ("visualization", "visualize"),
    ("data", "data-loading"),
    ("data_loading", "data-loading"),
    ("cheat", "cheat-sheet"),
    ("cheatsheet", "cheat-sheet"),
    ("cheat_sheet", "cheat-sheet"),
    ("show-rules", "styling"),
    ("set-rules", "styling"),
    ("style", "styling"),
    ("styles", "styling"),
];

/// Finds a topic by its number; out of range (including 0) is unknown.
fn topic_by_number(number: u32) -> Option<&'static DocTopic> {
    DOC_TOPICS.iter().find(|topic| u32::from(topic.number) == number)
}

/// Finds a topic by its exact id.
fn topic_by_id(id: &str) -> Option<&'static DocTopic> {
    DOC_TOPICS.iter().find(|topic| topic.id == id)
}

/// Parses one or two ASCII digits, the only number forms the tool accepts.
///
/// Longer digit runs are rejected rather than parsed, so `"0003"` does not
/// sneak in as topic 3 and huge inputs cannot overflow.
fn parse_short_number(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Resolves what the model passed as `topic` to a page.
///
/// Rules, in order: trim and lower-case; drop one trailing `.md`; a string of
/// digits is a topic number (`3`, `03`); `N-anything` with one or two digits
/// selects topic N and ignores the rest (this is what makes file stems like
/// `07-context-introspection` work); otherwise the exact id, then an alias.
fn resolve_topic_id(input: &str) -> Option<&'static DocTopic> {
    let lowered = input.trim().to_lowercase();
    let key = lowered.strip_suffix(".md").unwrap_or(&lowered);

    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) {
        return key.parse::<u32>().ok().and_then(topic_by_number);
    }
    if let Some((prefix, rest)) = key.split_once('-')
        && !rest.is_empty()
        && let Some(number) = parse_short_number(prefix)
    {
        return topic_by_number(number);
    }
    if let Some(topic) = topic_by_id(key) {
        return Some(topic);
    }
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == key)
        .and_then(|(_, id)| topic_by_id(id))
}

/// Builds the `read_typst_docs` tool result.
///
/// Without a topic (or a blank one) it lists the pages so the model can
/// choose; with a known topic it returns the whole page; with an unknown one
/// it says so and lists the valid ids, so the model can correct itself in one
/// step instead of giving up.
pub(crate) fn read_typst_docs(topic: Option<&str>) -> Value {
    let requested = topic.map(str::trim).filter(|text| !text.is_empty());
    let Some(requested) = requested else {
        let topics: Vec<Value> = DOC_TOPICS
            .iter()
            .map(|topic| json!({ "id": topic.id, "title": topic.title, "summary": topic.summary }))
            .collect();
        return json!({
            "ok": true,
            "version": DOCS_TYPST_VERSION,
            "reviewed_at": DOCS_REVIEWED_DATE,
            "topics": topics,
            "usage": "Call read_typst_docs again with one of these topic ids (for example {\"topic\": \"math\"}) to read that page.",
        });
    };
    match resolve_topic_id(requested) {
        Some(page) => json!({
            "ok": true,
            "version": DOCS_TYPST_VERSION,
            "reviewed_at": DOCS_REVIEWED_DATE,
            "topic": page.id,
            "title": page.title,
            "content": page.content,
        }),
        None => json!({
            "ok": false,
            "version": DOCS_TYPST_VERSION,
            "reviewed_at": DOCS_REVIEWED_DATE,
            "error": format!(
                "Unknown Typst docs topic \"{requested}\". Call read_typst_docs without a topic to list the available pages."
            ),
            "available": DOC_TOPICS.iter().map(|topic| topic.id).collect::<Vec<_>>(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The overview page, which indexes the topics for humans.
    const README: &str = include_str!("../docs/typst/README.md");

    /// The start of the first line of every page, naming the versions it
    /// covers; the banner tells the model which releases the advice fits.
    const BANNER_PREFIX: &str = "> Applies to Typst 0.14 and 0.15";

    fn id_of(input: &str) -> Option<&'static str> {
        resolve_topic_id(input).map(|topic| topic.id)
    }

    #[test]
    fn docs_topics_are_numbered_in_index_order() {
        assert_eq!(DOC_TOPICS.len(), 12);
        for (index, topic) in DOC_TOPICS.iter().enumerate() {
            assert_eq!(usize::from(topic.number), index + 1, "{}", topic.id);
            assert!(
                topic.file.starts_with(&format!("{:02}-", topic.number)),
                "{} has file {}",
                topic.id,
                topic.file
            );
        }
        let ids: Vec<&str> = DOC_TOPICS.iter().map(|topic| topic.id).collect();
        assert_eq!(
            ids,
            [
                "syntax-basics",
                "markup",
                "math",
                "scripting",
                "types",
                "styling",
                "context",
                "layout",
                "visualize",
                "model",
                "data-loading",
                "cheat-sheet"
            ]
        );
    }

    #[test]
    fn docs_summaries_are_single_sentences() {
        for topic in DOC_TOPICS {
            let summary = topic.summary;
            assert!(summary.ends_with('.'), "{}", topic.id);
            assert_eq!(summary.matches(". ").count(), 0, "{}: {summary}", topic.id);
            assert!(!summary.contains('\n'), "{}", topic.id);
        }
    }

    #[test]
    fn docs_resolve_numbers() {
        assert_eq!(id_of("1"), Some("syntax-basics"));
        assert_eq!(id_of("01"), Some("syntax-basics"));
        assert_eq!(id_of("3"), Some("math"));
        assert_eq!(id_of("07"), Some("context"));
        assert_eq!(id_of("12"), Some("cheat-sheet"));
        assert_eq!(id_of("13"), None);
        assert_eq!(id_of("0"), None);
        assert_eq!(id_of("00"), None);
        assert_eq!(id_of("99999999999999999999999"), None);
    }

    #[test]
    fn docs_resolve_number_prefix_ignores_the_suffix() {
        assert_eq!(id_of("3-anything"), Some("math"));
        assert_eq!(id_of("07-context-introspection"), Some("context"));
        assert_eq!(id_of("07-context-introspection.md"), Some("context"));
        assert_eq!(id_of("11-data-loading"), Some("data-loading"));
        assert_eq!(id_of("1-markup"), Some("syntax-basics"));
        assert_eq!(id_of("99-x"), None);
        assert_eq!(id_of("0-math"), None);
        assert_eq!(id_of("123-math"), None);
        assert_eq!(id_of("3-"), None);
    }

    #[test]
    fn docs_resolve_ids_case_space_and_extension() {
        for topic in DOC_TOPICS {
            assert_eq!(id_of(topic.id), Some(topic.id));
            assert_eq!(id_of(&topic.id.to_uppercase()), Some(topic.id));
            assert_eq!(id_of(&format!("  {}.md ", topic.id)), Some(topic.id));
            let stem = topic.file.trim_end_matches(".md");
            assert_eq!(id_of(stem), Some(topic.id));
            assert_eq!(id_of(topic.file), Some(topic.id));
        }
        assert_eq!(id_of("MATH.md"), Some("math"));
        assert_eq!(id_of(" Cheat_Sheet "), Some("cheat-sheet"));
        assert_eq!(id_of("Math.MD"), Some("math"));
    }

    /// The lower-case words of a text (letters and digits).
    fn words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    /// Whether `word` names `target`: it shares its first three letters, or
    /// is an abbreviation of it (its letters in order, the same first one).
    fn names(word: &str, target: &str) -> bool {
        let prefix = |text: &str| text.chars().take(3).collect::<String>();
        if word.len() >= 3 && prefix(word) == prefix(target) {
            return true;
        }
        let mut rest = target.chars();
        word.chars().next() == target.chars().next() && word.chars().all(|c| rest.any(|t| t == c))
    }

    #[test]
    fn docs_aliases_reach_the_page_they_name() {
        for (alias, id) in ALIASES {
            let target = topic_by_id(id);
            assert!(target.is_some(), "{alias} points at the missing page {id}");
            // Not shadowed by a number, an id or an earlier rule.
            assert_eq!(id_of(alias), Some(*id), "{alias}");
            assert_eq!(id_of(&alias.to_uppercase()), Some(*id), "{alias}");
            assert!(topic_by_id(alias).is_none(), "{alias} is an id, not an alias");
            // Every word of the alias names the page's id, title or summary,
            // so an alias wired to the wrong page fails here.
            let Some(page) = target else { continue };
            let vocabulary: Vec<String> = [page.id, page.title, page.summary]
                .iter()
                .flat_map(|t| words(t))
                .collect();
            for word in words(alias) {
                assert!(
                    vocabulary.iter().any(|known| names(&word, known)),
                    "{alias} ({word}) does not name {id}: {vocabulary:?}"
                );
            }
        }
        assert!(names("ctx", "context") && names("visualise", "visualize") && names("elements", "elements"));
        assert!(!names("math", "model") && !names("ctx", "cheat") && !names("data", "markup"));
    }

    #[test]
    fn docs_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for (alias, _) in ALIASES {
            assert!(seen.insert(*alias), "{alias} is listed twice");
            assert_eq!(alias.to_lowercase(), *alias, "aliases are matched lower-case");
        }
    }

    #[test]
    fn docs_every_page_is_reachable_from_the_listing() {
        let listing = read_typst_docs(None);
        let listed: Vec<&str> = listing["topics"]
            .as_array()
            .map(|topics| topics.iter().filter_map(|t| t["id"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(listed.len(), DOC_TOPICS.len());
        for topic in DOC_TOPICS {
            assert!(listed.contains(&topic.id), "{} is not listed", topic.id);
            let page = read_typst_docs(Some(topic.id));
            assert_eq!(page["ok"], true, "{}", topic.id);
            assert_eq!(page["content"], topic.content, "{}", topic.id);
            assert_eq!(id_of(&topic.number.to_string()), Some(topic.id));
        }
    }

    #[test]
    fn docs_resolve_unknown_inputs() {
        for input in [
            "",
            "   ",
            ".md",
            "tables",
            "math-mode",
            "syntax basics",
            "-3",
            "3.5",
            "md",
        ] {
            assert_eq!(id_of(input), None, "{input:?}");
        }
    }

    #[test]
    fn docs_listing_without_topic() {
        for topic in [None, Some(""), Some("   ")] {
            let result = read_typst_docs(topic);
            assert_eq!(result["ok"], true);
            assert_eq!(result["version"], DOCS_TYPST_VERSION);
            assert_eq!(result["reviewed_at"], DOCS_REVIEWED_DATE);
            let topics = result["topics"].as_array().map(Vec::as_slice).unwrap_or_default();
            assert_eq!(topics.len(), DOC_TOPICS.len());
            for (entry, topic) in topics.iter().zip(DOC_TOPICS) {
                assert_eq!(entry["id"], topic.id);
                assert_eq!(entry["title"], topic.title);
                assert_eq!(entry["summary"], topic.summary);
                assert_eq!(entry.as_object().map(|o| o.len()), Some(3));
            }
            let usage = result["usage"].as_str().unwrap_or_default();
            assert!(usage.contains("topic"), "{usage}");
            assert!(result.get("content").is_none());
            assert!(result.get("error").is_none());
        }
    }

    #[test]
    fn docs_known_topic_returns_the_whole_page() {
        let result = read_typst_docs(Some(" 03 "));
        assert_eq!(result["ok"], true);
        assert_eq!(result["version"], DOCS_TYPST_VERSION);
        assert_eq!(result["reviewed_at"], DOCS_REVIEWED_DATE);
        assert_eq!(result["topic"], "math");
        assert_eq!(result["title"], "Math");
        assert_eq!(result["content"], DOC_TOPICS[2].content);
        assert!(result.get("topics").is_none());
        assert_eq!(result.as_object().map(|o| o.len()), Some(6));
    }

    #[test]
    fn docs_unknown_topic_names_input_and_lists_ids() {
        let result = read_typst_docs(Some("  tables "));
        assert_eq!(result["ok"], false);
        assert_eq!(result["version"], DOCS_TYPST_VERSION);
        assert_eq!(result["reviewed_at"], DOCS_REVIEWED_DATE);
        assert_eq!(
            result["error"],
            "Unknown Typst docs topic \"tables\". Call read_typst_docs without a topic to list the available pages."
        );
        let available: Vec<&str> = result["available"]
            .as_array()
            .map(|ids| ids.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let ids: Vec<&str> = DOC_TOPICS.iter().map(|topic| topic.id).collect();
        assert_eq!(available, ids);
        assert!(result.get("content").is_none());
    }

    #[test]
    fn docs_pages_start_with_the_version_banner() {
        for (name, content) in DOC_TOPICS
            .iter()
            .map(|topic| (topic.file, topic.content))
            .chain([("README.md", README)])
        {
            assert!(!content.trim().is_empty(), "{name} is empty");
            let first = content.lines().next().unwrap_or_default();
            assert!(first.starts_with(BANNER_PREFIX), "{name}: {first}");
            assert!(first.contains(DOCS_REVIEWED_DATE), "{name}: {first}");
        }
    }

    #[test]
    fn docs_pages_have_their_title_heading() {
        for topic in DOC_TOPICS {
            let heading = format!("# {}", topic.title);
            assert!(
                topic.content.lines().any(|line| line == heading),
                "{} lacks {heading:?}",
                topic.file
            );
        }
    }

    /// Walks a page's fences; an opening fence of N backticks is closed only
    /// by a bare line of at least N backticks (CommonMark), so a `typ` example
    /// that shows a raw block with a longer outer fence still balances.
    fn unclosed_fence(content: &str) -> Option<usize> {
        let mut open: Option<(usize, usize)> = None;
        for (index, line) in content.lines().enumerate() {
            let trimmed = line.trim_start();
            let ticks = trimmed.bytes().take_while(|b| *b == b'`').count();
            if ticks < 3 {
                continue;
            }
            match open {
                None => open = Some((index + 1, ticks)),
                Some((_, width)) if ticks >= width && trimmed[ticks..].trim().is_empty() => open = None,
                Some(_) => {}
            }
        }
        open.map(|(line, _)| line)
    }

    #[test]
    fn docs_code_fences_are_balanced() {
        for topic in DOC_TOPICS {
            assert_eq!(unclosed_fence(topic.content), None, "{}", topic.file);
            let typ_blocks = topic
                .content
                .lines()
                .filter(|line| line.trim_start().ends_with("```typ"))
                .count();
            assert!(typ_blocks > 0, "{} has no typ examples", topic.file);
        }
        assert_eq!(unclosed_fence(README), None);
        assert_eq!(unclosed_fence("```typ\n#x\n"), Some(1));
        assert_eq!(unclosed_fence("````typ\n```\n````\n"), None);
    }

    #[test]
    fn docs_index_lists_every_topic() {
        for topic in DOC_TOPICS {
            let row = format!(
                "| {} | `{}` | {} | `{}` |",
                topic.number, topic.id, topic.title, topic.file
            );
            assert!(README.contains(&row), "README index lacks {row:?}");
        }
    }
}
