//! The sending side: hosts serving their flows round robin under rate limiters,
//! reaction-point updates, timeline entries and periodic samples.

use super::Simulation;
use super::fair::FairOp;
use crate::config::{Action, PortRef};
use crate::packet::{Packet, PacketKind};
use crate::sched::Event;
use crate::traffic::{ACKED, NO_CONN};
use crate::units::Time;

impl Simulation {
    /// The NIC of host `node` may send: control frames first, then the next ready flow.
    pub(super) fn host_send(&mut self, node: u32) {
        let now = self.now;
        let nic = self.hosts[node as usize].as_ref().expect("a host").nic;
        let port = &mut self.ports[nic as usize];
        if port.busy_until > now {
            self.nic_wake(nic);
            return;
        }
        if port.has_queued() {
            if let Some(pkt) = port.dequeue(now) {
                self.transmit(nic, pkt);
                self.nic_wake(nic);
                return;
            }
        }
        let paused = port.paused;
        while let Some(f) = self.hosts[node as usize].as_mut().expect("a host").ready.pop_front() {
            if self.fetch_ahead {
                // The flow served after this one, a frame's time from now.
                if let Some(&next) = self.hosts[node as usize].as_ref().expect("a host").ready.front() {
                    self.flows[next as usize].fetch();
                }
            }
            let flow = &mut self.flows[f as usize];
            if paused != 0 && paused & (1 << (flow.priority & 7)) != 0 {
                // PFC holds the flow's priority: it waits, still in the ring.
                self.hosts[node as usize].as_mut().expect("a host").parked.push(f);
                continue;
            }
            flow.in_ring = false;
            if !flow.has_backlog() {
                continue;
            }
            let allowed = flow.next_allowed();
            if allowed > now {
                self.schedule_wake(f, allowed);
                continue;
            }
            self.send_frame(f, nic);
            break;
        }
        self.nic_wake(nic);
    }

    /// Flow `f` puts its next frame on the idle NIC `nic` now.
    #[inline]
    pub(super) fn send_frame(&mut self, f: u32, nic: u32) {
        self.send_frame_inline(f, nic);
    }

    /// [`Simulation::send_frame`], always inlined: early sending's one frame per
    /// event does without the call.
    #[inline(always)]
    pub(super) fn send_frame_inline(&mut self, f: u32, nic: u32) {
        let now = self.now;
        let conn = self.flows[f as usize].conn;
        let (seq, bytes, ect) = if conn == NO_CONN {
            (0, self.flows[f as usize].take_frame(now), false)
        } else if conn == ACKED {
            self.send_probed(f, nic);
            return;
        } else {
            self.take_segment(f, conn, now)
        };
        let flow = &mut self.flows[f as usize];
        let ect = ect | flow.ecn_capable;
        let quiet = conn == NO_CONN && !flow.is_finite();
        let pkt = Packet::new(f, bytes, flow.dst, flow.priority, PacketKind::Data { seq, ect, ce: false, quiet });
        let changed = flow.reacts && flow.rp.on_sent(now, bytes);
        self.transmit(nic, pkt);
        if changed {
            self.rp_changed(f);
        }
        self.after_send(f, nic);
    }

    /// [`Simulation::send_frame_inline`] for a flow whose frames are acknowledged: its
    /// next frame carries a probe (and its scheme's header). Kept out of line and cold,
    /// behind the test of `conn` the other flows' frames make anyway.
    #[cold]
    #[inline(never)]
    fn send_probed(&mut self, f: u32, nic: u32) {
        let now = self.now;
        let bytes = self.flows[f as usize].take_frame(now);
        let (probe, wire) = self.probe_frame(f, bytes);
        let flow = &mut self.flows[f as usize];
        let kind = PacketKind::Data { seq: probe, ect: flow.ecn_capable, ce: false, quiet: false };
        let pkt = Packet::new(f, wire, flow.dst, flow.priority, kind);
        let changed = flow.reacts && flow.rp.on_sent(now, bytes);
        self.transmit(nic, pkt);
        if changed {
            self.rp_changed(f);
        }
        self.after_send(f, nic);
    }

    /// Makes sure the NIC is called again when it frees, if anything waits for it.
    pub(super) fn nic_wake(&mut self, nic: u32) {
        let port = &self.ports[nic as usize];
        let waiting = port.has_eligible() || !self.hosts[port.node as usize].as_ref().expect("a host").ready.is_empty();
        if waiting && !port.free_pending {
            let at = port.busy_until.max(self.now);
            self.ports[nic as usize].free_pending = true;
            self.queue.push(at, Event::PortFree { port: nic });
        }
    }

    /// After flow `f` sent a frame: back into the ring if its limiter allows a frame by
    /// the time the NIC frees, else a wake-up when it does. A backlog that has just
    /// emptied goes to the flow's dynamic source, if any. (Always inlined: it is on
    /// every frame's path, and `transfer_sent`, never inlined, closes the cycle.)
    #[inline(always)]
    pub(super) fn after_send(&mut self, f: u32, nic: u32) {
        let flow = &mut self.flows[f as usize];
        if !flow.has_backlog() {
            if flow.remaining == 0 {
                self.transfer_sent(f, nic);
            }
            return;
        }
        if flow.in_ring || flow.wake_pending {
            return;
        }
        let allowed = flow.next_allowed();
        if allowed <= self.ports[nic as usize].busy_until {
            flow.in_ring = true;
            let src = flow.src as usize;
            self.hosts[src].as_mut().expect("a host").ready.push_back(f);
        } else if !self.defer_to_arrival(f, nic, allowed) {
            self.schedule_wake(f, allowed);
        }
    }

    pub(super) fn schedule_wake(&mut self, f: u32, at: Time) {
        let flow = &mut self.flows[f as usize];
        flow.wake_generation = flow.wake_generation.wrapping_add(1);
        flow.wake_pending = true;
        let generation = flow.wake_generation;
        self.queue.push(at.max(self.now), Event::FlowWake { flow: f, generation });
    }

    /// Flow `f` may be able to send: put it in its host's ring, or wait for its limiter.
    pub(super) fn make_ready(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if !flow.has_backlog() || flow.in_ring {
            return;
        }
        let allowed = flow.next_allowed();
        if allowed > self.now {
            self.schedule_wake(f, allowed);
            return;
        }
        let node = flow.src;
        let host = self.hosts[node as usize].as_mut().expect("a host");
        let nic = host.nic;
        let port = &self.ports[nic as usize];
        let nic_idle = port.busy_until <= self.now && !port.free_pending;
        if nic_idle && host.ready.is_empty() && !port.has_queued() && port.paused == 0 {
            // Fast path: nobody else waits for the NIC.
            self.send_frame(f, nic);
            self.nic_wake(nic);
            return;
        }
        self.flows[f as usize].in_ring = true;
        host.ready.push_back(f);
        if nic_idle {
            self.host_send(node);
        } else {
            self.nic_wake(nic);
        }
    }

    /// The reaction point (or the cap) of flow `f` may have changed its rate or timer.
    pub(super) fn rp_changed(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let rate_changed = flow.refresh_rate();
        let timer = flow.rp.timer();
        if timer != flow.timer_at {
            flow.timer_generation = flow.timer_generation.wrapping_add(1);
            flow.timer_at = timer;
            if let Some(at) = timer {
                let generation = flow.timer_generation;
                self.queue.push(at.max(now), Event::RpTimer { flow: f, generation });
            }
        }
        let flow = &mut self.flows[f as usize];
        if !rate_changed || flow.in_ring {
            return;
        }
        if flow.has_backlog() {
            let at = flow.next_allowed();
            self.schedule_wake(f, at);
        } else {
            flow.wake_pending = false;
        }
    }

    pub(super) fn port_of(&self, r: PortRef) -> Option<u32> {
        self.ports.iter().position(|p| p.node as usize == r.node && p.peer as usize == r.peer).map(|p| p as u32)
    }

    /// Applies timeline entry `entry`.
    pub(super) fn apply(&mut self, entry: usize) {
        self.fair_shares_change(FairOp::Timeline(entry as u32));
        match self.changes.timeline[entry].action.clone() {
            Action::PortRate { port, rate } => {
                if let Some(p) = self.port_of(port) {
                    self.untime_port(p);
                    self.ports[p as usize].set_rate(rate);
                }
            }
            // Another part of a split run sends it: only what every part reads (fair
            // shares) changes here.
            Action::FlowStart { flow } if !self.sends(entry) => self.flows[flow].active = true,
            Action::FlowStop { flow } if !self.sends(entry) => self.flows[flow].active = false,
            Action::FlowMaxRate { flow, rate } if !self.sends(entry) => self.flows[flow].max_rate = rate,
            Action::FlowStart { flow } => {
                let f = &mut self.flows[flow];
                let was_active = std::mem::replace(&mut f.active, true);
                if f.rp.on_start(self.now) {
                    self.rp_changed(flow as u32);
                }
                if !was_active {
                    self.start_source(flow as u32);
                }
                self.make_ready(flow as u32);
            }
            Action::FlowStop { flow } => {
                let f = &mut self.flows[flow];
                f.active = false;
                f.wake_pending = false;
                self.stop_source(flow as u32);
            }
            Action::FlowMaxRate { flow, rate } => {
                self.flows[flow].max_rate = rate;
                self.rp_changed(flow as u32);
            }
            Action::SchemeParam { .. } => self.reconfigure_scheme(entry),
        }
    }

    /// Puts the scheme's configuration after timeline entry `entry` (checked when the
    /// run was built) in force, at every congestion and reaction point.
    fn reconfigure_scheme(&mut self, entry: usize) {
        let Ok(k) = self.changes.scheme.binary_search_by_key(&(entry as u32), |&(e, _)| e) else { return };
        let scheme = self.changes.scheme[k].1.clone();
        for port in self.ports.iter_mut() {
            if let Some(cp) = port.cp.as_mut() {
                scheme.reconfigure_cp(cp);
            }
        }
        for f in 0..self.flows.len() {
            scheme.reconfigure_rp(&mut self.flows[f].rp);
            // A part of a split run wakes only the flows it sends.
            if self.sends_from(self.flows[f].src) {
                self.rp_changed(f as u32);
            }
        }
        self.notes.receiver_answer = scheme.receiver_answer();
        // The flows that run this scheme take its acknowledgement sizes (HPCC's INT
        // header grows with `int_hops`).
        for f in 0..self.flows.len() {
            if self.flows[f].acked() && self.spec_of(f).scheme.is_none_or(|n| n == scheme.name()) {
                self.acking.register(f as u32, scheme.acks());
            }
        }
        std::sync::Arc::make_mut(&mut self.config).scheme = scheme;
    }

    /// Takes the periodic sample and schedules the next one.
    pub(super) fn sample(&mut self) {
        self.sampler.begin(self.now);
        self.catch_up_watched();
        let ports = &self.ports;
        self.sampler.record_queues(self.watched.iter().map(|&p| (p, ports[p as usize].queued_bytes)));
        self.take_fair_shares();
        self.deliver_quiet(self.now);
        let n = self.config.flows.len();
        let (now, conns, source_of) = (self.now, &self.apps.conns, &self.apps.source_of[..n]);
        let fair = self.fair.means(n);
        let s = &mut self.sampler;
        let all = &self.flows[..n];
        let record = |f: usize, s: &mut crate::monitor::Sampler| {
            let flow = &all[f];
            let (rate, delivered, sent, fair) = flow_sample(flow, source_of[f].is_some(), now, fair[f]);
            record_one(s, flow, conns, rate, delivered, sent, fair);
        };
        let kept = s.record_kept_flows(record, |f| all[f].counters.delivered_bytes);
        if kept {
            self.sampler.end();
            self.schedule_sample();
            return;
        }
        let flows = all.iter().enumerate().zip(source_of).zip(fair);
        let rows = flows.map(|(((i, flow), source), &fair)| {
            if let Some(ahead) = all.get(i + SAMPLE_FETCH_AHEAD) {
                ahead.fetch_sampled();
            }
            flow_sample(flow, source.is_some(), now, fair)
        });
        if s.plain_flows() {
            s.record_plain_flows(rows);
            self.sampler.end();
            self.schedule_sample();
            return;
        }
        for (flow, (rate, delivered, sent, fair)) in self.flows[..n].iter().zip(rows) {
            record_one(s, flow, conns, rate, delivered, sent, fair);
        }
        self.sampler.end();
        self.schedule_sample();
    }

    /// Schedules the next sample, if it falls within the run.
    fn schedule_sample(&mut self) {
        let next = self.sampler.next_time();
        if next <= self.config.duration {
            self.queue.push(next, Event::Sample);
        }
    }
}

/// Records the sample of flow `flow`: its rate, delivered and sent bytes and fair
/// share, then its window and α over a transport, or, its frames acknowledged, its
/// window and RTT.
#[inline]
fn record_one(
    s: &mut crate::monitor::Sampler,
    flow: &crate::traffic::Flow,
    conns: &[super::transport::Conn],
    rate: f64,
    delivered: u64,
    sent: u64,
    fair: f64,
) {
    if flow.acked() {
        record_acked(s, flow, rate, delivered, sent, fair);
        return;
    }
    s.record_flow(rate, delivered, sent, fair);
    if flow.conn != NO_CONN {
        let conn = &conns[flow.conn as usize];
        s.record(conn.sender.cwnd());
        if conn.ect {
            s.record(conn.sender.alpha());
        }
    }
}

/// Records the sample of a flow whose frames are acknowledged: its reaction point's
/// rate while it sends (a window that is full at the sample's instant stops the flow,
/// not its pace), its window and its last RTT (NaN where it has none).
fn record_acked(s: &mut crate::monitor::Sampler, flow: &crate::traffic::Flow, rate: f64, delivered: u64, sent: u64, fair: f64) {
    let pace = if rate == 0.0 && flow.active && flow.remaining != 0 { flow.rp.pacing_rate().as_f64() } else { rate };
    s.record_flow(pace, delivered, sent, fair);
    s.record(flow.rp.window_bytes().unwrap_or(f64::NAN));
    s.record(flow.rp.last_rtt().map_or(f64::NAN, |t| t.as_secs_f64() * 1e6));
}

/// How many flows ahead of the one it records a sample prefetches the line it reads.
/// (At 4,096 senders sampled every millisecond, half the pass's time was the wait
/// for each flow's line; 16 ahead, the run took 0.95-0.96 of the time, 32 and 64
/// ahead 0.97-0.98, five alternate rounds.)
const SAMPLE_FETCH_AHEAD: usize = 16;

/// What a sample records of a flow: its rate (0 when it is not sending; a dynamic
/// source keeps its reaction point's rate between bursts), the bytes delivered and sent
/// by `now`, and its mean fair share over the interval.
#[inline]
fn flow_sample(flow: &crate::traffic::Flow, has_source: bool, now: Time, fair: f64) -> (f64, u64, u64, f64) {
    let sending = flow.active && (flow.remaining != 0 || has_source);
    let rate = if sending { flow.rate.as_f64() } else { 0.0 };
    (rate, flow.counters.delivered_bytes, flow.sent_bytes_at(now), fair)
}
