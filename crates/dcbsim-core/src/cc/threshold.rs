//! Threshold notification: the smallest congestion point and reaction point worth the
//! name, and the worked example of `docs/writing-a-scheme.md`.
//!
//! The congestion point samples one frame every `sample_bytes` bytes and, when the
//! queue then exceeds `K`, tells the sampled frame's source to slow down (one bit, as
//! BCN's negative-only variants and ECN do). The reaction point cuts its rate by the
//! factor `β` on a notification, at most once per `hold`, and adds `step` every
//! `period` up to line rate: AIMD on a rate. See `docs/models/threshold.md`.

use super::{Arrival, CongestionPoint, CpInit, Feedback, Notify, ReactionPoint, RpInit, Scheme};
use crate::param::Range::{Fraction, Positive};
use crate::param::{Param, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// The parameters of threshold notification. The defaults are ours (no paper defines
/// the scheme): `K` and the sampling as QCN's `Q_eq` and table's first entry, the
/// cut and step as DCC's.
#[derive(Clone, Debug, PartialEq)]
pub struct ThresholdParams {
    /// The queue above which a sample notifies, bytes (`K`).
    pub k: u64,
    /// Bytes between samples.
    pub sample_bytes: u64,
    /// The fraction of its rate a notified source gives up (`β`).
    pub beta: f64,
    /// A source heeds at most one notification per this time.
    pub hold: Time,
    /// The additive increase per period.
    pub step: Rate,
    /// The period of the increase.
    pub period: Time,
    /// The rate a source never goes below.
    pub r_min: Rate,
}

impl Default for ThresholdParams {
    fn default() -> Self {
        ThresholdParams {
            k: 33 * 1024,
            sample_bytes: 150_000,
            beta: 0.5,
            hold: Time::from_us(100),
            step: Rate::from_mbps(40),
            period: Time::from_us(100),
            r_min: Rate::from_mbps(10),
        }
    }
}

impl Params for ThresholdParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "k_kb",
            range: Positive,
            default: "33 KB",
            doc: "queue above which a sample notifies",
            set: Setter::Bytes(|p, v| p.k = v),
        },
        Param {
            name: "sample_bytes",
            range: Positive,
            default: "150 000 bytes",
            doc: "bytes between samples",
            set: Setter::Bytes(|p, v| p.sample_bytes = v),
        },
        Param {
            name: "beta",
            range: Fraction,
            default: "0.5",
            doc: "fraction of its rate a notified source gives up",
            set: Setter::Real(|p, v| p.beta = v),
        },
        Param {
            name: "hold_us",
            range: Positive,
            default: "100 µs",
            doc: "a source heeds at most one notification per this time",
            set: Setter::Time(|p, v| p.hold = v),
        },
        Param {
            name: "step_mbps",
            range: Positive,
            default: "40 Mb/s",
            doc: "additive increase per period",
            set: Setter::Rate(|p, v| p.step = v),
        },
        Param {
            name: "period_us",
            range: Positive,
            default: "100 µs",
            doc: "period of the increase",
            set: Setter::Time(|p, v| p.period = v),
        },
        Param {
            name: "r_min_mbps",
            range: Positive,
            default: "10 Mb/s",
            doc: "the rate a source never goes below",
            set: Setter::Rate(|p, v| p.r_min = v),
        },
    ];
}

impl Scheme for ThresholdParams {
    type Cp = ThresholdCp;
    type Rp = ThresholdRp;
    type Params = ThresholdParams;
    const NAMES: &'static [&'static str] = &["threshold"];

    fn params_mut(&mut self) -> &mut ThresholdParams {
        self
    }
    fn congestion_point(&self, _init: CpInit, _rng: Rng) -> Option<ThresholdCp> {
        Some(ThresholdCp { params: self.clone(), until_sample: self.sample_bytes as i64 })
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> ThresholdRp {
        let line = init.line_rate.as_f64();
        ThresholdRp { params: self.clone(), line, rate: init.initial_rate.as_f64().min(line), heeded: None, next_step: None }
    }
    fn reconfigure_cp(&self, cp: &mut ThresholdCp) {
        cp.params = self.clone();
        cp.until_sample = cp.until_sample.min(self.sample_bytes as i64);
    }
    fn reconfigure_rp(&self, rp: &mut ThresholdRp) {
        rp.params = self.clone();
    }
    fn queue_target(&self) -> Option<u64> {
        Some(self.k)
    }
}

/// A threshold congestion point.
#[derive(Clone, Debug)]
pub struct ThresholdCp {
    params: ThresholdParams,
    /// Bytes left before the next sample.
    until_sample: i64,
}

impl CongestionPoint for ThresholdCp {
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        self.until_sample = self.params.sample_bytes as i64;
        if arrival.queue_bytes > self.params.k {
            out.push(Notify { flow: arrival.flow, feedback: Feedback::Decrease });
        }
    }

    /// Counts the frame towards the next sample; the frame that reaches it is the
    /// sample, and only it costs an [`CongestionPoint::on_arrival`] call.
    const COUNTS_UNSAMPLED: bool = true;
    #[inline(always)]
    fn passes_unsampled(&mut self, bytes: u32) -> bool {
        self.until_sample -= bytes as i64;
        self.until_sample > 0
    }
}

/// A threshold reaction point: one flow's rate, AIMD.
#[derive(Clone, Debug)]
pub struct ThresholdRp {
    params: ThresholdParams,
    line: f64,
    rate: f64,
    /// When the last heeded notification came.
    heeded: Option<Time>,
    /// When the next increase is due.
    next_step: Option<Time>,
}

impl ReactionPoint for ThresholdRp {
    fn rate(&self) -> Rate {
        Rate::from_bps_f64(self.rate)
    }
    fn timer(&self) -> Option<Time> {
        self.next_step
    }
    fn on_start(&mut self, now: Time) -> bool {
        self.next_step = Some(now + self.params.period);
        true
    }
    fn on_feedback(&mut self, now: Time, _cpid: u32, feedback: &Feedback) -> bool {
        let Feedback::Decrease = feedback else { return false };
        if self.heeded.is_some_and(|t| now < t + self.params.hold) {
            return false;
        }
        self.heeded = Some(now);
        self.rate = (self.rate * (1.0 - self.params.beta)).max(self.params.r_min.as_f64());
        true
    }
    fn on_timer(&mut self, now: Time) -> bool {
        self.rate = (self.rate + self.params.step.as_f64()).min(self.line);
        self.next_step = Some(now + self.params.period);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(queue_bytes: u64) -> Arrival {
        Arrival { now: Time::ZERO, flow: 3, weight: 1.0, bytes: 1500, queue_bytes, dropped: false }
    }

    fn cp(params: &ThresholdParams) -> ThresholdCp {
        params
            .congestion_point(CpInit { capacity: Rate::from_gbps(10), buffer: 1 << 20, cpid: 0, frame_bytes: 1500 }, Rng::stream(0, "t"))
            .unwrap()
    }

    #[test]
    fn a_sample_above_k_notifies_its_source_and_one_below_does_not() {
        let params = ThresholdParams { sample_bytes: 3000, ..ThresholdParams::default() };
        let mut cp = cp(&params);
        let mut out = Vec::new();
        assert!(cp.passes_unsampled(1500), "the first frame is counted");
        assert!(!cp.passes_unsampled(1500), "the second reaches the sample");
        cp.on_arrival(&arrival(params.k + 1), &mut out);
        assert_eq!(out, [Notify { flow: 3, feedback: Feedback::Decrease }]);
        assert!(cp.passes_unsampled(1500) && !cp.passes_unsampled(1500));
        cp.on_arrival(&arrival(params.k), &mut out);
        assert_eq!(out.len(), 1, "at K, no notification");
    }

    #[test]
    fn the_rate_halves_once_per_hold_and_climbs_by_step_per_period() {
        let params = ThresholdParams::default();
        let init = RpInit {
            line_rate: Rate::from_gbps(10),
            initial_rate: Rate::from_gbps(10),
            flow: 0,
            ceiling: Rate::from_gbps(10),
            aimd: None,
            base_rtt: Time::ZERO,
        };
        let mut rp = params.reaction_point(init, Rng::stream(0, "t"));
        rp.on_start(Time::ZERO);
        assert!(rp.on_feedback(Time::from_us(1), 0, &Feedback::Decrease));
        assert_eq!(rp.rate(), Rate::from_gbps(5));
        assert!(!rp.on_feedback(Time::from_us(50), 0, &Feedback::Decrease), "within the hold");
        assert!(rp.on_feedback(Time::from_us(101), 0, &Feedback::Decrease));
        assert_eq!(rp.rate(), Rate::from_mbps(2500));
        assert_eq!(rp.timer(), Some(Time::from_us(100)));
        rp.on_timer(Time::from_us(100));
        assert_eq!(rp.rate(), Rate::from_mbps(2540));
        assert!(!rp.on_feedback(Time::from_us(300), 0, &Feedback::Halt), "other feedback is not its own");
    }
}
