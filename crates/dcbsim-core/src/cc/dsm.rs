//! DSM: delay-tolerant sliding-mode congestion control (DSM paper §III–V).
//!
//! The congestion point samples every `1/p`-th frame. It predicts the queue `m` samples
//! ahead from the feedback it has already sent (eq. 14) and picks one of three rate
//! laws by the region of the predicted state (eq. 24). The reaction point adds the
//! feedback to its rate.

use super::{Arrival, CongestionPoint, CpInit, CpidRule, Feedback, Notify, ReactionPoint, RpInit, Scheme};
use crate::param::Range::{Any, Fraction, Open, Positive};
use crate::param::{Param, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// Parameters of DSM. With `auto`, `m`, `a`, `b`, `c` not set explicitly come from
/// eq. 31 for the port's capacity (see [`DsmParams::resolve`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DsmParams {
    /// Target queue `q0`, bytes.
    pub q0: u64,
    /// One frame in `1/p` is sampled.
    pub p: f64,
    /// Frame size used for the nominal sampling period, bytes (`None`: the largest
    /// frame the flows send, set when the congestion point is built; 1000 B, the
    /// paper's, where nothing tells).
    pub frame_bytes: Option<u64>,
    /// Worst feedback-loop delay, for `m`.
    pub loop_delay: Time,
    /// Derive unset gains from eq. 31.
    pub auto: bool,
    /// Prediction horizon `m` (samples).
    pub m: Option<u32>,
    /// Gain in the "decrease/increase by offset" region (State A), 1/s.
    pub a: Option<f64>,
    /// Gain in State B, 1/s.
    pub b: Option<f64>,
    /// Gain in the reaching region (State C), 1/s.
    pub c: Option<f64>,
    /// Weight of `Q̂v` in the boundary `δ`.
    pub omega: f64,
    /// Fraction of the stability bound `2/T` used for `H_a = H_b = H_c`.
    pub h_fraction: f64,
    /// Which bound the reaching gain `c` comes from when it is not set.
    pub c_rule: ReachingGain,
    /// Minimum rate.
    pub r_min: Rate,
    /// What to send on the `Q̂v = 0` axis, where eq. 24 names no region.
    pub on_axis: AxisRule,
    /// Which arriving frames count towards the `1/p` sampling.
    pub sampling: Sampling,
}

/// Which frames the congestion point's `1/p` sampling counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Every arriving frame, dropped ones included (the default): §III-A "samples the
    /// incoming packets with a probability p", as the QCN and SMCC congestion points do.
    /// While the buffer overflows the samples come faster than every `T`.
    Arriving,
    /// Only frames admitted to the queue: a frame dropped on a full buffer is not
    /// counted, so the sampling period stays near `T` while the buffer overflows.
    Admitted,
}

/// The feedback on the `Q̂v = 0` axis (with `Q̂f ≠ 0`), which eq. 24 leaves out: the
/// state of a queue that is full or empty (so unchanged) once the last `m` feedback
/// values have passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisRule {
    /// `−a·Q̂f`, State A's law: the axis is State A's edge and, of the two regions it
    /// divides, the one with the smaller gain.
    StateA,
    /// Nothing, as eq. 24 reads (the default): a queue that stays full or empty gets no
    /// feedback once the last `m` values have passed.
    Nothing,
}

impl Default for DsmParams {
    fn default() -> Self {
        DsmParams {
            q0: 64 * 1024,
            p: 0.01,
            frame_bytes: None,
            loop_delay: Time::from_us(300),
            auto: true,
            m: None,
            a: None,
            b: None,
            c: None,
            omega: 5.0,
            h_fraction: 0.8,
            c_rule: ReachingGain::Fast,
            r_min: Rate::from_mbps(10),
            on_axis: AxisRule::Nothing,
            sampling: Sampling::Arriving,
        }
    }
}

/// Where the reaching gain `c` (State C) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReachingGain {
    /// `c = H/2`: eq. 31 and §V-A, which drop the delay term of eq. 30 for `c` so
    /// that the reaching process stays fast (the paper's default).
    Fast,
    /// `c = H/(m²+4m+2)`: eq. 30's bound with its delay term kept, the same bound as
    /// `a`. Keeps the loop stable when the true delays are shorter than or differ from
    /// `m·T` (see `docs/models/dsm.md`).
    Eq30,
}

/// DSM's working values at one congestion point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsmGains {
    /// Nominal sampling period `T = L·8 / (p·C)`, seconds.
    pub period: f64,
    /// Prediction horizon.
    pub m: u32,
    /// State A gain, 1/s.
    pub a: f64,
    /// State B gain, 1/s.
    pub b: f64,
    /// State C gain, 1/s.
    pub c: f64,
    /// Boundary weight.
    pub omega: f64,
}

impl DsmParams {
    /// The gains at a port of capacity `capacity` (eq. 31 and §V-A): `T = L·8/(p·C)`,
    /// `m = ⌈loop delay / T⌉`, `H = h_fraction · 2/T`, `a = H/(m²+4m+2)`,
    /// `b = H/(2m+3)`, `c = H/2` (or `H/(m²+4m+2)` with [`ReachingGain::Eq30`]).
    /// Explicit values win; without `auto` the unset ones take the paper's 10 Gb/s
    /// defaults (m = 4, H = 20 kHz).
    pub fn resolve(&self, capacity: Rate) -> DsmGains {
        let period = self.frame_bytes.unwrap_or(1000) as f64 * 8.0 / (self.p * capacity.as_f64());
        let (m_auto, h) = if self.auto {
            let m = (self.loop_delay.as_secs_f64() / period - 1e-9).ceil().max(1.0) as u32;
            (m, self.h_fraction * 2.0 / period)
        } else {
            (4, 20e3)
        };
        let m = self.m.unwrap_or(m_auto);
        let mf = m as f64;
        let a = h / (mf * mf + 4.0 * mf + 2.0);
        let c = match self.c_rule {
            ReachingGain::Fast => h / 2.0,
            ReachingGain::Eq30 => a,
        };
        DsmGains { period, m, a: self.a.unwrap_or(a), b: self.b.unwrap_or(h / (2.0 * mf + 3.0)), c: self.c.unwrap_or(c), omega: self.omega }
    }
}

/// The delay-compensating predictor of eq. 14, with the sums over the last `m`
/// feedback values kept in O(1): `S1 = Σ u(k−i)` and `S2 = Σ i·u(k−i)`, i = 1..m.
#[derive(Clone, Debug)]
pub struct DsmPredictor {
    m: usize,
    recent: VecDeque<i64>,
    s1: i128,
    s2: i128,
}

impl DsmPredictor {
    /// A predictor over a horizon of `m` samples, with no feedback sent yet.
    pub fn new(m: u32) -> DsmPredictor {
        let m = m.max(1) as usize;
        DsmPredictor { m, recent: std::iter::repeat_n(0, m).collect(), s1: 0, s2: 0 }
    }

    /// `(S1, S2)` over the last `m` values.
    pub fn sums(&self) -> (i128, i128) {
        (self.s1, self.s2)
    }

    /// Records the feedback `u(k)` just sent; it becomes `u(k−1)` for the next sample.
    pub fn record(&mut self, u: i64) {
        let oldest = self.recent.pop_back().expect("m values") as i128;
        self.s2 += self.s1 + u as i128 - (self.m as i128 + 1) * oldest;
        self.s1 += u as i128 - oldest;
        self.recent.push_front(u);
    }

    /// `(Q̂f, Q̂v) = (Qf + m·Qv + T·S2, Qv + T·S1)`, with queues in bits, feedback in
    /// bits/s and `period` in seconds.
    pub fn predict(&self, q_f: f64, q_v: f64, period: f64) -> (f64, f64) {
        let m = self.m as f64;
        (q_f + m * q_v + period * self.s2 as f64, q_v + period * self.s1 as f64)
    }
}

/// The region of eq. 24 a predicted state falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsmRegion {
    /// `Q̂f·Q̂v > 0`: reach the sliding line fast (`−c·Q̂f`).
    C,
    /// `Q̂v·δ < 0`: `−a·Q̂f`.
    A,
    /// `Q̂f·δ < 0`: `−b·Q̂v`.
    B,
    /// On the `Q̂v = 0` axis with `Q̂f ≠ 0`, which eq. 24 leaves out (see [`AxisRule`]).
    Axis,
    /// At the origin, or on a boundary of eq. 24 elsewhere: no change.
    None,
}

/// The region of `(Q̂f, Q̂v)` with boundary `δ = Q̂f + ω·Q̂v`.
pub fn dsm_region(q_f: f64, q_v: f64, omega: f64) -> DsmRegion {
    let delta = q_f + omega * q_v;
    if q_f * q_v > 0.0 {
        DsmRegion::C
    } else if q_v * delta < 0.0 {
        DsmRegion::A
    } else if q_f * delta < 0.0 {
        DsmRegion::B
    } else if q_v == 0.0 && q_f != 0.0 {
        DsmRegion::Axis
    } else {
        DsmRegion::None
    }
}

impl Params for DsmParams {
    const TABLE: &'static [Param<Self>] = &[
        Param { name: "q0_kb", range: Positive, default: "64 KB", doc: "target queue `q0`", set: Setter::Bytes(|p, v| p.q0 = v) },
        Param { name: "p", range: Fraction, default: "0.01", doc: "one frame in `1/p` is sampled", set: Setter::Real(|p, v| p.p = v) },
        Param {
            name: "frame_bytes",
            range: Positive,
            default: "the largest frame the flows send",
            doc: "frame size of the nominal sampling period",
            set: Setter::Bytes(|p, v| p.frame_bytes = Some(v)),
        },
        Param {
            name: "loop_delay_us",
            range: Positive,
            default: "300 µs",
            doc: "worst feedback-loop delay, for `m`",
            set: Setter::Time(|p, v| p.loop_delay = v),
        },
        Param { name: "auto", range: Any, default: "true", doc: "derive unset gains from eq. 31", set: Setter::Switch(|p, v| p.auto = v) },
        Param {
            name: "m",
            range: Positive,
            default: "from the loop delay (eq. 31)",
            doc: "prediction horizon, samples",
            set: Setter::Count(|p, v| p.m = Some(v.max(1))),
        },
        Param { name: "a_hz", range: Positive, default: "eq. 31", doc: "State A gain, 1/s", set: Setter::Real(|p, v| p.a = Some(v)) },
        Param { name: "b_hz", range: Positive, default: "eq. 31", doc: "State B gain, 1/s", set: Setter::Real(|p, v| p.b = Some(v)) },
        Param {
            name: "c_hz",
            range: Positive,
            default: "eq. 31 (or eq. 30 with `c_rule`)",
            doc: "reaching gain (State C), 1/s",
            set: Setter::Real(|p, v| p.c = Some(v)),
        },
        Param {
            name: "omega",
            range: Positive,
            default: "5",
            doc: "weight of `Q̂v` in the boundary `δ`",
            set: Setter::Real(|p, v| p.omega = v),
        },
        Param {
            name: "h_fraction",
            range: Open,
            default: "0.8",
            doc: "fraction of the stability bound `2/T` used for `H`",
            set: Setter::Real(|p, v| p.h_fraction = v),
        },
        Param {
            name: "c_rule",
            range: Any,
            default: "\"fast\" (c = H/2, the paper's)",
            doc: "which bound the reaching gain `c` comes from: eq. 31's H/2 or eq. 30's",
            set: Setter::Mode(&["fast", "eq30"], |p, i| p.c_rule = [ReachingGain::Fast, ReachingGain::Eq30][i]),
        },
        Param { name: "r_min_mbps", range: Positive, default: "10 Mb/s", doc: "minimum rate", set: Setter::Rate(|p, v| p.r_min = v) },
        Param {
            name: "on_axis",
            range: Any,
            default: "\"nothing\" (eq. 24 as written)",
            doc: "what to send on the `Q̂v = 0` axis: nothing, or State A's `−a·Q̂f`",
            set: Setter::Mode(&["nothing", "state_a"], |p, i| p.on_axis = [AxisRule::Nothing, AxisRule::StateA][i]),
        },
        Param {
            name: "sampling",
            range: Any,
            default: "\"arriving\" (dropped frames included)",
            doc: "which arriving frames count towards the `1/p` sampling",
            set: Setter::Mode(&["arriving", "admitted"], |p, i| p.sampling = [Sampling::Arriving, Sampling::Admitted][i]),
        },
    ];
}

impl Scheme for DsmParams {
    type Cp = DsmCp;
    type Rp = DsmRp;
    type Params = DsmParams;
    const NAMES: &'static [&'static str] = &["dsm"];

    fn params_mut(&mut self) -> &mut DsmParams {
        self
    }
    fn congestion_point(&self, init: CpInit, _rng: Rng) -> Option<DsmCp> {
        let params = DsmParams { frame_bytes: self.frame_bytes.or(Some(init.frame_bytes)), ..self.clone() };
        Some(DsmCp::new(params, init.capacity))
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> DsmRp {
        DsmRp::new(self, init.line_rate, init.initial_rate)
    }
    fn reconfigure_cp(&self, cp: &mut DsmCp) {
        // The gains and the predictor follow from the parameters: rebuilt, with the
        // frame size the port was given and the last sampled queue kept.
        let params = DsmParams { frame_bytes: self.frame_bytes.or(cp.params.frame_bytes), ..self.clone() };
        *cp = DsmCp { q_prev: cp.q_prev, ..DsmCp::new(params, cp.capacity) };
    }
    fn reconfigure_rp(&self, rp: &mut DsmRp) {
        rp.r_min = self.r_min.as_f64();
    }
}

/// A DSM congestion point.
#[derive(Clone, Debug)]
pub struct DsmCp {
    params: DsmParams,
    gains: DsmGains,
    predictor: DsmPredictor,
    capacity: Rate,
    every: u32,
    count: u32,
    q_prev: u64,
}

impl DsmCp {
    /// A congestion point on a port of `capacity`.
    pub fn new(params: DsmParams, capacity: Rate) -> DsmCp {
        let gains = params.resolve(capacity);
        let every = (1.0 / params.p).round().max(1.0) as u32;
        DsmCp { predictor: DsmPredictor::new(gains.m), params, gains, capacity, every, count: 0, q_prev: 0 }
    }

    /// The working gains.
    pub fn gains(&self) -> DsmGains {
        self.gains
    }

    /// The feedback (bits/s) for a sample at queue `q` bytes.
    pub fn feedback(&self, q: u64) -> f64 {
        let q_f = (q as f64 - self.params.q0 as f64) * 8.0;
        let q_v = (q as f64 - self.q_prev as f64) * 8.0;
        let (pf, pv) = self.predictor.predict(q_f, q_v, self.gains.period);
        let g = &self.gains;
        let u = match dsm_region(pf, pv, g.omega) {
            DsmRegion::C => -g.c * pf,
            DsmRegion::A => -g.a * pf,
            DsmRegion::B => -g.b * pv,
            DsmRegion::Axis if self.params.on_axis == AxisRule::StateA => -g.a * pf,
            DsmRegion::Axis | DsmRegion::None => 0.0,
        };
        // No adjustment can move the aggregate rate by more than the port's capacity;
        // bounding it keeps the predictor's sums to what could actually happen.
        let c = self.capacity.as_f64();
        u.clamp(-c, c)
    }
}

impl CongestionPoint for DsmCp {
    #[inline]
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        if arrival.dropped && self.params.sampling == Sampling::Admitted {
            return;
        }
        self.count += 1;
        if self.count < self.every {
            return;
        }
        self.count = 0;
        let bps = self.feedback(arrival.queue_bytes).round() as i64;
        self.q_prev = arrival.queue_bytes;
        self.predictor.record(bps);
        if bps != 0 {
            let kbps = (bps / 1000).clamp(i32::MIN as i64, i32::MAX as i64) as i32;
            out.push(Notify { flow: arrival.flow, feedback: Feedback::RateDelta { kbps } });
        }
    }
}

/// A DSM reaction point of one flow: `r ← r + F_b`.
#[derive(Clone, Debug)]
pub struct DsmRp {
    r_min: f64,
    line: f64,
    rate: f64,
    cpid: CpidRule,
}

impl DsmRp {
    /// A reaction point starting at `initial` on a NIC of rate `line`.
    pub fn new(params: &DsmParams, line: Rate, initial: Rate) -> DsmRp {
        DsmRp { r_min: params.r_min.as_f64(), line: line.as_f64(), rate: initial.as_f64(), cpid: CpidRule::default() }
    }
}

impl ReactionPoint for DsmRp {
    #[inline]
    fn rate(&self) -> Rate {
        Rate::from_bps_f64(self.rate)
    }

    fn timer(&self) -> Option<Time> {
        None
    }

    fn on_feedback(&mut self, _now: Time, cpid: u32, feedback: &Feedback) -> bool {
        let Feedback::RateDelta { kbps } = *feedback else { return false };
        if !self.cpid.admit(cpid, kbps as f64) {
            return false;
        }
        self.rate = (self.rate + kbps as f64 * 1e3).clamp(self.r_min, self.line);
        kbps != 0
    }
}

#[cfg(test)]
#[path = "dsm_tests.rs"]
mod tests;
