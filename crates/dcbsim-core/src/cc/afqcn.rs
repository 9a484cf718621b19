//! AF-QCN (Kabbani et al., Hot Interconnects 2010), the FQCN paper's comparison scheme:
//! QCN whose congestion point makes the sampled frame's feedback depend on its flow.
//!
//! The CP estimates each flow's arrival rate `r_i` and the aggregate `Σr_j`, takes the
//! flow's fair share `r_fair,i = W_i/ΣW · Σr_j`, and quantizes `[1 − r_fair,i/r_i]^+`
//! to `Ψ_AF` (6 bits). The sampled frame's feedback is `(1 − α)·Ψ_QCN + α·Ψ_AF`, sent
//! only to the sampled source and only when QCN itself would notify (Ψ_QCN > 0). The
//! rate estimator, α and the quantization are our choices: `docs/models/afqcn.md`.

use super::qcn::{QcnCp, QcnParams, QcnRp};
use super::{Arrival, CongestionPoint, CpInit, Feedback, Notify, RpInit, Scheme};
use crate::param::Range::{Fraction, Positive, Unit};
use crate::param::{self, Param, ParamError, ParamValue, Params, Setter};
use crate::rng::Rng;
use crate::units::Time;

/// AF-QCN's own parameters (QCN's are in [`QcnParams`]).
#[derive(Clone, Debug, PartialEq)]
pub struct AfQcnParams {
    /// Weight α of the fairness feedback in the mix, in [0, 1].
    pub alpha: f64,
    /// Length of the rate estimator's measurement interval.
    pub interval: Time,
    /// EWMA gain of the rate estimator per interval, in (0, 1].
    pub gain: f64,
}

impl Default for AfQcnParams {
    fn default() -> Self {
        AfQcnParams { alpha: 0.5, interval: Time::from_us(100), gain: 0.125 }
    }
}

impl Params for AfQcnParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "alpha",
            range: Unit,
            default: "0.5 (our choice)",
            doc: "weight α of the fairness feedback in the mix",
            set: Setter::Real(|p, v| p.alpha = v),
        },
        Param {
            name: "interval_us",
            range: Positive,
            default: "100 µs (our choice)",
            doc: "the rate estimator's measurement interval",
            set: Setter::Time(|p, v| p.interval = Time(v.0.max(1))),
        },
        Param {
            name: "gain",
            range: Fraction,
            default: "0.125 (our choice)",
            doc: "EWMA gain of the rate estimator per interval",
            set: Setter::Real(|p, v| p.gain = v),
        },
    ];
}

/// AF-QCN as a scheme: QCN's parameters and the fairness controller's; its reaction
/// point is QCN's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AfQcn {
    /// QCN's parameters.
    pub qcn: QcnParams,
    /// The fairness controller's.
    pub af: AfQcnParams,
}

impl Scheme for AfQcn {
    type Cp = AfQcnCp;
    type Rp = QcnRp;
    type Params = AfQcnParams;
    const NAMES: &'static [&'static str] = &["afqcn"];

    fn params_mut(&mut self) -> &mut AfQcnParams {
        &mut self.af
    }
    fn set_param(&mut self, name: &str, value: &ParamValue) -> Result<(), ParamError> {
        match param::set(&mut self.af, name, value) {
            Some(done) => done,
            None => param::set(&mut self.qcn, name, value).unwrap_or_else(|| Err(ParamError::Unknown { allowed: Self::parameter_names() })),
        }
    }
    fn parameter_names() -> Vec<String> {
        [param::names::<QcnParams>(), param::names::<AfQcnParams>()].concat()
    }
    fn examples() -> Vec<(String, ParamValue)> {
        [param::examples::<QcnParams>(), param::examples::<AfQcnParams>()].concat()
    }
    fn table_faults() -> Vec<String> {
        let mut faults = [param::table_faults::<QcnParams>(), param::table_faults::<AfQcnParams>()].concat();
        let qcn = param::names::<QcnParams>();
        faults.extend(param::names::<AfQcnParams>().into_iter().filter(|n| qcn.contains(n)).map(|n| format!("{n}: in both tables")));
        faults
    }
    fn reference() -> Vec<[String; 4]> {
        [param::reference_rows::<QcnParams>(), param::reference_rows::<AfQcnParams>()].concat()
    }
    fn congestion_point(&self, _init: CpInit, rng: Rng) -> Option<AfQcnCp> {
        Some(AfQcnCp::new(self.qcn.clone(), self.af.clone(), rng))
    }
    fn reaction_point(&self, init: RpInit, rng: Rng) -> QcnRp {
        QcnRp::new(self.qcn.clone(), init.line_rate, init.initial_rate, rng)
    }
    fn reconfigure_cp(&self, cp: &mut AfQcnCp) {
        cp.qcn.params = self.qcn.clone();
        cp.params = self.af.clone();
    }
    fn reconfigure_rp(&self, rp: &mut QcnRp) {
        rp.params = self.qcn.clone();
    }
    fn queue_target(&self) -> Option<u64> {
        Some(self.qcn.q_eq)
    }
}

/// An exponentially weighted estimate of a byte rate, updated once per interval.
#[derive(Clone, Copy, Debug, Default)]
struct RateEstimate {
    /// The interval whose bytes are being counted.
    interval: u64,
    /// Bytes counted in it so far.
    bytes: u64,
    /// The estimate, bytes per interval.
    rate: f64,
    /// One more than the last interval a frame was seen in (0: never).
    seen: u64,
}

impl RateEstimate {
    /// Closes every interval before `k` into the estimate.
    #[inline]
    fn advance(&mut self, k: u64, gain: f64) {
        if self.interval >= k {
            return;
        }
        self.rate += gain * (self.bytes as f64 - self.rate);
        let idle = k - self.interval - 1;
        if idle > 0 {
            self.rate *= (1.0 - gain).powf(idle as f64);
        }
        self.bytes = 0;
        self.interval = k;
    }
}

/// Arrival-rate estimates of each flow and of their sum, and the weight of the flows
/// seen in the current or the last interval.
#[derive(Clone, Debug, Default)]
pub struct RateEstimator {
    flows: Vec<RateEstimate>,
    total: RateEstimate,
    current: u64,
    weight_current: f64,
    weight_active: f64,
}

impl RateEstimator {
    /// Counts one arriving frame in interval `k`.
    #[inline]
    pub fn add(&mut self, k: u64, flow: u32, bytes: u32, weight: f64, gain: f64) {
        if k > self.current {
            let last = if k == self.current + 1 { self.weight_current } else { 0.0 };
            self.weight_current = 0.0;
            self.weight_active = last;
            self.current = k;
        }
        let i = flow as usize;
        if i >= self.flows.len() {
            self.flows.resize(i + 1, RateEstimate { interval: k, ..RateEstimate::default() });
        }
        let f = &mut self.flows[i];
        if f.seen != k + 1 {
            self.weight_current += weight;
            if !(k >= 1 && f.seen == k) {
                self.weight_active += weight;
            }
            f.seen = k + 1;
        }
        f.advance(k, gain);
        f.bytes += bytes as u64;
        self.total.advance(k, gain);
        self.total.bytes += bytes as u64;
    }

    /// `(r_i, Σr_j, ΣW)` at interval `k`: flow `flow`'s estimate, the aggregate's, and
    /// the weight of the flows seen in this or the last interval.
    pub fn rates(&mut self, k: u64, flow: u32, gain: f64) -> (f64, f64, f64) {
        let f = &mut self.flows[flow as usize];
        f.advance(k, gain);
        self.total.advance(k, gain);
        (f.rate, self.total.rate, self.weight_active)
    }
}

/// AF-QCN's quantized fairness feedback: `[1 − r_fair/r]^+` on 6 bits.
pub fn fairness_feedback(rate: f64, fair: f64) -> u8 {
    if rate <= 0.0 {
        return 0;
    }
    let excess = (1.0 - fair / rate).max(0.0);
    (excess * 64.0).floor().min(63.0) as u8
}

/// The feedback AF-QCN sends: `(1 − α)·Ψ_QCN + α·Ψ_AF`, rounded; 0 when QCN's is 0.
pub fn mixed_feedback(psi_qcn: u8, psi_af: u8, alpha: f64) -> u8 {
    if psi_qcn == 0 {
        return 0;
    }
    ((1.0 - alpha) * psi_qcn as f64 + alpha * psi_af as f64).round().clamp(0.0, 63.0) as u8
}

/// An AF-QCN congestion point.
#[derive(Clone, Debug)]
pub struct AfQcnCp {
    qcn: QcnCp,
    params: AfQcnParams,
    estimator: RateEstimator,
}

impl AfQcnCp {
    /// A congestion point with QCN's and AF-QCN's parameters.
    pub fn new(qcn: QcnParams, params: AfQcnParams, rng: Rng) -> AfQcnCp {
        AfQcnCp { qcn: QcnCp::new(qcn, rng), params, estimator: RateEstimator::default() }
    }
}

impl CongestionPoint for AfQcnCp {
    #[inline]
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        let k = arrival.now.0 / self.params.interval.0;
        let gain = self.params.gain;
        self.estimator.add(k, arrival.flow, arrival.bytes, arrival.weight, gain);
        let Some(Feedback::Quantized { psi: psi_qcn, q_off, q_delta }) = self.qcn.sample(arrival) else { return };
        let qcn = self.qcn.params().magnitude(psi_qcn, q_off, q_delta);
        if qcn <= 0.0 {
            return;
        }
        let (rate, total, weights) = self.estimator.rates(k, arrival.flow, gain);
        let fair = if weights > 0.0 { arrival.weight / weights * total } else { total };
        let (psi_af, alpha) = (fairness_feedback(rate, fair), self.params.alpha);
        let psi = mixed_feedback(psi_qcn, psi_af, alpha);
        // A reaction point reading Fb from Qoff and Qδ (more than 6 feedback bits) must
        // see the mix too: scale them by the mix over QCN's own magnitude.
        let k = ((1.0 - alpha) * qcn + alpha * psi_af as f64) / qcn;
        let scaled = |x: i32| (x as f64 * k).round().clamp(i32::MIN as f64, i32::MAX as f64) as i32;
        let (q_off, q_delta) = (scaled(q_off), scaled(q_delta));
        if self.qcn.params().magnitude(psi, q_off, q_delta) > 0.0 {
            out.push(Notify { flow: arrival.flow, feedback: Feedback::Quantized { psi, q_off, q_delta } });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fairness_feedback_is_zero_at_or_below_the_share() {
        assert_eq!(fairness_feedback(1.0e9, 2.5e9), 0);
        assert_eq!(fairness_feedback(2.5e9, 2.5e9), 0);
        assert_eq!(fairness_feedback(0.0, 2.5e9), 0);
    }

    #[test]
    fn fairness_feedback_grows_with_the_excess() {
        // Twice the share: 1 − 1/2 = 0.5 → 32; four times: 0.75 → 48; far above: 63.
        assert_eq!(fairness_feedback(5.0e9, 2.5e9), 32);
        assert_eq!(fairness_feedback(10.0e9, 2.5e9), 48);
        assert_eq!(fairness_feedback(1.0e15, 1.0), 63);
    }

    #[test]
    fn mix_weights_qcn_and_fairness_feedback() {
        // α = 0.5: a flow at twice its share with Ψ_QCN = 20 gets (20 + 32)/2 = 26;
        // a flow below its share gets half of QCN's, 10.
        assert_eq!(mixed_feedback(20, 32, 0.5), 26);
        assert_eq!(mixed_feedback(20, 0, 0.5), 10);
        assert_eq!(mixed_feedback(20, 48, 0.0), 20);
        assert_eq!(mixed_feedback(20, 48, 1.0), 48);
        // No congestion, no notification, however unfair.
        assert_eq!(mixed_feedback(0, 63, 0.5), 0);
    }

    #[test]
    fn estimator_tracks_rates_and_active_weight() {
        let mut e = RateEstimator::default();
        // Flow 0 sends 3000 B and flow 1 1000 B per interval, for 200 intervals.
        for k in 0..200 {
            e.add(k, 0, 1500, 2.0, 0.125);
            e.add(k, 0, 1500, 2.0, 0.125);
            e.add(k, 1, 1000, 1.0, 0.125);
        }
        let (r0, total, w) = e.rates(200, 0, 0.125);
        assert!((r0 - 3000.0).abs() < 1.0, "{r0}");
        assert!((total - 4000.0).abs() < 1.0, "{total}");
        assert_eq!(w, 3.0);
        let (r1, _, _) = e.rates(200, 1, 0.125);
        assert!((r1 - 1000.0).abs() < 1.0, "{r1}");
        // Flow 1 goes quiet: two intervals later only flow 0's weight is active, and
        // flow 1's estimate has decayed.
        e.add(202, 0, 1500, 2.0, 0.125);
        let (_, _, w) = e.rates(202, 0, 0.125);
        assert_eq!(w, 2.0);
        let (r1, _, _) = e.rates(202, 1, 0.125);
        assert!(r1 < 1000.0 * 0.875 + 1.0, "{r1}");
    }

    #[test]
    fn cp_cuts_the_flow_above_its_share_harder() {
        let params = QcnParams { sampling: super::super::qcn::Sampling::Fixed, p: 1.0, ..QcnParams::default() };
        let mut cp = AfQcnCp::new(params, AfQcnParams::default(), Rng::stream(1, "t"));
        let mut out = Vec::new();
        let q = 100_000; // far above Qeq: Ψ_QCN is large at every sample
        let mut last = [0u8; 2];
        for n in 0..4000u64 {
            let now = Time::from_ns(n * 100);
            // Flow 0 sends three frames for each of flow 1's.
            let flow = if n % 4 == 3 { 1 } else { 0 };
            let a = Arrival { now, flow, weight: 1.0, bytes: 1000, queue_bytes: q, dropped: false };
            out.clear();
            cp.on_arrival(&a, &mut out);
            if let Some(Notify { feedback: Feedback::Quantized { psi, .. }, .. }) = out.first() {
                last[flow as usize] = *psi;
            }
        }
        assert!(last[0] > last[1], "{last:?}");
    }

    #[test]
    fn finer_feedback_carries_the_mix() {
        // With fb_bits > 6 the reaction point reads Fb from the CNM's Qoff and Qδ: they
        // must carry the mix, not QCN's feedback alone. Flow 1 sends a quarter of the
        // frames, below its half share, so with α = 1 its feedback is 0: no notification.
        let params = QcnParams { sampling: super::super::qcn::Sampling::Fixed, p: 1.0, fb_bits: 16, ..QcnParams::default() };
        let af = AfQcnParams { alpha: 1.0, ..AfQcnParams::default() };
        let mut cp = AfQcnCp::new(params.clone(), af, Rng::stream(1, "t"));
        let mut out = Vec::new();
        let mut seen = [0.0f64; 2];
        for n in 0..4000u64 {
            let flow = if n % 4 == 3 { 1 } else { 0 };
            let a = Arrival { now: Time::from_ns(n * 100), flow, weight: 1.0, bytes: 1000, queue_bytes: 100_000, dropped: false };
            out.clear();
            cp.on_arrival(&a, &mut out);
            for m in &out {
                if let Feedback::Quantized { psi, q_off, q_delta } = m.feedback {
                    seen[m.flow as usize] = params.magnitude(psi, q_off, q_delta);
                }
            }
        }
        assert_eq!(seen[1], 0.0, "{seen:?}");
        // Flow 0 at 1.5 times its share: [1 - 1/1.5]^+ = 1/3 of 64, about 21.
        assert!((seen[0] - 64.0 / 3.0).abs() < 1.5, "{seen:?}");
    }
}
