//! Differentiated AIMD ("DCC", Fang, Foh and Aung, IEEE TNSM 2011, §IV).
//!
//! The congestion point samples one frame every `E[L]/p_s` bytes. At a sample it
//! reads the queue `q`: `q ≥ T_sc` sends "halt", else `q ≥ T_eq` sends "decrease",
//! else nothing. Its drop policy protects high-priority traffic: once `q > T_sc`, every
//! arriving low-priority frame is dropped until `q` falls below `T_eq`.
//!
//! The reaction point is AIMD(a, b) on a window `W` in units of the rate step `u`
//! (rate `W·u`). A decrease sets `W ← max(W_floor, b·W)` at once; at the end of every
//! slot `W += a` (or, with `increase_every_slot = false`, of every slot without a
//! decrease); a halt stops the source for `T_halt`, after
//! which it restarts at `W_min`. AIMD(a, 1.0) is the paper's misbehaving source: a
//! decrease leaves its window as it is (`W ← 1.0·W`; under eq. 2's rule that slot then
//! adds nothing, as eq. 2 with b = 1 reads); it still obeys halts. `a` and `b` may differ per flow ([`Aimd`]).

use super::{Aimd, Arrival, CongestionPoint, CpInit, Feedback, Notify, ReactionPoint, RpInit, Scheme};
use crate::param::Range::{Any, Fraction, Positive, Unit, Whole};
use crate::param::{Param, ParamError, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// Parameters of DCC. `Default` is the paper's §VI setting.
#[derive(Clone, Debug, PartialEq)]
pub struct DccParams {
    /// Equilibrium threshold `T_eq`, bytes.
    pub t_eq: u64,
    /// Severe-congestion threshold `T_sc`, bytes.
    pub t_sc: u64,
    /// Mean frame length `E[L]`, bytes: turns `p_s` into bytes between samples, and
    /// sets the default slot.
    pub mean_frame_bytes: u64,
    /// Sampling probability `p_s`, when given instead of `sample_bytes`.
    pub p_s: Option<f64>,
    /// Bytes between samples, when given directly.
    pub sample_bytes: u64,
    /// Rate step `u`: the rate of one window unit.
    pub step: Rate,
    /// Slot length; `None` is `E[L]·8/u`, the time one frame takes at rate `u`.
    pub slot: Option<Time>,
    /// How long a halt stops the source.
    pub t_halt: Time,
    /// The window a halted source restarts at ("the lowest predefined rate").
    pub w_min: f64,
    /// The smallest window a decrease leaves (the paper's model has none).
    pub w_floor: f64,
    /// The AIMD setting of flows that do not give their own.
    pub aimd: Aimd,
    /// Whether every slot ends with `+a`, also one that saw a decrease (the default:
    /// §IV-B's "continues to increase for every slot time", and the fluid model of
    /// eq. 3 that gives eqs. 5-7); `false` is eq. 2's either-or: a slot adds `a` only
    /// if no decrease came during it.
    pub increase_every_slot: bool,
    /// Whether each source's slots start at a random phase (its own stream); `false`
    /// starts every source's first slot when it starts, so sources started together
    /// add `a` at the same instants.
    pub random_slot_phase: bool,
    /// Whether each arriving frame is sampled at random, with probability
    /// `frame bytes / bytes_per_sample` (capped at 1), instead of one frame every
    /// `bytes_per_sample` bytes. `false` (the default) is §IV-A's fixed byte count; `true`
    /// is eq. 8's "each incoming packet is sampled ... with a constant probability of
    /// p_s" and §VI-E's "the sampling is random".
    pub random_sampling: bool,
    /// Whether the congestion point applies its drop policy.
    pub drop_policy: bool,
    /// Frames whose 802.1p priority is below this are "low" (dropped by the policy);
    /// 2 by default: best effort (0) and the paper's LAN (1).
    pub drop_below_priority: u8,
}

impl Default for DccParams {
    fn default() -> Self {
        DccParams {
            t_eq: 50_000,
            t_sc: 100_000,
            mean_frame_bytes: 1500,
            p_s: None,
            sample_bytes: 2700,
            step: Rate::from_mbps(40),
            slot: None,
            t_halt: Time::from_ms(1),
            w_min: 1.0,
            w_floor: 0.1,
            aimd: Aimd::default(),
            increase_every_slot: true,
            random_slot_phase: true,
            random_sampling: false,
            drop_policy: true,
            drop_below_priority: 2,
        }
    }
}

impl DccParams {
    /// Checks that `T_eq < T_sc`.
    pub fn check_order(&self) -> Result<(), ParamError> {
        if self.t_eq < self.t_sc {
            Ok(())
        } else {
            Err(ParamError::Inconsistent(format!("thresholds must satisfy t_eq < t_sc (got {} {} bytes)", self.t_eq, self.t_sc)))
        }
    }

    /// Bytes between samples: `E[L]/p_s` when `p_s` is given, else `sample_bytes`.
    pub fn bytes_per_sample(&self) -> u64 {
        match self.p_s {
            Some(p) => ((self.mean_frame_bytes as f64 / p).round() as u64).max(1),
            None => self.sample_bytes,
        }
    }

    /// The slot length: as given, else the time of one mean frame at rate `u`.
    pub fn slot_length(&self) -> Time {
        self.slot.unwrap_or_else(|| self.step.transmit_time(crate::units::Bytes(self.mean_frame_bytes)))
    }
}

impl Params for DccParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "t_eq_bytes",
            range: Positive,
            default: "50 000 bytes (§VI)",
            doc: "equilibrium threshold `T_eq`",
            set: Setter::Bytes(|p, v| p.t_eq = v),
        },
        Param {
            name: "t_sc_bytes",
            range: Positive,
            default: "100 000 bytes (§VI)",
            doc: "severe-congestion threshold `T_sc`",
            set: Setter::Bytes(|p, v| p.t_sc = v),
        },
        Param {
            name: "mean_frame_bytes",
            range: Positive,
            default: "1500 bytes",
            doc: "mean frame length `E[L]`",
            set: Setter::Bytes(|p, v| p.mean_frame_bytes = v),
        },
        Param {
            name: "p_s",
            range: Fraction,
            default: "unset (`sample_bytes` instead)",
            doc: "sampling probability `p_s`: a sample every `E[L]/p_s` bytes",
            set: Setter::Real(|p, v| p.p_s = Some(v)),
        },
        Param {
            name: "sample_bytes",
            range: Positive,
            default: "2700 bytes",
            doc: "bytes between samples (clears `p_s`)",
            set: Setter::Bytes(|p, v| {
                p.sample_bytes = v;
                p.p_s = None;
            }),
        },
        Param {
            name: "u_mbps",
            range: Positive,
            default: "40 Mb/s",
            doc: "rate step `u`: the rate of one window unit",
            set: Setter::Rate(|p, v| p.step = v),
        },
        Param { name: "slot_us", range: Positive, default: "`E[L]·8/u`", doc: "slot length", set: Setter::Time(|p, v| p.slot = Some(v)) },
        Param {
            name: "t_halt_ms",
            range: Positive,
            default: "1 ms",
            doc: "how long a halt stops the source",
            set: Setter::Time(|p, v| p.t_halt = v),
        },
        Param {
            name: "w_min",
            range: Positive,
            default: "1",
            doc: "the window a halted source restarts at",
            set: Setter::Real(|p, v| p.w_min = v),
        },
        Param {
            name: "w_floor",
            range: Positive,
            default: "0.1",
            doc: "the smallest window a decrease leaves",
            set: Setter::Real(|p, v| p.w_floor = v),
        },
        Param {
            name: "a",
            range: Positive,
            default: "1",
            doc: "additive increase per slot of flows without their own `aimd`",
            set: Setter::Real(|p, v| p.aimd.a = v),
        },
        Param {
            name: "b",
            range: Unit,
            default: "0.5",
            doc: "multiplicative decrease of flows without their own `aimd`",
            set: Setter::Real(|p, v| p.aimd.b = v),
        },
        Param {
            name: "increase_every_slot",
            range: Any,
            default: "true (§IV-B, eq. 3)",
            doc: "every slot ends with `+a`, also one that saw a decrease",
            set: Setter::Switch(|p, v| p.increase_every_slot = v),
        },
        Param {
            name: "random_slot_phase",
            range: Any,
            default: "true",
            doc: "each source's slots start at a random phase",
            set: Setter::Switch(|p, v| p.random_slot_phase = v),
        },
        Param {
            name: "random_sampling",
            range: Any,
            default: "false (§IV-A)",
            doc: "sample each frame at random instead of by byte count",
            set: Setter::Switch(|p, v| p.random_sampling = v),
        },
        Param {
            name: "drop_policy",
            range: Any,
            default: "true",
            doc: "apply the drop policy",
            set: Setter::Switch(|p, v| p.drop_policy = v),
        },
        Param {
            name: "drop_below_priority",
            range: Whole(0, 8),
            default: "2",
            doc: "frames of a lower 802.1p priority are \"low\" to the drop policy",
            set: Setter::Count(|p, v| p.drop_below_priority = v as u8),
        },
    ];
}

impl Scheme for DccParams {
    type Cp = DccCp;
    type Rp = DccRp;
    type Params = DccParams;
    const NAMES: &'static [&'static str] = &["dcc"];

    fn params_mut(&mut self) -> &mut DccParams {
        self
    }
    fn check(&self) -> Result<(), ParamError> {
        self.check_order()
    }
    fn congestion_point(&self, _init: CpInit, rng: Rng) -> Option<DccCp> {
        Some(DccCp::with_rng(self.clone(), rng))
    }
    fn reaction_point(&self, init: RpInit, mut rng: Rng) -> DccRp {
        let aimd = init.aimd.unwrap_or(self.aimd);
        let phase = if self.random_slot_phase { rng.uniform() } else { 0.0 };
        DccRp::new(self, aimd, init.initial_rate, init.ceiling, phase)
    }
    fn reconfigure_cp(&self, cp: &mut DccCp) {
        cp.params = self.clone();
        cp.sample_bytes = self.bytes_per_sample() as i64;
        cp.bytes_to_sample = cp.bytes_to_sample.min(cp.sample_bytes);
    }
}

/// A DCC congestion point: sampling (by byte count, or at random), two thresholds, the
/// drop policy.
#[derive(Clone, Debug)]
pub struct DccCp {
    params: DccParams,
    sample_bytes: i64,
    bytes_to_sample: i64,
    dropping: bool,
    rng: Rng,
}

impl DccCp {
    /// A congestion point with the given parameters (random sampling, if asked, from a
    /// fixed stream).
    pub fn new(params: DccParams) -> DccCp {
        DccCp::with_rng(params, Rng::stream(0, "dcc-cp"))
    }

    /// A congestion point drawing its random samples from `rng`.
    pub fn with_rng(params: DccParams, rng: Rng) -> DccCp {
        let sample_bytes = params.bytes_per_sample() as i64;
        DccCp { params, sample_bytes, bytes_to_sample: sample_bytes, dropping: false, rng }
    }

    /// Whether the frame just arrived (of `bytes`) is sampled.
    fn sampled(&mut self, bytes: u64) -> bool {
        if self.params.random_sampling {
            return self.rng.chance((bytes as f64 / self.sample_bytes as f64).min(1.0));
        }
        self.bytes_to_sample -= bytes as i64;
        if self.bytes_to_sample > 0 {
            return false;
        }
        self.bytes_to_sample += self.sample_bytes;
        true
    }

    /// The message for a sample at queue `q`, if any.
    pub fn message(&self, q: u64) -> Option<Feedback> {
        if q >= self.params.t_sc {
            Some(Feedback::Halt)
        } else if q >= self.params.t_eq {
            Some(Feedback::Decrease)
        } else {
            None
        }
    }

    /// Whether the drop policy is dropping low-priority frames now.
    pub fn is_dropping(&self) -> bool {
        self.dropping
    }

    /// The drop policy, before a frame joins a queue holding `queue_bytes`: starts
    /// dropping when the queue is above `T_sc`, stops when it is below `T_eq`, and
    /// says whether this frame (of 802.1p priority `priority`) is dropped.
    #[inline]
    pub fn drop_policy(&mut self, queue_bytes: u64, priority: u8) -> bool {
        let p = &self.params;
        if queue_bytes > p.t_sc {
            self.dropping = true;
        } else if queue_bytes < p.t_eq {
            self.dropping = false;
        }
        p.drop_policy && self.dropping && priority < p.drop_below_priority
    }
}

impl CongestionPoint for DccCp {
    #[inline]
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        if !self.sampled(arrival.bytes as u64) {
            return;
        }
        if let Some(feedback) = self.message(arrival.queue_bytes) {
            out.push(Notify { flow: arrival.flow, feedback });
        }
    }
    const DROPS: bool = true;
    #[inline]
    fn drops(&mut self, queue_bytes: u64, priority: u8) -> bool {
        self.drop_policy(queue_bytes, priority)
    }
}

/// A DCC reaction point: one flow's AIMD window.
#[derive(Clone, Debug)]
pub struct DccRp {
    aimd: Aimd,
    step: f64,
    slot: Time,
    t_halt: Time,
    w_min: f64,
    w_floor: f64,
    w_max: f64,
    increase_every_slot: bool,
    w: f64,
    slot_end: Option<Time>,
    /// A slot boundary: the first one after the start, or after the last halt.
    slot_start: Time,
    /// Where in its first slot the source starts, as a fraction of a slot.
    phase: f64,
    decreased: bool,
    halted_until: Option<Time>,
}

impl DccRp {
    /// A reaction point with setting `aimd`, starting at rate `initial` and never above
    /// `ceiling` (the smaller of line rate and what the application offers). Its first
    /// slot ends `(1 − phase)` slots after it starts (`phase` in [0, 1)), so that sources
    /// started together do not add `a` in lock-step.
    pub fn new(params: &DccParams, aimd: Aimd, initial: Rate, ceiling: Rate, phase: f64) -> DccRp {
        let step = params.step.as_f64();
        let w_max = (ceiling.as_f64() / step).max(params.w_min);
        DccRp {
            aimd,
            step,
            slot: params.slot_length(),
            t_halt: params.t_halt,
            w_min: params.w_min,
            w_floor: params.w_floor,
            w_max,
            increase_every_slot: params.increase_every_slot,
            w: (initial.as_f64() / step).clamp(params.w_min, w_max),
            slot_end: None,
            slot_start: Time::ZERO,
            phase: phase.clamp(0.0, 0.999),
            decreased: false,
            halted_until: None,
        }
    }

    /// The window, in units of the rate step.
    pub fn window(&self) -> f64 {
        self.w
    }
}

impl ReactionPoint for DccRp {
    #[inline]
    fn rate(&self) -> Rate {
        if self.halted_until.is_some() { Rate::ZERO } else { Rate::from_bps_f64(self.w * self.step) }
    }

    fn timer(&self) -> Option<Time> {
        self.halted_until.or(self.slot_end)
    }

    fn on_start(&mut self, now: Time) -> bool {
        if self.halted_until.is_none() {
            self.slot_start = now + Time((self.slot.0 as f64 * (1.0 - self.phase)).round() as u64);
            self.slot_end = Some(self.slot_start);
            self.decreased = false;
        }
        true
    }

    fn on_feedback(&mut self, now: Time, _cpid: u32, feedback: &Feedback) -> bool {
        if self.halted_until.is_some() {
            return false;
        }
        match feedback {
            // W ← 1.0·W: the rate is unchanged, but the slot saw a decrease (eq. 2's rule).
            Feedback::Decrease if self.aimd.misbehaves() => {
                self.decreased = true;
                return false;
            }
            Feedback::Decrease => {
                self.w = (self.aimd.b * self.w).max(self.w_floor);
                self.decreased = true;
                // A window at its ceiling stops counting slots; a decrease starts them again,
                // on the same slot boundaries as before.
                if self.slot_end.is_none() {
                    let k = (now - self.slot_start).0 / self.slot.0 + 1;
                    self.slot_end = Some(self.slot_start + Time(k * self.slot.0));
                }
            }
            Feedback::Halt => {
                self.halted_until = Some(now + self.t_halt);
                self.slot_end = None;
            }
            _ => return false,
        }
        true
    }

    fn on_timer(&mut self, now: Time) -> bool {
        if self.halted_until.is_some_and(|t| t <= now) {
            self.halted_until = None;
            self.w = self.w_min;
            self.decreased = false;
            self.slot_start = now + self.slot;
            self.slot_end = Some(self.slot_start);
            return true;
        }
        let Some(end) = self.slot_end.filter(|&t| t <= now) else { return false };
        if !self.decreased || self.increase_every_slot {
            self.w = (self.w + self.aimd.a).min(self.w_max);
        }
        self.decreased = false;
        // At the ceiling there is nothing to add: no slots until the next decrease (so a
        // flow that has finished does not tick for the rest of the run).
        self.slot_end = (self.w < self.w_max).then_some(end + self.slot);
        true
    }
}
