//! Coalescing of streamed text into `AI_STREAM_BATCH` events.
//!
//! A model may stream thousands of tiny deltas; sending one runtime message
//! each would flood every open panel. The batcher merges adjacent text of
//! the same channel and emits what is pending at most every 32 ms after the
//! first pending delta, never reordering anything: the panel rebuilds the
//! reasoning and answer segments from the exact sequence of items. A batch
//! holds at most the protocol's 256 items; a longer queue goes out as
//! consecutive batches. The batcher keeps no timer of its own: callers
//! pass the time and wait for [`StreamBatcher::deadline_ms`] (see
//! `provider::stream_round`), so it is tested without a clock.

use protocol::limits::MAX_STREAM_BATCH_ITEMS;

pub use protocol::payloads::{StreamChannel as Channel, StreamItem as BatchItem};

/// Delay between the first pending delta and its batch.
pub const FLUSH_DELAY_MS: u32 = 32;

/// Order-preserving coalescer; `emit` receives each batch's items.
pub struct StreamBatcher<F: FnMut(Vec<BatchItem>)> {
    emit: F,
    queue: Vec<BatchItem>,
    /// When the oldest pending delta arrived; `Some` exactly while the queue
    /// holds something.
    pending_since: Option<f64>,
    closed: bool,
}

impl<F: FnMut(Vec<BatchItem>)> StreamBatcher<F> {
    pub fn new(emit: F) -> Self {
        StreamBatcher {
            emit,
            queue: Vec::new(),
            pending_since: None,
            closed: false,
        }
    }

    /// Queues `text` (empty text and pushes after [`cancel`](Self::cancel)
    /// are ignored), merging it into the last item when the channel matches.
    pub fn push(&mut self, now_ms: f64, channel: Channel, text: &str) {
        if self.closed || text.is_empty() {
            return;
        }
        match self.queue.last_mut() {
            Some(last) if last.channel == channel => last.text.push_str(text),
            _ => self.queue.push(BatchItem {
                channel,
                text: text.to_owned(),
            }),
        }
        self.pending_since.get_or_insert(now_ms);
    }

    /// When the pending batch is due, if anything is pending.
    pub fn deadline_ms(&self) -> Option<f64> {
        self.pending_since.map(|since| since + f64::from(FLUSH_DELAY_MS))
    }

    /// Emits the pending batch if its deadline has passed.
    pub fn flush_if_due(&mut self, now_ms: f64) -> bool {
        match self.deadline_ms() {
            Some(deadline) if now_ms >= deadline => {
                self.flush();
                true
            }
            _ => false,
        }
    }

    /// Emits everything pending now (before tool events and terminal events,
    /// so the panel sees text and tools in the order they happened).
    pub fn flush(&mut self) {
        self.pending_since = None;
        if self.closed || self.queue.is_empty() {
            return;
        }
        let max = MAX_STREAM_BATCH_ITEMS as usize;
        let mut items = std::mem::take(&mut self.queue);
        while items.len() > max {
            let rest = items.split_off(max);
            (self.emit)(items);
            items = rest;
        }
        (self.emit)(items);
    }

    /// Drops what is pending and ignores every later push and flush.
    pub fn cancel(&mut self) {
        self.queue.clear();
        self.pending_since = None;
        self.closed = true;
    }

    /// Items waiting for the next batch.
    pub fn pending_items(&self) -> usize {
        self.queue.len()
    }

    pub fn is_cancelled(&self) -> bool {
        self.closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::RefCell;

    fn item(channel: Channel, text: &str) -> BatchItem {
        BatchItem {
            channel,
            text: text.to_owned(),
        }
    }

    #[test]
    fn merges_only_adjacent_channels_and_keeps_order() {
        let emitted = RefCell::new(Vec::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        batcher.push(0.0, Channel::Reasoning, "a");
        batcher.push(1.0, Channel::Reasoning, "b");
        batcher.push(2.0, Channel::Content, "c");
        batcher.push(3.0, Channel::Reasoning, "d");
        batcher.push(4.0, Channel::Content, "");
        batcher.flush();
        assert_eq!(
            *emitted.borrow(),
            vec![vec![
                item(Channel::Reasoning, "ab"),
                item(Channel::Content, "c"),
                item(Channel::Reasoning, "d"),
            ]]
        );
    }

    #[test]
    fn is_due_32_ms_after_the_first_pending_delta() {
        let emitted = RefCell::new(Vec::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        assert_eq!(batcher.deadline_ms(), None);
        batcher.push(100.0, Channel::Content, "x");
        batcher.push(120.0, Channel::Content, "y");
        assert_eq!(batcher.deadline_ms(), Some(132.0));
        assert!(!batcher.flush_if_due(131.0));
        assert!(batcher.flush_if_due(132.0));
        assert_eq!(*emitted.borrow(), vec![vec![item(Channel::Content, "xy")]]);
        assert_eq!(batcher.deadline_ms(), None);
        assert!(!batcher.flush_if_due(1_000.0), "nothing pending, nothing emitted");
        batcher.push(140.0, Channel::Content, "z");
        assert_eq!(batcher.deadline_ms(), Some(172.0));
    }

    #[test]
    fn thousands_of_deltas_make_one_batch() {
        let emitted = RefCell::new(Vec::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        for _ in 0..5_000 {
            batcher.push(0.0, Channel::Content, "x");
        }
        assert!(emitted.borrow().is_empty());
        batcher.flush();
        let emitted = emitted.borrow();
        assert_eq!(emitted.len(), 1);
        assert_eq!(emitted[0][0].text.len(), 5_000);
    }

    #[test]
    fn a_long_alternating_queue_is_split_into_protocol_sized_batches() {
        let emitted = RefCell::new(Vec::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        for index in 0..600 {
            let channel = if index % 2 == 0 {
                Channel::Content
            } else {
                Channel::Reasoning
            };
            batcher.push(0.0, channel, "t");
        }
        batcher.flush();
        let sizes: Vec<usize> = emitted.borrow().iter().map(Vec::len).collect();
        assert_eq!(sizes, [256, 256, 88]);
    }

    #[test]
    fn cancel_drops_pending_and_later_output() {
        let emitted = RefCell::new(Vec::<Vec<BatchItem>>::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        batcher.push(0.0, Channel::Content, "before");
        batcher.cancel();
        batcher.flush();
        batcher.push(1.0, Channel::Content, "after");
        batcher.flush();
        assert!(emitted.borrow().is_empty());
        assert!(batcher.is_cancelled());
        assert_eq!(batcher.pending_items(), 0);
    }

    #[derive(Debug, Clone)]
    enum Step {
        Push(bool, String, u8),
        Tick(u8),
        Flush,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (any::<bool>(), "[a-zé😀]{0,3}", 0u8..20).prop_map(|(c, t, dt)| Step::Push(c, t, dt)),
            2 => (0u8..40).prop_map(Step::Tick),
            1 => Just(Step::Flush),
        ]
    }

    proptest! {
        #[test]
        fn emitted_text_equals_pushed_text_in_order(steps in proptest::collection::vec(step(), 0..300)) {
            let emitted = RefCell::new(Vec::new());
            let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
            let mut now = 0.0;
            let mut pushed: Vec<(Channel, String)> = Vec::new();
            for step in &steps {
                match step {
                    Step::Push(reasoning, text, dt) => {
                        now += f64::from(*dt);
                        let channel = if *reasoning { Channel::Reasoning } else { Channel::Content };
                        batcher.push(now, channel, text);
                        pushed.push((channel, text.clone()));
                    }
                    Step::Tick(dt) => {
                        now += f64::from(*dt);
                        batcher.flush_if_due(now);
                    }
                    Step::Flush => batcher.flush(),
                }
            }
            batcher.flush();
            let batches = emitted.into_inner();
            let mut seen: Vec<(Channel, String)> = Vec::new();
            for batch in &batches {
                prop_assert!(!batch.is_empty() && batch.len() <= 256);
                for pair in batch.windows(2) {
                    prop_assert_ne!(pair[0].channel, pair[1].channel);
                }
                for item in batch {
                    prop_assert!(!item.text.is_empty());
                    seen.push((item.channel, item.text.clone()));
                }
            }
            // The same characters in the same order, channel by channel.
            let flatten = |list: &[(Channel, String)]| -> Vec<(Channel, char)> {
                list.iter().flat_map(|(c, t)| t.chars().map(move |ch| (*c, ch))).collect()
            };
            prop_assert_eq!(flatten(&seen), flatten(&pushed));
        }
    }
}
