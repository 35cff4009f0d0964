//! Coordination of the panel's asynchronous transitions, without DOM or
//! Chrome: one send at a time, and epochs that let a slow tab sync or session
//! switch notice that a newer one started.
//!
//! A send moves `Preparing → Reserved → Starting`; cancelling it at any point
//! is sticky, so a Stop pressed while the run is being reserved still prevents
//! `AI_STREAM_START`. The identity a send captured (project, chat, history)
//! must still be current at each step or the send is abandoned.

use crate::history::History;

/// What a send was prepared for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SendIdentity {
    pub(crate) project_id: Option<String>,
    pub(crate) session_id: Option<String>,
    pub(crate) history: History,
}

/// A handle on one send; only the active send's token is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SendToken {
    serial: u64,
    identity: SendIdentity,
}

impl SendToken {
    pub(crate) fn identity(&self) -> &SendIdentity {
        &self.identity
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SendPhase {
    Preparing,
    Reserved,
    Starting,
    Cancelled,
}

#[derive(Debug)]
struct ActiveSend {
    serial: u64,
    phase: SendPhase,
    run_id: Option<String>,
}

/// The coordinator.
#[derive(Debug, Default)]
pub(crate) struct Transitions {
    active: Option<ActiveSend>,
    next_serial: u64,
    tab_epoch: u64,
    session_epoch: u64,
}

impl Transitions {
    /// Starts a send, or `None` while another one is in progress.
    pub(crate) fn begin_send(&mut self, identity: SendIdentity) -> Option<SendToken> {
        if self.active.is_some() {
            return None;
        }
        self.next_serial += 1;
        self.active = Some(ActiveSend {
            serial: self.next_serial,
            phase: SendPhase::Preparing,
            run_id: None,
        });
        Some(SendToken {
            serial: self.next_serial,
            identity,
        })
    }

    fn active_for(&self, token: &SendToken) -> Option<&ActiveSend> {
        self.active.as_ref().filter(|a| a.serial == token.serial)
    }

    fn active_for_mut(&mut self, token: &SendToken) -> Option<&mut ActiveSend> {
        self.active.as_mut().filter(|a| a.serial == token.serial)
    }

    /// The token's send is active, not cancelled, and `now` is still the
    /// identity it captured.
    pub(crate) fn is_send_current(&self, token: &SendToken, now: &SendIdentity) -> bool {
        self.active_for(token).is_some_and(|a| a.phase != SendPhase::Cancelled) && token.identity == *now
    }

    #[cfg(test)]
    pub(crate) fn phase(&self, token: &SendToken) -> Option<SendPhase> {
        self.active_for(token).map(|a| a.phase)
    }

    /// `Preparing → Reserved` once the worker reserved `run_id`.
    pub(crate) fn mark_reserved(&mut self, token: &SendToken, run_id: &str) -> bool {
        match self.active_for_mut(token) {
            Some(active) if active.phase == SendPhase::Preparing => {
                active.phase = SendPhase::Reserved;
                active.run_id = Some(run_id.to_owned());
                true
            }
            _ => false,
        }
    }

    /// `Reserved → Starting`, just before `AI_STREAM_START`.
    pub(crate) fn mark_starting(&mut self, token: &SendToken) -> bool {
        match self.active_for_mut(token) {
            Some(active) if active.phase == SendPhase::Reserved => {
                active.phase = SendPhase::Starting;
                true
            }
            _ => false,
        }
    }

    /// Whether the reserved run may still be started.
    pub(crate) fn can_dispatch(&self, token: &SendToken) -> bool {
        self.active_for(token).is_some_and(|a| a.phase == SendPhase::Reserved)
    }

    /// Stop pressed for `run_id`: cancels the send that reserved it.
    pub(crate) fn cancel_run(&mut self, run_id: &str) -> bool {
        match self.active.as_mut() {
            Some(active) if active.run_id.as_deref() == Some(run_id) => {
                active.phase = SendPhase::Cancelled;
                true
            }
            _ => false,
        }
    }

    pub(crate) fn cancel_send(&mut self, token: &SendToken) -> bool {
        match self.active_for_mut(token) {
            Some(active) => {
                active.phase = SendPhase::Cancelled;
                true
            }
            None => false,
        }
    }

    /// Ends the token's send (whatever its phase) so another may begin.
    pub(crate) fn end_send(&mut self, token: &SendToken) -> bool {
        if self.active_for(token).is_none() {
            return false;
        }
        self.active = None;
        true
    }

    pub(crate) fn has_active_send(&self) -> bool {
        self.active.is_some()
    }

    /// Starts a tab sync; earlier syncs become stale.
    pub(crate) fn next_tab_sync(&mut self) -> u64 {
        self.tab_epoch += 1;
        self.tab_epoch
    }

    pub(crate) fn is_tab_sync_current(&self, epoch: u64) -> bool {
        self.tab_epoch == epoch
    }

    /// Starts a session switch; earlier switches become stale.
    pub(crate) fn next_session_switch(&mut self) -> u64 {
        self.session_epoch += 1;
        self.session_epoch
    }

    pub(crate) fn is_session_switch_current(&self, epoch: u64) -> bool {
        self.session_epoch == epoch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(history: &History, session: &str) -> SendIdentity {
        SendIdentity {
            project_id: Some("p".to_owned()),
            session_id: Some(session.to_owned()),
            history: history.clone(),
        }
    }

    #[test]
    fn sends_are_single_flight_and_follow_their_phases() {
        let history = History::default();
        let mut t = Transitions::default();
        let send = t.begin_send(identity(&history, "s")).expect("first send");
        assert_eq!(t.begin_send(identity(&history, "s")), None);
        assert!(t.is_send_current(&send, &identity(&history, "s")));
        assert!(!t.is_send_current(&send, &identity(&history, "other")));
        assert!(!t.is_send_current(&send, &identity(&History::default(), "s")));
        assert!(!t.can_dispatch(&send));
        assert!(!t.mark_starting(&send), "starting needs a reservation");
        assert!(t.mark_reserved(&send, "run-a"));
        assert!(!t.mark_reserved(&send, "run-b"), "reserved once");
        assert!(t.can_dispatch(&send));
        assert!(!t.cancel_run("other"));
        assert!(t.cancel_run("run-a"));
        assert!(!t.can_dispatch(&send));
        assert_eq!(t.phase(&send), Some(SendPhase::Cancelled));
        let stranger = Transitions::default()
            .begin_send(identity(&history, "s"))
            .expect("token");
        assert!(!t.end_send(&SendToken { serial: 99, ..stranger }));
        assert!(t.end_send(&send));
        assert!(!t.has_active_send());
        assert!(t.begin_send(identity(&history, "s")).is_some());
    }

    #[test]
    fn cancellation_is_sticky_across_reservation_and_start() {
        let history = History::default();
        let mut t = Transitions::default();
        let token = t.begin_send(identity(&history, "s")).expect("send");
        assert!(t.cancel_send(&token));
        assert!(!t.mark_reserved(&token, "run-a"));
        assert!(!t.mark_starting(&token));
        assert!(!t.is_send_current(&token, token.identity()));

        let token = {
            t.end_send(&token);
            t.begin_send(identity(&history, "s")).expect("send")
        };
        assert!(t.mark_reserved(&token, "run-b"));
        assert!(t.mark_starting(&token));
        assert!(!t.can_dispatch(&token), "already starting");
        assert!(t.cancel_run("run-b"));
        assert!(!t.mark_starting(&token));
    }

    #[test]
    fn only_the_newest_epoch_is_current() {
        let mut t = Transitions::default();
        let old_tab = t.next_tab_sync();
        let tab = t.next_tab_sync();
        assert!(!t.is_tab_sync_current(old_tab));
        assert!(t.is_tab_sync_current(tab));
        let old_session = t.next_session_switch();
        let session = t.next_session_switch();
        assert!(!t.is_session_switch_current(old_session));
        assert!(t.is_session_switch_current(session));
        assert!(t.is_tab_sync_current(tab), "epochs are independent");
    }
}
