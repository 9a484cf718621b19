//! Each flow's weighted max-min fair share over each sample interval, beside its
//! measured throughput over the same interval.
//!
//! The shares change only when the network or the flows' demands do (a timeline entry,
//! a finite flow completing). At such a change the shares in force until then are
//! integrated over the time they held; they are recomputed, once, when time moves on.
//! So each sample reports the time average of the share over its interval, exactly.

use super::Simulation;
use crate::config::{Action, FlowKind, FlowSpec, TimelineEntry};
use crate::fairshare::{Paths, weighted_max_min};
use crate::net::Port;
use crate::traffic::Flow;
use crate::units::{Rate, Time};
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
    /// [`FairShares::take`]), bits/s.
    pub(super) fn means(&self, n: usize) -> &[f64] {
        &self.means[..n]
    }

    /// Integrates the shares up to `now`, recomputing them first, from each flow's
    /// `demand`, the ports' capacities and the flows' weights, if they are stale.
    fn integrate(&mut self, now: Time, on: &Network, demand: impl Fn(usize) -> f64) {
        if now <= self.last {
            return;
        }
        if self.dirty {
            self.demand = (0..self.paths.len()).map(demand).collect();
            for (i, (c, p)) in self.capacity.iter_mut().zip(on.ports).enumerate() {
                // A frame-rate-limited port carries at most one frame per service time.
                let per_frame = p.frame_service().as_secs_f64();
                let frames = if per_frame > 0.0 { self.frame_bits / per_frame } else { f64::INFINITY };
                let rate = on.rates.map_or(p.rate(), |r| r[i]);
                *c = rate.as_f64().min(frames);
            }
            weighted_max_min(&self.capacity, &self.paths, on.weights, &self.demand, &mut self.shares);
            self.dirty = false;
        }
        let dt = (now - self.last).0 as f64;
        for (acc, share) in self.integral.iter_mut().zip(&self.shares) {
            *acc += share * dt;
        }
        self.last = now;
    }

    /// Something the shares depend on changes at `now` (call it before the change).
    pub(super) fn change(&mut self, now: Time, on: &Network, demand: impl Fn(usize) -> f64) {
        self.integrate(now, on, demand);
        self.dirty = true;
        self.moved = 2;
    }

    /// Checks that integrating would give each mean again (debug builds).
    fn check_means_held(&self, now: Time, interval: Time) {
        let (dt, span) = ((now - self.last).0 as f64, interval.0 as f64);
        for (share, mean) in self.shares.iter().zip(&self.means) {
            assert_eq!(((0.0 + share * dt) / span).to_bits(), mean.to_bits(), "a fair share's mean held");
        }
    }

    /// At a sample at `now`: turns each flow's integral since the last sample (one
    /// `interval` ago) into its mean share over the interval, bits/s
    /// ([`FairShares::means`]), and restarts the integrals. Where nothing moved the
    /// shares since the sample before the last, the means are the last ones and
    /// nothing is integrated (at thousands of flows sampled every millisecond, the
    /// integration and division cost a few nanoseconds per event).
    pub(super) fn take(&mut self, now: Time, interval: Time, on: &Network, demand: impl Fn(usize) -> f64) {
        if self.moved == 0 {
            debug_assert!(!self.dirty);
            if cfg!(debug_assertions) {
                self.check_means_held(now, interval);
            }
            self.last = now;
            return;
        }
        self.moved -= 1;
        self.integrate(now, on, demand);
        let span = interval.0 as f64;
        for (acc, mean) in self.integral.iter_mut().zip(self.means.iter_mut()) {
            *mean = *acc / span;
            *acc = 0.0;
        }
    }
}

/// What the shares are worked out over: the ports (their capacities) and the flows'
/// weights.
pub(super) struct Network<'a> {
    /// Every port.
    pub ports: &'a [Port],
    /// Per port, its rate, where it is not the port's own (a replay moves the rates
    /// as the timeline did).
    pub rates: Option<&'a [Rate]>,
    /// Per flow, its weight.
    pub weights: &'a [f64],
}

/// What a flow would send if the network let it: nothing while it is not sending
/// (not started, stopped or complete), else what it `wants`, up to its cap.
pub(super) fn demand(wants: f64, active: bool, complete: bool, cap: Option<Rate>) -> f64 {
    if !active || complete {
        return 0.0;
    }
    wants.min(cap.map_or(f64::INFINITY, |r| r.as_f64()))
}

/// What flow `f`, configured as `spec`, sends when it sends and the network lets it.
pub(super) fn wants(f: &Flow, spec: &FlowSpec) -> f64 {
    match spec.kind {
        FlowKind::Constant => f.rp.rate().as_f64(),
        FlowKind::Greedy | FlowKind::Finite { .. } => f.line_rate.as_f64(),
        // A dynamic source is counted at its mean offered load.
        FlowKind::OnOff { .. } | FlowKind::Poisson { .. } => spec.offered_bps().unwrap_or(f64::INFINITY),
    }
}

impl Simulation {
    /// Something the shares depend on changes now, `why` (call it before the change).
    /// A part of a split run only logs it: the merge works the shares out.
    pub(super) fn fair_shares_change(&mut self, why: FairOp) {
        if self.log_fair(why) {
            return;
        }
        let (flows, specs) = (&self.flows, &self.config.flows);
        let on = Network { ports: &self.ports, rates: None, weights: &self.weights };
        self.fair.change(self.now, &on, |i| live_demand(&flows[i], &specs[i]));
    }

    /// At a sample: the fair shares' means over the interval just ended
    /// ([`FairShares::take`]). A part of a split run only logs the sample (its means
    /// stay zero, and the merge replaces them).
    pub(super) fn take_fair_shares(&mut self) {
        if self.log_fair(FairOp::Sample) {
            return;
        }
        let (flows, specs) = (&self.flows, &self.config.flows);
        let on = Network { ports: &self.ports, rates: None, weights: &self.weights };
        self.fair.take(self.now, self.sampler.interval, &on, |i| live_demand(&flows[i], &specs[i]));
    }
}

/// What flow `f` would send now if the network let it.
fn live_demand(f: &Flow, spec: &FlowSpec) -> f64 {
    demand(wants(f, spec), f.active, f.completed_at.is_some(), f.max_rate)
}

/// What moves or reads the fair shares, as each part of a split run logs it with its
/// time (a part sees only its own flows complete, so the shares are worked out again
/// after the run from every part's log: [`Replay`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum FairOp {
    /// Timeline entry `.0` is applied.
    Timeline(u32),
    /// A sample is taken.
    Sample,
    /// Configured flow `.0` completes.
    Completion(u32),
}

impl FairOp {
    /// Where the op falls among those at the same time: timeline entries, then the
    /// sample, then the network's events (`sched/mod.rs`).
    fn rank(self) -> u8 {
        match self {
            FairOp::Timeline(_) => 0,
            FairOp::Sample => 1,
            FairOp::Completion(_) => 2,
        }
    }
}

/// The configured flows' fair shares worked out from a log of what moved them, as
/// the live run works them out (the same arithmetic, in the same order).
pub(super) struct Replay {
    fair: FairShares,
    /// Per port, its rate.
    rates: Vec<Rate>,
    /// Per timeline entry, the port whose rate it sets, if it does.
    sets_rate_of: Vec<Option<u32>>,
    wants: Vec<f64>,
    active: Vec<bool>,
    cap: Vec<Option<Rate>>,
    complete: Vec<bool>,
}

impl Replay {
    /// A replay from `sim`'s state before it runs.
    pub(super) fn of(sim: &Simulation) -> Replay {
        let flows = &sim.flows[..sim.fair.paths.len()];
        let sets_rate_of = sim.changes.timeline.iter().map(|e| match e.action {
            Action::PortRate { port, .. } => sim.port_of(port),
            _ => None,
        });
        Replay {
            fair: sim.fair.clone(),
            rates: sim.ports.iter().map(|p| p.rate()).collect(),
            sets_rate_of: sets_rate_of.collect(),
            wants: flows.iter().zip(&sim.config.flows).map(|(f, spec)| wants(f, spec)).collect(),
            active: flows.iter().map(|f| f.active).collect(),
            cap: flows.iter().map(|f| f.max_rate).collect(),
            complete: flows.iter().map(|f| f.completed_at.is_some()).collect(),
        }
    }

    /// Each configured flow's mean share over each sample interval, from `log` (the
    /// first part's timeline entries and samples in the order it took them, beside
    /// every part's completions; any order within a time) and `timeline` (the
    /// entries the log names), over the ports `ports` (their rates as they were
    /// before the run) and the flows' `weights`, sampled every `interval`.
    pub(super) fn run(
        mut self,
        log: &mut [(Time, FairOp)],
        timeline: &[TimelineEntry],
        network: (&[Port], &[f64]),
        interval: Time,
    ) -> Vec<Vec<f64>> {
        sort_log(log);
        let mut series = vec![Vec::new(); self.wants.len()];
        for &(now, op) in log.iter() {
            self.step(now, op, timeline, network, interval, |means| {
                for (s, &mean) in series.iter_mut().zip(means) {
                    s.push(mean);
                }
            });
        }
        series
    }

    /// Replays `op` at `now` (see [`Replay::run`]); a sample hands every configured
    /// flow's mean share to `sampled`.
    pub(super) fn step(
        &mut self,
        now: Time,
        op: FairOp,
        timeline: &[TimelineEntry],
        (ports, weights): (&[Port], &[f64]),
        interval: Time,
        sampled: impl FnOnce(&[f64]),
    ) {
        let n = self.wants.len();
        let (fair, state) = (&mut self.fair, (&self.wants, &self.active, &self.complete, &self.cap));
        let demand = |i: usize| demand(state.0[i], state.1[i], state.2[i], state.3[i]);
        let on = &Network { ports, rates: Some(&self.rates), weights };
        match op {
            FairOp::Sample => {
                fair.take(now, interval, on, demand);
                sampled(fair.means(n));
            }
            FairOp::Completion(f) => {
                fair.change(now, on, demand);
                self.complete[f as usize] = true;
            }
            FairOp::Timeline(entry) => {
                fair.change(now, on, demand);
                match timeline[entry as usize].action {
                    Action::FlowStart { flow } => self.active[flow] = true,
                    Action::FlowStop { flow } => self.active[flow] = false,
                    Action::FlowMaxRate { flow, rate } => self.cap[flow] = rate,
                    Action::PortRate { rate, .. } => {
                        if let Some(p) = self.sets_rate_of[entry as usize] {
                            self.rates[p as usize] = rate;
                        }
                    }
                    Action::SchemeParam { .. } => {}
                }
            }
        }
    }
}

/// Puts a log of what moved or read the fair shares in the order one run took it: by
/// time, and at one time timeline entries, then the sample, then completions (stable:
/// the first part's entries keep their order).
pub(super) fn sort_log(log: &mut [(Time, FairOp)]) {
    log.sort_by_key(|&(t, op)| (t, op.rank()));
}
