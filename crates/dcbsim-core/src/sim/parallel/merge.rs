//! The one-thread report from the parts of a split run.

use super::super::Simulation;
use super::super::arrivals::Outcome;
use super::super::fair::{FairOp, Replay};
use crate::report::{ArrivalReport, FlowReport, PortReport, RunReport};
use crate::units::Time;

/// What each arrival source's flows did: each flow's sending side from its source's
/// part, its receiving side from its destination's, its drops from every part.
fn arrival_reports(parts: &[Simulation], part_of: &[u16]) -> Vec<ArrivalReport> {
    let first = &parts[0];
    let outcomes: Vec<Option<Outcome>> = first
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            f.generator?;
            let mut o = parts[part_of[f.src as usize] as usize].outcome(i);
            let received = parts[part_of[f.dst as usize] as usize].outcome(i);
            o.counters.delivered_frames = received.counters.delivered_frames;
            o.counters.delivered_bytes = received.counters.delivered_bytes;
            o.completed_at = received.completed_at;
            o.counters.dropped_frames = parts.iter().map(|p| p.flows[i].counters.dropped_frames).sum();
            o.counters.dropped_bytes = parts.iter().map(|p| p.flows[i].counters.dropped_bytes).sum();
            Some(o)
        })
        .collect();
    let in_network: Vec<u64> = outcomes
        .iter()
        .map(|o| o.as_ref().map_or(0, |o| o.counters.sent_frames - o.counters.delivered_frames - o.counters.dropped_frames))
        .collect();
    first.arrival_reports_of(|i| outcomes[i].clone().expect("an arrived flow"), &in_network)
}

/// What moved or read the fair shares, from every part's log.
fn fair_log(parts: &mut [Simulation]) -> Vec<(Time, FairOp)> {
    parts.iter_mut().flat_map(Simulation::take_fair_log).collect()
}

/// Each configured flow's fair shares at each sample, replayed from `log` over the
/// network of `part` (any part: they share it).
fn fair_shares(part: &Simulation, replay: Replay, mut log: Vec<(Time, FairOp)>) -> Vec<Vec<f64>> {
    replay.run(&mut log, &part.changes.timeline, (&part.ports, &part.weights), part.sampler.interval)
}

/// The one-thread report from the parts' reports: each port's from the part that
/// owns it, each flow's sending side from its source's part and its receiving side
/// from its destination's, drops added up; the fair shares and the arrival reports
/// from every part ([`fair_shares`], [`arrival_reports`]). Parts are finished one at a
/// time, each dropped once its report is read, and only the flow reports the merged
/// report keeps are held (all the parts' reports held at once took as much again as a
/// part), and the port reports each part owns (every part reporting every port held
/// two whole sets of them at the peak); the fair shares are replayed with the last
/// part alone left.
pub(super) fn merge(mut parts: Vec<Simulation>, part_of: &[u16], replay: Replay, wall: f64) -> RunReport {
    let log = fair_log(&mut parts);
    let mut replay = Some((replay, log));
    let last = parts.len() - 1;
    let arrivals = arrival_reports(&parts, part_of);
    let shared = parts[0].shared_events;
    let events: u64 = parts.iter().map(|p| p.events).sum::<u64>() - shared * (parts.len() as u64 - 1);
    // A port's PFC ingress accounting is kept where its frames arrive (the peer's part).
    let port_ends: Vec<(usize, usize)> =
        parts[0].ports.iter().map(|p| (part_of[p.node as usize] as usize, part_of[p.peer as usize] as usize)).collect();
    // The report lists the switch ports: each from the part that owns it.
    let port_owner: Vec<usize> = parts[0].ports.iter().zip(&port_ends).filter(|(p, _)| !p.is_host).map(|(_, &(owner, _))| owner).collect();
    let flow_ends: Vec<(usize, usize)> = parts[0].flows[..parts[0].config.flows.len()]
        .iter()
        .map(|f| (part_of[f.src as usize] as usize, part_of[f.dst as usize] as usize))
        .collect();
    let mut flows: Vec<FlowReport> = Vec::new();
    flows.resize_with(flow_ends.len(), FlowReport::default);
    // Per flow, its receiving side (from its destination's part) and its drops
    // (from every part).
    let mut received: Vec<Received> = vec![Received::default(); flow_ends.len()];
    let mut merged: Option<RunReport> = None;
    let mut classes: Vec<crate::traffic::FlowCounters> = Vec::new();
    let mut ingress = vec![([0; 8], 0); port_ends.len()];
    let mut fair = Vec::new();
    // Each part's reports of the switch ports it owns, in order.
    let mut owned: Vec<std::vec::IntoIter<PortReport>> = Vec::with_capacity(last + 1);
    for (k, part) in parts.into_iter().enumerate() {
        // Replayed once the other parts are gone, their room free again.
        if k == last {
            let (replay, log) = replay.take().expect("one replay");
            fair = fair_shares(&part, replay, log);
        }
        let mut i = 0;
        let each_flow = |mut f: FlowReport| {
            let (src, dst) = flow_ends[i];
            let r = &mut received[i];
            r.dropped_frames += f.dropped_frames;
            r.dropped_bytes += f.dropped_bytes;
            if dst == k {
                r.delivered_frames = f.delivered_frames;
                r.delivered_bytes = f.delivered_bytes;
                r.completion_time = f.completion_time;
                r.throughput_bps = std::mem::take(&mut f.throughput_bps);
            }
            if src == k {
                flows[i] = f;
            }
            i += 1;
        };
        let mut report = part.finish_reporting(each_flow, |p| port_ends[p].0 == k);
        owned.push(std::mem::take(&mut report.ports).into_iter());
        for (p, pfc) in report.pfc.iter().enumerate().filter(|&(p, _)| port_ends[p].1 == k) {
            ingress[p] = (pfc.ingress_bytes, pfc.headroom_drops);
        }
        classes.resize_with(report.classes.len(), Default::default);
        for (sum, class) in classes.iter_mut().zip(&report.classes) {
            sum.add(&class.counters);
        }
        match merged.as_mut() {
            None => merged = Some(report),
            Some(m) => {
                for (p, pfc) in report.pfc.into_iter().enumerate() {
                    if port_ends[p].0 == k {
                        m.pfc[p] = pfc;
                    }
                }
            }
        }
    }
    for ((f, r), fair) in flows.iter_mut().zip(received).zip(fair) {
        f.fair_share_bps = fair;
        f.delivered_frames = r.delivered_frames;
        f.delivered_bytes = r.delivered_bytes;
        f.completion_time = r.completion_time;
        f.throughput_bps = r.throughput_bps;
        f.dropped_frames = r.dropped_frames;
        f.dropped_bytes = r.dropped_bytes;
        f.in_network_frames = f.sent_frames - f.delivered_frames - f.dropped_frames;
    }
    let mut merged = merged.expect("a part");
    merged.ports = port_owner.iter().map(|&k| owned[k].next().expect("its owner reported the port")).collect();
    merged.flows = flows;
    for (pfc, (bytes, drops)) in merged.pfc.iter_mut().zip(ingress) {
        (pfc.ingress_bytes, pfc.headroom_drops) = (bytes, drops);
    }
    let seconds = merged.simulated.as_secs_f64();
    for (class, counters) in merged.classes.iter_mut().zip(classes) {
        class.counters = counters;
        class.throughput_bps = if seconds > 0.0 { class.counters.delivered_bytes as f64 * 8.0 / seconds } else { 0.0 };
    }
    merged.arrivals = arrivals;
    merged.events = events;
    merged.wall_seconds = wall;
    merged
}

/// A flow's receiving side and drops, gathered from the parts for [`merge`].
#[derive(Clone, Debug, Default)]
struct Received {
    delivered_frames: u64,
    delivered_bytes: u64,
    completion_time: Option<Time>,
    throughput_bps: Vec<f64>,
    dropped_frames: u64,
    dropped_bytes: u64,
}
