//! Who may run in which chat: reservations, admission and pre-start
//! cancellation tombstones.
//!
//! The panel reserves a run id for a (tab, project, chat) before it saves the
//! user's message and starts the run, so two panels (or a double click) can
//! never run twice in the same chat while unrelated chats run side by side.
//! Everything here is bounded and expires, because a panel may close between
//! reserving and starting, and a Stop may arrive before the start it cancels:
//! that Stop leaves a tombstone so the late start is refused instead of
//! running unseen. Time is passed in, so expiry is deterministic in tests.

use protocol::ErrorCode;
use std::collections::HashMap;

/// How long a reservation waits for its start.
const RESERVATION_TTL_MS: f64 = 30_000.0;
/// How long a pre-start cancellation is remembered.
const TOMBSTONE_TTL_MS: f64 = 30_000.0;
/// Most reservations waiting at once.
const MAX_RESERVATIONS: usize = 256;
/// Most tombstones remembered at once (oldest dropped first).
const MAX_TOMBSTONES: usize = 512;

/// The identity a run is reserved and admitted under; a start must match its
/// reservation exactly.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct RunIdentity {
    pub(crate) run_id: String,
    pub(crate) tab_id: u64,
    pub(crate) project_id: String,
    pub(crate) session_id: String,
}

impl RunIdentity {
    fn chat(&self) -> (String, String) {
        (self.project_id.clone(), self.session_id.clone())
    }
}

/// Why a reservation or admission was refused, with the original's codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AdmissionError {
    pub(crate) code: ErrorCode,
    pub(crate) message: &'static str,
}

impl AdmissionError {
    const fn new(code: ErrorCode, message: &'static str) -> Self {
        AdmissionError { code, message }
    }

    /// True when the run was cancelled before it could start.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.code == ErrorCode::Cancelled
    }
}

/// What a cancellation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CancelOutcome {
    /// A reservation or an active run had this id.
    pub(crate) found: bool,
    pub(crate) active: bool,
    pub(crate) reserved: bool,
}

#[derive(Debug, Clone)]
struct Reservation {
    identity: RunIdentity,
    expires_at: f64,
}

/// The reservation, admission and tombstone state machine.
#[derive(Debug, Default)]
pub(crate) struct RunCoordinator {
    reservations: HashMap<String, Reservation>,
    active: HashMap<String, RunIdentity>,
    chat_owners: HashMap<(String, String), String>,
    /// Run id and expiry, oldest first.
    tombstones: Vec<(String, f64)>,
}

impl RunCoordinator {
    fn release_reservation(&mut self, run_id: &str) -> Option<Reservation> {
        let reservation = self.reservations.remove(run_id)?;
        let chat = reservation.identity.chat();
        if self.chat_owners.get(&chat).is_some_and(|owner| owner == run_id) {
            self.chat_owners.remove(&chat);
        }
        Some(reservation)
    }

    fn prune(&mut self, now: f64) {
        let expired: Vec<String> = self
            .reservations
            .iter()
            .filter(|(_, r)| r.expires_at <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for run_id in expired {
            self.release_reservation(&run_id);
        }
        self.tombstones.retain(|(_, expires_at)| *expires_at > now);
    }

    fn has_tombstone(&self, run_id: &str) -> bool {
        self.tombstones.iter().any(|(id, _)| id == run_id)
    }

    fn retain_tombstone(&mut self, run_id: &str, now: f64) {
        self.tombstones.retain(|(id, _)| id != run_id);
        self.tombstones.push((run_id.to_owned(), now + TOMBSTONE_TTL_MS));
        let excess = self.tombstones.len().saturating_sub(MAX_TOMBSTONES);
        self.tombstones.drain(..excess);
    }

    /// Reserves `identity`; repeating the same reservation is harmless and
    /// returns its expiry.
    pub(crate) fn reserve(&mut self, identity: &RunIdentity, now: f64) -> Result<f64, AdmissionError> {
        self.prune(now);
        if self.has_tombstone(&identity.run_id) {
            return Err(AdmissionError::new(
                ErrorCode::Cancelled,
                "The run was cancelled before it could be reserved.",
            ));
        }
        if let Some(existing) = self.reservations.get(&identity.run_id) {
            return if existing.identity == *identity {
                Ok(existing.expires_at)
            } else {
                Err(AdmissionError::new(
                    ErrorCode::DuplicateRunId,
                    "This run id is already reserved for another tab or chat.",
                ))
            };
        }
        if self.active.contains_key(&identity.run_id) {
            return Err(AdmissionError::new(
                ErrorCode::DuplicateRunId,
                "This run id is already running.",
            ));
        }
        if self
            .chat_owners
            .get(&identity.chat())
            .is_some_and(|owner| *owner != identity.run_id)
        {
            return Err(AdmissionError::new(
                ErrorCode::SessionRunActive,
                "Another run is already working in this chat.",
            ));
        }
        if self.reservations.len() >= MAX_RESERVATIONS {
            return Err(AdmissionError::new(
                ErrorCode::RunReservationLimit,
                "Too many runs are waiting to start.",
            ));
        }
        let expires_at = now + RESERVATION_TTL_MS;
        self.reservations.insert(
            identity.run_id.clone(),
            Reservation {
                identity: identity.clone(),
                expires_at,
            },
        );
        self.chat_owners.insert(identity.chat(), identity.run_id.clone());
        Ok(expires_at)
    }

    /// Turns the exact reservation of `identity` into an active run. A
    /// tombstone is consumed here and reported as `CANCELLED`.
    pub(crate) fn admit(&mut self, identity: &RunIdentity, now: f64) -> Result<(), AdmissionError> {
        self.prune(now);
        if self.has_tombstone(&identity.run_id) {
            self.tombstones.retain(|(id, _)| *id != identity.run_id);
            self.release_reservation(&identity.run_id);
            return Err(AdmissionError::new(
                ErrorCode::Cancelled,
                "The run was cancelled before it started.",
            ));
        }
        if self.active.contains_key(&identity.run_id) {
            return Err(AdmissionError::new(
                ErrorCode::DuplicateRunId,
                "This run id is already running.",
            ));
        }
        let Some(reservation) = self.reservations.get(&identity.run_id) else {
            return Err(AdmissionError::new(
                ErrorCode::RunNotReserved,
                "A run must be reserved before it starts.",
            ));
        };
        if reservation.identity != *identity {
            return Err(AdmissionError::new(
                ErrorCode::RunReservationMismatch,
                "The run start does not match its reservation.",
            ));
        }
        self.reservations.remove(&identity.run_id);
        self.active.insert(identity.run_id.clone(), identity.clone());
        Ok(())
    }

    /// Cancels `run_id`: an active run is only reported (the engine stops
    /// it); anything else releases its reservation and leaves a tombstone, so
    /// a start that arrives later is refused.
    pub(crate) fn cancel(&mut self, run_id: &str, now: f64) -> CancelOutcome {
        self.prune(now);
        let active = self.active.contains_key(run_id);
        let reserved = if active {
            false
        } else {
            let released = self.release_reservation(run_id).is_some();
            self.retain_tombstone(run_id, now);
            released
        };
        CancelOutcome {
            found: active || reserved,
            active,
            reserved,
        }
    }

    /// Releases the chat of a finished run; false if it was not active.
    pub(crate) fn complete(&mut self, run_id: &str, now: f64) -> bool {
        self.prune(now);
        self.release_reservation(run_id);
        let Some(identity) = self.active.remove(run_id) else {
            return false;
        };
        let chat = identity.chat();
        if self.chat_owners.get(&chat).is_some_and(|owner| owner == run_id) {
            self.chat_owners.remove(&chat);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(run_id: &str, session_id: &str, project_id: &str) -> RunIdentity {
        RunIdentity {
            run_id: run_id.to_owned(),
            tab_id: 7,
            project_id: project_id.to_owned(),
            session_id: session_id.to_owned(),
        }
    }

    fn run(run_id: &str) -> RunIdentity {
        identity(run_id, "session-a", "project-a")
    }

    fn code<T>(result: Result<T, AdmissionError>) -> Option<&'static str> {
        result.err().map(|e| e.code.as_str())
    }

    #[test]
    fn one_owner_per_chat_while_other_chats_run() {
        let mut c = RunCoordinator::default();
        assert!(c.reserve(&run("run-a"), 0.0).is_ok());
        assert_eq!(code(c.reserve(&run("run-b"), 0.0)), Some("SESSION_RUN_ACTIVE"));
        assert!(c.reserve(&identity("run-c", "session-b", "project-a"), 0.0).is_ok());
        assert!(c.reserve(&identity("run-d", "session-a", "project-b"), 0.0).is_ok());
        assert!(c.admit(&run("run-a"), 0.0).is_ok());
        assert_eq!(code(c.reserve(&run("run-e"), 0.0)), Some("SESSION_RUN_ACTIVE"));
        assert!(c.complete("run-a", 0.0));
        assert!(c.reserve(&run("run-e"), 0.0).is_ok());
        assert!(!c.complete("run-a", 0.0), "a run completes once");
    }

    #[test]
    fn reserving_again_is_idempotent_but_a_different_identity_is_refused() {
        let mut c = RunCoordinator::default();
        assert_eq!(c.reserve(&run("run-a"), 100.0), Ok(100.0 + RESERVATION_TTL_MS));
        assert_eq!(c.reserve(&run("run-a"), 200.0), Ok(100.0 + RESERVATION_TTL_MS));
        let moved = RunIdentity {
            tab_id: 8,
            ..run("run-a")
        };
        assert_eq!(code(c.reserve(&moved, 200.0)), Some("DUPLICATE_RUN_ID"));
        assert!(c.admit(&run("run-a"), 300.0).is_ok());
        assert_eq!(code(c.reserve(&run("run-a"), 300.0)), Some("DUPLICATE_RUN_ID"));
        assert_eq!(code(c.admit(&run("run-a"), 300.0)), Some("DUPLICATE_RUN_ID"));
    }

    /// A run in a chat of its own, so only the limits can refuse it.
    fn alone(run_id: &str) -> RunIdentity {
        identity(run_id, run_id, "project-a")
    }

    #[test]
    fn reservations_expire_and_are_bounded() {
        let mut c = RunCoordinator::default();
        for index in 0..MAX_RESERVATIONS {
            assert!(c.reserve(&alone(&format!("run-{index}")), 100.0).is_ok(), "{index}");
        }
        assert_eq!(
            code(c.reserve(&alone("one-too-many"), 100.0)),
            Some("RUN_RESERVATION_LIMIT")
        );
        // Still waiting just before the expiry, gone at it.
        let expiry = 100.0 + RESERVATION_TTL_MS;
        assert_eq!(
            code(c.reserve(&alone("one-too-many"), expiry - 1.0)),
            Some("RUN_RESERVATION_LIMIT")
        );
        assert!(c.reserve(&alone("one-too-many"), expiry).is_ok());
        assert_eq!(code(c.admit(&alone("run-0"), expiry)), Some("RUN_NOT_RESERVED"));
    }

    #[test]
    fn tombstones_expire_and_the_oldest_go_first() {
        let mut c = RunCoordinator::default();
        for index in 0..=MAX_TOMBSTONES {
            assert!(!c.cancel(&format!("stopped-{index}"), 0.0).found);
        }
        // The first one was dropped for the bound; the second is remembered.
        assert!(c.reserve(&alone("stopped-0"), 1.0).is_ok());
        assert_eq!(code(c.reserve(&alone("stopped-1"), 1.0)), Some("CANCELLED"));
        assert_eq!(
            code(c.reserve(&alone("stopped-2"), TOMBSTONE_TTL_MS - 1.0)),
            Some("CANCELLED")
        );
        assert!(c.reserve(&alone("stopped-2"), TOMBSTONE_TTL_MS).is_ok());
    }

    #[test]
    fn starts_need_their_exact_reservation_and_early_cancellation_sticks() {
        let mut c = RunCoordinator::default();
        assert_eq!(code(c.admit(&run("missing"), 0.0)), Some("RUN_NOT_RESERVED"));
        assert!(c.reserve(&run("run-a"), 0.0).is_ok());
        let other_tab = RunIdentity {
            tab_id: 8,
            ..run("run-a")
        };
        assert_eq!(code(c.admit(&other_tab, 0.0)), Some("RUN_RESERVATION_MISMATCH"));
        let outcome = c.cancel("run-a", 0.0);
        assert_eq!(
            outcome,
            CancelOutcome {
                found: true,
                active: false,
                reserved: true
            }
        );
        assert_eq!(code(c.reserve(&run("run-a"), 1.0)), Some("CANCELLED"));
        let refused = c.admit(&run("run-a"), 1.0);
        assert!(refused.as_ref().is_err_and(AdmissionError::is_cancelled));
        assert_eq!(
            code(c.admit(&run("run-a"), 1.0)),
            Some("RUN_NOT_RESERVED"),
            "admission consumes the tombstone"
        );
        assert!(
            c.reserve(&run("run-b"), 1.0).is_ok(),
            "the cancelled run freed its chat"
        );
    }

    #[test]
    fn cancelling_an_active_run_leaves_no_tombstone() {
        let mut c = RunCoordinator::default();
        assert!(c.reserve(&run("run-a"), 0.0).is_ok());
        assert!(c.admit(&run("run-a"), 0.0).is_ok());
        let outcome = c.cancel("run-a", 0.0);
        assert!(outcome.found && outcome.active && !outcome.reserved);
        assert_eq!(
            code(c.reserve(&run("run-b"), 0.0)),
            Some("SESSION_RUN_ACTIVE"),
            "still running"
        );
        assert!(c.complete("run-a", 0.0));
        assert!(!c.complete("run-a", 0.0), "no longer active");
        // No tombstone: the same id may be reserved again.
        assert!(c.reserve(&run("run-a"), 0.0).is_ok());
    }
}
