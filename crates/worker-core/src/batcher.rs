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

use protocol::payloads::{StreamChannel, StreamItem};

/// Delay between the first pending delta and its batch.
pub(crate) const FLUSH_DELAY_MS: u32 = 32;

/// Order-preserving coalescer; `emit` receives each batch's items.
pub(crate) struct StreamBatcher<F: FnMut(Vec<StreamItem>)> {
    emit: F,
    queue: Vec<StreamItem>,
    /// When the oldest pending delta arrived; `Some` exactly while the queue
    /// holds something.
    pending_since: Option<f64>,
}

impl<F: FnMut(Vec<StreamItem>)> StreamBatcher<F> {
    pub(crate) fn new(emit: F) -> Self {
        StreamBatcher {
            emit,
            queue: Vec::new(),
            pending_since: None,
        }
    }

    /// Queues `text` (empty text is ignored), merging it into the last item
    /// when the channel matches.
    pub(crate) fn push(&mut self, now_ms: f64, channel: StreamChannel, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.queue.last_mut() {
            Some(last) if last.channel == channel => last.text.push_str(text),
            _ => self.queue.push(StreamItem {
                channel,
                text: text.to_owned(),
            }),
        }
        self.pending_since.get_or_insert(now_ms);
    }

    /// When the pending batch is due, if anything is pending.
    pub(crate) fn deadline_ms(&self) -> Option<f64> {
        self.pending_since.map(|since| since + f64::from(FLUSH_DELAY_MS))
    }

    /// Emits the pending batch if its deadline has passed.
    pub(crate) fn flush_if_due(&mut self, now_ms: f64) -> bool {
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
    pub(crate) fn flush(&mut self) {
        self.pending_since = None;
        if self.queue.is_empty() {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::RefCell;

    fn item(channel: StreamChannel, text: &str) -> StreamItem {
        StreamItem {
            channel,
            text: text.to_owned(),
        }
    }

    #[test]
    fn merges_only_adjacent_channels_and_keeps_order() {
        let emitted = RefCell::new(Vec::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        batcher.push(0.0, StreamChannel::Reasoning, "a");
        batcher.push(1.0, StreamChannel::Reasoning, "b");
        batcher.push(2.0, StreamChannel::Content, "c");
        batcher.push(3.0, StreamChannel::Reasoning, "d");
        batcher.push(4.0, StreamChannel::Content, "");
        batcher.flush();
        assert_eq!(
            *emitted.borrow(),
            vec![vec![
                item(StreamChannel::Reasoning, "ab"),
                item(StreamChannel::Content, "c"),
                item(StreamChannel::Reasoning, "d"),
            ]]
        );
    }

    #[test]
    fn is_due_32_ms_after_the_first_pending_delta() {
        let emitted = RefCell::new(Vec::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        assert_eq!(batcher.deadline_ms(), None);
        batcher.push(100.0, StreamChannel::Content, "x");
        batcher.push(120.0, StreamChannel::Content, "y");
        assert_eq!(batcher.deadline_ms(), Some(132.0));
        assert!(!batcher.flush_if_due(131.0));
        assert!(batcher.flush_if_due(132.0));
        assert_eq!(*emitted.borrow(), vec![vec![item(StreamChannel::Content, "xy")]]);
        assert_eq!(batcher.deadline_ms(), None);
        assert!(!batcher.flush_if_due(1_000.0), "nothing pending, nothing emitted");
        batcher.push(140.0, StreamChannel::Content, "z");
        assert_eq!(batcher.deadline_ms(), Some(172.0));
    }

    #[test]
    fn thousands_of_deltas_make_one_batch() {
        let emitted = RefCell::new(Vec::new());
        let mut batcher = StreamBatcher::new(|items| emitted.borrow_mut().push(items));
        for _ in 0..5_000 {
            batcher.push(0.0, StreamChannel::Content, "x");
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
                StreamChannel::Content
            } else {
                StreamChannel::Reasoning
            };
            batcher.push(0.0, channel, "t");
        }
        batcher.flush();
        let sizes: Vec<usize> = emitted.borrow().iter().map(Vec::len).collect();
        assert_eq!(sizes, [256, 256, 88]);
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
            let mut pushed: Vec<(StreamChannel, String)> = Vec::new();
            for step in &steps {
                match step {
                    Step::Push(reasoning, text, dt) => {
                        now += f64::from(*dt);
                        let channel = if *reasoning { StreamChannel::Reasoning } else { StreamChannel::Content };
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
            let mut seen: Vec<(StreamChannel, String)> = Vec::new();
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
            let flatten = |list: &[(StreamChannel, String)]| -> Vec<(StreamChannel, char)> {
                list.iter().flat_map(|(c, t)| t.chars().map(move |ch| (*c, ch))).collect()
            };
            prop_assert_eq!(flatten(&seen), flatten(&pushed));
        }
    }
}
