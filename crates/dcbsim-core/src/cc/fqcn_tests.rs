//! FQCN's culprit selection and Ψ split, against cases worked by hand from eqs. 7–9.

use super::*;
use crate::cc::qcn::Sampling;
use crate::units::Time;

fn table(bytes: &[u64], weights: &[f64]) -> Vec<FlowBytes> {
    bytes.iter().zip(weights).enumerate().map(|(i, (&b, &w))| FlowBytes { flow: i as u32, bytes: b, weight: w }).collect()
}

/// (flow, Ψ_i) of every notification for `psi`.
fn split(bytes: &[u64], weights: &[f64], psi: u8) -> Vec<(u32, u8)> {
    let mut out = Vec::new();
    notify_culprits(&table(bytes, weights), Feedback::quantized(psi), &QcnParams::default(), &mut out);
    out.iter()
        .map(|n| match n.feedback {
            Feedback::Quantized { psi, .. } => (n.flow, psi),
            other => panic!("unexpected feedback {other:?}"),
        })
        .collect()
}

#[test]
fn one_culprit_takes_the_whole_feedback() {
    // ΣB = 12000, M = 3000: S_H = {0, 3}; M^F = 4500: S_R = {3}.
    assert_eq!(split(&[3000, 1000, 2000, 6000], &[1.0; 4], 40), vec![(3, 40)]);
}

#[test]
fn equal_flows_share_the_feedback() {
    // All in S_R; Ψ_i = round(10/3) = 3 each.
    assert_eq!(split(&[2000, 2000, 2000], &[1.0; 3], 10), vec![(0, 3), (1, 3), (2, 3)]);
}

#[test]
fn two_culprits_in_proportion_to_their_bytes() {
    // M = 4000: S_H = {0, 1, 2}; M^F = 5000: S_R = {0, 1}; Ψ_0 = 40·6/11 = 21.8 → 22,
    // Ψ_1 = 40·5/11 = 18.2 → 18.
    assert_eq!(split(&[6000, 5000, 4000, 1000], &[1.0; 4], 40), vec![(0, 22), (1, 18)]);
}

#[test]
fn a_share_that_rounds_to_zero_sends_nothing() {
    // Same sets; Ψ = 1: Ψ_0 = 0.545 → 1, Ψ_1 = 0.455 → 0 (no notification).
    assert_eq!(split(&[6000, 5000, 4000, 1000], &[1.0; 4], 1), vec![(0, 1)]);
    // Three equal culprits and Ψ = 1: 1/3 rounds to 0 for each.
    assert_eq!(split(&[3000, 3000, 3000], &[1.0; 3], 1), vec![]);
}

#[test]
fn weights_set_the_shares() {
    // Bytes in proportion to weights [4, 3, 2, 1]: every flow is exactly at its share,
    // so all are culprits with equal B_i/W_i, each Ψ/4.
    assert_eq!(split(&[4000, 3000, 2000, 1000], &[4.0, 3.0, 2.0, 1.0], 40), vec![(0, 10), (1, 10), (2, 10), (3, 10)]);
    // Equal bytes, weights [2, 1]: M = [4000, 2000], so only flow 1 is high, and the
    // culprit.
    assert_eq!(split(&[3000, 3000], &[2.0, 1.0], 30), vec![(1, 30)]);
}

#[test]
fn counts_restart_at_each_sample() {
    let mut c = ByteCounts::new();
    c.add(5, 1000, 1.0);
    c.add(2, 500, 1.0);
    c.add(5, 1000, 1.0);
    let w = 1.0;
    assert_eq!(c.flows(), &[FlowBytes { flow: 5, bytes: 2000, weight: w }, FlowBytes { flow: 2, bytes: 500, weight: w }]);
    c.restart();
    assert!(c.flows().is_empty());
    c.add(2, 700, 1.0);
    assert_eq!(c.flows(), &[FlowBytes { flow: 2, bytes: 700, weight: 1.0 }]);
}

#[test]
fn counts_survive_the_epoch_wrapping() {
    let mut c = ByteCounts::new();
    c.epoch = u32::MAX;
    c.add(1, 100, 1.0);
    c.restart();
    c.add(1, 200, 1.0);
    assert_eq!(c.flows(), &[FlowBytes { flow: 1, bytes: 200, weight: 1.0 }]);
}

#[test]
fn the_cp_notifies_the_culprit_not_the_sampled_source() {
    // Byte sampling without jitter: the first sample comes after 150 KB. Flow 0 sends
    // two frames for each of flows 1 and 2; the queue is far above Qeq.
    let params = QcnParams { sampling: Sampling::Table, sample_jitter: false, ..QcnParams::default() };
    let mut cp = FqcnCp::new(params, Rng::stream(7, "cp"));
    let mut out = Vec::new();
    let mut sampled = None;
    for n in 0..150u32 {
        let flow = [0, 1, 0, 2][n as usize % 4];
        let a = Arrival { now: Time::from_us(n as u64), flow, weight: 1.0, bytes: 1000, queue_bytes: 100_000, dropped: false };
        cp.on_arrival(&a, &mut out);
        if !out.is_empty() {
            sampled = Some(flow);
            break;
        }
    }
    assert_eq!(sampled, Some(1), "the 150th frame (flow 1) is sampled");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].flow, 0);
    assert!(matches!(out[0].feedback, Feedback::Quantized { psi, .. } if psi > 0));
}

#[test]
fn finer_feedback_is_split_like_psi() {
    // With fb_bits > 6 the reaction point reads Fb from the CNM's Qoff and Qδ, not
    // from Ψ; each culprit must then see its share of Fb (eq. 9), not the whole.
    let params = QcnParams { fb_bits: 16, ..QcnParams::default() };
    let sample = Feedback::Quantized { psi: 40, q_off: 40_000, q_delta: 10_000 };
    let whole = params.magnitude(40, 40_000, 10_000);
    let mut out = Vec::new();
    notify_culprits(&table(&[6000, 5000, 4000, 1000], &[1.0; 4]), sample, &params, &mut out);
    let seen: Vec<(u32, f64)> = out
        .iter()
        .map(|n| match n.feedback {
            Feedback::Quantized { psi, q_off, q_delta } => (n.flow, params.magnitude(psi, q_off, q_delta)),
            other => panic!("unexpected feedback {other:?}"),
        })
        .collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    // S_R = {0, 1} with B_i 6000 and 5000: 6/11 and 5/11 of the whole.
    assert!((seen[0].1 - whole * 6.0 / 11.0).abs() < 0.01, "{seen:?} of {whole}");
    assert!((seen[1].1 - whole * 5.0 / 11.0).abs() < 0.01, "{seen:?} of {whole}");
    // Their sum is the sample's Fb, as eq. 9 says of the Ψ_i.
    assert!((seen[0].1 + seen[1].1 - whole).abs() < 0.02);
}

#[test]
fn finer_feedback_notifies_a_share_that_rounds_to_zero_on_six_bits() {
    // Three equal culprits and Ψ = 1: on 6 bits each share rounds to 0 and nobody is
    // told; with 16 bits each gets a third of Fb.
    let params = QcnParams { fb_bits: 16, ..QcnParams::default() };
    let q_off: i32 = 5 * 33 * 1024 / 64 + 10; // Ψ = 1 with w·Qδ = 0
    let sample = Feedback::Quantized { psi: 1, q_off, q_delta: 0 };
    let mut out = Vec::new();
    notify_culprits(&table(&[3000, 3000, 3000], &[1.0; 3]), sample, &params, &mut out);
    assert_eq!(out.len(), 3);
    let coarse = QcnParams::default();
    out.clear();
    notify_culprits(&table(&[3000, 3000, 3000], &[1.0; 3]), sample, &coarse, &mut out);
    assert!(out.is_empty());
}
