//! Hand-worked cases of DCC's congestion point and reaction point.

use super::dcc::{DccCp, DccParams, DccRp};
use super::{Aimd, Arrival, CongestionPoint, Feedback, ParamValue, ReactionPoint};
use crate::param::Params;
use crate::units::{Rate, Time};

const SLOT: Time = Time::from_us(300);

fn arrival(queue_bytes: u64) -> Arrival {
    Arrival { now: Time::ZERO, flow: 4, weight: 1.0, bytes: 1500, queue_bytes, dropped: false }
}

/// A reaction point of eq. 2's reading: no increase at the end of a slot with a decrease.
fn rp(a: f64, b: f64) -> DccRp {
    let params = DccParams { increase_every_slot: false, ..DccParams::default() };
    let mut rp = DccRp::new(&params, Aimd { a, b }, Rate::from_mbps(120), Rate::from_gbps(1), 0.0);
    rp.on_start(Time::ZERO);
    rp
}

#[test]
fn the_slot_is_one_frame_at_the_rate_step() {
    // 1500 B at 40 Mb/s: 12,000 bits / 40e6 b/s = 300 us.
    assert_eq!(DccParams::default().slot_length(), SLOT);
}

#[test]
fn a_slot_without_a_decrease_adds_a() {
    let mut rp = rp(1.5, 0.8);
    assert_eq!(rp.window(), 3.0);
    assert_eq!(rp.timer(), Some(SLOT));
    assert!(rp.on_timer(SLOT));
    assert_eq!(rp.window(), 4.5);
    assert_eq!(rp.rate(), Rate::from_mbps(180));
    assert_eq!(rp.timer(), Some(Time::from_us(600)));
}

#[test]
fn a_decrease_cuts_at_once_and_the_slot_then_adds_nothing() {
    let mut rp = rp(1.0, 0.5);
    // W = 3 (120 Mb/s / 40 Mb/s); a decrease halves it at once.
    assert!(rp.on_feedback(Time::from_us(100), 0, &Feedback::Decrease));
    assert_eq!(rp.window(), 1.5);
    assert_eq!(rp.rate(), Rate::from_mbps(60));
    // The slot that saw the decrease ends without an increase; the next one adds a.
    rp.on_timer(SLOT);
    assert_eq!(rp.window(), 1.5);
    rp.on_timer(Time::from_us(600));
    assert_eq!(rp.window(), 2.5);
    // Decreases stop at W_floor = 0.1: 2.5 -> 1.25 -> 0.625 -> 0.3125 -> 0.15625 -> 0.1.
    for k in 0..5 {
        rp.on_feedback(Time::from_us(700 + k), 0, &Feedback::Decrease);
    }
    assert_eq!(rp.window(), 0.1);
}

#[test]
fn by_default_every_slot_adds_a_also_after_a_decrease() {
    let mut rp = DccRp::new(&DccParams::default(), Aimd { a: 1.0, b: 0.5 }, Rate::from_mbps(120), Rate::from_gbps(1), 0.0);
    rp.on_start(Time::ZERO);
    rp.on_feedback(Time::from_us(100), 0, &Feedback::Decrease);
    rp.on_timer(SLOT);
    assert_eq!(rp.window(), 2.5);
}

#[test]
fn a_halt_stops_the_source_then_it_restarts_at_w_min() {
    let mut rp = rp(1.0, 0.5);
    assert!(rp.on_feedback(Time::from_us(100), 0, &Feedback::Halt));
    assert_eq!(rp.rate(), Rate::ZERO);
    assert_eq!(rp.timer(), Some(Time::from_us(1100)));
    // Notifications during the halt change nothing.
    assert!(!rp.on_feedback(Time::from_us(200), 0, &Feedback::Decrease));
    assert!(rp.on_timer(Time::from_us(1100)));
    assert_eq!(rp.rate(), Rate::from_mbps(40));
    assert_eq!(rp.timer(), Some(Time::from_us(1400)));
    rp.on_timer(Time::from_us(1400));
    assert_eq!(rp.window(), 2.0);
}

#[test]
fn aimd_with_b_one_ignores_decreases_but_obeys_halts() {
    // By default every slot adds a: the decrease changes nothing, W = 3 -> 4.
    let params = DccParams::default();
    let mut rp = DccRp::new(&params, Aimd { a: 1.0, b: 1.0 }, Rate::from_mbps(120), Rate::from_gbps(1), 0.0);
    rp.on_start(Time::ZERO);
    assert!(!rp.on_feedback(Time::ZERO, 0, &Feedback::Decrease));
    rp.on_timer(SLOT);
    assert_eq!(rp.window(), 4.0);
    assert!(rp.on_feedback(SLOT, 0, &Feedback::Halt));
    assert_eq!(rp.rate(), Rate::ZERO);
}

#[test]
fn under_eq_2_a_decrease_freezes_aimd_with_b_one_for_its_slot() {
    // Eq. 2 with b = 1: x(t+1) = 1.0 * x(t) in a slot that saw a decrease, so the window
    // stays at 3; the next slot, without one, adds a.
    let mut rp = rp(1.0, 1.0);
    assert!(!rp.on_feedback(Time::ZERO, 0, &Feedback::Decrease));
    rp.on_timer(SLOT);
    assert_eq!(rp.window(), 3.0);
    rp.on_timer(Time::from_us(600));
    assert_eq!(rp.window(), 4.0);
    assert!(rp.on_feedback(SLOT, 0, &Feedback::Halt));
    assert_eq!(rp.rate(), Rate::ZERO);
}

#[test]
fn the_window_stops_at_the_ceiling() {
    let mut rp = DccRp::new(&DccParams::default(), Aimd { a: 1.0, b: 1.0 }, Rate::from_mbps(40), Rate::from_mbps(240), 0.0);
    rp.on_start(Time::ZERO);
    for k in 1..=10 {
        rp.on_timer(Time(SLOT.0 * k));
    }
    assert_eq!(rp.rate(), Rate::from_mbps(240));
    // At the ceiling the slots stop; a decrease (b = 0.5 here) starts them again, on the
    // boundaries they had (every 300 us from the start).
    assert_eq!(rp.timer(), None);
    let mut rp = DccRp::new(&DccParams::default(), Aimd { a: 1.0, b: 0.5 }, Rate::from_mbps(240), Rate::from_mbps(240), 0.0);
    rp.on_start(Time::ZERO);
    rp.on_timer(SLOT);
    assert_eq!(rp.timer(), None);
    rp.on_feedback(Time::from_us(1000), 0, &Feedback::Decrease);
    assert_eq!((rp.window(), rp.timer()), (3.0, Some(Time::from_us(1200))));
}

#[test]
fn the_cp_samples_every_sample_bytes() {
    let mut cp = DccCp::new(DccParams { sample_bytes: 4500, ..DccParams::default() });
    let mut out = Vec::new();
    // 4500 B between samples: every third 1500 B frame.
    for _ in 0..2 {
        cp.on_arrival(&arrival(60_000), &mut out);
    }
    assert!(out.is_empty());
    cp.on_arrival(&arrival(60_000), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].feedback, Feedback::Decrease);
    // Below T_eq a sample sends nothing; at T_sc it halts.
    for _ in 0..3 {
        cp.on_arrival(&arrival(49_999), &mut out);
    }
    assert_eq!(out.len(), 1);
    for _ in 0..3 {
        cp.on_arrival(&arrival(100_000), &mut out);
    }
    assert_eq!(out[1].feedback, Feedback::Halt);
}

#[test]
fn p_s_sets_the_bytes_between_samples() {
    let mut p = DccParams::default();
    p.set("p_s", &ParamValue::Number(0.55)).unwrap();
    assert_eq!(p.bytes_per_sample(), 2727);
    p.set("sample_bytes", &ParamValue::Number(4300.0)).unwrap();
    assert_eq!(p.bytes_per_sample(), 4300);
    assert!(p.set("p_s", &ParamValue::Number(1.5)).is_err());
    assert!(p.set("b", &ParamValue::Number(1.2)).is_err());
}

#[test]
fn the_drop_policy_holds_between_t_sc_and_t_eq() {
    let mut cp = DccCp::new(DccParams::default());
    let (lan, san) = (1, 2);
    assert!(!cp.drops(100_000, lan), "not above T_sc yet");
    assert!(cp.drops(100_001, lan));
    assert!(!cp.drops(100_001, san), "high priority is never dropped");
    // Between the thresholds the policy keeps dropping ...
    assert!(cp.drops(70_000, lan));
    assert!(cp.drops(50_000, lan));
    // ... until the queue is below T_eq.
    assert!(!cp.drops(49_999, lan));
    assert!(!cp.drops(70_000, lan), "and it does not start again below T_sc");
    let mut off = DccCp::new(DccParams { drop_policy: false, ..DccParams::default() });
    assert!(!off.drops(200_000, lan));
}

#[test]
fn random_sampling_samples_each_frame_with_probability_bytes_over_sample_bytes() {
    // 4500 B between samples: each 1500 B frame sampled with probability 1/3, not every third.
    let params = DccParams { sample_bytes: 4500, random_sampling: true, ..DccParams::default() };
    let mut cp = DccCp::new(params);
    let mut out = Vec::new();
    let mut gaps = std::collections::BTreeSet::new();
    let mut last = 0;
    for k in 1..=30_000 {
        let before = out.len();
        cp.on_arrival(&arrival(60_000), &mut out);
        if out.len() > before {
            gaps.insert(k - last);
            last = k;
        }
    }
    // 10,000 expected; the binomial std is 82.
    assert!((9_600..=10_400).contains(&out.len()), "{} samples", out.len());
    assert!(gaps.len() > 5, "gaps between samples vary: {gaps:?}");
    // Frames larger than the sampling interval are always sampled.
    let params = DccParams { sample_bytes: 1000, random_sampling: true, ..DccParams::default() };
    let mut cp = DccCp::new(params);
    let mut out = Vec::new();
    for _ in 0..100 {
        cp.on_arrival(&arrival(60_000), &mut out);
    }
    assert_eq!(out.len(), 100);
}
