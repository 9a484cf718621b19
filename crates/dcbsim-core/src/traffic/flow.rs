//! One flow's sending state: backlog, rate limiter, reaction point and counters.

use crate::cc::ReactionPointKind;
use crate::config::{FlowKind, FlowSpec};
use crate::rng::Rng;
use crate::units::{Bytes, Rate, Time};

/// [`Flow::conn`] of a flow without a transport.
pub const NO_CONN: u32 = u32::MAX;

/// [`Flow::conn`] of a flow without a transport whose receiver acknowledges each data
/// frame (its reaction point wants it: HPCC, TIMELY; see `sim/acks.rs`). A value of
/// `conn`, not a flag of its own: the frame path tests `conn` anyway, so the other
/// flows' frames pay nothing for it.
pub const ACKED: u32 = u32::MAX - 1;

/// Counters kept per flow (in declaration order: the bytes first, which a sample
/// reads in the line of [`Flow`] that holds the rest of what it reads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct FlowCounters {
    /// Bytes put on the wire.
    pub sent_bytes: u64,
    /// Bytes delivered.
    pub delivered_bytes: u64,
    /// Frames put on the wire.
    pub sent_frames: u64,
    /// Frames delivered.
    pub delivered_frames: u64,
    /// Frames dropped.
    pub dropped_frames: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
    /// Notifications received.
    pub notifications: u64,
}

impl FlowCounters {
    /// Adds another flow's counters to these.
    pub fn add(&mut self, other: &FlowCounters) {
        self.sent_frames += other.sent_frames;
        self.sent_bytes += other.sent_bytes;
        self.delivered_frames += other.delivered_frames;
        self.delivered_bytes += other.delivered_bytes;
        self.dropped_frames += other.dropped_frames;
        self.dropped_bytes += other.dropped_bytes;
        self.notifications += other.notifications;
    }
}

/// A flow at its source.
///
/// Laid out in declaration order (`repr(C)`) and on cache-line boundaries, what every
/// frame reads first: a frame's path reads the first 192 bytes (three lines; the test
/// `a_frame_reads_three_cache_lines_of_its_flow` holds them there), and a sample the
/// first line alone, which matters at thousands of flows, where flows do not stay in
/// the cache between their frames (4,096 flows sampled every millisecond: a sample
/// read two lines per flow, as many misses as the frames' own).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Flow {
    /// Frame size.
    pub frame_bytes: u32,
    /// Index of its transport connection ([`NO_CONN`]: none; [`ACKED`]: none, its
    /// frames acknowledged one by one). Over a transport,
    /// `remaining` says only whether the window lets a segment go (`u64::MAX`) or not
    /// (0): the transport's sender decides what to send.
    pub conn: u32,
    /// Size of the last frame sent.
    pub last_bytes: u32,
    /// Generation of the valid wake-up event.
    pub wake_generation: u32,
    /// 802.1p priority.
    pub priority: u8,
    /// Whether the source is producing frames.
    pub active: bool,
    /// Whether the flow waits in its host's ready ring.
    pub in_ring: bool,
    /// Whether a wake-up is scheduled.
    pub wake_pending: bool,
    /// Whether its last frame was sent early (see `sim/early.rs`): handed to the NIC
    /// before its own time.
    pub ahead: bool,
    /// Whether its reaction point reacts to anything (not a fixed rate): a frame
    /// sent then tells it (kept here so a fixed-rate frame reads no further).
    pub reacts: bool,
    /// Whether its frames are ECN-capable without a transport (a DCQCN flow: the
    /// receiver answers marks with CNPs).
    pub ecn_capable: bool,
    /// Whether it is a finite flow (`size` is set): a frame reads this, not `size`.
    finite: bool,
    /// Bytes left to send (`u64::MAX`: unlimited).
    pub remaining: u64,
    /// The rate the limiter applies now: the RP's rate under the cap.
    pub rate: Rate,
    /// Start of the last frame's transmission.
    pub last_send: Time,
    /// Counters (next to the fields above, the bytes sent and delivered first: a
    /// sample reads this line alone, a frame this one and the next two).
    pub counters: FlowCounters,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// The frame size `gap_time` is for: the limiter's gap after a frame of this size
    /// at `rate` (a memo; [`Flow::refresh_rate`], where the rate changes, keeps it
    /// true of the current rate, so it holds no copy of the rate).
    gap_bytes: u32,
    /// `rate.transmit_time(gap_bytes)`.
    gap_time: Time,
    /// The jitter factor's range, [1 − jitter, 1 + jitter): its low end and width
    /// (zero: no jitter), worked out once (the values `uniform_range` would work out
    /// per frame).
    jitter_low: f64,
    jitter_width: f64,
    /// The jitter factor of the gap after the last frame sent.
    gap_factor: f64,
    rng: Rng,
    /// Bytes to deliver before the flow completes (`None`: not a finite flow); set
    /// once, with `finite`.
    size: Option<u64>,
    /// When the last byte of a finite flow arrived.
    pub completed_at: Option<Time>,
    /// Cap on the rate set by the timeline.
    pub max_rate: Option<Rate>,
    /// The source host's line rate.
    pub line_rate: Rate,
    /// Deadline of the scheduled RP timer, if any.
    pub timer_at: Option<Time>,
    /// Generation of the valid RP timer event.
    pub timer_generation: u32,
    /// When it (first) starts.
    pub start: Time,
    /// The arrival source that made this flow, if any.
    pub generator: Option<u32>,
    /// When its receiver last sent a CNP (DCQCN's notification point).
    pub last_cnp: Option<Time>,
    /// Notifications made for it and neither received nor dropped yet (early sending
    /// of a reacting flow waits while one may still reach it).
    pub notes_in_flight: u32,
    /// The reaction point that sets the rate.
    pub rp: ReactionPointKind,
}

impl Flow {
    /// A flow from its spec, not yet started.
    pub fn new(spec: &FlowSpec, rp: ReactionPointKind, line_rate: Rate, mut rng: Rng) -> Flow {
        let (remaining, size) = match &spec.kind {
            FlowKind::Finite { size } => {
                let n = size.sample(&mut rng);
                (n, Some(n))
            }
            FlowKind::OnOff { .. } | FlowKind::Poisson { .. } => (0, None),
            FlowKind::Greedy | FlowKind::Constant => (u64::MAX, None),
        };
        let rate = match spec.max_rate {
            Some(cap) => rp.rate().min(cap),
            None => rp.rate(),
        };
        let ecn_capable = rp.ecn_capable();
        let conn = if rp.wants_acks() { ACKED } else { NO_CONN };
        Flow {
            reacts: rp.reacts(),
            ahead: false,
            ecn_capable,
            last_cnp: None,
            notes_in_flight: 0,
            src: spec.src as u32,
            dst: spec.dst as u32,
            frame_bytes: spec.frame_bytes,
            priority: spec.priority,
            start: spec.start,
            remaining,
            size,
            finite: size.is_some(),
            active: false,
            rp,
            max_rate: spec.max_rate,
            rate,
            line_rate,
            last_send: Time::ZERO,
            last_bytes: 0,
            in_ring: false,
            wake_pending: false,
            wake_generation: 0,
            timer_at: None,
            timer_generation: 0,
            completed_at: None,
            counters: FlowCounters::default(),
            generator: None,
            conn,
            gap_bytes: 0,
            gap_time: rate.transmit_time(Bytes(0)),
            jitter_low: 1.0 - spec.jitter,
            jitter_width: (1.0 + spec.jitter) - (1.0 - spec.jitter),
            gap_factor: 1.0,
            rng,
        }
    }

    /// Whether its receiver acknowledges each data frame (see [`ACKED`]).
    #[inline]
    pub fn acked(&self) -> bool {
        self.conn == ACKED
    }

    /// Whether the flow has a frame to send (ignoring its rate limiter).
    #[inline]
    pub fn has_backlog(&self) -> bool {
        self.active && self.remaining != 0 && self.rate.0 != 0
    }

    /// Over a transport: whether its window lets a segment go.
    #[inline]
    pub fn set_window_open(&mut self, open: bool) {
        self.remaining = if open { u64::MAX } else { 0 };
    }

    /// Takes the next frame's size off the backlog.
    #[inline]
    pub fn take_frame(&mut self, now: Time) -> u32 {
        let bytes = if self.remaining < self.frame_bytes as u64 { self.remaining as u32 } else { self.frame_bytes };
        if self.remaining != u64::MAX {
            self.remaining -= bytes as u64;
        }
        self.sent(now, bytes);
        bytes
    }

    /// Accounts for a frame of `bytes` leaving at `now` (the limiter and counters).
    #[inline]
    pub fn sent(&mut self, now: Time, bytes: u32) {
        self.last_send = now;
        self.last_bytes = bytes;
        self.ahead = false;
        if self.jitter_width > 0.0 {
            self.gap_factor = self.jitter_low + self.jitter_width * self.rng.uniform();
        }
        self.counters.sent_frames += 1;
        self.counters.sent_bytes += bytes as u64;
    }

    /// When the rate limiter lets the next frame go: the last frame's start plus its
    /// size at the current rate.
    #[inline]
    pub fn next_allowed(&mut self) -> Time {
        if self.last_bytes == 0 {
            return Time::ZERO;
        }
        if self.last_bytes != self.gap_bytes {
            self.gap_bytes = self.last_bytes;
            self.gap_time = self.rate.transmit_time(Bytes(self.gap_bytes as u64));
        }
        let gap = self.gap_time;
        if self.jitter_width > 0.0 && gap != Time::NEVER {
            return self.last_send + gap.scaled(self.gap_factor);
        }
        self.last_send + gap
    }

    /// Re-reads the RP's rate under the cap. Returns whether it changed.
    #[inline]
    pub fn refresh_rate(&mut self) -> bool {
        let mut rate = self.rp.rate();
        if let Some(cap) = self.max_rate {
            rate = rate.min(cap);
        }
        let changed = rate != self.rate;
        if changed {
            self.rate = rate;
            self.gap_time = rate.transmit_time(Bytes(self.gap_bytes as u64));
        }
        changed
    }

    /// Bytes sent before `now`: the counter less a frame sent early (see
    /// `sim/early.rs`) whose start is not before `now`. One starting at `now` itself
    /// counts from the next sample on, as it does when its wake-up comes after the
    /// sample (the usual order when the flow sends more than once per interval).
    #[inline]
    pub fn sent_bytes_at(&self, now: Time) -> u64 {
        let ahead = if self.ahead && self.last_send >= now { self.last_bytes as u64 } else { 0 };
        self.counters.sent_bytes - ahead
    }

    /// Bytes to deliver before the flow completes (`None`: not a finite flow).
    #[inline]
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// Whether it is a finite flow (read from the line a frame reads anyway).
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.finite
    }

    /// Prefetches the three lines a frame reads (see the layout; the layout test
    /// holds one of these fields in each line).
    #[inline(always)]
    pub fn fetch(&self) {
        crate::prefetch::line_of(&self.wake_generation);
        crate::prefetch::line_of(&self.gap_time);
        crate::prefetch::line_of(&self.jitter_width);
    }

    /// Prefetches the line a sample reads (see the layout test).
    #[inline(always)]
    pub fn fetch_sampled(&self) {
        crate::prefetch::line_of(&self.active);
    }

    /// Whether a finite flow has delivered all its bytes.
    pub fn is_complete(&self) -> bool {
        matches!(self.size, Some(n) if self.counters.delivered_bytes >= n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FlowSpec;

    fn flow(jitter: f64) -> Flow {
        let spec = FlowSpec { frame_bytes: 1000, jitter, ..FlowSpec::new("f", 0, 1, FlowKind::Constant) };
        let rp = ReactionPointKind::fixed(Rate::from_gbps(10));
        let mut f = Flow::new(&spec, rp, Rate::from_gbps(10), Rng::stream(7, "f"));
        f.active = true;
        f
    }

    #[test]
    fn the_limiter_gap_follows_the_rate_and_the_frame_size() {
        let mut f = flow(0.0);
        assert_eq!(f.next_allowed(), Time::ZERO);
        f.take_frame(Time::ZERO);
        assert_eq!(f.next_allowed(), Time::from_ns(800));
        f.max_rate = Some(Rate::from_gbps(1));
        assert!(f.refresh_rate());
        assert_eq!(f.next_allowed(), Time::from_ns(8000));
        f.remaining = 64;
        f.take_frame(Time::from_us(10));
        assert_eq!(f.next_allowed(), Time::from_us(10) + Time::from_ns(512));
        f.max_rate = None;
        assert!(f.refresh_rate());
        assert_eq!(f.next_allowed(), Time::from_us(10) + Time::from_ps(51_200));
    }

    #[test]
    fn each_gap_takes_the_next_draw_of_the_flows_own_stream() {
        let mut f = flow(0.2);
        let mut stream = Rng::stream(7, "f");
        for k in 0..5u64 {
            let now = Time::from_us(10 * k);
            f.take_frame(now);
            let factor = (1.0 - 0.2) + ((1.0 + 0.2) - (1.0 - 0.2)) * stream.uniform();
            assert_eq!(f.next_allowed(), now + Time::from_ns(800).scaled(factor), "frame {k}");
        }
    }

    #[test]
    fn a_frame_reads_three_cache_lines_of_its_flow() {
        use std::mem::offset_of;
        assert_eq!(std::mem::align_of::<Flow>(), 64);
        let ends = [
            offset_of!(Flow, finite) + 1,
            offset_of!(Flow, last_send) + 8,
            offset_of!(Flow, counters) + std::mem::size_of::<FlowCounters>(),
            offset_of!(Flow, gap_time) + 8,
            offset_of!(Flow, gap_factor) + 8,
            offset_of!(Flow, rng) + std::mem::size_of::<Rng>(),
        ];
        assert!(ends.iter().all(|&end| end <= 192), "{ends:?}");
        // `fetch` asks for each of the three lines.
        let fetched = [offset_of!(Flow, wake_generation), offset_of!(Flow, gap_time), offset_of!(Flow, jitter_width)];
        assert_eq!(fetched.map(|offset| offset / 64), [0, 1, 2]);
        // A sample reads the first line alone: whether the flow sends, its rate, its
        // last frame (sent early or not) and the bytes sent and delivered.
        let sampled = [
            offset_of!(Flow, active) + 1,
            offset_of!(Flow, ahead) + 1,
            offset_of!(Flow, last_bytes) + 4,
            offset_of!(Flow, remaining) + 8,
            offset_of!(Flow, rate) + 8,
            offset_of!(Flow, last_send) + 8,
            offset_of!(Flow, counters) + offset_of!(FlowCounters, sent_bytes) + 8,
            offset_of!(Flow, counters) + offset_of!(FlowCounters, delivered_bytes) + 8,
        ];
        assert!(sampled.iter().all(|&end| end <= 64), "{sampled:?}");
    }
}
