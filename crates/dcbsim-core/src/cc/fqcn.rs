//! FQCN (Zhang and Ansari): QCN's congestion point plus per-flow byte counts, so that
//! each negative sample notifies every overrated flow instead of the sampled one.
//!
//! Between two samples the CP counts the bytes `B_i` that arrive from each flow. When a
//! sample's `Fb` is negative (Ψ > 0), it finds the high-rate flows `S_H` (those with
//! `B_i ≥ W_i/ΣW · ΣB`, eq. 7), among them the overrated flows `S_R` (`B_i ≥
//! W_i/Σ_{S_H}W · Σ_{S_H}B`, eq. 8), and sends each of them its own share of Ψ
//! (`Ψ_i = Ψ · (B_i/W_i) / Σ_{S_R}(B_k/W_k)`, eq. 9, rounded; none when 0). The counts
//! restart at every sample. The reaction point is QCN's. See `docs/models/fqcn.md`.

use super::qcn::{QcnCp, QcnParams, QcnRp};
use super::{Arrival, CongestionPoint, CpInit, Feedback, Notify, RpInit, Scheme};
use crate::rng::Rng;

/// One flow's bytes since the last sample at a congestion point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowBytes {
    /// The flow.
    pub flow: u32,
    /// Bytes that arrived from it since the last sample (dropped frames included).
    pub bytes: u64,
    /// Its weight `W_i`.
    pub weight: f64,
}

/// Per-flow byte counts since the last sample, for the flows seen since then.
///
/// Counting costs O(1) per frame and restarting costs O(1): the list holds only the
/// flows seen since the last sample, and a direct-mapped index (8 bytes per flow id,
/// grown when a larger id first shows up) points into it, valid only when stamped with
/// the current epoch.
#[derive(Clone, Debug, Default)]
pub struct ByteCounts {
    epoch: u32,
    slots: Vec<(u32, u32)>,
    list: Vec<FlowBytes>,
}

impl ByteCounts {
    /// Empty counts.
    pub fn new() -> ByteCounts {
        ByteCounts { epoch: 1, slots: Vec::new(), list: Vec::new() }
    }

    /// Adds `bytes` to `flow`'s count.
    #[inline]
    pub fn add(&mut self, flow: u32, bytes: u32, weight: f64) {
        let i = flow as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, (0, 0));
        }
        let (epoch, slot) = self.slots[i];
        if epoch == self.epoch {
            self.list[slot as usize].bytes += bytes as u64;
        } else {
            self.slots[i] = (self.epoch, self.list.len() as u32);
            self.list.push(FlowBytes { flow, bytes: bytes as u64, weight });
        }
    }

    /// The flows seen since the last restart, with their counts.
    pub fn flows(&self) -> &[FlowBytes] {
        &self.list
    }

    /// Forgets every count.
    #[inline]
    pub fn restart(&mut self) {
        self.list.clear();
        if self.epoch == u32::MAX {
            self.slots.iter_mut().for_each(|s| *s = (0, 0));
            self.epoch = 0;
        }
        self.epoch += 1;
    }
}

/// Whether `bytes/weight` reaches the weighted share `weight/sum_w · sum_b` (with a
/// relative slack of 1e-12 so that equal flows are not split by rounding).
#[inline]
fn at_or_above_share(f: &FlowBytes, sum_b: f64, sum_w: f64) -> bool {
    f.bytes as f64 * sum_w >= f.weight * sum_b * (1.0 - 1e-12)
}

/// FQCN's notifications for a sample whose feedback is `sample` (Ψ > 0): one to each
/// overrated flow, carrying its share of Ψ (eqs. 7–9). The sample's `Qoff` and `Qδ` are
/// scaled by the same share, so that a reaction point reading `Fb` from them (more than
/// 6 feedback bits) also sees its share of `Fb`, not the whole; a culprit is notified when
/// the share it would act on is above 0 (`params.magnitude`).
pub fn notify_culprits(flows: &[FlowBytes], sample: Feedback, params: &QcnParams, out: &mut Vec<Notify>) {
    let Feedback::Quantized { psi, q_off, q_delta } = sample else { return };
    let (sum_b, sum_w) = flows.iter().fold((0.0, 0.0), |(b, w), f| (b + f.bytes as f64, w + f.weight));
    let high = |f: &&FlowBytes| at_or_above_share(f, sum_b, sum_w);
    let (high_b, high_w) = flows.iter().filter(high).fold((0.0, 0.0), |(b, w), f| (b + f.bytes as f64, w + f.weight));
    let culprit = |f: &&FlowBytes| high(f) && at_or_above_share(f, high_b, high_w);
    let norm: f64 = flows.iter().filter(culprit).map(|f| f.bytes as f64 / f.weight).sum();
    if norm <= 0.0 {
        return;
    }
    let scaled = |x: i32, s: f64| (x as f64 * s).round() as i32;
    for f in flows.iter().filter(culprit) {
        let s = (f.bytes as f64 / f.weight) / norm;
        let share = (psi as f64 * s).round().min(63.0) as u8;
        let (q_off, q_delta) = (scaled(q_off, s), scaled(q_delta, s));
        if params.magnitude(share, q_off, q_delta) > 0.0 {
            out.push(Notify { flow: f.flow, feedback: Feedback::Quantized { psi: share, q_off, q_delta } });
        }
    }
}

/// An FQCN congestion point.
#[derive(Clone, Debug)]
pub struct FqcnCp {
    qcn: QcnCp,
    counts: ByteCounts,
}

impl FqcnCp {
    /// A congestion point with QCN's parameters.
    pub fn new(params: QcnParams, rng: Rng) -> FqcnCp {
        FqcnCp { qcn: QcnCp::new(params, rng), counts: ByteCounts::new() }
    }
}

impl CongestionPoint for FqcnCp {
    #[inline]
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        self.counts.add(arrival.flow, arrival.bytes, arrival.weight);
        let Some(sample) = self.qcn.sample(arrival) else { return };
        if matches!(sample, Feedback::Quantized { psi, q_off, q_delta } if self.qcn.params().magnitude(psi, q_off, q_delta) > 0.0) {
            notify_culprits(self.counts.flows(), sample, self.qcn.params(), out);
        }
        self.counts.restart();
    }
    fn notifies_arriving_flow_only(&self) -> bool {
        false
    }
}

/// FQCN as a scheme: QCN's parameters; its congestion point notifies every overrated
/// flow, its reaction point is QCN's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fqcn {
    /// QCN's parameters.
    pub params: QcnParams,
}

impl Scheme for Fqcn {
    type Cp = FqcnCp;
    type Rp = QcnRp;
    type Params = QcnParams;
    const NAMES: &'static [&'static str] = &["fqcn"];

    fn params_mut(&mut self) -> &mut QcnParams {
        &mut self.params
    }
    fn congestion_point(&self, _init: CpInit, rng: Rng) -> Option<FqcnCp> {
        Some(FqcnCp::new(self.params.clone(), rng))
    }
    fn reaction_point(&self, init: RpInit, rng: Rng) -> QcnRp {
        QcnRp::new(self.params.clone(), init.line_rate, init.initial_rate, rng)
    }
    fn reconfigure_cp(&self, cp: &mut FqcnCp) {
        cp.qcn.params = self.params.clone();
    }
    fn reconfigure_rp(&self, rp: &mut QcnRp) {
        rp.params = self.params.clone();
    }
    fn queue_target(&self) -> Option<u64> {
        Some(self.params.q_eq)
    }
}

#[cfg(test)]
#[path = "fqcn_tests.rs"]
mod tests;
