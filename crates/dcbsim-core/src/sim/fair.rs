//! Each flow's weighted max-min fair share over each sample interval, beside its
//! measured throughput over the same interval.
//!
//! The shares change only when the network or the flows' demands do (a timeline entry,
//! a finite flow completing). At such a change the shares in force until then are
//! integrated over the time they held; they are recomputed, once, when time moves on.
//! So each sample reports the time average of the share over its interval, exactly.

use super::Simulation;
use crate::config::FlowKind;
use crate::fairshare::{Paths, weighted_max_min};
use crate::units::Time;
use std::sync::Arc;

/// The fair shares of the configured flows and their integrals since the last sample.
#[derive(Clone, Debug, Default)]
pub struct FairShares {
    /// Shared by the parts of a split run.
    paths: Arc<Paths>,
    demand: Vec<f64>,
    capacity: Vec<f64>,
    /// The largest frame of the configured flows, bits: with a port's per-frame
    /// service time it bounds the port's capacity.
    frame_bits: f64,
    shares: Vec<f64>,
    /// Per flow, ∫ share dt since the last sample, bits/s × ps.
    integral: Vec<f64>,
    /// Until when the integrals are taken.
    last: Time,
    /// Whether something the shares depend on changed since they were computed.
    dirty: bool,
    /// Per flow, its mean share over the last sample's interval, bits/s.
    means: Vec<f64>,
    /// Samples to come whose means must be worked out afresh: the first, and the two
    /// after a change (the interval the change falls in, and the first whole one
    /// after it). Otherwise the shares held over the interval and the one before,
    /// and every mean is the last one again, to the bit.
    moved: u8,
}

impl FairShares {
    /// Shares for flows along `paths`, through a network of `ports` ports, the flows'
    /// largest frame being `frame_bytes`.
    pub fn new(paths: Arc<Paths>, ports: usize, frame_bytes: u32) -> FairShares {
        let n = paths.len();
        FairShares {
            paths,
            demand: vec![0.0; n],
            capacity: vec![0.0; ports],
            frame_bits: frame_bytes as f64 * 8.0,
            shares: vec![0.0; n],
            integral: vec![0.0; n],
            last: Time::ZERO,
            dirty: true,
            means: vec![0.0; n],
            moved: 1,
        }
    }
}

impl FairShares {
    /// The flows' paths.
    pub(super) fn paths(&self) -> Arc<Paths> {
        self.paths.clone()
    }

    /// The first `n` flows' mean shares over the interval just taken (after
    /// [`Simulation::take_fair_shares`]), bits/s.
    pub(super) fn means(&self, n: usize) -> &[f64] {
        &self.means[..n]
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
            // A dynamic source is counted at its mean offered load.
            FlowKind::OnOff { .. } | FlowKind::Poisson { .. } => self.config.flows[i].offered_bps().unwrap_or(f64::INFINITY),
        };
        wanted.min(cap)
    }

    /// Integrates the shares up to now, recomputing them first if they are stale.
    fn integrate_fair_shares(&mut self) {
        let now = self.now;
        if now <= self.fair.last {
            return;
        }
        if self.fair.dirty {
            let demand: Vec<f64> = (0..self.fair.paths.len()).map(|i| self.demand(i)).collect();
            let fair = &mut self.fair;
            fair.demand = demand;
            for (c, p) in fair.capacity.iter_mut().zip(&self.ports) {
                // A frame-rate-limited port carries at most one frame per service time.
                let per_frame = p.frame_service().as_secs_f64();
                let frames = if per_frame > 0.0 { fair.frame_bits / per_frame } else { f64::INFINITY };
                *c = p.rate().as_f64().min(frames);
            }
            weighted_max_min(&fair.capacity, &fair.paths, &self.weights, &fair.demand, &mut fair.shares);
            fair.dirty = false;
        }
        let fair = &mut self.fair;
        let dt = (now - fair.last).0 as f64;
        for (acc, share) in fair.integral.iter_mut().zip(&fair.shares) {
            *acc += share * dt;
        }
        fair.last = now;
    }

    /// Checks that integrating would give each mean again (debug builds).
    fn check_means_held(&self) {
        let (dt, span) = ((self.now - self.fair.last).0 as f64, self.sampler.interval.0 as f64);
        for (share, mean) in self.fair.shares.iter().zip(&self.fair.means) {
            assert_eq!(((0.0 + share * dt) / span).to_bits(), mean.to_bits(), "a fair share's mean held");
        }
    }

    /// Something the shares depend on changes now (call it before the change).
    pub(super) fn fair_shares_change(&mut self) {
        self.integrate_fair_shares();
        self.fair.dirty = true;
        self.fair.moved = 2;
    }

    /// At a sample: turns each flow's integral since the last sample (one interval
    /// ago) into its mean share over the interval, bits/s ([`FairShares::means`]),
    /// and restarts the integrals. Where nothing moved the shares since the sample
    /// before the last, the means are the last ones and nothing is integrated (at
    /// thousands of flows sampled every millisecond, the integration and division
    /// cost a few nanoseconds per event).
    pub(super) fn take_fair_shares(&mut self) {
        if self.fair.moved == 0 {
            debug_assert!(!self.fair.dirty);
            if cfg!(debug_assertions) {
                self.check_means_held();
            }
            self.fair.last = self.now;
            return;
        }
        self.fair.moved -= 1;
        self.integrate_fair_shares();
        let span = self.sampler.interval.0 as f64;
        let fair = &mut self.fair;
        for (acc, mean) in fair.integral.iter_mut().zip(fair.means.iter_mut()) {
            *mean = *acc / span;
            *acc = 0.0;
        }
    }
}
