//! A quick look at QCN on a 2-sender dumbbell at 1 Gb/s, built in code.
use dcbsim_core::cc::{ParamValue, SchemeConfig};
use dcbsim_core::config::*;
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scheme = args.get(1).map(String::as_str).unwrap_or("qcn");
    let mut cfg = SimConfig::new(Time::from_ms(2000));
    cfg.nodes.push(NodeSpec { name: "sw0".into(), kind: NodeKind::Switch });
    cfg.nodes.push(NodeSpec { name: "r0".into(), kind: NodeKind::Host });
    let link = |a, b| LinkSpec {
        a,
        b,
        rate: Rate::from_gbps(1),
        delay: Time::from_us(1).into(),
        buffer: Bytes::from_kb(128),
        priorities: 1,
        frame_service: None,
    };
    cfg.links.push(link(0, 1));
    let mut sc = SchemeConfig::by_name(scheme).unwrap();
    let _ = sc.set_param("q_eq_kb", &ParamValue::Number(64.0));
    cfg.scheme = sc;
    for (i, r) in [900u64, 100].iter().enumerate() {
        cfg.nodes.push(NodeSpec { name: format!("s{i}"), kind: NodeKind::Host });
        cfg.links.push(link(i + 2, 0));
        let flow = FlowSpec::new(&format!("f{i}"), i + 2, 1, FlowKind::Greedy);
        cfg.flows.push(FlowSpec { rate: Some(Rate::from_mbps(*r)), frame_bytes: 1500, ..flow });
    }
    let r = Simulation::new(cfg, 1).unwrap().run();
    let p = &r.ports[0];
    println!(
        "{} events {} speed {:.1} q mean {:.0} std {:.0} p0 {:.3} util {:.4} drops {} cnms {}",
        p.name,
        r.events,
        r.speed(),
        p.stats.mean_bytes,
        p.stats.std_bytes,
        p.stats.p_empty,
        p.stats.utilization,
        p.dropped_frames,
        p.notifications
    );
    for i in (0..r.sample_times.len()).step_by(200) {
        println!(
            "t={:.3} q={} r0={:.1} r1={:.1}",
            r.sample_times[i].as_secs_f64(),
            p.queue_bytes[i],
            r.flows[0].rate_bps[i] / 1e6,
            r.flows[1].rate_bps[i] / 1e6
        );
    }
}
