//! Whole runs of DCQCN: marks become CNPs, flows converge to fair shares.

use dcbsim_core::cc::{DcqcnParams, SchemeConfig};
use dcbsim_core::config::{FlowKind, FlowSpec, LinkSpec, NodeKind, NodeSpec, SimConfig};
use dcbsim_core::report::RunReport;
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::{Bytes, Rate, Time};

/// `senders` hosts -> sw0 -> r0, every link `rate`, 1 us (nodes: sw0, r0, s0, ...).
fn star(senders: usize, rate: Rate, buffer: Bytes, duration: Time) -> SimConfig {
    let mut cfg = SimConfig::new(duration);
    let node = |name: String, kind| NodeSpec { name, kind };
    cfg.nodes.push(node("sw0".into(), NodeKind::Switch));
    cfg.nodes.push(node("r0".into(), NodeKind::Host));
    let link = |a, b| LinkSpec { a, b, rate, delay: Time::from_us(1).into(), buffer, priorities: 1, frame_service: None };
    cfg.links.push(link(0, 1));
    for i in 0..senders {
        cfg.nodes.push(node(format!("s{i}"), NodeKind::Host));
        cfg.links.push(link(i + 2, 0));
        cfg.flows.push(FlowSpec { priority: 3, ..FlowSpec::new(&format!("f{i}"), i + 2, 1, FlowKind::Greedy) });
    }
    cfg.scheme = SchemeConfig::Dcqcn(DcqcnParams::default());
    cfg.monitor.sample_interval = Time::from_us(100);
    cfg
}

fn gbps(r: &RunReport, f: usize, from: usize) -> f64 {
    let t = &r.flows[f].throughput_bps[from..];
    t.iter().sum::<f64>() / t.len() as f64 / 1e9
}

/// Two flows at 40 Gb/s: with g = 1/256 their shares swing by a few Gb/s over tens
/// of milliseconds, so fairness is judged over 50 ms (Jain's index).
#[test]
fn two_flows_at_40g_share_fairly_with_a_short_queue() {
    let mut cfg = star(2, Rate::from_gbps(40), Bytes::from_kb(1024), Time::from_ms(60));
    cfg.pfc.lossless = 1 << 3;
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.dropped_frames(), 0);
    let (a, b) = (gbps(&r, 0, 100), gbps(&r, 1, 100));
    assert!(r.flows[0].notifications > 0);
    let jain = (a + b).powi(2) / (2.0 * (a * a + b * b));
    assert!(jain > 0.98, "{a} {b} {jain}");
    assert!(a + b > 0.95 * 40.0, "{a} {b}");
    let q = &r.ports.iter().find(|p| p.name == "sw0:r0").unwrap().stats;
    assert!(q.mean_bytes < 200.0 * 1024.0, "{}", q.mean_bytes);
}

#[test]
fn without_marks_no_cnps() {
    // One flow alone at line rate never builds a queue: no mark, no CNP.
    let cfg = star(1, Rate::from_gbps(40), Bytes::from_kb(1024), Time::from_ms(2));
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.flows[0].notifications, 0);
}

#[test]
fn dcqcn_runs_are_deterministic() {
    let cfg = star(4, Rate::from_gbps(40), Bytes::from_kb(512), Time::from_ms(5));
    let a = Simulation::new(cfg.clone(), 3).unwrap().run();
    let b = Simulation::new(cfg, 3).unwrap().run();
    assert_eq!(a.flows, b.flows);
}
