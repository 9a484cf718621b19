//! Whole-run checks of PFC (802.1Qbb) and ETS (802.1Qaz).

use dcbsim_core::config::{FlowKind, FlowSpec, LinkSpec, NodeKind, NodeSpec, PortRef, SimConfig};
use dcbsim_core::report::RunReport;
use dcbsim_core::rng::Rng;
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::{Bytes, Rate, Time};

/// `senders` hosts -> sw0 -> sw1 -> r0 (nodes: sw0, sw1, r0, s0, s1, ...).
fn two_tier(senders: usize, rate: Rate, delay: Time, buffer: Bytes, duration: Time) -> SimConfig {
    let mut cfg = SimConfig::new(duration);
    let node = |name: &str, kind| NodeSpec { name: name.into(), kind };
    cfg.nodes.push(node("sw0", NodeKind::Switch));
    cfg.nodes.push(node("sw1", NodeKind::Switch));
    cfg.nodes.push(node("r0", NodeKind::Host));
    let link = |a, b| LinkSpec { a, b, rate, delay: delay.into(), buffer, priorities: 1, frame_service: None };
    cfg.links.push(link(0, 1));
    cfg.links.push(link(1, 2));
    for i in 0..senders {
        cfg.nodes.push(node(&format!("s{i}"), NodeKind::Host));
        cfg.links.push(link(i + 3, 0));
    }
    cfg
}

fn flow(i: usize, kind: FlowKind, rate: Option<Rate>, frame_bytes: u32, priority: u8) -> FlowSpec {
    FlowSpec { rate, frame_bytes, priority, ..FlowSpec::new(&format!("f{i}"), i + 3, 2, kind) }
}

fn assert_conserved(r: &RunReport) {
    for f in &r.flows {
        assert_eq!(f.sent_frames, f.delivered_frames + f.dropped_frames + f.in_network_frames, "flow {}", f.name);
    }
}

fn pfc_port<'a>(r: &'a RunReport, name: &str) -> &'a dcbsim_core::report::PfcPortReport {
    r.pfc.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no port {name}"))
}

#[test]
fn an_incast_on_a_lossless_priority_pauses_instead_of_dropping() {
    let mut cfg = two_tier(4, Rate::from_gbps(10), Time::from_us(1), Bytes::from_kb(32), Time::from_ms(5));
    cfg.flows = (0..4).map(|i| flow(i, FlowKind::Greedy, None, 1000, 3)).collect();
    cfg.pfc.lossless = 1 << 3;
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.dropped_frames(), 0);
    assert_conserved(&r);
    // The bottleneck sw0 -> sw1 stays busy; the senders' NICs are paused by sw0.
    let trunk = r.ports.iter().find(|p| p.name == "sw0:sw1").unwrap();
    assert!(trunk.stats.utilization > 0.99, "{}", trunk.stats.utilization);
    let nic = pfc_port(&r, "s0:sw0");
    assert!(nic.pause_received[3] > 0 && nic.paused_time[3] > Time::from_ms(2), "{nic:?}");
    assert!(pfc_port(&r, "sw0:s0").pause_sent[3] >= nic.pause_received[3]);
    // Each sender gets a quarter of the trunk.
    for f in &r.flows {
        let share = f.delivered_bytes as f64 * 8.0 / 5e-3 / 10e9;
        assert!((share - 0.25).abs() < 0.02, "{} {share}", f.name);
    }
}

#[test]
fn a_priority_without_pfc_stays_drop_tail() {
    let mut cfg = two_tier(4, Rate::from_gbps(10), Time::from_us(1), Bytes::from_kb(32), Time::from_ms(5));
    cfg.flows = (0..4).map(|i| flow(i, FlowKind::Greedy, None, 1000, if i < 2 { 3 } else { 0 })).collect();
    cfg.pfc.lossless = 1 << 3;
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_conserved(&r);
    assert_eq!(r.flows[0].dropped_frames + r.flows[1].dropped_frames, 0);
    assert!(r.flows[2].dropped_frames > 0 && r.flows[3].dropped_frames > 0);
}

#[test]
fn without_headroom_in_flight_frames_are_lost() {
    let mut cfg = two_tier(4, Rate::from_gbps(10), Time::from_us(10), Bytes::from_kb(32), Time::from_ms(2));
    cfg.flows = (0..4).map(|i| flow(i, FlowKind::Greedy, None, 1000, 3)).collect();
    cfg.pfc.lossless = 1 << 3;
    cfg.pfc.headroom = Some(Bytes(0));
    let r = Simulation::new(cfg.clone(), 1).unwrap().run();
    assert!(r.pfc.iter().map(|p| p.headroom_drops).sum::<u64>() > 0);
    // The default headroom, from the 10 us links, absorbs them.
    cfg.pfc.headroom = None;
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.dropped_frames(), 0);
}

/// Random incasts on a lossless priority: sizes, rates, delays, frame sizes and
/// thresholds vary; no frame is ever lost and the ingress bytes never pass
/// X_off + headroom.
#[test]
fn random_incasts_never_lose_a_lossless_frame() {
    let mut paused_runs = 0;
    for seed in 1..=24u64 {
        let mut rng = Rng::stream(seed, "pfc-property");
        let senders = 2 + (rng.next_u64() % 14) as usize;
        let rate = Rate::from_gbps([10, 25, 40, 100][(rng.next_u64() % 4) as usize]);
        let delay = Time::from_ns(100 + rng.next_u64() % 20_000);
        let frame = [512, 1000, 1500, 4096, 9000][(rng.next_u64() % 5) as usize];
        let mut cfg = two_tier(senders, rate, delay, Bytes::from_kb(16), Time::from_us(1500));
        cfg.flows = (0..senders)
            .map(|i| {
                let size = Bytes(1 + rng.next_u64() % 2_000_000);
                let kind = if rng.chance(0.5) { FlowKind::Greedy } else { FlowKind::Finite { size: size.into() } };
                let mut f = flow(i, kind, None, frame, 3);
                f.start = Time::from_ns(rng.next_u64() % 200_000);
                f
            })
            .collect();
        cfg.pfc.lossless = 1 << 3;
        cfg.pfc.xoff = Bytes(frame as u64 + rng.next_u64() % 100_000);
        // A pause must outlast the time an XOFF refresh takes to reach the sender.
        let lead_bits = (delay.0 as f64 * 1e-12 * rate.0 as f64) as u64 + 8 * (2 * frame as u64 + 64);
        let least = (4 * lead_bits).div_ceil(512).min(65_535);
        cfg.pfc.quanta = (least + rng.next_u64() % (65_536 - least)) as u16;
        if rng.chance(0.5) {
            // The dynamic threshold: α from 1/16 to 8 over a shared buffer of 1 to 16 frames.
            cfg.pfc.alpha = Some([0.0625, 0.25, 1.0, 8.0][(rng.next_u64() % 4) as usize]);
            cfg.pfc.shared_buffer = Some(Bytes(frame as u64 * (1 + rng.next_u64() % 16)));
        }
        let r = Simulation::new(cfg, seed).unwrap().run();
        let label = format!("seed {seed}: {senders} senders at {} Gb/s, {} ns, {frame} B", rate.0 / 1_000_000_000, delay.0 / 1000);
        assert_eq!(r.dropped_frames(), 0, "{label}");
        assert_eq!(r.pfc.iter().map(|p| p.headroom_drops).sum::<u64>(), 0, "{label}");
        assert_conserved(&r);
        paused_runs += r.pfc.iter().any(|p| p.pause_sent[3] > 0) as usize;
    }
    assert!(paused_runs >= 18, "only {paused_runs} runs paused");
}

#[test]
fn pauses_spread_upstream_from_switch_to_switch() {
    // sw1 -> r0 at a quarter of the rate: sw1 pauses sw0, which pauses the senders.
    let mut cfg = two_tier(2, Rate::from_gbps(10), Time::from_us(1), Bytes::from_kb(32), Time::from_ms(3));
    cfg.links[1].rate = Rate::from_gbps(2);
    cfg.flows = (0..2).map(|i| flow(i, FlowKind::Greedy, None, 1000, 3)).collect();
    cfg.pfc.lossless = 1 << 3;
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.dropped_frames(), 0);
    assert!(pfc_port(&r, "sw1:sw0").pause_sent[3] > 0);
    assert!(pfc_port(&r, "sw0:sw1").paused_time[3] > Time::from_ms(1));
    assert!(pfc_port(&r, "s1:sw0").paused_time[3] > Time::from_ms(1));
}

#[test]
fn only_the_listed_ingress_ports_are_lossless() {
    let mut cfg = two_tier(2, Rate::from_gbps(10), Time::from_us(1), Bytes::from_kb(32), Time::from_ms(2));
    cfg.flows = (0..2).map(|i| flow(i, FlowKind::Greedy, None, 1000, 3)).collect();
    cfg.pfc.lossless = 1 << 3;
    cfg.pfc.ports = Some(vec![PortRef { node: 0, peer: 3 }]);
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.flows[0].dropped_frames, 0);
    assert!(r.flows[1].dropped_frames > 0);
}

#[test]
fn ets_shares_a_port_by_weight_over_a_long_run() {
    // Two lossless priorities into one 10 Gb/s trunk with ETS weights 1 : 3.
    let mut cfg = two_tier(2, Rate::from_gbps(10), Time::from_us(1), Bytes::from_kb(64), Time::from_ms(20));
    cfg.flows = vec![flow(0, FlowKind::Greedy, None, 1500, 1), flow(1, FlowKind::Greedy, None, 1000, 2)];
    cfg.pfc.lossless = (1 << 1) | (1 << 2);
    cfg.ets.weights[1] = 1;
    cfg.ets.weights[2] = 3;
    let r = Simulation::new(cfg, 1).unwrap().run();
    assert_eq!(r.dropped_frames(), 0);
    let (a, b) = (r.flows[0].delivered_bytes as f64, r.flows[1].delivered_bytes as f64);
    let share = b / (a + b);
    assert!((share - 0.75).abs() < 0.002, "{share}");
}

#[test]
fn a_strict_priority_goes_before_the_weighted_ones() {
    let mut cfg = two_tier(3, Rate::from_gbps(10), Time::from_us(1), Bytes::from_kb(64), Time::from_ms(5));
    cfg.flows = vec![
        flow(0, FlowKind::Greedy, None, 1000, 1),
        flow(1, FlowKind::Greedy, None, 1000, 2),
        flow(2, FlowKind::Constant, Some(Rate::from_gbps(2)), 1000, 5),
    ];
    cfg.pfc.lossless = (1 << 1) | (1 << 2) | (1 << 5);
    cfg.ets.weights[1] = 1;
    cfg.ets.weights[2] = 1;
    let r = Simulation::new(cfg, 1).unwrap().run();
    let gbps = |f: usize| r.flows[f].delivered_bytes as f64 * 8.0 / 5e-3 / 1e9;
    assert!((gbps(2) - 2.0).abs() < 0.05, "{}", gbps(2));
    assert!((gbps(0) - 4.0).abs() < 0.1 && (gbps(1) - 4.0).abs() < 0.1, "{} {}", gbps(0), gbps(1));
}

#[test]
fn pfc_runs_are_deterministic() {
    let mut cfg = two_tier(5, Rate::from_gbps(40), Time::from_us(2), Bytes::from_kb(32), Time::from_ms(2));
    cfg.flows = (0..5).map(|i| flow(i, FlowKind::Greedy, None, 1500, 3)).collect();
    cfg.pfc.lossless = 1 << 3;
    let a = Simulation::new(cfg.clone(), 7).unwrap().run();
    let b = Simulation::new(cfg, 7).unwrap().run();
    assert_eq!(a.pfc, b.pfc);
    assert_eq!(a.delivered_frames(), b.delivered_frames());
}

/// The largest queue at the trunk sw0 -> sw1 of a 4-sender lossless incast.
fn trunk_peak(cfg: SimConfig) -> (u64, RunReport) {
    let r = Simulation::new(cfg, 1).unwrap().run();
    let peak = r.ports.iter().find(|p| p.name == "sw0:sw1").unwrap().stats.max_bytes;
    (peak, r)
}

#[test]
fn the_dynamic_threshold_shares_the_switch_buffer_between_ingress_ports() {
    let mut cfg = two_tier(4, Rate::from_gbps(10), Time::from_us(1), Bytes::from_kb(16), Time::from_ms(3));
    cfg.links[1].rate = Rate::from_gbps(2);
    cfg.flows = (0..4).map(|i| flow(i, FlowKind::Greedy, None, 1000, 3)).collect();
    cfg.pfc.lossless = 1 << 3;
    let (static_peak, _) = trunk_peak(cfg.clone());
    // α = 1 over a 64 KB shared buffer: with 4 ingress ports held, each pauses at
    // x = α (B − 4x), x = B/5, so together they hold 4/5 of B (plus in-flight frames
    // within each port's headroom).
    cfg.pfc.alpha = Some(1.0);
    cfg.pfc.shared_buffer = Some(Bytes::from_kb(64));
    let (dynamic_peak, r) = trunk_peak(cfg.clone());
    assert_eq!(r.dropped_frames(), 0);
    assert_conserved(&r);
    let headroom = dcbsim_core::net::pfc::headroom(Rate::from_gbps(10), Time::from_us(1), 1000);
    assert!(dynamic_peak <= 64 * 1024 + 4 * headroom, "{dynamic_peak}");
    assert!(static_peak >= 4 * 40 * 1024, "the static 40 KB X_off per port: {static_peak}");
    // A smaller α pauses sooner: each port at α B / (1 + 4 α) = 5.3 KB.
    cfg.pfc.alpha = Some(0.125);
    let (small_alpha_peak, r) = trunk_peak(cfg);
    assert_eq!(r.dropped_frames(), 0);
    let bound = 4.0 * 0.125 * 65536.0 / 1.5 + 4.0 * headroom as f64;
    assert!((small_alpha_peak as f64) <= bound && small_alpha_peak < dynamic_peak, "{small_alpha_peak} vs {bound}, {dynamic_peak}");
}
