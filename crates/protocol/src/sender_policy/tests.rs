//! The sender policy, case by case: the senders the browser names in
//! practice (the panel, the panel opened in a tab, the worker, content
//! scripts in top and sub-frames, other sites and extensions) and the ones
//! it names badly (fields missing, an opaque `null` origin).

use super::*;

const ID: &str = "abcdefghijklmnopabcdefghijklmnop";
const PANEL_URL: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/src/sidepanel/index.html";
const ORIGIN: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";
const WORKER_URL: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/src/background/service-worker.js";
const PAGE: &str = "https://typst.app/project/p1";

fn panel() -> Sender<'static> {
    Sender {
        id: Some(ID),
        url: Some(PANEL_URL),
        origin: Some(ORIGIN),
        ..Sender::default()
    }
}

fn content_script(url: &'static str, origin: &'static str, frame_id: i64) -> Sender<'static> {
    Sender {
        id: Some(ID),
        url: Some(url),
        origin: Some(origin),
        frame_id: Some(frame_id),
        has_tab: true,
        tab_url: Some(PAGE),
    }
}

/// Every named sender against every rule: `Ok` or the reason.
#[test]
fn each_rule_admits_only_its_senders() {
    use SenderRule::{ExtensionPage as Page, TypstTopFrame as Top, Worker as W};
    let in_tab = Sender {
        has_tab: true,
        tab_url: Some(PANEL_URL),
        frame_id: Some(0),
        ..panel()
    };
    let worker = Sender {
        id: Some(ID),
        url: Some(WORKER_URL),
        origin: Some(ORIGIN),
        ..Sender::default()
    };
    let top = content_script(PAGE, "https://typst.app", 0);
    let sub = content_script("https://typst.app/embed", "https://typst.app", 3);
    let elsewhere = Sender {
        tab_url: Some("https://example.test/"),
        ..content_script("https://example.test/", "https://example.test", 0)
    };
    let typst_frame_on_other_tab = Sender {
        tab_url: Some("https://example.test/"),
        ..top
    };
    let other_extension = Sender {
        id: Some("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"),
        ..panel()
    };
    let spoofed_path = Sender {
        url: Some("chrome-extension://abcdefghijklmnopabcdefghijklmnopx/index.html"),
        origin: None,
        ..panel()
    };
    let null_origin = Sender {
        origin: Some("null"),
        ..panel()
    };
    let url_only = Sender {
        origin: None,
        ..panel()
    };
    let origin_only = Sender { url: None, ..panel() };
    let id_only = Sender {
        id: Some(ID),
        ..Sender::default()
    };
    let top_without_frame = Sender { frame_id: None, ..top };
    let top_without_tab_url = Sender { tab_url: None, ..top };
    let top_origin_elsewhere = Sender {
        origin: Some("https://evil.test"),
        ..top
    };
    let cases: Vec<(&str, Sender<'_>, SenderRule, Result<(), Refusal>)> = vec![
        ("panel", panel(), Page, Ok(())),
        ("panel in a tab", in_tab, Page, Ok(())),
        ("panel url only", url_only, Page, Ok(())),
        ("panel origin only", origin_only, Page, Ok(())),
        ("worker as a page", worker, Page, Ok(())),
        ("content script top", top, Page, Err(Refusal::NotExtensionPage)),
        ("content script sub", sub, Page, Err(Refusal::NotExtensionPage)),
        (
            "content script elsewhere",
            elsewhere,
            Page,
            Err(Refusal::NotExtensionPage),
        ),
        ("other extension", other_extension, Page, Err(Refusal::OtherExtension)),
        ("longer id in url", spoofed_path, Page, Err(Refusal::NotExtensionPage)),
        ("null origin", null_origin, Page, Err(Refusal::NotExtensionPage)),
        ("id only", id_only, Page, Err(Refusal::NotExtensionPage)),
        ("nothing", Sender::default(), Page, Err(Refusal::UnknownSender)),
        (
            "blank id",
            Sender {
                id: Some(""),
                ..panel()
            },
            Page,
            Err(Refusal::UnknownSender),
        ),
        ("top frame", top, Top, Ok(())),
        ("top frame, tab url hidden", top_without_tab_url, Top, Ok(())),
        ("sub-frame", sub, Top, Err(Refusal::NotTopFrame)),
        ("no frame id", top_without_frame, Top, Err(Refusal::NotTopFrame)),
        ("other site", elsewhere, Top, Err(Refusal::NotTypstApp)),
        (
            "typst frame, other tab",
            typst_frame_on_other_tab,
            Top,
            Err(Refusal::NotTypstApp),
        ),
        ("origin elsewhere", top_origin_elsewhere, Top, Err(Refusal::NotTypstApp)),
        ("panel as top frame", panel(), Top, Err(Refusal::NotTopFrame)),
        ("panel in a tab as top frame", in_tab, Top, Err(Refusal::NotTypstApp)),
        (
            "other extension top",
            Sender { id: Some("x"), ..top },
            Top,
            Err(Refusal::OtherExtension),
        ),
        ("worker", worker, W, Ok(())),
        ("panel as worker", panel(), W, Err(Refusal::NotWorker)),
        (
            "worker url in a tab",
            Sender {
                has_tab: true,
                ..worker
            },
            W,
            Err(Refusal::NotWorker),
        ),
        ("content script as worker", top, W, Err(Refusal::NotWorker)),
        (
            "worker of another extension",
            Sender {
                id: Some("x"),
                ..worker
            },
            W,
            Err(Refusal::OtherExtension),
        ),
        ("unknown as worker", Sender::default(), W, Err(Refusal::UnknownSender)),
        ("nobody", panel(), SenderRule::Nobody, Err(Refusal::NeverSent)),
    ];
    for (name, sender, rule, expected) in cases {
        assert_eq!(decide(rule, &sender, ID), expected, "{name}: {sender:?} under {rule:?}");
    }
}

#[test]
fn an_empty_runtime_id_admits_nobody() {
    let blank = Sender {
        id: Some(""),
        url: Some("chrome-extension:///x"),
        origin: Some("chrome-extension://"),
        ..Sender::default()
    };
    assert_eq!(
        decide(SenderRule::ExtensionPage, &blank, ""),
        Err(Refusal::UnknownSender)
    );
    assert_eq!(
        decide(SenderRule::ExtensionPage, &panel(), ""),
        Err(Refusal::OtherExtension)
    );
}

#[test]
fn every_panel_request_needs_an_extension_page_and_quick_attach_a_typst_top_frame() {
    use crate::MessageKind;
    for &ty in MessageType::ALL {
        let to_worker = rule_for(Receiver::Worker, ty);
        let to_panel = rule_for(Receiver::Panel, ty);
        match ty {
            MessageType::QuickAttachSelection | MessageType::QuickAttachImagePreview => {
                assert_eq!(to_worker, SenderRule::TypstTopFrame, "{ty:?}");
                assert_eq!(to_panel, SenderRule::Worker, "{ty:?}");
            }
            _ if ty.is_page_request() || ty.kind() != MessageKind::Request => {
                assert_eq!(to_worker, SenderRule::Nobody, "{ty:?}: the worker never receives it");
            }
            _ => assert_eq!(to_worker, SenderRule::ExtensionPage, "{ty:?}"),
        }
        if to_panel == SenderRule::Worker {
            assert!(
                ty.kind() == MessageKind::Event || to_worker == SenderRule::TypstTopFrame,
                "{ty:?}: the panel takes only the worker's events and quick attaches"
            );
        }
    }
    let worker_events = MessageType::ALL
        .iter()
        .filter(|&&ty| rule_for(Receiver::Panel, ty) == SenderRule::Worker)
        .count();
    assert_eq!(
        worker_events, 13,
        "10 run events, the tab change and the two quick attaches"
    );
}

#[test]
fn the_worker_refuses_content_scripts_everything_but_quick_attach() {
    let top = content_script(PAGE, "https://typst.app", 0);
    for &ty in MessageType::ALL {
        let verdict = check(Receiver::Worker, ty, &top, ID);
        match rule_for(Receiver::Worker, ty) {
            SenderRule::TypstTopFrame => assert_eq!(verdict, Ok(()), "{ty:?}"),
            SenderRule::Nobody => assert_eq!(verdict, Err(Refusal::NeverSent), "{ty:?}"),
            _ => assert_eq!(verdict, Err(Refusal::NotExtensionPage), "{ty:?}"),
        }
    }
}

#[test]
fn refusal_names_are_unique_camel_case() {
    let mut names: Vec<&str> = Refusal::ALL.iter().map(|r| r.as_str()).collect();
    assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_alphabetic())));
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Refusal::ALL.len());
}

/// The browser's `sender` objects, read as both adapters read them: what
/// the policy is then given, and which shapes are not a sender at all.
#[test]
fn a_browser_sender_reads_as_the_facts_the_policy_takes() {
    let read = |value: serde_json::Value| serde_json::from_value::<BrowserSender>(value);
    let panel_in_tab = read(serde_json::json!({
        "id": ID, "url": PANEL_URL, "origin": ORIGIN, "frameId": 0,
        "tab": {"id": 30, "windowId": 1, "url": PANEL_URL, "active": true},
        "documentId": "ignored",
    }))
    .expect("a sender");
    assert_eq!(
        panel_in_tab.facts(),
        Sender {
            id: Some(ID),
            url: Some(PANEL_URL),
            origin: Some(ORIGIN),
            frame_id: Some(0),
            has_tab: true,
            tab_url: Some(PANEL_URL),
        }
    );
    // A tab whose URL the extension may not see: absent or empty alike.
    for tab in [serde_json::json!({"id": 4}), serde_json::json!({"id": 4, "url": ""})] {
        let sender = read(serde_json::json!({"id": ID, "url": PAGE, "frameId": 0, "tab": tab})).expect("a sender");
        let facts = sender.facts();
        assert!(facts.has_tab);
        assert_eq!(facts.tab_url, None, "{sender:?}");
    }
    assert_eq!(
        read(serde_json::json!({})).expect("a sender").facts(),
        Sender::default()
    );
    // Fields of another type: not a sender (the adapters take the default).
    for bad in [
        serde_json::json!({"id": 7}),
        serde_json::json!({"id": ID, "frameId": "0"}),
        serde_json::json!({"id": ID, "tab": {"url": 1}}),
        serde_json::json!("sender"),
    ] {
        assert!(read(bad.clone()).is_err(), "{bad}");
    }
}
