//! DCQCN's reaction point and marking, worked by hand.

use super::dcqcn::{DcqcnParams, DcqcnRp};
use super::{Feedback, ReactionPoint};
use crate::units::{Rate, Time};

const G: f64 = 1.0 / 256.0;

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-3 * b.abs().max(1.0), "{a} != {b}");
}

fn rp(line_gbps: u64, start_gbps: u64) -> DcqcnRp {
    DcqcnRp::new(DcqcnParams::default(), Rate::from_gbps(line_gbps), Rate::from_gbps(start_gbps))
}

#[test]
fn a_cnp_halves_the_rate_at_alpha_one_and_keeps_alpha_at_one() {
    let mut r = rp(40, 40);
    assert_eq!(r.timer(), None, "no timer before the first CNP");
    assert!(r.on_feedback(Time::ZERO, 0, &Feedback::Cnp));
    // R_T = 40, R_C = 40·(1 − 1/2) = 20, α = (1 − g)·1 + g = 1.
    close(r.target_rate(), 40e9);
    close(r.current_rate(), 20e9);
    close(r.alpha(), 1.0);
    r.on_feedback(Time::from_us(60), 0, &Feedback::Cnp);
    close(r.target_rate(), 20e9);
    close(r.current_rate(), 10e9);
}

#[test]
fn alpha_decays_by_one_minus_g_each_period_without_a_cnp_and_shrinks_the_next_cut() {
    let mut r = rp(40, 40);
    r.on_feedback(Time::ZERO, 0, &Feedback::Cnp);
    assert_eq!(r.timer(), Some(Time::from_us(55)));
    r.on_timer(Time::from_us(55));
    close(r.alpha(), 1.0 - G);
    r.on_timer(Time::from_us(110));
    let alpha = (1.0 - G) * (1.0 - G);
    close(r.alpha(), alpha);
    // Two fast-recovery stages: R_C = (40 + 20)/2 = 30, then 35.
    close(r.current_rate(), 35e9);
    // The next CNP cuts by α/2 and raises α by g.
    r.on_feedback(Time::from_us(120), 0, &Feedback::Cnp);
    close(r.current_rate(), 35e9 * (1.0 - alpha / 2.0));
    close(r.target_rate(), 35e9);
    close(r.alpha(), (1.0 - G) * alpha + G);
}

#[test]
fn five_fast_recovery_stages_then_additive_increase() {
    // Line 100 Gb/s so the target is never capped; start at 40.
    let mut r = rp(100, 40);
    r.on_feedback(Time::ZERO, 0, &Feedback::Cnp);
    let mut t = Time::ZERO;
    let mut expected = [30.0, 35.0, 37.5, 38.75].map(|g| g * 1e9).to_vec();
    // Stage 5 (j = 5, i = 0): additive, R_T = 40.04, R_C = (40.04 + 38.75)/2.
    expected.push((40.04e9 + 38.75e9) / 2.0);
    expected.push((40.08e9 + expected[4]) / 2.0);
    for want in expected {
        t += Time::from_us(55);
        r.on_timer(t);
        close(r.current_rate(), want);
    }
    close(r.target_rate(), 40.08e9);
}

#[test]
fn hyper_increase_once_both_counters_pass_f() {
    // Keep α's timer out of the way so only the increase timer fires.
    let p = DcqcnParams { byte_counter: 1000, alpha_period: Time::from_ms(10), ..DcqcnParams::default() };
    let mut r = DcqcnRp::new(p, Rate::from_gbps(100), Rate::from_gbps(40));
    r.on_feedback(Time::ZERO, 0, &Feedback::Cnp);
    // Six byte stages (timer stages 0): fast recovery for 1–4, additive for 5–6.
    for _ in 0..6 {
        assert!(r.on_sent(Time::ZERO, 1000));
    }
    close(r.target_rate(), 40.08e9);
    // Timer stages 1–5: min(T, B) ≤ 5, additive (max ≥ 5).
    let mut t = Time::ZERO;
    for _ in 0..5 {
        t += Time::from_us(55);
        r.on_timer(t);
    }
    close(r.target_rate(), 40.08e9 + 5.0 * 40e6);
    // Timer stage 6: min = 6 > F: hyper, R_T += (6 − 5)·R_HAI.
    let before = r.current_rate();
    r.on_timer(t + Time::from_us(55));
    let target = 40.28e9 + 400e6;
    close(r.target_rate(), target);
    close(r.current_rate(), (target + before) / 2.0);
}

#[test]
fn the_byte_counter_counts_bytes_sent_since_the_cnp() {
    let mut r = rp(40, 40);
    assert!(!r.on_sent(Time::ZERO, 1500), "no counting before a CNP");
    r.on_feedback(Time::ZERO, 0, &Feedback::Cnp);
    let frames = (10 * 1024 * 1024) / 1000;
    for _ in 0..frames {
        assert!(!r.on_sent(Time::ZERO, 1000));
    }
    assert!(r.on_sent(Time::ZERO, 1000), "10 MB reached");
    close(r.current_rate(), 30e9);
}

#[test]
fn a_reduction_period_ignores_cnps_inside_it() {
    let p = DcqcnParams { reduction_period: Time::from_us(50), ..DcqcnParams::default() };
    let mut r = DcqcnRp::new(p, Rate::from_gbps(40), Rate::from_gbps(40));
    r.on_feedback(Time::ZERO, 0, &Feedback::Cnp);
    assert!(!r.on_feedback(Time::from_us(49), 0, &Feedback::Cnp));
    assert!(r.on_feedback(Time::from_us(50), 0, &Feedback::Cnp));
    close(r.current_rate(), 10e9);
}

#[test]
fn red_marks_linearly_between_kmin_and_kmax() {
    let p = DcqcnParams::default();
    assert_eq!(p.mark_probability(5 * 1024), 0.0);
    close(p.mark_probability((5 * 1024 + 200 * 1024) / 2), 0.005);
    close(p.mark_probability(200 * 1024), 0.01);
    assert_eq!(p.mark_probability(200 * 1024 + 1), 1.0);
}
