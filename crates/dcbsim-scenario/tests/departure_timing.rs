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

/// The run delivers more than `at_least` frames, and the same with departure timing
/// (and early sending) on as off.
fn assert_same_delivering(text: &str, at_least: u64) {
    let (timed, plain) = (run(text, true), run(text, false));
    assert!(timed.delivered_frames() > at_least, "delivered {}", timed.delivered_frames());
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
    let text = format!(
        "{DUMBBELL}\n[[timeline]]\nat_ms = 10.0\nport = \"sw0:r0\"\nrate_gbps = 5.0\n[[timeline]]\nat_ms = 20.0\nport = \"sw0:r0\"\nrate_gbps = 10.0\n"
    );
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

/// Slow lone senders (a frame every 20 µs, so a timeline entry most likely falls
/// between a frame's arrival and the next frame's start): one stopped and
/// restarted, one capped, one whose NIC changes capacity; and a host with two flows.
const TIMELINE: &str = r#"
[run]
duration_ms = 20.0
sample_interval_us = 100.0
[topology]
kind = "dumbbell"
senders = 5
rate_gbps = 10.0
delay_us = 1.5
buffer_kb = 32.0
[monitor]
ports = ["sw0:r0"]
[[flows]]
src = ["s0", "s1", "s2"]
dst = "r0"
kind = "constant"
rate_gbps = 0.4
frame_bytes = 1001
jitter = 0.1
[[flows]]
src = "s3"
dst = "r0"
kind = "constant"
rate_gbps = 3.0
frame_bytes = 1499
jitter = 0.2
[[flows]]
name = "pair"
src = "s3"
dst = "r0"
kind = "constant"
rate_gbps = 1.0
frame_bytes = 700
jitter = 0.1
[[flows]]
src = "s4"
dst = "r0"
kind = "constant"
rate_gbps = 7.0
frame_bytes = 1201
jitter = 0.3
[[timeline]]
at_ms = 7.0
flow = "s0-r0"
action = "stop"
[[timeline]]
at_ms = 9.5
flow = "s0-r0"
action = "start"
[[timeline]]
at_ms = 11.1
flow = "s0-r0"
action = "stop"
[[timeline]]
at_ms = 13.3
flow = "s0-r0"
action = "start"
[[timeline]]
at_ms = 12.0
flow = "s1-r0"
max_rate_gbps = 0.2
[[timeline]]
at_ms = 15.0
port = "s2:sw0"
rate_gbps = 0.1
"#;

#[test]
fn timeline_entries_on_early_senders_are_unchanged() {
    assert_same(TIMELINE);
}

#[test]
fn lone_fixed_rate_senders_send_early_with_one_event_per_frame() {
    let events = |timed: bool| {
        let scenario = load_str(DUMBBELL, "timing.toml", &[]).unwrap();
        let mut sim = scenario.build(7).unwrap();
        sim.set_departure_timing(timed);
        let report = sim.run();
        report.events as f64 / report.sent_frames() as f64
    };
    let (early, plain) = (events(true), events(false));
    assert!(early < 0.5 * plain, "events per frame sent: {early:.2} early, {plain:.2} frame by frame");
}

#[test]
fn a_run_in_stretches_reports_what_one_run_does() {
    let scenario = load_str(DUMBBELL, "timing.toml", &[]).unwrap();
    let mut sim = scenario.build(7).unwrap();
    for ms in 1..=30 {
        sim.run_until(dcbsim_core::units::Time::from_us(ms * 1000 - 333));
    }
    sim.run_until(dcbsim_core::units::Time::from_ms(30));
    let mut stretches = sim.finish();
    stretches.wall_seconds = 0.0;
    stretches.events = 0;
    assert_eq!(stretches, run(DUMBBELL, true));
}

#[test]
fn a_lone_sender_linked_straight_to_its_receiver_keeps_sending() {
    let text = r#"
[run]
duration_ms = 5.0
[topology]
kind = "generic"
hosts = ["a", "b"]
switches = []
[[topology.links]]
a = "a"
b = "b"
rate_gbps = 10.0
delay_us = 1.0
[[flows]]
src = "a"
dst = "b"
kind = "constant"
rate_gbps = 2.0
jitter = 0.1
"#;
    assert_same_delivering(text, 800);
}

#[test]
fn a_frame_due_at_a_sample_time_counts_in_the_next_sample_either_way() {
    // 1000 B at 1 Gb/s from time 0: a frame every 8 us, so one starts at every 1 ms sample.
    let text = r#"
[run]
duration_ms = 20.0
[topology]
kind = "dumbbell"
senders = 1
rate_gbps = 10.0
delay_us = 1.0
[[flows]]
src = "s0"
dst = "r0"
kind = "constant"
rate_gbps = 1.0
frame_bytes = 1000
"#;
    let (timed, plain) = (run(text, true), run(text, false));
    let per_sample = 125.0 * 1000.0 * 8.0 / 1e-3;
    assert!(plain.flows[0].send_bps[1..].iter().all(|&b| b == per_sample), "{:?}", &plain.flows[0].send_bps[..4]);
    assert_eq!(timed, plain);
}

#[test]
fn a_large_incast_where_the_loop_fetches_ahead_is_unchanged() {
    // 1,024 jittered senders: ports and flows outgrow the caches, so the loop reads and
    // prefetches the state of the events ahead (and the queue cuts its crowded
    // stretches); none of it may change a result.
    let text = r#"
[run]
duration_ms = 3.0
sample_interval_us = 500.0
[topology]
kind = "incast"
servers = 1024
rate_gbps = 10.0
delay_us = 1.0
buffer_kb = 128.0
[[flows]]
src = "srv*"
dst = "client"
kind = "constant"
rate_gbps = 0.01220703125
frame_bytes = 1000
jitter = 0.1
"#;
    assert_same_delivering(text, 1500);
}

#[test]
fn a_run_in_slices_reports_what_one_run_does_with_as_many_events() {
    let scenario = load_str(DUMBBELL, "timing.toml", &[]).unwrap();
    let one = scenario.build(7).unwrap().run();
    let mut sim = scenario.build(7).unwrap();
    for us in (10..30_000).step_by(97) {
        sim.run_slice(dcbsim_core::units::Time::from_us(us));
    }
    sim.run_slice(dcbsim_core::units::Time::from_ms(30));
    let mut sliced = sim.finish();
    assert_eq!(sliced.events, one.events, "a slice's end costs no wake-ups");
    sliced.wall_seconds = one.wall_seconds;
    assert_eq!(sliced, one);
    // Stopping at each of those times instead wakes senders whose frames fall past them.
    let mut sim = scenario.build(7).unwrap();
    for us in (10..30_000).step_by(97) {
        sim.run_until(dcbsim_core::units::Time::from_us(us));
    }
    sim.run_until(dcbsim_core::units::Time::from_ms(30));
    assert!(sim.finish().events > one.events);
}
