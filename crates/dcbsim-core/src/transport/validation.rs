//! Congestion window validation: the window grows on an ACK only while the flow uses
//! it.
//!
//! Linux's rule (`tcp_cwnd_validate` and `tcp_is_cwnd_limited`, net/ipv4/tcp_output.c
//! and include/net/tcp.h; the motivation is RFC 7661's "congestion window validation"):
//! at each chance to send, the sender notes whether the congestion window was what
//! held it back, and the most it had in flight; the note is kept for one window of
//! data (until everything sent at the time of the note is acknowledged), a later chance
//! in the same window only strengthening it. An ACK may grow cwnd if the flow was
//! cwnd-limited in that window, or, in slow start, while cwnd is below twice the most
//! it had in flight. A flow held back by the receive window or by its application
//! keeps the window it has used.
//!
//! Chances to send are counted without the NIC: a segment the windows allow is in
//! flight from that moment, as a real stack's queued segments are, whatever the NIC's
//! pace.

/// One sender's record of how much of its window it used.
#[derive(Clone, Copy, Debug, Default)]
pub struct CwndUsage {
    limited: bool,
    max_flight: u32,
    until: u32,
}

impl CwndUsage {
    /// A chance to send: `flight` segments outstanding, `cwnd` the congestion window,
    /// `sendable` the segments the application and the receive window would let be
    /// outstanding, `snd_una` the first unacknowledged segment. As Linux, nothing is
    /// noted when nothing would leave and cwnd does not hold the flow back.
    #[inline]
    pub fn note(&mut self, snd_una: u32, flight: u32, cwnd: u32, sendable: u32) {
        let limited = sendable >= cwnd;
        let after = flight.max(sendable.min(cwnd));
        if after == flight && !limited {
            return;
        }
        if snd_una >= self.until || limited || (!self.limited && after > self.max_flight) {
            self.limited = limited;
            self.max_flight = after;
            self.until = snd_una.saturating_add(after);
        }
    }

    /// Whether an ACK may grow a window of `cwnd` segments (`slow_start`: cwnd is
    /// below ssthresh).
    #[inline]
    pub fn allows_growth(&self, cwnd: f64, slow_start: bool) -> bool {
        self.limited || (slow_start && cwnd < 2.0 * self.max_flight as f64)
    }
}
