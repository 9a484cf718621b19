//! Finishing with the flows handed over one at a time: every configured flow once, in
//! order, with the counters that the per-class totals (made apart) sum to, and the
//! report that finishing at once gives.

use dcbsim_core::report::{FlowReport, RunReport};
use dcbsim_core::sim::Simulation;
use dcbsim_scenario::{SpillFile, load_file};
use std::path::{Path, PathBuf};

/// A shipped scenario built with seed 3, run for 20 ms, its samples streamed to
/// `spill` if given.
fn ran(file: &str, spill: Option<&Path>) -> Simulation {
    let scenario = load_file(&shipped(file), &["run.duration_ms=20".into()]).unwrap();
    let mut sim = scenario.build(3).unwrap();
    if let Some(spill) = spill {
        let (sink, _status) = SpillFile::create(spill, sim.sample_layout().0.columns()).unwrap();
        sim.stream_samples(Box::new(sink), 1 << 20);
    }
    sim.run_until(dcbsim_core::units::Time::NEVER);
    sim
}

fn shipped(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/dcbsim/scenarios").join(file)
}

fn without_timing(mut report: RunReport) -> RunReport {
    report.wall_seconds = 0.0;
    report
}

/// A temporary file's path, unique to this test process and `tag`.
fn temp(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dcbsim-finish-{}-{tag}.bin", std::process::id()))
}

fn assert_same_either_way(file: &str, streamed: bool) {
    let (a, b) = (temp(&format!("{file}-a").replace('/', "-")), temp(&format!("{file}-b").replace('/', "-")));
    let spill = |p: &PathBuf| streamed.then_some(p.clone());
    let whole = without_timing(ran(file, spill(&a).as_deref()).finish());
    let mut handed: Vec<FlowReport> = Vec::new();
    let mut rest = without_timing(ran(file, spill(&b).as_deref()).finish_with(|f| handed.push(f)));
    let _ = (std::fs::remove_file(&a), std::fs::remove_file(&b));
    assert!(rest.flows.is_empty(), "{file}: the flows were handed over, not kept");
    let config = load_file(&shipped(file), &[]).unwrap().config;
    let names: Vec<&str> = handed.iter().map(|f| f.name.as_str()).collect();
    let configured: Vec<&str> = config.flows.iter().map(|f| f.name.as_str()).collect();
    assert!(!names.is_empty() && rest.arrivals.is_empty(), "{file}");
    assert_eq!(names, configured, "{file}");
    let classes = rest.classes.iter().map(|c| &c.counters);
    let totals = |f: fn(&FlowReport) -> u64, c: fn(&dcbsim_core::traffic::FlowCounters) -> u64| {
        (handed.iter().map(f).sum::<u64>(), classes.clone().map(c).sum::<u64>())
    };
    for (of_flows, of_classes) in [
        totals(|f| f.sent_frames, |c| c.sent_frames),
        totals(|f| f.delivered_bytes, |c| c.delivered_bytes),
        totals(|f| f.dropped_frames, |c| c.dropped_frames),
    ] {
        assert_eq!(of_flows, of_classes, "{file}");
    }
    assert!(totals(|f| f.delivered_frames, |c| c.delivered_frames).0 > 0, "{file}");
    assert_eq!(handed, whole.flows, "{file}");
    rest.flows = handed;
    assert_eq!(rest, whole, "{file}");
    assert_eq!(whole.streamed_samples, streamed);
    let series = whole.flows.iter().map(|f| f.rate_bps.len()).sum::<usize>();
    assert_eq!(series == 0, streamed, "{file}: sampled series {series}");
}

#[test]
fn flows_handed_over_one_at_a_time_equal_the_whole_report() {
    for file in [
        "examples/quickstart.toml",
        "examples/on_off.toml",
        "papers/dctcp/incast.toml",
        "papers/dctcp/longlived.toml",
        "examples/pfc_congestion_spreading.toml",
    ] {
        assert_same_either_way(file, false);
    }
}

#[test]
fn with_streamed_samples_too() {
    for file in ["examples/quickstart.toml", "examples/dctcp_incast.toml"] {
        assert_same_either_way(file, true);
    }
}
