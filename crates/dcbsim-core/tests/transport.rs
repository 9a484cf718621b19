//! Whole runs of flows over TCP NewReno and DCTCP.

use dcbsim_core::config::{FlowKind, FlowSpec, IncastSpec, LinkSpec, NodeKind, NodeSpec, SimConfig};
use dcbsim_core::dist::SizeDist;
use dcbsim_core::report::RunReport;
use dcbsim_core::sim::Simulation;
use dcbsim_core::transport::Transport;
use dcbsim_core::units::{Bytes, Rate, Time};

/// `senders` hosts -> one switch -> receiver `r0` (node 1); every link `rate`, `delay`.
fn star(senders: usize, rate: Rate, delay: Time, buffer: Bytes, duration: Time) -> SimConfig {
    let mut cfg = SimConfig::new(duration);
    let host = |name: String| NodeSpec { name, kind: NodeKind::Host };
    cfg.nodes.push(NodeSpec { name: "sw0".into(), kind: NodeKind::Switch });
    cfg.nodes.push(host("r0".into()));
    let link = |a, b| LinkSpec { a, b, rate, delay: delay.into(), buffer, priorities: 1, frame_service: None };
    cfg.links.push(link(0, 1));
    for i in 0..senders {
        cfg.nodes.push(host(format!("s{i}")));
        cfg.links.push(link(i + 2, 0));
    }
    cfg
}

fn flow(i: usize, kind: FlowKind, transport: Transport) -> FlowSpec {
    FlowSpec { frame_bytes: 1500, transport, ..FlowSpec::new(&format!("f{i}"), i + 2, 1, kind) }
}

fn run(cfg: SimConfig) -> RunReport {
    Simulation::new(cfg, 1).unwrap().run()
}

/// With no loss, a finite flow delivers exactly its size and completes; the last
/// segment is short when the size is not a multiple of the frame.
#[test]
fn lossless_finite_flows_deliver_their_size_and_complete() {
    for (size, transport) in [(1u64, Transport::Tcp), (1500, Transport::Tcp), (100_000, Transport::Dctcp), (1_234_567, Transport::Tcp)] {
        let mut cfg = star(1, Rate::from_gbps(10), Time::from_us(5), Bytes::from_kb(4096), Time::from_ms(50));
        cfg.flows.push(flow(0, FlowKind::Finite { size: SizeDist::Fixed(size) }, transport));
        let r = run(cfg);
        let f = &r.flows[0];
        assert_eq!(f.delivered_bytes, size, "size {size}");
        assert_eq!(f.sent_bytes, size, "no retransmission");
        assert_eq!((f.retransmits, f.timeouts, f.dropped_frames), (0, 0, 0));
        let fct = f.completion_time.expect("completes");
        assert!(fct >= f.ideal_completion_time.unwrap(), "{fct} < ideal");
    }
}

/// The same property over many sizes, frame sizes, both transports and delayed ACKs
/// on and off (sizes from a fixed xorshift sequence).
#[test]
fn lossless_delivery_property_over_random_sizes() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for k in 0..24 {
        let size = 1 + next() % 3_000_000;
        let frame = [64, 1000, 1500, 9000][k % 4];
        let transport = if k % 2 == 0 { Transport::Tcp } else { Transport::Dctcp };
        let mut cfg = star(1, Rate::from_gbps(10), Time::from_us(2), Bytes::from_kb(16_384), Time::from_ms(100));
        cfg.tcp.delayed_ack = k % 3 == 0;
        cfg.tcp.delayed_ack_timeout = Time::from_us(200);
        let mut f = flow(0, FlowKind::Finite { size: SizeDist::Fixed(size) }, transport);
        f.frame_bytes = frame;
        cfg.flows.push(f);
        let r = run(cfg);
        let f = &r.flows[0];
        let case = format!("size {size}, frame {frame}, {transport:?}, delayed ACK {}", k % 3 == 0);
        assert_eq!((f.delivered_bytes, f.sent_bytes), (size, size), "{case}");
        assert_eq!(f.delivered_frames, size.div_ceil(frame as u64), "{case}");
        assert!(f.completion_time.is_some(), "{case}");
    }
}

/// Slow start from 3 segments doubles per RTT: the 100 segments go in six rounds
/// (3+6+12+24+48 = 93 in the first five), so the flow takes five RTTs and one
/// one-way trip, plus the serialization of the rounds' bursts.
#[test]
fn slow_start_takes_log2_round_trips() {
    let mut cfg = star(1, Rate::from_gbps(10), Time::from_us(25), Bytes::from_kb(4096), Time::from_ms(50));
    cfg.flows.push(flow(0, FlowKind::Finite { size: SizeDist::Fixed(150_000) }, Transport::Tcp));
    let r = run(cfg);
    let fct = r.flows[0].completion_time.unwrap().as_secs_f64() * 1e6;
    // RTT = 4 × 25 us + 2 × 1.2 us (data) + 2 × 0.05 us (ACK) = 102.5 us; one-way
    // 52.4 us: at least 565 us.
    assert!((565.0..600.0).contains(&fct), "FCT {fct} us");
}

/// Two greedy NewReno flows into a small buffer: losses are recovered (fast
/// retransmits, few timeouts) and the bottleneck stays busy.
#[test]
fn newreno_recovers_losses_and_fills_the_link() {
    let mut cfg = star(2, Rate::from_gbps(1), Time::from_us(25), Bytes::from_kb(64), Time::from_ms(500));
    for i in 0..2 {
        cfg.flows.push(flow(i, FlowKind::Greedy, Transport::Tcp));
    }
    let r = run(cfg);
    let port = &r.ports.iter().find(|p| p.name == "sw0:r0").unwrap();
    assert!(port.dropped_frames > 0);
    assert!(port.stats.utilization > 0.95, "utilization {}", port.stats.utilization);
    for f in &r.flows {
        assert!(f.retransmits > 0);
        assert!(f.timeouts <= 1, "{} timeouts", f.timeouts);
        assert!(!f.cwnd_segments.is_empty() && f.alpha.is_empty());
    }
}

/// Two DCTCP flows at 10 Gb/s: the queue stays near K = 65 frames, no drops, full
/// utilization (DCTCP paper, Fig. 1 / §3.3).
#[test]
fn dctcp_holds_the_queue_near_k() {
    let mut cfg = star(2, Rate::from_gbps(10), Time::from_us(25), Bytes::from_kb(1024), Time::from_ms(200));
    for i in 0..2 {
        cfg.flows.push(flow(i, FlowKind::Greedy, Transport::Dctcp));
    }
    let r = run(cfg);
    let port = &r.ports.iter().find(|p| p.name == "sw0:r0").unwrap();
    let k = 65.0 * 1500.0;
    assert_eq!(port.dropped_frames, 0);
    assert!(port.ecn_marks > 0);
    assert!(port.stats.utilization > 0.98, "utilization {}", port.stats.utilization);
    assert!(port.stats.mean_bytes > 0.5 * k && port.stats.mean_bytes < 1.5 * k, "mean {}", port.stats.mean_bytes);
    assert!(r.flows.iter().all(|f| !f.alpha.is_empty() && f.timeouts == 0));
}

/// One TCP flow over a path whose bandwidth-delay product (100 Gb/s over a 200 us
/// round trip: 2.5 MB) exceeds 1 MiB fills the link: the default receive window grows
/// with the path. A fixed 1 MiB window held it to 1 MiB per round trip, 42 % of the
/// link; an explicit `rwnd` still binds.
#[test]
fn the_default_receive_window_does_not_cap_a_long_fat_path() {
    let utilization = |rwnd: Option<Bytes>| {
        let mut cfg = star(1, Rate::from_gbps(100), Time::from_us(50), Bytes::from_kb(8192), Time::from_ms(20));
        cfg.tcp.rwnd = rwnd;
        cfg.flows.push(flow(0, FlowKind::Greedy, Transport::Tcp));
        let r = run(cfg);
        let port = r.ports.iter().find(|p| p.name == "sw0:r0").unwrap();
        port.stats.utilization
    };
    assert!(utilization(None) > 0.9, "default window: utilization {}", utilization(None));
    let capped = utilization(Some(Bytes(1 << 20)));
    assert!(capped < 0.45, "1 MiB window: utilization {capped}");
}

/// A flow held back by its receive window (64 KB, 43 segments, over a 10 Gb/s path
/// whose round trip holds 25 KB) fills the link without growing its congestion window
/// past twice the window it uses (congestion window validation); the window grew by
/// one segment per ACK, to over 80,000 segments in 100 ms, before.
#[test]
fn a_receive_window_limited_flow_keeps_its_congestion_window() {
    let mut cfg = star(1, Rate::from_gbps(10), Time::from_us(5), Bytes::from_kb(4096), Time::from_ms(100));
    cfg.tcp.rwnd = Some(Bytes::from_kb(64));
    cfg.flows.push(flow(0, FlowKind::Greedy, Transport::Tcp));
    let r = run(cfg);
    let f = &r.flows[0];
    let most = f.cwnd_segments.iter().fold(0.0f64, |m, &c| m.max(c));
    assert!(most <= 2.0 * 43.0, "cwnd {most}");
    let port = r.ports.iter().find(|p| p.name == "sw0:r0").unwrap();
    assert!(port.stats.utilization > 0.99, "utilization {}", port.stats.utilization);
}

/// The incast application: every block has all SRUs, blocks follow each other.
#[test]
fn incast_blocks_complete_in_turn() {
    let mut cfg = star(4, Rate::from_gbps(1), Time::from_us(25), Bytes::from_kb(256), Time::from_ms(100));
    for i in 0..4 {
        cfg.flows.push(flow(i, FlowKind::Greedy, Transport::Tcp));
    }
    cfg.incast = Some(IncastSpec { flows: vec![0, 1, 2, 3], sru: 32_000, blocks: Some(5), start: Time::ZERO, response_jitter: Time::ZERO });
    let r = run(cfg);
    let app = r.incast.expect("an incast report");
    assert_eq!(app.blocks.len(), 5);
    for f in &r.flows {
        assert_eq!(f.delivered_bytes, 5 * 32_000);
    }
    for w in app.blocks.windows(2) {
        assert_eq!(w[0].start + w[0].time, w[1].start);
    }
    let goodput = app.goodput_bps();
    assert!(goodput > 0.5e9 && goodput < 1e9, "goodput {goodput}");
}

/// Jittered answers: each block still has every SRU, starts no earlier, and the
/// servers' first frames of a block no longer leave together.
#[test]
fn incast_answers_spread_over_the_jitter() {
    let make = |jitter: Time| {
        let mut cfg = star(4, Rate::from_gbps(1), Time::from_us(25), Bytes::from_kb(256), Time::from_ms(100));
        for i in 0..4 {
            cfg.flows.push(flow(i, FlowKind::Greedy, Transport::Tcp));
        }
        cfg.incast = Some(IncastSpec { flows: vec![0, 1, 2, 3], sru: 32_000, blocks: Some(5), start: Time::ZERO, response_jitter: jitter });
        run(cfg)
    };
    let (together, spread) = (make(Time::ZERO), make(Time::from_us(200)));
    assert_eq!(spread.incast.as_ref().expect("an incast report").blocks.len(), 5);
    assert!(spread.flows.iter().all(|f| f.delivered_bytes == 5 * 32_000));
    let first = |r: &dcbsim_core::report::RunReport| r.incast.as_ref().unwrap().blocks[0].time;
    assert!(first(&spread) > first(&together), "a late answer lengthens the block: {:?} vs {:?}", first(&spread), first(&together));
    assert!(first(&spread) < first(&together) + Time::from_us(200));
}

#[test]
fn a_constant_flow_over_tcp_is_refused() {
    let mut cfg = star(1, Rate::from_gbps(1), Time::from_us(1), Bytes::from_kb(64), Time::from_ms(1));
    let mut f = flow(0, FlowKind::Constant, Transport::Tcp);
    f.rate = Some(Rate::from_mbps(100));
    cfg.flows.push(f);
    let err = Simulation::new(cfg, 1).err().unwrap();
    assert_eq!(err.path, "flows[0].transport");
}

#[test]
fn runs_are_deterministic() {
    let make = || {
        let mut cfg = star(3, Rate::from_gbps(1), Time::from_us(10), Bytes::from_kb(32), Time::from_ms(50));
        for i in 0..3 {
            cfg.flows.push(flow(i, FlowKind::Greedy, if i == 0 { Transport::Dctcp } else { Transport::Tcp }));
        }
        run(cfg)
    };
    let (a, b) = (make(), make());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.events, b.events);
}

/// With losses (eight 1 MB flows into a 32 KB buffer), every finite flow over a
/// transport still completes with exactly its size delivered.
#[test]
fn lossy_finite_flows_all_complete() {
    for transport in [Transport::Tcp, Transport::Dctcp] {
        let mut cfg = star(8, Rate::from_gbps(1), Time::from_us(10), Bytes::from_kb(32), Time::from_ms(2000));
        cfg.tcp.rto_min = Time::from_ms(10);
        for i in 0..8 {
            let mut f = flow(i, FlowKind::Finite { size: SizeDist::Fixed(1_000_000) }, transport);
            f.start = Time::from_us(100 * i as u64);
            cfg.flows.push(f);
        }
        let r = run(cfg);
        assert!(r.dropped_frames() > 0, "{transport:?}: the buffer must overflow");
        for f in &r.flows {
            assert_eq!(f.delivered_bytes, 1_000_000, "{transport:?} {}", f.name);
            assert!(f.completion_time.is_some(), "{transport:?} {}", f.name);
        }
        assert!(r.flows.iter().any(|f| f.retransmits > 0));
    }
}
