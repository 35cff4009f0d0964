//! Whether a click on a link in a rendered answer follows it at once or
//! first shows where it goes.
//!
//! Answers are model output, and a prompt injection in a document can ask
//! the model to write a link whose address carries text from the chat to
//! another site (`https://example.com/?q=<the document>`), under a label that
//! says something else. So a link is followed directly only when what the
//! user sees is the whole destination and it is short; otherwise the panel
//! shows the full destination in a dialog and opens it only when the user
//! confirms. The bounds are `protocol::limits::MAX_LINK_DIRECT_CHARS` and
//! `MAX_LINK_QUERY_CHARS`. Plain decisions, tested natively.

use crate::edit_review::spoken_text;
use protocol::limits::{MAX_LINK_DIRECT_CHARS, MAX_LINK_QUERY_CHARS, to_usize};

/// What the confirmation dialog shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkDisclosure {
    /// The whole destination, invisible and bidi characters as code points.
    pub(crate) destination: String,
    /// The site it goes to (`example.com`), or the mail address.
    pub(crate) site: String,
    /// Why it is shown first, one sentence per reason.
    pub(crate) reasons: Vec<String>,
}

/// What a click on a link does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkDecision {
    /// Follow it as the browser would.
    Follow,
    /// Show the destination and follow only on confirmation.
    Confirm(LinkDisclosure),
}

/// The part after `?` or `#`, whichever comes first.
fn query_and_fragment(href: &str) -> &str {
    href.find(['?', '#']).map_or("", |at| &href[at + 1..])
}

/// The host of an `https:` address or the address of a `mailto:` link.
fn site_of(href: &str) -> String {
    if let Some(rest) = href.strip_prefix("mailto:") {
        return rest.split(['?', '#']).next().unwrap_or_default().to_owned();
    }
    let rest = href.split_once("://").map_or(href, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority.rsplit('@').next().unwrap_or_default().to_owned()
}

/// Whether the visible text is the destination itself (as autolinks and
/// `<https://…>` links show it, with or without `mailto:`).
fn label_shows(href: &str, label: &str) -> bool {
    let label = label.trim();
    label == href || href.strip_prefix("mailto:") == Some(label) || href.strip_suffix('/') == Some(label)
}

/// Decides what a click on a link to `href` labelled `label` does.
pub(crate) fn decide(href: &str, label: &str) -> LinkDecision {
    let mut reasons = Vec::new();
    let length = href.chars().count();
    if length > to_usize(MAX_LINK_DIRECT_CHARS) {
        reasons.push(format!("The address is {length} characters long."));
    }
    let query = query_and_fragment(href).chars().count();
    if query > to_usize(MAX_LINK_QUERY_CHARS) {
        reasons.push(format!(
            "It carries {query} characters after “?” or “#”, which the site receives and which can hold text from this chat."
        ));
    }
    if !label_shows(href, label) {
        reasons.push("The link's text does not show where it goes.".to_owned());
    }
    let destination = spoken_text(href);
    if destination != href {
        reasons.push("The address holds invisible or text-direction characters.".to_owned());
    }
    if reasons.is_empty() {
        return LinkDecision::Follow;
    }
    LinkDecision::Confirm(LinkDisclosure {
        destination,
        site: spoken_text(&site_of(href)),
        reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(href: &str, label: &str) -> Vec<String> {
        match decide(href, label) {
            LinkDecision::Follow => Vec::new(),
            LinkDecision::Confirm(disclosure) => disclosure.reasons,
        }
    }

    #[test]
    fn short_links_that_show_their_destination_are_followed() {
        for (href, label) in [
            ("https://typst.app/docs", "https://typst.app/docs"),
            ("https://typst.app/docs/", "https://typst.app/docs"),
            (
                "https://typst.app/docs/reference/?q=table",
                "https://typst.app/docs/reference/?q=table",
            ),
            ("mailto:someone@example.com", "someone@example.com"),
        ] {
            assert_eq!(decide(href, label), LinkDecision::Follow, "{href}");
        }
    }

    #[test]
    fn a_long_query_string_is_shown_in_full_before_it_is_followed() {
        let secret = "The%20thesis%20draft%20says%20the%20results%20are%20not%20yet%20public";
        let href = format!("https://collector.example/c?d={secret}");
        let LinkDecision::Confirm(disclosure) = decide(&href, &href) else {
            panic!("a long query string needs a confirmation");
        };
        assert_eq!(disclosure.destination, href, "the whole destination");
        assert_eq!(disclosure.site, "collector.example");
        assert_eq!(disclosure.reasons.len(), 1, "{:?}", disclosure.reasons);
        assert!(
            disclosure.reasons[0].starts_with("It carries 72 characters after"),
            "{:?}",
            disclosure.reasons
        );
        // Exactly at the bound is still followed.
        let at_bound = format!("https://a.example/?{}", "q".repeat(40));
        assert_eq!(decide(&at_bound, &at_bound), LinkDecision::Follow);
        let over = format!("https://a.example/#{}", "q".repeat(41));
        assert_eq!(reasons(&over, &over).len(), 1);
        let mail = format!("mailto:x@example.com?body={}", "b".repeat(60));
        assert!(matches!(decide(&mail, &mail), LinkDecision::Confirm(d) if d.site == "x@example.com"));
    }

    #[test]
    fn a_long_address_or_a_label_that_hides_it_is_shown_first() {
        let long = format!("https://example.com/{}", "p/".repeat(60));
        assert_eq!(reasons(&long, &long), ["The address is 140 characters long."]);
        let hidden = reasons("https://example.com/a", "Typst documentation");
        assert_eq!(hidden, ["The link's text does not show where it goes."]);
        let LinkDecision::Confirm(disclosure) = decide("https://user@evil.example/x", "docs") else {
            panic!("a label that is not the address needs a confirmation");
        };
        assert_eq!(disclosure.site, "evil.example");
        let LinkDecision::Confirm(bidi) = decide(
            "https://example.com/\u{202E}fdp.exe",
            "https://example.com/\u{202E}fdp.exe",
        ) else {
            panic!("a bidi control in the address needs a confirmation");
        };
        assert_eq!(bidi.destination, "https://example.com/ U+202E fdp.exe");
        assert_eq!(
            bidi.reasons,
            ["The address holds invisible or text-direction characters."]
        );
    }
}
