//! The one boundary where model-written Markdown becomes markup.
//!
//! Model output is untrusted: it can repeat anything a page, a document or a
//! tool result put in front of the model. So Markdown is rendered in three
//! independent steps, each of which would stop an attack on its own:
//!
//! 1. pulldown-cmark parses it (GFM tables and strikethrough, line breaks
//!    kept) and this module rewrites the event stream: raw HTML becomes text,
//!    links keep their element only for `https:` and `mailto:` targets,
//!    images never become images (an allowed target gives a link labelled
//!    `Image: <alt>`, anything else only that label).
//! 2. ammonia re-parses the produced HTML and keeps only [`ALLOWED_TAGS`],
//!    `href`/`title` on links, `https`/`mailto` URLs, and adds
//!    `rel="noopener noreferrer"` and `target="_blank"` to every link.
//! 3. [`audit_html`] scans the serialised result once more and refuses
//!    anything outside that allowlist; the panel then shows the plain text
//!    instead. The DOM side (`chat::view`) repeats the same element check on
//!    the parsed fragment, so a parser difference between html5ever and the
//!    browser cannot smuggle an element through either.
//!
//! Everything here is plain Rust, tested natively with hostile inputs.

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd, TextMergeStream};
use std::collections::{HashMap, HashSet};

/// Elements a rendered answer may contain. Nothing else survives.
pub(crate) const ALLOWED_TAGS: &[&str] = &[
    "p",
    "br",
    "strong",
    "em",
    "del",
    "a",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
];

/// What every surviving link carries, so a click opens a new tab that cannot
/// reach back into the panel.
pub(crate) const LINK_REL: &str = "noopener noreferrer";
pub(crate) const LINK_TARGET: &str = "_blank";

/// Label prefix of a Markdown image, which is never loaded.
pub(crate) const IMAGE_LABEL_PREFIX: &str = "Image: ";
/// Stands in for an image without alt text.
pub(crate) const IMAGE_LABEL_FALLBACK: &str = "attachment";

/// Why a rendered answer was refused (the caller shows plain text instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MarkdownError {
    /// An element outside [`ALLOWED_TAGS`] survived.
    ForbiddenElement(String),
    /// An attribute that is not allowed on its element survived.
    ForbiddenAttribute { element: String, attribute: String },
    /// A link points somewhere other than `https:` or `mailto:`.
    UnsafeLink(String),
    /// The markup could not be read back (unbalanced or cut short).
    Malformed,
}

impl MarkdownError {
    /// Stable code for logs.
    pub(crate) fn code(&self) -> &'static str {
        match self {
            MarkdownError::ForbiddenElement(_) => "MARKDOWN_FORBIDDEN_ELEMENT",
            MarkdownError::ForbiddenAttribute { .. } => "MARKDOWN_FORBIDDEN_ATTRIBUTE",
            MarkdownError::UnsafeLink(_) => "MARKDOWN_UNSAFE_LINK",
            MarkdownError::Malformed => "MARKDOWN_MALFORMED",
        }
    }
}

impl std::fmt::Display for MarkdownError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MarkdownError::ForbiddenElement(tag) => write!(f, "element <{tag}> is not allowed"),
            MarkdownError::ForbiddenAttribute { element, attribute } => {
                write!(f, "attribute {attribute} is not allowed on <{element}>")
            }
            MarkdownError::UnsafeLink(href) => write!(f, "link target {href:?} is not allowed"),
            MarkdownError::Malformed => f.write_str("the sanitised markup could not be read back"),
        }
    }
}

/// True for URLs a rendered link may point to: absolute `https:` or
/// `mailto:` URLs as a WHATWG URL parser reads them. Parsing (rather than a
/// prefix test) is what defeats mixed case, leading control characters and
/// whitespace; relative URLs have no base here and are refused.
pub(crate) fn is_allowed_url(value: &str) -> bool {
    match url::Url::parse(value) {
        Ok(url) => matches!(url.scheme(), "https" | "mailto"),
        Err(_) => false,
    }
}

/// Renders `markdown` to sanitised HTML, or says why it must be shown as
/// plain text. The only producer of HTML strings in the panel.
pub(crate) fn render(markdown: &str) -> Result<String, MarkdownError> {
    let html = markdown_to_html(markdown);
    let clean = sanitize(&html);
    audit_html(&clean)?;
    Ok(clean)
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// Step 1: Markdown to HTML with raw HTML escaped, links and images vetted.
fn markdown_to_html(markdown: &str) -> String {
    let events = safe_events(TextMergeStream::new(Parser::new_ext(markdown, options())));
    let mut html = String::with_capacity(markdown.len() + markdown.len() / 4);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

/// An image being read: its alt text is collected as plain text.
struct PendingImage {
    href: String,
    title: String,
    alt: String,
    depth: usize,
}

/// A link as opened: whether it became an `<a>`, where its content starts in
/// the output, and its target for an empty label.
struct OpenLink {
    emitted: bool,
    start: usize,
    href: String,
}

fn safe_events<'a>(events: impl Iterator<Item = Event<'a>>) -> Vec<Event<'a>> {
    let mut out: Vec<Event<'a>> = Vec::new();
    let mut links: Vec<OpenLink> = Vec::new();
    let mut image: Option<PendingImage> = None;
    let mut code_blocks = 0usize;
    let mut html_block: Option<String> = None;

    for event in events {
        if let Some(pending) = image.as_mut() {
            match event {
                Event::Start(Tag::Image { .. }) => pending.depth += 1,
                Event::End(TagEnd::Image) if pending.depth > 0 => pending.depth -= 1,
                Event::End(TagEnd::Image) => {
                    if let Some(done) = image.take() {
                        let inside_link = links.iter().any(|link| link.emitted);
                        push_image(&mut out, done, inside_link);
                    }
                }
                Event::Text(text) | Event::Code(text) | Event::Html(text) | Event::InlineHtml(text) => {
                    pending.alt.push_str(&text);
                }
                Event::SoftBreak | Event::HardBreak => pending.alt.push(' '),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let href = if link_type == LinkType::Email {
                    format!("mailto:{dest_url}")
                } else {
                    dest_url.to_string()
                };
                // A link inside a link would be split by the HTML parser;
                // the inner one keeps only its text.
                let emitted = !links.iter().any(|link| link.emitted) && is_allowed_url(&href);
                if emitted {
                    out.push(Event::Start(Tag::Link {
                        link_type: LinkType::Inline,
                        dest_url: CowStr::from(href.clone()),
                        title,
                        id,
                    }));
                }
                links.push(OpenLink {
                    emitted,
                    start: out.len(),
                    href,
                });
            }
            Event::End(TagEnd::Link) => {
                if let Some(link) = links.pop() {
                    if out.len() == link.start {
                        // An empty label would make an invisible link.
                        let label = if link.href.is_empty() {
                            "link".to_owned()
                        } else {
                            link.href
                        };
                        out.push(Event::Text(CowStr::from(label)));
                    }
                    if link.emitted {
                        out.push(Event::End(TagEnd::Link));
                    }
                }
            }
            Event::Start(Tag::Image { dest_url, title, .. }) => {
                image = Some(PendingImage {
                    href: dest_url.to_string(),
                    title: title.to_string(),
                    alt: String::new(),
                    depth: 0,
                });
            }
            // Raw HTML is shown as the text it is: a block becomes a
            // paragraph whose lines stay lines.
            Event::Start(Tag::HtmlBlock) => html_block = Some(String::new()),
            Event::End(TagEnd::HtmlBlock) => {
                let raw = html_block.take().unwrap_or_default();
                out.push(Event::Start(Tag::Paragraph));
                push_lines(&mut out, &raw);
                out.push(Event::End(TagEnd::Paragraph));
            }
            Event::Html(raw) => match html_block.as_mut() {
                Some(block) => block.push_str(&raw),
                None => push_lines(&mut out, &raw),
            },
            Event::InlineHtml(raw) => out.push(Event::Text(raw)),
            // Single newlines are line breaks, as people expect in a chat.
            Event::SoftBreak => out.push(Event::HardBreak),
            Event::Start(Tag::CodeBlock(kind)) => {
                code_blocks += 1;
                out.push(Event::Start(Tag::CodeBlock(kind)));
            }
            Event::End(TagEnd::CodeBlock) => {
                code_blocks = code_blocks.saturating_sub(1);
                out.push(Event::End(TagEnd::CodeBlock));
            }
            Event::Text(text) if code_blocks == 0 && links.is_empty() => push_autolinked(&mut out, text),
            // Features left off in `options()` never produce other events
            // that carry markup of their own.
            other => out.push(other),
        }
    }
    // An image cut off by the end of input still shows its label.
    if let Some(done) = image.take() {
        let inside_link = links.iter().any(|link| link.emitted);
        push_image(&mut out, done, inside_link);
    }
    out
}

fn push_image<'a>(out: &mut Vec<Event<'a>>, image: PendingImage, inside_link: bool) {
    let alt = image.alt.trim();
    let label = format!(
        "{IMAGE_LABEL_PREFIX}{}",
        if alt.is_empty() { IMAGE_LABEL_FALLBACK } else { alt }
    );
    if !inside_link && is_allowed_url(&image.href) {
        out.push(Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url: CowStr::from(image.href),
            title: CowStr::from(image.title),
            id: CowStr::Borrowed(""),
        }));
        out.push(Event::Text(CowStr::from(label)));
        out.push(Event::End(TagEnd::Link));
    } else {
        out.push(Event::Text(CowStr::from(label)));
    }
}

fn push_lines<'a>(out: &mut Vec<Event<'a>>, raw: &str) {
    let trimmed = raw.strip_suffix('\n').unwrap_or(raw);
    let trimmed = trimmed.strip_suffix('\r').unwrap_or(trimmed);
    for (index, line) in trimmed.split('\n').enumerate() {
        if index > 0 {
            out.push(Event::HardBreak);
        }
        out.push(Event::Text(CowStr::from(line.trim_end_matches('\r').to_owned())));
    }
}

/// GFM turns bare `https://` URLs in text into links; only that scheme is
/// ever allowed, so only it is recognised (an `http://` or `www.` address
/// would be refused as a link anyway and stays text).
fn push_autolinked<'a>(out: &mut Vec<Event<'a>>, text: CowStr<'a>) {
    let mut rest: &str = &text;
    let mut found = false;
    while let Some((before, url, after)) = next_autolink(rest) {
        found = true;
        if !before.is_empty() {
            out.push(Event::Text(CowStr::from(before.to_owned())));
        }
        out.push(Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url: CowStr::from(url.to_owned()),
            title: CowStr::Borrowed(""),
            id: CowStr::Borrowed(""),
        }));
        out.push(Event::Text(CowStr::from(url.to_owned())));
        out.push(Event::End(TagEnd::Link));
        rest = after;
    }
    if !found {
        out.push(Event::Text(text));
    } else if !rest.is_empty() {
        out.push(Event::Text(CowStr::from(rest.to_owned())));
    }
}

/// Finds the next bare `https://` URL in `text`: (text before, url, rest).
fn next_autolink(text: &str) -> Option<(&str, &str, &str)> {
    let mut search_from = 0;
    while let Some(found) = find_ascii_case_insensitive(&text[search_from..], "https://") {
        let start = search_from + found;
        // Only at a word boundary, as GFM requires.
        let boundary = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '*' | '_' | '~' | '"' | '\''));
        let end = start
            + text[start..]
                .find(|c: char| c.is_whitespace() || c == '<' || c.is_control())
                .unwrap_or(text.len() - start);
        let candidate = trim_autolink_end(&text[start..end]);
        let has_host = candidate.len() > "https://".len();
        if boundary && has_host && is_allowed_url(candidate) {
            let url_end = start + candidate.len();
            return Some((&text[..start], candidate, &text[url_end..]));
        }
        search_from = start + "https://".len();
    }
    None
}

fn find_ascii_case_insensitive(haystack: &str, needle: &str) -> Option<usize> {
    let needle = needle.as_bytes();
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
}

/// GFM's trailing-punctuation rule: sentence punctuation after a URL is not
/// part of it, and a closing parenthesis only when it closes one inside.
fn trim_autolink_end(url: &str) -> &str {
    let mut end = url.len();
    loop {
        let current = &url[..end];
        let Some(last) = current.chars().next_back() else {
            return current;
        };
        if matches!(last, '?' | '!' | '.' | ',' | ':' | '*' | '_' | '~' | '\'' | '"') {
            end -= last.len_utf8();
        } else if last == ')' && current.matches(')').count() > current.matches('(').count() {
            end -= 1;
        } else if last == ';' {
            // `&amp;`-like tails are entity references, not URL text.
            match current.rfind('&') {
                Some(amp) if current[amp + 1..end - 1].chars().all(|c| c.is_ascii_alphanumeric()) => end = amp,
                _ => end -= 1,
            }
        } else {
            return current;
        }
    }
}

thread_local! {
    /// Built once: ammonia's builder is not `Sync`, and the panel has one thread.
    static SANITIZER: ammonia::Builder<'static> = build_sanitizer();
}

fn sanitize(html: &str) -> String {
    SANITIZER.with(|builder| builder.clean(html).to_string())
}

/// Step 2: ammonia with nothing allowed beyond the allowlist.
fn build_sanitizer() -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::empty();
    let mut link_attributes = HashMap::new();
    link_attributes.insert("a", HashSet::from(["href", "title"]));
    builder
        .tags(ALLOWED_TAGS.iter().copied().collect())
        .clean_content_tags(HashSet::from(["script", "style", "template", "iframe", "noscript"]))
        .generic_attributes(HashSet::new())
        .generic_attribute_prefixes(HashSet::new())
        .tag_attributes(link_attributes)
        .tag_attribute_values(HashMap::new())
        .set_tag_attribute_value("a", "target", LINK_TARGET)
        .url_schemes(HashSet::from(["https", "mailto"]))
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(Some(LINK_REL))
        .allowed_classes(HashMap::new())
        .strip_comments(true)
        .id_prefix(None);
    builder
}

/// Whether `element` may carry `attribute` with `value` in rendered Markdown.
/// Shared by [`audit_html`] and the DOM check of the parsed fragment.
pub(crate) fn attribute_allowed(element: &str, attribute: &str, value: &str) -> Result<(), MarkdownError> {
    let forbidden = || MarkdownError::ForbiddenAttribute {
        element: element.to_owned(),
        attribute: attribute.to_owned(),
    };
    if element != "a" {
        return Err(forbidden());
    }
    match attribute {
        "href" if is_allowed_url(value) => Ok(()),
        "href" => Err(MarkdownError::UnsafeLink(value.to_owned())),
        "title" => Ok(()),
        "rel" if value == LINK_REL => Ok(()),
        "target" if value == LINK_TARGET => Ok(()),
        _ => Err(forbidden()),
    }
}

/// Whether `element` (lower-case local name) may appear at all.
pub(crate) fn element_allowed(element: &str) -> Result<(), MarkdownError> {
    if ALLOWED_TAGS.contains(&element) {
        Ok(())
    } else {
        Err(MarkdownError::ForbiddenElement(element.to_owned()))
    }
}

/// Whether a link element is complete: it must point somewhere allowed.
pub(crate) fn link_complete(has_href: bool) -> Result<(), MarkdownError> {
    if has_href {
        Ok(())
    } else {
        Err(MarkdownError::UnsafeLink(String::new()))
    }
}

/// Step 3: reads back html5ever's serialisation (text is escaped there, so
/// every `<` opens a tag) and checks every element and attribute.
pub(crate) fn audit_html(html: &str) -> Result<(), MarkdownError> {
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        if let Some(after) = rest.strip_prefix('/') {
            let end = after.find('>').ok_or(MarkdownError::Malformed)?;
            element_allowed(after[..end].trim())?;
            rest = &after[end + 1..];
            continue;
        }
        let name_end = rest
            .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .ok_or(MarkdownError::Malformed)?;
        let element = &rest[..name_end];
        element_allowed(element)?;
        rest = &rest[name_end..];
        let mut has_href = false;
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
            if let Some(after) = rest.strip_prefix('>') {
                rest = after;
                break;
            }
            if let Some(after) = rest.strip_prefix("/>") {
                rest = after;
                break;
            }
            let name_end = rest.find('=').ok_or(MarkdownError::Malformed)?;
            let attribute = &rest[..name_end];
            let value_rest = rest[name_end + 1..].strip_prefix('"').ok_or(MarkdownError::Malformed)?;
            let value_end = value_rest.find('"').ok_or(MarkdownError::Malformed)?;
            let value = unescape_attribute(&value_rest[..value_end]);
            attribute_allowed(element, attribute, &value)?;
            has_href |= attribute == "href";
            rest = &value_rest[value_end + 1..];
        }
        if element == "a" {
            link_complete(has_href)?;
        }
    }
    Ok(())
}

/// html5ever escapes `&`, `"` and U+00A0 in attribute values.
fn unescape_attribute(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(markdown: &str) -> String {
        render(markdown).expect("renders")
    }

    /// (element, attributes) of every opening tag in sanitised output.
    fn elements(html: &str) -> Vec<(String, Vec<(String, String)>)> {
        let mut found = Vec::new();
        let mut rest = html;
        while let Some(open) = rest.find('<') {
            rest = &rest[open + 1..];
            if rest.starts_with('/') {
                continue;
            }
            let end = rest.find('>').expect("closed tag");
            let tag = &rest[..end];
            let mut parts = tag.splitn(2, ' ');
            let name = parts.next().unwrap_or_default().trim_end_matches('/').to_owned();
            let mut attributes = Vec::new();
            let mut attrs = parts.next().unwrap_or_default();
            while let Some(eq) = attrs.find("=\"") {
                let key = attrs[..eq].trim().to_owned();
                let value_rest = &attrs[eq + 2..];
                let close = value_rest.find('"').expect("quoted");
                attributes.push((key, unescape_attribute(&value_rest[..close])));
                attrs = &value_rest[close + 1..];
            }
            found.push((name, attributes));
            rest = &rest[end..];
        }
        found
    }

    fn assert_inert(markdown: &str) -> String {
        let out = html(markdown);
        for (name, attributes) in elements(&out) {
            assert!(ALLOWED_TAGS.contains(&name.as_str()), "<{name}> in {out}");
            for (key, value) in attributes {
                assert_eq!(name, "a", "attribute {key} on <{name}> in {out}");
                assert!(
                    ["href", "title", "rel", "target"].contains(&key.as_str()),
                    "{key} in {out}"
                );
                if key == "href" {
                    assert!(is_allowed_url(&value), "href {value:?} in {out}");
                }
            }
        }
        let lower = out.to_ascii_lowercase();
        for needle in [
            "<script", "<iframe", "<img", "<svg", "<form", "<input", "<style", "<object", "<embed", "<video", "<audio",
            "<math", "<button", "<!--",
        ] {
            // Escaped text (`&lt;script`) is fine; only live markup counts.
            // (Scheme names may appear as text; hrefs are checked above.)
            assert!(!lower.contains(needle), "{needle} in {out}");
        }
        assert!(!has_event_handler_attribute(&out), "on* attribute in {out}");
        out
    }

    fn has_event_handler_attribute(out: &str) -> bool {
        elements(out)
            .iter()
            .any(|(_, attributes)| attributes.iter().any(|(key, _)| key.starts_with("on")))
    }

    #[test]
    fn ordinary_markdown_renders_with_the_allowed_elements() {
        let out = assert_inert(
            "# Title\n\nSome **bold**, *em*, ~~gone~~ and `code`.\n\n> quote\n\n- a\n- b\n\n1. one\n\n---\n\n```rust\nfn x() {}\n```\n",
        );
        for tag in [
            "<h1>",
            "<strong>",
            "<em>",
            "<del>",
            "<code>",
            "<blockquote>",
            "<ul>",
            "<ol>",
            "<li>",
            "<hr>",
            "<pre>",
        ] {
            assert!(out.contains(tag), "{tag} missing in {out}");
        }
        // The fence's language class is not carried over.
        assert!(!out.contains("class="), "{out}");
    }

    #[test]
    fn gfm_tables_render_without_style_attributes() {
        let out = assert_inert("| a | b |\n|:--|--:|\n| 1 | 2 |\n");
        for tag in ["<table>", "<thead>", "<tbody>", "<tr>", "<th>", "<td>"] {
            assert!(out.contains(tag), "{tag} missing in {out}");
        }
        assert!(!out.contains("style"), "{out}");
    }

    #[test]
    fn single_newlines_are_line_breaks() {
        assert_eq!(html("one\ntwo"), "<p>one<br>\ntwo</p>\n");
    }

    #[test]
    fn https_and_mailto_links_open_safely_in_a_new_tab() {
        let out = assert_inert("[docs](https://typst.app/docs \"Typst\") and <someone@example.com>");
        assert!(
            out.contains(
                r#"<a href="https://typst.app/docs" title="Typst" target="_blank" rel="noopener noreferrer">docs</a>"#
            ),
            "{out}"
        );
        assert!(out.contains(r#"href="mailto:someone@example.com""#), "{out}");
        let links = elements(&out).into_iter().filter(|(name, _)| name == "a").count();
        assert_eq!(links, 2, "{out}");
    }

    #[test]
    fn unsafe_links_become_their_text() {
        for target in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "&#106;avascript:alert(1)",
            "&#x6A;&#x61;vascript:alert(1)",
            "java&#x09;script:alert(1)",
            "<java script:alert(1)>",
            "<\u{1}javascript:alert(1)>",
            "%6Aavascript:alert(1)",
            "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
            "DATA:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)",
            "http://insecure.example/",
            "file:///etc/passwd",
            "/relative/path",
            "//evil.example/x",
            "#fragment",
        ] {
            let out = assert_inert(&format!("[click me]({target})"));
            assert!(!out.contains("<a"), "{target} kept a link: {out}");
            assert!(out.contains("click me"), "{target} lost its label: {out}");
        }
    }

    #[test]
    fn obfuscated_schemes_are_caught_by_url_parsing() {
        assert!(is_allowed_url("HTTPS://Example.com/x"));
        assert!(is_allowed_url("mailto:a@b.c"));
        assert!(!is_allowed_url(" javascript:alert(1)"));
        assert!(!is_allowed_url("\tjava\nscript:alert(1)"));
        // Leading C0 controls are stripped by URL parsers, browsers included.
        assert!(is_allowed_url("\u{0}https://x.example"));
        assert!(!is_allowed_url("https:"));
        assert!(!is_allowed_url(""));
        // A leading space is stripped by URL parsing and the https link stays allowed.
        assert!(is_allowed_url(" https://example.com"));
    }

    #[test]
    fn reference_and_autolinks_follow_the_same_rule() {
        let out = assert_inert(
            "[a][x] and [b][y] and <javascript:alert(1)>\n\n[x]: https://ok.example\n[y]: javascript:alert(2)\n",
        );
        assert!(out.contains(r#"href="https://ok.example""#), "{out}");
        assert_eq!(elements(&out).iter().filter(|(n, _)| n == "a").count(), 1, "{out}");
        assert!(out.contains("javascript:alert(1)") || out.contains("b"), "{out}");
    }

    #[test]
    fn bare_https_urls_become_links_and_trailing_punctuation_stays_text() {
        let out = assert_inert("See https://typst.app/docs/reference. Or (https://example.com/a_(b)).");
        assert!(out.contains(r#"href="https://typst.app/docs/reference""#), "{out}");
        assert!(out.contains(r#"href="https://example.com/a_(b)""#), "{out}");
        assert!(out.contains("</a>."), "{out}");
        // Other schemes and code stay text.
        let out = assert_inert("http://plain.example and `https://in.code` and javascript://x");
        assert!(!out.contains("<a"), "{out}");
        let out = assert_inert("```\nhttps://in.block.example\n```");
        assert!(!out.contains("<a"), "{out}");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        for raw in [
            "<script>alert(1)</script>",
            "<iframe src=\"https://evil.example\"></iframe>",
            "<img src=x onerror=alert(1)>",
            "<svg onload=alert(1)><circle r=1 /></svg>",
            "<form action=\"https://evil.example\"><input autofocus onfocus=alert(1)><button>go</button></form>",
            "<style>body{display:none}</style>",
            "<a href=\"javascript:alert(1)\" onclick=\"alert(2)\">x</a>",
            "<div style=\"position:fixed\" onmouseover=\"alert(1)\">hover</div>",
            "<object data=\"x\"></object><embed src=\"x\">",
            "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
            "<!-- hidden comment --> text",
            "<details open ontoggle=alert(1)>",
            "<base href=\"https://evil.example/\">",
            "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
        ] {
            let out = assert_inert(raw);
            assert!(out.contains("&lt;"), "{raw} was not escaped: {out}");
        }
        // Inline HTML inside a paragraph is escaped too.
        let out = assert_inert("before <span onclick=\"x()\">mid</span> after");
        assert!(
            out.contains("&lt;span onclick=\"x()\"&gt;") || out.contains("&lt;span onclick=&quot;x()&quot;&gt;"),
            "{out}"
        );
    }

    #[test]
    fn raw_html_blocks_keep_their_lines() {
        let out = html("<div>\nfirst\nsecond\n</div>");
        assert_eq!(out, "<p>&lt;div&gt;<br>\nfirst<br>\nsecond<br>\n&lt;/div&gt;</p>\n");
    }

    #[test]
    fn images_are_never_created() {
        let out = assert_inert("![remote alt](https://remote.example/cat.png \"t\")");
        assert!(
            out.contains(r#"<a href="https://remote.example/cat.png" title="t" target="_blank" rel="noopener noreferrer">Image: remote alt</a>"#),
            "{out}"
        );
        let out = assert_inert("![tracker](http://remote.example/pixel.gif)");
        assert_eq!(out, "<p>Image: tracker</p>\n");
        let out = assert_inert("![](data:image/png;base64,AAAA)");
        assert_eq!(out, "<p>Image: attachment</p>\n");
        let out = assert_inert("![*styled* `alt`](javascript:alert(1))");
        assert_eq!(out, "<p>Image: styled alt</p>\n");
        // An image inside a link gives one link, not two nested ones.
        let out = assert_inert("[![logo](https://img.example/l.png)](https://site.example)");
        assert_eq!(elements(&out).iter().filter(|(n, _)| n == "a").count(), 1, "{out}");
        assert!(out.contains("Image: logo"), "{out}");
        // Reference-style images too.
        let out = assert_inert("![alt][pic]\n\n[pic]: javascript:alert(1)\n");
        assert_eq!(out, "<p>Image: alt</p>\n");
    }

    #[test]
    fn empty_link_labels_show_the_target() {
        let out = assert_inert("[](https://example.com/x)");
        assert!(out.contains(">https://example.com/x</a>"), "{out}");
    }

    #[test]
    fn entity_and_attribute_tricks_stay_inert() {
        assert_inert("[x](https://ok.example \"a\\\" onmouseover=\\\"alert(1)\")");
        assert_inert("[x](https://ok.example/\"onmouseover=\"alert(1))");
        assert_inert("&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_inert("`<script>alert(1)</script>`");
        assert_inert("```html\n<script>alert(1)</script>\n```");
        assert_inert("<scr<script>ipt>alert(1)</script>");
        assert_inert("[a](<https://ok.example> \"<img src=x onerror=alert(1)>\")");
    }

    #[test]
    fn the_audit_refuses_anything_outside_the_allowlist() {
        assert_eq!(
            audit_html("<p>ok <a href=\"https://x.example\" target=\"_blank\" rel=\"noopener noreferrer\">x</a></p>"),
            Ok(())
        );
        assert_eq!(
            audit_html("<img src=\"x\">"),
            Err(MarkdownError::ForbiddenElement("img".into()))
        );
        assert_eq!(
            audit_html("<p onclick=\"x\">a</p>"),
            Err(MarkdownError::ForbiddenAttribute {
                element: "p".into(),
                attribute: "onclick".into()
            })
        );
        assert_eq!(
            audit_html("<a href=\"javascript:alert(1)\">x</a>"),
            Err(MarkdownError::UnsafeLink("javascript:alert(1)".into()))
        );
        assert_eq!(audit_html("<a>x</a>"), Err(MarkdownError::UnsafeLink(String::new())));
        assert_eq!(
            audit_html("<a target=\"_self\" href=\"https://x.example\">"),
            Err(MarkdownError::ForbiddenAttribute {
                element: "a".into(),
                attribute: "target".into()
            })
        );
        assert_eq!(audit_html("<p"), Err(MarkdownError::Malformed));
        assert_eq!(audit_html("<a href=x>"), Err(MarkdownError::Malformed));
        assert_eq!(MarkdownError::Malformed.code(), "MARKDOWN_MALFORMED");
    }

    #[test]
    fn unfinished_markdown_still_renders_safely() {
        for partial in [
            "**bold",
            "[link](https://exa",
            "```rust\nfn",
            "| a |\n|--",
            "![img](https://x",
            "<scr",
            "&#106;ava",
        ] {
            assert_inert(partial);
        }
    }

    #[test]
    fn large_and_deeply_nested_input_renders() {
        let nested = ">".repeat(2000) + " deep";
        assert_inert(&nested);
        let list = "- item\n".repeat(5000);
        assert_inert(&list);
        let brackets = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_inert(&brackets);
    }
}
