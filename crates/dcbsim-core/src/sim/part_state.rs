//! What a part of a split run (`parallel/`) keeps of the state every part is built
//! with: every part holds every port and flow (events and frames name them by index),
//! but the merged report takes each port's record from the part owning it and each
//! flow's from the parts of its two ends, so a part records and keeps only those (of
//! a flow it receives and does not send, its delivered bytes alone).

use super::Simulation;
use crate::samples::KeepFlow;

impl Simulation {
    /// Drops, for part `id` of the split `part_of` (per node, its part), what the
    /// part never reads: the samples of the ports it does not own and of the flows
    /// with neither end in it, the queues' room of the ports it never reaches, the
    /// receive state of the connections it does not receive on. Fetches ahead only
    /// where the part's own ports and flows outgrow the caches. Call it before the
    /// run.
    pub(super) fn keep_own_state(&mut self, id: u16, part_of: &[u16]) {
        debug_assert_eq!(self.events, 0);
        let owns = |node: u32| part_of[node as usize] == id;
        let (ports, flows) = (&self.ports, &self.flows);
        let flow = |f: usize| match (owns(flows[f].src), owns(flows[f].dst)) {
            (true, _) => KeepFlow::Whole,
            (false, true) => KeepFlow::Delivered,
            (false, false) => KeepFlow::Not,
        };
        let own_ports = ports.iter().filter(|p| owns(p.node)).count();
        let own_flows = (0..flows.len()).filter(|&f| flow(f) != KeepFlow::Not).count();
        self.sampler.keep_only(|p| owns(ports[p as usize].node), flow);
        // Which ports a sample looks at follows which it samples.
        self.set_watches();
        // A port with neither end in the part never holds a frame here (a crossing
        // port whose far end is here keeps its queues: its frames arrive over it).
        for port in self.ports.iter_mut().filter(|p| !owns(p.node) && !owns(p.peer)) {
            port.release_queues();
        }
        // Segments reach a connection's receiver in its destination's part only.
        let flows = &self.flows;
        for conn in self.apps.conns.iter_mut().filter(|c| !owns(flows[c.flow as usize].dst)) {
            conn.receiver.release();
        }
        self.fetch_ahead = super::build::outgrows_caches(own_ports, own_flows);
    }

    /// Drops, once the part has run to the end, what its report never reads: the
    /// events still pending, in buckets that kept the room of their busiest turn.
    /// Freed by the part's own thread, the first part's room is taken again by the
    /// merge, which runs on that thread and would otherwise add to the peak.
    pub(super) fn end_part(&mut self) {
        self.queue = crate::sched::EventQueue::new();
    }
}
