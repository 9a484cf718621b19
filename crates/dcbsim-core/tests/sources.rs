//! Dynamic sources built by hand: the engine's own checks and an exact ON-OFF cycle.

use dcbsim_core::config::{FlowKind, FlowSpec, LinkSpec, NodeKind, NodeSpec, OffTime, SimConfig};
use dcbsim_core::dist::SizeDist;
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::{Bytes, Rate, Time};

/// One host sending to another through one switch, every link 10 Gb/s, 1 µs.
fn pair(kind: FlowKind, duration: Time) -> SimConfig {
    let mut cfg = SimConfig::new(duration);
    for (name, kind) in [("a", NodeKind::Host), ("sw", NodeKind::Switch), ("b", NodeKind::Host)] {
        cfg.nodes.push(NodeSpec { name: name.into(), kind });
    }
    let link = |a, b| LinkSpec {
        a,
        b,
        rate: Rate::from_gbps(10),
        delay: Time::from_us(1).into(),
        buffer: Bytes::from_kb(128),
        priorities: 1,
        frame_service: None,
    };
    cfg.links.extend([link(0, 1), link(1, 2)]);
    cfg.flows.push(FlowSpec::new("f", 0, 2, kind));
    cfg
}

fn on_off(burst: u64, load: Rate) -> FlowKind {
    FlowKind::OnOff { burst, load, off: OffTime::Fixed }
}

#[test]
fn bad_source_parameters_name_their_key() {
    let err = |kind| Simulation::new(pair(kind, Time::from_ms(1)), 1).err().expect("refused").path;
    assert_eq!(err(on_off(10_240, Rate::from_gbps(10))), "flows[0].load_gbps");
    assert_eq!(err(on_off(0, Rate::from_gbps(1))), "flows[0].burst_bytes");
    assert_eq!(err(FlowKind::Poisson { rate_per_s: 0.0, size: SizeDist::Fixed(10) }), "flows[0].rate_per_s");
    let bad_size = SizeDist::Pareto { mean: 10.0, shape: 0.5 };
    assert_eq!(err(FlowKind::Poisson { rate_per_s: 1.0, size: bad_size }), "flows[0].size_bytes");
}

#[test]
fn fixed_off_periods_repeat_an_exact_cycle() {
    // 5000-byte bursts (4 µs at 10 Gb/s) offering 2 Gb/s: one burst every 20 µs, so
    // 50 bursts in 1 ms, each starting at a multiple of 20 µs.
    let r = Simulation::new(pair(on_off(5000, Rate::from_gbps(2)), Time::from_ms(1)), 1).unwrap().run();
    let f = &r.flows[0];
    let source = f.source.as_ref().unwrap();
    assert_eq!((source.transfers, source.transfers_completed), (50, 50));
    assert_eq!(f.sent_bytes, 50 * 5000);
    assert_eq!(f.offered_bps, Some(2e9));
    assert_eq!(f.dropped_frames, 0);
}

#[test]
fn an_on_off_source_offers_its_load_whatever_its_rate() {
    // 5000-byte bursts offering 2 Gb/s from a flow held to 1 Gb/s: the bursts keep
    // their schedule (50 in 1 ms) and queue at the source; it sends at 1 Gb/s.
    let mut cfg = pair(on_off(5000, Rate::from_gbps(2)), Time::from_ms(1));
    cfg.flows[0].max_rate = Some(Rate::from_gbps(1));
    let r = Simulation::new(cfg, 1).unwrap().run();
    let f = &r.flows[0];
    let source = f.source.as_ref().unwrap();
    assert_eq!((source.transfers, source.offered_bytes), (50, 250_000));
    // 1 Gb/s for 1 ms is 125,000 bytes: 25 bursts, the last one maybe in flight.
    assert!((24..=25).contains(&source.transfers_completed), "{}", source.transfers_completed);
    assert!((120_000..=125_000).contains(&f.sent_bytes), "{}", f.sent_bytes);
    assert_eq!(f.offered_bps, Some(1e9));
}
