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

    fn collapse(&self, generation: u64) {
        let Some(toast) = by_id("status") else {
            return;
        };
        set_class(&toast, "is-visible", false);
        set_class(&toast, "has-expiry", false);
        set_class(&toast, "is-leaving", true);
        let _ = toast.set_attribute("aria-hidden", "true");
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
