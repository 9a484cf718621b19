//! The sending side of TCP NewReno and DCTCP, counted in segments.
//!
//! Slow start and congestion avoidance (RFC 5681), fast retransmit and NewReno fast
//! recovery with partial ACKs (RFC 6582), the retransmission timer (RFC 6298: SRTT,
//! RTTVAR, RTO_min, exponential back-off, Karn's rule with one timed segment at a
//! time), and DCTCP's reaction to ECN-Echo (α EWMA once per window, cwnd ← cwnd·(1 − α/2)
//! at most once per window). The window grows only while the flow uses it
//! ([`CwndUsage`], Linux's congestion window validation).

use super::TcpParams;
use super::validation::CwndUsage;
use crate::units::Time;

/// Unlimited: the application always has more to send.
pub const UNLIMITED: u32 = u32::MAX;

/// One connection's sender.
#[derive(Clone, Debug)]
pub struct TcpSender {
    mss: u32,
    unit_segments: u32,
    unit_last_bytes: u32,
    total: u32,
    snd_una: u32,
    snd_nxt: u32,
    max_sent: u32,
    recover: u32,
    cwnd: f64,
    ssthresh: f64,
    rwnd: u32,
    dupacks: u32,
    dupack_threshold: u32,
    in_recovery: bool,
    retransmit: Option<u32>,
    timing: Option<(u32, Time)>,
    srtt: Option<Time>,
    rttvar: Time,
    base_rto: Time,
    rto: Time,
    rto_min: Time,
    rto_max: Time,
    rto_at: Option<Time>,
    dctcp: bool,
    g: f64,
    alpha: f64,
    window_end: u32,
    window_acked: u32,
    window_marked: u32,
    cwr_end: u32,
    usage: CwndUsage,
    initial_window: f64,
    restart_after_idle: bool,
    dctcp_min_cwnd: f64,
    last_sent: Time,
    /// Segments sent again (fast retransmits, partial-ACK retransmits, go-back-N after
    /// a timeout).
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
}

impl TcpSender {
    /// A sender of `mss`-byte segments, limited by a receive window of `rwnd`
    /// segments, whose application hands over units of `unit_bytes` (`None`: an
    /// endless stream); `dctcp` turns on DCTCP's reaction to ECN-Echo. Nothing is
    /// offered until [`TcpSender::offer`] is called.
    pub fn new(params: &TcpParams, mss: u32, rwnd: u32, unit_bytes: Option<u64>, dctcp: bool) -> TcpSender {
        let mss = mss.max(1);
        let (unit_segments, unit_last_bytes) = match unit_bytes {
            Some(b) => {
                let n = b.div_ceil(mss as u64).clamp(1, (UNLIMITED - 1) as u64);
                (n as u32, (b - (n - 1) * mss as u64).min(mss as u64) as u32)
            }
            None => (UNLIMITED, mss),
        };
        TcpSender {
            mss,
            unit_segments,
            unit_last_bytes,
            total: 0,
            snd_una: 0,
            snd_nxt: 0,
            max_sent: 0,
            recover: 0,
            cwnd: params.initial_window as f64,
            ssthresh: f64::INFINITY,
            rwnd: rwnd.max(2),
            dupacks: 0,
            dupack_threshold: params.dupack_threshold,
            in_recovery: false,
            retransmit: None,
            timing: None,
            srtt: None,
            rttvar: Time::ZERO,
            base_rto: params.rto_initial.max(params.rto_min),
            rto: params.rto_initial.max(params.rto_min),
            rto_min: params.rto_min,
            rto_max: params.rto_max,
            rto_at: None,
            dctcp,
            g: params.g,
            alpha: 1.0,
            window_end: 0,
            window_acked: 0,
            window_marked: 0,
            cwr_end: 0,
            usage: CwndUsage::default(),
            initial_window: params.initial_window as f64,
            restart_after_idle: params.restart_after_idle,
            dctcp_min_cwnd: params.dctcp_min_cwnd,
            last_sent: Time::ZERO,
            retransmits: 0,
            timeouts: 0,
        }
    }

    /// The application hands over `units` more units (an endless stream ignores it
    /// after the first call).
    pub fn offer(&mut self, units: u32) {
        if self.unit_segments == UNLIMITED {
            self.total = UNLIMITED;
        } else {
            let more = (self.unit_segments as u64 * units as u64).min((UNLIMITED - 1) as u64) as u32;
            self.total = self.total.saturating_add(more).min(UNLIMITED - 1);
        }
        self.note_usage();
    }

    /// A chance to send: notes whether the congestion window holds the flow back
    /// (rather than the receive window or the application) and how much it puts in
    /// flight.
    #[inline]
    fn note_usage(&mut self) {
        let flight = self.snd_nxt - self.snd_una;
        let sendable = self.total.min(self.snd_una.saturating_add(self.rwnd)).saturating_sub(self.snd_una);
        self.usage.note(self.snd_una, flight, (self.cwnd as u32).max(1), sendable);
    }

    /// Size on the wire of segment `seq`.
    #[inline]
    pub fn segment_bytes(&self, seq: u32) -> u32 {
        if self.unit_segments != UNLIMITED && (seq + 1) % self.unit_segments == 0 { self.unit_last_bytes } else { self.mss }
    }

    /// The usable window, segments: the congestion window under the receive window.
    #[inline]
    fn window(&self) -> u32 {
        (self.cwnd as u32).clamp(1, self.rwnd)
    }

    /// Whether a segment may be sent now (a retransmission, or new data the windows
    /// allow).
    #[inline]
    pub fn can_send(&self) -> bool {
        self.retransmit.is_some() || (self.snd_nxt < self.total && self.snd_nxt - self.snd_una < self.window())
    }

    /// Takes the next segment to send at `now` and returns its sequence number.
    /// Call only when [`TcpSender::can_send`].
    #[inline]
    pub fn next_segment(&mut self, now: Time) -> u32 {
        self.restart_if_idle(now);
        self.last_sent = now;
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rto);
        }
        if let Some(seq) = self.retransmit.take() {
            self.retransmits += 1;
            self.timing = None;
            return seq;
        }
        let seq = self.snd_nxt;
        self.snd_nxt += 1;
        if seq < self.max_sent {
            self.retransmits += 1;
            self.timing = None;
        } else {
            self.max_sent = seq + 1;
            if self.timing.is_none() {
                self.timing = Some((seq, now));
            }
        }
        seq
    }

    /// RFC 5681 §4.1: a sender with nothing outstanding that has sent nothing for
    /// longer than its RTO no longer knows the path's state, so it starts again from
    /// the restart window min(IW, cwnd).
    #[inline]
    fn restart_if_idle(&mut self, now: Time) {
        if self.restart_after_idle && self.snd_nxt == self.snd_una && self.max_sent > 0 && now - self.last_sent > self.rto {
            self.cwnd = self.cwnd.min(self.initial_window);
        }
    }

    /// A cumulative ACK arrives: every segment before `next` has been received;
    /// `ece` is its ECN-Echo flag.
    pub fn on_ack(&mut self, now: Time, next: u32, ece: bool) {
        let next = next.min(self.max_sent);
        if next > self.snd_una {
            self.on_new_ack(now, next, ece);
        } else if next == self.snd_una && self.snd_nxt > self.snd_una {
            self.on_duplicate_ack();
        }
        self.note_usage();
    }

    fn on_new_ack(&mut self, now: Time, next: u32, ece: bool) {
        let newly = next - self.snd_una;
        if let Some((_, sent)) = self.timing.filter(|&(seq, _)| next > seq) {
            self.rtt_sample(now - sent);
            self.timing = None;
        }
        self.snd_una = next;
        self.snd_nxt = self.snd_nxt.max(next);
        self.rto = self.base_rto;
        if self.in_recovery {
            if next >= self.recover {
                self.in_recovery = false;
                self.cwnd = self.ssthresh;
                self.dupacks = 0;
            } else {
                // Partial ACK: retransmit the next hole, deflate by what was acked,
                // add back one segment, restart the timer.
                self.retransmit = Some(next);
                self.cwnd = (self.cwnd - newly as f64 + 1.0).max(1.0);
                self.rto_at = Some(now + self.rto);
            }
        } else {
            self.dupacks = 0;
            let slow_start = self.cwnd < self.ssthresh;
            if !self.usage.allows_growth(self.cwnd, slow_start) {
                // Held back by the receive window or the application: no growth.
            } else if slow_start {
                self.cwnd += 1.0;
            } else {
                self.cwnd += newly as f64 / self.cwnd;
            }
        }
        if self.dctcp {
            self.dctcp_ack(newly, ece);
        }
        if !self.in_recovery || next >= self.recover {
            let outstanding = self.snd_una < self.snd_nxt || self.retransmit.is_some();
            self.rto_at = outstanding.then_some(now + self.rto);
        }
    }

    fn on_duplicate_ack(&mut self) {
        self.dupacks += 1;
        if self.in_recovery {
            self.cwnd += 1.0;
        } else if self.dupacks == self.dupack_threshold && self.snd_una >= self.recover {
            self.ssthresh = self.half_flight();
            self.recover = self.max_sent;
            self.retransmit = Some(self.snd_una);
            self.cwnd = self.ssthresh + self.dupack_threshold as f64;
            self.in_recovery = true;
        }
    }

    /// Half the data in flight, at least two segments (RFC 5681 eq. 4).
    fn half_flight(&self) -> f64 {
        ((self.snd_nxt - self.snd_una) as f64 / 2.0).max(2.0)
    }

    /// DCTCP: count acked and marked segments; at the end of each window update α;
    /// on ECN-Echo cut the window at most once per window.
    fn dctcp_ack(&mut self, newly: u32, ece: bool) {
        self.window_acked += newly;
        if ece {
            self.window_marked += newly;
        }
        if self.snd_una > self.window_end {
            let fraction = self.window_marked as f64 / self.window_acked.max(1) as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * fraction;
            self.window_acked = 0;
            self.window_marked = 0;
            self.window_end = self.snd_nxt;
        }
        if ece && !self.in_recovery && self.snd_una > self.cwr_end {
            self.cwnd = (self.cwnd * (1.0 - self.alpha / 2.0)).max(self.dctcp_min_cwnd);
            self.ssthresh = self.cwnd.max(2.0);
            self.cwr_end = self.snd_nxt;
        }
    }

    /// RFC 6298 §2: the first sample sets SRTT = R and RTTVAR = R/2; later ones
    /// RTTVAR ← ¾RTTVAR + ¼|SRTT − R|, SRTT ← ⅞SRTT + ⅛R; RTO = SRTT + 4·RTTVAR within
    /// [RTO_min, RTO_max]. The clock is exact, so the granularity G is zero.
    fn rtt_sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
            }
            Some(s) => {
                let diff = s.0.abs_diff(r.0);
                self.rttvar = Time((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Time((7 * s.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.expect("set above");
        let rto = Time(srtt.0 + 4 * self.rttvar.0);
        self.base_rto = rto.max(self.rto_min).min(self.rto_max);
        self.rto = self.base_rto;
    }

    /// When the retransmission timer expires, if it runs.
    #[inline]
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_at
    }

    /// The retransmission timer expired: back off, collapse the window to one
    /// segment and go back to the first unacknowledged one.
    pub fn on_timeout(&mut self) {
        self.timeouts += 1;
        self.ssthresh = self.half_flight();
        self.cwnd = 1.0;
        self.recover = self.max_sent;
        self.snd_nxt = self.snd_una;
        self.retransmit = None;
        self.in_recovery = false;
        self.dupacks = 0;
        self.timing = None;
        self.rto = Time(self.rto.0.saturating_mul(2)).min(self.rto_max);
        self.rto_at = None;
        self.note_usage();
    }

    /// Whether every segment offered so far has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.total
    }

    /// The congestion window, segments.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// The slow-start threshold, segments.
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    /// DCTCP's estimate α of the fraction of marked segments.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The current retransmission timeout (backed off).
    pub fn rto(&self) -> Time {
        self.rto
    }

    /// The smoothed RTT, once sampled.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// First unacknowledged segment.
    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }

    /// Next new segment to send.
    pub fn snd_nxt(&self) -> u32 {
        self.snd_nxt
    }

    /// Whether the sender is in fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Segments offered by the application so far.
    pub fn total(&self) -> u32 {
        self.total
    }
}
