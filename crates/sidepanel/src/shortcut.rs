//! Which key chord in the composer sends the message.
//!
//! Exactly one Enter chord sends (the one chosen in Settings → General); the
//! other Enter chords keep the textarea's newline behaviour, so a user who
//! picked Ctrl + Enter can still type multi-line prompts with plain Enter.
//! IME composition, Alt and Meta never send: those chords belong to input
//! methods and the operating system.

use protocol::constants::SendMessageShortcut;

/// The parts of a `keydown` event that decide whether it sends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KeyChord {
    pub(crate) key: String,
    pub(crate) shift: bool,
    pub(crate) ctrl: bool,
    pub(crate) alt: bool,
    pub(crate) meta: bool,
    pub(crate) is_composing: bool,
}

/// Whether `chord` is the configured send chord.
pub(crate) fn should_send(chord: &KeyChord, shortcut: SendMessageShortcut) -> bool {
    if chord.key != "Enter" || chord.is_composing || chord.alt || chord.meta {
        return false;
    }
    match shortcut {
        SendMessageShortcut::Enter => !chord.shift && !chord.ctrl,
        SendMessageShortcut::ShiftEnter => chord.shift && !chord.ctrl,
        SendMessageShortcut::CtrlEnter => chord.ctrl && !chord.shift,
    }
}

/// The label shown in the composer hint, the send button's title and the
/// settings select.
pub(crate) const fn label(shortcut: SendMessageShortcut) -> &'static str {
    match shortcut {
        SendMessageShortcut::Enter => "Enter",
        SendMessageShortcut::ShiftEnter => "Shift + Enter",
        SendMessageShortcut::CtrlEnter => "Ctrl + Enter",
    }
}

/// The send button's accessible name for a shortcut.
pub(crate) fn send_button_label(shortcut: SendMessageShortcut) -> String {
    format!("Send message ({})", label(shortcut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn enter(shift: bool, ctrl: bool) -> KeyChord {
        KeyChord {
            key: "Enter".to_owned(),
            shift,
            ctrl,
            ..KeyChord::default()
        }
    }

    #[test]
    fn only_the_configured_enter_chord_sends() {
        let chords = [enter(false, false), enter(true, false), enter(false, true)];
        let matrix: Vec<Vec<bool>> = SendMessageShortcut::ALL
            .iter()
            .map(|shortcut| chords.iter().map(|chord| should_send(chord, *shortcut)).collect())
            .collect();
        assert_eq!(
            matrix,
            vec![
                vec![true, false, false],
                vec![false, true, false],
                vec![false, false, true]
            ]
        );
    }

    #[test]
    fn unknown_settings_fall_back_to_plain_enter() {
        let shortcut = SendMessageShortcut::normalize(Some(&json!("unknown")));
        assert!(should_send(&enter(false, false), shortcut));
        assert!(!should_send(&enter(true, false), shortcut));
    }

    #[test]
    fn composition_alt_meta_and_double_modifiers_never_send() {
        for shortcut in SendMessageShortcut::ALL {
            assert!(!should_send(&enter(true, true), shortcut), "{shortcut:?}");
            for modify in [
                |c: &mut KeyChord| c.is_composing = true,
                |c: &mut KeyChord| c.alt = true,
                |c: &mut KeyChord| c.meta = true,
                |c: &mut KeyChord| c.key = "a".to_owned(),
            ] {
                let mut chord = match shortcut {
                    SendMessageShortcut::Enter => enter(false, false),
                    SendMessageShortcut::ShiftEnter => enter(true, false),
                    SendMessageShortcut::CtrlEnter => enter(false, true),
                };
                assert!(should_send(&chord, shortcut));
                modify(&mut chord);
                assert!(!should_send(&chord, shortcut), "{shortcut:?} {chord:?}");
            }
        }
    }

    #[test]
    fn labels_match_the_settings_options() {
        let labels: Vec<&str> = SendMessageShortcut::ALL.iter().map(|s| label(*s)).collect();
        assert_eq!(labels, ["Enter", "Shift + Enter", "Ctrl + Enter"]);
        assert_eq!(
            send_button_label(SendMessageShortcut::CtrlEnter),
            "Send message (Ctrl + Enter)"
        );
    }
}
