//! Virtual time: `sleep` advances the clock and returns at once, so polling
//! loops and timeouts of minutes run instantly and deterministically.

use crate::platform::Clock;
use std::cell::Cell;

pub struct FakeClock {
    now: Cell<f64>,
    next_id: Cell<u64>,
    slept: Cell<u64>,
}

impl Default for FakeClock {
    fn default() -> Self {
        FakeClock {
            now: Cell::new(1_700_000_000_000.0),
            next_id: Cell::new(0),
            slept: Cell::new(0),
        }
    }
}

impl FakeClock {
    pub fn advance(&self, ms: f64) {
        self.now.set(self.now.get() + ms);
    }
    /// Total milliseconds spent in `sleep`.
    pub fn slept_ms(&self) -> u64 {
        self.slept.get()
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }
    async fn sleep(&self, ms: u32) {
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
}
