//! The event queue: events ordered by (time, sequence number).
//!
//! Events at equal times pop in the order they were pushed (FIFO), which makes runs
//! deterministic. Events are small `Copy` values; nothing is boxed.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The frame at the head of a port's link reaches the node at the far end.
    LinkArrival {
        /// The egress port whose link delivers.
        port: u32,
    },
    /// A port has finished serializing and may start its next frame.
    PortFree {
        /// The port.
        port: u32,
    },
    /// A flow's rate limiter allows its next frame.
    FlowWake {
        /// The flow.
        flow: u32,
        /// Stale wake-ups (an older generation) are ignored.
        generation: u32,
    },
    /// A reaction point's timer fires.
    RpTimer {
        /// The flow whose reaction point asked.
        flow: u32,
        /// Stale timers (an older generation) are ignored.
        generation: u32,
    },
    /// A timeline entry (or a flow's own start or stop) applies.
    Timeline {
        /// Index into the run's sorted timeline.
        entry: u32,
    },
    /// Monitors take their periodic sample.
    Sample,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the smallest key must compare greatest.
        other.key.cmp(&self.key)
    }
}

/// A priority queue of events keyed by (time, insertion order).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0 }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: Time, event: Event) {
        let key = ((time.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// The time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time((e.key >> 64) as u64))
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| (Time((e.key >> 64) as u64), e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.push(Time(30), Event::Sample);
        q.push(Time(10), Event::PortFree { port: 1 });
        q.push(Time(20), Event::PortFree { port: 2 });
        let times: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(times, vec![10, 20, 30]);
    }

    #[test]
    fn equal_times_pop_fifo() {
        let mut q = EventQueue::new();
        for port in 0..100 {
            q.push(Time(5), Event::PortFree { port });
        }
        for port in 0..100 {
            assert_eq!(q.pop(), Some((Time(5), Event::PortFree { port })));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn events_stay_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
