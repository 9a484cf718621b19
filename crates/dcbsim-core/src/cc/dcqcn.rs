//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
//! SIGCOMM 2015): RED-like ECN marking at switch egress (the congestion point), a
//! notification point at the receiver that turns marks into CNPs, at most one per
//! flow per `N`, and a reaction point with α and QCN's rate increase.
//!
//! The reaction point (§3.1 of the paper, its Fig. 6 pseudo-code):
//!
//! - on a CNP: `R_T ← R_C`, `R_C ← R_C·(1 − α/2)`, `α ← (1 − g)·α + g`; the timer,
//!   the byte counter and their stage counts restart;
//! - every `K` without a CNP: `α ← (1 − g)·α`;
//! - each expiry of the timer `T` or of the byte counter `B` ends a stage: with
//!   `i = min(T stages, B stages)` and `j = max(...)`: fast recovery while `j < F`
//!   (`R_C ← (R_T + R_C)/2`), hyper increase once `i > F` (`R_T ← R_T + i·R_HAI`,
//!   then the average), additive increase otherwise (`R_T ← R_T + R_AI`, then the
//!   average).
//!
//! The congestion point is the RED marker ([`DcqcnCp`], asked by its port about each
//! ECN-capable frame); the notification point is the engine's receiver answer
//! ([`Scheme::receiver_answer`]), paced per flow by `N`.

use super::{Arrival, CongestionPoint, CpInit, Feedback, Notify, ReactionPoint, ReceiverAnswer, RpInit, Scheme};
use crate::param::Range::{Fraction, NonNegative, Positive};
use crate::param::{Param, ParamError, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// DCQCN's parameters. `Default` is the SIGCOMM 2015 paper's setting for 40 Gb/s.
#[derive(Clone, Debug, PartialEq)]
pub struct DcqcnParams {
    /// RED marking starts above this queue, bytes (`K_min`).
    pub k_min: u64,
    /// Marking probability reaches `P_max` here; above it every frame is marked.
    pub k_max: u64,
    /// Marking probability at `K_max`.
    pub p_max: f64,
    /// α's gain `g`.
    pub g: f64,
    /// The notification point sends at most one CNP per flow per this interval (`N`).
    pub cnp_interval: Time,
    /// α decays once per this period without a CNP (`K`).
    pub alpha_period: Time,
    /// The rate-increase timer (`T`).
    pub timer_period: Time,
    /// The byte counter (`B`), bytes.
    pub byte_counter: u64,
    /// Fast-recovery stages (`F`).
    pub fast_recovery: u32,
    /// Additive increase step (`R_AI`).
    pub r_ai: Rate,
    /// Hyper increase step (`R_HAI`).
    pub r_hai: Rate,
    /// A CNP cuts the rate at most once per this period (zero: every CNP cuts; the
    /// notification point's `N` already spaces them).
    pub reduction_period: Time,
    /// The rate never falls below this.
    pub r_min: Rate,
    /// α when a flow starts.
    pub initial_alpha: f64,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams {
            k_min: 5 * 1024,
            k_max: 200 * 1024,
            p_max: 0.01,
            g: 1.0 / 256.0,
            cnp_interval: Time::from_us(50),
            alpha_period: Time::from_us(55),
            timer_period: Time::from_us(55),
            byte_counter: 10 * 1024 * 1024,
            fast_recovery: 5,
            r_ai: Rate::from_bps_f64(40e6),
            r_hai: Rate::from_bps_f64(400e6),
            reduction_period: Time::ZERO,
            r_min: Rate::from_bps_f64(10e6),
            initial_alpha: 1.0,
        }
    }
}

impl DcqcnParams {
    /// Checks what one parameter alone cannot: `K_max > K_min`.
    pub fn check_order(&self) -> Result<(), ParamError> {
        if self.k_max <= self.k_min {
            return Err(ParamError::Inconsistent(format!("k_max_kb must exceed k_min_kb ({} <= {} bytes)", self.k_max, self.k_min)));
        }
        Ok(())
    }

    /// RED's marking probability for a frame that finds `queue` bytes.
    pub fn mark_probability(&self, queue: u64) -> f64 {
        if queue <= self.k_min {
            0.0
        } else if queue > self.k_max {
            1.0
        } else {
            self.p_max * (queue - self.k_min) as f64 / (self.k_max - self.k_min) as f64
        }
    }
}

impl Params for DcqcnParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "k_min_kb",
            range: NonNegative,
            default: "5 KB (SIGCOMM 2015, 40 Gb/s)",
            doc: "RED marking starts above this queue (`K_min`)",
            set: Setter::Bytes(|p, v| p.k_min = v),
        },
        Param {
            name: "k_max_kb",
            range: Positive,
            default: "200 KB",
            doc: "marking probability reaches `P_max` here; every frame above is marked",
            set: Setter::Bytes(|p, v| p.k_max = v),
        },
        Param {
            name: "p_max",
            range: Fraction,
            default: "0.01",
            doc: "marking probability at `K_max`",
            set: Setter::Real(|p, v| p.p_max = v),
        },
        Param { name: "g", range: Fraction, default: "1/256", doc: "α's gain `g`", set: Setter::Real(|p, v| p.g = v) },
        Param {
            name: "cnp_interval_us",
            range: NonNegative,
            default: "50 µs",
            doc: "a receiver sends at most one CNP per flow per this interval (`N`)",
            set: Setter::Time(|p, v| p.cnp_interval = v),
        },
        Param {
            name: "alpha_period_us",
            range: Positive,
            default: "55 µs",
            doc: "α decays once per this period without a CNP (`K`)",
            set: Setter::Time(|p, v| p.alpha_period = v),
        },
        Param {
            name: "timer_us",
            range: Positive,
            default: "55 µs",
            doc: "the rate-increase timer (`T`)",
            set: Setter::Time(|p, v| p.timer_period = v),
        },
        Param {
            name: "byte_counter_kb",
            range: Positive,
            default: "10 MB",
            doc: "the byte counter (`B`)",
            set: Setter::Bytes(|p, v| p.byte_counter = v),
        },
        Param {
            name: "fast_recovery",
            range: Positive,
            default: "5",
            doc: "fast-recovery stages (`F`)",
            set: Setter::Count(|p, v| p.fast_recovery = v),
        },
        Param {
            name: "r_ai_mbps",
            range: Positive,
            default: "40 Mb/s",
            doc: "additive increase step (`R_AI`)",
            set: Setter::Rate(|p, v| p.r_ai = v),
        },
        Param {
            name: "r_hai_mbps",
            range: Positive,
            default: "400 Mb/s",
            doc: "hyper increase step (`R_HAI`)",
            set: Setter::Rate(|p, v| p.r_hai = v),
        },
        Param {
            name: "reduction_period_us",
            range: NonNegative,
            default: "0 (every CNP cuts)",
            doc: "a CNP cuts the rate at most once per this period",
            set: Setter::Time(|p, v| p.reduction_period = v),
        },
        Param {
            name: "r_min_mbps",
            range: Positive,
            default: "10 Mb/s",
            doc: "the rate never falls below this",
            set: Setter::Rate(|p, v| p.r_min = v),
        },
        Param {
            name: "initial_alpha",
            range: Fraction,
            default: "1",
            doc: "α when a flow starts",
            set: Setter::Real(|p, v| p.initial_alpha = v),
        },
    ];
}

impl Scheme for DcqcnParams {
    type Cp = DcqcnCp;
    type Rp = DcqcnRp;
    type Params = DcqcnParams;
    const NAMES: &'static [&'static str] = &["dcqcn"];
    const CP_STREAM: &'static str = "red";

    fn params_mut(&mut self) -> &mut DcqcnParams {
        self
    }
    fn check(&self) -> Result<(), ParamError> {
        self.check_order()
    }
    fn congestion_point(&self, _init: CpInit, rng: Rng) -> Option<DcqcnCp> {
        Some(DcqcnCp { params: self.clone(), rng })
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> DcqcnRp {
        DcqcnRp::new(self.clone(), init.line_rate, init.initial_rate)
    }
    fn reconfigure_cp(&self, cp: &mut DcqcnCp) {
        cp.params = self.clone();
    }
    fn reconfigure_rp(&self, rp: &mut DcqcnRp) {
        rp.params = self.clone();
    }
    fn marks_ecn(&self) -> bool {
        true
    }
    fn receiver_answer(&self) -> Option<ReceiverAnswer> {
        Some(ReceiverAnswer { interval: self.cnp_interval, feedback: Feedback::Cnp })
    }
}

/// DCQCN's congestion point: RED-like ECN marking of the frames that find the queue
/// above `K_min` (a probability rising linearly to `P_max` at `K_max`, every frame
/// above `K_max`). It sends no notifications itself: receivers answer the marks.
#[derive(Clone, Debug)]
pub struct DcqcnCp {
    params: DcqcnParams,
    /// The port's own stream (`red:<port>`).
    rng: Rng,
}

impl CongestionPoint for DcqcnCp {
    const COUNTS_UNSAMPLED: bool = true;
    fn on_arrival(&mut self, _arrival: &Arrival, _out: &mut Vec<Notify>) {}
    #[inline(always)]
    fn passes_unsampled(&mut self, _bytes: u32) -> bool {
        true
    }
    #[inline]
    fn marks_ecn(&mut self, queue_bytes: u64) -> bool {
        let p = self.params.mark_probability(queue_bytes);
        p >= 1.0 || (p > 0.0 && self.rng.uniform() < p)
    }
}

/// DCQCN's reaction point for one flow.
#[derive(Clone, Debug)]
pub struct DcqcnRp {
    params: DcqcnParams,
    line: f64,
    current: f64,
    target: f64,
    alpha: f64,
    /// Whether a CNP has arrived yet (before one, the flow sends at its start rate
    /// and no timer runs).
    engaged: bool,
    timer_stages: u32,
    byte_stages: u32,
    bytes_left: u64,
    increase_at: Time,
    alpha_at: Time,
    last_cut: Option<Time>,
}

impl DcqcnRp {
    /// A reaction point starting at `initial` on a NIC of `line` rate.
    pub fn new(params: DcqcnParams, line: Rate, initial: Rate) -> DcqcnRp {
        let rate = initial.as_f64().min(line.as_f64());
        DcqcnRp {
            line: line.as_f64(),
            current: rate,
            target: rate,
            alpha: params.initial_alpha,
            engaged: false,
            timer_stages: 0,
            byte_stages: 0,
            bytes_left: params.byte_counter,
            increase_at: Time::ZERO,
            alpha_at: Time::ZERO,
            last_cut: None,
            params,
        }
    }

    /// Current rate `R_C`, bits/s.
    pub fn current_rate(&self) -> f64 {
        self.current
    }

    /// Target rate `R_T`, bits/s.
    pub fn target_rate(&self) -> f64 {
        self.target
    }

    /// α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// One stage of rate increase has ended.
    fn increase(&mut self) {
        let f = self.params.fast_recovery;
        let (i, j) = (self.timer_stages.min(self.byte_stages), self.timer_stages.max(self.byte_stages));
        if j < f {
            // Fast recovery: towards the target, which stays.
        } else if i > f {
            self.target += (i - f) as f64 * self.params.r_hai.as_f64();
        } else {
            self.target += self.params.r_ai.as_f64();
        }
        self.target = self.target.min(self.line);
        self.current = ((self.target + self.current) / 2.0).min(self.line);
    }
}

impl ReactionPoint for DcqcnRp {
    #[inline]
    fn rate(&self) -> Rate {
        Rate::from_bps_f64(self.current)
    }

    #[inline]
    fn timer(&self) -> Option<Time> {
        self.engaged.then(|| self.increase_at.min(self.alpha_at))
    }

    fn on_feedback(&mut self, now: Time, _cpid: u32, feedback: &Feedback) -> bool {
        let Feedback::Cnp = *feedback else { return false };
        if self.last_cut.is_some_and(|t| now < t + self.params.reduction_period) {
            return false;
        }
        self.last_cut = Some(now);
        self.engaged = true;
        self.target = self.current;
        self.current = (self.current * (1.0 - self.alpha / 2.0)).max(self.params.r_min.as_f64());
        self.alpha = (1.0 - self.params.g) * self.alpha + self.params.g;
        self.timer_stages = 0;
        self.byte_stages = 0;
        self.bytes_left = self.params.byte_counter;
        self.increase_at = now + self.params.timer_period;
        self.alpha_at = now + self.params.alpha_period;
        true
    }

    #[inline]
    fn on_sent(&mut self, _now: Time, bytes: u32) -> bool {
        if !self.engaged {
            return false;
        }
        if self.bytes_left > bytes as u64 {
            self.bytes_left -= bytes as u64;
            return false;
        }
        self.bytes_left = self.params.byte_counter;
        self.byte_stages += 1;
        self.increase();
        true
    }

    fn on_timer(&mut self, now: Time) -> bool {
        if !self.engaged {
            return false;
        }
        if now >= self.alpha_at {
            self.alpha *= 1.0 - self.params.g;
            self.alpha_at = now + self.params.alpha_period;
        }
        if now >= self.increase_at {
            self.timer_stages += 1;
            self.increase_at = now + self.params.timer_period;
            self.increase();
        }
        true
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}
