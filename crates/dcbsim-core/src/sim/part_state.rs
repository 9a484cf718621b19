//! What a part of a split run (`parallel.rs`) keeps of the state every part is built
//! with: every part holds every port and flow (events and frames name them by index),
//! but the merged report takes each port's record from the part owning it and each
//! flow's from the parts of its two ends, so a part records and keeps only those.

use super::Simulation;

impl Simulation {
    /// Drops, for part `id` of the split `part_of` (per node, its part), what the
    /// part never reads: the samples of the ports it does not own and of the flows
    /// with neither end in it. Call it before the run.
    pub(super) fn keep_own_state(&mut self, id: u16, part_of: &[u16]) {
        debug_assert_eq!(self.events, 0);
        let owns = |node: u32| part_of[node as usize] == id;
        let (ports, flows) = (&self.ports, &self.flows);
        self.sampler.keep_only(|p| owns(ports[p as usize].node), |f| owns(flows[f].src) || owns(flows[f].dst));
        // Which ports a sample looks at follows which it samples.
        self.set_watches();
    }
}
