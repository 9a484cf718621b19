//! Regressions of issue 15: inputs that aborted, hung or were silently accepted are
//! refused with one message naming the file, position and key; what is legitimate
//! stays accepted; validation stays linear in the file's size.

mod common;

use common::{assert_at, error, error_with};
use dcbsim_scenario::{Limits, ScenarioError, load_str, load_str_within};
use std::time::Instant;

const GOOD: &str = r#"[run]
duration_ms = 10.0

[topology]
kind = "dumbbell"
senders = 2
rate_gbps = 10.0
buffer_kb = 64.0

[scheme]
name = "qcn"

[[flows]]
src = "s*"
dst = "r0"
rate_gbps = 2.0

[[timeline]]
at_ms = 5.0
port = "sw0:r0"
rate_gbps = 1.0
"#;

/// `GOOD` with `from` replaced by `to`.
fn with(from: &str, to: &str) -> ScenarioError {
    error_with(GOOD, from, to)
}

fn set(expr: &str) -> ScenarioError {
    load_str(GOOD, "bad.toml", &[expr.to_string()]).expect_err("must be refused")
}

#[test]
fn a_huge_duration_is_refused_with_the_memory_figure() {
    let e = with("duration_ms = 10.0", "duration_ms = 1e9");
    assert_at(&e, 2, "run.duration_ms", "GB of memory");
    assert!(e.to_string().contains("--max-memory-gb"), "{e}");
    // About 0.1 GB of samples: refused under a 0.05 GB limit, accepted under 1 GB.
    let text = GOOD.replace("duration_ms = 10.0", "duration_ms = 1e6");
    let tight = Limits::new(0.05e9);
    assert!(load_str_within(&text, "big.toml", &[], &tight).unwrap_err().to_string().contains("above the limit of 0.05 GB"));
    let roomy = Limits::new(1e9);
    assert!(load_str_within(&text, "big.toml", &[], &roomy).is_ok());
}

#[test]
fn samples_above_the_budget_are_streamed_and_count_as_the_budget() {
    // 1e6 samples of 12 series (3 queues, 2 flows × 4, the times): 96 MB, above the default 64 MB.
    let text = GOOD.replace("duration_ms = 10.0", "duration_ms = 1e6");
    let s = load_str(&text, "big.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.streams_samples());
    assert_eq!(s.estimate().samples_bytes, 64e6 + 8.0 * (1e6 + 2.0));
    let roomy = load_str(&text, "big.toml", &["output.sample_memory_mb=200".to_string()]).unwrap_or_else(|e| panic!("{e}"));
    assert!(!roomy.streams_samples());
    assert_eq!(roomy.estimate().samples_bytes, 96e6 + 12.0 * 8.0 * 2.0);
    assert!(!load_str(GOOD, "small.toml", &[]).unwrap().streams_samples());
}

#[test]
fn the_sample_budget_must_be_a_positive_number() {
    let e = with("[scheme]", "[output]\nsample_memory_mb = 0\n\n[scheme]");
    assert_at(&e, 11, "output.sample_memory_mb", "must be > 0");
    let e = with("[scheme]", "[output]\nsample_memory = 1\n\n[scheme]");
    assert_at(&e, 11, "output.sample_memory", "allowed: sample_memory_mb");
}

#[test]
fn a_seed_beyond_64_bits_names_the_range() {
    let e = set("run.seed=18446744073709551616");
    assert!(e.to_string().contains("must be an integer in 0..="), "{e}");
    assert!(e.to_string().contains("18446744073709551616"), "{e}");
    let e = with("duration_ms = 10.0", "duration_ms = 10.0\nseed = 18446744073709551616");
    assert_at(&e, 3, "run.seed", "(got 18446744073709551616)");
}

#[test]
fn an_incast_of_the_documented_maximum_validates_quickly() {
    let text = "[run]\nduration_ms = 1.0\n[topology]\nkind = \"incast\"\nservers = 100000\n[[flows]]\nsrc = \"srv*\"\ndst = \"client\"\nkind = \"finite\"\nsize_kb = 1\n";
    let started = Instant::now();
    let s = load_str(text, "incast.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.config.flows.len(), 100_000);
    assert!(started.elapsed().as_secs_f64() < 20.0, "{:?}", started.elapsed());
}

#[test]
fn rates_that_saturate_or_vanish_are_refused() {
    assert_at(&with("rate_gbps = 10.0", "rate_gbps = 1e30"), 7, "topology.rate_gbps", "too large");
    assert_at(&with("rate_gbps = 10.0", "rate_gbps = 1e-12"), 7, "topology.rate_gbps", "rounds to 0 b/s");
    let e = with("at_ms = 5.0\nport = \"sw0:r0\"\nrate_gbps = 1.0", "at_ms = 5.0\nport = \"sw0:r0\"\nrate_gbps = 1e-12");
    assert_at(&e, 21, "timeline[0].rate_gbps", "rounds to 0 b/s");
}

#[test]
fn a_flow_faster_than_its_link_is_refused() {
    assert_at(&with("rate_gbps = 2.0", "rate_gbps = 20.0"), 16, "flows[0].rate_gbps", "above the line rate");
}

#[test]
fn huge_buffers_are_refused() {
    assert_at(&with("buffer_kb = 64.0", "buffer_kb = 1e300"), 8, "topology.buffer_kb", "too large");
}

#[test]
fn an_empty_source_list_is_refused() {
    assert_at(&with("src = \"s*\"", "src = []"), 14, "flows[0].src", "at least one host");
}

#[test]
fn flows_that_all_start_after_the_run_are_refused() {
    assert_at(&with("rate_gbps = 2.0", "rate_gbps = 2.0\nstart_ms = 10.0"), 17, "flows[0].start_ms", "none would send");
    // A shortened run may leave some flows that never start.
    let text = GOOD.replace("rate_gbps = 2.0", "rate_gbps = 2.0\n[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\nstart_ms = 10.0");
    load_str(&text, "late.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn priority_seven_with_one_class_is_accepted_as_documented() {
    let text = GOOD.replace("rate_gbps = 2.0", "rate_gbps = 2.0\npriority = 7");
    load_str(&text, "p7.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_congestion_point_on_a_host_port_is_refused() {
    let e = with("name = \"qcn\"", "name = \"qcn\"\ncongestion_points = [\"s0:sw0\"]");
    assert_at(&e, 12, "scheme.congestion_points", "host's port");
}

#[test]
fn scheme_parameters_must_be_finite_and_survive_their_units() {
    assert_at(&set_scheme("w = inf"), 12, "scheme.w", "finite");
    assert_at(&set_scheme("timer_ms = 1e-12"), 12, "scheme.timer_ms", "rounds to 0 ps");
    assert_at(&set_scheme("bc_limit_bytes = 0.4"), 12, "scheme.bc_limit_bytes", "rounds to 0 bytes");
    let ecm = GOOD.replace("name = \"qcn\"", "name = \"ecm\"\nsample_bytes = 0.4");
    assert_at(&error(&ecm), 12, "scheme.sample_bytes", "rounds to 0 bytes");
    let dsm = GOOD.replace("name = \"qcn\"", "name = \"dsm\"\nloop_delay_us = 1e-9");
    assert_at(&error(&dsm), 12, "scheme.loop_delay_us", "rounds to 0 ps");
    let e = with("at_ms = 5.0\nport = \"sw0:r0\"\nrate_gbps = 1.0", "at_ms = 5.0\nparam = \"timer_ms\"\nvalue = 1e-12");
    assert_at(&e, 21, "timeline[0].value", "timer_ms: 1e-12 rounds to 0 ps");
}

fn set_scheme(line: &str) -> ScenarioError {
    with("name = \"qcn\"", &format!("name = \"qcn\"\n{line}"))
}

#[test]
fn a_queue_target_above_the_buffer_is_refused() {
    assert_at(&set_scheme("q_eq_kb = 100"), 12, "scheme.q_eq_kb", "above the 65536-byte buffer");
}

#[test]
fn a_tiny_duration_blames_the_duration() {
    assert_at(&with("duration_ms = 10.0", "duration_ms = 1e-12"), 2, "run.duration_ms", "rounds to 0 ps");
    assert_at(&with("duration_ms = 10.0", "duration_ms = 0.5"), 2, "run.duration_ms", "shorter than the sample interval");
}

#[test]
fn ten_thousand_flows_validate_in_linear_time() {
    let mut text = String::from("[run]\nduration_ms = 1.0\n[topology]\nkind = \"dumbbell\"\nsenders = 100\nreceivers = 100\n");
    for i in 0..10_000 {
        text.push_str(&format!("[[flows]]\nsrc = \"s{}\"\ndst = \"r{}\"\nkind = \"finite\"\nsize_kb = 10\n", i % 100, (i / 100) % 100));
    }
    let started = Instant::now();
    let s = load_str(&text, "many.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.config.flows.len(), 10_000);
    assert!(started.elapsed().as_secs_f64() < 20.0, "{:?}", started.elapsed());
}

#[test]
fn the_flows_an_arrival_source_makes_count_in_the_estimate() {
    // 1 KB flows offering 2 Gb/s: about 244,000 a second; their memory is counted.
    let arrivals = "\n[[arrivals]]\nname = \"short\"\nsrc = \"s0\"\ndst = \"r0\"\nload_gbps = 2.0\nsize_kb = 1.0\n";
    let text = format!("{GOOD}{arrivals}");
    let base = load_str(GOOD, "a.toml", &[]).unwrap_or_else(|e| panic!("{e}")).estimate().memory_bytes();
    let made = load_str(&text, "a.toml", &[]).unwrap_or_else(|e| panic!("{e}")).estimate().memory_bytes() - base;
    // 10 ms: about 2,440 flows of 1 KiB each.
    assert!((2.0e6..3.0e6).contains(&made), "{made}");
    // For 100 s, 24 million flows: refused under the default limit, at the arrivals.
    let long = load_str(&text, "bad.toml", &["run.duration_ms=1e5".to_string()]).expect_err("must be refused");
    assert_at(&long, 23, "arrivals", "arriving flows");
    assert!(long.to_string().contains("lower their load"), "{long}");
}

/// A k = 32 fat-tree (8,192 hosts) with all-to-all flows: 67 million of them.
const HUGE_ALL_TO_ALL: &str = "[run]\nduration_ms = 1.0\n[topology]\nkind = \"fat_tree\"\nk = 32\n\
    [[flows]]\nsrc = \"h*\"\ndst = \"h*\"\npairing = \"all_to_all\"\n";

#[test]
fn flows_beyond_the_memory_limit_are_refused_before_they_are_made() {
    // Made, the flows alone took 5.9 GB before the allocation aborted; counted, the
    // entry is refused at once, at its pairing.
    let started = Instant::now();
    let e = load_str(HUGE_ALL_TO_ALL, "bad.toml", &[]).expect_err("must be refused");
    assert_at(&e, 9, "flows[0].pairing", "the run's 67100672 flows alone would need about 309.");
    assert!(started.elapsed().as_secs_f64() < 5.0, "{:?}", started.elapsed());
    // The count is of pairs without a host to itself, across entries: two entries of
    // 100 x 100 (10,000 each, 9,900 on the same hosts) fit under a limit of 20,000
    // flows' worth and not under 19,999.
    let per_flow = Limits::new(1e9).max_flows() as f64 / 1e9;
    let two = "[run]\nduration_ms = 1.0\n[topology]\nkind = \"dumbbell\"\nsenders = 100\nreceivers = 100\n\
        [[flows]]\nsrc = \"s*\"\ndst = \"r*\"\npairing = \"all_to_all\"\nrate_gbps = 0.01\n\
        [[flows]]\nsrc = \"s*\"\ndst = \"s*\"\npairing = \"all_to_all\"\nrate_gbps = 0.01\n";
    let room = |flows: f64| Limits { max_memory_bytes: flows / per_flow + 1.0, machine_bytes: None };
    let refused = load_str_within(two, "bad.toml", &[], &room(19_899.0)).expect_err("must be refused");
    assert_at(&refused, 15, "flows[1].pairing", "the run's 19900 flows");
    assert!(refused.to_string().contains("--max-memory-gb"), "{refused}");
    let error = load_str_within(two, "two.toml", &[], &room(19_900.0)).expect_err("the whole estimate is larger");
    assert!(error.to_string().contains("the run would need about"), "{error}");
}

#[test]
fn a_limit_above_the_machine_is_held_to_the_machine() {
    // A limit of a petabyte on a machine of 16 GB: refused at the machine's memory,
    // without advice to raise the limit.
    let limits = Limits { max_memory_bytes: 1e15, machine_bytes: Some(16e9) };
    let e = load_str_within(HUGE_ALL_TO_ALL, "bad.toml", &[], &limits).expect_err("must be refused");
    assert_at(&e, 9, "flows[0].pairing", "above this machine's 16.0 GB of memory");
    assert!(!e.to_string().contains("--max-memory-gb"), "{e}");
    let long = GOOD.replace("duration_ms = 10.0", "duration_ms = 1e9");
    let e = load_str_within(&long, "bad.toml", &[], &limits).expect_err("must be refused");
    assert_at(&e, 2, "run.duration_ms", "above this machine's 16.0 GB of memory");
    // Where the machine has more than the limit, the limit holds.
    assert_eq!(Limits { max_memory_bytes: 1e9, machine_bytes: Some(16e9) }.max_flows(), Limits::new(1e9).max_flows());
}
