//! Early sending of flows under a reaction point gives the results of waking each
//! frame up at its own time.
//!
//! Each scenario runs with departure timing and early sending on, and with every
//! frame sent by its own wake-up, and the two reports must be identical. As in
//! `departure_timing.rs`, the senders are jittered and their frames differ in size,
//! so that no two events fall on the very same picosecond.

use dcbsim_core::report::RunReport;
use dcbsim_scenario::load_str;

/// The report (wall time and event count left out) and how many hosts sent early.
fn run(text: &str, early: bool) -> (RunReport, usize) {
    let scenario = load_str(text, "early.toml", &[]).unwrap();
    let mut sim = scenario.build(11).unwrap();
    sim.set_departure_timing(early);
    let senders = sim.early_senders();
    let mut report = sim.run();
    report.wall_seconds = 0.0;
    report.events = 0;
    (report, senders)
}

/// Asserts identical reports; returns how many hosts sent early.
fn assert_same(text: &str) -> usize {
    let ((early, senders), (plain, _)) = (run(text, true), run(text, false));
    assert!(plain.ports.iter().any(|p| p.notifications > 0), "the scheme notifies");
    for (a, b) in early.flows.iter().zip(&plain.flows) {
        assert_eq!(a, b, "flow {}", a.name);
    }
    for (a, b) in early.ports.iter().zip(&plain.ports) {
        assert_eq!(a, b, "port {}", a.name);
    }
    assert_eq!(early, plain);
    senders
}

/// Four greedy senders into one receiver, the congestion point at the bottleneck,
/// which is the egress of the senders' first switch.
fn dumbbell(scheme: &str) -> String {
    format!(
        r#"
[run]
duration_ms = 40.0
sample_interval_us = 100.0
[topology]
kind = "dumbbell"
senders = 4
rate_gbps = 10.0
delay_us = 1.5
buffer_kb = 150.0
[scheme]
name = "{scheme}"
congestion_points = ["sw0:r0"]
[monitor]
ports = ["sw0:r0"]
[[flows]]
src = ["s0", "s1"]
dst = "r0"
frame_bytes = 1001
jitter = 0.2
[[flows]]
src = ["s2", "s3"]
dst = "r0"
frame_bytes = 1499
jitter = 0.3
"#
    )
}

#[test]
fn reacting_flows_heard_at_their_first_switch_send_early_and_report_the_same() {
    for scheme in ["qcn", "qcn_timer", "qcn_aimd", "qcn_t", "smcc", "dsm", "ecm", "dcc", "afqcn"] {
        assert_eq!(assert_same(&dumbbell(scheme)), 4, "{scheme}: hosts sending early");
    }
}

#[test]
fn fqcn_flows_do_not_send_early() {
    // FQCN's congestion point notifies culprit flows on any arrival: a notification
    // can be made for a flow between its frames.
    assert_eq!(assert_same(&dumbbell("fqcn")), 0);
}

#[test]
fn a_scheme_parameter_changed_mid_run_is_unchanged() {
    let text = dumbbell("qcn") + "[[timeline]]\nat_ms = 13.3\nparam = \"bc_limit_bytes\"\nvalue = 30000\n";
    assert_eq!(assert_same(&text), 4);
}

#[test]
fn flows_heard_past_their_first_switch_are_unchanged() {
    // The congestion point is at the second switch: it may sample a frame sent
    // before the flow's next one is due, and notify the flow in between.
    let text = r#"
[run]
duration_ms = 40.0
sample_interval_us = 100.0
[topology]
kind = "generic"
hosts = ["s0", "s1", "r0"]
switches = ["sw0", "sw1"]
[[topology.links]]
a = "s0"
b = "sw0"
rate_gbps = 10.0
delay_us = 0.5
[[topology.links]]
a = "s1"
b = "sw0"
rate_gbps = 10.0
delay_us = 0.5
[[topology.links]]
a = "sw0"
b = "sw1"
rate_gbps = 40.0
delay_us = 0.3
[[topology.links]]
a = "sw1"
b = "r0"
rate_gbps = 10.0
delay_us = 0.5
[scheme]
name = "qcn"
congestion_points = ["sw1:r0"]
[[flows]]
src = "s0"
dst = "r0"
frame_bytes = 1001
jitter = 0.2
[[flows]]
src = "s1"
dst = "r0"
frame_bytes = 1499
jitter = 0.3
"#;
    assert_eq!(assert_same(text), 0);
}

#[test]
fn a_run_in_stretches_reports_what_one_run_does() {
    // Stretch ends fall between a frame's arrival and its successor's time: the early
    // send must not cross them.
    let text = dumbbell("qcn");
    let scenario = load_str(&text, "early.toml", &[]).unwrap();
    let mut sim = scenario.build(11).unwrap();
    for us in (0..40_000).step_by(777) {
        sim.run_until(dcbsim_core::units::Time::from_us(us));
    }
    sim.run_until(dcbsim_core::units::Time::from_ms(40));
    let mut stretches = sim.finish();
    stretches.wall_seconds = 0.0;
    stretches.events = 0;
    assert_eq!(stretches, run(&text, true).0);
}
