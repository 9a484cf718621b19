//! An egress port: a byte-limited FIFO per priority class, a serializer and the
//! outgoing half of a link.
//!
//! A frame leaves the queue when its transmission starts. It is then put on the link
//! at once, stamped with the time its last bit reaches the far end
//! (`start + serialization + propagation`); the link is a FIFO, so it never reorders
//! and needs one pending event at a time. The port itself needs an event only to
//! start its next queued frame.

use super::ets::Dwrr;
use super::pfc::{NO_INGRESS, Pfc};
use super::ring::Ring;

/// What [`Port::pfc`] shows for a port without PFC state.
static INERT_PFC: Pfc = Pfc::INERT;
use crate::cc::CongestionPointKind;
use crate::monitor::QueueMonitor;
use crate::packet::{Packet, PacketKind};
use crate::units::{Bytes, Rate, Time};
use std::collections::VecDeque;

/// Takes the front of a non-empty ring (it panics on an empty one): copied from the
/// front, then the front dropped. `pop_front`'s `Option` came out of the ring with a
/// frame's kind byte (the niche that says `None`) stored apart from the rest, and the
/// wider loads that copied the frame on could not be served from those stores while
/// they waited to be written (at 4,096 senders the costliest stall of a frame's
/// admission at the switch; the run took 0.97 of the time without it).
#[inline(always)]
pub(super) fn take_front<T: Copy>(ring: &mut VecDeque<T>) -> T {
    let front = ring[0];
    ring.pop_front();
    front
}

/// How many more frames a quietly delivering link takes, after the ones that had not
/// arrived when it last delivered, before it delivers again without waiting for a
/// sample (see `sim/delivery.rs`).
pub const QUIET_BACKLOG: u32 = 128;

/// What a port does with an arriving frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The port was idle: transmission starts now.
    SendNow,
    /// Queued behind others.
    Queued,
    /// The buffer is full: dropped.
    Dropped,
    /// At a departure-timed port: queued with its start already fixed and put on
    /// the link, arriving at the far end at `arrival` (`was_empty`: the link was
    /// empty, so the caller schedules that arrival).
    Departs {
        /// When the frame's last bit reaches the far end.
        arrival: Time,
        /// Whether the link had no frame on it before.
        was_empty: bool,
    },
}

/// Whether a sample must look at a switch port: one whose queue is sampled or whose
/// link delivers quietly (see `sim/watch.rs`).
///
/// A sample looks only at the watched ports that may hold frames: a port goes on the
/// simulation's list when a frame arrives at it, and leaves it at a sample that finds
/// its queue empty (and, delivering quietly, its link too). So an idle port's queue
/// (zero) is written without reading the port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watch {
    /// Neither sampled nor delivering quietly.
    Unwatched,
    /// Watched, and holding no frame since the last sample that looked at it.
    Idle,
    /// On the list of ports a sample looks at.
    Listed,
}

/// One egress port and the link it feeds.
///
/// Laid out in declaration order (`repr(C)`) and on cache-line boundaries, what
/// every frame reads first: at thousands of ports a frame then touches the first few
/// cache lines of its ports. A host's NIC sends from the first 128 bytes alone, two
/// lines (its transmitter, its link and its early sending; the test
/// `a_nic_sends_from_two_cache_lines` holds them there): its serialization time is a
/// memo of the last frame size, kept true by the setters of the rate and the frame
/// service, which lie beyond. A NIC does not count the frames it sends (nothing
/// reports them): the counters lie beyond too.
///
/// A switch port's frame (admission, marking, the departure-timed catch-up, the
/// queue monitor, the link) reads the first four lines (the test
/// `a_switch_port_admits_from_four_cache_lines`): the third holds its congestion
/// point, buffer, marking threshold, transmit counters and quiet delivery, the
/// fourth its monitor. What a frame there rarely or never reads lies after: the
/// class FIFOs (a departure-timed port keeps its frames on the link), the rate,
/// ETS, PFC and the drop counters. Spread over all six lines, the k = 16 DCTCP
/// fabric's 6,144 ports missed the last-level cache more often per frame.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Port {
    /// The transmitter is busy until then.
    pub busy_until: Time,
    /// Bytes waiting (the frame in transmission excluded).
    pub queued_bytes: u64,
    /// At a departure-timed port, when the first admitted frame that has not
    /// started yet starts (the others follow it back to back).
    pub(super) next_start: Time,
    /// At a departure-timed port, how many admitted frames have not started yet:
    /// the last ones on `link`. Beside `queued_bytes`: a sample reads both from one
    /// cache line.
    pub(super) waiting: u32,
    /// The frame size `serialize_time` is for (a memo: the setters of the rate and
    /// the frame service keep it true, so neither is read on a frame's path).
    serialize_bytes: u32,
    /// Propagation delay.
    pub delay: Time,
    /// How long the transmitter is busy with a frame of `serialize_bytes`.
    serialize_time: Time,
    /// Frames on the wire, with the time each reaches the far end.
    pub link: Ring<(Time, Packet)>,
    /// The node at the far end of the link.
    pub peer: u32,
    /// Under early sending (see `sim/early.rs`), the flow this NIC sends early
    /// (`u32::MAX`: the port does not send early).
    pub early_flow: u32,
    /// When the flow's next frame goes, sent as the last frame on the link arrives
    /// ([`Time::NEVER`]: none waits).
    pub early_at: Time,
    /// From then on the flow no longer sends early (a timeline entry concerns it).
    pub early_until: Time,
    /// The flow's wake-up generation when its early send was set: a later wake-up
    /// (its reaction point changed the rate meanwhile) supersedes the early send.
    pub early_generation: u32,
    /// The node that owns the port.
    pub node: u32,
    /// Whether the owner is a host (its NIC) rather than a switch.
    pub is_host: bool,
    /// Whether a `PortFree` event is pending.
    pub free_pending: bool,
    /// Whether the port is departure-timed (see `timed.rs`): each frame's start is
    /// fixed when it is admitted, so the port needs no event of its own.
    pub timed: bool,
    /// Whether frames that need nothing at their arrival but counting are delivered
    /// without an event of their own (see `sim/delivery.rs`; ports facing a host).
    pub quiet_delivery: bool,
    /// Whether its link crosses from this part of a split run to another (see
    /// `sim/parallel.rs`): its frames are handed over at the window's barrier.
    pub crosses: bool,
    /// Whether a sample must look at the port, and whether it is listed to.
    pub watch: Watch,
    /// Whether the port takes part in PFC (it may be paused, send PAUSEs or account
    /// ingress bytes): it then frees through the PFC path.
    pub in_pfc: bool,
    /// Mirror of [`Pfc::paused`]: the priorities the transmitter may not send.
    pub paused: u8,
    /// Mirror of [`Pfc::has_pending`]: a PAUSE frame waits to be sent.
    pub pause_pending: bool,
    /// Whether dequeuing needs more than the first non-empty class (ETS or ingress
    /// tracking); set up once.
    special: bool,
    /// Whether the port remembers, for each queued frame, the port it arrived over
    /// (at switches where some ingress is lossless); see [`Port::track_ingress`].
    tracks_ingress: bool,
    /// The port of the same link in the other direction (from `peer` to `node`).
    pub reverse: u32,
    /// The congestion point on this port, if any. Boxed: most ports have none, and
    /// the largest scheme's state would take 336 bytes in every port.
    pub cp: Option<Box<CongestionPointKind>>,
    /// Buffer limit in bytes (drop-tail).
    pub buffer: u64,
    /// ECN marking threshold: an ECN-capable frame that finds more than this many
    /// bytes queued is marked (`u64::MAX`: the port never marks).
    pub ecn_threshold: u64,
    /// Frames transmitted (by a switch port: a NIC's are not reported, nor counted,
    /// which keeps them out of the lines it sends from).
    pub tx_frames: u64,
    /// Bytes transmitted (by a switch port).
    pub tx_bytes: u64,
    /// Under quiet delivery: when the pending arrival event fires ([`Time::NEVER`]: none).
    pub arrival_due: Time,
    /// Under quiet delivery: frames on the link that need their arrival event.
    pub loud_on_link: u32,
    /// Under quiet delivery: the link's length at which the frames that have
    /// arrived are delivered at once rather than at the next sample (see
    /// `sim/delivery.rs`).
    pub deliver_at: u32,
    /// Frames marked.
    pub ecn_marks: u64,
    /// Time-weighted queue statistics.
    pub monitor: QueueMonitor,
    /// One FIFO per class; class 0 is served first (see [`Port::class_of`]).
    queues: Vec<VecDeque<Packet>>,
    /// Beside each class's FIFO, the ingress port of each frame (when tracked; empty
    /// otherwise, with no room taken: most runs track none, and a fabric has
    /// thousands of ports, each part of a split run all of them).
    ingress: Vec<VecDeque<u32>>,
    /// Capacity (see [`Port::set_rate`]).
    rate: Rate,
    /// Minimum time per frame (zero: none; see [`Port::set_frame_service`]).
    frame_service: Time,
    /// ETS: weighted service between the classes that have a weight (`None`: strict
    /// priority only).
    pub ets: Option<Box<Dwrr>>,
    /// PFC on this link direction (see [`Pfc`]); inert unless a priority is lossless.
    /// Boxed: the event loop reads only the two mirrors below.
    pfc: Option<Box<Pfc>>,
    /// Frames dropped.
    pub dropped_frames: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
    /// Notifications its congestion point sent.
    pub notifications: u64,
    /// The ingress port of the frame [`Port::dequeue`] returned last.
    pub last_ingress: u32,
    /// Whether it adds in-band telemetry to the probed frames it sends (a switch
    /// port under HPCC): it is then served frame by frame, so that each record holds
    /// the queue as the frame starts.
    pub telemetry: bool,
}

impl Port {
    /// Prefetches the two lines a NIC's frame reads (its first 128 bytes, see the
    /// test `a_nic_sends_from_two_cache_lines`).
    #[inline(always)]
    pub fn fetch(&self) {
        crate::prefetch::line_of(&self.busy_until);
        crate::prefetch::line_of(&self.early_at);
    }

    /// Prefetches the four lines a switch port's admission reads (see the test
    /// `a_switch_port_admits_from_four_cache_lines`).
    #[inline(always)]
    pub fn fetch_admission(&self) {
        self.fetch();
        crate::prefetch::line_of(&self.cp);
        crate::prefetch::line_of(&self.monitor);
    }

    /// Prefetches the frames on the link that an admission reads: the last (a new
    /// frame arrives after it) and, at a departure-timed port, the first waiting
    /// one (the catch-up starts it). Reads the port's own first lines to find them.
    #[inline(always)]
    pub fn fetch_link(&self) {
        let len = self.link.len();
        if let Some(last) = self.link.get(len.wrapping_sub(1)) {
            crate::prefetch::line_of(last);
        }
        if let Some(first) = self.link.get(len.wrapping_sub(self.waiting as usize)) {
            crate::prefetch::line_of(first);
        }
    }

    /// A new idle port.
    pub fn new(node: u32, peer: u32, is_host: bool, rate: Rate, delay: Time, buffer: Bytes) -> Port {
        Port {
            node,
            peer,
            early_flow: u32::MAX,
            is_host,
            rate,
            delay,
            buffer: buffer.0,
            frame_service: Time::ZERO,
            serialize_bytes: 0,
            serialize_time: rate.transmit_time(Bytes(0)),
            queues: vec![VecDeque::new()],
            queued_bytes: 0,
            busy_until: Time::ZERO,
            free_pending: false,
            timed: false,
            quiet_delivery: false,
            crosses: false,
            watch: Watch::Unwatched,
            loud_on_link: 0,
            deliver_at: QUIET_BACKLOG,
            arrival_due: Time::NEVER,
            early_at: Time::NEVER,
            early_until: Time::ZERO,
            early_generation: 0,
            next_start: Time::ZERO,
            waiting: 0,
            link: Ring::new(),
            cp: None,
            monitor: QueueMonitor::default(),
            tx_frames: 0,
            tx_bytes: 0,
            dropped_frames: 0,
            dropped_bytes: 0,
            notifications: 0,
            ecn_threshold: u64::MAX,
            ecn_marks: 0,
            reverse: u32::MAX,
            pfc: None,
            paused: 0,
            pause_pending: false,
            in_pfc: false,
            telemetry: false,
            special: false,
            tracks_ingress: false,
            ingress: Vec::new(),
            last_ingress: NO_INGRESS,
            ets: None,
        }
    }

    /// Sets the number of strict-priority classes (at least one).
    pub fn set_priorities(&mut self, classes: u8) {
        self.queues = (0..classes.max(1)).map(|_| VecDeque::new()).collect();
        if self.tracks_ingress {
            self.fresh_ingress();
        }
    }

    /// An empty record of ingress ports beside each class's FIFO.
    fn fresh_ingress(&mut self) {
        self.ingress = (0..self.queues.len()).map(|_| VecDeque::new()).collect();
    }

    /// Frees the room of its classes' FIFOs (and of their ingress records), for a
    /// port that never queues a frame again: one that a part of a split run neither
    /// sends on nor receives over (`sim/part_state.rs`). It reports as a port
    /// holding no frame; queuing a frame on it panics.
    pub fn release_queues(&mut self) {
        debug_assert!(self.queued_bytes == 0 && self.queued().next().is_none());
        self.queues = Vec::new();
        self.ingress = Vec::new();
    }

    /// The class of a frame of 802.1p priority `priority`: with `n` classes, priority
    /// `n − 1` and above share class 0 (served first), and each lower priority takes
    /// the next class, so priority 0 is class `n − 1`. One class: all share it.
    #[inline]
    pub fn class_of(&self, priority: u8) -> usize {
        let top = self.queues.len() - 1;
        top - (priority as usize).min(top)
    }

    /// How many strict-priority classes the port serves.
    pub fn classes(&self) -> usize {
        self.queues.len()
    }

    /// Whether dequeuing needs more than the first non-empty class (ETS, ingress
    /// tracking).
    pub fn is_special(&self) -> bool {
        self.special
    }

    /// Puts back a frame whose bytes are still counted in `queued_bytes`, behind
    /// the frames of its class.
    pub(super) fn requeue(&mut self, pkt: Packet) {
        let class = self.class_of(pkt.priority);
        self.queues[class].push_back(pkt);
    }

    /// Counts a frame of `bytes` dropped by a drop policy before it was queued.
    pub fn drop_by_policy(&mut self, bytes: u32) {
        self.dropped_frames += 1;
        self.dropped_bytes += bytes as u64;
    }

    /// Whether the transmitter is idle at `now` with nothing waiting.
    #[inline]
    pub fn is_idle(&self, now: Time) -> bool {
        self.busy_until <= now && self.queued_bytes == 0
    }

    /// [`Port::admit`] at a port outside PFC (never paused, no ingress tracking), for
    /// a lossy frame: the plain drop-tail decision.
    #[inline]
    pub fn admit_plain(&mut self, now: Time, pkt: Packet) -> Admission {
        if self.is_idle(now) && !self.free_pending {
            return Admission::SendNow;
        }
        if self.overflows(pkt.bytes as u64) {
            return Admission::Dropped;
        }
        self.enqueue(now, pkt);
        Admission::Queued
    }

    /// Whether `bytes` more would overflow the buffer; if so, counts the drop.
    #[inline]
    pub(super) fn overflows(&mut self, bytes: u64) -> bool {
        if self.queued_bytes + bytes <= self.buffer {
            return false;
        }
        self.dropped_frames += 1;
        self.dropped_bytes += bytes;
        true
    }

    /// Queues `pkt` in its class at `now`; returns the class.
    #[inline]
    pub(super) fn enqueue(&mut self, now: Time, pkt: Packet) -> usize {
        self.monitor.advance(now, self.queued_bytes);
        self.queued_bytes += pkt.bytes as u64;
        self.monitor.observe_max(self.queued_bytes);
        let class = self.class_of(pkt.priority);
        self.queues[class].push_back(pkt);
        class
    }

    /// Decides what happens to `pkt` arriving at `now` over port `ingress`
    /// ([`NO_INGRESS`] when not accounted), and queues it if it must wait. A lossless
    /// frame is never dropped here: its buffer is accounted at ingress (PFC).
    #[inline]
    pub fn admit(&mut self, now: Time, pkt: Packet, ingress: u32, lossless: bool) -> Admission {
        if self.is_idle(now) && !self.free_pending && !self.is_paused(pkt.priority) {
            return Admission::SendNow;
        }
        if !lossless && self.overflows(pkt.bytes as u64) {
            return Admission::Dropped;
        }
        let class = self.enqueue(now, pkt);
        if self.tracks_ingress {
            self.ingress[class].push_back(ingress);
        }
        Admission::Queued
    }

    /// Marks an ECN-capable frame arriving at `pkt` if the queue it finds exceeds
    /// the threshold (DCTCP's instantaneous-queue marking), unless the port's
    /// congestion point, asked, declines (DCQCN's RED curve).
    #[inline]
    pub fn mark(&mut self, pkt: &mut Packet) {
        if self.queued_bytes > self.ecn_threshold {
            if let PacketKind::Data { ect: true, ce, .. } = &mut pkt.kind {
                if let Some(cp) = self.cp.as_mut() {
                    if !cp.marks_ecn(self.queued_bytes) {
                        return;
                    }
                }
                *ce = true;
                self.ecn_marks += 1;
            }
        }
    }

    /// Takes the next frame to send (highest priority first), skipping classes whose
    /// head frame's priority is paused; its ingress port is then in
    /// [`Port::last_ingress`] (when tracked).
    #[inline]
    pub fn dequeue(&mut self, now: Time) -> Option<Packet> {
        if self.paused == 0 && !self.special {
            let pkt = take_front(self.queues.iter_mut().find(|q| !q.is_empty())?);
            self.monitor.advance(now, self.queued_bytes);
            self.queued_bytes -= pkt.bytes as u64;
            return Some(pkt);
        }
        self.dequeue_special(now)
    }

    /// [`Port::dequeue`] under a pause, ETS or ingress tracking.
    #[cold]
    #[inline(never)]
    fn dequeue_special(&mut self, now: Time) -> Option<Packet> {
        let class = self.next_class()?;
        let pkt = take_front(&mut self.queues[class]);
        if self.tracks_ingress {
            self.last_ingress = self.ingress[class].pop_front().unwrap_or(NO_INGRESS);
        }
        self.monitor.advance(now, self.queued_bytes);
        self.queued_bytes -= pkt.bytes as u64;
        Some(pkt)
    }

    /// The class the next frame comes from, if any may be sent now: the first
    /// strict-priority class with a frame, else the weighted class whose turn it is.
    #[inline]
    fn next_class(&mut self) -> Option<usize> {
        let Some(ets) = self.ets.as_mut() else {
            if self.paused == 0 {
                return self.queues.iter().position(|q| !q.is_empty());
            }
            return self.queues.iter().position(|q| q.front().is_some_and(|p| !self.is_paused(p.priority)));
        };
        let (queues, paused) = (&self.queues, self.paused);
        let head = |c: usize| queues[c].front().filter(|p| paused & (1 << (p.priority & 7)) == 0).map(|p| p.bytes as u64);
        if let Some(c) = (0..queues.len()).find(|&c| !ets.is_weighted(c) && head(c).is_some()) {
            return Some(c);
        }
        if !(0..queues.len()).any(|c| head(c).is_some()) {
            return None;
        }
        Some(ets.pick(head))
    }

    /// Whether a queued frame may be sent now (one waits whose priority is not paused).
    #[inline]
    pub fn has_eligible(&self) -> bool {
        self.queued_bytes != 0 && (self.paused == 0 || self.queues.iter().any(|q| q.front().is_some_and(|p| !self.is_paused(p.priority))))
    }

    /// Serves the priorities with a weight by DWRR (802.1Qaz ETS), one class per
    /// priority, the others by strict priority before them.
    pub fn set_ets(&mut self, weights: &[u32; 8]) {
        self.set_priorities(8);
        let by_class: Vec<u32> = (0..8).map(|c| weights[7 - c]).collect();
        self.ets = Some(Box::new(Dwrr::new(&by_class)));
        self.special = true;
    }

    /// Remembers each queued frame's ingress port from now on (PFC accounting).
    pub fn track_ingress(&mut self) {
        self.tracks_ingress = true;
        self.special = true;
        self.fresh_ingress();
    }

    /// Whether priority `q` is paused at this transmitter.
    #[inline(always)]
    pub fn is_paused(&self, q: u8) -> bool {
        self.paused & (1 << (q & 7)) != 0
    }

    /// Copies the PFC state the event loop reads into the port's mirrors.
    #[inline]
    pub fn sync_pfc(&mut self) {
        self.paused = self.pfc().paused;
        self.pause_pending = self.pfc().has_pending();
    }

    /// The port's PFC state (an inert one while the port never took part in PFC).
    #[inline]
    pub fn pfc(&self) -> &Pfc {
        self.pfc.as_deref().unwrap_or(&INERT_PFC)
    }

    /// The port's PFC state, made on first use (most ports never need one).
    #[inline]
    pub fn pfc_mut(&mut self) -> &mut Pfc {
        self.pfc.get_or_insert_with(Box::default)
    }

    /// Adds a frame produced at this node (a host's own frames) to the queue,
    /// bypassing the buffer limit.
    pub fn push_local(&mut self, now: Time, pkt: Packet) {
        let class = self.enqueue(now, pkt);
        if self.tracks_ingress {
            self.ingress[class].push_back(NO_INGRESS);
        }
    }

    /// Whether any frame waits.
    #[inline]
    pub fn has_queued(&self) -> bool {
        self.queued_bytes != 0
    }

    /// Whether any frame waits, counting a departure-timed port's frames that have
    /// not started (including any of zero bytes).
    #[inline]
    pub fn holds_frames(&self) -> bool {
        self.queued_bytes != 0 || self.waiting != 0
    }

    /// Starts transmitting `pkt` at `now` and puts it on the link. Returns the time it
    /// reaches the far end, and whether the link was empty (so the caller must schedule
    /// its arrival event). (Always inlined: see `Simulation::transmit`.)
    #[inline(always)]
    pub fn transmit(&mut self, now: Time, pkt: Packet) -> (Time, bool) {
        let serialize = self.serialization(pkt.bytes);
        self.busy_until = now + serialize;
        if !self.is_host {
            // Only switch ports report their utilization and transmit counters: a
            // NIC's stay out of the cache lines they would cost.
            self.monitor.add_busy(serialize);
            self.tx_frames += 1;
            self.tx_bytes += pkt.bytes as u64;
        }
        self.put_on_link(pkt)
    }

    /// How long the transmitter is busy with a frame of `bytes`.
    #[inline]
    pub(super) fn serialization(&mut self, bytes: u32) -> Time {
        if bytes != self.serialize_bytes {
            self.serialize_bytes = bytes;
            self.serialize_time = self.serialization_of(bytes);
        }
        self.serialize_time
    }

    /// How long the transmitter is busy with a frame of `bytes`, worked out.
    fn serialization_of(&self, bytes: u32) -> Time {
        self.rate.transmit_time(Bytes(bytes as u64)).max(self.frame_service)
    }

    /// The capacity.
    #[inline]
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Sets the capacity (a frame in transmission keeps its end).
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
        self.serialize_time = self.serialization_of(self.serialize_bytes);
    }

    /// The minimum time per frame (zero: none).
    pub fn frame_service(&self) -> Time {
        self.frame_service
    }

    /// Sets the minimum time per frame.
    pub fn set_frame_service(&mut self, service: Time) {
        self.frame_service = service;
        self.serialize_time = self.serialization_of(self.serialize_bytes);
    }

    /// Puts `pkt`, whose transmission ends at `busy_until`, on the link; returns when
    /// it reaches the far end and whether the link was empty.
    #[inline(always)]
    pub(super) fn put_on_link(&mut self, pkt: Packet) -> (Time, bool) {
        let mut arrival = self.busy_until + self.delay;
        let was_empty = match self.link.back() {
            Some(&(last, _)) => {
                arrival = arrival.max(last);
                false
            }
            None => true,
        };
        self.link.push_back((arrival, pkt));
        (arrival, was_empty)
    }

    /// How many frames wait to be sent (the one in transmission excluded).
    pub fn queued_count(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum::<usize>() + self.waiting as usize
    }

    /// Every frame still waiting in a class queue (at a departure-timed port the
    /// waiting frames are on `link` already and are not repeated here).
    pub fn queued(&self) -> impl Iterator<Item = &Packet> {
        self.queues.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nic_sends_from_two_cache_lines() {
        use std::mem::offset_of;
        assert_eq!(std::mem::align_of::<Port>(), 64);
        let ends = [
            offset_of!(Port, busy_until) + 8,
            offset_of!(Port, serialize_bytes) + 4,
            offset_of!(Port, delay) + 8,
            offset_of!(Port, serialize_time) + 8,
            offset_of!(Port, link) + std::mem::size_of::<Ring<(Time, Packet)>>(),
            offset_of!(Port, peer) + 4,
            offset_of!(Port, early_flow) + 4,
            offset_of!(Port, early_at) + 8,
            offset_of!(Port, early_until) + 8,
            offset_of!(Port, early_generation) + 4,
            offset_of!(Port, is_host) + 1,
            offset_of!(Port, free_pending) + 1,
            offset_of!(Port, quiet_delivery) + 1,
            offset_of!(Port, node) + 4,
            offset_of!(Port, paused) + 1,
        ];
        assert!(ends.iter().all(|&end| end <= 128), "{ends:?}");
        assert!(offset_of!(Port, tx_frames) >= 128, "a NIC does not count what it sends");
        assert!(offset_of!(Port, rate) >= 128 && offset_of!(Port, frame_service) >= 128, "read off a frame's path");
        // `fetch` asks for both lines.
        assert_eq!([offset_of!(Port, busy_until) / 64, offset_of!(Port, early_at) / 64], [0, 1]);
        // The sample's check reads the queue and the waiting frames from one line.
        assert!(offset_of!(Port, waiting) + 4 <= 64 && offset_of!(Port, next_start) + 8 <= 64);
    }

    #[test]
    fn a_switch_port_admits_from_four_cache_lines() {
        use std::mem::offset_of;
        let ends = [
            offset_of!(Port, watch) + 1,
            offset_of!(Port, in_pfc) + 1,
            offset_of!(Port, timed) + 1,
            offset_of!(Port, crosses) + 1,
            offset_of!(Port, paused) + 1,
            offset_of!(Port, special) + 1,
            offset_of!(Port, cp) + 8,
            offset_of!(Port, buffer) + 8,
            offset_of!(Port, ecn_threshold) + 8,
            offset_of!(Port, tx_frames) + 8,
            offset_of!(Port, tx_bytes) + 8,
            offset_of!(Port, arrival_due) + 8,
            offset_of!(Port, loud_on_link) + 4,
            offset_of!(Port, deliver_at) + 4,
            offset_of!(Port, monitor) + std::mem::size_of::<QueueMonitor>(),
        ];
        assert!(ends.iter().all(|&end| end <= 256), "{ends:?}");
        // The monitor fills one line of its own.
        assert_eq!(offset_of!(Port, monitor) % 64, 0);
        assert!(offset_of!(Port, queues) >= 256 && offset_of!(Port, dropped_frames) >= 256);
    }

    #[test]
    fn the_serialization_memo_follows_rate_and_frame_service() {
        let mut p = port();
        assert_eq!(p.serialization(1000), Time::from_ns(800));
        p.set_rate(Rate::from_gbps(1));
        assert_eq!(p.serialization(1000), Time::from_ns(8000));
        assert_eq!(p.serialization(64), Time::from_ns(512));
        p.set_frame_service(Time::from_us(1));
        assert_eq!(p.serialization(64), Time::from_us(1));
        assert_eq!(p.serialization(1000), Time::from_ns(8000));
        p.set_rate(Rate::from_gbps(100));
        assert_eq!(p.serialization(1000), Time::from_us(1));
    }

    #[test]
    fn a_port_keeps_its_rare_parts_boxed() {
        // Every link has two ports: at 100,000 hosts, each byte of a port is 200 KB.
        // A congestion point inline took 336 bytes of every port (752 in all).
        assert!(std::mem::size_of::<Port>() <= 384, "{}", std::mem::size_of::<Port>());
        assert_eq!(std::mem::size_of::<Option<Box<CongestionPointKind>>>(), 8);
    }

    #[test]
    fn a_port_takes_room_for_ingress_records_only_when_it_tracks_them() {
        let mut p = port();
        p.set_priorities(8);
        assert!(p.ingress.is_empty() && p.ingress.capacity() == 0);
        p.track_ingress();
        assert_eq!(p.ingress.len(), 8);
        let mut q = port();
        q.track_ingress();
        q.set_priorities(3);
        assert_eq!(q.ingress.len(), 3);
    }

    fn frame(bytes: u32) -> Packet {
        Packet::new(0, bytes, 1, 0, PacketKind::DATA)
    }

    fn port() -> Port {
        Port::new(0, 1, false, Rate::from_gbps(10), Time::from_us(1), Bytes(3000))
    }

    #[test]
    fn idle_port_sends_at_once_and_link_adds_delays() {
        let mut p = port();
        assert_eq!(p.admit(Time::ZERO, frame(1000), NO_INGRESS, false), Admission::SendNow);
        let (arrival, was_empty) = p.transmit(Time::ZERO, frame(1000));
        assert!(was_empty);
        assert_eq!(arrival, Time::from_ns(800) + Time::from_us(1));
        assert_eq!(p.busy_until, Time::from_ns(800));
    }

    #[test]
    fn busy_port_queues_then_drops_at_the_buffer() {
        let mut p = port();
        p.transmit(Time::ZERO, frame(1000));
        for _ in 0..3 {
            assert_eq!(p.admit(Time::ZERO, frame(1000), NO_INGRESS, false), Admission::Queued);
        }
        assert_eq!(p.admit(Time::ZERO, frame(1000), NO_INGRESS, false), Admission::Dropped);
        assert_eq!(p.queued_bytes, 3000);
        assert_eq!(p.dropped_frames, 1);
    }

    #[test]
    fn strict_priority_serves_the_higher_priority_first() {
        let mut p = port();
        p.set_priorities(2);
        p.transmit(Time::ZERO, frame(100));
        let mut high = frame(100);
        high.priority = 3;
        high.flow = 7;
        p.admit(Time::ZERO, frame(100), NO_INGRESS, false);
        p.admit(Time::ZERO, high, NO_INGRESS, false);
        assert_eq!(p.dequeue(Time::ZERO).unwrap().flow, 7);
        assert_eq!(p.dequeue(Time::ZERO).unwrap().flow, 0);
    }

    #[test]
    fn priorities_map_to_classes_from_the_top() {
        let mut p = port();
        assert_eq!((p.class_of(0), p.class_of(7)), (0, 0));
        p.set_priorities(4);
        let classes: Vec<usize> = (0..8).map(|q| p.class_of(q)).collect();
        assert_eq!(classes, vec![3, 2, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn frame_service_time_bounds_the_frame_rate() {
        let mut p = port();
        p.set_frame_service(Time::from_us(50));
        p.transmit(Time::ZERO, frame(1500));
        assert_eq!(p.busy_until, Time::from_us(50));
    }
}
