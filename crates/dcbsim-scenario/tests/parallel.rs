//! A run split over threads (`run.threads`) reports exactly what the one-thread run
//! reports, whatever the number of threads, for every shipped scenario.

use dcbsim_core::sim::parallel::{run_watched, split_for};
use dcbsim_core::units::Time;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every shipped scenario file (sweep files are not scenarios), sorted.
fn shipped() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("the scenarios").flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("sweeps") {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/dcbsim/scenarios"), &mut files);
    files.sort();
    files
}

/// Whether `file` splits when it asks for `threads` threads.
fn splits(file: &Path, threads: usize) -> bool {
    let scenario = dcbsim_scenario::load_file(file, &[format!("run.threads={threads}")]).expect("a shipped scenario loads");
    split_for(&scenario.build(scenario.seed).expect("a shipped scenario builds")).is_some()
}

/// The report of `file` on `threads` threads, as text, its wall time left out: its
/// first 2 ms sampled every 100 µs, or the whole run where its timeline reaches past
/// 2 ms.
fn report(file: &Path, threads: usize) -> String {
    let short = ["run.duration_ms=2".to_string(), "run.sample_interval_us=100".to_string(), format!("run.threads={threads}")];
    let scenario = dcbsim_scenario::load_file(file, &short)
        .or_else(|_| dcbsim_scenario::load_file(file, &short[2..]))
        .expect("a shipped scenario loads");
    let mut report = scenario.build(scenario.seed).expect("a shipped scenario builds").run();
    report.wall_seconds = 0.0;
    format!("{report:?}")
}

/// The report of scenario text `toml` with `sets` on one thread, its wall time left
/// out, after checking that it reports alike on two and three threads, split.
fn alike_on_one_two_and_three_threads(toml: &str, sets: &[String]) -> dcbsim_core::report::RunReport {
    let run = |threads: usize| {
        let mut all = sets.to_vec();
        all.push(format!("run.threads={threads}"));
        let scenario = dcbsim_scenario::load_str(toml, "fabric.toml", &all).expect("valid");
        let sim = scenario.build(scenario.seed).expect("builds");
        let split = split_for(&sim).is_some();
        let mut report = sim.run();
        report.wall_seconds = 0.0;
        (report, split)
    };
    let (one, _) = run(1);
    let text = format!("{one:?}");
    for threads in [2, 3] {
        let (many, split) = run(threads);
        assert!(split, "{sets:?}: {threads} threads split the fabric");
        assert!(text == format!("{many:?}"), "{sets:?}: {threads} threads report otherwise than 1");
    }
    one
}

#[test]
fn every_shipped_scenario_reports_alike_on_one_two_and_three_threads() {
    let mut split = Vec::new();
    for file in shipped() {
        assert!(!splits(&file, 1), "{}: one thread never splits", file.display());
        if !splits(&file, 2) {
            // It runs on one thread whatever is asked (the golden digests hold that run).
            continue;
        }
        let name = file.file_name().expect("a file").to_string_lossy().to_string();
        let one = report(&file, 1);
        assert!(one == report(&file, 2), "{name}: 2 threads report otherwise than 1");
        assert!(one == report(&file, 3), "{name}: 3 threads report otherwise than 1");
        split.push(name);
    }
    // The fabrics do split (so the comparisons above ran).
    for name in ["fat_tree_k8.toml", "fat_tree_k8_dctcp.toml", "fat_tree_k16_dctcp.toml"] {
        assert!(split.iter().any(|s| s == name), "{name} did not split: {split:?}");
    }
    eprintln!("split and compared: {split:?}");
}

/// A fabric under QCN whose flows start late, stop and have their rates capped by the
/// timeline, whose scheme's parameters change, and whose last link to `late`'s
/// destination slows down: the flows' sides live in different parts, and every part
/// applies the entries (a part that does not send a flow changes only what fair
/// shares read: `rival`, sent from another pod than `late`, shares `late`'s last link,
/// so its fair share moves with `late`'s cap and the link's rate; a new parameter
/// wakes only the flows a part sends).
const TIMELINE_FABRIC: &str = r#"
[run]
duration_ms = 4.0
sample_interval_us = 100.0
[topology]
kind = "fat_tree"
k = 4
rate_gbps = 10.0
delay_us = 1.0
[scheme]
name = "qcn"
[[flows]]
name = "p"
src = "h*"
dst = "h*"
pairing = "permutation"
[[flows]]
name = "late"
src = "h0_0_0"
dst = "h3_1_1"
start_ms = 1.0
[[flows]]
name = "rival"
src = "h3_0_0"
dst = "h3_1_1"
[[timeline]]
at_ms = 2.0
flow = "late"
max_rate_gbps = 2.0
[[timeline]]
at_ms = 3.0
flow = "p"
action = "stop"
[[timeline]]
at_ms = 1.5
param = "q_eq_kb"
value = 10.0
[[timeline]]
at_ms = 2.5
param = "r_ai_mbps"
value = 20.0
[[timeline]]
at_ms = 1.8
port = "edge3_1:h3_1_1"
rate_gbps = 5.0
"#;

#[test]
fn timeline_entries_and_notifications_cross_parts_alike() {
    alike_on_one_two_and_three_threads(TIMELINE_FABRIC, &[]);
}

/// Hosts of three pods of a k = 4 fat-tree at 100 Gb/s send to a host of the
/// first: the ports to and from the cores queue, and frames shorter than the links'
/// delay are handed over to the part across before they start. A port of core0
/// halves its capacity with a queue behind it.
const NEW_RATE_FABRIC: &str = r#"
[run]
duration_ms = 1.0
sample_interval_us = 100.0
[topology]
kind = "fat_tree"
k = 4
rate_gbps = 100.0
delay_us = 1.0
[[flows]]
name = "in"
src = ["h1_0_0", "h1_1_1", "h2_0_1", "h2_1_0", "h3_0_0", "h3_1_1", "h1_0_1", "h2_1_1"]
dst = "h0_0_0"
[[timeline]]
at_ms = 0.5
port = "core0:agg0_0"
rate_gbps = 50.0
"#;

#[test]
fn a_new_capacity_of_a_link_between_parts_applies_alike() {
    // The split keeps pods whole, and core0 goes with one of them: some of these
    // ports cross, some do not. The change falls early, midway and late in a window
    // (a frame not started at the change is handed over only when it falls early).
    for port in ["core0:agg0_0", "agg1_0:core0", "agg2_0:core0", "agg3_0:core0"] {
        for at in ["0.5", "0.5003", "0.5006"] {
            alike_on_one_two_and_three_threads(
                NEW_RATE_FABRIC,
                &[format!("timeline[0].port=\"{port}\""), format!("timeline[0].at_ms={at}")],
            );
        }
    }
}

/// Hosts of every pod of a k = 4 fat-tree send to one host under PFC: the pauses spread from
/// its pod's switches to the cores and on to the other pods, over links between parts.
const PFC_FABRIC: &str = r#"
[run]
duration_ms = 3.0
sample_interval_us = 100.0
[topology]
kind = "fat_tree"
k = 4
rate_gbps = 10.0
delay_us = 1.0
buffer_kb = 256.0
[pfc]
priorities = [3]
xoff_kb = 64.0
[[flows]]
name = "incast"
src = ["h1_0_0", "h1_1_1", "h2_0_1", "h2_1_0", "h3_0_0", "h3_1_1", "h0_1_0"]
dst = "h0_0_0"
priority = 3
[[flows]]
name = "p"
src = "h*"
dst = "h*"
pairing = "permutation"
"#;

#[test]
fn pauses_cross_parts_alike() {
    let one = alike_on_one_two_and_three_threads(PFC_FABRIC, &[]);
    // Cores pause aggregation switches of other pods, which the split puts elsewhere.
    let paused_by_cores: u64 =
        one.pfc.iter().filter(|p| p.name.starts_with("agg") && p.name.contains(":core")).map(|p| p.pause_received[3]).sum();
    assert!(
        paused_by_cores > 0,
        "the cores paused no aggregation switch: {:?}",
        one.pfc.iter().map(|p| (&p.name, p.pause_received[3])).collect::<Vec<_>>()
    );
}

/// Finite flows complete in every pod of a k = 4 fat-tree, under TCP and DCTCP,
/// beside constant-rate ones: each completion moves the fair shares of flows sent
/// from other parts.
const FINITE_FABRIC: &str = r#"
[run]
duration_ms = 3.0
sample_interval_us = 50.0
[topology]
kind = "fat_tree"
k = 4
rate_gbps = 10.0
delay_us = 1.0
buffer_kb = 256.0
[[flows]]
name = "bulk"
src = "h*"
dst = "h*"
pairing = "permutation"
kind = "constant"
rate_gbps = 3.0
[[flows]]
name = "short"
src = ["h0_0_1", "h1_1_0", "h2_0_0", "h3_1_1"]
dst = ["h3_0_0", "h2_1_1", "h1_0_1", "h0_1_0"]
kind = "finite"
transport = "tcp"
size_kb = { uniform = [20, 400] }
[[flows]]
name = "tcp"
src = ["h1_0_0", "h2_1_0"]
dst = ["h0_0_0", "h3_0_1"]
kind = "finite"
transport = "dctcp"
size_kb = 300
"#;

#[test]
fn completions_move_fair_shares_across_parts_alike() {
    let one = alike_on_one_two_and_three_threads(FINITE_FABRIC, &[]);
    let completed = one.flows.iter().filter(|f| f.completion_time.is_some()).count();
    assert!(completed >= 5, "only {completed} flows completed");
    // A constant-rate flow's share moves as finite flows complete.
    let moved = one.flows.iter().filter(|f| f.name.starts_with("bulk")).any(|f| f.fair_share_bps.windows(2).any(|w| w[0] != w[1]));
    assert!(moved, "no constant-rate flow's fair share moved");
}

/// Flows arrive between pods of a k = 4 fat-tree over DCTCP, and ON-OFF and Poisson
/// sources feed flows of their own: every part draws every arrival, and only the
/// source's part sends it.
const ARRIVALS_FABRIC: &str = r#"
[run]
duration_ms = 4.0
sample_interval_us = 100.0
[topology]
kind = "fat_tree"
k = 4
rate_gbps = 10.0
delay_us = 1.0
buffer_kb = 128.0
[[arrivals]]
name = "web"
src = ["h0_0_0", "h1_1_1", "h2_0_1", "h3_1_0"]
dst = ["h2_1_1", "h3_0_0", "h0_1_0", "h1_0_1"]
load_gbps = 3.0
size_kb = { pareto = [20, 1.2] }
transport = "dctcp"
[[flows]]
name = "onoff"
src = "h1_0_0"
dst = "h2_1_0"
kind = "on_off"
burst_kb = 40.0
load_gbps = 4.0
off = "exponential"
[[flows]]
name = "dynamic"
src = "h3_0_1"
dst = "h2_1_0"
kind = "poisson"
load_gbps = 3.0
size_kb = { uniform = [10, 200] }
"#;

#[test]
fn arrivals_and_dynamic_sources_cross_parts_alike() {
    let one = alike_on_one_two_and_three_threads(ARRIVALS_FABRIC, &[]);
    let completed: usize = one.arrivals.iter().map(|a| a.completion_s.len()).sum();
    assert!(completed >= 20, "only {completed} arrived flows completed");
}

/// HPCC and TIMELY flows on a k = 4 fat-tree, greedy ones in a permutation beside
/// flows that arrive: their probes (HPCC's in-band telemetry) go with their frames
/// and acknowledgements from part to part.
const ACKED_FABRIC: &str = r#"
[run]
duration_ms = 3.0
sample_interval_us = 100.0
frame_bytes = 1000
[topology]
kind = "fat_tree"
k = 4
rate_gbps = 25.0
delay_us = 1.0
buffer_kb = 256.0
[scheme]
name = "hpcc"
[[flows]]
name = "p"
src = "h*"
dst = "h*"
pairing = "permutation"
[[arrivals]]
name = "ws"
src = ["h0_0_0", "h1_1_1", "h2_0_1", "h3_1_0"]
dst = ["h2_1_1", "h3_0_0", "h0_1_0", "h1_0_1"]
load_gbps = 4.0
size_kb = { uniform = [10, 200] }
"#;

#[test]
fn probes_cross_parts_alike() {
    for scheme in ["hpcc", "timely"] {
        let one = alike_on_one_two_and_three_threads(ACKED_FABRIC, &[format!("scheme.name={scheme}")]);
        let completed: usize = one.arrivals.iter().map(|a| a.completion_s.len()).sum();
        assert!(completed >= 20, "{scheme}: only {completed} arrived flows completed");
        assert!(one.flows.iter().all(|f| f.acked && f.delivered_bytes > 0), "{scheme}: a greedy flow delivered nothing");
    }
}

#[test]
fn a_watched_run_reports_alike_and_stops_when_asked() {
    let build = || {
        let scenario = dcbsim_scenario::load_str(FINITE_FABRIC, "finite.toml", &["run.threads=2".to_string()]).expect("valid");
        scenario.build(scenario.seed).expect("builds")
    };
    let sim = build();
    let split = split_for(&sim).expect("splits");
    let mut seen: Vec<Time> = Vec::new();
    let ran = run_watched(sim, split, Duration::from_micros(200), |t| {
        seen.push(t);
        true
    })
    .expect("not stopped");
    let mut watched = ran.report;
    assert_eq!(ran.stats.parts, 2);
    assert!(!seen.is_empty() && seen.windows(2).all(|w| w[0] <= w[1]), "the time reached: {seen:?}");
    let mut plain = build().run();
    (watched.wall_seconds, plain.wall_seconds) = (0.0, 0.0);
    assert!(format!("{watched:?}") == format!("{plain:?}"), "a watched run reports otherwise");
    let sim = build();
    let split = split_for(&sim).expect("splits");
    assert!(run_watched(sim, split, Duration::from_micros(200), |_| false).is_none(), "a run asked to stop went on");
}

/// A chunk a sink was given: its first sample, times and values (as bits).
type Chunk = (u64, Vec<Time>, Vec<u64>);

/// The chunks a sink was given.
type Chunks = std::sync::Arc<std::sync::Mutex<Vec<Chunk>>>;

/// A sink keeping every chunk it is given.
struct KeepChunks(Chunks);

impl dcbsim_core::samples::SampleSink for KeepChunks {
    fn rates(&mut self, _: dcbsim_core::samples::Rates) {}

    fn take(&mut self, first: u64, times: &[Time], values: &mut Vec<f64>) {
        self.0.lock().unwrap().push((first, times.to_vec(), values.iter().map(|v| v.to_bits()).collect()));
    }
}

/// The chunks `toml` streams on `threads` threads within `budget` bytes (chunks of a
/// few rows), and its report, its wall time left out; and whether it split.
fn streamed(toml: &str, threads: usize, budget: usize) -> (Vec<Chunk>, String, bool) {
    let scenario = dcbsim_scenario::load_str(toml, "fabric.toml", &[format!("run.threads={threads}")]).expect("valid");
    let mut sim = scenario.build(scenario.seed).expect("builds");
    let chunks = Chunks::default();
    sim.stream_samples(Box::new(KeepChunks(chunks.clone())), budget);
    let split = split_for(&sim).is_some();
    let mut report = sim.run();
    report.wall_seconds = 0.0;
    let chunks = std::mem::take(&mut *chunks.lock().unwrap());
    (chunks, format!("{report:?}"), split)
}

#[test]
fn streamed_samples_are_put_together_alike() {
    // Queues, flows' rates and counters from their two ends, DCTCP's windows and
    // α, and fair shares moved by completions in every part and by the timeline.
    for toml in [FINITE_FABRIC, TIMELINE_FABRIC] {
        let (one, report, _) = streamed(toml, 1, 1 << 13);
        let rows: usize = one.iter().map(|(_, times, _)| times.len()).sum();
        assert!(one.len() > 5 && rows >= 40, "{} chunks, {rows} rows", one.len());
        for threads in [2, 3] {
            let (many, many_report, split) = streamed(toml, threads, 1 << 13);
            assert!(split, "{threads} threads split the fabric");
            assert!(many.len() == one.len(), "{threads} threads: {} chunks against {}", many.len(), one.len());
            for (k, (a, b)) in one.iter().zip(&many).enumerate() {
                assert!(a == b, "{threads} threads: chunk {k} differs");
            }
            assert!(report == many_report, "{threads} threads report otherwise than 1");
        }
    }
}

/// Flows within the first pod of a k = 4 fat-tree, one of its queues monitored: the
/// other parts sample nothing, yet take their samples in step.
const ONE_POD: &str = r#"
[run]
duration_ms = 2.0
sample_interval_us = 20.0
[topology]
kind = "fat_tree"
k = 4
rate_gbps = 10.0
delay_us = 1.0
[monitor]
ports = ["edge0_0:h0_0_0"]
[[flows]]
name = "in"
src = ["h0_0_1", "h0_1_0", "h0_1_1"]
dst = "h0_0_0"
"#;

#[test]
fn a_part_that_samples_nothing_streams_in_step() {
    let (one, report, _) = streamed(ONE_POD, 1, 4096);
    // Several chunks of several rows (a part sampling nothing must not give a chunk
    // per row).
    assert!(one.len() > 3 && one[0].1.len() > 1, "{} chunks of {} rows", one.len(), one[0].1.len());
    for threads in [2, 3] {
        let (many, many_report, split) = streamed(ONE_POD, threads, 4096);
        assert!(split, "{threads} threads split the fabric");
        assert!(many == one, "{threads} threads stream otherwise than 1");
        assert!(report == many_report, "{threads} threads report otherwise than 1");
    }
}

/// The packet traces of `ports` in `NEW_RATE_FABRIC` on `threads` threads, byte for
/// byte, and its report, its wall time left out; and the frames recorded per port.
fn traced(ports: &[&str], threads: usize) -> (Vec<Vec<u8>>, String, Vec<u64>) {
    let dir = std::env::temp_dir().join(format!("dcbsim-parallel-traces-{}-{threads}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let set = [format!("run.threads={threads}")];
    let scenario = dcbsim_scenario::load_str(NEW_RATE_FABRIC, "fabric.toml", &set).expect("valid");
    let requests: Vec<_> = ports
        .iter()
        .enumerate()
        .map(|(i, port)| dcbsim_scenario::PcapRequest { port: port.to_string(), path: dir.join(format!("{i}.pcap")) })
        .collect();
    let (mut sim, files) = scenario.build_traced_from(None, scenario.seed, &requests, 128).expect("traced");
    let (mut report, ended) = match split_for(&sim) {
        Some(split) => {
            let ran = dcbsim_core::sim::parallel::run_with_stats(sim, split);
            assert_eq!(ran.stats.parts, threads);
            (ran.report, ran.traces)
        }
        None => {
            assert_eq!(threads, 1);
            sim.run_slice(sim.config().duration);
            let ended = sim.finish_traces();
            (sim.finish(), ended)
        }
    };
    let counts = ended.as_ref().expect("ended").iter().map(|&(_, frames)| frames).collect();
    files.commit_ended(ended).expect("written");
    report.wall_seconds = 0.0;
    let pcaps = requests.iter().map(|r| std::fs::read(&r.path).expect("a trace")).collect();
    std::fs::remove_dir_all(&dir).expect("removed");
    (pcaps, format!("{report:?}"), counts)
}

#[test]
fn traces_of_ports_in_and_between_parts_are_alike() {
    // Queued ports into and out of core0 (some between parts, some not, at 100 Gb/s
    // with frames started at barriers; core0:agg0_0 slows down with a queue), a NIC
    // and the last hop.
    let ports = ["core0:agg0_0", "agg1_0:core0", "agg2_0:core0", "agg3_1:core3", "h1_0_0:edge1_0", "edge0_0:h0_0_0"];
    let (one, report, counts) = traced(&ports, 1);
    assert!(one.iter().all(|pcap| pcap.len() > 10_000), "{:?}", one.iter().map(Vec::len).collect::<Vec<_>>());
    // Every frame a switch port sent is in its trace (one that slows down too).
    let scenario = dcbsim_scenario::load_str(NEW_RATE_FABRIC, "fabric.toml", &[]).expect("valid");
    let plain = scenario.build(scenario.seed).expect("builds").run();
    for (port, &frames) in ports.iter().zip(&counts).filter(|(p, _)| !p.starts_with('h')) {
        let sent = plain.ports.iter().find(|r| r.name == *port).expect("a switch port").tx_frames;
        assert_eq!(frames, sent, "{port}: frames traced");
    }
    for threads in [2, 3] {
        let (many, many_report, _) = traced(&ports, threads);
        for (port, (a, b)) in ports.iter().zip(one.iter().zip(&many)) {
            assert!(a == b, "{threads} threads: the trace of {port} differs");
        }
        assert!(report == many_report, "{threads} threads report otherwise than 1");
    }
}
