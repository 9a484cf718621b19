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
//! The marking and the notification point live in the engine (the port's RED
//! marker, the receiver's CNP pacing); this file holds their parameters and the RP.

use super::{Feedback, ParamValue, ReactionPoint};
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
    /// Every parameter's scenario name.
    pub const NAMES: &'static [&'static str] = &[
        "k_min_kb",
        "k_max_kb",
        "p_max",
        "g",
        "cnp_interval_us",
        "alpha_period_us",
        "timer_us",
        "byte_counter_kb",
        "fast_recovery",
        "r_ai_mbps",
        "r_hai_mbps",
        "reduction_period_us",
        "r_min_mbps",
        "initial_alpha",
    ];

    /// Sets one parameter by its scenario name, checking its range.
    pub fn set(&mut self, name: &str, value: &ParamValue) -> Result<(), String> {
        let pos = || value.positive(name);
        let us = |x: f64| Time::from_us_f64(x);
        let fraction = |x: f64| if x <= 1.0 { Ok(x) } else { Err(format!("{name} must be in (0, 1] (got {x})")) };
        match name {
            "k_min_kb" => self.k_min = (value.number(name)?.max(0.0) * 1024.0).round() as u64,
            "k_max_kb" => self.k_max = (pos()? * 1024.0).round() as u64,
            "p_max" => self.p_max = fraction(pos()?)?,
            "g" => self.g = fraction(pos()?)?,
            "cnp_interval_us" => self.cnp_interval = us(value.number(name)?.max(0.0)),
            "alpha_period_us" => self.alpha_period = us(pos()?),
            "timer_us" => self.timer_period = us(pos()?),
            "byte_counter_kb" => self.byte_counter = (pos()? * 1024.0).round() as u64,
            "fast_recovery" => self.fast_recovery = pos()?.round() as u32,
            "r_ai_mbps" => self.r_ai = Rate::from_bps_f64(pos()? * 1e6),
            "r_hai_mbps" => self.r_hai = Rate::from_bps_f64(pos()? * 1e6),
            "reduction_period_us" => self.reduction_period = us(value.number(name)?.max(0.0)),
            "r_min_mbps" => self.r_min = Rate::from_bps_f64(pos()? * 1e6),
            "initial_alpha" => self.initial_alpha = fraction(pos()?)?,
            _ => return Err(format!("unknown parameter; allowed: {}", Self::NAMES.join(", "))),
        }
        Ok(())
    }

    /// Checks what one parameter alone cannot: `K_max > K_min`.
    pub fn check(&self) -> Result<(), String> {
        if self.k_max <= self.k_min {
            return Err(format!("k_max_kb must exceed k_min_kb ({} <= {} bytes)", self.k_max, self.k_min));
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

    fn set_param(&mut self, name: &str, value: &ParamValue) {
        let _ = self.params.set(name, value);
    }
}
