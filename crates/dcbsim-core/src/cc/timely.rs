//! TIMELY (Mittal et al., SIGCOMM 2015): a rate steered by the gradient of the RTT.
//!
//! The source measures one RTT per completion event (a segment of `seg` bytes
//! acknowledged), keeps an EWMA of the difference between successive RTTs and
//! normalizes it by the minimum RTT. Below `T_low` it adds `δ`; above `T_high` it
//! cuts by `β·(1 − T_high/RTT)`; in between a negative or zero gradient adds `δ` (`N·δ`
//! once the gradient has been negative for `N` completions in a row: hyperactive
//! increase) and a positive one cuts by `β·gradient`. See `docs/models/timely.md`.

use super::fixed::NoCp;
use super::outstanding::Outstanding;
use super::{AckInfo, Acks, CpInit, Feedback, ReactionPoint, RpInit, Scheme};
use crate::param::Range::{Fraction, Open, Positive, Whole};
use crate::param::{Param, ParamError, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// The parameters of TIMELY.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelyParams {
    /// EWMA weight of a new RTT difference (`α`).
    pub alpha: f64,
    /// Multiplicative decrease factor (`β`).
    pub beta: f64,
    /// Additive increment (`δ`).
    pub delta: Rate,
    /// Below this RTT the rate only grows (`T_low`).
    pub t_low: Time,
    /// Above this RTT the rate only falls (`T_high`).
    pub t_high: Time,
    /// The minimum RTT that normalizes the gradient.
    pub min_rtt: Time,
    /// Completions of negative gradient before hyperactive increase (`N`), and its
    /// multiple of `δ`.
    pub hai_after: u32,
    /// Bytes of one completion event (a segment).
    pub seg: u64,
    /// The least rate.
    pub r_min: Rate,
    /// The retransmission timeout (go-back-N).
    pub rto: Time,
}

impl Default for TimelyParams {
    fn default() -> Self {
        TimelyParams {
            alpha: 0.875,
            beta: 0.8,
            delta: Rate::from_mbps(10),
            t_low: Time::from_us(50),
            t_high: Time::from_us(500),
            min_rtt: Time::from_us(20),
            hai_after: 5,
            seg: 16_384,
            r_min: Rate::from_bps(262_144_000),
            rto: Time::from_us(1000),
        }
    }
}

impl Params for TimelyParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "alpha",
            range: Fraction,
            default: "0.875",
            doc: "EWMA weight of a new RTT difference α (unverified)",
            set: Setter::Real(|p, v| p.alpha = v),
        },
        Param {
            name: "beta",
            range: Open,
            default: "0.8",
            doc: "multiplicative decrease factor β (unverified)",
            set: Setter::Real(|p, v| p.beta = v),
        },
        Param {
            name: "delta_mbps",
            range: Positive,
            default: "10 Mb/s",
            doc: "additive increment δ (unverified)",
            set: Setter::Rate(|p, v| p.delta = v),
        },
        Param {
            name: "t_low_us",
            range: Positive,
            default: "50 µs",
            doc: "below this RTT the rate only grows, T_low (unverified)",
            set: Setter::Time(|p, v| p.t_low = v),
        },
        Param {
            name: "t_high_us",
            range: Positive,
            default: "500 µs",
            doc: "above this RTT the rate only falls, T_high (unverified)",
            set: Setter::Time(|p, v| p.t_high = v),
        },
        Param {
            name: "min_rtt_us",
            range: Positive,
            default: "20 µs",
            doc: "the minimum RTT that normalizes the gradient (unverified)",
            set: Setter::Time(|p, v| p.min_rtt = v),
        },
        Param {
            name: "hai_after",
            range: Whole(1, 1000),
            default: "5",
            doc: "completions of negative gradient before hyperactive increase N·δ (unverified)",
            set: Setter::Count(|p, v| p.hai_after = v),
        },
        Param {
            name: "seg_kb",
            range: Positive,
            default: "16 KB",
            doc: "bytes of one completion event (a segment; the paper: 16–64 KB)",
            set: Setter::Bytes(|p, v| p.seg = v),
        },
        Param {
            name: "r_min_mbps",
            range: Positive,
            default: "262.144 Mb/s",
            doc: "the least rate (ours: a segment per T_high, 16 KB / 500 µs; the paper gives none)",
            set: Setter::Rate(|p, v| p.r_min = v),
        },
        Param {
            name: "rto_us",
            range: Positive,
            default: "1000 µs",
            doc: "retransmission timeout of go-back-N, at least 1 µs (ours: RoCE's is configured per NIC)",
            set: Setter::Time(|p, v| p.rto = v),
        },
    ];
}

/// Bytes of an acknowledgement.
const ACK_BYTES: u32 = 64;

impl Scheme for TimelyParams {
    type Cp = NoCp;
    type Rp = TimelyRp;
    type Params = TimelyParams;
    const NAMES: &'static [&'static str] = &["timely"];

    fn params_mut(&mut self) -> &mut TimelyParams {
        self
    }
    fn check(&self) -> Result<(), ParamError> {
        super::outstanding::check_rto(self.rto)?;
        if self.t_low >= self.t_high {
            return Err(ParamError::Inconsistent(format!(
                "t_low_us must be below t_high_us ({} >= {} µs)",
                self.t_low.as_secs_f64() * 1e6,
                self.t_high.as_secs_f64() * 1e6
            )));
        }
        Ok(())
    }
    fn congestion_point(&self, _init: CpInit, _rng: Rng) -> Option<NoCp> {
        None
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> TimelyRp {
        let line = init.ceiling.as_f64();
        TimelyRp {
            params: self.clone(),
            line,
            rate: init.initial_rate.as_f64().min(line),
            prev_rtt: None,
            rtt_diff: 0.0,
            negative_run: 0,
            acked_in_seg: 0,
            rtt: None,
            outstanding: Outstanding::new(self.rto),
        }
    }
    fn reconfigure_rp(&self, rp: &mut TimelyRp) {
        rp.params = self.clone();
        rp.outstanding.set_rto(self.rto);
    }
    fn acks(&self) -> Option<Acks> {
        Some(Acks { ack_bytes: ACK_BYTES, header_bytes: 0, telemetry: false })
    }
}

/// A TIMELY source: one flow's rate.
#[derive(Clone, Debug)]
pub struct TimelyRp {
    params: TimelyParams,
    /// Line rate (or the flow's cap), bits/s.
    line: f64,
    /// The rate, bits/s.
    rate: f64,
    /// The previous completion's RTT, seconds.
    prev_rtt: Option<f64>,
    /// The EWMA of RTT differences, seconds.
    rtt_diff: f64,
    /// Completions in a row with a negative gradient.
    negative_run: u32,
    /// Payload acknowledged since the last completion event.
    acked_in_seg: u64,
    /// The last completion's RTT.
    rtt: Option<Time>,
    /// Bytes sent and acknowledged, and the retransmission timer.
    outstanding: Outstanding,
}

impl TimelyRp {
    /// One completion event with RTT `rtt` (Algorithm 1 of the paper).
    fn on_completion(&mut self, rtt: Time) {
        let p = &self.params;
        let new_rtt = rtt.as_secs_f64();
        let Some(prev) = self.prev_rtt.replace(new_rtt) else { return };
        self.rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * (new_rtt - prev);
        let gradient = self.rtt_diff / p.min_rtt.as_secs_f64();
        let delta = p.delta.as_f64();
        if rtt < p.t_low {
            self.negative_run = 0;
            self.rate += delta;
        } else if rtt > p.t_high {
            self.negative_run = 0;
            self.rate *= 1.0 - p.beta * (1.0 - p.t_high.as_secs_f64() / new_rtt);
        } else if gradient <= 0.0 {
            self.negative_run += 1;
            let n = if self.negative_run >= p.hai_after { p.hai_after as f64 } else { 1.0 };
            self.rate += n * delta;
        } else {
            self.negative_run = 0;
            self.rate *= (1.0 - p.beta * gradient).max(0.0);
        }
        self.rate = self.rate.clamp(p.r_min.as_f64().min(self.line), self.line);
    }
}

impl ReactionPoint for TimelyRp {
    fn rate(&self) -> Rate {
        Rate::from_bps_f64(self.rate)
    }
    fn timer(&self) -> Option<Time> {
        self.outstanding.timer()
    }
    fn on_feedback(&mut self, _now: Time, _cpid: u32, _feedback: &Feedback) -> bool {
        false
    }
    fn on_sent(&mut self, now: Time, bytes: u32) -> bool {
        self.outstanding.on_sent(now, bytes)
    }
    fn on_timer(&mut self, now: Time) -> bool {
        self.outstanding.on_timer(now);
        true
    }
    fn take_go_back(&mut self) -> Option<u64> {
        self.outstanding.take_go_back()
    }
    fn on_go_back(&mut self, now: Time, to: u64) -> bool {
        self.outstanding.on_go_back(now, to);
        false
    }
    fn wants_acks(&self) -> bool {
        true
    }
    /// A segment is complete when its last byte is acknowledged: its RTT is that
    /// frame's (sent to acknowledged).
    fn on_ack(&mut self, now: Time, ack: &AckInfo) -> bool {
        self.outstanding.on_ack(now, ack.cumulative);
        if ack.nack {
            return false;
        }
        self.acked_in_seg += ack.payload as u64;
        if self.acked_in_seg < self.params.seg {
            return false;
        }
        self.acked_in_seg = 0;
        let rtt = now - ack.sent;
        self.rtt = Some(rtt);
        let before = self.rate;
        self.on_completion(rtt);
        self.rate != before
    }
    fn last_rtt(&self) -> Option<Time> {
        self.rtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rp() -> TimelyRp {
        let line = Rate::from_gbps(10);
        let init = RpInit { line_rate: line, initial_rate: Rate::from_gbps(5), flow: 0, ceiling: line, aimd: None, base_rtt: Time::ZERO };
        TimelyParams::default().reaction_point(init, Rng::stream(1, "t"))
    }

    fn complete(rp: &mut TimelyRp, rtt_us: u64) -> f64 {
        let ack = AckInfo { sent: Time::ZERO, payload: 16_384, seq_end: 0, cumulative: 0, nack: false, hops: &[] };
        rp.on_ack(Time::from_us(rtt_us), &ack);
        rp.rate
    }

    #[test]
    fn below_t_low_adds_delta_and_above_t_high_cuts() {
        let mut rp = rp();
        complete(&mut rp, 30);
        assert_eq!(complete(&mut rp, 30), 5e9 + 10e6);
        let before = rp.rate;
        let after = complete(&mut rp, 1000);
        assert!((after - before * (1.0 - 0.8 * (1.0 - 0.5))).abs() < 1.0, "{after}");
    }

    #[test]
    fn a_rising_rtt_between_the_thresholds_cuts_by_the_gradient() {
        let mut rp = rp();
        complete(&mut rp, 100);
        let after = complete(&mut rp, 110);
        // rtt_diff = 0.875 · 10 µs; gradient = 8.75 / 20.
        assert!((after - 5e9 * (1.0 - 0.8 * 8.75 / 20.0)).abs() < 1.0, "{after}");
    }

    #[test]
    fn five_falling_completions_in_a_row_turn_on_hyperactive_increase() {
        let mut rp = rp();
        complete(&mut rp, 300);
        let mut rates = vec![rp.rate];
        for k in 1..=6 {
            rates.push(complete(&mut rp, 300 - 10 * k));
        }
        let steps: Vec<f64> = rates.windows(2).map(|w| (w[1] - w[0]).round()).collect();
        assert_eq!(steps, [10e6, 10e6, 10e6, 10e6, 50e6, 50e6]);
    }

    #[test]
    fn partial_segments_make_no_completion() {
        let mut rp = rp();
        let ack = AckInfo { sent: Time::ZERO, payload: 1000, seq_end: 0, cumulative: 0, nack: false, hops: &[] };
        for _ in 0..16 {
            assert!(!rp.on_ack(Time::from_us(30), &ack));
        }
        assert!(rp.rtt.is_none());
        rp.on_ack(Time::from_us(30), &ack);
        assert_eq!(rp.rtt, Some(Time::from_us(30)));
    }
}
