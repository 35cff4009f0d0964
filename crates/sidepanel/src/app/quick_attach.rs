//! Quick attach: the page's "Add to agent" buttons arrive as the worker's
//! events (broadcast to an open panel, or drained by a panel the click
//! opened); each is taken once, for this panel's tab and window only, and
//! becomes a chip read from the originating tab through the Context menu's
//! readers (`GET_EDITOR_CONTEXT` for the selection, `GET_PREVIEW` without
//! preferences for the image).

use super::controller::Controller;
use super::shell::Shell;
use crate::attachments::CaptureMode;
use crate::quick_attach::{QuickAttachEvent, QuickAttachKind, drained_events};
use protocol::MessageType;
use serde_json::json;
use std::rc::Rc;

impl<S: Shell + 'static> Controller<S> {
    /// A quick-attach event from the worker's broadcast. A started panel of
    /// the event's window also drains the window's queue: the worker keeps
    /// the event there for 30 seconds, and a panel reopened meanwhile would
    /// take it a second time (the original's panel left it queued).
    pub(super) fn on_quick_attach(self: &Rc<Self>, event: QuickAttachEvent) {
        let (ready, ours) = {
            let state = self.state.borrow();
            (
                state.quick_attach.is_ready(),
                state.window_id == Some(event.origin.window_id),
            )
        };
        if self.state.borrow_mut().quick_attach.accept(event) {
            self.deliver_quick_attachments();
        }
        if ready && ours {
            let this = Rc::clone(self);
            self.spawn(async move { this.drain_window().await });
        }
    }

    /// Called once the panel knows its tab and window: takes what the
    /// worker queued for this window, then delivers everything that waited.
    pub(super) async fn drain_quick_attachments(self: &Rc<Self>) {
        self.state.borrow_mut().quick_attach.set_ready();
        self.drain_window().await;
    }

    /// Takes the window's queued events (each taken once) and delivers them.
    pub(super) async fn drain_window(self: &Rc<Self>) {
        let window_id = self.state.borrow().window_id;
        if let Some(window_id) = window_id {
            match self
                .request(MessageType::QuickAttachDrain, json!({ "windowId": window_id }))
                .await
            {
                Ok(answer) => {
                    for event in drained_events(&answer) {
                        self.state.borrow_mut().quick_attach.accept(event);
                    }
                }
                Err(error) => self.status(
                    &format!("Quick attachments could not be collected: {}", error.message),
                    true,
                ),
            }
        }
        self.deliver_quick_attachments();
    }

    /// Delivers waiting events one after another in the background (one
    /// delivery run at a time, like the original's promise chain).
    fn deliver_quick_attachments(self: &Rc<Self>) {
        if !self.state.borrow_mut().quick_attach.begin_delivery() {
            return;
        }
        let this = Rc::clone(self);
        self.spawn(async move {
            loop {
                let next = this.state.borrow_mut().quick_attach.next();
                let Some(event) = next else { break };
                this.deliver_quick_attach(&event).await;
            }
        });
    }

    async fn deliver_quick_attach(&self, event: &QuickAttachEvent) {
        let for_us = {
            let state = self.state.borrow();
            state.on_typst && event.is_for(state.tab_id, state.window_id)
        };
        if !for_us {
            return;
        }
        let tab_id = Some(event.origin.tab_id);
        let result = match event.kind {
            QuickAttachKind::Selection => self.attach_selection(tab_id).await,
            QuickAttachKind::Image => {
                self.shell.status("Capturing preview image…", false, None);
                self.attach_preview(tab_id, CaptureMode::Auto).await
            }
        };
        if let Err(message) = result {
            let failure = match event.kind {
                QuickAttachKind::Selection => "Quick attach failed",
                QuickAttachKind::Image => "Image attach failed",
            };
            self.status(&format!("{failure}: {message}"), true);
        }
    }
}
