//! Tests of `chat::markdown`: rendering, and hostile inputs that must come
//! out inert at every one of its three steps.

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
    assert_eq!(MarkdownError::Malformed.code().as_str(), "MARKDOWN_MALFORMED");
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
