//! DOM of the status toast, driven by [`crate::toast::Toast`]: the model
//! decides what shows and which timers are stale; this applies it.

use crate::dom::{self, by_id};
use crate::toast::{COLLAPSE_DURATION_MS, COPY_FEEDBACK_MS, Toast, ToastChange};
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The toast and its state, shared with its own timers.
#[derive(Clone, Default)]
pub(crate) struct ToastView {
    model: Rc<RefCell<Toast>>,
    /// Where focus was before it entered the toast (it goes back there
    /// when the toast goes).
    focus_before: Rc<RefCell<Option<web_sys::Element>>>,
}

fn set_class(element: &web_sys::Element, class: &str, on: bool) {
    let _ = element.class_list().toggle_with_force(class, on);
}

impl ToastView {
    pub(crate) fn set(&self, text: &str, is_error: bool, duration_ms: Option<u32>) {
        let change = self.model.borrow_mut().set(text, is_error, duration_ms);
        self.apply(change);
    }

    pub(crate) fn dismiss(&self) {
        let change = self.model.borrow_mut().dismiss();
        self.apply(change);
    }

    fn apply(&self, change: ToastChange) {
        let (Some(toast), Some(message)) = (by_id("status"), by_id("status-message")) else {
            return;
        };
        self.reset_copy_feedback();
        match change {
            ToastChange::Show {
                generation,
                text,
                is_error,
                expires_after_ms,
            } => {
                message.set_text_content(Some(&text));
                set_class(&toast, "error", is_error);
                set_class(&toast, "is-error", is_error);
                let _ = toast.set_attribute("role", if is_error { "alert" } else { "status" });
                let _ = toast.set_attribute("aria-hidden", "false");
                let _ = toast.remove_attribute("inert");
                set_class(&toast, "is-leaving", false);
                set_class(&toast, "is-visible", false);
                dom::set_hidden(&toast, false);
                // Reading layout restarts the entrance and countdown animations.
                if let Some(html) = toast.dyn_ref::<web_sys::HtmlElement>() {
                    let _ = html.offset_width();
                    let duration = expires_after_ms.map_or_else(|| "0ms".to_owned(), |ms| format!("{ms}ms"));
                    let _ = html.style().set_property("--status-duration", &duration);
                }
                set_class(&toast, "is-visible", true);
                set_class(&toast, "has-expiry", expires_after_ms.is_some());
                if let Some(ms) = expires_after_ms {
                    let view = self.clone();
                    Timeout::new(ms, move || view.expire(generation)).forget();
                }
            }
            ToastChange::Hide { generation } => {
                message.set_text_content(Some(""));
                self.collapse(generation);
            }
        }
    }

    fn expire(&self, generation: u64) {
        if self.model.borrow().is_current(generation) {
            self.collapse(generation);
        }
    }

    /// Remembers where focus came from whenever it enters the toast.
    pub(crate) fn track_focus(&self) {
        let Some(region) = by_id("status-region") else {
            return;
        };
        let inside = region.clone();
        let focus_before = self.focus_before.clone();
        dom::on(&region, "focusin", move |event| {
            let from = event
                .dyn_ref::<web_sys::FocusEvent>()
                .and_then(web_sys::FocusEvent::related_target)
                .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                .filter(|from| !inside.contains(Some(from.as_ref())));
            if from.is_some() {
                *focus_before.borrow_mut() = from;
            }
        });
    }

    /// Focus in a toast that goes returns to where it came from (else to
    /// the message input, else the Settings button).
    fn release_focus(&self, toast: &web_sys::Element) {
        if !dom::has_focus_within(toast) {
            return;
        }
        let before = self.focus_before.borrow_mut().take();
        let usable = |element: &web_sys::Element| {
            element.is_connected()
                && !dom::is_disabled(element)
                && element
                    .dyn_ref::<web_sys::HtmlElement>()
                    .is_some_and(|html| html.offset_parent().is_some())
        };
        let target = before
            .filter(usable)
            .or_else(|| by_id("user-input").filter(usable))
            .or_else(|| by_id("settings-toggle"));
        if let Some(target) = target {
            dom::focus(&target);
        }
    }

    fn collapse(&self, generation: u64) {
        let Some(toast) = by_id("status") else {
            return;
        };
        self.release_focus(&toast);
        set_class(&toast, "is-visible", false);
        set_class(&toast, "has-expiry", false);
        set_class(&toast, "is-leaving", true);
        // Hidden from assistive technology while it fades out, so its
        // buttons must not take focus either.
        let _ = toast.set_attribute("aria-hidden", "true");
        let _ = toast.set_attribute("inert", "");
        let view = self.clone();
        Timeout::new(COLLAPSE_DURATION_MS, move || {
            if view.model.borrow().is_current(generation)
                && let Some(toast) = by_id("status")
            {
                set_class(&toast, "is-leaving", false);
                dom::set_hidden(&toast, true);
            }
        })
        .forget();
    }

    fn reset_copy_feedback(&self) {
        if let Some(button) = by_id("status-copy") {
            set_class(&button, "is-copied", false);
            set_class(&button, "is-copy-error", false);
            let _ = button.set_attribute("title", "Copy message");
            let _ = button.set_attribute("aria-label", "Copy the notification text");
        }
    }

    /// Copies the current message and shows the outcome on the button.
    pub(crate) async fn copy(&self) {
        let text = self.model.borrow().text().to_owned();
        if text.is_empty() {
            return;
        }
        let copied = match web_sys::window().map(|w| w.navigator().clipboard()) {
            Some(clipboard) => JsFuture::from(clipboard.write_text(&text)).await.is_ok(),
            None => false,
        };
        let generation = self.model.borrow_mut().begin_copy_feedback();
        if let Some(button) = by_id("status-copy") {
            set_class(&button, if copied { "is-copied" } else { "is-copy-error" }, true);
            let label = if copied { "Copied" } else { "Could not copy" };
            let _ = button.set_attribute("title", label);
            let _ = button.set_attribute("aria-label", label);
        }
        let view = self.clone();
        Timeout::new(COPY_FEEDBACK_MS, move || {
            if view.model.borrow().is_copy_feedback_current(generation) {
                view.reset_copy_feedback();
            }
        })
        .forget();
    }
}
