//! Times the dumbbell_10g benchmark built in code (no scenario file), for the core loop.
use dcbsim_core::config::*;
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::*;
fn main() {
    let mut cfg = SimConfig::new(Time::from_ms(1000));
    cfg.nodes.push(NodeSpec { name: "sw0".into(), kind: NodeKind::Switch });
    cfg.nodes.push(NodeSpec { name: "r0".into(), kind: NodeKind::Host });
    let link = |a, b| LinkSpec {
        a,
        b,
        rate: Rate::from_gbps(10),
        delay: Time::from_us(1).into(),
        buffer: Bytes(131072),
        priorities: 1,
        frame_service: None,
    };
    cfg.links.push(link(0, 1));
    for i in 0..5 {
        cfg.nodes.push(NodeSpec { name: format!("s{i}"), kind: NodeKind::Host });
        cfg.links.push(link(i + 2, 0));
        let flow = FlowSpec::new(&format!("f{i}"), i + 2, 1, FlowKind::Constant);
        cfg.flows.push(FlowSpec { rate: Some(Rate::from_gbps_f64(2.5)), ..flow });
    }
    if let Some(name) = std::env::args().nth(1) {
        cfg.scheme = dcbsim_core::cc::SchemeConfig::by_name(&name).expect("a scheme name");
        cfg.congestion_points = CpPlacement::Ports(vec![PortRef { node: 0, peer: 1 }]);
    }
    let r = Simulation::new(cfg, 1).unwrap().run();
    println!(
        "notifications {} events {} wall {:.3}s speed {:.2} sim-s/s delivered {} dropped {}",
        r.ports.iter().map(|p| p.notifications).sum::<u64>(),
        r.events,
        r.wall_seconds,
        r.speed(),
        r.delivered_frames(),
        r.dropped_frames()
    );
}
