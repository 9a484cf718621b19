//! Whole-run checks of the engine where queueing arithmetic is exact.

use dcbsim_core::config::{FlowKind, FlowSpec, LinkSpec, NodeKind, NodeSpec, SimConfig};
use dcbsim_core::report::RunReport;
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::{Bytes, Rate, Time};

/// `senders` hosts -> one switch -> one receiver, every link `rate`, 1 us.
fn star(senders: usize, access: Rate, bottleneck: Rate, buffer: Bytes, duration: Time) -> SimConfig {
    let mut cfg = SimConfig::new(duration);
    let host = |name: String| NodeSpec { name, kind: NodeKind::Host };
    cfg.nodes.push(NodeSpec { name: "sw0".into(), kind: NodeKind::Switch });
    cfg.nodes.push(host("r0".into()));
    let link = |a, b, rate| LinkSpec { a, b, rate, delay: Time::from_us(1).into(), buffer, priorities: 1, frame_service: None };
    cfg.links.push(link(0, 1, bottleneck));
    for i in 0..senders {
        cfg.nodes.push(host(format!("s{i}")));
        cfg.links.push(link(i + 2, 0, access));
    }
    cfg
}

fn flow(name: &str, src: usize, dst: usize, kind: FlowKind, rate: Option<Rate>) -> FlowSpec {
    FlowSpec { rate, ..FlowSpec::new(name, src, dst, kind) }
}

fn constant_senders(cfg: &mut SimConfig, senders: usize, rate: Rate) {
    for i in 0..senders {
        cfg.flows.push(flow(&format!("f{i}"), i + 2, 1, FlowKind::Constant, Some(rate)));
    }
}

fn assert_conserved(r: &RunReport) {
    for f in &r.flows {
        assert_eq!(f.sent_frames, f.delivered_frames + f.dropped_frames + f.in_network_frames, "flow {}", f.name);
    }
}

#[test]
fn a_lone_frame_takes_serialization_plus_propagation_per_hop() {
    let mut cfg = star(1, Rate::from_gbps(10), Rate::from_gbps(1), Bytes::from_kb(128), Time::from_us(100));
    cfg.flows.push(flow("one", 2, 1, FlowKind::Finite { size: Bytes(1000).into() }, None));
    let r = Simulation::new(cfg, 1).unwrap().run();
    // 1000 B: 0.8 us at 10 Gb/s + 1 us, then 8 us at 1 Gb/s + 1 us.
    assert_eq!(r.flows[0].completion_time, Some(Time::from_ns(800 + 1000 + 8000 + 1000)));
    assert_eq!(r.flows[0].delivered_frames, 1);
}

#[test]
fn below_capacity_nothing_drops_and_throughput_equals_offered() {
    let mut cfg = star(4, Rate::from_gbps(10), Rate::from_gbps(10), Bytes::from_kb(128), Time::from_ms(20));
    constant_senders(&mut cfg, 4, Rate::from_gbps(2));
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.dropped_frames(), 0);
    assert_conserved(&r);
    for f in &r.flows {
        // 2 Gb/s for 20 ms = 5000 frames of 1000 B; a few may still be on the wire.
        assert!(f.sent_frames == 5000, "{} sent {}", f.name, f.sent_frames);
        assert!(f.delivered_frames >= 4998, "{} delivered {}", f.name, f.delivered_frames);
        // Every full interval after the first delivers exactly the offered rate.
        for &t in &f.throughput_bps[1..] {
            assert!((t - 2e9).abs() <= 8000.0 / 1e-3, "throughput {t}");
        }
    }
}

#[test]
fn above_capacity_delivers_capacity_and_the_queue_sits_at_the_buffer() {
    let buffer = Bytes(131_072);
    let mut cfg = star(5, Rate::from_gbps(10), Rate::from_gbps(10), buffer, Time::from_ms(50));
    constant_senders(&mut cfg, 5, Rate::from_gbps_f64(2.5));
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_conserved(&r);
    let bottleneck = r.ports.iter().find(|p| p.name == "sw0:r0").unwrap();
    // The bottleneck is busy from the first arrival (0.8 us + 1 us) to the end:
    // transmitted bytes equal capacity x that time within one frame.
    let expect = 10e9 / 8.0 * (0.05 - 1.8e-6);
    assert!((bottleneck.tx_bytes as f64 - expect).abs() <= 1000.0, "tx {}", bottleneck.tx_bytes);
    // Once full, the queue peaks within one frame of the buffer and never falls more
    // than one synchronized burst (5 senders x 1 frame) below it.
    let (b, burst) = (buffer.0, 5 * 1000);
    assert!(bottleneck.stats.max_bytes + 1000 > b && bottleneck.stats.max_bytes <= b);
    let tail = &bottleneck.queue_bytes[5..];
    assert!(tail.iter().all(|&q| q + burst > b && q <= b), "{tail:?}");
    assert!(bottleneck.stats.mean_bytes + burst as f64 > b as f64 * 0.99);
    assert!(r.dropped_frames() > 0);
    let delivered: u64 = r.flows.iter().map(|f| f.delivered_bytes).sum();
    assert!((delivered as f64 - expect).abs() <= 2000.0, "delivered {delivered}");
    // Over each 1 ms interval after the first, delivered throughput is the capacity
    // within one frame.
    for i in 1..r.sample_times.len() {
        let total: f64 = r.flows.iter().map(|f| f.throughput_bps[i]).sum();
        assert!((total - 10e9).abs() <= 8000.0 / 1e-3, "interval {i}: {total}");
    }
}

#[test]
fn greedy_flows_share_a_bottleneck_and_conserve_frames() {
    let mut cfg = star(3, Rate::from_gbps(10), Rate::from_gbps(10), Bytes::from_kb(64), Time::from_ms(10));
    for i in 0..3 {
        cfg.flows.push(flow(&format!("g{i}"), i + 2, 1, FlowKind::Greedy, None));
    }
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_conserved(&r);
    let bottleneck = r.ports.iter().find(|p| p.name == "sw0:r0").unwrap();
    assert!(bottleneck.stats.utilization > 0.999, "{}", bottleneck.stats.utilization);
    assert!(bottleneck.stats.p_empty < 0.01);
}

#[test]
fn same_seed_gives_identical_results() {
    let build = || {
        let mut cfg = star(5, Rate::from_gbps(10), Rate::from_gbps(10), Bytes::from_kb(128), Time::from_ms(10));
        constant_senders(&mut cfg, 5, Rate::from_gbps_f64(2.5));
        cfg
    };
    let mut a = Simulation::new(build(), 7).unwrap().run();
    let mut b = Simulation::new(build(), 7).unwrap().run();
    a.wall_seconds = 0.0;
    b.wall_seconds = 0.0;
    assert_eq!(a, b);
}

#[test]
fn finite_flows_complete_and_stop_times_hold() {
    let mut cfg = star(2, Rate::from_gbps(10), Rate::from_gbps(10), Bytes::from_kb(128), Time::from_ms(10));
    cfg.flows.push(flow("big", 2, 1, FlowKind::Finite { size: Bytes(1_000_000).into() }, None));
    let mut stopped = flow("stopped", 3, 1, FlowKind::Constant, Some(Rate::from_gbps(1)));
    stopped.start = Time::from_ms(1);
    stopped.stop = Some(Time::from_ms(2));
    cfg.flows.push(stopped);
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.flows[0].delivered_bytes, 1_000_000);
    assert!(r.flows[0].completion_time.is_some());
    // 1 Gb/s for 1 ms: 125 frames.
    assert_eq!(r.flows[1].sent_frames, 125);
    assert_conserved(&r);
}

#[test]
fn unreachable_destination_is_a_config_error() {
    let mut cfg = star(1, Rate::from_gbps(10), Rate::from_gbps(10), Bytes::from_kb(128), Time::from_ms(1));
    cfg.nodes.push(NodeSpec { name: "island".into(), kind: NodeKind::Host });
    cfg.nodes.push(NodeSpec { name: "sw9".into(), kind: NodeKind::Switch });
    let n = cfg.nodes.len();
    cfg.links.push(LinkSpec {
        a: n - 2,
        b: n - 1,
        rate: Rate::from_gbps(1),
        delay: Time::ZERO.into(),
        buffer: Bytes(9000),
        priorities: 1,
        frame_service: None,
    });
    cfg.flows.push(flow("lost", 2, n - 2, FlowKind::Greedy, None));
    let err = Simulation::new(cfg, 1).err().unwrap();
    assert_eq!(err.path, "flows[0].dst");
}

#[test]
fn a_rate_limited_flow_starts_its_reaction_point_timer() {
    // QCN-T from 100 Mb/s with nothing to slow it: the timer alone raises the rate.
    let mut cfg = star(1, Rate::from_gbps(1), Rate::from_gbps(1), Bytes::from_kb(512), Time::from_ms(200));
    cfg.scheme = dcbsim_core::cc::SchemeConfig::by_name("qcn_t").unwrap();
    let mut f = flow("t", 2, 1, FlowKind::Greedy, Some(Rate::from_mbps(100)));
    f.start = Time::from_ms(10);
    cfg.flows.push(f);
    let r = Simulation::new(cfg, 1).unwrap().run();
    let rates = &r.flows[0].rate_bps;
    assert_eq!(rates[5], 0.0, "not started yet");
    assert!(rates[199] > 120e6, "the timer raised the rate: {}", rates[199]);
}

#[test]
fn random_link_delays_are_drawn_once_per_link_from_the_seed() {
    use dcbsim_core::dist::TimeDist;
    let run = |seed| {
        let mut cfg = star(1, Rate::from_gbps(10), Rate::from_gbps(10), Bytes::from_kb(128), Time::from_ms(5));
        for l in cfg.links.iter_mut() {
            l.delay = TimeDist::Uniform { low: Time::from_us(100), high: Time::from_us(200) };
        }
        cfg.flows.push(flow("one", 2, 1, FlowKind::Finite { size: Bytes(1000).into() }, None));
        Simulation::new(cfg, seed).unwrap().run().flows[0].completion_time.unwrap()
    };
    let serialization = Time::from_ns(1600);
    for seed in 1..20 {
        let fct = run(seed) - serialization;
        assert!(fct >= Time::from_us(200) && fct <= Time::from_us(400), "{fct}");
        assert_eq!(run(seed), run(seed));
    }
    assert_ne!(run(1), run(2));
}

#[test]
fn notification_latency_delays_the_reaction() {
    use dcbsim_core::cc::SchemeConfig;
    use dcbsim_core::dist::TimeDist;
    use dcbsim_core::param::ParamValue;
    let first_cut = |latency: Time| {
        let mut cfg = star(1, Rate::from_gbps(10), Rate::from_gbps(1), Bytes::from_kb(512), Time::from_us(400));
        let mut scheme = SchemeConfig::by_name("qcn").unwrap();
        for (k, v) in [("sampling", ParamValue::Text("fixed".into())), ("p", ParamValue::Number(1.0)), ("q_eq_kb", ParamValue::Number(2.0))]
        {
            scheme.set_param(k, &v).unwrap();
        }
        cfg.scheme = scheme;
        cfg.notification_latency = TimeDist::Fixed(latency);
        cfg.monitor.sample_interval = Time::from_us(1);
        cfg.flows.push(flow("g", 2, 1, FlowKind::Greedy, None));
        let r = Simulation::new(cfg, 1).unwrap().run();
        r.flows[0].rate_bps.iter().position(|&x| x < 10e9).expect("a cut")
    };
    let (now, later) = (first_cut(Time::ZERO), first_cut(Time::from_us(50)));
    assert!(later >= now + 49 && later <= now + 51, "{now} {later}");
}

#[test]
fn poisson_arrivals_make_finite_flows_that_complete() {
    use dcbsim_core::config::ArrivalSpec;
    use dcbsim_core::dist::SizeDist;
    let mut cfg = star(2, Rate::from_gbps(10), Rate::from_gbps(10), Bytes::from_kb(256), Time::from_ms(200));
    let template = flow("", 2, 1, FlowKind::Greedy, None);
    cfg.arrivals.push(ArrivalSpec { name: "short".into(), rate_per_s: 1000.0, size: SizeDist::Fixed(100_000), flow: template });
    let mut background = flow("bg", 3, 1, FlowKind::Constant, Some(Rate::from_gbps(2)));
    background.stop = Some(Time::from_ms(150));
    cfg.flows.push(background);
    let r = Simulation::new(cfg.clone(), 3).unwrap().run();
    let a = &r.arrivals[0];
    // About 200 arrivals (Poisson: within 4 standard deviations).
    assert!((a.flows as f64 - 200.0).abs() < 4.0 * 200f64.sqrt(), "{}", a.flows);
    assert_eq!(a.sent_frames, a.delivered_frames + a.dropped_frames + a.in_network_frames);
    assert_eq!(r.flows.len(), 1, "arrivals are reported apart from the configured flows");
    // Lightly loaded: nearly all complete, in about 100 KB at 10 Gb/s plus two hops.
    assert!(a.completion_s.len() as u64 + 3 >= a.flows);
    let fastest = a.completion_s.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!((80e-6..200e-6).contains(&fastest), "{fastest}");
    assert_eq!(Simulation::new(cfg, 3).unwrap().run().arrivals, r.arrivals);
}
