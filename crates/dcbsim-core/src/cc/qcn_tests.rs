//! Hand-worked traces of the QCN state machines.

use super::*;
use crate::param::{ParamValue, Params};

const MBPS: f64 = 1e6;

fn exact() -> QcnParams {
    QcnParams { bc_jitter: false, sample_jitter: false, ..QcnParams::default() }
}

fn rp(params: QcnParams, line_gbps: u64, initial_mbps: u64) -> QcnRp {
    QcnRp::new(params, Rate::from_gbps(line_gbps), Rate::from_mbps(initial_mbps), Rng::stream(1, "rp"))
}

fn cnm(rp: &mut QcnRp, psi: u8) {
    assert!(rp.on_feedback(Time::ZERO, 0, &Feedback::quantized(psi)));
}

/// Sends frames of 1000 B until the byte counter completes one cycle; returns bytes sent.
fn byte_cycle(rp: &mut QcnRp) -> u64 {
    let mut sent = 0;
    loop {
        sent += 1000;
        if rp.on_sent(Time::ZERO, 1000) {
            return sent;
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-3
}

#[test]
fn a_notification_sets_target_and_cuts_current() {
    let mut r = rp(exact(), 10, 10_000);
    assert!(!r.is_active());
    cnm(&mut r, 32);
    // Idle limiter starts at CR = TR = 10 Gb/s; CR x (1 - 32/128).
    assert!(close(r.target_rate(), 10_000.0 * MBPS));
    assert!(close(r.current_rate(), 7_500.0 * MBPS));
    // A second CNM before any increase keeps TR: CR x (1 - 16/128).
    cnm(&mut r, 16);
    assert!(close(r.target_rate(), 10_000.0 * MBPS));
    assert!(close(r.current_rate(), 6_562.5 * MBPS));
}

#[test]
fn without_hold_target_every_notification_sets_target_to_current() {
    let mut r = rp(QcnParams { hold_target: false, ..exact() }, 10, 10_000);
    cnm(&mut r, 32);
    assert!(close(r.target_rate(), 10_000.0 * MBPS));
    // The second CNM drags TR down to CR = 7.5 Gb/s, then cuts CR x (1 - 16/128).
    cnm(&mut r, 16);
    assert!(close(r.target_rate(), 7_500.0 * MBPS));
    assert!(close(r.current_rate(), 6_562.5 * MBPS));
}

#[test]
fn decrease_is_bounded_by_half_and_by_the_minimum_rate() {
    let mut r = rp(exact(), 10, 15);
    cnm(&mut r, 63);
    // 15 Mb/s x max(0.5, 1 - 63/128) = 7.6 Mb/s, raised to R_min = 10 Mb/s.
    assert!(close(r.current_rate(), 10.0 * MBPS));
    let mut r = rp(exact(), 10, 1000);
    cnm(&mut r, 63);
    assert!(close(r.current_rate(), 507.8125 * MBPS));
}

#[test]
fn five_fast_recovery_cycles_then_active_then_hyper_active_increase() {
    let mut params = exact();
    params.target_reduction = false;
    let mut r = rp(params, 10, 1000);
    cnm(&mut r, 63);
    let mut cr = 507.8125;
    for _ in 0..5 {
        assert_eq!(byte_cycle(&mut r), 150_000);
        cr = (cr + 1000.0) / 2.0;
        assert!(close(r.target_rate(), 1000.0 * MBPS), "FR keeps TR");
        assert!(close(r.current_rate(), cr * MBPS));
    }
    // Sixth byte-counter cycle (BS = 6, TS = 0): Active Increase, TR += 5 Mb/s.
    assert_eq!(byte_cycle(&mut r), 150_000);
    assert!(close(r.target_rate(), 1005.0 * MBPS));
    cr = (cr + 1005.0) / 2.0;
    assert!(close(r.current_rate(), cr * MBPS));
    // Timer cycles 1..=5 with BS = 6: still AI (min stage <= 5).
    let mut tr = 1005.0;
    for ts in 1..=5 {
        assert!(r.on_timer(Time::from_ms(15 * ts)));
        tr += 5.0;
        cr = (cr + tr) / 2.0;
        assert!(close(r.target_rate(), tr * MBPS));
        assert!(close(r.current_rate(), cr * MBPS));
    }
    // TS = 6: both stages past 5, Hyper-Active Increase by R_HAI x (6 - 5).
    r.on_timer(Time::from_ms(90));
    tr += 50.0;
    assert!(close(r.target_rate(), tr * MBPS));
    // Past Fast Recovery the byte counter counts BC_LIMIT/2; BS = 7, min(7, 6) - 5 = 1.
    assert_eq!(byte_cycle(&mut r), 75_000);
    tr += 50.0;
    assert!(close(r.target_rate(), tr * MBPS));
    // TS = 7: min(7, 7) - 5 = 2.
    r.on_timer(Time::from_ms(97));
    tr += 100.0;
    assert!(close(r.target_rate(), tr * MBPS));
    assert_eq!(r.stages(), (7, 7));
}

#[test]
fn the_timer_period_halves_past_fast_recovery() {
    let mut r = rp(exact(), 10, 1000);
    cnm(&mut r, 10);
    assert_eq!(r.timer(), Some(Time::from_ms(15)));
    let mut now = Time::from_ms(15);
    for _ in 0..5 {
        r.on_timer(now);
        now = r.timer().unwrap();
    }
    // After the 5th cycle (TS = 5) the period is still T; after the 6th it is T/2.
    assert_eq!(now, Time::from_ms(90));
    r.on_timer(now);
    assert_eq!(r.timer(), Some(Time::from_ms(90) + Time::from_us(7500)));
}

#[test]
fn target_rate_reduction_divides_tr_by_eight() {
    let mut r = rp(exact(), 10, 10_000);
    for _ in 0..4 {
        cnm(&mut r, 63);
    }
    // CR = 10 G x 0.5078125^4 = 665 Mb/s; TR stayed at 10 Gb/s.
    let cr = 10_000.0 * 0.5078125f64.powi(4);
    assert!(close(r.current_rate(), cr * MBPS));
    byte_cycle(&mut r);
    // BS = 1 and TR > 10 CR: TR = 10 G / 8, CR = (CR + TR) / 2.
    assert!(close(r.target_rate(), 1250.0 * MBPS));
    assert!(close(r.current_rate(), (cr + 1250.0) / 2.0 * MBPS));
}

#[test]
fn the_limiter_is_released_at_line_rate() {
    let mut r = rp(exact(), 1, 1000);
    cnm(&mut r, 1);
    assert!(r.is_active());
    let mut cycles = 0;
    while r.is_active() {
        byte_cycle(&mut r);
        cycles += 1;
        assert!(cycles < 100);
    }
    assert_eq!(r.rate(), Rate::from_gbps(1));
    assert_eq!(r.timer(), None);
    // Released: sending no longer counts bytes.
    assert!(!r.on_sent(Time::ZERO, 1_000_000));
}

#[test]
fn quantization_at_its_edges() {
    let p = exact();
    // (2w + 1) Qeq = 5 x 33 KB = 168960 B maps to 64.
    assert_eq!(p.quantize(0.0), 0);
    assert_eq!(p.quantize(1000.0), 0);
    assert_eq!(p.quantize(-2639.0), 0);
    assert_eq!(p.quantize(-2640.0), 1);
    assert_eq!(p.quantize(-168_960.0 * 63.0 / 64.0), 63);
    assert_eq!(p.quantize(-168_960.0), 63);
    assert_eq!(p.quantize(-1e12), 63);
    // w = 0: the scale is Qeq alone.
    let w0 = QcnParams { w: 0.0, ..exact() };
    assert_eq!(w0.quantize(-528.0), 1);
    assert_eq!(w0.quantize(-527.0), 0);
}

fn arrival(queue_bytes: u64) -> Arrival {
    Arrival { now: Time::ZERO, flow: 3, weight: 1.0, bytes: 1000, queue_bytes, dropped: false }
}

#[test]
fn the_cp_samples_by_the_table_and_notifies_the_sampled_source() {
    let mut cp = QcnCp::new(exact(), Rng::stream(1, "cp"));
    let mut out = Vec::new();
    // Ψ = 0: one sample per 150000 bytes; the queue at Qeq gives no feedback.
    for _ in 0..149 {
        cp.on_arrival(&arrival(33 * 1024), &mut out);
    }
    assert!(out.is_empty());
    // The 150th frame is sampled; a queue 20 KB above Qeq that also grew by 20 KB
    // since the last sample gives Fb = -(20 KB + 2 x (53 KB - 33 KB)) = -60 KB.
    cp.q_old = 33 * 1024;
    cp.on_arrival(&arrival(53 * 1024), &mut out);
    let expect = ((60.0 * 1024.0) / 168_960.0 * 64.0f64).floor() as u8;
    let Feedback::Quantized { psi, .. } = out[0].feedback else { panic!("{out:?}") };
    assert_eq!((out.len(), out[0].flow, psi), (1, 3, expect));
    // Ψ = 23 now: the next sample comes after table[23 / 8] = 50000 bytes.
    out.clear();
    for _ in 0..49 {
        cp.on_arrival(&arrival(53 * 1024), &mut out);
    }
    assert!(out.is_empty());
    cp.on_arrival(&arrival(53 * 1024), &mut out);
    assert_eq!(out.len(), 1);
}

#[test]
fn qcn_t_uses_one_constant_timer_and_a_later_hai() {
    let mut p = QcnParams::qcn_t();
    p.target_reduction = false;
    assert_eq!(p.hai_threshold_at(Rate::from_gbps(1)), 32);
    let mut r = rp(p, 1, 500);
    assert_eq!(r.timer(), Some(Time::from_us(2400)));
    assert!(!r.on_sent(Time::ZERO, 1_000_000), "no byte counter");
    let mut tr = 500.0;
    for ts in 1..=34u64 {
        let now = Time::from_us(2400 * ts);
        r.on_timer(now);
        assert_eq!(r.timer(), Some(now + Time::from_us(2400)), "no halving");
        if ts > 32 {
            tr += 5.0 * (ts - 32) as f64;
        } else if ts > 5 {
            tr += 0.5;
        }
        assert!(close(r.target_rate(), tr * MBPS), "ts {ts}");
    }
}

#[test]
fn qcn_t_period_scales_with_line_rate_unless_set() {
    // 150 KB at the fair share of two RPs: 2.4 ms at 1 Gb/s, 240 us at 10, 60 us at 40;
    // the HAI threshold keeps 5 x 15 ms: 313 cycles at 10 Gb/s.
    let p = QcnParams::qcn_t();
    assert_eq!(p.timer_period_at(Rate::from_gbps(10)), Time::from_us(240));
    assert_eq!(p.hai_threshold_at(Rate::from_gbps(10)), 313);
    let mut r = rp(p.clone(), 40, 500);
    assert_eq!(r.timer(), Some(Time::from_us(60)));
    r.on_timer(Time::from_us(60));
    assert_eq!(r.timer(), Some(Time::from_us(120)));
    // Set, it holds at every rate; the standard's timer stays 15 ms.
    let mut set = p;
    set.set("timer_ms", &ParamValue::Number(2.4)).unwrap();
    assert_eq!(set.timer_period_at(Rate::from_gbps(10)), Time::from_us(2400));
    assert_eq!(QcnParams::default().timer_period_at(Rate::from_gbps(40)), Time::from_ms(15));
}

#[test]
fn timers_count_from_the_flow_start() {
    let mut r = rp(QcnParams::qcn_t(), 1, 500);
    assert!(r.on_start(Time::from_ms(2000)));
    assert_eq!(r.timer(), Some(Time::from_ms(2000) + Time::from_us(2400)));
}

#[test]
fn qcn_aimd_adds_r_ai_per_byte_cycle() {
    let mut r = rp(QcnParams::qcn_aimd(), 1, 1000);
    cnm(&mut r, 32);
    assert!(close(r.current_rate(), 750.0 * MBPS));
    assert_eq!(r.timer(), None);
    byte_cycle(&mut r);
    assert!(close(r.current_rate(), 750.5 * MBPS));
}

#[test]
fn the_active_increase_byte_cycle_can_be_set() {
    let mut p = exact();
    p.set("bc_limit_ai_bytes", &ParamValue::Number(37_500.0)).unwrap();
    let mut r = rp(p, 1, 1000);
    cnm(&mut r, 32);
    // Frames of 1000 B: a 37 500-byte cycle ends with the 38th.
    let cycles: Vec<u64> = (0..8).map(|_| byte_cycle(&mut r)).collect();
    assert_eq!(cycles, [150_000, 150_000, 150_000, 150_000, 150_000, 150_000, 38_000, 38_000]);
}

#[test]
fn qcn_aimd_keeps_the_full_byte_cycle_past_five_cycles() {
    let mut r = rp(QcnParams { bc_jitter: false, ..QcnParams::qcn_aimd() }, 1, 1000);
    cnm(&mut r, 32);
    for cycle in 1..=8 {
        assert_eq!(byte_cycle(&mut r), 150_000, "cycle {cycle}");
    }
    assert!(close(r.current_rate(), 754.0 * MBPS));
}

#[test]
fn qcn_timer_ignores_bytes() {
    let mut r = rp(QcnParams::qcn_timer(), 10, 1000);
    cnm(&mut r, 8);
    assert!(!r.on_sent(Time::ZERO, 10_000_000));
    assert!(r.on_timer(Time::from_ms(15)));
}

#[test]
fn parameters_are_checked() {
    let mut p = QcnParams::default();
    assert!(p.set("gd", &ParamValue::Number(-1.0)).is_err());
    assert!(p.set("sampling", &ParamValue::Text("random".into())).is_err());
    assert!(p.set("nonsense", &ParamValue::Number(1.0)).unwrap_err().to_string().contains("bc_limit_bytes"));
    p.set("bc_limit_bytes", &ParamValue::Number(30_000.0)).unwrap();
    assert_eq!(p.bc_limit, 30_000);
    p.set("r_ai_mbps", &ParamValue::Number(1.0)).unwrap();
    assert_eq!(p.r_ai_at(Rate::from_gbps(1)), 1e6);
}

/// A CP that samples every frame, at the SMCC paper's Qeq = 64 KB and w = 2.
fn every_frame(fb_bits: u32) -> QcnCp {
    let params = QcnParams { q_eq: 64 * 1024, sampling: Sampling::Fixed, p: 1.0, fb_bits, ..exact() };
    QcnCp::new(params, Rng::stream(1, "cp"))
}

#[test]
fn finer_feedback_notifies_below_one_six_bit_step() {
    // A still queue 2 KB above Qeq: Fb = -2048 B, 0.4 of a 6-bit step (327680 B / 64).
    let q = 66 * 1024;
    let mut out = Vec::new();
    let mut six = every_frame(6);
    six.q_old = q;
    six.on_arrival(&arrival(q), &mut out);
    assert!(out.is_empty());
    let mut fine = every_frame(16);
    fine.q_old = q;
    fine.on_arrival(&arrival(q), &mut out);
    let Feedback::Quantized { psi, q_off, q_delta } = out[0].feedback else { panic!("{out:?}") };
    assert_eq!((psi, q_off, q_delta), (0, 2048, 0));
    // 16 bits: floor(2048 / 327680 x 65536) = 409 steps of 64/65536 on Ψ's scale.
    let magnitude = fine.params().magnitude(psi, q_off, q_delta);
    assert!((magnitude - 409.0 * 64.0 / 65536.0).abs() < 1e-12);
    let mut r = rp(QcnParams { hold_target: false, ..fine.params().clone() }, 1, 1000);
    assert!(r.on_feedback(Time::ZERO, 0, &out[0].feedback));
    assert!(close(r.current_rate(), 1000.0 * MBPS * (1.0 - magnitude / 128.0)));
    assert!(r.current_rate() < 997.0 * MBPS);
}

#[test]
fn six_bits_read_psi_and_ignore_the_queue_figures() {
    let p = exact();
    assert_eq!(p.magnitude(5, 100_000, 50_000), 5.0);
    let fine = QcnParams { fb_bits: 16, ..exact() };
    assert_eq!(fine.magnitude(5, -4096, 1024), 0.0);
    // Saturates just below 64, like Ψ at 63.
    assert!(fine.magnitude(63, 1 << 30, 0) < 64.0 && fine.magnitude(63, 1 << 30, 0) > 63.99);
}

#[test]
fn periodic_sampling_takes_every_hundredth_frame() {
    let params = QcnParams { sampling: Sampling::Periodic, p: 0.01, ..exact() };
    let mut cp = QcnCp::new(params, Rng::stream(1, "cp"));
    let mut sampled = Vec::new();
    for frame in 1..=300 {
        if cp.sample(&arrival(100 * 1024)).is_some() {
            sampled.push(frame);
        }
    }
    assert_eq!(sampled, vec![100, 200, 300]);
    // With the standard's jitter each gap is 85 to 115 frames, not all equal.
    let params = QcnParams { sampling: Sampling::Periodic, p: 0.01, sample_jitter: true, ..exact() };
    let mut cp = QcnCp::new(params, Rng::stream(1, "cp"));
    let (mut last, mut gaps) = (0, Vec::new());
    for frame in 1..=5000 {
        if cp.sample(&arrival(100 * 1024)).is_some() {
            gaps.push(frame - last);
            last = frame;
        }
    }
    assert!(gaps.iter().all(|g| (85..=115).contains(g)), "{gaps:?}");
    assert!(gaps.iter().any(|&g| g != gaps[0]));
}

#[test]
fn feedback_bits_are_checked() {
    let mut p = QcnParams::default();
    for bad in [5.0, 17.0, 6.5] {
        assert!(p.set("fb_bits", &ParamValue::Number(bad)).unwrap_err().to_string().contains("fb_bits"));
    }
    p.set("fb_bits", &ParamValue::Number(16.0)).unwrap();
    p.set("sampling", &ParamValue::Text("periodic".into())).unwrap();
    assert_eq!((p.fb_bits, p.sampling), (16, Sampling::Periodic));
    // FQCN and AF-QCN split or mix the finer feedback as they do Ψ (their tests).
    for scheme in ["fqcn", "afqcn"] {
        let mut config = crate::cc::SchemeConfig::by_name(scheme).unwrap();
        config.set_param("fb_bits", &ParamValue::Number(16.0)).unwrap();
        assert!(config.set_param("fb_bits", &ParamValue::Number(17.0)).unwrap_err().to_string().contains("fb_bits"));
    }
}

/// The switch's shortcut (count an unsampled frame, else call the CP) notifies
/// exactly as calling the CP for every frame, under every sampling mode.
#[test]
fn an_unsampled_frame_passes_the_congestion_point_as_a_call_would() {
    for sampling in [Sampling::Table, Sampling::Linear, Sampling::Fixed, Sampling::Periodic] {
        let params = QcnParams { sampling, p: 0.01, ..QcnParams::default() };
        let (mut called, mut shortcut) = (QcnCp::new(params.clone(), Rng::stream(3, "cp")), QcnCp::new(params, Rng::stream(3, "cp")));
        let mut sizes = Rng::stream(4, "sizes");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut passed = 0;
        for k in 0..20_000u64 {
            let bytes = 64 + (sizes.next_u64() % 9000) as u32;
            let q = 40_000 + (k * 7919) % 120_000;
            let frame = Arrival { bytes, ..arrival(q) };
            called.on_arrival(&frame, &mut a);
            if shortcut.passes_unsampled(bytes) {
                passed += 1;
            } else {
                shortcut.on_arrival(&frame, &mut b);
            }
        }
        assert_eq!(a, b, "{sampling:?}");
        assert!(!a.is_empty(), "{sampling:?}");
        let counted = matches!(sampling, Sampling::Table | Sampling::Periodic);
        assert_eq!(passed > 10_000, counted, "{sampling:?}: {passed}");
    }
}

/// The send's shortcut (count a frame that ends no byte-counter cycle, else call the
/// RP) changes the rate exactly when calling the RP for every frame does.
#[test]
fn a_sent_frame_passes_the_reaction_point_as_a_call_would() {
    for byte_counter in [true, false] {
        let params = QcnParams { byte_counter, ..QcnParams::default() };
        let (mut called, mut shortcut) = (rp(params.clone(), 10, 10_000), rp(params, 10, 10_000));
        cnm(&mut called, 40);
        cnm(&mut shortcut, 40);
        let mut sizes = Rng::stream(5, "sizes");
        for _ in 0..50_000 {
            let bytes = 64 + (sizes.next_u64() % 9000) as u32;
            let changed = called.on_sent(Time::ZERO, bytes);
            let via = !shortcut.passes_sent(bytes) && shortcut.on_sent(Time::ZERO, bytes);
            assert_eq!(changed, via);
            assert_eq!(called.current_rate(), shortcut.current_rate());
        }
        assert_eq!(called.current_rate() > 9_000.0 * MBPS, byte_counter);
    }
}
