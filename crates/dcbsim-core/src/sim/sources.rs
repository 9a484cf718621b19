//! Dynamic sources at work: ON-OFF bursts and Poisson-arriving transfers feeding one
//! flow's backlog, started and stopped with their flow.
//!
//! Both are open-loop generators, as a traffic generator over a NIC queue is: what they
//! offer does not depend on what the network lets the flow send. An ON-OFF source puts
//! a burst in the backlog when its flow starts and then every ON (the burst's time at
//! line rate) plus a drawn OFF period; a burst that comes while the previous one is
//! still being sent (a reaction point slowed the flow) waits behind it, so the source
//! offers its load whatever its rate, and what it gets is the smaller of the two. A
//! Poisson source adds a transfer at each arrival while its flow is active. Stopping
//! the flow makes the source's pending event stale; starting it again resumes the
//! backlog, and an ON-OFF source with no burst under way starts one at once.

use super::Simulation;
use crate::config::{ConfigError, FlowKind, FlowSpec};
use crate::sched::Event;
use crate::units::{Rate, Time};

/// Checks the source parameters of flow `i` whose host sends at `line_rate`.
pub(super) fn check(i: usize, spec: &FlowSpec, line_rate: Rate) -> Result<(), ConfigError> {
    match &spec.kind {
        FlowKind::OnOff { burst, load, .. } => {
            if *burst == 0 {
                return Err(ConfigError::new(format!("flows[{i}].burst_bytes"), "must be > 0"));
            }
            if load.0 == 0 || *load >= line_rate {
                let msg = format!("must be > 0 and below the source's line rate ({line_rate}); the load {load} cannot be met");
                return Err(ConfigError::new(format!("flows[{i}].load_gbps"), msg));
            }
        }
        FlowKind::Poisson { rate_per_s, size } => {
            if !(rate_per_s.is_finite() && *rate_per_s > 0.0) {
                return Err(ConfigError::new(format!("flows[{i}].rate_per_s"), "must be > 0"));
            }
            size.check().map_err(|m| ConfigError::new(format!("flows[{i}].size_bytes"), m))?;
        }
        _ => {}
    }
    Ok(())
}

impl Simulation {
    /// The dynamic source of flow `f`, if it has one.
    pub(super) fn source_of(&self, f: u32) -> Option<u32> {
        self.apps.source_of.get(f as usize).copied().flatten()
    }

    /// Flow `f` starts (again): its source, if any, begins producing.
    pub(super) fn start_source(&mut self, f: u32) {
        let Some(s) = self.source_of(f) else { return };
        let source = &mut self.apps.sources[s as usize];
        source.generation = source.generation.wrapping_add(1);
        let at = self.now + source.next_gap();
        if source.is_on_off() && !source.is_sending() {
            self.produce(s);
        }
        self.schedule_source(s, at);
    }

    /// Flow `f` stops: its source's pending event goes stale.
    pub(super) fn stop_source(&mut self, f: u32) {
        if let Some(s) = self.source_of(f) {
            let source = &mut self.apps.sources[s as usize];
            source.generation = source.generation.wrapping_add(1);
        }
    }

    /// Traffic source `id` acts: ids below the number of arrival sources are theirs,
    /// then come the dynamic sources, then the incast application's request, then
    /// each incast server's delayed answer.
    pub(super) fn on_source_event(&mut self, id: u32, generation: u32) {
        match id.checked_sub(self.apps.generators.len() as u32) {
            None => {
                // Every part of a split run draws every arrival (`on_arrival`).
                self.shared_events += 1;
                self.on_arrival(id)
            }
            Some(s) if (s as usize) < self.apps.sources.len() => self.on_source(s, generation),
            Some(s) if s as usize == self.apps.sources.len() => self.incast_request(),
            Some(s) => self.incast_answer(s - self.apps.sources.len() as u32 - 1),
        }
    }

    /// The event id of the incast application (after every other source).
    pub(super) fn incast_source_id(&self) -> u32 {
        (self.apps.generators.len() + self.apps.sources.len()) as u32
    }

    /// An OFF period ends or a transfer arrives at source `s`.
    fn on_source(&mut self, s: u32, generation: u32) {
        let source = &mut self.apps.sources[s as usize];
        if source.generation != generation {
            return;
        }
        let at = self.now + source.next_gap();
        self.schedule_source(s, at);
        let f = self.produce(s);
        let flow = &self.flows[f as usize];
        if !flow.in_ring && !flow.wake_pending {
            self.make_ready(f);
        }
    }

    /// Source `s` starts a burst or a transfer arrives; returns the flow.
    fn produce(&mut self, s: u32) -> u32 {
        let source = &mut self.apps.sources[s as usize];
        let bytes = source.produce(self.now);
        if bytes > 0 {
            self.flows[source.flow as usize].remaining = bytes;
        }
        source.flow
    }

    fn schedule_source(&mut self, s: u32, at: Time) {
        let generation = self.apps.sources[s as usize].generation;
        let id = self.apps.generators.len() as u32 + s;
        self.queue.push(at, Event::Source { source: id, generation });
    }

    /// Flow `f`'s backlog has emptied with the frame just handed to NIC `nic`: if a
    /// dynamic source feeds it, its burst or transfer completes and the next waiting
    /// one follows.
    #[cold]
    #[inline(never)]
    pub(super) fn transfer_sent(&mut self, f: u32, nic: u32) {
        let Some(s) = self.source_of(f) else { return };
        let left = self.ports[nic as usize].busy_until;
        let flow = &mut self.flows[f as usize];
        let source = &mut self.apps.sources[s as usize];
        flow.remaining = source.complete(left);
        if flow.remaining > 0 {
            self.after_send(f, nic);
        }
    }
}
