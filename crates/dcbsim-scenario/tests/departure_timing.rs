//! Departure-timed ports give the results of serving each queue frame by frame.
//!
//! Each scenario runs twice, with its ports departure-timed and with every port
//! served by its own events, and the two reports must be identical. The scenarios
//! avoid exact ties (a frame arriving at the very picosecond the port frees), where
//! the two may order the arrival and the departure differently: their senders are
//! jittered and their frame sizes differ.

use dcbsim_core::report::RunReport;
use dcbsim_scenario::load_str;

fn run(text: &str, timed: bool) -> RunReport {
    let scenario = load_str(text, "timing.toml", &[]).unwrap();
    let mut sim = scenario.build(7).unwrap();
    sim.set_departure_timing(timed);
    let mut report = sim.run();
    report.wall_seconds = 0.0;
    report.events = 0;
    report
}

fn assert_same(text: &str) {
    let (timed, plain) = (run(text, true), run(text, false));
    assert!(plain.dropped_frames() > 0 || plain.ports.iter().any(|p| p.stats.max_bytes > 0));
    for (a, b) in timed.ports.iter().zip(&plain.ports) {
        assert_eq!(a, b, "port {}", a.name);
    }
    assert_eq!(timed, plain);
}

const DUMBBELL: &str = r#"
[run]
duration_ms = 30.0
sample_interval_us = 100.0
[topology]
kind = "dumbbell"
senders = 4
rate_gbps = 10.0
delay_us = 1.5
buffer_kb = 64.0
[monitor]
ports = ["sw0:r0"]
[[flows]]
src = ["s0", "s1"]
dst = "r0"
kind = "constant"
rate_gbps = 3.5
frame_bytes = 1001
jitter = 0.2
[[flows]]
src = ["s2", "s3"]
dst = "r0"
kind = "constant"
rate_gbps = 3.0
frame_bytes = 1499
jitter = 0.3
"#;

#[test]
fn drop_tail_queues_and_their_samples_are_unchanged() {
    assert_same(DUMBBELL);
}

#[test]
fn a_capacity_change_mid_queue_is_unchanged() {
    let text = format!("{DUMBBELL}\n[[timeline]]\nat_ms = 10.0\nport = \"sw0:r0\"\nrate_gbps = 5.0\n[[timeline]]\nat_ms = 20.0\nport = \"sw0:r0\"\nrate_gbps = 10.0\n");
    assert_same(&text);
}

#[test]
fn a_congestion_point_reading_the_queue_is_unchanged() {
    for scheme in ["qcn", "smcc", "dsm", "ecm", "fqcn"] {
        let cc = format!("[scheme]\nname = \"{scheme}\"\ncongestion_points = [\"sw0:r0\"]\n[monitor]");
        let text = DUMBBELL.replace("[monitor]", &cc).replace("kind = \"constant\"", "kind = \"greedy\"");
        assert!(run(&text, true).ports.iter().any(|p| p.notifications > 0), "{scheme} notifies");
        assert_same(&text);
    }
}

#[test]
fn marked_frames_and_finite_flows_still_reach_their_hosts_on_time() {
    let shared = DUMBBELL.replace("rate_gbps = 3.5", "rate_gbps = 2.3").replace("rate_gbps = 3.0", "rate_gbps = 2.1");
    let text = format!(
        "{shared}\n[transport]\necn_k_kb = 20.0\n[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\nkind = \"finite\"\nsize_kb = 300.0\nframe_bytes = 1203\nstart_ms = 3.3\ntransport = \"dctcp\"\n"
    );
    let report = run(&text, true);
    assert!(report.flows.last().unwrap().completion_time.is_some());
    assert_same(&text);
}

