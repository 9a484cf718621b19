//! Priority-based flow control (IEEE 802.1Qbb): the state one link direction keeps.
//!
//! A [`Pfc`] lives on each egress port `p` (from node A to node B) and holds both
//! halves of PFC for that link direction:
//!
//! - the **receiving side** at B: bytes that arrived over `p` on each lossless
//!   priority and still wait in B's egress queues (ingress accounting). Above
//!   [`Pfc::xoff`] B sends a PAUSE (XOFF) for that priority back to A on the
//!   reverse port; at or below [`Pfc::xon`] it sends a RESUME (quanta 0);
//! - the **transmitting side** at A: per priority, the time until which `p` may not
//!   start a frame of that priority (the pause timer), and the counters.
//!
//! Pause time is counted in quanta of 512 bit times at the link's rate.

use crate::units::{Rate, Time};

/// Size of a PFC frame on the wire (a minimum-size MAC control frame).
pub const PAUSE_FRAME_BYTES: u32 = 64;
pub use crate::spec::MAX_QUANTA;

/// Generations of refresh events stay below this bit, which marks them.
pub const REFRESH: u32 = 1 << 31;

/// The bits of a refresh generation.
pub const REFRESH_MASK: u32 = REFRESH - 1;

/// No ingress port: a frame produced at the node itself, or one not accounted.
pub const NO_INGRESS: u32 = u32::MAX;

/// The time `quanta` pause quanta (512 bit times each) last at `rate`.
pub fn quanta_time(quanta: u16, rate: Rate) -> Time {
    let bits = quanta as u128 * 512;
    Time((bits * 1_000_000_000_000 / rate.0.max(1) as u128) as u64)
}

/// The headroom a lossless priority needs above X_off so that no frame is lost: the
/// bytes the upstream port may still send after the queue crosses X_off (802.1Qbb
/// Annex N's delay budget with zero interface and higher-layer delays, which the
/// simulated MACs do not have):
///
/// `H = 2·C·D/8 + 3·MTU + 64`
///
/// one MTU the receiver may be serializing before its PAUSE can start, the 64-byte
/// PAUSE itself, the propagation delay `D` both ways at capacity `C`, the frame the
/// upstream transmitter has started when the PAUSE arrives, and the frame that
/// crossed X_off.
pub fn headroom(rate: Rate, delay: Time, mtu: u32) -> u64 {
    let in_flight = (2 * rate.0 as u128 * delay.0 as u128).div_ceil(8 * 1_000_000_000_000) as u64;
    in_flight + 3 * mtu as u64 + PAUSE_FRAME_BYTES as u64
}

/// What ingress accounting decides about an arriving lossless frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ingress {
    /// Accounted; nothing to send.
    Accepted,
    /// Accounted; an XOFF must go upstream.
    Xoff,
    /// The headroom is exhausted: the frame is lost.
    Lost,
}

/// PFC on one link direction (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Pfc {
    /// Priorities (bit q for priority q) that are lossless on this link.
    pub lossless: u8,
    /// Ingress bytes above which the receiver pauses a priority.
    pub xoff: u64,
    /// Ingress bytes at or below which it resumes it.
    pub xon: u64,
    /// Bytes above `xoff` the receiver keeps for frames in flight.
    pub headroom: u64,
    /// Pause quanta each XOFF asks for.
    pub quanta: u16,
    /// Receiving side: bytes per priority that arrived over this link and wait at the
    /// receiver.
    pub rx_bytes: [u64; 8],
    /// Receiving side: priorities the receiver has paused (XOFF sent, no XON yet).
    pub xoff_active: u8,
    /// Receiving side: per paused priority, the ingress bytes when it paused; the
    /// headroom counts from there (X_off itself when static; under the dynamic
    /// threshold X_off may fall below it while the pause holds).
    pub paused_at: [u64; 8],
    /// Receiving side: when each active XOFF is refreshed if frames still arrive.
    pub refresh_at: [Time; 8],
    /// Receiving side: stale refresh events (an older generation) are ignored.
    pub refresh_generation: u32,
    /// Receiving side: frames lost because the headroom was exhausted (a
    /// misconfiguration; zero with the default headroom).
    pub headroom_drops: u64,
    /// Transmitting side: priorities whose pause timer runs.
    pub paused: u8,
    /// Transmitting side: when each priority's pause ends.
    pub paused_until: [Time; 8],
    /// Transmitting side: total time each priority was paused, ps.
    pub paused_ps: [u64; 8],
    /// Stale resume events (an older generation) are ignored.
    pub generation: u32,
    /// PAUSE frames received per priority (they paused or resumed this port).
    pub pause_rx: [u64; 8],
    /// PAUSE frames sent per priority on this port (to the peer).
    pub pause_tx: [u64; 8],
    /// Priorities waiting for an XOFF to be sent on this port.
    pub tx_xoff: u8,
    /// Priorities waiting for an XON to be sent on this port.
    pub tx_xon: u8,
}

impl Pfc {
    /// PFC off: nothing lossless, nothing paused, nothing counted.
    pub const INERT: Pfc = Pfc {
        lossless: 0,
        xoff: 0,
        xon: 0,
        headroom: 0,
        quanta: 0,
        rx_bytes: [0; 8],
        xoff_active: 0,
        paused_at: [0; 8],
        refresh_at: [Time::ZERO; 8],
        refresh_generation: 0,
        headroom_drops: 0,
        paused: 0,
        paused_until: [Time::ZERO; 8],
        paused_ps: [0; 8],
        generation: 0,
        pause_rx: [0; 8],
        pause_tx: [0; 8],
        tx_xoff: 0,
        tx_xon: 0,
    };

    /// Whether priority `q` is paused at this transmitter.
    #[inline(always)]
    pub fn is_paused(&self, q: u8) -> bool {
        self.paused & (1 << (q & 7)) != 0
    }

    /// Whether a PAUSE frame waits to be sent on this port.
    #[inline(always)]
    pub fn has_pending(&self) -> bool {
        (self.tx_xoff | self.tx_xon) != 0
    }

    /// Takes the next PAUSE frame to send: `(priority mask, quanta)`, XOFFs first.
    pub fn take_pending(&mut self) -> Option<(u8, u16)> {
        let (mask, quanta) = if self.tx_xoff != 0 {
            (std::mem::take(&mut self.tx_xoff), self.quanta)
        } else if self.tx_xon != 0 {
            (std::mem::take(&mut self.tx_xon), 0)
        } else {
            return None;
        };
        for q in 0..8 {
            if mask & (1 << q) != 0 {
                self.pause_tx[q] += 1;
            }
        }
        Some((mask, quanta))
    }

    /// Receiving side: `bytes` of priority `q` arrive.
    pub fn on_ingress(&mut self, now: Time, q: u8, bytes: u32, rate: Rate) -> Ingress {
        let q = (q & 7) as usize;
        let (before, bit) = (self.rx_bytes[q], 1 << q);
        let after = before + bytes as u64;
        let fresh = self.xoff_active & bit == 0;
        let level = if fresh { self.xoff.max(before) } else { self.paused_at[q] };
        if after > level + self.headroom {
            self.headroom_drops += 1;
            return Ingress::Lost;
        }
        self.rx_bytes[q] = after;
        if after <= self.xoff {
            return Ingress::Accepted;
        }
        if fresh {
            self.paused_at[q] = level;
        }
        if fresh || now >= self.refresh_at[q] {
            self.xoff_active |= bit;
            self.refresh_at[q] = now + Time(quanta_time(self.quanta, rate).0 / 2);
            return Ingress::Xoff;
        }
        Ingress::Accepted
    }

    /// Receiving side: the priorities whose XOFF must be sent again at `now` (the
    /// pause is still needed and its refresh time has come).
    pub fn due_refresh(&self, now: Time) -> u8 {
        (0..8).filter(|&q| self.xoff_active & (1 << q) != 0 && now >= self.refresh_at[q]).fold(0, |m, q| m | (1 << q))
    }

    /// Receiving side: an XOFF for `mask` went out at `now`, pausing for `pause`;
    /// it is refreshed `lead` before it runs out (but no sooner than halfway), so
    /// that the next XOFF reaches the upstream port in time. Returns the refresh time.
    pub fn xoff_sent(&mut self, now: Time, mask: u8, pause: Time, lead: Time) -> Time {
        let at = now + pause.saturating_sub(lead).max(Time(pause.0 / 2));
        for q in 0..8 {
            if mask & (1 << q) != 0 {
                self.refresh_at[q] = at;
            }
        }
        self.refresh_generation = self.refresh_generation.wrapping_add(1) & REFRESH_MASK;
        at
    }

    /// Receiving side: `bytes` of priority `q` left the receiver; returns whether an
    /// XON must be sent.
    pub fn on_egress(&mut self, q: u8, bytes: u32) -> bool {
        let q = (q & 7) as usize;
        self.rx_bytes[q] -= bytes as u64;
        let bit = 1 << q;
        if self.xoff_active & bit != 0 && self.rx_bytes[q] <= self.xon {
            self.xoff_active &= !bit;
            return true;
        }
        false
    }

    /// Transmitting side: a PAUSE frame for `mask` with `quanta` arrives at `now`.
    /// Returns the earliest pause end still ahead, if any priority stays paused.
    pub fn on_pause(&mut self, now: Time, mask: u8, quanta: u16, rate: Rate) -> Option<Time> {
        let until = now + quanta_time(quanta, rate);
        for q in 0..8 {
            if mask & (1 << q) == 0 {
                continue;
            }
            self.pause_rx[q] += 1;
            let old = self.paused_until[q].max(now);
            if until >= old {
                self.paused_ps[q] += (until - old).0;
            } else {
                self.paused_ps[q] -= (old - until).0;
            }
            self.paused_until[q] = until;
        }
        self.generation = self.generation.wrapping_add(1);
        self.expire(now)
    }

    /// Clears the priorities whose pause has ended by `now`; returns the earliest end
    /// still ahead.
    pub fn expire(&mut self, now: Time) -> Option<Time> {
        self.paused = 0;
        let mut next: Option<Time> = None;
        for q in 0..8 {
            if self.paused_until[q] > now {
                self.paused |= 1 << q;
                next = Some(next.map_or(self.paused_until[q], |t| t.min(self.paused_until[q])));
            }
        }
        next
    }

    /// Paused time of priority `q` within a run that ended at `end`.
    pub fn paused_time(&self, q: usize, end: Time) -> Time {
        Time(self.paused_ps[q] - self.paused_until[q].saturating_sub(end).0.min(self.paused_ps[q]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pfc() -> Pfc {
        Pfc { lossless: 1 << 3, xoff: 10_000, xon: 5_000, headroom: 6_000, quanta: MAX_QUANTA, ..Pfc::default() }
    }

    #[test]
    fn a_quantum_is_512_bit_times() {
        assert_eq!(quanta_time(1, Rate::from_gbps(10)), Time::from_ns(51) + Time(200));
        assert_eq!(quanta_time(MAX_QUANTA, Rate::from_gbps(40)), Time(65_535 * 12_800));
    }

    #[test]
    fn headroom_counts_the_round_trip_and_three_frames() {
        // 10 Gb/s, 1 µs: 1250 B each way.
        assert_eq!(headroom(Rate::from_gbps(10), Time::from_us(1), 1500), 2500 + 4500 + 64);
    }

    #[test]
    fn xoff_above_the_threshold_and_xon_at_or_below_the_lower_one() {
        let mut p = pfc();
        let r = Rate::from_gbps(10);
        // 10 frames of 1000 B reach X_off exactly: no pause yet.
        for _ in 0..10 {
            assert_eq!(p.on_ingress(Time::ZERO, 3, 1000, r), Ingress::Accepted);
        }
        // The eleventh crosses it: XOFF, once.
        assert_eq!(p.on_ingress(Time::ZERO, 3, 1000, r), Ingress::Xoff);
        assert_eq!(p.on_ingress(Time::ZERO, 3, 1000, r), Ingress::Accepted);
        // Draining to 6000 (above X_on): still paused; to 5000: XON, once.
        for _ in 0..6 {
            assert!(!p.on_egress(3, 1000));
        }
        assert!(p.on_egress(3, 1000));
        assert!(!p.on_egress(3, 1000));
        // Between X_on and X_off again: no new XOFF until X_off is crossed.
        for _ in 0..6 {
            assert_eq!(p.on_ingress(Time::ZERO, 3, 1000, r), Ingress::Accepted);
        }
        assert_eq!(p.on_ingress(Time::ZERO, 3, 1000, r), Ingress::Xoff);
    }

    #[test]
    fn an_active_xoff_is_refreshed_after_half_its_pause() {
        let mut p = pfc();
        let r = Rate::from_gbps(10);
        p.rx_bytes[3] = 10_000;
        assert_eq!(p.on_ingress(Time::ZERO, 3, 100, r), Ingress::Xoff);
        let half = Time(quanta_time(MAX_QUANTA, r).0 / 2);
        assert_eq!(p.on_ingress(half - Time(1), 3, 100, r), Ingress::Accepted);
        assert_eq!(p.on_ingress(half, 3, 100, r), Ingress::Xoff);
    }

    #[test]
    fn beyond_the_headroom_a_frame_is_lost() {
        let mut p = pfc();
        let r = Rate::from_gbps(10);
        p.rx_bytes[3] = 9_999;
        assert_eq!(p.on_ingress(Time::ZERO, 3, 2, r), Ingress::Xoff);
        p.rx_bytes[3] = 16_000;
        assert_eq!(p.on_ingress(Time::ZERO, 3, 1, r), Ingress::Lost);
        assert_eq!(p.headroom_drops, 1);
    }

    #[test]
    fn the_headroom_counts_from_where_the_pause_began() {
        // Under the dynamic threshold X_off may fall while a pause holds: the frames
        // in flight still fit in the headroom above the level that paused.
        let mut p = pfc();
        let r = Rate::from_gbps(10);
        p.rx_bytes[3] = 10_000;
        assert_eq!(p.on_ingress(Time::ZERO, 3, 1_000, r), Ingress::Xoff);
        p.xoff = 2_000;
        assert_eq!(p.on_ingress(Time(1), 3, 4_000, r), Ingress::Accepted);
        assert_eq!(p.on_ingress(Time(2), 3, 1_001, r), Ingress::Lost);
        // A priority not yet paused whose bytes already pass a lowered X_off pauses now,
        // and its frame goes into the headroom.
        let mut p = pfc();
        p.rx_bytes[3] = 12_000;
        assert_eq!(p.on_ingress(Time::ZERO, 3, 1_500, r), Ingress::Xoff);
        assert_eq!(p.paused_at[3], 12_000);
    }

    #[test]
    fn the_pause_timer_and_xon_bound_the_paused_time() {
        let mut p = pfc();
        let r = Rate::from_gbps(10);
        let until = p.on_pause(Time::ZERO, 1 << 3, 100, r).unwrap();
        assert_eq!(until, quanta_time(100, r));
        assert!(p.is_paused(3) && !p.is_paused(2));
        // An XON halfway cuts the pause short.
        let half = Time(until.0 / 2);
        assert_eq!(p.on_pause(half, 1 << 3, 0, r), None);
        assert!(!p.is_paused(3));
        assert_eq!(p.paused_time(3, Time::from_ms(1)), half);
        // A pause running past the end of the run counts only up to the end.
        p.on_pause(Time::from_us(10), 1 << 3, MAX_QUANTA, r);
        assert_eq!(p.paused_time(3, Time::from_us(20)), half + Time::from_us(10));
    }

    #[test]
    fn pending_xoffs_go_before_xons_and_are_counted() {
        let mut p = pfc();
        p.tx_xon = 1 << 2;
        p.tx_xoff = 1 << 3;
        assert_eq!(p.take_pending(), Some((1 << 3, MAX_QUANTA)));
        assert_eq!(p.take_pending(), Some((1 << 2, 0)));
        assert_eq!(p.take_pending(), None);
        assert_eq!((p.pause_tx[3], p.pause_tx[2]), (1, 1));
    }
}
