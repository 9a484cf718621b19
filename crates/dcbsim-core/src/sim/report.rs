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
            capacity_bps: port.rate.0,
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
        let size = flow.size()?;
        let path = self.routes.path(flow.src, flow.dst, f as u32, |p| self.ports[p as usize].peer)?;
        let slowest = path.iter().map(|&p| self.ports[p as usize].rate).min()?;
        let mut t = slowest.transmit_time(crate::units::Bytes(size));
        for &p in &path {
            let port = &self.ports[p as usize];
            t += port.delay;
            if port.rate != slowest {
                t += port.rate.transmit_time(crate::units::Bytes(flow.frame_bytes.min(size as u32) as u64));
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
        if !self.pfc_on {
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

    /// The names of the ports flow `f` crosses.
    fn path_names(&self, f: usize) -> Vec<String> {
        let flow = &self.flows[f];
        let path = self.routes.path(flow.src, flow.dst, f as u32, |p| self.ports[p as usize].peer);
        path.unwrap_or_default().iter().map(|&p| self.port_names[p as usize].clone()).collect()
    }

    /// Hands every chunk of samples to `sink` instead of keeping them in memory (call
    /// it before running, and read [`Simulation::sample_layout`] after it): the
    /// report's sampled series are then empty, and the chunks held at once take at
    /// most `budget` bytes, or one row each if a row is larger.
    pub fn stream_samples(&mut self, sink: Box<dyn crate::samples::SampleSink>, budget: usize) {
        self.sampler.stream_to(sink, budget);
    }

    /// The columns of a sample row and the rows per chunk a sink gets.
    pub fn sample_layout(&self) -> (&crate::samples::SampleLayout, usize) {
        (self.sampler.layout(), self.sampler.chunk_rows())
    }

    /// Stops here and reports.
    pub fn finish(mut self) -> RunReport {
        self.catch_up_ports();
        let in_network = self.in_network();
        let streamed = self.sampler.streams();
        let sampled = !self.sampler.times.is_empty();
        let mut columns = self.sampler.take_series().into_iter();
        let layout = self.sampler.layout().clone();
        let mut series: Vec<Option<Vec<u64>>> = vec![None; self.ports.len()];
        for &p in &layout.ports {
            let queue = columns.next().unwrap_or_default();
            series[p as usize] = Some(queue.into_iter().map(|q| q as u64).collect());
        }
        let ports = (0..self.ports.len())
            .filter(|&p| !self.ports[p].is_host)
            .map(|p| self.port_report(p, series[p].take(), sampled))
            .collect();
        let mut paths: Vec<Vec<String>> = (0..self.config.flows.len()).map(|i| self.path_names(i)).collect();
        let ideal: Vec<Option<Time>> = (0..self.config.flows.len()).map(|i| self.ideal_completion(i)).collect();
        let node_name = |n: u32| self.config.nodes[n as usize].name.clone();
        let arrivals = self.arrival_reports(&in_network);
        let classes = self.class_reports();
        let mut sources: Vec<_> = self.source_of.iter().map(|s| s.map(|s| self.sources[s as usize].report())).collect();
        let mut flow_series: Vec<[Vec<f64>; 6]> = layout
            .flows
            .iter()
            .map(|f| {
                let mut next = || columns.next().unwrap_or_default();
                let four = [next(), next(), next(), next()];
                let cwnd = if f.cwnd { next() } else { Vec::new() };
                let alpha = if f.alpha { next() } else { Vec::new() };
                let [rate, throughput, send, fair] = four;
                [rate, throughput, send, fair, cwnd, alpha]
            })
            .collect();
        let flows = self
            .flows
            .iter()
            .take(self.config.flows.len())
            .enumerate()
            .map(|(i, f)| FlowReport {
                name: self.config.flows[i].name.clone(),
                src: node_name(f.src),
                dst: node_name(f.dst),
                sent_frames: f.counters.sent_frames,
                sent_bytes: f.counters.sent_bytes,
                delivered_frames: f.counters.delivered_frames,
                delivered_bytes: f.counters.delivered_bytes,
                dropped_frames: f.counters.dropped_frames,
                dropped_bytes: f.counters.dropped_bytes,
                in_network_frames: in_network[i],
                notifications: f.counters.notifications,
                start: f.start,
                size: f.size(),
                completion_time: f.completed_at.map(|t| t.saturating_sub(f.start)),
                ideal_completion_time: ideal[i],
                transport: self.config.flows[i].transport.name(),
                retransmits: self.conns.get(f.conn as usize).map_or(0, |c| c.sender.retransmits),
                timeouts: self.conns.get(f.conn as usize).map_or(0, |c| c.sender.timeouts),
                cwnd_segments: std::mem::take(&mut flow_series[i][4]),
                alpha: std::mem::take(&mut flow_series[i][5]),
                rate_bps: std::mem::take(&mut flow_series[i][0]),
                throughput_bps: std::mem::take(&mut flow_series[i][1]),
                send_bps: std::mem::take(&mut flow_series[i][2]),
                weight: self.weights[i],
                priority: f.priority,
                fair_share_bps: std::mem::take(&mut flow_series[i][3]),
                offered_bps: self.config.flows[i].offered_bps(),
                source: sources[i].take(),
                path: std::mem::take(&mut paths[i]),
            })
            .collect();
        RunReport {
            sample_times: std::mem::take(&mut self.sampler.times),
            streamed_samples: streamed,
            ports,
            flows,
            arrivals,
            incast: self.incast_report(),
            classes,
            pfc: self.pfc_reports(),
            simulated: self.now.max(Time::ZERO),
            events: self.events,
            wall_seconds: self.wall_seconds,
        }
    }
}
