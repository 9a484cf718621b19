//! Where a run's events happen, window by window (built with the `part-profile`
//! feature only): the data from which a parallel run's speed-up is predicted before it
//! is built. Each event is counted at the node that handles it, in the window of its
//! time; timeline changes, samples and traffic sources, which every part of a split
//! run would handle, are counted apart.

use super::Simulation;
use crate::sched::Event;
use crate::units::Time;

/// Events per node per window.
#[derive(Clone, Debug)]
pub struct EventProfile {
    /// The window's length.
    pub window: Time,
    /// Nodes.
    pub nodes: usize,
    /// `counts[w * nodes + n]`: events at node `n` in window `w`.
    pub counts: Vec<u32>,
    /// Per window, the events no single node handles (timeline, samples, sources).
    pub shared: Vec<u32>,
}

impl EventProfile {
    fn new(window: Time, nodes: usize, duration: Time) -> EventProfile {
        let windows = (duration.0 / window.0.max(1) + 1) as usize;
        EventProfile { window, nodes, counts: vec![0; windows * nodes], shared: vec![0; windows] }
    }

    /// Windows covered.
    pub fn windows(&self) -> usize {
        self.shared.len()
    }

    fn count(&mut self, t: Time, node: Option<u32>) {
        let w = ((t.0 / self.window.0.max(1)) as usize).min(self.shared.len() - 1);
        match node {
            Some(n) => self.counts[w * self.nodes + n as usize] += 1,
            None => self.shared[w] += 1,
        }
    }
}

impl Simulation {
    /// Starts counting events per node in windows of `window`.
    pub fn profile_events(&mut self, window: Time) {
        self.profile = Some(Box::new(EventProfile::new(window, self.config.nodes.len(), self.config.duration)));
    }

    /// The events counted so far, if counting.
    pub fn event_profile(&self) -> Option<&EventProfile> {
        self.profile.as_deref()
    }

    /// Counts `event`, due at `t`, at the node that handles it.
    pub(super) fn profile_event(&mut self, t: Time, event: Event) {
        let node = match event {
            Event::LinkArrival { port } => Some(self.ports[port as usize].peer),
            Event::PortFree { port } | Event::PauseEnd { port, .. } => Some(self.ports[port as usize].node),
            Event::FlowWake { flow, .. } | Event::RpTimer { flow, .. } => Some(self.flows[flow as usize].src),
            // A connection's timer is its sender's (a delayed ACK's, at the receiver,
            // is counted there too: a rough share of a DCTCP run's events).
            Event::ConnTimer { conn, .. } => Some(self.flows[self.apps.conns[conn as usize].flow as usize].src),
            Event::NotificationReady { slot } => Some(self.notes.pending[slot as usize].0),
            Event::Timeline { .. } | Event::Sample | Event::Source { .. } => None,
        };
        if let Some(p) = self.profile.as_mut() {
            p.count(t, node);
        }
    }
}
