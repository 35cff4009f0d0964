//! A typst.app tab for whole-run tests: one document in one CodeMirror
//! view, the file its breadcrumb shows, the Files sidebar, the diagnostics
//! reads and the edit overlay.
//!
//! Every answer is computed the way the page script computes it (context
//! projections, numbered ranges, the editor-write guards: file, then editor
//! instance, then exact text), so `content-bridge` accepts it and the worker
//! meets the same refusals it meets on the real page. Tests steer the page
//! through its public fields, and [`FakeTypstPages`] records what the worker
//! sent.

use super::MemoryStorage;
use crate::platform::{Pages, PlatformError};
use content_bridge::context::line_prefix;
use protocol::edit_checkpoint::{TextChange, apply_text_changes};
use protocol::js;
use protocol::limits::MAX_PAGE_DOCUMENT_CHARS;
use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};
use std::collections::{HashSet, VecDeque};

/// What the user does to the page at a given moment (while a proposal is
/// under review, or as an apply arrives).
pub(crate) type PageHook = Box<dyn FnMut(&mut TypstPage)>;

/// A hook that sees each `PAGE_GET_CONTEXT` payload before it is answered.
pub(crate) type ContextHook = Box<dyn FnMut(&mut TypstPage, &Value)>;

/// The file label the worker sends when the page named no file.
const DEFAULT_FILE_LABEL: &str = "Current Typst document";

/// The state of the tab; every field is the test's to change.
pub(crate) struct TypstPage {
    pub(crate) doc: String,
    /// The file the breadcrumb shows (`None`: it shows none).
    pub(crate) file: Option<String>,
    /// Files the breadcrumb shows for the next context reads, before `file`
    /// (the user switching files for a moment).
    pub(crate) files: VecDeque<String>,
    /// The CodeMirror instance; a new view of the same file gets a new one.
    pub(crate) token: String,
    /// Whether an editor is open at all.
    pub(crate) editor: bool,
    /// Probes until the editor opens (`editor` turns true after this many
    /// probes were answered); 0: it stays as `editor` says.
    pub(crate) editor_after_probes: usize,
    pub(crate) files_open: bool,
    pub(crate) tree: Value,
    /// Each diagnostics read takes the next list; the last one repeats.
    pub(crate) diagnostics: VecDeque<Vec<Value>>,
    /// Request types that never get an answer.
    pub(crate) stall: HashSet<&'static str>,
    /// The overlay on screen: `(runId, callId)`.
    pub(crate) overlay: Option<(String, String)>,
    /// Runs before every context read is answered, with its payload.
    pub(crate) before_context: Option<ContextHook>,
    /// Runs once when a preview request arrives, before the guard.
    pub(crate) before_show: Option<PageHook>,
    /// Runs once when a proposal has been drawn.
    pub(crate) on_show: Option<PageHook>,
    /// Runs once when an apply arrives, before the guard.
    pub(crate) on_apply: Option<PageHook>,
    /// Runs once after an apply landed, before the page answers that it did
    /// (a page script that rewrites the text, or reports a change it undid).
    pub(crate) after_apply: Option<PageHook>,
    /// The page cannot draw overlays (a drawing failure on the page).
    pub(crate) cannot_draw: bool,
    /// The next `PAGE_APPLY_EDIT` is refused with this code, before anything
    /// else is looked at.
    pub(crate) refuse_next_apply: Option<&'static str>,
    /// The page holds a new document object of the same text (typed and
    /// undone, the file reopened): no document token handed out so far
    /// names it any more.
    pub(crate) document_object_replaced: bool,
    /// The file shown for the context read being answered.
    shown: Option<String>,
    /// The `documentToken` of each `edit` read and the text it stood for,
    /// oldest first (the page's tokens of CodeMirror document objects).
    document_tokens: Vec<(String, String)>,
    /// How many `edit` reads were answered without their text, because they
    /// named the document object the editor held.
    pub(crate) text_left_out: usize,
}

impl Default for TypstPage {
    fn default() -> Self {
        TypstPage {
            doc: "= Thesis\n#set page(paper: \"a4\")\nWe cite @knuth here.\n\n== Method".into(),
            file: Some("main.typ".into()),
            files: VecDeque::new(),
            token: "editor-1".into(),
            editor: true,
            editor_after_probes: 0,
            files_open: true,
            tree: json!({"source": "files_panel_dom", "truncated": false, "entries": [
                {"path": "chapters", "kind": "folder", "state": "expanded"},
                {"path": "chapters/methods-zeta.typ", "kind": "file"},
                {"path": "drafts", "kind": "folder", "state": "collapsed"},
                {"path": "main.typ", "kind": "file"}
            ]}),
            diagnostics: VecDeque::from([vec![diagnostic("error", "unknown variable: knuth", 3)]]),
            stall: HashSet::new(),
            overlay: None,
            before_context: None,
            before_show: None,
            on_show: None,
            on_apply: None,
            after_apply: None,
            cannot_draw: false,
            refuse_next_apply: None,
            document_object_replaced: false,
            shown: None,
            document_tokens: Vec::new(),
            text_left_out: 0,
        }
    }
}

/// One diagnostics row as the page reads it.
pub(crate) fn diagnostic(severity: &str, message: &str, line: u64) -> Value {
    json!({"severity": severity, "message": message, "line": line, "column": 1,
           "kind": "typst", "original": null, "suggestion": null})
}

/// The breadcrumb's file record for `path`.
pub(crate) fn file_value(path: &str) -> Value {
    json!({"projectLabel": "Thesis", "relativePath": path,
           "basename": path.rsplit('/').next().unwrap_or(path),
           "source": "header_breadcrumb", "confidence": "high"})
}

fn edit_result(result: Value) -> Value {
    json!({ "result": result })
}

impl TypstPage {
    /// The file the breadcrumb shows right now.
    fn current_file(&self) -> Option<&str> {
        self.files.front().or(self.file.as_ref()).map(String::as_str)
    }

    fn workspace(&self, with_tree: bool) -> Value {
        let mut workspace = json!({ "files_panel_open": self.files_open });
        if let Some(file) = &self.shown {
            workspace["active_editor_file"] = file_value(file);
        }
        if with_tree && self.files_open {
            workspace["project_file_tree"] = self.tree.clone();
        }
        workspace
    }

    fn state(&self) -> Map<String, Value> {
        let lines = self.doc.split('\n').count();
        let state = json!({
            "cursorPos": 0, "cursorLine": 1, "cursorColumn": 1, "selectedText": "",
            "selectionTruncated": false, "selectionFrom": 0, "selectionTo": 0,
            "docLength": js::utf16_len(&self.doc), "lineCount": lines, "editorToken": self.token,
            "workspace": self.workspace(false),
        });
        state.as_object().cloned().unwrap_or_default()
    }

    /// The token of the document object the editor holds: the same one as
    /// long as the text stays as it was read, a new one after any change.
    fn document_token(&mut self) -> String {
        if !self.document_object_replaced
            && let Some((token, text)) = self.document_tokens.last()
            && *text == self.doc
        {
            return token.clone();
        }
        self.document_object_replaced = false;
        let token = format!("document-{}", self.document_tokens.len() + 1);
        self.document_tokens.push((token.clone(), self.doc.clone()));
        token
    }

    /// Whether `token` names the document object the editor holds.
    fn holds_document(&self, token: &Value) -> bool {
        !self.document_object_replaced
            && self
                .document_tokens
                .last()
                .is_some_and(|(last, text)| token == last.as_str() && *text == self.doc)
    }

    /// `PAGE_GET_CONTEXT` computed as the page script computes it.
    fn context(&mut self, payload: &Value) -> Value {
        let projection = payload["projection"].as_str().unwrap_or("full");
        if projection == "identity" {
            return json!({ "workspace": self.workspace(true) });
        }
        if !self.editor {
            return json!({ "error": "EditorView not found", "workspace": self.workspace(false) });
        }
        let length = js::utf16_len(&self.doc);
        if projection == "edit" && length > MAX_PAGE_DOCUMENT_CHARS as usize {
            // The main world refuses to send a document over its edit limit.
            return json!({
                "error": format!("The document exceeds the {MAX_PAGE_DOCUMENT_CHARS}-character safe edit limit."),
                "docLength": length, "lineCount": self.doc.split('\n').count(),
                "workspace": self.workspace(false),
            });
        }
        let mut answer = self.state();
        if projection != "numbered" {
            answer.insert("truncated".into(), json!(false));
            // An edit read that names the document object the editor still
            // holds is answered without its text.
            if projection == "edit" && self.holds_document(&payload["knownDocumentToken"]) {
                self.text_left_out += 1;
            } else {
                answer.insert("fullText".into(), json!(self.doc));
            }
            if projection == "edit" {
                answer.insert("documentToken".into(), json!(self.document_token()));
            }
            return Value::Object(answer);
        }
        answer.extend(self.numbered(payload));
        Value::Object(answer)
    }

    /// The numbered range of a `numbered` read, within its character budget.
    fn numbered(&self, payload: &Value) -> Map<String, Value> {
        let lines: Vec<&str> = self.doc.split('\n').collect();
        let count = lines.len() as u64;
        let start = payload["startLine"].as_u64().unwrap_or(1).clamp(1, count);
        let end = payload["endLine"].as_u64().unwrap_or(count).clamp(start, count);
        let budget = payload["maxChars"].as_u64().unwrap_or(28_000).clamp(1, 64_000) as usize;
        let mut text = String::new();
        let mut last = start;
        let mut truncated = false;
        for number in start..=end {
            let line = format!("{}{}", line_prefix(number, count), lines[(number - 1) as usize]);
            let separator = usize::from(number > start);
            if js::utf16_len(&text) + separator + js::utf16_len(&line) > budget {
                if number == start {
                    text = js::truncate_utf16(&line, budget).to_owned();
                }
                truncated = true;
                break;
            }
            if separator == 1 {
                text.push('\n');
            }
            text.push_str(&line);
            last = number;
        }
        let mut range = Map::new();
        range.insert("numberedDocument".into(), json!(text));
        range.insert("startLine".into(), json!(start));
        range.insert("endLine".into(), json!(last));
        range.insert("truncated".into(), json!(truncated));
        if truncated && last < end {
            range.insert("nextStartLine".into(), json!(last + 1));
        }
        range
    }

    /// The main world's guard: file, then editor, then exact text (or, for
    /// a preview that names its document by token, that very document).
    fn guard(&self, payload: &Value) -> Result<Vec<TextChange>, Value> {
        let stale = |reason: &str| {
            edit_result(json!({"ok": false, "code": "STALE_EDIT_PREVIEW", "staleReason": reason,
                               "error": format!("The editor changed ({reason}) after this edit was prepared.")}))
        };
        let label = payload["expectedFileLabel"].as_str().unwrap_or_default();
        if label == DEFAULT_FILE_LABEL || self.current_file().is_none() {
            return Err(edit_result(json!({"ok": false, "code": "EDIT_FILE_UNKNOWN",
                                          "error": "The focused file is unknown."})));
        }
        if Some(label) != self.current_file() {
            return Err(stale("file"));
        }
        if payload["expectedEditorToken"] != self.token.as_str() {
            return Err(stale("editor"));
        }
        let same_document = match payload.get("expectedText") {
            Some(text) => text == self.doc.as_str(),
            None => {
                self.holds_document(&payload["expectedDocumentToken"])
                    && payload["expectedTextLength"] == js::utf16_len(&self.doc)
            }
        };
        if !same_document {
            return Err(stale("document"));
        }
        serde_json::from_value(payload["changes"].clone())
            .map_err(|_| edit_result(json!({"ok": false, "code": "INVALID_PREPARED_EDIT", "error": "bad changes"})))
    }

    /// Whether another run's or call's overlay is on screen.
    fn busy_for(&self, run_id: &str, call_id: &str) -> bool {
        self.overlay
            .as_ref()
            .is_some_and(|(run, call)| run != run_id || call != call_id)
    }

    fn show(&mut self, run_id: &str, payload: &Value) -> Value {
        if let Some(mut hook) = self.before_show.take() {
            hook(self);
        }
        let changes = match self.guard(payload) {
            Ok(changes) => changes,
            Err(refusal) => return refusal,
        };
        let call_id = payload["callId"].as_str().unwrap_or_default().to_owned();
        if self.busy_for(run_id, &call_id) {
            return edit_result(json!({"ok": false, "code": "EDIT_PREVIEW_BUSY", "error": "Another preview is open."}));
        }
        if self.cannot_draw {
            return edit_result(json!({"ok": true, "shown": false,
                                      "warning": "Inline editor preview is unavailable: no scroller."}));
        }
        self.overlay = Some((run_id.to_owned(), call_id));
        let rows: Vec<&Value> = payload["preview"]["hunks"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|hunk| hunk["rows"].as_array().into_iter().flatten())
            .collect();
        let inserted = rows.iter().filter(|row| row["kind"] == "insert").count();
        let deleted = rows.iter().filter(|row| row["kind"] == "delete").count();
        if let Some(mut hook) = self.on_show.take() {
            hook(self);
        }
        edit_result(json!({"ok": true, "shown": true, "presentation": "editor-diff-surface",
                           "changes_previewed": changes.len(), "additions_rendered": inserted,
                           "deletions_rendered": deleted, "truncated": false}))
    }

    fn apply(&mut self, run_id: &str, payload: &Value) -> Value {
        if let Some(code) = self.refuse_next_apply.take() {
            let mut refusal = json!({"ok": false, "code": code, "error": format!("refused: {code}")});
            if code == "STALE_EDIT_PREVIEW" {
                refusal["staleReason"] = json!("document");
            }
            return edit_result(refusal);
        }
        if let Some(mut hook) = self.on_apply.take() {
            hook(self);
        }
        let changes = match self.guard(payload) {
            Ok(changes) => changes,
            Err(refusal) => return refusal,
        };
        if self.busy_for(run_id, payload["callId"].as_str().unwrap_or_default()) {
            return edit_result(json!({"ok": false, "code": "EDIT_PREVIEW_BUSY", "error": "Another preview is open."}));
        }
        let Ok(next) = apply_text_changes(&self.doc, &changes) else {
            return edit_result(json!({"ok": false, "code": "INVALID_PREPARED_EDIT", "error": "bad ranges"}));
        };
        self.doc = next;
        self.overlay = None;
        if let Some(mut hook) = self.after_apply.take() {
            hook(self);
        }
        edit_result(json!({"ok": true, "edits_applied": changes.len(), "reviewed_diff": payload["reviewedDiff"]}))
    }

    fn clear(&mut self, run_id: &str, payload: &Value) -> Value {
        let ours = self
            .overlay
            .as_ref()
            .is_some_and(|(run, call)| run == run_id && payload["callId"] == call.as_str());
        if ours {
            self.overlay = None;
        }
        edit_result(json!({"ok": true, "cleared": ours}))
    }

    fn diagnostics_read(&mut self) -> Value {
        let items = if self.diagnostics.len() > 1 {
            self.diagnostics.pop_front().unwrap_or_default()
        } else {
            self.diagnostics.front().cloned().unwrap_or_default()
        };
        json!({"diagnostics": items, "totalCount": items.len(), "truncated": false})
    }

    /// The page's `data` for one request; `None` when it never answers.
    fn answer(&mut self, message: &Value) -> Option<Value> {
        let kind = message["type"].as_str().unwrap_or_default();
        if self.stall.contains(kind) {
            return None;
        }
        let payload = &message["payload"];
        let run_id = message["runId"].as_str().unwrap_or_default().to_owned();
        Some(match kind {
            "PAGE_GET_PROBE" => {
                let probe = json!({"editor": self.editor, "selection": false, "typstCanvas": true,
                                   "previewImage": false, "improvePanel": true});
                if self.editor_after_probes > 0 {
                    self.editor_after_probes -= 1;
                    self.editor = self.editor_after_probes == 0;
                }
                probe
            }
            "PAGE_GET_CONTEXT" => {
                if let Some(mut hook) = self.before_context.take() {
                    hook(self, payload);
                    self.before_context.get_or_insert(hook);
                }
                self.shown = self.files.pop_front().or_else(|| self.file.clone());
                self.context(payload)
            }
            "PAGE_GET_DIAGNOSTICS" => self.diagnostics_read(),
            "PAGE_SHOW_EDIT_PREVIEW" => self.show(&run_id, payload),
            "PAGE_APPLY_EDIT" => self.apply(&run_id, payload),
            "PAGE_CLEAR_EDIT_PREVIEW" => self.clear(&run_id, payload),
            "PAGE_CANCEL_REQUEST" => json!({"cancelled": true}),
            _ => json!({}),
        })
    }
}

/// The tab as the worker reaches it: the page, what was sent to it, and a
/// way to make the worker's storage fail at the moment an edit lands.
#[derive(Default)]
pub(crate) struct FakeTypstPages {
    pub(crate) page: RefCell<TypstPage>,
    /// `(tabId, message)` of every request, in order.
    pub(crate) sent: RefCell<Vec<(i64, Value)>>,
    /// The worker's storage (a clone shares it), which the page can fail.
    pub(crate) worker_storage: RefCell<Option<MemoryStorage>>,
    /// Storage writes fail from the first successful apply on.
    pub(crate) fail_storage_after_apply: Cell<bool>,
}

impl FakeTypstPages {
    /// The messages of one type the worker sent, in order.
    pub(crate) fn sent_of(&self, kind: &str) -> Vec<Value> {
        self.sent
            .borrow()
            .iter()
            .filter(|(_, message)| message["type"] == kind)
            .map(|(_, message)| message.clone())
            .collect()
    }
}

impl Pages for FakeTypstPages {
    async fn send(&self, tab_id: i64, message: Value, _max_bytes: usize) -> Result<Option<String>, PlatformError> {
        self.sent.borrow_mut().push((tab_id, message.clone()));
        let answer = self.page.borrow_mut().answer(&message);
        let Some(data) = answer else {
            return std::future::pending().await;
        };
        if message["type"] == "PAGE_APPLY_EDIT"
            && data["result"]["ok"] == true
            && self.fail_storage_after_apply.get()
            && let Some(storage) = self.worker_storage.borrow().as_ref()
        {
            storage.fail_writes("QUOTA_BYTES quota exceeded");
        }
        Ok(Some(
            json!({
                "type": "PROTOCOL_RESPONSE", "requestId": message["requestId"],
                "payload": {"ok": true, "data": data}
            })
            .to_string(),
        ))
    }
}
