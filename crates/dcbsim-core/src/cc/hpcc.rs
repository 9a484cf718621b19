//! HPCC (Li et al., SIGCOMM 2019): a window steered by in-band telemetry.
//!
//! Every switch egress adds to each data frame its queue, the bytes it has
//! transmitted, the time and its capacity; the receiver echoes them in a per-frame
//! acknowledgement. From two successive records of each hop the source works out the
//! hop's normalized inflight `U = min(q, q')/(B·T) + txRate/B`, takes the most loaded
//! hop, smooths it over the base RTT `T`, and sets its window: multiplicatively
//! towards `η` when `U ≥ η` (or after `maxStage` additive steps), else by the additive
//! `W_AI`; the reference window `W_c` moves once per RTT, the window on every
//! acknowledgement. It paces at `W/T` and sends while less than `W` is unacknowledged.
//! See `docs/models/hpcc.md`.

use super::fixed::NoCp;
use super::outstanding::Outstanding;
use super::{AckInfo, Acks, CpInit, Feedback, ReactionPoint, RpInit, Scheme};
use crate::net::telemetry::{HopRecord, MAX_HOPS};
use crate::param::Range::{NonNegative, Open, Positive, Whole};
use crate::param::{Param, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// The parameters of HPCC.
#[derive(Clone, Debug, PartialEq)]
pub struct HpccParams {
    /// Target utilization `η`.
    pub eta: f64,
    /// Additive steps before a multiplicative update is forced (`maxStage`).
    pub max_stage: u32,
    /// The additive increase `W_AI`, bytes (zero: `W_init·(1 − η)/N`).
    pub w_ai: u64,
    /// `N` of the derived `W_AI`: the concurrent flows a link is expected to carry.
    pub expected_flows: u32,
    /// The base RTT `T` (zero: each flow's own path's).
    pub base_rtt: Time,
    /// Hops the INT header has room for (each adds 8 bytes to every data frame).
    pub int_hops: u32,
    /// The least rate a source paces at.
    pub r_min: Rate,
    /// The retransmission timeout (go-back-N).
    pub rto: Time,
}

impl Default for HpccParams {
    fn default() -> Self {
        HpccParams {
            eta: 0.95,
            max_stage: 5,
            w_ai: 0,
            expected_flows: 125,
            base_rtt: Time::ZERO,
            int_hops: 5,
            r_min: Rate::from_mbps(100),
            rto: Time::from_us(1000),
        }
    }
}

impl Params for HpccParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "eta", range: Open, default: "0.95", doc: "target utilization η (paper §3.3)", set: Setter::Real(|p, v| p.eta = v)
        },
        Param {
            name: "max_stage",
            range: Whole(0, 1000),
            default: "5",
            doc: "additive steps before a multiplicative update is forced (paper §3.3)",
            set: Setter::Count(|p, v| p.max_stage = v),
        },
        Param {
            name: "w_ai_bytes",
            range: NonNegative,
            default: "0 (derived: W_init·(1 − η)/expected_flows)",
            doc: "additive increase W_AI (paper §3.3 gives the rule, not a number)",
            set: Setter::Bytes(|p, v| p.w_ai = v),
        },
        Param {
            name: "expected_flows",
            range: Whole(1, 1_000_000),
            default: "125",
            doc: "N in the derived W_AI (ours: the public simulator's AI step, B/2500)",
            set: Setter::Count(|p, v| p.expected_flows = v),
        },
        Param {
            name: "base_rtt_us",
            range: NonNegative,
            default: "0 (each flow's own path)",
            doc: "base RTT T; W_init = line rate × T",
            set: Setter::Time(|p, v| p.base_rtt = v),
        },
        Param {
            name: "int_hops",
            range: Whole(1, MAX_HOPS as u32),
            default: "5",
            doc: "hops the INT header holds: 2 + 8 per hop bytes on every data frame",
            set: Setter::Count(|p, v| p.int_hops = v),
        },
        Param {
            name: "r_min_mbps",
            range: Positive,
            default: "100 Mb/s",
            doc: "the least pacing rate (ours: the paper gives none)",
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

/// Bytes of an acknowledgement without its INT echo.
const ACK_BYTES: u32 = 64;

impl HpccParams {
    /// Bytes the INT header adds to a frame: the hop count and 8 bytes per hop.
    fn int_bytes(&self) -> u32 {
        2 + 8 * self.int_hops
    }
}

impl Scheme for HpccParams {
    type Cp = NoCp;
    type Rp = HpccRp;
    type Params = HpccParams;
    const NAMES: &'static [&'static str] = &["hpcc"];

    fn params_mut(&mut self) -> &mut HpccParams {
        self
    }
    fn check(&self) -> Result<(), crate::param::ParamError> {
        super::outstanding::check_rto(self.rto)
    }
    fn congestion_point(&self, _init: CpInit, _rng: Rng) -> Option<NoCp> {
        None
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> HpccRp {
        HpccRp::new(self.clone(), &init)
    }
    fn reconfigure_rp(&self, rp: &mut HpccRp) {
        rp.params = self.clone();
        rp.outstanding.set_rto(self.rto);
        rp.derive();
    }
    fn acks(&self) -> Option<Acks> {
        let header_bytes = self.int_bytes();
        Some(Acks { ack_bytes: ACK_BYTES + header_bytes, header_bytes, telemetry: true })
    }
}

/// An HPCC source: one flow's window and pacing rate.
#[derive(Clone, Debug)]
pub struct HpccRp {
    params: HpccParams,
    /// Line rate, bytes per second.
    line: f64,
    /// The flow's own path's base RTT.
    path_rtt: Time,
    /// `T`, seconds.
    t: f64,
    /// `W_init = line·T`, bytes.
    w_init: f64,
    /// `W_AI`, bytes.
    w_ai: f64,
    /// The least window, bytes (`r_min·T`).
    w_min: f64,
    /// The window `W`, bytes.
    window: f64,
    /// The reference window `W_c`, bytes.
    w_c: f64,
    /// The smoothed normalized inflight `U`.
    u: f64,
    /// Additive steps since the last multiplicative one.
    inc_stage: u32,
    /// The last records of each hop (`L`); boxed, so that every flow's reaction point
    /// (an enum as large as its largest scheme's) stays small.
    last: Box<[HopRecord; MAX_HOPS]>,
    /// Hops in `last` (zero: no acknowledgement yet).
    last_hops: usize,
    /// `W_c` moves on the first acknowledgement of a frame sent after this byte.
    last_update_seq: u64,
    /// Bytes sent and acknowledged, and the retransmission timer.
    outstanding: Outstanding,
    /// The last RTT measured.
    rtt: Option<Time>,
}

impl HpccRp {
    fn new(params: HpccParams, init: &RpInit) -> HpccRp {
        let mut rp = HpccRp {
            outstanding: Outstanding::new(params.rto),
            params,
            line: init.ceiling.as_f64() / 8.0,
            path_rtt: init.base_rtt,
            t: 0.0,
            w_init: 0.0,
            w_ai: 0.0,
            w_min: 0.0,
            window: 0.0,
            w_c: 0.0,
            u: 0.0,
            inc_stage: 0,
            last: Box::new([HopRecord::default(); MAX_HOPS]),
            last_hops: 0,
            last_update_seq: 0,
            rtt: None,
        };
        rp.derive();
        rp.window = rp.w_init;
        rp.w_c = rp.w_init;
        rp
    }

    /// Works out `T`, `W_init`, `W_AI` and the least window from the parameters.
    fn derive(&mut self) {
        let t = if self.params.base_rtt == Time::ZERO { self.path_rtt } else { self.params.base_rtt };
        self.t = t.as_secs_f64().max(1e-9);
        self.w_init = self.line * self.t;
        self.w_ai = match self.params.w_ai {
            0 => self.w_init * (1.0 - self.params.eta) / self.params.expected_flows as f64,
            bytes => bytes as f64,
        };
        self.w_min = (self.params.r_min.as_f64() / 8.0 * self.t).min(self.w_init);
        self.window = self.window.clamp(self.w_min, self.w_init);
        self.w_c = self.w_c.clamp(self.w_min, self.w_init);
    }

    /// Whether less than the window is unacknowledged.
    fn window_open(&self) -> bool {
        (self.outstanding.in_flight() as f64) < self.window
    }

    /// Updates `U` from the hops of one acknowledgement (`MeasureInflight`); `None`
    /// when no hop has a previous record to compare with.
    fn measure_inflight(&mut self, hops: &[HopRecord]) -> Option<f64> {
        let n = hops.len().min(self.params.int_hops as usize);
        let mut most: Option<(f64, f64)> = None;
        for (new, old) in hops[..n].iter().zip(&self.last[..self.last_hops.min(n)]) {
            let tau = new.at.as_secs_f64() - old.at.as_secs_f64();
            if tau <= 0.0 {
                continue;
            }
            let capacity = new.rate.as_f64() / 8.0;
            let tx_rate = new.tx_bytes.saturating_sub(old.tx_bytes) as f64 / tau;
            let u = new.queue_bytes.min(old.queue_bytes) as f64 / (capacity * self.t) + tx_rate / capacity;
            if most.is_none_or(|(best, _)| u > best) {
                most = Some((u, tau));
            }
        }
        self.last[..n].copy_from_slice(&hops[..n]);
        self.last_hops = n;
        let (u, tau) = most?;
        let weight = tau.min(self.t) / self.t;
        self.u = (1.0 - weight) * self.u + weight * u;
        Some(self.u)
    }

    /// `ComputeWind`: the window for `U`, moving `W_c` when `update` (once per RTT).
    fn compute_window(&mut self, u: f64, update: bool) -> f64 {
        let eta = self.params.eta;
        let multiplicative = u >= eta || self.inc_stage >= self.params.max_stage;
        let window = if multiplicative { self.w_c / (u / eta) + self.w_ai } else { self.w_c + self.w_ai };
        let window = window.clamp(self.w_min, self.w_init);
        if update {
            self.inc_stage = if multiplicative { 0 } else { self.inc_stage + 1 };
            self.w_c = window;
        }
        window
    }
}

impl ReactionPoint for HpccRp {
    /// The pacing rate `W/T`, or zero while the window is full.
    fn rate(&self) -> Rate {
        if !self.window_open() {
            return Rate::ZERO;
        }
        Rate::from_bps_f64(self.pacing_bps())
    }
    fn timer(&self) -> Option<Time> {
        self.outstanding.timer()
    }
    fn on_feedback(&mut self, _now: Time, _cpid: u32, _feedback: &Feedback) -> bool {
        false
    }
    fn on_sent(&mut self, now: Time, bytes: u32) -> bool {
        let was_open = self.window_open();
        let armed = self.outstanding.on_sent(now, bytes);
        armed || was_open != self.window_open()
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
        self.last_update_seq = self.last_update_seq.min(to);
        true
    }
    fn wants_acks(&self) -> bool {
        true
    }
    fn on_ack(&mut self, now: Time, ack: &AckInfo) -> bool {
        self.rtt = Some(now - ack.sent);
        self.outstanding.on_ack(now, ack.cumulative);
        if self.last_hops == 0 {
            // The first acknowledgement only gives the hops' first records.
            let n = ack.hops.len().min(self.params.int_hops as usize);
            self.last[..n].copy_from_slice(&ack.hops[..n]);
            self.last_hops = n;
            self.last_update_seq = self.outstanding.sent;
            return true;
        }
        let update = ack.seq_end > self.last_update_seq;
        if let Some(u) = self.measure_inflight(ack.hops) {
            self.window = self.compute_window(u, update);
        }
        if update {
            self.last_update_seq = self.outstanding.sent;
        }
        true
    }
    fn pacing_rate(&self) -> Rate {
        Rate::from_bps_f64(self.pacing_bps())
    }
    fn window_bytes(&self) -> Option<f64> {
        Some(self.window)
    }
    fn last_rtt(&self) -> Option<Time> {
        self.rtt
    }
}

impl HpccRp {
    /// The pacing rate `W/T`, bits per second.
    fn pacing_bps(&self) -> f64 {
        self.window / self.t * 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rp() -> HpccRp {
        let line = Rate::from_gbps(10);
        let init = RpInit { line_rate: line, initial_rate: line, flow: 0, ceiling: line, aimd: None, base_rtt: Time::from_us(10) };
        HpccParams::default().reaction_point(init, Rng::stream(1, "t"))
    }

    fn hop(at_us: u64, tx_bytes: u64, queue_bytes: u64) -> HopRecord {
        HopRecord { queue_bytes, tx_bytes, at: Time::from_us(at_us), rate: Rate::from_gbps(10) }
    }

    fn ack(seq_end: u64, hops: &[HopRecord]) -> AckInfo<'_> {
        AckInfo { sent: Time::ZERO, payload: 1000, seq_end, cumulative: seq_end, nack: false, hops }
    }

    #[test]
    fn the_window_starts_at_line_rate_times_t_and_paces_at_w_over_t() {
        let rp = rp();
        assert!((rp.window - 12_500.0).abs() < 1e-6, "{}", rp.window);
        assert!((rp.rate().as_f64() - 10e9).abs() < 1e3);
        // W_AI derived: W_init (1 − η) / N.
        assert!((rp.w_ai - 12_500.0 * 0.05 / 125.0).abs() < 1e-9);
    }

    #[test]
    fn a_full_window_stops_the_flow_until_an_ack() {
        let mut rp = rp();
        let mut closed = false;
        for _ in 0..13 {
            closed |= rp.on_sent(Time::ZERO, 1000);
        }
        assert!(closed);
        assert_eq!(rp.rate(), Rate::ZERO);
        rp.on_ack(Time::from_us(10), &ack(1000, &[hop(5, 0, 0)]));
        assert!(rp.rate().as_f64() > 0.0);
    }

    #[test]
    fn an_overloaded_hop_cuts_the_window_towards_eta() {
        let mut rp = rp();
        for _ in 0..20 {
            rp.on_sent(Time::ZERO, 1000);
        }
        rp.on_ack(Time::from_us(10), &ack(1000, &[hop(0, 0, 25_000)]));
        // The hop sent at line rate for 10 µs with 25 KB queued throughout: U = 1 + 2.
        let u = 25_000.0 / 12_500.0 + 1.0;
        rp.on_ack(Time::from_us(20), &ack(15_000, &[hop(10, 12_500, 25_000)]));
        assert!((rp.u - u).abs() < 1e-9, "{}", rp.u);
        let expected = 12_500.0 / (u / 0.95) + rp.w_ai;
        assert!((rp.window - expected).abs() < 1e-6, "{} {}", rp.window, expected);
        // A frame sent before the last update: the window reacts, W_c waits.
        assert!((rp.w_c - 12_500.0).abs() < 1e-6);
        rp.on_sent(Time::ZERO, 1000);
        rp.on_ack(Time::from_us(30), &ack(21_000, &[hop(20, 25_000, 25_000)]));
        assert!((rp.w_c - expected).abs() < 1e-6, "{}", rp.w_c);
    }

    #[test]
    fn an_idle_path_grows_the_window_additively_then_multiplicatively() {
        let mut rp = rp();
        rp.window = 5_000.0;
        rp.w_c = 5_000.0;
        rp.on_ack(Time::from_us(10), &ack(1000, &[hop(0, 0, 0)]));
        let mut seq = 1000;
        for k in 1..=6u64 {
            rp.on_sent(Time::ZERO, 1000);
            seq += 1000;
            let before = rp.w_c;
            rp.on_ack(Time::from_us(10 * (k + 1)), &ack(seq + 100_000 * k, &[hop(10 * k, 2_000 * k, 0)]));
            if k <= 5 {
                assert!((rp.w_c - (before + rp.w_ai)).abs() < 1e-9, "stage {k}");
            } else {
                // maxStage additive steps done: the multiplicative rule, from U = 0.16.
                assert!(rp.w_c > before + rp.w_ai, "stage {k}: {} {}", rp.w_c, before);
            }
        }
    }
}
