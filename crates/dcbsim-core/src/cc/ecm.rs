//! BCN / ECM (Bergamasco's Ethernet Congestion Manager), as the SMCC paper (eq. 2)
//! and the DCC paper (§III) describe it.
//!
//! The congestion point samples every `E[L]/p` bytes and compares the queue with three
//! thresholds: below `Q_mc` it reports `(Qoff, Qδ)` of either sign, between `Q_mc` and
//! `Q_sc` it sends ECM-Max, above `Q_sc` it sends ECM(0,0), which halts the source.
//! The reaction point raises or cuts its rate from the normalized feedback, and accepts
//! increases only from the congestion point that last caused a decrease.

use super::{Arrival, CongestionPoint, CpInit, CpidRule, Feedback, Notify, ReactionPoint, RpInit, Scheme};
use crate::param::Range::{Any, Fraction, NonNegative, Positive};
use crate::param::{Param, ParamError, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// Parameters of BCN/ECM. `Default` is the DCC paper's Table II.
#[derive(Clone, Debug, PartialEq)]
pub struct EcmParams {
    /// Equilibrium threshold `Q_eq`, bytes.
    pub q_eq: u64,
    /// Mild-congestion threshold `Q_mc`, bytes.
    pub q_mc: u64,
    /// Severe-congestion threshold `Q_sc`, bytes.
    pub q_sc: u64,
    /// Bytes between samples, `E[L]/p`.
    pub sample_bytes: u64,
    /// Weight of `Qδ`.
    pub w: f64,
    /// Rate unit `Ru`; `None` is 50 Mb/s per Gb/s of the source's line rate (DCC
    /// Table II's 50 Mb/s at 1 Gb/s).
    pub ru: Option<Rate>,
    /// Increase gain `Gi`.
    pub gi: f64,
    /// Decrease gain `Gd`.
    pub gd: f64,
    /// Largest fraction one decrease removes (`α`).
    pub alpha: f64,
    /// Largest increase as a fraction of line rate (`β`).
    pub beta: f64,
    /// How long ECM(0,0) halts the source.
    pub t_max: Time,
    /// Minimum rate; the rate a halted source resumes at.
    pub r_min: Rate,
    /// Divide `Fb` by `Q_eq` (our reading); off, `Fb` is in bytes as eq. 1 writes it,
    /// so nearly every message moves the rate by the full `β·C` or `α`.
    pub normalize: bool,
    /// The rate limiter's self-increase, added every `self_increase_period` whatever
    /// the feedback; `None` is 0.1 % of the line rate (1 Mb/s at 1 Gb/s), zero turns it
    /// off.
    pub self_increase: Option<Rate>,
    /// Period of the self-increase.
    pub self_increase_period: Time,
}

impl Default for EcmParams {
    fn default() -> Self {
        EcmParams {
            q_eq: 50_000,
            q_mc: 80_000,
            q_sc: 100_000,
            sample_bytes: 150_000,
            w: 2.0,
            ru: None,
            gi: 0.3,
            gd: 0.6,
            alpha: 0.5,
            beta: 0.05,
            t_max: Time::from_ms(1),
            r_min: Rate::from_mbps(10),
            normalize: true,
            self_increase: None,
            self_increase_period: Time::from_ms(1),
        }
    }
}

impl EcmParams {
    /// Checks that the thresholds are ordered `Q_eq < Q_mc < Q_sc`.
    pub fn check_order(&self) -> Result<(), ParamError> {
        if self.q_eq < self.q_mc && self.q_mc < self.q_sc {
            Ok(())
        } else {
            Err(ParamError::Inconsistent(format!(
                "thresholds must satisfy q_eq < q_mc < q_sc (got {} {} {} bytes)",
                self.q_eq, self.q_mc, self.q_sc
            )))
        }
    }
}

impl Params for EcmParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "q_eq_kb",
            range: Positive,
            default: "50 000 bytes (DCC Table II)",
            doc: "equilibrium threshold `Q_eq`",
            set: Setter::Bytes(|p, v| p.q_eq = v),
        },
        Param {
            name: "q_mc_kb",
            range: Positive,
            default: "80 000 bytes (DCC Table II)",
            doc: "mild-congestion threshold `Q_mc`",
            set: Setter::Bytes(|p, v| p.q_mc = v),
        },
        Param {
            name: "q_sc_kb",
            range: Positive,
            default: "100 000 bytes (DCC Table II)",
            doc: "severe-congestion threshold `Q_sc`",
            set: Setter::Bytes(|p, v| p.q_sc = v),
        },
        Param {
            name: "sample_bytes",
            range: Positive,
            default: "150 000 bytes (DCC Table II)",
            doc: "bytes between samples, `E[L]/p`",
            set: Setter::Bytes(|p, v| p.sample_bytes = v),
        },
        Param { name: "w", range: NonNegative, default: "2 (DCC Table II)", doc: "weight of `Qδ`", set: Setter::Real(|p, v| p.w = v) },
        Param {
            name: "ru_mbps",
            range: Positive,
            default: "5 % of the line rate (50 Mb/s at 1 Gb/s, DCC Table II)",
            doc: "rate unit `Ru`",
            set: Setter::Rate(|p, v| p.ru = Some(v)),
        },
        Param { name: "gi", range: Positive, default: "0.3 (DCC Table II)", doc: "increase gain `Gi`", set: Setter::Real(|p, v| p.gi = v) },
        Param { name: "gd", range: Positive, default: "0.6 (DCC Table II)", doc: "decrease gain `Gd`", set: Setter::Real(|p, v| p.gd = v) },
        Param {
            name: "alpha",
            range: Fraction,
            default: "0.5",
            doc: "largest fraction one decrease removes",
            set: Setter::Real(|p, v| p.alpha = v),
        },
        Param {
            name: "beta",
            range: Fraction,
            default: "0.05",
            doc: "largest increase, as a fraction of line rate",
            set: Setter::Real(|p, v| p.beta = v),
        },
        Param {
            name: "t_max_ms",
            range: Positive,
            default: "1 ms",
            doc: "how long ECM(0,0) halts the source",
            set: Setter::Time(|p, v| p.t_max = v),
        },
        Param {
            name: "r_min_mbps",
            range: Positive,
            default: "10 Mb/s",
            doc: "minimum rate; a halted source resumes at it",
            set: Setter::Rate(|p, v| p.r_min = v),
        },
        Param {
            name: "normalize",
            range: Any,
            default: "true (our reading)",
            doc: "divide `Fb` by `Q_eq`",
            set: Setter::Switch(|p, v| p.normalize = v),
        },
        Param {
            name: "self_increase_mbps",
            range: NonNegative,
            default: "0.1 % of the line rate",
            doc: "the rate limiter's self-increase per period (0 turns it off)",
            set: Setter::Rate(|p, v| p.self_increase = Some(v)),
        },
        Param {
            name: "self_increase_ms",
            range: Positive,
            default: "1 ms",
            doc: "period of the self-increase",
            set: Setter::Time(|p, v| p.self_increase_period = v),
        },
    ];
}

impl Scheme for EcmParams {
    type Cp = EcmCp;
    type Rp = EcmRp;
    type Params = EcmParams;
    const NAMES: &'static [&'static str] = &["ecm"];

    fn params_mut(&mut self) -> &mut EcmParams {
        self
    }
    fn check(&self) -> Result<(), ParamError> {
        self.check_order()
    }
    fn congestion_point(&self, _init: CpInit, _rng: Rng) -> Option<EcmCp> {
        Some(EcmCp::new(self.clone()))
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> EcmRp {
        EcmRp::new(self.clone(), init.line_rate, init.initial_rate)
    }
    fn reconfigure_cp(&self, cp: &mut EcmCp) {
        cp.params = self.clone();
    }
    fn reconfigure_rp(&self, rp: &mut EcmRp) {
        *rp = EcmRp { params: self.clone(), ..rp.clone() };
        rp.derive_steps();
    }
    fn queue_target(&self) -> Option<u64> {
        Some(self.q_eq)
    }
}

/// An ECM congestion point.
#[derive(Clone, Debug)]
pub struct EcmCp {
    params: EcmParams,
    q_old: u64,
    bytes_to_sample: i64,
}

impl EcmCp {
    /// A congestion point with the given parameters.
    pub fn new(params: EcmParams) -> EcmCp {
        let bytes_to_sample = params.sample_bytes as i64;
        EcmCp { params, q_old: 0, bytes_to_sample }
    }

    /// The message for a sample at queue `q`.
    pub fn message(&self, q: u64) -> Feedback {
        let p = &self.params;
        if q >= p.q_sc {
            Feedback::Halt
        } else if q >= p.q_mc {
            Feedback::MaxDecrease
        } else {
            let q_off = q as i64 - p.q_eq as i64;
            let q_delta = q as i64 - self.q_old as i64;
            Feedback::QueueState { q_off: q_off as i32, q_delta: q_delta as i32 }
        }
    }
}

impl CongestionPoint for EcmCp {
    #[inline]
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        self.bytes_to_sample -= arrival.bytes as i64;
        if self.bytes_to_sample > 0 {
            return;
        }
        self.bytes_to_sample += self.params.sample_bytes as i64;
        let feedback = self.message(arrival.queue_bytes);
        self.q_old = arrival.queue_bytes;
        out.push(Notify { flow: arrival.flow, feedback });
    }
}

/// `Ru` as a fraction of the line rate when not set: DCC Table II's 50 Mb/s at 1 Gb/s.
/// Increases add `Gi·fb·Ru` while decreases take `Gd·|fb|` of the rate, so an `Ru` fixed
/// in Mb/s would make the increases ten times weaker at 10 Gb/s than the paper's.
pub const RU_PER_LINE_RATE: f64 = 0.05;

/// An ECM reaction point (rate limiter) of one flow.
#[derive(Clone, Debug)]
pub struct EcmRp {
    params: EcmParams,
    line: f64,
    ru: f64,
    self_increase: f64,
    rate: f64,
    halted_until: Option<Time>,
    next_self_increase: Option<Time>,
    cpid: CpidRule,
}

impl EcmRp {
    /// A reaction point starting at `initial` on a NIC of rate `line`.
    pub fn new(params: EcmParams, line: Rate, initial: Rate) -> EcmRp {
        let (rate, line) = (initial.as_f64(), line.as_f64());
        let mut rp = EcmRp {
            params,
            line,
            ru: 0.0,
            self_increase: 0.0,
            rate,
            halted_until: None,
            next_self_increase: None,
            cpid: CpidRule::default(),
        };
        rp.derive_steps();
        rp
    }

    /// `Ru` and the self-increase from the parameters and the line rate.
    fn derive_steps(&mut self) {
        self.self_increase = self.params.self_increase.map_or(self.line * 1e-3, Rate::as_f64);
        self.ru = self.params.ru.map_or(self.line * RU_PER_LINE_RATE, Rate::as_f64);
    }

    /// The feedback `−(Qoff + w·Qδ)`, divided by `Q_eq` when `normalize`.
    pub fn normalized(&self, q_off: i32, q_delta: i32) -> f64 {
        let fb = -(q_off as f64 + self.params.w * q_delta as f64);
        if self.params.normalize { fb / self.params.q_eq as f64 } else { fb }
    }

    fn decrease(&mut self, cut: f64, cpid: u32) {
        self.rate = (self.rate * (1.0 - cut)).max(self.params.r_min.as_f64());
        self.cpid.admit(cpid, -1.0);
    }
}

impl ReactionPoint for EcmRp {
    #[inline]
    fn rate(&self) -> Rate {
        if self.halted_until.is_some() { Rate::ZERO } else { Rate::from_bps_f64(self.rate) }
    }

    fn timer(&self) -> Option<Time> {
        match (self.halted_until, self.next_self_increase) {
            (Some(h), Some(i)) => Some(h.min(i)),
            (h, i) => h.or(i),
        }
    }

    fn on_start(&mut self, now: Time) -> bool {
        // The period runs even at a zero step, so a timeline can turn the increase on.
        self.next_self_increase = Some(now + self.params.self_increase_period);
        true
    }

    fn on_feedback(&mut self, now: Time, cpid: u32, feedback: &Feedback) -> bool {
        if self.halted_until.is_some() {
            return false;
        }
        let p = &self.params;
        match *feedback {
            Feedback::QueueState { q_off, q_delta } => {
                let fb = self.normalized(q_off, q_delta);
                if fb > 0.0 {
                    if !self.cpid.admit(cpid, fb) {
                        return false;
                    }
                    let step = (p.gi * fb * self.ru).min(p.beta * self.line);
                    self.rate = (self.rate + step).min(self.line);
                } else if fb < 0.0 {
                    let cut = (p.gd * -fb).min(p.alpha);
                    self.decrease(cut, cpid);
                } else {
                    return false;
                }
            }
            Feedback::MaxDecrease => {
                let alpha = p.alpha;
                self.decrease(alpha, cpid);
            }
            Feedback::Halt => {
                self.halted_until = Some(now + p.t_max);
                self.cpid.admit(cpid, -1.0);
            }
            _ => return false,
        }
        true
    }

    fn on_timer(&mut self, now: Time) -> bool {
        let was_halted = self.halted_until.is_some();
        if self.halted_until.is_some_and(|h| h <= now) {
            self.halted_until = None;
            self.rate = self.params.r_min.as_f64();
        }
        if let Some(due) = self.next_self_increase.filter(|&t| t <= now) {
            if !was_halted {
                self.rate = (self.rate + self.self_increase).min(self.line);
            }
            self.next_self_increase = Some(due + self.params.self_increase_period);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param::ParamValue;

    fn arrival(queue_bytes: u64) -> Arrival {
        Arrival { now: Time::ZERO, flow: 2, weight: 1.0, bytes: 1500, queue_bytes, dropped: false }
    }

    #[test]
    fn the_cp_samples_every_sample_bytes_and_picks_the_message_by_threshold() {
        let mut cp = EcmCp::new(EcmParams::default());
        let mut out = Vec::new();
        for _ in 0..99 {
            cp.on_arrival(&arrival(40_000), &mut out);
        }
        assert!(out.is_empty());
        cp.on_arrival(&arrival(40_000), &mut out);
        assert_eq!(out[0].feedback, Feedback::QueueState { q_off: -10_000, q_delta: 40_000 });
        assert_eq!(cp.message(85_000), Feedback::MaxDecrease);
        assert_eq!(cp.message(100_000), Feedback::Halt);
    }

    #[test]
    fn positive_and_negative_feedback_follow_the_rate_law() {
        let p = EcmParams::default();
        let mut rp = EcmRp::new(p, Rate::from_gbps(1), Rate::from_mbps(500));
        // fb = -(10000 + 2 x 5000) / 50000 = -0.4: cut min(0.6 x 0.4, 0.5) = 24 %.
        rp.on_feedback(Time::ZERO, 7, &Feedback::QueueState { q_off: 10_000, q_delta: 5_000 });
        assert!((rp.rate().as_f64() - 380e6).abs() < 1.0);
        // fb = +0.4 from the same CP: + min(0.3 x 0.4 x 50 Mb/s, 0.05 x 1 Gb/s) = + 6 Mb/s.
        rp.on_feedback(Time::ZERO, 7, &Feedback::QueueState { q_off: -10_000, q_delta: -5_000 });
        assert!((rp.rate().as_f64() - 386e6).abs() < 1.0);
        // Large positive feedback is capped at beta x C = 50 Mb/s.
        rp.on_feedback(Time::ZERO, 7, &Feedback::QueueState { q_off: -50_000, q_delta: -100_000 });
        assert!((rp.rate().as_f64() - 436e6).abs() < 1.0);
    }

    #[test]
    fn the_rate_unit_scales_with_line_rate_unless_set() {
        // fb = +0.4 at 40 Gb/s: + 0.3 x 0.4 x (50 Mb/s per Gb/s x 40) = + 240 Mb/s, the same
        // fraction of the line rate as + 6 Mb/s at 1 Gb/s; a fixed 50 Mb/s would add 6.
        let up = Feedback::QueueState { q_off: -10_000, q_delta: -5_000 };
        let mut rp = EcmRp::new(EcmParams::default(), Rate::from_gbps(40), Rate::from_gbps(20));
        rp.on_feedback(Time::ZERO, 7, &up);
        assert!((rp.rate().as_f64() - 20.24e9).abs() < 1.0);
        let mut p = EcmParams::default();
        p.set("ru_mbps", &ParamValue::Number(50.0)).unwrap();
        let mut rp = EcmRp::new(p, Rate::from_gbps(40), Rate::from_gbps(20));
        rp.on_feedback(Time::ZERO, 7, &up);
        assert!((rp.rate().as_f64() - 20.006e9).abs() < 1.0);
    }

    #[test]
    fn increases_come_only_from_the_cp_of_the_last_decrease() {
        let mut rp = EcmRp::new(EcmParams::default(), Rate::from_gbps(1), Rate::from_mbps(500));
        rp.on_feedback(Time::ZERO, 1, &Feedback::MaxDecrease);
        assert!((rp.rate().as_f64() - 250e6).abs() < 1.0);
        let up = Feedback::QueueState { q_off: -10_000, q_delta: 0 };
        assert!(!rp.on_feedback(Time::ZERO, 2, &up));
        assert!(rp.on_feedback(Time::ZERO, 1, &up));
    }

    #[test]
    fn ecm_zero_zero_halts_then_resumes_at_the_minimum_rate() {
        let mut rp = EcmRp::new(EcmParams::default(), Rate::from_gbps(1), Rate::from_gbps(1));
        rp.on_feedback(Time::from_ms(3), 1, &Feedback::Halt);
        assert_eq!(rp.rate(), Rate::ZERO);
        assert_eq!(rp.timer(), Some(Time::from_ms(4)));
        rp.on_timer(Time::from_ms(4));
        assert_eq!(rp.rate(), Rate::from_mbps(10));
        assert_eq!(rp.timer(), None);
    }

    #[test]
    fn without_normalization_the_feedback_is_in_bytes() {
        let p = EcmParams { normalize: false, ..EcmParams::default() };
        let mut rp = EcmRp::new(p, Rate::from_gbps(1), Rate::from_mbps(500));
        // Fb = -(10000 + 2 x 5000) = -20000: the cut saturates at alpha = 0.5.
        assert_eq!(rp.normalized(10_000, 5_000), -20_000.0);
        rp.on_feedback(Time::ZERO, 7, &Feedback::QueueState { q_off: 10_000, q_delta: 5_000 });
        assert!((rp.rate().as_f64() - 250e6).abs() < 1.0);
        // Fb = +1: + min(0.3 x 1 x 50 Mb/s, 50 Mb/s) = + 15 Mb/s.
        rp.on_feedback(Time::ZERO, 7, &Feedback::QueueState { q_off: -1, q_delta: 0 });
        assert!((rp.rate().as_f64() - 265e6).abs() < 1.0);
    }

    #[test]
    fn the_self_increase_adds_its_step_every_period_except_while_halted() {
        let mut p = EcmParams::default();
        p.set("self_increase_mbps", &ParamValue::Number(5.0)).unwrap();
        p.set("self_increase_ms", &ParamValue::Number(2.0)).unwrap();
        let mut rp = EcmRp::new(p, Rate::from_gbps(1), Rate::from_mbps(100));
        assert_eq!(EcmRp::new(EcmParams::default(), Rate::from_gbps(1), Rate::ZERO).self_increase, 1e6);
        assert_eq!(rp.timer(), None);
        assert!(rp.on_start(Time::ZERO));
        assert_eq!(rp.timer(), Some(Time::from_ms(2)));
        rp.on_timer(Time::from_ms(2));
        assert!((rp.rate().as_f64() - 105e6).abs() < 1.0);
        assert_eq!(rp.timer(), Some(Time::from_ms(4)));
        // Halted at 3 ms until 4 ms: the increase due at 4 ms is skipped, the source
        // resumes at R_min, and the next increase comes at 6 ms.
        rp.on_feedback(Time::from_ms(3), 1, &Feedback::Halt);
        rp.on_timer(Time::from_ms(4));
        assert_eq!(rp.rate(), Rate::from_mbps(10));
        assert_eq!(rp.timer(), Some(Time::from_ms(6)));
        rp.on_timer(Time::from_ms(6));
        assert!((rp.rate().as_f64() - 15e6).abs() < 1.0);
        assert!(EcmParams::default().set("self_increase_mbps", &ParamValue::Number(-1.0)).is_err());
    }

    #[test]
    fn thresholds_must_be_ordered() {
        let mut p = EcmParams::default();
        assert!(p.check().is_ok());
        p.set("q_mc_bytes", &ParamValue::Number(120_000.0)).unwrap();
        assert!(p.check().is_err());
    }
}
