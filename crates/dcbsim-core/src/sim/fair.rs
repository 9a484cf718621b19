//! Each flow's weighted max-min fair share at the samples, beside its measured rate.

use super::Simulation;
use crate::config::FlowKind;
use crate::fairshare::{Paths, weighted_max_min};

/// The fair shares of the configured flows, recomputed only after a change.
#[derive(Clone, Debug, Default)]
pub struct FairShares {
    paths: Paths,
    demand: Vec<f64>,
    capacity: Vec<f64>,
    /// The last computed shares, bits/s.
    pub shares: Vec<f64>,
    /// Whether something the shares depend on changed since they were computed.
    pub dirty: bool,
}

impl FairShares {
    /// Shares for flows along `paths`, computed at the first sample.
    pub fn new(paths: Paths, ports: usize) -> FairShares {
        let n = paths.len();
        FairShares { paths, demand: vec![0.0; n], capacity: vec![0.0; ports], shares: vec![0.0; n], dirty: true }
    }
}

impl Simulation {
    /// What flow `i` would send if the network let it: 0 when it is not sending.
    fn demand(&self, i: usize) -> f64 {
        let f = &self.flows[i];
        if !f.active || f.completed_at.is_some() {
            return 0.0;
        }
        let cap = f.max_rate.map_or(f64::INFINITY, |r| r.as_f64());
        let wanted = match self.config.flows[i].kind {
            FlowKind::Constant => f.rp.rate().as_f64(),
            FlowKind::Greedy | FlowKind::Finite { .. } => f.line_rate.as_f64(),
        };
        wanted.min(cap)
    }

    /// Brings the fair shares up to date if anything changed.
    pub(super) fn update_fair_shares(&mut self) {
        if !self.fair.dirty {
            return;
        }
        let demand: Vec<f64> = (0..self.fair.paths.len()).map(|i| self.demand(i)).collect();
        let fair = &mut self.fair;
        fair.demand = demand;
        for (c, p) in fair.capacity.iter_mut().zip(&self.ports) {
            *c = p.rate.as_f64();
        }
        weighted_max_min(&fair.capacity, &fair.paths, &self.weights, &fair.demand, &mut fair.shares);
        fair.dirty = false;
    }
}
