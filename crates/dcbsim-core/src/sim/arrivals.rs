//! Flows that arrive during the run: Poisson arrivals of finite flows.

use super::Simulation;
use crate::cc::RpInit;
use crate::config::{ArrivalSpec, FlowKind, FlowSpec};
use crate::dist::SizeDist;
use crate::report::{ArrivalReport, ArrivedFlow};
use crate::rng::Rng;
use crate::sched::Event;
use crate::traffic::{Flow, FlowCounters};
use crate::units::Time;

/// What became of a flow: its counters, when it completed, and how often its
/// transport sent again and timed out.
#[derive(Clone, Debug)]
pub(super) struct Outcome {
    pub counters: FlowCounters,
    pub completed_at: Option<Time>,
    pub retransmits: u64,
    pub timeouts: u64,
}

/// The state of one arrival source.
#[derive(Clone, Debug)]
pub struct Generator {
    spec: ArrivalSpec,
    rng: Rng,
    seed: u64,
    made: u32,
}

impl Generator {
    /// A source as its spec says, its random stream seeded by the run.
    pub fn new(spec: ArrivalSpec, seed: u64) -> Generator {
        let rng = Rng::stream(seed, &format!("arrivals:{}", spec.name));
        Generator { spec, rng, seed, made: 0 }
    }

    /// What the source makes.
    pub fn spec(&self) -> &ArrivalSpec {
        &self.spec
    }

    /// The time of the next arrival after `now`, if it is before the source stops.
    pub fn next_after(&mut self, now: Time, end: Time) -> Option<Time> {
        let gap = Time::from_secs_f64(self.rng.exponential(1.0 / self.spec.rate_per_s));
        let at = now.max(self.spec.flow.start) + gap;
        let stop = self.spec.flow.stop.unwrap_or(end).min(end);
        (at < stop).then_some(at)
    }
}

impl Simulation {
    /// Schedules the first arrival of every source.
    pub(super) fn start_arrivals(&mut self) {
        let end = self.config.duration;
        for g in 0..self.apps.generators.len() {
            if let Some(at) = self.apps.generators[g].next_after(Time::ZERO, end) {
                self.queue.push(at, Event::Source { source: g as u32, generation: 0 });
            }
        }
    }

    /// A flow of source `g` arrives: it is made, started, and the next is scheduled.
    pub(super) fn on_arrival(&mut self, g: u32) {
        let now = self.now;
        let generator = &mut self.apps.generators[g as usize];
        let k = generator.made;
        generator.made += 1;
        let size = generator.spec.size.sample(&mut generator.rng);
        let spec = FlowSpec { kind: FlowKind::Finite { size: SizeDist::Fixed(size) }, start: now, ..generator.spec.flow.clone() };
        let stream = format!("{}#{k}", generator.spec.name);
        let seed = generator.seed;
        let line_rate = self.ports[self.hosts[spec.src].as_ref().expect("a host").nic as usize].rate();
        let index = self.flows.len() as u32;
        let scheme = self.config.scheme_for(spec.scheme);
        let acks = scheme.acks();
        let mut init = RpInit::of(&spec, line_rate, index);
        let ends = (spec.src as u32, spec.dst as u32, index);
        init.base_rtt = super::acks::base_rtt(&self.routes, &self.ports, ends, spec.frame_bytes, acks);
        let rp = scheme.reaction_point(init, Rng::stream(seed, &format!("rp:{stream}")));
        self.acking.register(index, acks);
        let mut flow = Flow::new(&spec, rp, line_rate, Rng::stream(seed, &format!("flow:{stream}")));
        flow.generator = Some(g);
        flow.active = true;
        flow.rp.on_start(now);
        self.flows.push(flow);
        self.weights.push(spec.weight);
        self.attach_conn(index, spec.transport, None);
        // Every part of a split run makes every flow, drawing what one run draws; only
        // the source's part sends it.
        if self.sends_from(spec.src as u32) {
            self.rp_changed(index);
            self.make_ready(index);
        }
        if let Some(at) = self.apps.generators[g as usize].next_after(now, self.config.duration) {
            self.queue.push(at, Event::Source { source: g, generation: 0 });
        }
    }

    /// What became of flow `i` in this run.
    pub(super) fn outcome(&self, i: usize) -> Outcome {
        let f = &self.flows[i];
        let conn = self.apps.conns.get(f.conn as usize);
        Outcome {
            counters: f.counters.clone(),
            completed_at: f.completed_at,
            retransmits: conn.map_or(0, |c| c.sender.retransmits),
            timeouts: conn.map_or(0, |c| c.sender.timeouts),
        }
    }

    /// What each arrival source's flows did.
    pub(super) fn arrival_reports(&self, in_network: &[u64]) -> Vec<ArrivalReport> {
        self.arrival_reports_of(|i| self.outcome(i), in_network)
    }

    /// What each arrival source's flows did, `outcome` telling what became of each
    /// flow and `in_network` how many of its frames are still on their way.
    pub(super) fn arrival_reports_of(&self, outcome: impl Fn(usize) -> Outcome, in_network: &[u64]) -> Vec<ArrivalReport> {
        let mut reports: Vec<ArrivalReport> =
            self.apps.generators.iter().map(|g| ArrivalReport { name: g.spec.name.clone(), ..ArrivalReport::default() }).collect();
        for (i, f) in self.flows.iter().enumerate() {
            let Some(g) = f.generator else { continue };
            let Outcome { counters, completed_at, retransmits, timeouts } = outcome(i);
            let r = &mut reports[g as usize];
            r.flows += 1;
            r.sent_frames += counters.sent_frames;
            r.delivered_frames += counters.delivered_frames;
            r.delivered_bytes += counters.delivered_bytes;
            r.dropped_frames += counters.dropped_frames;
            r.in_network_frames += in_network[i];
            let ideal_s = self.ideal_completion(i).map_or(0.0, |t| t.as_secs_f64());
            let completion_s = completed_at.map(|done| (done - f.start).as_secs_f64());
            if let Some(fct) = completion_s {
                r.completion_s.push(fct);
                r.completed_bytes.push(f.size().unwrap_or(0));
                r.ideal_s.push(ideal_s);
            }
            r.each.push(ArrivedFlow {
                start_s: f.start.as_secs_f64(),
                bytes: f.size().unwrap_or(0),
                delivered_bytes: counters.delivered_bytes,
                completion_s,
                ideal_s,
            });
            r.retransmits += retransmits;
            r.timeouts += timeouts;
        }
        reports
    }
}
