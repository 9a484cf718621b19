//! HPCC and TIMELY checked against their own analysis, on dumbbells of several sizes,
//! capacities and delays (see docs/models/hpcc.md and timely.md for the claims and
//! the tolerances).

use dcbsim_core::report::{FlowReport, RunReport};
use dcbsim_scenario::load_str;

/// `n` greedy senders into one receiver over a dumbbell of `gbps` links with `delay_us`
/// each, under `scheme`; one more sender joins at `join_ms` when given.
fn dumbbell(scheme: &str, n: usize, gbps: f64, delay_us: f64, duration_ms: f64, join_ms: Option<f64>) -> String {
    let senders: Vec<String> = (0..n).map(|i| format!("\"s{i}\"")).collect();
    let mut text = format!(
        r#"
[run]
duration_ms = {duration_ms}
frame_bytes = 1000
sample_interval_us = 20.0
[topology]
kind = "dumbbell"
senders = {total}
receivers = 1
rate_gbps = {gbps}
delay_us = {delay_us}
buffer_kb = 4000.0
[scheme]
name = "{scheme}"
[monitor]
ports = ["sw0:r0"]
[[flows]]
name = "f"
src = [{src}]
dst = "r0"
kind = "greedy"
"#,
        total = n + join_ms.is_some() as usize,
        src = senders.join(", "),
    );
    if let Some(at) = join_ms {
        text += &format!("[[flows]]\nname = \"late\"\nsrc = \"s{n}\"\ndst = \"r0\"\nkind = \"greedy\"\nstart_ms = {at}\n");
    }
    text
}

fn run(text: &str) -> RunReport {
    load_str(text, "t.toml", &[]).unwrap().build(3).unwrap().run()
}

/// The samples at or after `from_s` (index range of the sample times).
fn after(r: &RunReport, from_s: f64) -> usize {
    r.sample_times.iter().position(|t| t.as_secs_f64() >= from_s).unwrap()
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs.fold((0.0, 0), |(s, n), x| (s + x, n + 1));
    sum / n as f64
}

/// The bottleneck's wire utilization over the samples from `k` on: the flows' payload
/// throughput with each 1,000-byte frame's 42 bytes of INT header (HPCC) added.
fn utilization(r: &RunReport, k: usize, gbps: f64, wire_per_payload: f64) -> f64 {
    let total = |i: usize| r.flows.iter().map(|f| f.throughput_bps[i]).sum::<f64>();
    mean((k..r.sample_times.len()).map(total)) * wire_per_payload / (gbps * 1e9)
}

fn queue_mean(r: &RunReport, k: usize) -> f64 {
    mean(r.ports.iter().find(|p| p.monitored).unwrap().queue_bytes[k..].iter().map(|&q| q as f64))
}

#[test]
fn hpcc_holds_utilization_near_eta_with_a_near_empty_queue() {
    // η = 0.95 of the wire; the queue within a frame per sender on average.
    for (n, gbps, delay) in [(2, 100.0, 1.0), (4, 100.0, 2.0), (8, 40.0, 1.0), (3, 25.0, 3.0)] {
        let r = run(&dumbbell("hpcc", n, gbps, delay, 6.0, None));
        let k = after(&r, 0.002);
        let u = utilization(&r, k, gbps, 1042.0 / 1000.0);
        let q = queue_mean(&r, k);
        assert!((0.92..=0.98).contains(&u), "n={n} {gbps} Gb/s {delay} us: utilization {u:.3}");
        assert!(q <= 1042.0 * n as f64, "n={n} {gbps} Gb/s {delay} us: mean queue {q:.0} B");
    }
}

#[test]
fn hpcc_absorbs_a_new_flow_within_a_few_rtts() {
    for (n, gbps, delay) in [(3, 100.0, 1.0), (6, 40.0, 2.0)] {
        let r = run(&dumbbell("hpcc", n, gbps, delay, 6.0, Some(3.0)));
        let queue = &r.ports.iter().find(|p| p.monitored).unwrap().queue_bytes;
        let join = after(&r, 0.003);
        let peak = queue[join..].iter().copied().max().unwrap();
        // The base RTT, from the late flow's own RTT series (its least sample).
        let late = r.flows.iter().find(|f| f.name == "late").unwrap();
        let rtt_us = late.rtt_us.iter().copied().filter(|x| x.is_finite()).fold(f64::INFINITY, f64::min);
        // Back under two frames per sender within 20 base RTTs of the join.
        let within = after(&r, 0.003 + 20.0 * rtt_us * 1e-6);
        let settled = queue[within..].iter().copied().max().unwrap();
        assert!(settled as f64 <= 2.0 * 1042.0 * (n + 1) as f64, "n={n}: queue peak {peak} B, still {settled} B after 20 RTTs");
        let late_rate = mean(late.throughput_bps[within..].iter().copied());
        assert!(late_rate > 0.2 * gbps * 1e9 / (n + 1) as f64, "n={n}: the new flow gets {late_rate:.3e} b/s");
    }
}

fn rtts(f: &FlowReport, k: usize) -> impl Iterator<Item = f64> + '_ {
    f.rtt_us[k..].iter().copied().filter(|x| x.is_finite())
}

#[test]
fn timely_holds_the_rtt_at_t_low_far_below_t_high() {
    // T_low 50 µs, T_high 500 µs: below T_low the rate only grows, so the queue grows
    // until the RTT crosses T_low, where the gradient turns the rate down; the peaks
    // sit just above T_low (within a quarter of it) and never near T_high, while the
    // link stays full. The flows start at their fair share (a flow that starts at
    // line rate among others is cut to the least rate: see docs/models/timely.md).
    for (n, gbps, delay) in [(2, 10.0, 2.0), (4, 10.0, 5.0), (8, 25.0, 2.0)] {
        let text = dumbbell("timely", n, gbps, delay, 60.0, None)
            .replace("kind = \"greedy\"", &format!("kind = \"greedy\"\nrate_gbps = {}", gbps / n as f64));
        let r = run(&text);
        let k = after(&r, 0.030);
        let all: Vec<f64> = r.flows.iter().flat_map(|f| rtts(f, k)).collect();
        let worst = all.iter().copied().fold(0.0, f64::max);
        let typical = mean(all.iter().copied());
        let carried: f64 = r.flows.iter().map(|f| mean(f.throughput_bps[k..].iter().copied())).sum();
        assert!((50.0..=62.5).contains(&worst), "n={n}: the RTT peaks at {worst:.0} us, not just above T_low");
        assert!(typical < 50.0, "n={n}: mean RTT {typical:.0} us");
        assert!(carried > 0.9 * gbps * 1e9, "n={n}: the flows carry {carried:.3e} b/s");
    }
}

#[test]
fn timely_can_settle_at_unfair_rates() {
    // Its rate update has no pull towards equal shares (the later analysis): two flows
    // that start at 7 and 3 Gb/s on a 10 Gb/s link keep unequal rates; each adds δ
    // per completion, and the faster flow completes segments more often.
    for delay in [2.0, 5.0] {
        let text = dumbbell("timely", 2, 10.0, delay, 60.0, None).replace("src = [\"s0\", \"s1\"]", "src = \"s0\"\nrate_gbps = 7.0");
        let text = text + "[[flows]]\nname = \"g\"\nsrc = \"s1\"\ndst = \"r0\"\nkind = \"greedy\"\nrate_gbps = 3.0\n";
        let r = run(&text);
        let k = after(&r, 0.040);
        let rates: Vec<f64> = r.flows.iter().map(|f| mean(f.throughput_bps[k..].iter().copied())).collect();
        assert!(rates[0] > 1.5 * rates[1], "{delay} us: rates {rates:?}");
    }
}

#[test]
fn without_pfc_go_back_n_completes_every_flow_through_losses() {
    // Eight 1 MB flows at line rate into one port with a 30 KB buffer: frames drop, the
    // receivers NACK the gaps (or the sources time out) and every byte arrives once.
    for scheme in ["hpcc", "timely"] {
        let text = dumbbell(scheme, 8, 10.0, 2.0, 200.0, None)
            .replace("buffer_kb = 4000.0", "buffer_kb = 30.0")
            .replace("kind = \"greedy\"", "kind = \"finite\"\nsize_kb = 1000.0");
        let r = run(&text);
        let dropped: u64 = r.flows.iter().map(|f| f.dropped_frames).sum();
        assert!(dropped > 0, "{scheme}: the buffer must overflow");
        for f in &r.flows {
            assert!(f.completion_time.is_some(), "{scheme}: {} did not complete", f.name);
            assert_eq!(f.delivered_bytes, 1_024_000, "{scheme}: {} delivered each byte once", f.name);
            assert_eq!(f.sent_frames, f.delivered_frames + f.dropped_frames + f.in_network_frames, "{scheme}: {}", f.name);
        }
    }
}

/// DCQCN (the run's scheme), HPCC, TIMELY and DCTCP flows into one 40 Gb/s port over
/// PFC, in one run.
const MIXED: &str = r#"
[run]
duration_ms = 30.0
frame_bytes = 1000
sample_interval_us = 100.0
[topology]
kind = "dumbbell"
senders = 4
receivers = 1
rate_gbps = 40.0
delay_us = 1.0
buffer_kb = 2000.0
[scheme]
name = "dcqcn"
[scheme.hpcc]
eta = 0.9
[pfc]
priorities = [3]
[transport]
ecn_k_kb = 100.0
[[flows]]
name = "dcqcn"
src = "s0"
dst = "r0"
priority = 3
[[flows]]
name = "hpcc"
src = "s1"
dst = "r0"
priority = 3
scheme = "hpcc"
[[flows]]
name = "timely"
src = "s2"
dst = "r0"
priority = 3
scheme = "timely"
rate_gbps = 10.0
[[flows]]
name = "dctcp"
src = "s3"
dst = "r0"
priority = 3
scheme = "none"
transport = "dctcp"
"#;

#[test]
fn hpcc_and_timely_run_beside_dcqcn_and_dctcp_in_one_run() {
    let r = run(MIXED);
    let k = after(&r, 0.010);
    let flow = |name: &str| r.flows.iter().find(|f| f.name == name).unwrap();
    for f in &r.flows {
        let gbps = mean(f.throughput_bps[k..].iter().copied()) / 1e9;
        assert!(gbps > 0.05, "{} gets {gbps:.2} Gb/s", f.name);
        assert_eq!(f.dropped_frames, 0, "{}: PFC loses nothing", f.name);
    }
    let total: f64 = r.flows.iter().map(|f| mean(f.throughput_bps[k..].iter().copied())).sum();
    assert!(total > 0.9 * 40e9, "the port carries {total:.3e} b/s");
    assert!(flow("dcqcn").notifications > 0, "DCQCN's flow gets CNPs");
    // HPCC steers towards an empty queue and counts the queue the others hold against
    // its window: beside them it yields, down to its least rate (a result, not a bug).
    let hpcc = mean(flow("hpcc").throughput_bps[k..].iter().copied());
    assert!(hpcc < 0.25 * 40e9 / 4.0, "HPCC gets {hpcc:.3e} b/s");
    assert!(flow("hpcc").acked && flow("timely").acked && !flow("dctcp").acked && !flow("dcqcn").acked);
    assert!(flow("hpcc").window_bytes.iter().any(|w| w.is_finite()), "HPCC's window is sampled");
    assert!(flow("timely").rtt_us.iter().any(|x| x.is_finite()), "TIMELY's RTT is sampled");
    assert!(!flow("dctcp").cwnd_segments.is_empty(), "DCTCP's window is sampled");
}

#[test]
fn a_flow_cannot_run_a_scheme_whose_congestion_points_are_not_there() {
    let text = MIXED.replace("scheme = \"timely\"", "scheme = \"qcn\"");
    let Err(err) = load_str(&text, "t.toml", &[]) else { panic!("must be refused") };
    let err = err.to_string();
    assert!(err.contains("flows[2].scheme") && err.contains("needs its congestion points") && err.contains("hpcc"), "{err}");
    let text = MIXED.replace("eta = 0.9", "rto_us = 0.5");
    let Err(err) = load_str(&text, "t.toml", &[]) else { panic!("must be refused") };
    assert!(err.to_string().contains("rto_us must be at least 1"), "{err}");
    let text = MIXED.replace("scheme = \"timely\"", "scheme = \"nope\"");
    let Err(err) = load_str(&text, "t.toml", &[]) else { panic!("must be refused") };
    let err = err.to_string();
    assert!(err.contains("scheme") && err.contains("allowed"), "{err}");
}
