//! The event queue: events ordered by (time, sequence number).
//!
//! Events at equal times pop in the order they were pushed (FIFO), which makes runs
//! deterministic. Events are small `Copy` values packed into one word; nothing is
//! boxed. [`EventQueue`] (in `wheel.rs`) keeps near events on a timing wheel and far
//! ones in a heap (`heap.rs`).

mod fine;
mod heap;
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
    const LINK_ARRIVAL: u64 = 0;
    const PORT_FREE: u64 = 1;
    const FLOW_WAKE: u64 = 2;
    const RP_TIMER: u64 = 3;
    const TIMELINE: u64 = 4;
    const SAMPLE: u64 = 5;
    const NOTIFICATION_READY: u64 = 6;
    const SOURCE: u64 = 7;
    const CONN_TIMER: u64 = 8;
    const PAUSE_END: u64 = 9;

    /// Packs the event into one word: kind (4 bits), id (28 bits), generation (32 bits).
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

    #[inline(always)]
    pub(crate) fn unpack(word: u64) -> Event {
        let id = ((word >> 32) & ((1 << 28) - 1)) as u32;
        let generation = word as u32;
        match word >> 60 {
            Self::LINK_ARRIVAL => Event::LinkArrival { port: id },
            Self::PORT_FREE => Event::PortFree { port: id },
            Self::FLOW_WAKE => Event::FlowWake { flow: id, generation },
            Self::RP_TIMER => Event::RpTimer { flow: id, generation },
            Self::TIMELINE => Event::Timeline { entry: id },
            Self::NOTIFICATION_READY => Event::NotificationReady { slot: id },
            Self::SOURCE => Event::Source { source: id, generation },
            Self::CONN_TIMER => Event::ConnTimer { conn: id, generation },
            Self::PAUSE_END => Event::PauseEnd { port: id, generation },
            _ => Event::Sample,
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
    fn random_pushes_pop_sorted_by_time_then_order() {
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
        // Within what was still queued, order must be (time, insertion); check that no
        // popped event precedes an earlier-pushed event with the same or smaller time
        // that was already in the queue: equivalently, a full drain is sorted.
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
        sorted.sort();
        assert_eq!(drained, sorted);
    }
}
