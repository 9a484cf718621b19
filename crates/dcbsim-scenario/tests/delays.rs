//! Delay settings: fixed, random, per-notification latency and the feedback-loop knob.

use dcbsim_core::dist::TimeDist;
use dcbsim_core::units::Time;
use dcbsim_scenario::load_str;

fn dumbbell(extra_topology: &str, extra_run: &str) -> String {
    format!(
        "[run]\nduration_ms = 1.0\n{extra_run}\n[topology]\nkind = \"dumbbell\"\nsenders = 2\n{extra_topology}\n[[flows]]\nsrc = \"s*\"\ndst = \"r0\"\n"
    )
}

#[test]
fn delays_may_be_random() {
    let s = load_str(&dumbbell("delay_us = { uniform = [200, 400] }", ""), "d.toml", &[]).unwrap();
    let expect = TimeDist::Uniform { low: Time::from_us(200), high: Time::from_us(400) };
    assert!(s.config.links.iter().all(|l| l.delay == expect));
    let s = load_str(&dumbbell("delay_us = { exponential = 5 }", ""), "d.toml", &[]).unwrap();
    assert_eq!(s.config.links[0].delay, TimeDist::Exponential { mean: Time::from_us(5) });
}

#[test]
fn notification_latency_is_read() {
    let s = load_str(&dumbbell("", "notification_latency_us = { uniform = [0, 20] }"), "d.toml", &[]).unwrap();
    assert_eq!(s.config.notification_latency, TimeDist::Uniform { low: Time::ZERO, high: Time::from_us(20) });
}

#[test]
fn the_feedback_loop_knob_sets_the_sender_links() {
    let s = load_str(&dumbbell("delay_us = 1.0\nfeedback_loop_delay_us = 300.0", ""), "d.toml", &[]).unwrap();
    let names: Vec<&str> = s.config.nodes.iter().map(|n| n.name.as_str()).collect();
    for l in &s.config.links {
        let ends = (names[l.a], names[l.b]);
        let expect = if ends.0.starts_with("s0") || ends.1.starts_with("s0") || ends.0 == "s1" || ends.1 == "s1" {
            Time::from_us(150)
        } else {
            Time::from_us(1)
        };
        assert_eq!(l.delay, TimeDist::Fixed(expect), "{ends:?}");
    }
}

#[test]
fn bad_delays_are_named() {
    for (bad, words) in [
        ("delay_us = -1.0", "must be a number of µs"),
        ("delay_us = { uniform = [5, 1] }", "low <= high"),
        ("delay_us = { normal = 3 }", "must be a number of µs"),
        ("feedback_loop_delay_us = \"x\"", "feedback_loop_delay_us"),
    ] {
        let e = load_str(&dumbbell(bad, ""), "d.toml", &[]).unwrap_err().to_string();
        assert!(e.contains(words), "{e}");
    }
    let text = "[run]\nduration_ms = 1.0\n[topology]\nkind = \"parking_lot\"\nfeedback_loop_delay_us = 5.0\n";
    let e = load_str(text, "p.toml", &[]).unwrap_err().to_string();
    assert!(e.contains("is for dumbbell and incast"), "{e}");
}
