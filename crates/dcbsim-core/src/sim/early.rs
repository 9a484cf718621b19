//! Early sending: a host whose one flow nothing can disturb sends each frame when its
//! previous frame reaches the far end of the link, not at a wake-up of its own.
//!
//! A fixed-rate flow without a transport, a dynamic source or a flow size, alone on
//! a host linked to a switch that receives nothing it must answer (no TCP, DCQCN or
//! finite flow ends there), in a run without PFC, sends at times its own state alone
//! decides: the last frame's start, its size, the rate, its own jitter stream.
//! Nothing that happens between two of its frames can change when the next one goes.
//! So when the next frame is due no earlier than the current one's arrival at the
//! switch, the host hands it to its NIC within that arrival event, at the frame's own
//! time: one event per frame instead of two. The NIC then holds a frame whose start
//! lies ahead of the clock until its time comes.
//!
//! A flow under a reaction point is as undisturbed when every congestion point on its
//! path is at the egress of its first switch and notifies only the arriving frame's
//! flow (not FQCN's): the flow's next frame reaches such a point only after it is
//! sent, so no notification for the flow can be made before then, and the ones
//! already made are counted until they arrive or are dropped. Its early send waits
//! at the arrival (`undisturbed_until`) for those notifications,
//! its timer, a sample and any scheme-parameter change to pass; when one falls
//! before the frame's time the flow wakes up at that time as usual. A rate change
//! before the arrival gives the flow a new wake-up, which supersedes the early send.
//!
//! What could observe that frame early is kept out: a sample counts a flow's sent
//! frames without it (see [`crate::traffic::Flow::sent_bytes_at`]); a frame is never
//! sent early past the end of the stretch being run (but for a slice of a run nobody
//! looks at between slices, [`Simulation::run_slice`]), past a timeline entry that names
//! the flow or its NIC (a stop, a restart, a cap, a capacity change), or while a port
//! is traced. Results are those of a wake-up per frame; only the order of events at
//! equal times may differ (see `run.departure_timing`, which turns this on and off
//! with departure-timed ports).

use super::Simulation;
use crate::config::Action;
use crate::traffic::NO_CONN;
use crate::units::Time;

/// [`crate::net::Port::early_flow`] of a port that does not send early.
pub(super) const NO_EARLY: u32 = u32::MAX;

impl Simulation {
    /// Chooses the NICs that send early (`on`), or none. Call before running, once
    /// every flow of the run's start exists.
    pub(super) fn set_early_sending(&mut self, on: bool) {
        self.early_flows = vec![NO_EARLY; self.ports.len()];
        for port in self.ports.iter_mut() {
            port.early_flow = NO_EARLY;
            port.early_at = Time::NEVER;
        }
        if !on || self.pfc.on {
            return;
        }
        let nodes = self.hosts.len();
        let mut senders = vec![0u32; nodes];
        let mut only = vec![NO_EARLY; nodes];
        let mut loud = vec![false; nodes];
        for (i, f) in self.flows.iter().enumerate() {
            senders[f.src as usize] += 1;
            only[f.src as usize] = i as u32;
            let quiet = f.conn == NO_CONN
                && !f.ecn_capable
                && !f.is_finite()
                && f.generator.is_none()
                && (!f.rp.reacts() || self.feedback_from_first_switch(i))
                && self.source_of(i as u32).is_none();
            if !quiet {
                loud[f.src as usize] = true;
                loud[f.dst as usize] = true;
            }
        }
        for g in &self.apps.generators {
            let flow = &g.spec().flow;
            loud[flow.src] = true;
            loud[flow.dst] = true;
        }
        let (flow_until, port_until, scheme_until) = self.early_bounds();
        for node in 0..nodes {
            let Some(host) = self.hosts[node].as_ref() else { continue };
            if senders[node] != 1 || loud[node] {
                continue;
            }
            let (f, nic) = (only[node], host.nic);
            if self.hosts[self.ports[nic as usize].peer as usize].is_some() {
                // A link straight into a host delivers quietly: no arrival event to send from.
                continue;
            }
            let reacts_until = if self.flows[f as usize].reacts { scheme_until } else { Time::NEVER };
            self.set_early_flow(nic, f);
            self.ports[nic as usize].early_until = flow_until[f as usize].min(port_until[nic as usize]).min(reacts_until);
        }
    }

    /// NIC `nic` sends flow `f` early: the port's field and the loop's copy.
    fn set_early_flow(&mut self, nic: u32, f: u32) {
        self.ports[nic as usize].early_flow = f;
        self.early_flows[nic as usize] = f;
    }

    /// Whether flow `f`'s reaction point hears only from congestion points at the
    /// egress of its first switch that notify the arriving frame's flow: its next
    /// frame reaches them only after it is sent, so once the notifications already
    /// made have arrived, nothing can reach the reaction point before that frame goes.
    fn feedback_from_first_switch(&self, f: usize) -> bool {
        let flow = &self.flows[f];
        let peer = |p: u32| self.ports[p as usize].peer;
        let Some(path) = self.routes.path(flow.src, flow.dst, f as u32, peer) else { return false };
        path.iter().enumerate().all(|(hop, &p)| match &self.ports[p as usize].cp {
            None => true,
            Some(cp) => hop == 1 && cp.notifies_arriving_flow_only(),
        })
    }

    /// How many hosts send early (see the module): none with departure timing off.
    pub fn early_senders(&self) -> usize {
        self.ports.iter().filter(|p| p.early_flow != NO_EARLY).count()
    }

    /// Per flow and per port, the first timeline entry after which the flow (or the
    /// flow a NIC sends) may no longer send early: one that stops, restarts or caps
    /// the flow (its own first start aside), or that changes the port's rate; and the
    /// first that changes a scheme parameter, which bounds reacting flows.
    fn early_bounds(&self) -> (Vec<Time>, Vec<Time>, Time) {
        let mut flows = vec![Time::NEVER; self.flows.len()];
        let mut ports = vec![Time::NEVER; self.ports.len()];
        let mut scheme = Time::NEVER;
        for e in self.changes.timeline.iter() {
            match &e.action {
                Action::FlowStart { flow } if e.at == self.flows[*flow].start => {}
                Action::FlowStart { flow } | Action::FlowStop { flow } | Action::FlowMaxRate { flow, .. } => {
                    flows[*flow] = flows[*flow].min(e.at);
                }
                Action::PortRate { port, .. } => {
                    if let Some(p) = self.port_of(*port) {
                        ports[p as usize] = ports[p as usize].min(e.at);
                    }
                }
                Action::SchemeParam { .. } => scheme = scheme.min(e.at),
            }
        }
        (flows, ports, scheme)
    }

    /// Flow `f` has just sent on NIC `nic` and may next send at `allowed`: if its
    /// host sends early, the send waits for the frame on the link to arrive instead
    /// of for a wake-up. Returns whether it does.
    #[inline(always)]
    pub(super) fn defer_to_arrival(&mut self, f: u32, nic: u32, allowed: Time) -> bool {
        let port = &mut self.ports[nic as usize];
        if port.early_flow != f || allowed >= port.early_until || allowed >= self.early_limit || self.tracing.traced {
            return false;
        }
        // Only the frame just sent is on the link: its arrival is the next one there.
        match port.link.back() {
            Some(&(last, _)) if last <= allowed && port.link.len() == 1 => {}
            _ => return false,
        }
        let flow = &mut self.flows[f as usize];
        flow.wake_generation = flow.wake_generation.wrapping_add(1);
        flow.wake_pending = true;
        port.early_at = allowed;
        port.early_generation = flow.wake_generation;
        true
    }

    /// The last frame on NIC `nic`'s link has arrived: its flow sends the next one,
    /// at that frame's own time. (Inlined into the arrival, with the send: the one
    /// event per frame of an early sender then makes no call to send.)
    #[inline(always)]
    pub(super) fn send_early(&mut self, nic: u32) {
        let port = &mut self.ports[nic as usize];
        let at = std::mem::replace(&mut port.early_at, Time::NEVER);
        let (f, generation) = (port.early_flow, port.early_generation);
        if self.flows[f as usize].wake_generation != generation {
            // Its reaction point changed the rate since: a wake-up of its own is due.
            return;
        }
        debug_assert!(self.ports[nic as usize].link.is_empty() && at >= self.now);
        if self.flows[f as usize].reacts && !self.undisturbed_until(f, at) {
            self.schedule_wake(f, at);
            return;
        }
        self.flows[f as usize].wake_pending = false;
        // The NIC is idle by then and the flow is its only sender (what make_ready's
        // fast path checks).
        let now = std::mem::replace(&mut self.now, at);
        self.send_frame_inline(f, nic);
        self.flows[f as usize].ahead = true;
        if self.flows[f as usize].in_ring {
            // Its next frame is due before the NIC frees: the NIC must call it.
            self.nic_wake(nic);
        }
        self.now = now;
    }

    /// Whether nothing can reach reacting flow `f`'s reaction point, nor read its
    /// rate, from now up to `at`: no notification on its way to it (none can be made
    /// before its next frame reaches its first switch), no timer due by then, and no
    /// sample, which would read a rate that the early frame may already have moved.
    fn undisturbed_until(&self, f: u32, at: Time) -> bool {
        let flow = &self.flows[f as usize];
        flow.notes_in_flight == 0 && flow.timer_at.is_none_or(|t| t > at) && self.sampler.next_time() > at
    }
}
