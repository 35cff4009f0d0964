//! Who may send each message type: the sender policy of the worker and the
//! panel.
//!
//! A runtime message's content is chosen by whoever sent it, but its
//! `sender` (`chrome.runtime.onMessage`'s second argument) is filled in by the
//! browser. Anything that runs as this extension's content script — a
//! compromised typst.app renderer, a relay bug in the isolated world — can
//! call `chrome.runtime.sendMessage` with any envelope, so the receiver
//! decides from the sender, before reading the payload, whether the type may
//! come from there at all.
//!
//! The rules are data: [`rule_for`] is one exhaustive match over
//! [`MessageType`] per receiver, so a new type does not compile until it
//! states who may send it. [`decide`] applies a rule to a [`Sender`].
//!
//! | Rule | Who | Types |
//! |---|---|---|
//! | [`SenderRule::ExtensionPage`] | a page of this extension (the side panel, also when opened in a tab): `sender.id` is the runtime id and its origin is `chrome-extension://<id>` | every panel → worker request |
//! | [`SenderRule::TypstTopFrame`] | this extension's content script in the top frame of a `https://typst.app/` tab | `QUICK_ATTACH_SELECTION`, `QUICK_ATTACH_IMAGE_PREVIEW` (to the worker) |
//! | [`SenderRule::Worker`] | this extension's service worker (no tab, its script's URL) | run events, `ACTIVE_TAB_CHANGED`, the quick-attach broadcasts (to the panel) |
//! | [`SenderRule::Nobody`] | nobody over the runtime channel | answers, page requests and the page bridge's window messages |
//!
//! Page events (`PAGE_QUICK_*`, `PAGE_BRIDGE_*`) travel only between the two
//! page worlds by `window.postMessage`; the isolated world turns a click into
//! a `QUICK_ATTACH_*` request, so no page event reaches the runtime.

use crate::MessageType;
use crate::constants::{TYPST_APP_PREFIX, is_typst_app_url};
use serde::Deserialize;

/// The path of the extension's service-worker script, as its `sender.url`
/// shows it (`chrome-extension://<id>/src/background/service-worker.js`).
pub const WORKER_SCRIPT_PATH: &str = "/src/background/service-worker.js";

/// The scheme of the extension's own pages.
const EXTENSION_SCHEME: &str = "chrome-extension://";

/// Who receives the message: the rules differ (a quick attach goes from a
/// tab to the worker, and from the worker to the panels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receiver {
    /// The service worker's `runtime.onMessage`.
    Worker,
    /// The side panel's `runtime.onMessage`.
    Panel,
}

/// Who may send a type to a receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SenderRule {
    /// A page of this extension, in the panel or in a tab.
    ExtensionPage,
    /// This extension's content script in the top frame of a typst.app tab.
    TypstTopFrame,
    /// This extension's service worker.
    Worker,
    /// Nobody: the type never travels to this receiver over the runtime.
    Nobody,
}

/// What the browser says about a message's sender; `None` where it said
/// nothing (or said something the adapter could not read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sender<'a> {
    /// `sender.id`: the extension the sender belongs to.
    pub id: Option<&'a str>,
    /// `sender.url`: the sending document's or worker's URL.
    pub url: Option<&'a str>,
    /// `sender.origin`: the sending document's origin (`"null"` for opaque ones).
    pub origin: Option<&'a str>,
    /// `sender.frameId`: `0` for a tab's top frame.
    pub frame_id: Option<i64>,
    /// Whether `sender.tab` is present.
    pub has_tab: bool,
    /// `sender.tab.url`, when the tab is present and its URL visible.
    pub tab_url: Option<&'a str>,
}

/// `runtime.onMessage`'s `sender` as the browser passes it: the fields the
/// policy (and the worker, of the tab) reads, for the panel's and the
/// worker's adapters to deserialize alike. One that does not read as this
/// shape (a field of another type) is unknown: the adapters fall back to the
/// default, which names no extension and is refused everything privileged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserSender {
    /// `sender.id`.
    #[serde(default)]
    pub id: Option<String>,
    /// `sender.url`.
    #[serde(default)]
    pub url: Option<String>,
    /// `sender.origin`.
    #[serde(default)]
    pub origin: Option<String>,
    /// `sender.frameId`.
    #[serde(default)]
    pub frame_id: Option<i64>,
    /// `sender.tab`.
    #[serde(default)]
    pub tab: Option<BrowserSenderTab>,
}

/// `sender.tab`, the fields read of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserSenderTab {
    /// `tab.id` (absent for some special tabs).
    #[serde(default)]
    pub id: Option<i64>,
    /// `tab.windowId`.
    #[serde(default)]
    pub window_id: Option<i64>,
    /// `tab.url`, absent (or empty) where the extension may not see it.
    #[serde(default)]
    pub url: Option<String>,
}

impl BrowserSender {
    /// The facts the policy decides on.
    pub fn facts(&self) -> Sender<'_> {
        Sender {
            id: self.id.as_deref(),
            url: self.url.as_deref(),
            origin: self.origin.as_deref(),
            frame_id: self.frame_id,
            has_tab: self.tab.is_some(),
            // An empty URL is one the browser does not show: the same as none.
            tab_url: self
                .tab
                .as_ref()
                .and_then(|tab| tab.url.as_deref())
                .filter(|url| !url.is_empty()),
        }
    }
}

/// Why a sender was refused. Each reason has a stable name, the key of the
/// receiver's refusal counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// The browser named no extension id (an unreadable sender).
    UnknownSender,
    /// The sender belongs to another extension.
    OtherExtension,
    /// The type requires an extension page; the sender is not one (a content
    /// script carries its web page's URL).
    NotExtensionPage,
    /// The type requires the service worker; the sender is something else.
    NotWorker,
    /// The type requires a typst.app tab's top frame; the sender has no tab
    /// or is a sub-frame.
    NotTopFrame,
    /// The type requires a typst.app tab; the sender is on another site.
    NotTypstApp,
    /// The type never travels to this receiver over the runtime.
    NeverSent,
}

impl Refusal {
    /// Every reason, in counter order.
    pub const ALL: [Refusal; 7] = [
        Refusal::UnknownSender,
        Refusal::OtherExtension,
        Refusal::NotExtensionPage,
        Refusal::NotWorker,
        Refusal::NotTopFrame,
        Refusal::NotTypstApp,
        Refusal::NeverSent,
    ];

    /// The reason's stable name (a key of the refusal counts).
    pub const fn as_str(self) -> &'static str {
        match self {
            Refusal::UnknownSender => "unknownSender",
            Refusal::OtherExtension => "otherExtension",
            Refusal::NotExtensionPage => "notExtensionPage",
            Refusal::NotWorker => "notWorker",
            Refusal::NotTopFrame => "notTopFrame",
            Refusal::NotTypstApp => "notTypstApp",
            Refusal::NeverSent => "neverSent",
        }
    }

    /// A sentence for the refusal's message.
    pub const fn explanation(self) -> &'static str {
        match self {
            Refusal::UnknownSender => "the browser did not name its sender",
            Refusal::OtherExtension => "it came from another extension",
            Refusal::NotExtensionPage => "it did not come from one of this extension's pages",
            Refusal::NotWorker => "it did not come from this extension's service worker",
            Refusal::NotTopFrame => "it did not come from the top frame of a tab",
            Refusal::NotTypstApp => "it did not come from a typst.app page",
            Refusal::NeverSent => "this message type is never sent here",
        }
    }
}

/// The rule for `ty` arriving at `receiver`. One exhaustive match per
/// receiver, so a new message type needs a rule before it compiles.
pub const fn rule_for(receiver: Receiver, ty: MessageType) -> SenderRule {
    match receiver {
        Receiver::Worker => worker_rule(ty),
        Receiver::Panel => panel_rule(ty),
    }
}

const fn worker_rule(ty: MessageType) -> SenderRule {
    use MessageType as T;
    match ty {
        T::LoadSettings
        | T::SaveSettings
        | T::LoadTheme
        | T::SaveTheme
        | T::SessionList
        | T::SessionCreate
        | T::SessionGet
        | T::SessionUpdate
        | T::SessionDelete
        | T::SessionListAllGrouped
        | T::SessionDeleteByProject
        | T::SessionImport
        | T::SessionExport
        | T::SessionStorageStatus
        | T::EditCheckpointRevert
        | T::DocumentSnapshotList
        | T::DocumentSnapshotPreview
        | T::DocumentSnapshotRestore
        | T::DocumentSnapshotDelete
        | T::OpenProjectTab
        | T::LoadCustomTools
        | T::SaveCustomTools
        | T::LoadMcpServers
        | T::SaveMcpServers
        | T::ProbeMcpServer
        | T::GetEditorContext
        | T::GetPreview
        | T::GetDiagnostics
        | T::GenerateSessionTitle
        | T::AiStreamStart
        | T::AiRunReserve
        | T::AiStreamCancel
        | T::AiRunStatus
        | T::AiToolPreflightResolve
        | T::AiToolApprovalResolve
        | T::QuickAttachDrain => SenderRule::ExtensionPage,
        T::QuickAttachSelection | T::QuickAttachImagePreview => SenderRule::TypstTopFrame,
        // The worker emits these itself (and never receives its own
        // broadcasts); answers travel through `sendResponse`, page requests
        // through `tabs.sendMessage`, page-bridge events through
        // `window.postMessage`.
        T::Response
        | T::AiStreamBatch
        | T::AiStreamDone
        | T::AiStreamCancelled
        | T::AiStreamError
        | T::AiToolCalls
        | T::AiToolResult
        | T::AiToolPreflightWaiting
        | T::AiToolPreflightReady
        | T::AiToolApprovalRequired
        | T::AiRunNotice
        | T::ActiveTabChanged
        | T::PageGetContext
        | T::PageGetPreview
        | T::PageGetDiagnostics
        | T::PageGetProbe
        | T::PageCancelRequest
        | T::PageShowEditPreview
        | T::PageClearEditPreview
        | T::PageApplyEdit
        | T::PageQuickSelection
        | T::PageQuickImagePreview
        | T::PageBridgeInit
        | T::PageBridgeReady => SenderRule::Nobody,
    }
}

const fn panel_rule(ty: MessageType) -> SenderRule {
    use MessageType as T;
    match ty {
        T::AiStreamBatch
        | T::AiStreamDone
        | T::AiStreamCancelled
        | T::AiStreamError
        | T::AiToolCalls
        | T::AiToolResult
        | T::AiToolPreflightWaiting
        | T::AiToolPreflightReady
        | T::AiToolApprovalRequired
        | T::AiRunNotice
        | T::ActiveTabChanged
        | T::QuickAttachSelection
        | T::QuickAttachImagePreview => SenderRule::Worker,
        // Requests other extension pages send to the worker reach every
        // extension page too; the panel never answers or acts on them.
        T::Response
        | T::LoadSettings
        | T::SaveSettings
        | T::LoadTheme
        | T::SaveTheme
        | T::SessionList
        | T::SessionCreate
        | T::SessionGet
        | T::SessionUpdate
        | T::SessionDelete
        | T::SessionListAllGrouped
        | T::SessionDeleteByProject
        | T::SessionImport
        | T::SessionExport
        | T::SessionStorageStatus
        | T::EditCheckpointRevert
        | T::DocumentSnapshotList
        | T::DocumentSnapshotPreview
        | T::DocumentSnapshotRestore
        | T::DocumentSnapshotDelete
        | T::OpenProjectTab
        | T::LoadCustomTools
        | T::SaveCustomTools
        | T::LoadMcpServers
        | T::SaveMcpServers
        | T::ProbeMcpServer
        | T::GetEditorContext
        | T::GetPreview
        | T::GetDiagnostics
        | T::GenerateSessionTitle
        | T::AiStreamStart
        | T::AiRunReserve
        | T::AiStreamCancel
        | T::AiRunStatus
        | T::AiToolPreflightResolve
        | T::AiToolApprovalResolve
        | T::QuickAttachDrain
        | T::PageGetContext
        | T::PageGetPreview
        | T::PageGetDiagnostics
        | T::PageGetProbe
        | T::PageCancelRequest
        | T::PageShowEditPreview
        | T::PageClearEditPreview
        | T::PageApplyEdit
        | T::PageQuickSelection
        | T::PageQuickImagePreview
        | T::PageBridgeInit
        | T::PageBridgeReady => SenderRule::Nobody,
    }
}

/// Whether `sender` may send `ty` to `receiver`; `runtime_id` is this
/// extension's id (`chrome.runtime.id`).
pub fn check(receiver: Receiver, ty: MessageType, sender: &Sender<'_>, runtime_id: &str) -> Result<(), Refusal> {
    decide(rule_for(receiver, ty), sender, runtime_id)
}

/// Whether `sender` satisfies `rule`.
pub fn decide(rule: SenderRule, sender: &Sender<'_>, runtime_id: &str) -> Result<(), Refusal> {
    if rule == SenderRule::Nobody {
        return Err(Refusal::NeverSent);
    }
    match sender.id {
        None | Some("") => return Err(Refusal::UnknownSender),
        Some(id) if id != runtime_id || runtime_id.is_empty() => return Err(Refusal::OtherExtension),
        Some(_) => {}
    }
    match rule {
        SenderRule::ExtensionPage => is_extension_document(sender, runtime_id)
            .then_some(())
            .ok_or(Refusal::NotExtensionPage),
        SenderRule::Worker => is_worker(sender, runtime_id).then_some(()).ok_or(Refusal::NotWorker),
        SenderRule::TypstTopFrame => typst_top_frame(sender),
        SenderRule::Nobody => Err(Refusal::NeverSent),
    }
}

/// `chrome-extension://<id>`.
fn extension_origin(runtime_id: &str) -> String {
    format!("{EXTENSION_SCHEME}{runtime_id}")
}

/// Whether `url` is a URL of this extension (`chrome-extension://<id>/…`).
fn is_extension_url(url: &str, runtime_id: &str) -> bool {
    url.strip_prefix(EXTENSION_SCHEME)
        .and_then(|rest| rest.strip_prefix(runtime_id))
        .is_some_and(|rest| rest.starts_with('/'))
}

/// A document or worker of this extension: whatever origin and URL the
/// browser names are the extension's own, and at least one is named. A
/// content script carries its web page's URL and origin, so it never passes,
/// tab or no tab; an extension page opened in a tab does.
fn is_extension_document(sender: &Sender<'_>, runtime_id: &str) -> bool {
    let origin_ok = sender
        .origin
        .is_none_or(|origin| origin == extension_origin(runtime_id));
    let url_ok = sender.url.is_none_or(|url| is_extension_url(url, runtime_id));
    (sender.origin.is_some() || sender.url.is_some()) && origin_ok && url_ok
}

/// The service worker: an extension context with no tab whose URL is the
/// worker script (its `sender.url` is always named).
fn is_worker(sender: &Sender<'_>, runtime_id: &str) -> bool {
    let script = format!("{}{WORKER_SCRIPT_PATH}", extension_origin(runtime_id));
    !sender.has_tab && sender.url == Some(script.as_str()) && is_extension_document(sender, runtime_id)
}

/// A content script in the top frame of a typst.app tab: a tab, frame `0`,
/// and the sending document, the tab (when visible) and the origin (when
/// named) all on typst.app.
fn typst_top_frame(sender: &Sender<'_>) -> Result<(), Refusal> {
    if !sender.has_tab || sender.frame_id != Some(0) {
        return Err(Refusal::NotTopFrame);
    }
    let url_ok = sender.url.is_some_and(is_typst_app_url);
    let tab_ok = sender.tab_url.is_none_or(is_typst_app_url);
    let origin_ok = sender
        .origin
        .is_none_or(|origin| TYPST_APP_PREFIX.strip_suffix('/') == Some(origin));
    if url_ok && tab_ok && origin_ok {
        Ok(())
    } else {
        Err(Refusal::NotTypstApp)
    }
}

#[cfg(test)]
mod tests;
