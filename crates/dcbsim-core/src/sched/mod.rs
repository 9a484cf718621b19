//! The event queue: events ordered by (time, key).
//!
//! Events due at the same picosecond pop in the order of their key: kind first
//! (timeline changes, then samples, then the network's events), then their port, flow
//! or source id and generation, scrambled by a salt drawn from the time (see
//! [`Event::key`]). The order thus depends only on which events are due, not on when
//! or by whom they were pushed, so a run split over threads, each with a queue of its
//! own and frames handed over between them, can pop every part's events in the very
//! order one queue pops them all. (Two equal events due together are
//! interchangeable.)
//!
//! The salt keeps ties fair. Insertion order, which this order replaced, and the
//! plain id order favour one phase-locked flow at every tie: five senders into one
//! port, the fifth got 0.1 MB of 312 MB under both, 156 MB against the others' 273
//! salted; three synchronized DCTCP flows shared with Jain's index 0.81 under id
//! order. Ties cost a sort where they come (docs/speed.md).
//!
//! Events are small `Copy` values packed into one word, kept as their key; nothing is
//! boxed. [`EventQueue`] (in `wheel.rs`) keeps near events on a timing wheel and far
//! ones in a heap (`heap.rs`).

mod fine;
mod heap;
mod network;
mod wheel;

pub use wheel::EventQueue;

#[cfg(test)]
use crate::units::Time;

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
    /// A congestion notification has been generated and may leave its switch.
    NotificationReady {
        /// Its slot among the notifications being generated.
        slot: u32,
    },
    /// A traffic source acts: an arrival source's next flow arrives, an ON-OFF
    /// source's OFF period ends, a transfer arrives at a Poisson-fed flow, or the
    /// incast client requests its next block. (One kind for all of them: a ninth
    /// event kind measurably slowed the event loop.)
    Source {
        /// The source: arrival sources first, then the dynamic sources, then the
        /// incast application.
        source: u32,
        /// Stale events (an older generation, from before the flow stopped) are
        /// ignored; always zero for arrival sources.
        generation: u32,
    },
    /// A transport connection's timer (retransmission or delayed ACK) may be due.
    /// (One kind for both: the event loop slows with each kind added.)
    ConnTimer {
        /// The connection.
        conn: u32,
        /// Stale events (an older generation) are ignored.
        generation: u32,
    },
    /// A PFC pause timer of a port may have run out.
    PauseEnd {
        /// The paused port.
        port: u32,
        /// Stale events (an older generation) are ignored.
        generation: u32,
    },
}

impl Event {
    // The kinds' order is the order of events due together: a change applies, and a
    // sample is taken, before the frames of the same instant move.
    const TIMELINE: u64 = 0;
    const SAMPLE: u64 = 1;
    const LINK_ARRIVAL: u64 = 2;
    const PORT_FREE: u64 = 3;
    const FLOW_WAKE: u64 = 4;
    const RP_TIMER: u64 = 5;
    const NOTIFICATION_READY: u64 = 6;
    const SOURCE: u64 = 7;
    const CONN_TIMER: u64 = 8;
    const PAUSE_END: u64 = 9;

    /// Packs the event into one word, which orders events due together: kind (4
    /// bits), id (28 bits), generation (32 bits).
    #[inline(always)]
    fn pack(self) -> u64 {
        let (kind, id, generation) = match self {
            Event::LinkArrival { port } => (Self::LINK_ARRIVAL, port, 0),
            Event::PortFree { port } => (Self::PORT_FREE, port, 0),
            Event::FlowWake { flow, generation } => (Self::FLOW_WAKE, flow, generation),
            Event::RpTimer { flow, generation } => (Self::RP_TIMER, flow, generation),
            Event::Timeline { entry } => (Self::TIMELINE, entry, 0),
            Event::Sample => (Self::SAMPLE, 0, 0),
            Event::NotificationReady { slot } => (Self::NOTIFICATION_READY, slot, 0),
            Event::Source { source, generation } => (Self::SOURCE, source, generation),
            Event::ConnTimer { conn, generation } => (Self::CONN_TIMER, conn, generation),
            Event::PauseEnd { port, generation } => (Self::PAUSE_END, port, generation),
        };
        debug_assert!(id < 1 << 28);
        (kind << 60) | ((id as u64) << 32) | generation as u64
    }

    /// The event's key among the events due at `time`: its packed form with all but
    /// the kind scrambled by a salt drawn from the time. Events of one kind due
    /// together thus pop in an order that depends on the instant, never always the
    /// lowest port or flow first (which, where flows are phase-locked, favoured one
    /// of them at every tie: two NewReno flows into one port timed out twice where
    /// they had once). A multiplication of the time, not a full hash: its bits from
    /// 32 up, those an id lies in, depend on every low bit of the time.
    #[inline(always)]
    fn key(self, time: u64) -> u64 {
        self.pack() ^ Self::salt(time)
    }

    /// The event whose key at `time` is `key` (the inverse of [`Event::key`]).
    #[inline(always)]
    pub(crate) fn from_key(key: u64, time: u64) -> Event {
        Event::unpack(key ^ Self::salt(time))
    }

    /// The salt of events due at `time`, the kind's bits clear.
    #[inline(always)]
    fn salt(time: u64) -> u64 {
        time.wrapping_mul(0x9E37_79B9_7F4A_7C15) & ((1 << 60) - 1)
    }

    #[inline(always)]
    pub(crate) fn unpack(word: u64) -> Event {
        let id = ((word >> 32) & ((1 << 28) - 1)) as u32;
        let generation = word as u32;
        match word >> 60 {
            Self::SAMPLE => Event::Sample,
            Self::LINK_ARRIVAL => Event::LinkArrival { port: id },
            Self::PORT_FREE => Event::PortFree { port: id },
            Self::FLOW_WAKE => Event::FlowWake { flow: id, generation },
            Self::RP_TIMER => Event::RpTimer { flow: id, generation },
            Self::NOTIFICATION_READY => Event::NotificationReady { slot: id },
            Self::SOURCE => Event::Source { source: id, generation },
            Self::CONN_TIMER => Event::ConnTimer { conn: id, generation },
            Self::PAUSE_END => Event::PauseEnd { port: id, generation },
            _ => Event::Timeline { entry: id },
        }
    }
}

/// The largest node, port, flow or timeline index an event can carry.
pub const MAX_ID: usize = (1 << 28) - 1;

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

    /// The events popped when `events` are pushed, all due at `time`, in this order.
    fn popped_at(time: u64, events: &[Event]) -> Vec<Event> {
        let mut q = EventQueue::new();
        for &e in events {
            q.push(Time(time), e);
        }
        std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect()
    }

    #[test]
    fn equal_times_pop_by_kind_then_by_a_key_whatever_the_order_pushed() {
        let mut events = vec![
            Event::PortFree { port: 9 },
            Event::LinkArrival { port: 4 },
            Event::Sample,
            Event::FlowWake { flow: 2, generation: 1 },
            Event::LinkArrival { port: 1 },
            Event::Timeline { entry: 3 },
        ];
        for time in [5, 77_777, 1 << 40] {
            let popped = popped_at(time, &events);
            assert_eq!(popped[..2], [Event::Timeline { entry: 3 }, Event::Sample]);
            assert!(matches!(popped[2..4], [Event::LinkArrival { .. }, Event::LinkArrival { .. }]));
            assert_eq!(popped[4..], [Event::PortFree { port: 9 }, Event::FlowWake { flow: 2, generation: 1 }]);
            events.reverse();
            assert_eq!(popped_at(time, &events), popped, "the same whatever the order pushed");
        }
    }

    #[test]
    fn equal_times_of_one_kind_favour_no_id() {
        // Two frames arriving together at many instants a few nanoseconds apart: each
        // goes first at about half of them.
        let (a, b) = (Event::LinkArrival { port: 0 }, Event::LinkArrival { port: 1 });
        let first_a = (0..1000u64).filter(|i| popped_at(1_000_000 + 1_200 * i, &[b, a])[0] == a).count();
        assert!((400..=600).contains(&first_a), "{first_a} of 1000");
        // And a crowd of one kind pops whole, each once.
        let crowd: Vec<Event> = (0..100).map(|port| Event::PortFree { port }).collect();
        let mut popped = popped_at(5, &crowd);
        popped.sort_by_key(|e| e.pack());
        assert_eq!(popped, crowd);
    }

    #[test]
    fn events_round_trip_through_their_packed_form() {
        let all = [
            Event::LinkArrival { port: 7 },
            Event::PortFree { port: MAX_ID as u32 },
            Event::FlowWake { flow: 3, generation: u32::MAX },
            Event::RpTimer { flow: 9, generation: 12345 },
            Event::Timeline { entry: 4 },
            Event::Sample,
            Event::NotificationReady { slot: 11 },
            Event::Source { source: 5, generation: 77 },
        ];
        for e in all {
            assert_eq!(Event::unpack(e.pack()), e);
        }
    }

    #[test]
    fn random_pushes_pop_sorted_by_time_then_key() {
        let mut rng = crate::rng::Rng::stream(1, "heap");
        let mut q = EventQueue::new();
        let mut popped = Vec::new();
        let mut expected = Vec::new();
        for round in 0..2000u32 {
            let t = rng.next_u64() % 50;
            q.push(Time(t), Event::Timeline { entry: round });
            expected.push((t, round));
            if rng.chance(0.3) {
                popped.push(q.pop().unwrap());
            }
        }
        while let Some(e) = q.pop() {
            popped.push(e);
        }
        assert_eq!(popped.len(), expected.len());
        // A full drain is sorted by (time, key).
        let mut q = EventQueue::new();
        for &(t, i) in &expected {
            q.push(Time(t), Event::Timeline { entry: i });
        }
        let drained: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| match e {
                Event::Timeline { entry } => (t.0, entry),
                _ => unreachable!(),
            })
            .collect();
        let mut sorted = expected.clone();
        sorted.sort_by_key(|&(t, i)| (t, Event::Timeline { entry: i }.key(t)));
        assert_eq!(drained, sorted);
    }
}
