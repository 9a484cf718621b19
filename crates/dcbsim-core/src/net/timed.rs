//! Departure-timed ports: a FIFO port whose frames' start times are fixed when they
//! are admitted.
//!
//! At a port with one class, no PFC and no ETS, the order of service is the order of
//! arrival, so a frame admitted behind others starts exactly when the frames ahead of
//! it have been serialized. The port then fixes that start at admission and puts the
//! frame on the link at once (its arrival at the far end is known too), and needs no
//! event to start it. The queue's bytes, its time-weighted statistics and the
//! transmit counters are brought up to date lazily, in start order, by
//! [`Port::catch_up`] before anything reads them: the results are those of serving
//! the queue with an event per frame.
//!
//! A frame reaches the front of its link only after its transmission started (the
//! frame before it arrives at `start + serialization + delay`), so the frames still
//! waiting have no event scheduled and [`Port::untime`] can hand them back to the
//! class FIFO whenever the port must leave this mode (a rate change).

use super::port::{Admission, Port};
use crate::packet::Packet;
use crate::units::Time;

/// A frame admitted to a departure-timed port that has not started yet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waiting {
    /// When its transmission starts.
    start: Time,
    /// How long the transmitter is busy with it.
    busy: Time,
    /// Its size.
    bytes: u32,
}

impl Port {
    /// Whether the port can be departure-timed: a switch port serving one FIFO class,
    /// outside PFC and ETS.
    pub fn can_be_timed(&self) -> bool {
        !self.is_host && !self.in_pfc && !self.is_special() && self.classes() == 1
    }

    /// Starts every waiting frame whose start is before `now`. A frame due at `now`
    /// itself is still waiting: an event at the very time a port frees sees the
    /// queue as it was (what frame-by-frame service does for an arrival scheduled
    /// before the port's own event).
    #[inline]
    pub fn catch_up(&mut self, now: Time) {
        while let Some(&w) = self.waiting.front() {
            if w.start >= now {
                return;
            }
            self.start_waiting(w);
        }
    }

    /// Whether a waiting frame starts before `now` (so [`Port::catch_up`] has work).
    #[inline]
    pub fn has_due(&self, now: Time) -> bool {
        self.waiting.front().is_some_and(|w| w.start < now)
    }

    /// The first waiting frame and its start, if it starts before `now` (a traced
    /// port records it before [`Port::start_next`] starts it). The frame must still
    /// be on the link: a traced port catches up before each arrival at its far end.
    pub fn next_due(&self, now: Time) -> Option<(Time, Packet)> {
        let w = self.waiting.front().filter(|w| w.start < now)?;
        let (_, pkt) = self.link[self.link.len() - self.waiting.len()];
        Some((w.start, pkt))
    }

    /// Starts the first waiting frame.
    pub fn start_next(&mut self) {
        if let Some(&w) = self.waiting.front() {
            self.start_waiting(w);
        }
    }

    #[inline]
    fn start_waiting(&mut self, w: Waiting) {
        self.monitor.advance(w.start, self.queued_bytes);
        self.queued_bytes -= w.bytes as u64;
        self.monitor.add_busy(w.busy);
        self.tx_frames += 1;
        self.tx_bytes += w.bytes as u64;
        self.waiting.pop_front();
    }

    /// [`Port::admit_plain`] at a departure-timed port caught up to `now`: sends at
    /// once if idle, drops at the buffer, else fixes the frame's start behind the
    /// frames ahead and puts it on the link.
    #[inline]
    pub fn admit_timed(&mut self, now: Time, pkt: Packet) -> Admission {
        if self.busy_until <= now {
            return Admission::SendNow;
        }
        if self.overflows(pkt.bytes as u64) {
            return Admission::Dropped;
        }
        self.monitor.advance(now, self.queued_bytes);
        self.queued_bytes += pkt.bytes as u64;
        self.monitor.observe_max(self.queued_bytes);
        let start = self.busy_until;
        let busy = self.serialization(pkt.bytes);
        self.busy_until = start + busy;
        self.waiting.push_back(Waiting { start, busy, bytes: pkt.bytes });
        let (arrival, was_empty) = self.put_on_link(pkt);
        Admission::Departs { arrival, was_empty }
    }

    /// When the transmitter is free of the frames that have started.
    pub fn started_until(&self) -> Time {
        self.waiting.front().map_or(self.busy_until, |w| w.start)
    }

    /// Leaves departure-timed operation at `now`: the frames that have not started
    /// return to the class FIFO, in order. Returns whether any did (the caller then
    /// schedules the port's free event at `busy_until`).
    pub fn untime(&mut self, now: Time) -> bool {
        self.catch_up(now);
        self.timed = false;
        let Some(first) = self.waiting.front() else { return false };
        self.busy_until = first.start;
        let from = self.link.len() - self.waiting.len();
        self.waiting.clear();
        let back: Vec<Packet> = self.link.drain(from..).map(|(_, pkt)| pkt).collect();
        for pkt in back {
            self.requeue(pkt);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::net::port::{Admission, Port};
    use crate::packet::{Packet, PacketKind};
    use crate::units::{Bytes, Rate, Time};

    fn frame(flow: u32) -> Packet {
        Packet::new(flow, 1000, 1, 0, PacketKind::DATA)
    }

    fn timed_port() -> Port {
        let mut p = Port::new(0, 1, false, Rate::from_gbps(10), Time::from_us(1), Bytes(3000));
        p.timed = true;
        p
    }

    #[test]
    fn waiting_frames_start_back_to_back_and_count_when_started() {
        let mut p = timed_port();
        assert_eq!(p.admit_timed(Time::ZERO, frame(0)), Admission::SendNow);
        p.transmit(Time::ZERO, frame(0));
        let a = p.admit_timed(Time::ZERO, frame(1));
        assert_eq!(a, Admission::Departs { arrival: Time::from_ns(1600) + Time::from_us(1), was_empty: false });
        p.admit_timed(Time::ZERO, frame(2));
        assert_eq!((p.queued_bytes, p.tx_frames), (2000, 1));
        p.catch_up(Time::from_ns(800));
        assert_eq!((p.queued_bytes, p.tx_frames), (2000, 1));
        p.catch_up(Time::from_ns(801));
        assert_eq!((p.queued_bytes, p.tx_frames), (1000, 2));
        p.catch_up(Time::from_ns(1601));
        assert_eq!((p.queued_bytes, p.tx_frames, p.tx_bytes), (0, 3, 3000));
        assert_eq!(p.link.len(), 3);
    }

    #[test]
    fn the_buffer_limit_holds_for_frames_not_yet_started() {
        let mut p = timed_port();
        p.transmit(Time::ZERO, frame(0));
        for f in 1..=3 {
            assert!(matches!(p.admit_timed(Time::ZERO, frame(f)), Admission::Departs { .. }));
        }
        assert_eq!(p.admit_timed(Time::ZERO, frame(4)), Admission::Dropped);
        p.catch_up(Time::from_ns(801));
        assert!(matches!(p.admit_timed(Time::from_ns(801), frame(5)), Admission::Departs { .. }));
    }

    #[test]
    fn untiming_returns_the_frames_not_started_to_the_fifo() {
        let mut p = timed_port();
        p.transmit(Time::ZERO, frame(0));
        p.admit_timed(Time::ZERO, frame(1));
        p.admit_timed(Time::ZERO, frame(2));
        assert!(p.untime(Time::from_ns(900)));
        assert_eq!((p.link.len(), p.queued_bytes, p.busy_until), (2, 1000, Time::from_ns(1600)));
        assert_eq!(p.dequeue(Time::from_ns(1600)).map(|f| f.flow), Some(2));
        assert!(!p.timed);
    }
}
