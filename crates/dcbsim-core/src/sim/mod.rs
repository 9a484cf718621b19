//! The simulation: the event loop and what each event does.
//!
//! [`Simulation::new`] (in `build.rs`) wires the network; [`Simulation::run_until`]
//! executes events in (time, event) order; [`Simulation::finish`] (in
//! `report.rs`) turns the monitors into a [`RunReport`].

mod acks;
mod arrivals;
mod build;
mod delivery;
mod early;
mod fair;
mod hops;
mod incast;
mod notification_point;
pub mod parallel;
mod part_state;
mod pfc;
#[cfg(feature = "part-profile")]
mod profile;
mod report;
mod shared_buffer;
mod sources;
mod timing;
mod trace;
mod transport;
mod watch;

use crate::cc::{Arrival, Notify};
use crate::config::{SimConfig, TimelineEntry};
use crate::monitor::Sampler;
use crate::net::pfc::NO_INGRESS;
use crate::net::{Admission, Host, Port, Routes, Watch};
use crate::packet::{Packet, PacketKind};
use crate::report::RunReport;
use crate::sched::{Event, EventQueue};
use crate::traffic::{ACKED, Flow, NO_CONN, Source};
use crate::units::Time;

#[cfg(feature = "part-profile")]
pub use profile::EventProfile;

/// How many events of the next stretch the loop fetches ahead (a few: a crowded
/// stretch, as a fat-tree's bursts make, would otherwise be read whole at every event).
const FETCH_AFTER: usize = 4;

/// How many pops ahead the loop fetches the state of an event in a crowded bucket
/// sorted whole (2 to 6 do alike).
const RUN_AHEAD: usize = 4;

/// One run of the engine, its state grouped by concern: the network and its flows
/// (which every frame touches, kept at the top), the clock and the event queue, what
/// is recorded, and the machinery of notifications, applications, PFC, traces and
/// scheduled changes.
pub struct Simulation {
    /// Shared by the parts of a split run (a timeline entry changing it makes a run's
    /// own copy first; such runs do not split).
    config: std::sync::Arc<SimConfig>,
    ports: Vec<Port>,
    /// Shared by the parts of a split run, as the routes' tables are.
    port_names: std::sync::Arc<[String]>,
    hosts: Vec<Option<Host>>,
    routes: Routes,
    flows: Vec<Flow>,
    /// Each flow's weight, beside `flows` so a congestion point reads it cheaply.
    weights: Vec<f64>,
    /// The configured flows' weighted max-min fair shares.
    fair: fair::FairShares,
    queue: EventQueue,
    sampler: Sampler,
    /// The watched ports that may hold frames (see `watch.rs`): a sample looks at
    /// these, not at every sampled or quietly delivering port.
    watched: Vec<u32>,
    /// Notifications on their way out of congestion points and receivers.
    notes: Notifications,
    /// What makes traffic besides the flows themselves: arrivals, transports, the
    /// incast application, ON-OFF and Poisson sources.
    apps: Apps,
    /// Priority-based flow control.
    pfc: PfcState,
    /// Packet traces.
    tracing: Tracing,
    /// Scheduled changes.
    changes: Changes,
    /// Per-frame acknowledgements and in-band telemetry (HPCC, TIMELY).
    acking: acks::Acking,
    /// Whether the loop reads the next event's state ahead: only where ports and
    /// flows outgrow the caches (see [`Simulation::fetch_ahead`]).
    fetch_ahead: bool,
    /// A copy of each port's [`Port::early_flow`] (both set together, by
    /// `set_early_flow` alone), beside the ports: the loop reads it to prefetch the
    /// flow of an event still on its way to the heap, before the port's own lines
    /// arrive, where the frame's path reads the port's own (reading this copy there
    /// costs the plain dumbbell more instructions).
    early_flows: Vec<u32>,
    /// Per port, the next hop its link's far end gave the last frame routed there
    /// (see `hops.rs`).
    hops: Vec<hops::Hop>,
    now: Time,
    /// No frame is sent early at or after this time (see `early.rs`): the end of the
    /// stretch being run, or the run's end when the stretch is a slice (see
    /// [`Simulation::run_slice`]).
    early_limit: Time,
    events: u64,
    /// Of `events`, the timeline entries and samples (every part of a split run
    /// executes them).
    shared_events: u64,
    wall_seconds: f64,
    seed: u64,
    /// This run's part of a split run (`sim/parallel.rs`), if it is one.
    part: Option<Box<parallel::Part>>,
    /// Events per node per window, when asked (`part-profile` builds only).
    #[cfg(feature = "part-profile")]
    profile: Option<Box<profile::EventProfile>>,
}

/// Notifications on their way: what congestion points ask for, the generation
/// latencies, and how receivers answer marks.
struct Notifications {
    /// The notifications a congestion point asked for at the arrival being handled.
    out: Vec<Notify>,
    /// Per port, the stream of notification latencies (empty when there are none).
    latency_rngs: Vec<crate::rng::Rng>,
    /// Notifications waiting out their generation latency: (switch, frame).
    pending: Vec<(u32, Packet)>,
    /// Free slots of `pending`.
    free_slots: Vec<u32>,
    /// How receivers answer congestion marks, if the scheme's do.
    receiver_answer: Option<crate::cc::ReceiverAnswer>,
    /// The size of a notification (the configuration's, read here rather than
    /// through the shared configuration).
    bytes: u32,
}

/// What makes traffic besides the flows themselves.
struct Apps {
    /// Sources of flows arriving during the run.
    generators: Vec<arrivals::Generator>,
    /// Transport connections, indexed by [`Flow::conn`].
    conns: Vec<transport::Conn>,
    /// The incast application, if any.
    incast: Option<incast::Incast>,
    /// The dynamic sources (ON-OFF, Poisson-fed) of the configured flows.
    sources: Vec<Source>,
    /// Per configured flow, the index of its dynamic source (kept out of [`Flow`],
    /// which every frame touches).
    source_of: Vec<Option<u32>>,
    /// The size of a transport's acknowledgements (the configuration's, read here
    /// with the connections rather than through the shared configuration).
    ack_bytes: u32,
}

/// PFC's run-wide state.
struct PfcState {
    /// Whether any priority is lossless anywhere.
    on: bool,
    /// The switches' shared buffers under PFC's dynamic threshold, if on.
    shared: Option<shared_buffer::SharedBuffers>,
    /// The largest frame of the run (PFC's refresh lead).
    mtu: u32,
}

/// Packet traces.
struct Tracing {
    /// The traces of the ports that have one (empty: the one test a frame pays when
    /// no port is traced).
    traces: Vec<crate::trace::PortTrace>,
    /// Per port, the index of its trace in `traces` (empty until one is asked for).
    trace_of: Vec<u32>,
    /// Whether the run traces a port, here or (a part of a split run) in another part:
    /// no host then sends early, in any part.
    traced: bool,
}

/// Scheduled changes.
struct Changes {
    /// The run's timeline, sorted by time (shared by the parts of a split run).
    timeline: std::sync::Arc<[TimelineEntry]>,
    /// The scheme's configuration after each entry that changes a parameter.
    scheme: build::SchemeChanges,
}

impl Simulation {
    /// The configuration being run.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// The run's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Events executed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The network as [`crate::net::partition::partition`] reads it: per node whether
    /// it is a host, and each link with the smaller of its two directions' delays.
    pub fn links_to_cut(&self) -> (Vec<bool>, Vec<crate::net::partition::CutLink>) {
        let is_host = self.config.nodes.iter().map(|n| n.kind == crate::config::NodeKind::Host).collect();
        let mut links: Vec<crate::net::partition::CutLink> = Vec::new();
        for p in &self.ports {
            let (a, b) = (p.node.min(p.peer), p.node.max(p.peer));
            match links.iter_mut().rev().find(|l| (l.a, l.b) == (a, b)) {
                Some(l) => l.delay = l.delay.min(p.delay),
                None => links.push(crate::net::partition::CutLink { a, b, delay: p.delay }),
            }
        }
        (is_host, links)
    }

    /// Executes every event before `until` (capped at the run's end). A run covers
    /// `[0, duration)`; reaching the end also takes the last sample, at `duration`.
    /// The state is then the run's at `until`, to be read or changed.
    pub fn run_until(&mut self, until: Time) {
        self.run_stretch(until, until);
    }

    /// [`Simulation::run_until`] for one slice of a run that goes on to its end with
    /// nothing read or changed between slices (as a progress bar's slices do). A
    /// host may send its next frame early past `until` (see `early.rs`), as it would
    /// in one stretch: the run needs no more events than a run in one stretch, and
    /// reports what it does. (At a slice's end a host sending every 2.6 ms woke up
    /// for a frame due after it: at 4,096 incast senders and 10 ms slices, a quarter
    /// more events.) Read the state only after the last slice.
    pub fn run_slice(&mut self, until: Time) {
        self.run_stretch(until, self.config.duration);
    }

    /// Executes every event before `until` (capped at the run's end), sending no
    /// frame early at or after `early_limit`.
    fn run_stretch(&mut self, until: Time, early_limit: Time) {
        let started = std::time::Instant::now();
        let end = self.config.duration;
        let until = until.min(end);
        self.early_limit = early_limit.min(end).max(until);
        while let Some((t, event)) = self.queue.pop_before(until) {
            self.now = t;
            self.events += 1;
            if self.fetch_ahead {
                self.fetch_ahead();
                self.fetch_egress_link(event);
            }
            #[cfg(feature = "part-profile")]
            self.profile_event(t, event);
            self.dispatch(event);
        }
        self.now = self.now.max(until);
        let interval = self.sampler.interval.0;
        let last_due = Time(end.0 / interval * interval);
        if until == end && last_due == end && self.sampler.times.last() != Some(&end) {
            self.sample();
        }
        self.wall_seconds += started.elapsed().as_secs_f64();
    }

    /// Runs to the end and reports.
    pub fn run(mut self) -> RunReport {
        if let Some(split) = parallel::split_for(&self) {
            return parallel::run(self, split);
        }
        self.run_until(self.config.duration);
        self.finish()
    }

    /// Reads the state the next event will need, and prefetches that of the events
    /// due after it, so that with thousands of ports and flows their cache misses
    /// overlap the current event's work instead of following it. The next event's
    /// port is read (the link's front is found through it); the frame at that front,
    /// in the link's own buffer, is only prefetched: read, its miss was the loop's
    /// costliest stall at 4,096 senders (`perf`), and prefetched the run took 0.93-0.98
    /// of the time (36 alternate rounds). Where the current stretch is a crowded
    /// bucket sorted whole, the event due [`RUN_AHEAD`] pops later is known exactly
    /// and its state prefetched, each event's once; where it is cut, the first events
    /// of its next sub-bucket. The next event's frame will most likely be admitted to
    /// the egress port its link remembers (`hops.rs`): that port's lines are
    /// prefetched too, the costliest misses of an arrival at k = 16 before
    /// (docs/speed.md).
    #[inline(always)]
    fn fetch_ahead(&self) {
        match self.queue.peek_near() {
            Some(Event::LinkArrival { port }) => {
                let p = &self.ports[port as usize];
                std::hint::black_box((p.busy_until, p.quiet_delivery));
                if let Some(front) = p.link.front() {
                    crate::prefetch::line_of(front);
                }
                if let Some(flow) = self.flows.get(p.early_flow as usize) {
                    flow.fetch();
                }
                if let Some(out) = self.ports.get(self.hop_hint(port) as usize) {
                    out.fetch_admission();
                }
            }
            Some(Event::FlowWake { flow, .. }) => self.flows[flow as usize].fetch(),
            _ => {}
        }
        if let Some(event) = self.queue.run_ahead(RUN_AHEAD) {
            self.prefetch_state_of(event);
        }
        for event in self.queue.near_after().take(FETCH_AFTER) {
            self.prefetch_state_of(event);
        }
    }

    /// Prefetches the frames on the link of the egress port `event`'s frame will most
    /// likely be admitted to, found through that port's lines (prefetched at the
    /// event before, so read without a stall here; read then, they held the loop up).
    #[inline(always)]
    fn fetch_egress_link(&self, event: Event) {
        if let Event::LinkArrival { port } = event
            && let Some(out) = self.ports.get(self.hop_hint(port) as usize)
        {
            out.fetch_link();
        }
    }

    /// Prefetches the state an event due a few events from now will read: its port
    /// and the flow its NIC sends early, or its flow.
    #[inline(always)]
    fn prefetch_state_of(&self, event: Event) {
        match event {
            Event::LinkArrival { port } => {
                self.ports[port as usize].fetch();
                let early = self.early_flows.get(port as usize).copied().unwrap_or(early::NO_EARLY);
                if let Some(flow) = self.flows.get(early as usize) {
                    flow.fetch();
                }
            }
            Event::FlowWake { flow, .. } => self.flows[flow as usize].fetch(),
            _ => {}
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, event: Event) {
        match event {
            Event::LinkArrival { port } => self.on_link_arrival(port),
            Event::PortFree { port } => self.on_port_free(port),
            Event::FlowWake { flow, generation } => {
                let f = &mut self.flows[flow as usize];
                if f.wake_pending && f.wake_generation == generation {
                    f.wake_pending = false;
                    self.make_ready(flow);
                }
            }
            Event::RpTimer { flow, generation } => {
                let f = &mut self.flows[flow as usize];
                if f.timer_at.is_some() && f.timer_generation == generation {
                    f.timer_at = None;
                    f.rp.on_timer(self.now);
                    let acked = f.acked();
                    self.rp_changed(flow);
                    if acked {
                        self.check_go_back(flow);
                    }
                }
            }
            Event::Timeline { entry } => {
                self.shared_events += 1;
                self.apply(entry as usize);
            }
            Event::Source { source, generation } => self.on_source_event(source, generation),
            Event::NotificationReady { slot } => {
                let (switch, note) = self.notes.pending[slot as usize];
                self.notes.free_slots.push(slot);
                let back = self.routes.next_port(switch, note.dst, note.flow);
                self.enqueue(back, note);
            }
            Event::Sample => {
                self.shared_events += 1;
                self.sample();
            }
            Event::ConnTimer { conn, generation } => self.on_conn_timer(conn, generation),
            Event::PauseEnd { port, generation } => self.on_pause_end(port, generation),
        }
    }

    fn on_link_arrival(&mut self, port: u32) {
        if !self.tracing.traces.is_empty() && self.ports[port as usize].timed {
            // A traced port records its frames as they start: before one leaves the link.
            self.catch_up_traced(port, self.now);
        }
        if self.ports[port as usize].quiet_delivery {
            self.on_quiet_arrival(port);
            return;
        }
        let link = &mut self.ports[port as usize];
        let (_, pkt) = link.take_arrived(self.now);
        if let Some(&(next, _)) = link.link.front() {
            self.queue.push(next, Event::LinkArrival { port });
        }
        let node = link.peer;
        let early = link.early_at != Time::NEVER;
        if pkt.dst == node {
            self.receive(pkt);
        } else {
            let out = self.next_hop(port, node, pkt.dst, pkt.flow);
            self.enqueue_from(out, pkt, port);
        }
        if self.fetch_ahead {
            self.route_front(port, node);
        }
        if early {
            self.send_early(port);
        }
    }

    /// A frame produced at a switch (a notification) goes to its port `out`.
    #[inline]
    fn enqueue(&mut self, out: u32, pkt: Packet) {
        self.enqueue_from(out, pkt, NO_INGRESS);
    }

    /// A frame that arrived over port `ingress` goes to switch port `out`.
    #[inline]
    fn enqueue_from(&mut self, out: u32, mut pkt: Packet, ingress: u32) {
        let now = self.now;
        let lossless = self.is_lossless(ingress, pkt.priority);
        let ingress = match lossless {
            false => NO_INGRESS,
            true => match self.pfc_pre_admit(out, &pkt, ingress) {
                Some(ingress) => ingress,
                None => return,
            },
        };
        if self.ports[out as usize].has_due(now) {
            self.catch_up_port(out, now);
        }
        if self.ports[out as usize].watch == Watch::Idle {
            self.list_watched(out);
        }
        let port = &mut self.ports[out as usize];
        if pkt.is_data() && port.cp.as_mut().is_some_and(|cp| cp.drops(port.queued_bytes, pkt.priority)) {
            port.drop_by_policy(pkt.bytes);
            self.count_dropped(&pkt);
            self.congestion_point(out, &pkt, true);
            return;
        }
        port.mark(&mut pkt);
        let admission = if port.in_pfc {
            port.admit(now, pkt, ingress, lossless)
        } else if port.timed {
            port.admit_timed(now, pkt)
        } else {
            port.admit_plain(now, pkt)
        };
        match admission {
            Admission::SendNow => self.transmit_at_switch(out, pkt),
            Admission::Departs { arrival, was_empty } => self.on_switch_link_push(out, &pkt, arrival, was_empty),
            Admission::Queued => {
                if !port.free_pending {
                    port.free_pending = true;
                    let at = port.busy_until;
                    self.queue.push(at, Event::PortFree { port: out });
                }
            }
            Admission::Dropped => {
                if pkt.is_data() {
                    self.count_dropped(&pkt);
                } else if matches!(pkt.kind, PacketKind::Notification { .. }) {
                    let flow = &mut self.flows[pkt.flow as usize];
                    flow.notes_in_flight = flow.notes_in_flight.saturating_sub(1);
                } else {
                    self.forget_probe(&pkt);
                }
            }
        }
        if pkt.is_data() && self.ports[out as usize].cp.as_mut().is_some_and(|cp| !cp.passes_unsampled(pkt.bytes)) {
            self.congestion_point(out, &pkt, admission == Admission::Dropped);
        }
    }

    /// The congestion point of port `out` sees data frame `pkt` arrive.
    #[inline(never)]
    fn congestion_point(&mut self, out: u32, pkt: &Packet, dropped: bool) {
        let port = &mut self.ports[out as usize];
        let Some(cp) = port.cp.as_mut() else { return };
        let weight = self.weights[pkt.flow as usize];
        let arrival = Arrival { now: self.now, flow: pkt.flow, weight, bytes: pkt.bytes, queue_bytes: port.queued_bytes, dropped };
        cp.on_arrival(&arrival, &mut self.notes.out);
        if self.notes.out.is_empty() {
            return;
        }
        port.notifications += self.notes.out.len() as u64;
        let switch = port.node;
        let bytes = self.notes.bytes;
        for i in 0..self.notes.out.len() {
            let Notify { flow, feedback } = self.notes.out[i];
            self.flows[flow as usize].notes_in_flight += 1;
            let dst = self.flows[flow as usize].src;
            let kind = PacketKind::Notification { cpid: out, feedback };
            let note = Packet::new(flow, bytes, dst, 7, kind);
            if self.notes.latency_rngs.is_empty() {
                let back = self.routes.next_port(switch, dst, flow);
                self.enqueue(back, note);
            } else {
                self.delay_notification(out, switch, note);
            }
        }
        self.notes.out.clear();
    }

    /// Holds a notification for its generation latency before it leaves `switch`.
    fn delay_notification(&mut self, port: u32, switch: u32, note: Packet) {
        let latency = self.config.notification_latency.sample(&mut self.notes.latency_rngs[port as usize]);
        let slot = match self.notes.free_slots.pop() {
            Some(slot) => {
                self.notes.pending[slot as usize] = (switch, note);
                slot
            }
            None => {
                self.notes.pending.push((switch, note));
                (self.notes.pending.len() - 1) as u32
            }
        };
        self.queue.push(self.now + latency, Event::NotificationReady { slot });
    }

    /// Starts sending `pkt` on port `out` now and schedules its arrival if needed.
    /// Always inlined, with the port's side, and the frame's address not taken (a
    /// traced frame goes to its trace by value): a frame made field by field (a
    /// NIC's next frame) then reaches the link's ring from registers. Called, it
    /// went through the stack, and the wide loads that copied it into the ring
    /// could not be served from the narrow stores still on their way: a tenth of the
    /// jittered dumbbell's time stalled there (0.94-0.96 of the time without).
    #[inline(always)]
    fn transmit(&mut self, out: u32, pkt: Packet) {
        let (arrival, was_empty) = self.put_on_link(out, pkt);
        self.on_link_push(out, &pkt, arrival, was_empty);
    }

    /// Starts `pkt` on port `out`'s link now (tracing it if the port is traced): when
    /// it arrives, and whether the link held nothing before.
    #[inline(always)]
    fn put_on_link(&mut self, out: u32, pkt: Packet) -> (Time, bool) {
        if !self.tracing.traces.is_empty() {
            self.trace_frame(out, pkt, self.now);
        }
        self.ports[out as usize].transmit(self.now, pkt)
    }

    /// [`Simulation::transmit`] at a switch port, which first adds its in-band
    /// telemetry to a probed frame when the run's switches do, and hands a frame on a
    /// link that crosses to another part of a split run over (a NIC does neither, and
    /// its frames, most of a run's, skip both tests).
    #[inline(always)]
    fn transmit_at_switch(&mut self, out: u32, pkt: Packet) {
        if self.acking.telemetry {
            self.stamp(out, &pkt);
        }
        let (arrival, was_empty) = self.put_on_link(out, pkt);
        self.on_switch_link_push(out, &pkt, arrival, was_empty);
    }

    /// [`Simulation::on_link_push`] at a switch port, whose link may cross to another
    /// part of a split run.
    #[inline(always)]
    fn on_switch_link_push(&mut self, out: u32, pkt: &Packet, arrival: Time, was_empty: bool) {
        if self.ports[out as usize].crosses {
            // Handed over at the window's barrier, from the link (`parallel/`).
            return;
        }
        self.on_link_push(out, pkt, arrival, was_empty);
    }

    fn on_port_free(&mut self, out: u32) {
        let now = self.now;
        let port = &mut self.ports[out as usize];
        port.free_pending = false;
        if port.is_host {
            let node = port.node;
            self.host_send(node);
            return;
        }
        if port.in_pfc {
            self.pfc_port_free(out);
            return;
        }
        if let Some(pkt) = port.dequeue(now) {
            self.transmit_at_switch(out, pkt);
            let port = &mut self.ports[out as usize];
            if port.has_queued() {
                port.free_pending = true;
                let at = port.busy_until;
                self.queue.push(at, Event::PortFree { port: out });
            }
        }
    }

    /// A frame reached its destination node.
    fn receive(&mut self, pkt: Packet) {
        match pkt.kind {
            PacketKind::Data { ce, seq, .. } => {
                let conn = self.flows[pkt.flow as usize].conn;
                if conn == ACKED {
                    self.receive_probed(&pkt, seq);
                    return;
                }
                if conn != NO_CONN && !self.receive_segment(&pkt, conn) {
                    // A segment carrying only data received before (a spurious
                    // retransmission) still reached its destination: a frame
                    // delivered, with no new bytes, so that sent = delivered +
                    // dropped + in the network holds.
                    self.flows[pkt.flow as usize].counters.delivered_frames += 1;
                    return;
                }
                if ce && conn == NO_CONN {
                    self.notification_point(pkt.flow);
                }
                self.count_delivered(pkt.flow, pkt.bytes);
            }
            PacketKind::Notification { cpid, feedback } => {
                let flow = &mut self.flows[pkt.flow as usize];
                flow.counters.notifications += 1;
                flow.notes_in_flight = flow.notes_in_flight.saturating_sub(1);
                if flow.rp.on_feedback(self.now, cpid, &feedback) {
                    self.rp_changed(pkt.flow);
                }
            }
            PacketKind::Ack { next, ece } => self.receive_ack(pkt.flow, next, ece),
            PacketKind::FrameAck { probe } => self.receive_frame_ack(pkt.flow, probe),
            PacketKind::Pause { mask, quanta } => self.on_pause(pkt.flow, mask, quanta),
        }
    }

    /// A data frame of flow `f` with `bytes` of payload reached its destination.
    #[inline]
    fn count_delivered(&mut self, f: u32, bytes: u32) {
        let flow = &mut self.flows[f as usize];
        flow.counters.delivered_frames += 1;
        flow.counters.delivered_bytes += bytes as u64;
        if flow.completed_at.is_none() && flow.is_complete() {
            // `source_of` has an entry per configured flow, and is read here without
            // going through the shared configuration.
            let configured = (f as usize) < self.apps.source_of.len();
            if configured {
                self.fair_shares_change(fair::FairOp::Completion(f));
            }
            self.flows[f as usize].completed_at = Some(self.now);
        }
    }

    /// Data frame `pkt` was dropped: its flow counts it (its payload, when it carries
    /// a probe, which then closes).
    #[inline]
    fn count_dropped(&mut self, pkt: &Packet) {
        let flow = &mut self.flows[pkt.flow as usize];
        if flow.acked() {
            self.drop_probed(pkt);
            return;
        }
        flow.counters.dropped_frames += 1;
        flow.counters.dropped_bytes += pkt.bytes as u64;
    }
}

mod sending;
