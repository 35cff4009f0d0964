//! Virtual time: `sleep` advances the clock and returns at once, so polling
//! loops and timeouts of minutes run instantly and deterministically. A test
//! can hold every sleep from some length on, so a banner or a grace timer
//! really waits until the test answers it.

use crate::platform::Clock;
use std::cell::{Cell, RefCell};

pub(crate) struct FakeClock {
    now: Cell<f64>,
    next_id: Cell<u64>,
    slept: Cell<u64>,
    sleeps: RefCell<Vec<u32>>,
    hold_from: Cell<Option<u32>>,
}

impl Default for FakeClock {
    fn default() -> Self {
        FakeClock {
            now: Cell::new(1_700_000_000_000.0),
            next_id: Cell::new(0),
            slept: Cell::new(0),
            sleeps: RefCell::new(Vec::new()),
            hold_from: Cell::new(None),
        }
    }
}

impl FakeClock {
    pub(crate) fn advance(&self, ms: f64) {
        self.now.set(self.now.get() + ms);
    }
    /// Total milliseconds of the sleeps that ended.
    pub(crate) fn slept_ms(&self) -> u64 {
        self.slept.get()
    }
    /// Every sleep asked for, in order (held ones included).
    pub(crate) fn sleeps(&self) -> Vec<u32> {
        self.sleeps.borrow().clone()
    }
    /// From now on, sleeps of at least `ms` never end by themselves (`None`:
    /// every sleep ends at once again).
    pub(crate) fn hold_sleeps_from(&self, ms: Option<u32>) {
        self.hold_from.set(ms);
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }
    async fn sleep(&self, ms: u32) {
        self.sleeps.borrow_mut().push(ms);
        if self.hold_from.get().is_some_and(|hold| ms >= hold) {
            std::future::pending::<()>().await;
        }
        self.advance(f64::from(ms));
        self.slept.set(self.slept.get() + u64::from(ms));
    }
    fn uuid(&self) -> String {
        self.next_id.set(self.next_id.get() + 1);
        format!("00000000-0000-4000-8000-{:012x}", self.next_id.get())
    }
}

impl<T: Clock> Clock for &T {
    fn now_ms(&self) -> f64 {
        (**self).now_ms()
    }
    async fn sleep(&self, ms: u32) {
        (**self).sleep(ms).await
    }
    fn uuid(&self) -> String {
        (**self).uuid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::block_on;

    #[test]
    fn sleeping_advances_virtual_time_and_ids_are_unique() {
        let clock = FakeClock::default();
        let start = clock.now_ms();
        block_on(clock.sleep(1_500));
        assert_eq!(clock.now_ms() - start, 1_500.0);
        assert_eq!(clock.slept_ms(), 1_500);
        assert_ne!(clock.uuid(), clock.uuid());
    }

    #[test]
    fn held_sleeps_wait_until_released() {
        use futures::FutureExt;
        let clock = FakeClock::default();
        clock.hold_sleeps_from(Some(1_000));
        assert_eq!(clock.sleep(999).now_or_never(), Some(()));
        assert_eq!(clock.sleep(1_000).now_or_never(), None);
        clock.hold_sleeps_from(None);
        assert_eq!(clock.sleep(1_000).now_or_never(), Some(()));
        assert_eq!(clock.sleeps(), [999, 1_000, 1_000]);
        assert_eq!(clock.slept_ms(), 1_999);
    }
}
