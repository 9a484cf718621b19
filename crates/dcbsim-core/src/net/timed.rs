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
//! The frames not started yet are the last ones on the link, back to back: the port
//! keeps only how many they are and when the first starts (each next one starts
//! when the one before ends), and counts the started ones before a frame leaves the
//! link ([`Port::pop_arrived`]), rather than a queue of their starts (more work per
//! frame; docs/speed.md has the measurement).
//!
//! A frame reaches the front of its link only after its transmission started (the
//! frame before it arrives at `start + serialization + delay`), so the frames still
//! waiting have no event scheduled and [`Port::untime`] can hand them back to the
//! class FIFO whenever the port must leave this mode (a rate change).

use super::port::{Admission, Port};
use crate::packet::Packet;
use crate::units::Time;

impl Port {
    /// Whether the port can be departure-timed: a switch port serving one FIFO class,
    /// outside PFC and ETS.
    pub fn can_be_timed(&self) -> bool {
        !self.is_host && !self.in_pfc && !self.is_special() && !self.telemetry && self.classes() == 1
    }

    /// Starts every waiting frame whose start is before `now`. A frame due at `now`
    /// itself is still waiting: an event at the very time a port frees sees the
    /// queue as it was (what frame-by-frame service does for an arrival scheduled
    /// before the port's own event).
    #[inline]
    pub fn catch_up(&mut self, now: Time) {
        while self.has_due(now) {
            self.start_waiting();
        }
    }

    /// Whether a waiting frame starts before `now` (so [`Port::catch_up`] has work).
    #[inline]
    pub fn has_due(&self, now: Time) -> bool {
        self.waiting != 0 && self.next_start < now
    }

    /// The first waiting frame and its start, if it starts before `now` (a traced
    /// port records it before [`Port::start_next`] starts it). The frame must still
    /// be on the link: a traced port catches up before each arrival at its far end.
    pub fn next_due(&self, now: Time) -> Option<(Time, Packet)> {
        if !self.has_due(now) {
            return None;
        }
        Some((self.next_start, self.first_waiting()))
    }

    /// Starts the first waiting frame.
    pub fn start_next(&mut self) {
        if self.waiting != 0 {
            self.start_waiting();
        }
    }

    /// Takes the frame at the head of the link, which has arrived by `now`. At a
    /// departure-timed port the frames started by then are counted first (the
    /// waiting ones are the last on the link): the head frame started before it
    /// arrived, or at `now` itself with neither serialization nor delay, which
    /// this starts too.
    #[inline]
    pub fn pop_arrived(&mut self, now: Time) -> Option<(Time, Packet)> {
        self.count_started(now);
        self.link.pop_front()
    }

    /// [`Port::pop_arrived`] of a link that holds a frame (it panics otherwise), taken
    /// with [`Ring::take_front`](super::ring::Ring::take_front).
    #[inline]
    pub fn take_arrived(&mut self, now: Time) -> (Time, Packet) {
        self.count_started(now);
        self.link.take_front()
    }

    /// Counts the frames started by `now`, and the head frame, before it leaves the
    /// link (see [`Port::pop_arrived`]).
    #[inline]
    fn count_started(&mut self, now: Time) {
        if self.has_due(now) || (self.waiting != 0 && self.waiting as usize == self.link.len()) {
            self.count_started_apart(now);
        }
    }

    /// [`Port::count_started`]'s work when there is some, out of line: inlined into
    /// every arrival, the catch-up (with [`Port::start_waiting`] inlined into it) slows
    /// the fabrics (docs/speed.md).
    #[inline(never)]
    fn count_started_apart(&mut self, now: Time) {
        self.catch_up(now);
        if self.waiting as usize == self.link.len() {
            self.start_waiting();
        }
    }

    /// The first waiting frame, on the link behind the frames that have started.
    #[inline]
    fn first_waiting(&self) -> Packet {
        self.link[self.link.len() - self.waiting as usize].1
    }

    /// Starts the first waiting frame: its queue time and transmission are counted,
    /// and the next one starts when it ends (waiting frames go back to back). Always
    /// inlined into the catch-up loop, which a switch's admission runs at every
    /// arrival: called there (with its saved registers), the plain, jittered and QCN
    /// dumbbells took 1.02, 1.03 and 1.03 of the time (eight alternate rounds), DCTCP
    /// 0.97 and the k = 8 fat-tree 0.98.
    #[inline(always)]
    fn start_waiting(&mut self) {
        let bytes = self.first_waiting().bytes;
        let busy = self.serialization(bytes);
        self.monitor.advance(self.next_start, self.queued_bytes);
        self.queued_bytes -= bytes as u64;
        self.monitor.add_busy(busy);
        self.tx_frames += 1;
        self.tx_bytes += bytes as u64;
        self.waiting -= 1;
        self.next_start += busy;
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
        if self.waiting == 0 {
            self.next_start = self.busy_until;
        }
        self.waiting += 1;
        let busy = self.serialization(pkt.bytes);
        self.busy_until += busy;
        let (arrival, was_empty) = self.put_on_link(pkt);
        Admission::Departs { arrival, was_empty }
    }

    /// When the transmitter is free of the frames that have started.
    pub fn started_until(&self) -> Time {
        if self.waiting != 0 { self.next_start } else { self.busy_until }
    }

    /// Leaves departure-timed operation at `now`: the frames that have not started
    /// return to the class FIFO, in order. Returns whether any did (the caller then
    /// schedules the port's free event at `busy_until`).
    pub fn untime(&mut self, now: Time) -> bool {
        self.catch_up(now);
        self.timed = false;
        if self.waiting == 0 {
            return false;
        }
        self.busy_until = self.next_start;
        let from = self.link.len() - self.waiting as usize;
        self.waiting = 0;
        let back: Vec<Packet> = self.link.split_off(from).into_iter().map(|(_, pkt)| pkt).collect();
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

    /// A timed port sending frame 0 from time zero, frames 1 and 2 waiting behind it.
    fn two_waiting() -> Port {
        let mut p = timed_port();
        p.transmit(Time::ZERO, frame(0));
        p.admit_timed(Time::ZERO, frame(1));
        p.admit_timed(Time::ZERO, frame(2));
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
    fn a_frame_taken_off_the_link_has_started_and_is_counted() {
        let mut p = two_waiting();
        // Frame 0 arrives at 1.8 us: frames 1 and 2 started at 0.8 and 1.6 us.
        let (at, first) = p.pop_arrived(Time::from_ns(1800)).unwrap();
        assert_eq!((at, first.flow), (Time::from_ns(1800), 0));
        assert_eq!((p.queued_bytes, p.tx_frames, p.waiting), (0, 3, 0));
        assert_eq!(p.take_arrived(Time::from_ns(2600)).1.flow, 1);
        // Without serialization or delay a frame starts and arrives at once: taken
        // off the link at that very time, it is started first.
        let mut q = Port::new(0, 1, false, Rate::from_gbps(10), Time::ZERO, Bytes(3000));
        q.timed = true;
        q.transmit(Time::ZERO, frame(0));
        let empty = Packet::new(1, 0, 1, 0, PacketKind::DATA);
        assert!(matches!(q.admit_timed(Time::ZERO, empty), Admission::Departs { .. }));
        assert_eq!(q.take_arrived(Time::from_ns(800)).1.flow, 0);
        assert_eq!(q.pop_arrived(Time::from_ns(800)).map(|(_, f)| f.flow), Some(1));
        assert_eq!((q.waiting, q.tx_frames), (0, 2));
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
        let mut p = two_waiting();
        assert!(p.untime(Time::from_ns(900)));
        assert_eq!((p.link.len(), p.queued_bytes, p.busy_until), (2, 1000, Time::from_ns(1600)));
        assert_eq!(p.dequeue(Time::from_ns(1600)).map(|f| f.flow), Some(2));
        assert!(!p.timed);
    }
}
