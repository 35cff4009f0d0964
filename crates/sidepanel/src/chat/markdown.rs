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
//!    instead. The panel's one HTML sink (`chat/view/html_sink.rs`) repeats
//!    the same element check on the parsed fragment, so a parser difference
//!    between html5ever and the browser cannot smuggle an element through
//!    either.
//!
//! Everything here is plain Rust, tested natively with hostile inputs.

use protocol::ErrorCode;
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
    /// Stable code for logs, from the catalogue.
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            MarkdownError::ForbiddenElement(_) => ErrorCode::MarkdownForbiddenElement,
            MarkdownError::ForbiddenAttribute { .. } => ErrorCode::MarkdownForbiddenAttribute,
            MarkdownError::UnsafeLink(_) => ErrorCode::MarkdownUnsafeLink,
            MarkdownError::Malformed => ErrorCode::MarkdownMalformed,
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

/// The parser's options; `chat::incremental` splits with the same parse.
pub(crate) fn options() -> Options {
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
    let mut safe = SafeEvents::default();
    for event in events {
        safe.push(event);
    }
    safe.finish()
}

/// The rewrite of step 1, one event at a time: what is open (links, an
/// image, code blocks, a raw HTML block) decides what an event becomes.
#[derive(Default)]
struct SafeEvents<'a> {
    out: Vec<Event<'a>>,
    links: Vec<OpenLink>,
    image: Option<PendingImage>,
    code_blocks: usize,
    html_block: Option<String>,
}

impl<'a> SafeEvents<'a> {
    fn push(&mut self, event: Event<'a>) {
        if self.image.is_some() {
            self.push_in_image(event);
            return;
        }
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => self.open_link(link_type, &dest_url, title, id),
            Event::End(TagEnd::Link) => self.close_link(),
            Event::Start(Tag::Image { dest_url, title, .. }) => {
                self.image = Some(PendingImage {
                    href: dest_url.to_string(),
                    title: title.to_string(),
                    alt: String::new(),
                    depth: 0,
                });
            }
            // Raw HTML is shown as the text it is: a block becomes a
            // paragraph whose lines stay lines.
            Event::Start(Tag::HtmlBlock) => self.html_block = Some(String::new()),
            Event::End(TagEnd::HtmlBlock) => {
                let raw = self.html_block.take().unwrap_or_default();
                self.out.push(Event::Start(Tag::Paragraph));
                push_lines(&mut self.out, &raw);
                self.out.push(Event::End(TagEnd::Paragraph));
            }
            Event::Html(raw) => match self.html_block.as_mut() {
                Some(block) => block.push_str(&raw),
                None => push_lines(&mut self.out, &raw),
            },
            Event::InlineHtml(raw) => self.out.push(Event::Text(raw)),
            // Single newlines are line breaks, as people expect in a chat.
            Event::SoftBreak => self.out.push(Event::HardBreak),
            Event::Start(Tag::CodeBlock(kind)) => {
                self.code_blocks += 1;
                self.out.push(Event::Start(Tag::CodeBlock(kind)));
            }
            Event::End(TagEnd::CodeBlock) => {
                self.code_blocks = self.code_blocks.saturating_sub(1);
                self.out.push(Event::End(TagEnd::CodeBlock));
            }
            Event::Text(text) if self.code_blocks == 0 && self.links.is_empty() => push_autolinked(&mut self.out, text),
            // Features left off in `options()` never produce other events
            // that carry markup of their own.
            other => self.out.push(other),
        }
    }

    /// Inside an image everything is its alt text, until the image ends.
    fn push_in_image(&mut self, event: Event<'a>) {
        let Some(pending) = self.image.as_mut() else {
            return;
        };
        match event {
            Event::Start(Tag::Image { .. }) => pending.depth += 1,
            Event::End(TagEnd::Image) if pending.depth > 0 => pending.depth -= 1,
            Event::End(TagEnd::Image) => self.close_image(),
            Event::Text(text) | Event::Code(text) | Event::Html(text) | Event::InlineHtml(text) => {
                pending.alt.push_str(&text);
            }
            Event::SoftBreak | Event::HardBreak => pending.alt.push(' '),
            _ => {}
        }
    }

    fn close_image(&mut self) {
        if let Some(done) = self.image.take() {
            let inside_link = self.links.iter().any(|link| link.emitted);
            push_image(&mut self.out, done, inside_link);
        }
    }

    fn open_link(&mut self, link_type: LinkType, dest_url: &str, title: CowStr<'a>, id: CowStr<'a>) {
        let href = if link_type == LinkType::Email {
            format!("mailto:{dest_url}")
        } else {
            dest_url.to_owned()
        };
        // A link inside a link would be split by the HTML parser; the inner
        // one keeps only its text.
        let emitted = !self.links.iter().any(|link| link.emitted) && is_allowed_url(&href);
        if emitted {
            self.out.push(Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url: CowStr::from(href.clone()),
                title,
                id,
            }));
        }
        self.links.push(OpenLink {
            emitted,
            start: self.out.len(),
            href,
        });
    }

    fn close_link(&mut self) {
        if let Some(link) = self.links.pop() {
            if self.out.len() == link.start {
                // An empty label would make an invisible link.
                let label = if link.href.is_empty() {
                    "link".to_owned()
                } else {
                    link.href
                };
                self.out.push(Event::Text(CowStr::from(label)));
            }
            if link.emitted {
                self.out.push(Event::End(TagEnd::Link));
            }
        }
    }

    /// An image cut off by the end of input still shows its label.
    fn finish(mut self) -> Vec<Event<'a>> {
        self.close_image();
        self.out
    }
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
mod tests;
