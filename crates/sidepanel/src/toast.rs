//! The status toast under the header: one message at a time.
//!
//! Every new message (or a dismissal) takes a new generation number; a timer
//! scheduled for an older generation finds its number stale and does nothing.
//! That is what keeps an expiring info toast from erasing the error that
//! replaced it. Info messages stay 4 s, errors 7 s, an explicit 0 stays until
//! dismissed or replaced. The DOM glue only asks this model what to do.

/// How long an info message stays by default.
pub(crate) const INFO_DURATION_MS: u32 = 4_000;
/// How long an error stays by default.
pub(crate) const ERROR_DURATION_MS: u32 = 7_000;
/// Length of the leaving animation before the toast is hidden.
pub(crate) const COLLAPSE_DURATION_MS: u32 = 180;
/// How long "Copied" / "Could not copy" feedback shows on the copy button.
pub(crate) const COPY_FEEDBACK_MS: u32 = 1_200;

/// What the toast should look like after a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToastChange {
    /// Show `text`; `expires_after_ms` is `None` for a sticky message.
    Show {
        generation: u64,
        text: String,
        is_error: bool,
        expires_after_ms: Option<u32>,
    },
    /// Collapse the toast (animated, then hidden if still this generation).
    Hide { generation: u64 },
}

/// The toast's state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Toast {
    generation: u64,
    text: String,
    is_error: bool,
    copy_generation: u64,
}

impl Toast {
    /// Replaces the message. `duration_ms: None` uses the default for the
    /// severity; `Some(0)` is sticky. Empty text hides the toast.
    pub(crate) fn set(&mut self, text: &str, is_error: bool, duration_ms: Option<u32>) -> ToastChange {
        self.generation += 1;
        self.copy_generation += 1;
        self.text = text.to_owned();
        self.is_error = is_error;
        if text.is_empty() {
            return ToastChange::Hide {
                generation: self.generation,
            };
        }
        let duration = duration_ms.unwrap_or(if is_error { ERROR_DURATION_MS } else { INFO_DURATION_MS });
        ToastChange::Show {
            generation: self.generation,
            text: self.text.clone(),
            is_error,
            expires_after_ms: (duration > 0).then_some(duration),
        }
    }

    /// The user closed the toast.
    pub(crate) fn dismiss(&mut self) -> ToastChange {
        self.set("", self.is_error, None)
    }

    /// Whether a timer scheduled for `generation` may still act.
    pub(crate) fn is_current(&self, generation: u64) -> bool {
        self.generation == generation
    }

    /// The message the Copy button copies (empty when nothing shows).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    #[cfg(test)]
    pub(crate) fn is_error(&self) -> bool {
        self.is_error
    }

    /// Starts copy feedback; the returned number identifies its reset timer.
    pub(crate) fn begin_copy_feedback(&mut self) -> u64 {
        self.copy_generation += 1;
        self.copy_generation
    }

    /// Whether the copy-feedback reset timer `generation` is still current.
    pub(crate) fn is_copy_feedback_current(&self, generation: u64) -> bool {
        self.copy_generation == generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_decides_the_default_lifetime_and_zero_is_sticky() {
        let mut toast = Toast::default();
        let info = toast.set("Saved", false, None);
        assert!(matches!(
            info,
            ToastChange::Show {
                expires_after_ms: Some(4_000),
                is_error: false,
                ..
            }
        ));
        let error = toast.set("Broken", true, None);
        assert!(matches!(
            error,
            ToastChange::Show {
                expires_after_ms: Some(7_000),
                is_error: true,
                ..
            }
        ));
        let custom = toast.set("Quick", false, Some(1_500));
        assert!(matches!(
            custom,
            ToastChange::Show {
                expires_after_ms: Some(1_500),
                ..
            }
        ));
        let sticky = toast.set("Stays", true, Some(0));
        assert!(matches!(
            sticky,
            ToastChange::Show {
                expires_after_ms: None,
                ..
            }
        ));
    }

    #[test]
    fn a_newer_message_makes_older_timers_stale() {
        let mut toast = Toast::default();
        let ToastChange::Show { generation: older, .. } = toast.set("older", false, Some(1_000)) else {
            panic!("shown");
        };
        let ToastChange::Show { generation: newer, .. } = toast.set("newer failure", true, None) else {
            panic!("shown");
        };
        assert!(!toast.is_current(older));
        assert!(toast.is_current(newer));
        assert_eq!(toast.text(), "newer failure");
        assert!(toast.is_error());
    }

    #[test]
    fn empty_text_and_dismiss_hide_and_clear_the_copy_text() {
        let mut toast = Toast::default();
        toast.set("hello", false, None);
        assert!(matches!(toast.set("", false, None), ToastChange::Hide { .. }));
        toast.set("again", true, None);
        let hide = toast.dismiss();
        assert!(matches!(hide, ToastChange::Hide { generation } if toast.is_current(generation)));
        assert_eq!(toast.text(), "");
    }

    #[test]
    fn copy_feedback_resets_only_for_the_latest_copy() {
        let mut toast = Toast::default();
        toast.set("copy me", false, None);
        let first = toast.begin_copy_feedback();
        let second = toast.begin_copy_feedback();
        assert!(!toast.is_copy_feedback_current(first));
        assert!(toast.is_copy_feedback_current(second));
        toast.set("next", false, None);
        assert!(!toast.is_copy_feedback_current(second));
    }
}
