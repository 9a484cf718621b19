//! Dynamic sources at work: ON-OFF bursts and Poisson-arriving transfers feeding one
//! flow's backlog, started and stopped with their flow.
//!
//! An ON-OFF source adds its first burst when its flow starts; once the burst's last
//! frame has left the rate limiter (its start plus its size at the flow's rate) an OFF
//! period is drawn, after which the next burst is added. A Poisson source adds a
//! transfer at each arrival while its flow is active. Stopping the flow makes the
//! source's pending event stale; starting it again resumes the backlog, and an ON-OFF
//! source with no burst under way starts one at once.

use super::Simulation;
use crate::config::{ConfigError, FlowKind, FlowSpec};
use crate::sched::Event;
use crate::traffic::NO_MARK;
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
    /// Flow `f` starts (again): its source, if any, begins producing.
    pub(super) fn start_source(&mut self, f: u32) {
        let Some(s) = self.flows[f as usize].source else { return };
        let source = &mut self.sources[s as usize];
        source.generation = source.generation.wrapping_add(1);
        if !source.is_on_off() {
            let at = self.now + source.next_gap();
            self.schedule_source(s, at);
        } else if source.mark() == NO_MARK {
            self.produce(s);
        }
    }

    /// Flow `f` stops: its source's pending event goes stale.
    pub(super) fn stop_source(&mut self, f: u32) {
        if let Some(s) = self.flows[f as usize].source {
            let source = &mut self.sources[s as usize];
            source.generation = source.generation.wrapping_add(1);
        }
    }

    /// An OFF period ends or a transfer arrives at source `s`.
    pub(super) fn on_source(&mut self, s: u32, generation: u32) {
        let source = &mut self.sources[s as usize];
        if source.generation != generation {
            return;
        }
        if !source.is_on_off() {
            let at = self.now + source.next_gap();
            self.schedule_source(s, at);
        }
        let f = self.produce(s);
        let flow = &self.flows[f as usize];
        if !flow.in_ring && !flow.wake_pending {
            self.make_ready(f);
        }
    }

    /// Source `s` adds a burst or transfer to its flow's backlog; returns the flow.
    fn produce(&mut self, s: u32) -> u32 {
        let source = &mut self.sources[s as usize];
        let flow = &mut self.flows[source.flow as usize];
        let bytes = source.produce(self.now, flow.counters.sent_bytes + flow.remaining);
        flow.remaining += bytes;
        flow.source_mark = source.mark();
        source.flow
    }

    fn schedule_source(&mut self, s: u32, at: Time) {
        let generation = self.sources[s as usize].generation;
        self.queue.push(at, Event::Source { source: s, generation });
    }

    /// Flow `f`'s sent bytes have passed its source's mark, the last frame just handed
    /// to NIC `nic`: bursts or transfers complete, and after a burst the OFF period starts.
    #[cold]
    #[inline(never)]
    pub(super) fn source_progress(&mut self, f: u32, nic: u32) {
        let left = self.ports[nic as usize].busy_until;
        let flow = &mut self.flows[f as usize];
        let Some(s) = flow.source else { return };
        let source = &mut self.sources[s as usize];
        flow.source_mark = source.on_sent(flow.counters.sent_bytes, left);
        if source.is_on_off() && flow.remaining == 0 {
            let at = flow.next_allowed() + source.next_gap();
            self.schedule_source(s, at);
        }
    }
}
