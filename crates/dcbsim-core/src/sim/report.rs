//! Turning a finished (or stopped) simulation into a [`RunReport`].

use super::Simulation;
use crate::report::{ClassReport, FlowReport, PfcPortReport, PortReport, RunReport};
use crate::units::Time;

impl Simulation {
    /// Frames of each flow still in a queue or on a link.
    fn in_network(&self) -> Vec<u64> {
        let mut counts = vec![0u64; self.flows.len()];
        for port in &self.ports {
            let on_link = port.link.iter().map(|(_, p)| p);
            for pkt in port.queued().chain(on_link) {
                if pkt.is_data() {
                    counts[pkt.flow as usize] += 1;
                }
            }
        }
        counts
    }

    fn port_report(&self, p: usize, series: Option<Vec<u64>>, sampled: bool) -> PortReport {
        let port = &self.ports[p];
        let busy_past_end = port.started_until().saturating_sub(self.now);
        PortReport {
            name: self.port_names[p].clone(),
            capacity_bps: port.rate().0,
            buffer_bytes: port.buffer,
            monitored: sampled && series.is_some(),
            queue_bytes: series.unwrap_or_default(),
            stats: port.monitor.stats(self.now, port.queued_bytes, busy_past_end),
            tx_frames: port.tx_frames,
            tx_bytes: port.tx_bytes,
            dropped_frames: port.dropped_frames,
            dropped_bytes: port.dropped_bytes,
            notifications: port.notifications,
            ecn_marks: port.ecn_marks,
            queued_frames: port.queued_count() as u64,
        }
    }

    /// The shortest completion time of finite flow `f`: its size at the slowest
    /// link of its path, the path's propagation delays, and one frame's
    /// serialization at each hop but the slowest.
    pub(super) fn ideal_completion(&self, f: usize) -> Option<Time> {
        let flow = &self.flows[f];
        let path = self.routes.path(flow.src, flow.dst, f as u32, |p| self.ports[p as usize].peer)?;
        self.ideal_over(f, &path)
    }

    /// [`Simulation::ideal_completion`] of flow `f` over its path `path` (ports).
    fn ideal_over(&self, f: usize, path: &[u32]) -> Option<Time> {
        let flow = &self.flows[f];
        let size = flow.size()?;
        let slowest = path.iter().map(|&p| self.ports[p as usize].rate()).min()?;
        let mut t = slowest.transmit_time(crate::units::Bytes(size));
        for &p in path {
            let port = &self.ports[p as usize];
            t += port.delay;
            if port.rate() != slowest {
                t += port.rate().transmit_time(crate::units::Bytes(flow.frame_bytes.min(size as u32) as u64));
            }
        }
        Some(t)
    }

    /// Counters per 802.1p priority over every flow (arrival flows included).
    fn class_reports(&self) -> Vec<ClassReport> {
        let mut classes: Vec<ClassReport> = Vec::new();
        for f in &self.flows {
            let i = match classes.iter().position(|c| c.priority == f.priority) {
                Some(i) => i,
                None => {
                    classes.push(ClassReport { priority: f.priority, ..ClassReport::default() });
                    classes.len() - 1
                }
            };
            classes[i].flows += 1;
            classes[i].counters.add(&f.counters);
        }
        let seconds = self.now.as_secs_f64();
        for c in classes.iter_mut() {
            c.throughput_bps = if seconds > 0.0 { c.counters.delivered_bytes as f64 * 8.0 / seconds } else { 0.0 };
        }
        classes.sort_by_key(|c| c.priority);
        classes
    }

    /// PFC counters of every port (none without PFC).
    fn pfc_reports(&self) -> Vec<PfcPortReport> {
        if !self.pfc.on {
            return Vec::new();
        }
        let now = self.now;
        (0..self.ports.len())
            .map(|p| {
                let pfc = self.ports[p].pfc();
                PfcPortReport {
                    name: self.port_names[p].clone(),
                    pause_sent: pfc.pause_tx,
                    pause_received: pfc.pause_rx,
                    paused_time: std::array::from_fn(|q| pfc.paused_time(q, now)),
                    ingress_bytes: pfc.rx_bytes,
                    headroom_drops: pfc.headroom_drops,
                }
            })
            .collect()
    }

    /// Hands every chunk of samples to `sink` instead of keeping them in memory (call
    /// it before running, and read [`Simulation::sample_layout`] after it): the
    /// report's sampled series are then empty, and the chunks held at once take at
    /// most `budget` bytes, or one row each if a row is larger.
    pub fn stream_samples(&mut self, sink: Box<dyn crate::samples::SampleSink>, budget: usize) {
        self.sampler.stream_to(sink, budget);
    }

    /// Whether the samples go to a sink (see [`Simulation::stream_samples`]): the
    /// report's sampled series are then empty.
    pub fn streams_samples(&self) -> bool {
        self.sampler.streams()
    }

    /// The columns of a sample row and the rows per chunk a sink gets.
    pub fn sample_layout(&self) -> (&crate::samples::SampleLayout, usize) {
        (self.sampler.layout(), self.sampler.chunk_rows())
    }

    /// Stops here and reports.
    pub fn finish(self) -> RunReport {
        let mut flows = Vec::with_capacity(self.config.flows.len());
        let mut report = self.finish_with(|flow| flows.push(flow));
        report.flows = flows;
        report
    }

    /// Stops here and reports, handing each configured flow's report to `each_flow`
    /// in order as it is made, not keeping it: the returned report's `flows` is empty.
    /// (At a million flows, holding their reports took 500 MB made in 7.7 s, mostly
    /// writing fresh memory; one at a time, each is made and consumed in the caches.)
    pub fn finish_with(self, each_flow: impl FnMut(FlowReport)) -> RunReport {
        self.finish_reporting(each_flow, |_| true)
    }

    /// [`Simulation::finish_with`], reporting only the switch ports `reports` takes
    /// (by port index): the report's `ports` lists those alone, in order. (A part of a
    /// split run reports the ports it owns; a report of every port from every part
    /// held a second whole set of port reports at the merge's peak.)
    pub(super) fn finish_reporting(mut self, mut each_flow: impl FnMut(FlowReport), reports: impl Fn(usize) -> bool) -> RunReport {
        self.catch_up_ports();
        let in_network = self.in_network();
        let streamed = self.sampler.streams();
        let sampled = !self.sampler.times.is_empty();
        // Streamed samples leave no series: the columns then all read as empty.
        let mut columns = self.sampler.take_series().into_iter();
        let mut series: Vec<Option<Vec<u64>>> = vec![None; self.ports.len()];
        for &p in &self.sampler.layout().ports {
            let queue = columns.next().unwrap_or_default();
            series[p as usize] = Some(queue.into_iter().map(|q| q as u64).collect());
        }
        let ports = (0..self.ports.len())
            .filter(|&p| !self.ports[p].is_host && reports(p))
            .map(|p| self.port_report(p, series[p].take(), sampled))
            .collect();
        let (mut held, kept) = (self.sampler.layout().flows.iter(), self.sampler.kept_flows());
        for (i, &in_network) in in_network.iter().enumerate().take(self.config.flows.len()) {
            // A sampler keeping some flows only holds no series of the others.
            let Some(optional) = (match kept {
                Some(kept) if kept.binary_search(&(i as u32)).is_err() => None,
                _ => held.next(),
            }) else {
                each_flow(self.flow_report(i, in_network, FlowSeries::default()));
                continue;
            };
            let mut next = || columns.next().unwrap_or_default();
            if optional.delivered_only {
                let sampled = FlowSeries { throughput: next(), ..FlowSeries::default() };
                each_flow(self.flow_report(i, in_network, sampled));
                continue;
            }
            let [rate, throughput, send, fair] = [next(), next(), next(), next()];
            let cwnd = if optional.cwnd { next() } else { Vec::new() };
            let alpha = if optional.alpha { next() } else { Vec::new() };
            let [window, rtt] = if optional.acked { [next(), next()] } else { [Vec::new(), Vec::new()] };
            let sampled = FlowSeries { rate, throughput, send, fair, cwnd, alpha, window, rtt };
            each_flow(self.flow_report(i, in_network, sampled));
        }
        RunReport {
            sample_times: std::mem::take(&mut self.sampler.times),
            streamed_samples: streamed,
            ports,
            flows: Vec::new(),
            arrivals: self.arrival_reports(&in_network),
            incast: self.incast_report(),
            classes: self.class_reports(),
            pfc: self.pfc_reports(),
            simulated: self.now.max(Time::ZERO),
            events: self.events,
            wall_seconds: self.wall_seconds,
        }
    }

    /// The report of configured flow `i`, with `in_network` frames still on their way
    /// and its sampled series.
    fn flow_report(&self, i: usize, in_network: u64, sampled: FlowSeries) -> FlowReport {
        let f = &self.flows[i];
        let spec = &self.config.flows[i];
        let node_name = |n: u32| self.config.nodes[n as usize].name.clone();
        let path = self.routes.path(f.src, f.dst, i as u32, |p| self.ports[p as usize].peer).unwrap_or_default();
        let conn = self.apps.conns.get(f.conn as usize);
        FlowReport {
            name: spec.name.clone(),
            src: node_name(f.src),
            dst: node_name(f.dst),
            sent_frames: f.counters.sent_frames,
            sent_bytes: f.counters.sent_bytes,
            delivered_frames: f.counters.delivered_frames,
            delivered_bytes: f.counters.delivered_bytes,
            dropped_frames: f.counters.dropped_frames,
            dropped_bytes: f.counters.dropped_bytes,
            in_network_frames: in_network,
            notifications: f.counters.notifications,
            start: f.start,
            size: f.size(),
            completion_time: f.completed_at.map(|t| t.saturating_sub(f.start)),
            ideal_completion_time: self.ideal_over(i, &path),
            transport: spec.transport.name(),
            retransmits: conn.map_or(0, |c| c.sender.retransmits),
            timeouts: conn.map_or(0, |c| c.sender.timeouts),
            cwnd_segments: sampled.cwnd,
            alpha: sampled.alpha,
            acked: f.acked(),
            window_bytes: sampled.window,
            rtt_us: sampled.rtt,
            rate_bps: sampled.rate,
            throughput_bps: sampled.throughput,
            send_bps: sampled.send,
            weight: self.weights[i],
            priority: f.priority,
            fair_share_bps: sampled.fair,
            offered_bps: spec.offered_bps(),
            source: self.apps.source_of[i].map(|s| self.apps.sources[s as usize].report()),
            path: path.iter().map(|&p| self.port_names[p as usize].clone()).collect(),
        }
    }
}

/// One flow's sampled series (empty when not sampled, or streamed).
#[derive(Default)]
struct FlowSeries {
    rate: Vec<f64>,
    throughput: Vec<f64>,
    send: Vec<f64>,
    fair: Vec<f64>,
    cwnd: Vec<f64>,
    alpha: Vec<f64>,
    window: Vec<f64>,
    rtt: Vec<f64>,
}
