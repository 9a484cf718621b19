//! Hand-worked cases and model checks of DSM.

use super::*;
use crate::param::{ParamValue, Params};
use crate::rng::Rng;

#[test]
fn running_sums_equal_the_direct_sums_over_long_random_sequences() {
    let mut rng = Rng::stream(5, "dsm-sums");
    for m in [1u32, 2, 4, 7] {
        let mut p = DsmPredictor::new(m);
        let mut history: Vec<i64> = Vec::new();
        for _ in 0..20_000 {
            let u = (rng.next_u64() % 2_000_000_001) as i64 - 1_000_000_000;
            p.record(u);
            history.push(u);
            let s1: i128 = history.iter().rev().take(m as usize).map(|&x| x as i128).sum();
            let s2: i128 = history.iter().rev().take(m as usize).enumerate().map(|(i, &x)| (i as i128 + 1) * x as i128).sum();
            assert_eq!(p.sums(), (s1, s2), "m = {m}");
        }
    }
}

#[test]
fn the_predictor_equals_the_queue_m_samples_ahead_with_constant_delays() {
    // Eq. 10 with xi = 0: Qv(n+1) = Qv(n) + T u(n-m) and Qf(n+1) = Qf(n) + Qv(n+1).
    let (m, period, steps) = (4usize, 8e-5, 400usize);
    let mut rng = Rng::stream(6, "dsm-model");
    let u: Vec<i64> = (0..steps).map(|_| (rng.next_u64() % 200_001) as i64 - 100_000).collect();
    let (mut q_f, mut q_v) = (vec![5_000.0f64], vec![-300.0f64]);
    for n in 0..steps + m {
        let pushed = if n >= m { u[n - m] as f64 } else { 0.0 };
        q_v.push(q_v[n] + period * pushed);
        q_f.push(q_f[n] + q_v[n + 1]);
    }
    let mut predictor = DsmPredictor::new(m as u32);
    for k in 0..steps {
        let (pf, pv) = predictor.predict(q_f[k], q_v[k], period);
        assert!((pf - q_f[k + m]).abs() < 1e-6 * (1.0 + pf.abs()), "k {k}: {pf} vs {}", q_f[k + m]);
        assert!((pv - q_v[k + m]).abs() < 1e-6 * (1.0 + pv.abs()), "k {k}: {pv} vs {}", q_v[k + m]);
        predictor.record(u[k]);
    }
}

#[test]
fn each_region_of_the_plane_gets_its_law() {
    // Quadrants I and III: reaching (State C).
    assert_eq!(dsm_region(10.0, 1.0, 5.0), DsmRegion::C);
    assert_eq!(dsm_region(-10.0, -1.0, 5.0), DsmRegion::C);
    // Quadrant IV (Qf > 0, Qv < 0): delta = 10 - 5*1 = 5 > 0 -> Qv*delta < 0: State A.
    assert_eq!(dsm_region(10.0, -1.0, 5.0), DsmRegion::A);
    // Quadrant IV beyond the line: delta = 10 - 5*3 < 0 -> Qf*delta < 0: State B.
    assert_eq!(dsm_region(10.0, -3.0, 5.0), DsmRegion::B);
    // Quadrant II mirrors IV.
    assert_eq!(dsm_region(-10.0, 1.0, 5.0), DsmRegion::A);
    assert_eq!(dsm_region(-10.0, 3.0, 5.0), DsmRegion::B);
    // On the line or at the origin: nothing.
    assert_eq!(dsm_region(10.0, -2.0, 5.0), DsmRegion::None);
    assert_eq!(dsm_region(0.0, 0.0, 5.0), DsmRegion::None);
    // On the Qv = 0 axis, which eq. 24 leaves out.
    assert_eq!(dsm_region(10.0, 0.0, 5.0), DsmRegion::Axis);
    assert_eq!(dsm_region(-10.0, 0.0, 5.0), DsmRegion::Axis);
}

/// A CP whose predictor has seen no feedback, sampled at queue `q` after a sample at
/// the same queue, so `Q̂v = 0`: the queue is steady (here empty, below q0).
fn steady_queue_feedback(on_axis: &str, q: u64) -> Vec<Notify> {
    let mut params = DsmParams::default();
    params.set("on_axis", &ParamValue::Text(on_axis.into())).unwrap();
    let mut cp = DsmCp::new(params, Rate::from_gbps(10));
    let m = cp.gains().m as usize;
    let mut out = Vec::new();
    let arrival = Arrival { now: Time::ZERO, flow: 1, weight: 1.0, bytes: 1000, queue_bytes: q, dropped: false };
    // m + 1 samples at the same queue: the history of feedback then holds only what
    // the axis rule sent, and Q_v = 0.
    for _ in 0..(m + 1) * 100 {
        cp.on_arrival(&arrival, &mut out);
    }
    out
}

#[test]
fn a_steady_empty_queue_gets_state_a_feedback_unless_eq_24_is_read_literally() {
    // Empty queue: Qf = -65536 x 8 bits. The first sample sees Qv = 0 - 0 = 0 too, so
    // every sample is on the axis. With no feedback yet, Qf_hat = Qf: F_b = -a Qf > 0.
    let out = steady_queue_feedback("state_a", 0);
    let a = DsmParams::default().resolve(Rate::from_gbps(10)).a;
    let Feedback::RateDelta { kbps } = out[0].feedback else { panic!() };
    assert_eq!(kbps as i64, ((a * 65_536.0 * 8.0).round() as i64) / 1000);
    assert!(out.len() > 1, "the queue stays empty, so the increases go on");
    assert!(steady_queue_feedback("nothing", 0).is_empty());
    assert_eq!(DsmParams::default().on_axis, AxisRule::Nothing);
    let err = DsmParams::default().set("on_axis", &ParamValue::Text("b".into())).unwrap_err().to_string();
    assert!(err.contains("state_a") && err.contains("nothing"), "{err}");
}

#[test]
fn gains_at_10_gbps_and_300_us_are_the_papers_defaults() {
    let g = DsmParams::default().resolve(Rate::from_gbps(10));
    assert!((g.period - 80e-6).abs() < 1e-12);
    assert_eq!(g.m, 4);
    assert!((g.a - 20e3 / 34.0).abs() < 1e-6);
    assert!((g.b - 20e3 / 11.0).abs() < 1e-6);
    assert!((g.c - 10e3).abs() < 1e-6);
    assert_eq!(g.omega, 5.0);
    // The same without auto, and explicit values win.
    let mut p = DsmParams { auto: false, ..DsmParams::default() };
    assert_eq!(p.resolve(Rate::from_gbps(1)).m, 4);
    p.set("m", &ParamValue::Number(2.0)).unwrap();
    p.set("c_hz", &ParamValue::Number(1234.0)).unwrap();
    let g = p.resolve(Rate::from_gbps(1));
    assert_eq!((g.m, g.c), (2, 1234.0));
}

#[test]
fn the_eq30_rule_bounds_c_like_a() {
    let mut p = DsmParams::default();
    p.set("c_rule", &ParamValue::Text("eq30".into())).unwrap();
    // 10 Gb/s, 500 us: T = 80 us, m = 7, H = 20 kHz, c = a = H/(49 + 28 + 2).
    p.set("loop_delay_us", &ParamValue::Number(500.0)).unwrap();
    let g = p.resolve(Rate::from_gbps(10));
    assert_eq!(g.m, 7);
    assert!((g.c - 20e3 / 79.0).abs() < 1e-6);
    assert_eq!(g.c, g.a);
    p.set("c_rule", &ParamValue::Text("fast".into())).unwrap();
    assert!((p.resolve(Rate::from_gbps(10)).c - 10e3).abs() < 1e-6);
    let err = p.set("c_rule", &ParamValue::Text("slow".into())).unwrap_err().to_string();
    assert!(err.contains("\"fast\"") && err.contains("\"eq30\""), "{err}");
    assert!(p.set("c_rule", &ParamValue::Number(1.0)).is_err());
}

#[test]
fn with_admitted_sampling_the_cp_samples_every_hundredth_admitted_frame_and_reaches_fast_when_far_off() {
    let mut params = DsmParams::default();
    params.set("sampling", &ParamValue::Text("admitted".into())).unwrap();
    let mut cp = DsmCp::new(params, Rate::from_gbps(10));
    let mut out = Vec::new();
    let arrival = |q| Arrival { now: Time::ZERO, flow: 1, weight: 1.0, bytes: 1000, queue_bytes: q, dropped: false };
    let dropped = Arrival { dropped: true, ..arrival(100_000) };
    for _ in 0..99 {
        cp.on_arrival(&arrival(100_000), &mut out);
        cp.on_arrival(&dropped, &mut out);
    }
    assert!(out.is_empty());
    cp.on_arrival(&arrival(100_000), &mut out);
    // First sample: Qf = (100000 - 65536) x 8 bits, Qv = 100000 x 8 bits, no history:
    // Qf_hat = Qf + 4 Qv > 0 and Qv_hat > 0: State C, F_b = -c Qf_hat, bounded to -C.
    let q_f: f64 = (100_000.0 - 65_536.0) * 8.0;
    let expect: f64 = (-10e3 * (q_f + 4.0 * 800_000.0)).max(-10e9);
    assert_eq!(expect, -10e9);
    let Feedback::RateDelta { kbps } = out[0].feedback else { panic!() };
    assert_eq!(kbps as i64, (expect.round() as i64) / 1000);
}

#[test]
fn the_rp_adds_feedback_with_the_cpid_rule_and_clamps() {
    let mut rp = DsmRp::new(&DsmParams::default(), Rate::from_gbps(10), Rate::from_gbps(5));
    assert!(rp.on_feedback(Time::ZERO, 3, &Feedback::RateDelta { kbps: -1_000_000 }));
    assert_eq!(rp.rate(), Rate::from_gbps(4));
    assert!(!rp.on_feedback(Time::ZERO, 9, &Feedback::RateDelta { kbps: 500_000 }));
    assert!(rp.on_feedback(Time::ZERO, 3, &Feedback::RateDelta { kbps: 500_000 }));
    assert_eq!(rp.rate(), Rate::from_mbps(4500));
    rp.on_feedback(Time::ZERO, 3, &Feedback::RateDelta { kbps: i32::MAX });
    assert_eq!(rp.rate(), Rate::from_gbps(10));
    rp.on_feedback(Time::ZERO, 3, &Feedback::RateDelta { kbps: i32::MIN });
    assert_eq!(rp.rate(), Rate::from_mbps(10));
}

/// The notifications a CP sends for `frames` arrivals at a full 128 KB buffer, each
/// dropped, with `sampling` set.
fn feedback_on_dropped_frames(sampling: Option<&str>, frames: usize) -> usize {
    let mut params = DsmParams::default();
    if let Some(rule) = sampling {
        params.set("sampling", &ParamValue::Text(rule.into())).unwrap();
    }
    let mut cp = DsmCp::new(params, Rate::from_gbps(10));
    let mut out = Vec::new();
    let dropped = Arrival { now: Time::ZERO, flow: 1, weight: 1.0, bytes: 1000, queue_bytes: 128 * 1024, dropped: true };
    for _ in 0..frames {
        cp.on_arrival(&dropped, &mut out);
    }
    out.len()
}

#[test]
fn dropped_frames_count_towards_sampling_unless_only_admitted_ones_do() {
    // §III-A: the CP "samples the incoming packets with a probability p". 1,000 frames
    // arriving at a full buffer (above q0) are 10 samples, each a decrease.
    assert_eq!(feedback_on_dropped_frames(None, 1000), 10);
    assert_eq!(feedback_on_dropped_frames(Some("arriving"), 1000), 10);
    assert_eq!(feedback_on_dropped_frames(Some("admitted"), 1000), 0);
    let err = DsmParams::default().set("sampling", &ParamValue::Text("all".into())).unwrap_err().to_string();
    assert!(err.contains("arriving") && err.contains("admitted"), "{err}");
}

/// The DSM congestion point a scheme builds on a 100 Gb/s port whose flows send
/// `frame_bytes` frames, with `set` written in the scenario.
fn built_cp_period(frame_bytes: u64, set: Option<f64>) -> f64 {
    let mut scheme = crate::cc::SchemeConfig::by_name("dsm").unwrap();
    if let Some(x) = set {
        scheme.set_param("frame_bytes", &ParamValue::Number(x)).unwrap();
    }
    let init = crate::cc::CpInit { capacity: Rate::from_gbps(100), buffer: 128 * 1024, cpid: 0, frame_bytes };
    match scheme.congestion_point(init, Rng::stream(1, "cp")) {
        Some(crate::cc::CongestionPointKind::Dsm(cp)) => cp.gains().period,
        _ => panic!("not a DSM congestion point"),
    }
}

#[test]
fn the_sampling_period_follows_the_flows_frames_unless_set() {
    // One frame in 100 sampled: T = 100 frames at C. With 9000 B jumbo frames a fixed
    // 1000 B made T (and so m and H) nine times off, and the queue sat empty.
    let t = |bytes: f64| bytes * 8.0 * 100.0 / 100e9;
    assert!((built_cp_period(9000, None) - t(9000.0)).abs() < 1e-15);
    assert!((built_cp_period(1500, None) - t(1500.0)).abs() < 1e-15);
    assert!((built_cp_period(9000, Some(1000.0)) - t(1000.0)).abs() < 1e-15);
    assert!((DsmParams::default().resolve(Rate::from_gbps(100)).period - t(1000.0)).abs() < 1e-15);
}
