//! SMCC: sliding-mode congestion control (SMCC paper §4–5).
//!
//! The congestion point samples each arriving frame with a fixed probability and sends
//! every sample's `(Qoff, Qδ)` to the sampled source, whatever the signs. The reaction
//! point moves its rate by `−a·Qoff` when `Qoff` and `Qδ` have the same sign (State A)
//! and by `−b·Qδ` otherwise (State B), with `a` and `b` set so that no change exceeds
//! `R_a` and `R_b`, and accepts increases only from the congestion point that last
//! caused a decrease with its queue above q0 (as BCN, whose negative feedback names the
//! congested point).

use super::{Arrival, CongestionPoint, CpInit, CpidRule, Feedback, Notify, ReactionPoint, RpInit, Scheme};
use crate::param::Range::{Any, Fraction, Positive};
use crate::param::{Param, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// Parameters of SMCC. Rates are given at 1 Gb/s and scale with the source's line
/// rate unless set explicitly.
#[derive(Clone, Debug, PartialEq)]
pub struct SmccParams {
    /// Target queue `q0`, bytes.
    pub q0: u64,
    /// Buffer `B`, bytes: the largest queue offset is `max(q0, B − q0)` and the largest
    /// queue change between two samples is `B`.
    pub buffer: u64,
    /// The largest `|Qδ|` that `b` is scaled to (`None`: the buffer `B`), bytes.
    pub delta_span: Option<u64>,
    /// How a zero `Qδ` or `Qoff` picks the state (default: toward q0, our choice).
    pub zero_rule: ZeroRule,
    /// Per-frame sampling probability (or, counting, one frame in `1/p`).
    pub p: f64,
    /// How frames are picked for samples (default: each with probability `p`).
    pub sampling: SmccSampling,
    /// Largest change per feedback in State A (`R_a`); `None`: 256 Mb/s per Gb/s.
    pub r_a: Option<Rate>,
    /// Largest change per feedback in State B (`R_b`); `None`: 64 Mb/s per Gb/s.
    pub r_b: Option<Rate>,
    /// Two-stage `a`: `R_large` when `|Qδ| > T1`, else `R_small`.
    pub two_stage: bool,
    /// `R_large`; `None`: 256 Mb/s per Gb/s.
    pub r_large: Option<Rate>,
    /// `R_small`; `None`: 128 Mb/s per Gb/s.
    pub r_small: Option<Rate>,
    /// Two-stage threshold `T1`, bytes.
    pub t1: u64,
    /// Two-stage test on `Qδ > T1` (§5.3.3's wording) instead of `|Qδ| > T1` (§4.4, the
    /// default).
    pub t1_signed: bool,
    /// Minimum rate.
    pub r_min: Rate,
    /// Keep the cuts that fall below `R_min` (a source then sends at `R_min` while its
    /// rate variable stays below, and rises must first repay them). Off by default: the
    /// paper's reaction point remembers nothing but its rate (§4.2, §5.1).
    pub floor_memory: bool,
    /// Which decreases name the congestion point whose increases the source then accepts
    /// (default: only those with the queue above q0, as BCN's negative feedback).
    pub cpid_naming: CpidNaming,
}

/// How an SMCC congestion point picks the frames it samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmccSampling {
    /// Each arriving frame with probability `p` (our first reading of §4.1's "samples
    /// the incoming packets with probability p").
    Random,
    /// Every `1/p`-th arriving frame, each interval times U(0.85, 1.15) as QCN's: the
    /// paper's CPs of QCN and SMCC are "almost the same" (§5.1) and "one feedback packet
    /// is generated until 100 packets passing switch" (§4.5).
    Periodic,
}

/// Which decreases name the congestion point (the CPID rule, §4.2: "similar to BCN").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpidNaming {
    /// Every decrease, whatever the queue, names its congestion point (an earlier choice
    /// of ours, kept to show its effect).
    AnyDecrease,
    /// Only a decrease with the queue above q0 (`Qoff > 0`) names it; a decrease below
    /// q0 (State B, the queue growing toward q0) applies without naming it.
    AboveQ0,
}

impl Default for SmccParams {
    fn default() -> Self {
        SmccParams {
            q0: 64 * 1024,
            buffer: 128 * 1024,
            delta_span: None,
            zero_rule: ZeroRule::TowardQ0,
            p: 0.01,
            sampling: SmccSampling::Random,
            r_a: None,
            r_b: None,
            two_stage: false,
            r_large: None,
            r_small: None,
            t1: 8 * 1024,
            t1_signed: false,
            r_min: Rate::from_mbps(10),
            floor_memory: false,
            cpid_naming: CpidNaming::AboveQ0,
        }
    }
}

/// Scales a rate given per Gb/s of line rate.
fn per_gbps(set: Option<Rate>, mbps_per_gbps: f64, line: Rate) -> f64 {
    set.map_or(mbps_per_gbps * 1e6 * line.as_f64() / 1e9, Rate::as_f64)
}

impl SmccParams {
    /// `max(q0, B − q0)`: the largest queue offset `|Qoff|`, bytes; `a = R_a` over it.
    pub fn offset_span(&self) -> f64 {
        self.q0.max(self.buffer.saturating_sub(self.q0)) as f64
    }

    /// The largest queue change `|Qδ|` between two samples, bytes (the buffer unless set);
    /// `b = R_b` over it.
    pub fn delta_span(&self) -> f64 {
        self.delta_span.unwrap_or(self.buffer) as f64
    }
}

impl Params for SmccParams {
    const TABLE: &'static [Param<Self>] = &[
        Param { name: "q0_kb", range: Positive, default: "64 KB", doc: "target queue `q0`", set: Setter::Bytes(|p, v| p.q0 = v) },
        Param {
            name: "buffer_kb",
            range: Positive,
            default: "128 KB",
            doc: "buffer `B`: the spans of `Qoff` and `Qδ` that `a` and `b` are scaled to",
            set: Setter::Bytes(|p, v| p.buffer = v),
        },
        Param {
            name: "delta_span_kb",
            range: Positive,
            default: "the buffer `B`",
            doc: "the largest `|Qδ|` that `b` is scaled to",
            set: Setter::Bytes(|p, v| p.delta_span = Some(v)),
        },
        Param {
            name: "zero_rule",
            range: Any,
            default: "\"toward_q0\" (our choice)",
            doc: "how a zero `Qoff` or `Qδ` picks the state",
            set: Setter::Mode(&["sign_bit", "toward_q0"], |p, i| p.zero_rule = [ZeroRule::SignBit, ZeroRule::TowardQ0][i]),
        },
        Param {
            name: "p",
            range: Fraction,
            default: "0.01",
            doc: "per-frame sampling probability (counting: one frame in 1/p)",
            set: Setter::Real(|p, v| p.p = v),
        },
        Param {
            name: "sampling",
            range: Any,
            default: "\"random\"",
            doc: "each frame with probability `p`, or every `1/p`-th frame (times U(0.85, 1.15), as QCN's CP)",
            set: Setter::Mode(&["random", "periodic"], |p, i| p.sampling = [SmccSampling::Random, SmccSampling::Periodic][i]),
        },
        Param {
            name: "r_a_mbps",
            range: Positive,
            default: "256 Mb/s per Gb/s of line rate",
            doc: "largest change per feedback in State A (`R_a`)",
            set: Setter::Rate(|p, v| p.r_a = Some(v)),
        },
        Param {
            name: "r_b_mbps",
            range: Positive,
            default: "64 Mb/s per Gb/s of line rate",
            doc: "largest change per feedback in State B (`R_b`)",
            set: Setter::Rate(|p, v| p.r_b = Some(v)),
        },
        Param {
            name: "two_stage",
            range: Any,
            default: "false",
            doc: "two-stage `a`: `R_large` when `|Qδ| > T1`, else `R_small`",
            set: Setter::Switch(|p, v| p.two_stage = v),
        },
        Param {
            name: "r_large_mbps",
            range: Positive,
            default: "256 Mb/s per Gb/s of line rate",
            doc: "`R_large`",
            set: Setter::Rate(|p, v| p.r_large = Some(v)),
        },
        Param {
            name: "r_small_mbps",
            range: Positive,
            default: "128 Mb/s per Gb/s of line rate",
            doc: "`R_small`",
            set: Setter::Rate(|p, v| p.r_small = Some(v)),
        },
        Param { name: "t1_kb", range: Positive, default: "8 KB", doc: "two-stage threshold `T1`", set: Setter::Bytes(|p, v| p.t1 = v) },
        Param {
            name: "t1_signed",
            range: Any,
            default: "false (§4.4)",
            doc: "test `Qδ > T1` (§5.3.3's wording) instead of `|Qδ| > T1`",
            set: Setter::Switch(|p, v| p.t1_signed = v),
        },
        Param {
            name: "r_min_mbps",
            range: Positive,
            default: "10 Mb/s (borrowed from QCN)",
            doc: "minimum rate",
            set: Setter::Rate(|p, v| p.r_min = v),
        },
        Param {
            name: "floor_memory",
            range: Any,
            default: "false (§4.2, §5.1)",
            doc: "keep the cuts that fall below `R_min`",
            set: Setter::Switch(|p, v| p.floor_memory = v),
        },
        Param {
            name: "cpid_naming",
            range: Any,
            default: "\"above_q0\" (as BCN)",
            doc: "which decreases name the congestion point whose increases the source then accepts",
            set: Setter::Mode(&["any_decrease", "above_q0"], |p, i| p.cpid_naming = [CpidNaming::AnyDecrease, CpidNaming::AboveQ0][i]),
        },
    ];
}

impl Scheme for SmccParams {
    type Cp = SmccCp;
    type Rp = SmccRp;
    type Params = SmccParams;
    const NAMES: &'static [&'static str] = &["smcc"];

    fn params_mut(&mut self) -> &mut SmccParams {
        self
    }
    fn congestion_point(&self, _init: CpInit, rng: Rng) -> Option<SmccCp> {
        Some(SmccCp::new(self.clone(), rng))
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> SmccRp {
        SmccRp::new(self.clone(), init.line_rate, init.initial_rate)
    }
    fn reconfigure_cp(&self, cp: &mut SmccCp) {
        let counting = self.sampling == SmccSampling::Periodic && cp.params.sampling != SmccSampling::Periodic;
        cp.params = self.clone();
        if counting {
            cp.until_sample = cp.next_interval();
        }
    }
    fn reconfigure_rp(&self, rp: &mut SmccRp) {
        rp.params = self.clone();
    }
}

/// Which side of the switching line the feedback falls on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmccState {
    /// `Qoff` and `Qδ` of the same sign: move by `−a·Qoff`.
    A,
    /// Of different signs: move by `−b·Qδ`.
    B,
}

/// How a zero `Qoff` or `Qδ` (which has no sign) picks the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZeroRule {
    /// The paper's hardware takes the XOR of the two sign bits (§5.1): zero counts as
    /// non-negative, so `Qδ = 0` is State A above q0 (a decrease) and State B below it
    /// (no change).
    SignBit,
    /// `Qδ = 0` with `Qoff ≠ 0` is State A on both sides (a move toward q0); other zeros
    /// are State B. An earlier choice of ours, kept to show its effect.
    TowardQ0,
}

/// The state chosen for a feedback pair under `rule`.
pub fn smcc_state(q_off: i32, q_delta: i32, rule: ZeroRule) -> SmccState {
    let same = match rule {
        ZeroRule::SignBit => (q_off < 0) == (q_delta < 0),
        ZeroRule::TowardQ0 => (q_off as i64) * (q_delta as i64) > 0 || (q_delta == 0 && q_off != 0),
    };
    if same { SmccState::A } else { SmccState::B }
}

/// An SMCC congestion point.
#[derive(Clone, Debug)]
pub struct SmccCp {
    params: SmccParams,
    q_old: u64,
    /// Frames left before the next sample (periodic sampling).
    until_sample: i64,
    rng: Rng,
}

impl SmccCp {
    /// A congestion point with the given parameters.
    pub fn new(params: SmccParams, rng: Rng) -> SmccCp {
        let mut cp = SmccCp { params, q_old: 0, until_sample: 0, rng };
        if cp.params.sampling == SmccSampling::Periodic {
            cp.until_sample = cp.next_interval();
        }
        cp
    }

    /// Frames to the next sample under periodic sampling: `1/p`, jittered as QCN's.
    fn next_interval(&mut self) -> i64 {
        ((1.0 / self.params.p) * self.rng.uniform_range(0.85, 1.15)).round().max(1.0) as i64
    }

    /// Whether the arriving frame is a sample.
    fn is_sample(&mut self) -> bool {
        match self.params.sampling {
            SmccSampling::Random => self.rng.chance(self.params.p),
            SmccSampling::Periodic => {
                self.until_sample -= 1;
                if self.until_sample > 0 {
                    return false;
                }
                self.until_sample = self.next_interval();
                true
            }
        }
    }
}

impl CongestionPoint for SmccCp {
    #[inline]
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        if !self.is_sample() {
            return;
        }
        let q = arrival.queue_bytes as i64;
        let q_off = (q - self.params.q0 as i64) as i32;
        let q_delta = (q - self.q_old as i64) as i32;
        self.q_old = arrival.queue_bytes;
        out.push(Notify { flow: arrival.flow, feedback: Feedback::QueueState { q_off, q_delta } });
    }
}

/// An SMCC reaction point of one flow.
#[derive(Clone, Debug)]
pub struct SmccRp {
    params: SmccParams,
    line: Rate,
    rate: f64,
    cpid: CpidRule,
}

impl SmccRp {
    /// A reaction point starting at `initial` on a NIC of rate `line`.
    pub fn new(params: SmccParams, line: Rate, initial: Rate) -> SmccRp {
        SmccRp { params, line, rate: initial.as_f64(), cpid: CpidRule::default() }
    }

    /// The rate change for a feedback pair: `−a·Qoff` in State A and `−b·Qδ` in State B,
    /// with `a = R_a / max(q0, B − q0)` and `b = R_b / B`, so that no change exceeds
    /// `R_a` or `R_b` (§5.2); a queue change beyond the span (a span set below `B`) is
    /// clipped there.
    pub fn change(&self, q_off: i32, q_delta: i32) -> f64 {
        let p = &self.params;
        let (limit, signal, span) = match smcc_state(q_off, q_delta, p.zero_rule) {
            SmccState::A => (self.r_a(q_delta), q_off, p.offset_span()),
            SmccState::B => (per_gbps(p.r_b, 64.0, self.line), q_delta, p.delta_span()),
        };
        (-(limit / span) * signal as f64).clamp(-limit, limit)
    }

    /// `R_a`, or with the two-stage option `R_large` when `|Qδ| > T1` and else `R_small`.
    fn r_a(&self, q_delta: i32) -> f64 {
        let p = &self.params;
        if !p.two_stage {
            per_gbps(p.r_a, 256.0, self.line)
        } else if (if p.t1_signed { q_delta as i64 } else { q_delta.unsigned_abs() as i64 }) > p.t1 as i64 {
            per_gbps(p.r_large, 256.0, self.line)
        } else {
            per_gbps(p.r_small, 128.0, self.line)
        }
    }
}

impl ReactionPoint for SmccRp {
    #[inline]
    fn rate(&self) -> Rate {
        Rate::from_bps_f64(self.rate.max(self.params.r_min.as_f64()))
    }

    fn timer(&self) -> Option<Time> {
        None
    }

    fn on_feedback(&mut self, _now: Time, cpid: u32, feedback: &Feedback) -> bool {
        let Feedback::QueueState { q_off, q_delta } = *feedback else { return false };
        let delta = self.change(q_off, q_delta);
        let names = !(delta < 0.0 && q_off <= 0 && self.params.cpid_naming == CpidNaming::AboveQ0);
        if names && !self.cpid.admit(cpid, delta) {
            return false;
        }
        let floor = if self.params.floor_memory { f64::NEG_INFINITY } else { self.params.r_min.as_f64() };
        self.rate = (self.rate + delta).clamp(floor, self.line.as_f64());
        delta != 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param::ParamValue;

    #[test]
    fn periodic_sampling_counts_frames_and_random_sampling_draws() {
        let arrival = Arrival { now: Time::ZERO, flow: 0, weight: 1.0, bytes: 1000, queue_bytes: 80_000, dropped: false };
        let count = |sampling| {
            let mut cp = SmccCp::new(SmccParams { sampling, p: 0.01, ..SmccParams::default() }, Rng::stream(3, "cp"));
            let mut out = Vec::new();
            let mut at = Vec::new();
            for i in 0..100_000 {
                let before = out.len();
                cp.on_arrival(&arrival, &mut out);
                if out.len() > before {
                    at.push(i);
                }
            }
            let gaps: Vec<i32> = at.windows(2).map(|w| w[1] - w[0]).collect();
            (out.len(), gaps)
        };
        let (n, gaps) = count(SmccSampling::Periodic);
        assert!((900..=1100).contains(&n), "about one sample in 100 frames: {n}");
        assert!(gaps.iter().all(|&g| (85..=115).contains(&g)), "every gap within 100 ± 15 frames");
        let (n, gaps) = count(SmccSampling::Random);
        assert!((850..=1150).contains(&n), "{n}");
        assert!(gaps.iter().any(|&g| !(85..=115).contains(&g)), "random gaps spread wider");
    }

    const KB: i32 = 1024;

    fn rp(params: SmccParams) -> SmccRp {
        SmccRp::new(params, Rate::from_gbps(1), Rate::from_mbps(500))
    }

    #[test]
    fn the_state_follows_the_sign_bits() {
        let state = |o, d| smcc_state(o, d, ZeroRule::SignBit);
        assert_eq!(state(5, 3), SmccState::A);
        assert_eq!(state(-5, -3), SmccState::A);
        assert_eq!(state(5, -3), SmccState::B);
        assert_eq!(state(-5, 3), SmccState::B);
        assert_eq!(state(5, 0), SmccState::A, "above q0 and still: zero's sign bit is +");
        assert_eq!(state(-5, 0), SmccState::B, "below q0 and still: no change");
        assert_eq!(state(0, 3), SmccState::A);
        assert_eq!(state(0, -3), SmccState::B);
        assert_eq!(state(0, 0), SmccState::A);
    }

    #[test]
    fn the_toward_q0_rule_moves_a_still_queue_on_both_sides() {
        let state = |o, d| smcc_state(o, d, ZeroRule::TowardQ0);
        assert_eq!(state(5, 3), SmccState::A);
        assert_eq!(state(-5, 3), SmccState::B);
        assert_eq!(state(5, 0), SmccState::A);
        assert_eq!(state(-5, 0), SmccState::A);
        assert_eq!(state(0, 3), SmccState::B);
        assert_eq!(state(0, 0), SmccState::B);
    }

    #[test]
    fn a_still_queue_below_q0_changes_nothing_under_the_sign_bits() {
        let r = rp(SmccParams { zero_rule: ZeroRule::SignBit, ..SmccParams::default() });
        assert_eq!(r.change(-16 * KB, 0), 0.0);
        assert!((r.change(16 * KB, 0) + 64e6).abs() < 1e-3);
        let toward = rp(SmccParams::default());
        assert!((toward.change(-16 * KB, 0) - 64e6).abs() < 1e-3);
        assert!((toward.change(16 * KB, 0) + 64e6).abs() < 1e-3);
    }

    #[test]
    fn state_a_moves_against_the_offset_and_state_b_against_the_growth() {
        let r = rp(SmccParams::default());
        // a = 256 Mb/s / max(q0, B - q0) = 256 Mb/s / 64 KB. Qoff = 16 KB, growing: -64 Mb/s.
        assert!((r.change(16 * KB, 2 * KB) + 64e6).abs() < 1e-3);
        // Below q0 and still falling: + a x 32 KB = +128 Mb/s.
        assert!((r.change(-32 * KB, -KB) - 128e6).abs() < 1e-3);
        // Above q0 but falling (State B): -b x Qdelta with b = 64 Mb/s / B = 64 Mb/s / 128 KB:
        // +4 Mb/s for 8 KB; the largest change, a full buffer's, is R_b.
        assert!((r.change(16 * KB, -8 * KB) - 4e6).abs() < 1e-3);
        assert!((r.change(KB, -128 * KB) - 64e6).abs() < 1e-3);
        let set = rp(SmccParams { delta_span: Some(64 * 1024), ..SmccParams::default() });
        assert!((set.change(16 * KB, -8 * KB) - 8e6).abs() < 1e-3);
    }

    #[test]
    fn changes_are_clipped_to_r_a_and_r_b() {
        let r = rp(SmccParams { buffer: 1024 * 1024, ..SmccParams::default() });
        // Q_span = 960 KB: an offset of 2 MB would move 2 x 256 x 2048/960 Mb/s; clipped.
        assert!((r.change(-2048 * KB, -KB) - 256e6).abs() < 1e-3);
        assert!((r.change(2048 * KB, -2048 * KB) - 64e6).abs() < 1e-3);
    }

    #[test]
    fn two_stage_a_switches_at_t1() {
        let r = rp(SmccParams { two_stage: true, ..SmccParams::default() });
        // |Qdelta| = 16 KB > T1 = 8 KB: R_large = 256; Qoff = 32 KB: -128 Mb/s.
        assert!((r.change(32 * KB, 16 * KB) + 128e6).abs() < 1e-3);
        // |Qdelta| = 4 KB <= T1: R_small = 128: -64 Mb/s.
        assert!((r.change(32 * KB, 4 * KB) + 64e6).abs() < 1e-3);
        // Below q0 and falling fast: |Qdelta| > T1 takes R_large (+128 Mb/s for 32 KB);
        // with the signed test (§5.3.3's "Qdelta > T1") R_small (+64 Mb/s).
        assert!((r.change(-32 * KB, -16 * KB) - 128e6).abs() < 1e-3);
        let signed = rp(SmccParams { two_stage: true, t1_signed: true, ..SmccParams::default() });
        assert!((signed.change(-32 * KB, -16 * KB) - 64e6).abs() < 1e-3);
        assert!((signed.change(32 * KB, 16 * KB) + 128e6).abs() < 1e-3);
    }

    #[test]
    fn increases_come_only_from_the_cp_of_the_last_decrease_and_rates_are_clamped() {
        let mut r = rp(SmccParams::default());
        let down = Feedback::QueueState { q_off: 64 * KB, q_delta: KB };
        let up = Feedback::QueueState { q_off: -64 * KB, q_delta: -KB };
        assert!(r.on_feedback(Time::ZERO, 4, &down));
        assert!((r.rate().as_f64() - 244e6).abs() < 1.0);
        assert!(!r.on_feedback(Time::ZERO, 5, &up));
        assert!(r.on_feedback(Time::ZERO, 4, &up));
        for _ in 0..10 {
            r.on_feedback(Time::ZERO, 4, &up);
        }
        assert_eq!(r.rate(), Rate::from_gbps(1));
        for _ in 0..10 {
            r.on_feedback(Time::ZERO, 4, &down);
        }
        assert_eq!(r.rate(), Rate::from_mbps(10));
    }

    #[test]
    fn the_floor_forgets_cuts_unless_it_remembers_them() {
        // From 500 Mb/s two full cuts (-256 Mb/s each) reach the floor; one rise (+128).
        let down = Feedback::QueueState { q_off: 64 * KB, q_delta: KB };
        let up = Feedback::QueueState { q_off: -32 * KB, q_delta: -KB };
        let mut forget = rp(SmccParams::default());
        let mut keep = rp(SmccParams { floor_memory: true, ..SmccParams::default() });
        for r in [&mut forget, &mut keep] {
            r.on_feedback(Time::ZERO, 4, &down);
            r.on_feedback(Time::ZERO, 4, &down);
            assert_eq!(r.rate(), Rate::from_mbps(10));
            r.on_feedback(Time::ZERO, 4, &up);
        }
        assert!((forget.rate().as_f64() - 138e6).abs() < 1.0);
        // Remembered: 500 - 512 + 128 = 116 Mb/s.
        assert!((keep.rate().as_f64() - 116e6).abs() < 1.0);
        let mut p = SmccParams::default();
        p.set("floor_memory", &ParamValue::Bool(true)).unwrap();
        assert!(p.floor_memory);
    }

    #[test]
    fn the_zero_rule_and_the_delta_span_are_settable_and_checked() {
        let mut p = SmccParams::default();
        p.set("zero_rule", &ParamValue::Text("sign_bit".into())).unwrap();
        assert_eq!(p.zero_rule, ZeroRule::SignBit);
        assert!(p.set("zero_rule", &ParamValue::Text("up".into())).unwrap_err().to_string().contains("toward_q0"));
        assert_eq!(p.delta_span(), 128.0 * 1024.0);
        p.set("delta_span_kb", &ParamValue::Number(64.0)).unwrap();
        assert_eq!(p.delta_span(), 64.0 * 1024.0);
        assert!(p.set("delta_span_kb", &ParamValue::Number(-1.0)).is_err());
    }

    #[test]
    fn a_cut_below_q0_does_not_name_its_congestion_point() {
        // As in BCN, only a congested CP (queue above q0) names itself: a small State B
        // cut from a CP whose queue grows well below q0 must not let that CP's next
        // State A rise (up to R_a) through.
        let mut r = rp(SmccParams::default());
        let congested = Feedback::QueueState { q_off: 16 * KB, q_delta: KB };
        let idle_growing = Feedback::QueueState { q_off: -63 * KB, q_delta: KB };
        let idle_falling = Feedback::QueueState { q_off: -64 * KB, q_delta: -KB };
        assert!(r.on_feedback(Time::ZERO, 4, &congested));
        let before = r.rate();
        assert!(r.on_feedback(Time::ZERO, 5, &idle_growing), "the cut still applies");
        assert!(r.rate() < before);
        assert!(!r.on_feedback(Time::ZERO, 5, &idle_falling), "CP 5 did not become the named CP");
        assert!(r.on_feedback(Time::ZERO, 4, &idle_falling));
        let mut any = rp(SmccParams { cpid_naming: CpidNaming::AnyDecrease, ..SmccParams::default() });
        any.on_feedback(Time::ZERO, 4, &congested);
        any.on_feedback(Time::ZERO, 5, &idle_growing);
        assert!(any.on_feedback(Time::ZERO, 5, &idle_falling), "every decrease names its CP");
        let mut p = SmccParams::default();
        p.set("cpid_naming", &ParamValue::Text("any_decrease".into())).unwrap();
        assert_eq!(p.cpid_naming, CpidNaming::AnyDecrease);
        assert!(p.set("cpid_naming", &ParamValue::Text("x".into())).unwrap_err().to_string().contains("above_q0"));
    }

    #[test]
    fn rates_scale_with_line_rate() {
        let r = SmccRp::new(SmccParams::default(), Rate::from_gbps(10), Rate::from_gbps(5));
        assert!((r.change(64 * KB, KB) + 2560e6).abs() < 1e-3);
    }
}
