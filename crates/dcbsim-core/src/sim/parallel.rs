//! One run on several threads: the network split into parts (`net/partition.rs`),
//! each part run by a thread of its own, in conservative windows.
//!
//! Every part is a whole [`Simulation`] built from the same configuration, which
//! sends only its own hosts' flows and so only ever handles events at its own nodes.
//! A frame put on a link that leaves the part (a crossing port, between switches) is
//! mailed, not scheduled; it arrives no sooner than the link's delay after it was
//! sent. Parts therefore advance together in windows no longer than the smallest delay
//! of a crossing link (the lookahead): each runs the window's events, then at the
//! barrier hands over the frames it sent across, which arrive in a later window. The
//! receiving part puts each on its copy of the link and schedules its arrival when the
//! link was empty, which is the very event one queue would hold; as events due
//! together pop in an order of their own (`sched/mod.rs`), each part pops its events
//! in the order one queue pops them all, and the merged report is the one-thread run's
//! bit for bit, whatever the threads.
//!
//! The sending part keeps its crossing frames on its own copy of the link until they
//! have arrived, for its departure-timed accounting (`net/timed.rs`), and takes them
//! off at the barrier after their arrival.
//!
//! PFC works across parts as the frames do: a PAUSE is a frame on the link, and the
//! ingress accounting of a link is kept on its copy in the part its frames arrive at.
//!
//! Every part draws every arrival of `[[arrivals]]` as one run draws them and makes
//! the flow, and only the source's part sends it. A part sees only its own flows
//! complete, and a completion moves every flow's fair share: each part logs what
//! moves or reads the shares, and the merge works them out again from the logs
//! (`fair.rs`, [`Replay`]).
//!
//! A probed frame of HPCC or TIMELY, or its acknowledgement, takes its probe (send
//! time, in-band telemetry) along: the probe leaves the sending part's arena and
//! enters the receiving part's, and the frame is given its new index there.
//!
//! A run splits only where nothing acts across parts without a frame, or at once:
//! runs with traces, streamed samples, the incast application (a block's end at the
//! client sets every server sending at that instant), a capacity change in the
//! timeline of a port whose link crosses, or a crossing link of zero delay run on one
//! thread. (Every part applies every timeline entry: a new capacity or scheme
//! parameter is in force everywhere, and a part changes only what fair shares read of
//! the flows it does not send.)
//!
//! A part that fails breaks the barrier, and the others stop rather than wait for it.

use super::Simulation;
use super::arrivals::Outcome;
use super::fair::{FairOp, Replay};
use crate::config::Action;
use crate::net::partition::{Partitioning, partition};
use crate::net::telemetry::{NO_PROBE, Probe};
use crate::packet::Packet;
use crate::report::{ArrivalReport, FlowReport, RunReport};
use crate::sched::Event;
use crate::units::Time;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A frame handed over at a barrier: the crossing port it left by, when it reaches
/// the far end, the frame, and where its probe is among the [`Letters`]' probes
/// ([`NO_PROBE`]: it carries none).
#[derive(Clone, Copy, Debug)]
pub struct Mail {
    port: u32,
    arrival: Time,
    pkt: Packet,
    probe: u32,
}

/// Frames handed over, with the probes of those that carry one (a probe lives in
/// its part's arena, `net/telemetry.rs`: it travels by value, and the receiving part
/// keeps it in its own).
#[derive(Debug, Default)]
pub struct Letters {
    mail: Vec<Mail>,
    probes: Vec<Probe>,
}

impl Letters {
    /// Adds frame `m` and the probe it carries, if any.
    fn post(&mut self, mut m: Mail, probe: Option<&Probe>) {
        if let Some(p) = probe {
            m.probe = self.probes.len() as u32;
            self.probes.push(*p);
        }
        self.mail.push(m);
    }

    /// Moves `other`'s letters to the end of these (its room kept).
    fn append(&mut self, other: &mut Letters) {
        let offset = self.probes.len() as u32;
        let moved = other.mail.drain(..).map(|m| Mail { probe: if m.probe == NO_PROBE { NO_PROBE } else { m.probe + offset }, ..m });
        self.mail.extend(moved);
        self.probes.append(&mut other.probes);
    }

    fn clear(&mut self) {
        self.mail.clear();
        self.probes.clear();
    }
}

/// What a part of a split run knows of the split.
#[derive(Debug)]
pub struct Part {
    /// This part.
    id: u16,
    /// Per node, its part.
    part_of: Arc<[u16]>,
    /// The crossing ports this part owns (it sends on them).
    crossing: Vec<u32>,
    /// Frames sent across in the window being run.
    outbox: Letters,
    /// What moved or read the fair shares, when (see [`Replay`]).
    fair_log: Vec<(Time, FairOp)>,
}

/// How a run splits, when it does.
pub struct Split {
    parts: Partitioning,
}

impl Split {
    /// How many parts (threads) the run goes on.
    pub fn parts(&self) -> usize {
        self.parts.parts
    }
}

/// The threads a run asks for: `config.threads`, 0 meaning every core.
fn threads_asked(sim: &Simulation) -> usize {
    match sim.config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// How `sim`, built and not run yet, splits for the threads it asks for, or `None`
/// when it runs on one.
pub fn split_for(sim: &Simulation) -> Option<Split> {
    let threads = threads_asked(sim);
    if threads < 2 || sim.part.is_some() || sim.events != 0 || !splits(sim) {
        return None;
    }
    let (is_host, links) = sim.links_to_cut();
    let parts = partition(&is_host, &links, threads);
    let useful = parts.parts > 1 && parts.lookahead != Time::NEVER && parts.lookahead > Time::ZERO;
    (useful && !changes_crossing_rate(sim, &parts.part_of)).then_some(Split { parts })
}

/// Whether nothing in `sim` acts across parts without a frame (see the module's
/// documentation).
fn splits(sim: &Simulation) -> bool {
    let c = &sim.config;
    c.incast.is_none() && sim.tracing.traces.is_empty() && !sim.sampler.streams()
}

/// Whether `sim`'s timeline changes the capacity of a port whose link crosses parts
/// (`part_of`, per node). Such a port's frames are put on the link, and mailed, as
/// they are admitted (`net/timed.rs`); a new rate would send those not started yet
/// again, later.
fn changes_crossing_rate(sim: &Simulation, part_of: &[u16]) -> bool {
    let crosses = |p: u32| {
        let port = &sim.ports[p as usize];
        part_of[port.node as usize] != part_of[port.peer as usize]
    };
    sim.changes.timeline.iter().any(|e| matches!(e.action, Action::PortRate { port, .. } if sim.port_of(port).is_some_and(crosses)))
}

impl Simulation {
    /// Whether this run sends the flow timeline entry `entry` concerns (a part of a
    /// split run sends only its own hosts' flows).
    pub(super) fn sends(&self, entry: usize) -> bool {
        match self.changes.timeline[entry].action {
            Action::FlowStart { flow } | Action::FlowStop { flow } | Action::FlowMaxRate { flow, .. } => {
                self.sends_from(self.flows[flow].src)
            }
            _ => true,
        }
    }

    /// Whether this run sends the flows of host `node` (a part of a split run sends
    /// only its own hosts' flows).
    pub(super) fn sends_from(&self, node: u32) -> bool {
        self.part.as_ref().is_none_or(|part| part.part_of[node as usize] == part.id)
    }

    /// Logs `op` at this time, in a part of a split run (for [`Replay`]).
    pub(super) fn log_fair(&mut self, op: FairOp) {
        if let Some(part) = self.part.as_mut() {
            part.fair_log.push((self.now, op));
        }
    }

    /// Hands frame `pkt`, just put on crossing port `out`'s link and arriving at
    /// `arrival`, over to the part at the far end (out of line: only crossing ports).
    #[inline(never)]
    pub(super) fn mail(&mut self, out: u32, pkt: &Packet, arrival: Time) {
        let probe = self.probe_of(pkt);
        let Some(part) = self.part.as_mut() else { return };
        let m = Mail { port: out, arrival, pkt: *pkt, probe: NO_PROBE };
        if probe == NO_PROBE {
            part.outbox.post(m, None);
            return;
        }
        // The probe leaves with its frame: this part reads it no more.
        part.outbox.post(m, Some(self.acking.probes.get(probe)));
        self.acking.probes.close(probe);
    }

    /// Makes this run part `id` of the split `part_of`: marks the ports that cross, and
    /// drops what the part never reads (`part_state.rs`).
    fn become_part(&mut self, id: u16, part_of: Arc<[u16]>) {
        let mut crossing = Vec::new();
        for (p, port) in self.ports.iter_mut().enumerate() {
            let (mine, theirs) = (part_of[port.node as usize], part_of[port.peer as usize]);
            port.crosses = mine != theirs;
            if port.crosses && mine == id {
                crossing.push(p as u32);
            }
        }
        self.keep_own_state(id, &part_of);
        self.part = Some(Box::new(Part { id, part_of, crossing, outbox: Letters::default(), fair_log: Vec::new() }));
    }

    /// At the barrier ending a window at `end`: takes the frames that have reached the
    /// far end off this part's crossing links, and swaps the frames it sent across into
    /// `sent` (empty, its room kept for the next window's).
    fn close_window(&mut self, end: Time, sent: &mut Letters) {
        let part = self.part.as_mut().expect("a part");
        std::mem::swap(&mut part.outbox, sent);
        for &p in &part.crossing {
            let port = &mut self.ports[p as usize];
            while port.link.front().is_some_and(|&(at, _)| at < end) {
                port.pop_arrived(end);
            }
        }
    }

    /// Puts frames handed over onto this part's copies of their links, their probes
    /// into its arena.
    fn receive_mail(&mut self, letters: &Letters) {
        for m in &letters.mail {
            let pkt = match m.probe {
                NO_PROBE => m.pkt,
                at => m.pkt.with_probe(self.acking.probes.insert(letters.probes[at as usize])),
            };
            let link = &mut self.ports[m.port as usize].link;
            let was_empty = link.is_empty();
            link.push_back((m.arrival, pkt));
            if was_empty {
                self.queue.push(m.arrival, Event::LinkArrival { port: m.port });
            }
        }
    }

    /// The time of this part's next event (`Time::NEVER`: none).
    fn next_event(&self) -> Time {
        self.queue.peek_time().unwrap_or(Time::NEVER)
    }
}

/// How long a thread spins at the barrier before it yields its core (a few µs).
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// Threads meeting between windows: a counter each arrival adds one to, spun on (a
/// sleeping barrier costs 12-19 µs a round here, against windows of tens of µs of
/// work; docs/speed.md). Public for `--example barrier`, which measures it.
#[derive(Debug)]
pub struct Barrier {
    arrived: AtomicUsize,
    threads: usize,
    /// A thread failed: it will not come again.
    broken: AtomicBool,
}

impl Barrier {
    /// A barrier for `threads` threads.
    pub fn new(threads: usize) -> Barrier {
        Barrier { arrived: AtomicUsize::new(0), threads, broken: AtomicBool::new(false) }
    }

    /// Waits for every thread's `round`-th arrival (rounds count from 0, each thread
    /// counting its own). Panics when a thread has [broken](Barrier::break_off) it,
    /// rather than wait for ever.
    pub fn wait(&self, round: usize) {
        let target = (round + 1) * self.threads;
        self.arrived.fetch_add(1, Ordering::AcqRel);
        let mut spins = 0u32;
        while self.arrived.load(Ordering::Acquire) < target {
            if self.broken.load(Ordering::Relaxed) {
                panic!("another part of the run failed");
            }
            // More threads than free cores: a spinner would hold the core the thread it
            // waits for needs, so after a while it yields.
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// A thread fails and will not come again: the others stop waiting.
    pub fn break_off(&self) {
        self.broken.store(true, Ordering::Relaxed);
    }
}

/// Breaks the barrier if its thread unwinds (a part that panics must not leave the
/// others spinning).
struct BreakOnPanic<'a>(&'a Barrier);

impl Drop for BreakOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.break_off();
        }
    }
}

/// What the threads share, twice over (a window writes the set of its parity, which
/// no thread reads again before the next barrier but one): a mailbox per part, and
/// each part's next event after the window (its own, or a frame it sent across).
struct Exchange {
    mailboxes: [Vec<Mutex<Letters>>; 2],
    next: [Vec<Padded>; 2],
    barrier: Barrier,
}

/// An atomic on a cache line of its own: parts write theirs at every window, and
/// neighbours on one line would take it from each other.
#[repr(align(64))]
struct Padded(AtomicU64);

impl Exchange {
    fn new(parts: usize) -> Exchange {
        let mailboxes = || (0..parts).map(|_| Mutex::new(Letters::default())).collect();
        let next = || (0..parts).map(|_| Padded(AtomicU64::new(u64::MAX))).collect();
        Exchange { mailboxes: [mailboxes(), mailboxes()], next: [next(), next()], barrier: Barrier::new(parts) }
    }
}

/// What a split run did besides its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitStats {
    /// Parts, one thread each.
    pub parts: usize,
    /// Windows run (barriers met).
    pub windows: u64,
}

/// Runs `sim` split as `split`, one thread per part, and merges the parts' reports.
pub fn run(sim: Simulation, split: Split) -> RunReport {
    run_with_stats(sim, split).0
}

/// [`run`], with how many windows it took.
pub fn run_with_stats(sim: Simulation, split: Split) -> (RunReport, SplitStats) {
    let started = std::time::Instant::now();
    let n = split.parts.parts;
    let lookahead = split.parts.lookahead;
    let part_of: Arc<[u16]> = split.parts.part_of.into();
    let end = sim.config.duration;
    let replay = Replay::of(&sim);
    let parts = build_parts(sim, n, &part_of);
    let exchange = Exchange::new(n);
    // The calling thread runs the first part: one thread fewer to start, with its
    // stack and its allocator's arena.
    let ran: Vec<(Simulation, u64)> = std::thread::scope(|s| {
        let mut parts = parts.into_iter();
        let first = parts.next().expect("a part");
        let (exchange, part_of) = (&exchange, &part_of);
        let handles: Vec<_> =
            parts.enumerate().map(|(id, part)| s.spawn(move || run_part(part, id + 1, exchange, part_of, lookahead, end))).collect();
        let mut ran = vec![run_part(first, 0, exchange, part_of, lookahead, end)];
        ran.extend(handles.into_iter().map(|h| h.join().expect("a part's thread")));
        ran
    });
    let wall = started.elapsed().as_secs_f64();
    let windows = ran[0].1;
    let parts = ran.into_iter().map(|(sim, _)| sim).collect();
    (merge(parts, &part_of, replay, wall), SplitStats { parts: n, windows })
}

/// One thread's loop: windows until the run's end, one barrier each; the part and
/// the windows it ran.
fn run_part(mut sim: Simulation, id: usize, ex: &Exchange, part_of: &[u16], lookahead: Time, end: Time) -> (Simulation, u64) {
    let mut start = Time::ZERO;
    let mut windows = 0;
    // Kept from window to window for their room.
    let mut by_part: Vec<Letters> = (0..ex.next[0].len()).map(|_| Letters::default()).collect();
    let (mut inbox, mut sent) = (Letters::default(), Letters::default());
    let _guard = BreakOnPanic(&ex.barrier);
    for round in 0.. {
        windows += 1;
        let until = Time(start.0.saturating_add(lookahead.0)).min(end);
        sim.run_slice(until);
        sim.close_window(until, &mut sent);
        let parity = round % 2;
        let mut next = sim.next_event();
        for m in sent.mail.drain(..) {
            next = next.min(m.arrival);
            let probe = (m.probe != NO_PROBE).then(|| &sent.probes[m.probe as usize]);
            by_part[part_of[sim.ports[m.port as usize].peer as usize] as usize].post(m, probe);
        }
        sent.probes.clear();
        for (to, letters) in by_part.iter_mut().enumerate().filter(|(_, l)| !l.mail.is_empty()) {
            ex.mailboxes[parity][to].lock().expect("a mailbox").append(letters);
        }
        ex.next[parity][id].0.store(next.0, Ordering::Release);
        ex.barrier.wait(round);
        std::mem::swap(&mut inbox, &mut *ex.mailboxes[parity][id].lock().expect("a mailbox"));
        sim.receive_mail(&inbox);
        inbox.clear();
        if until >= end {
            break;
        }
        let next = ex.next[parity].iter().map(|t| t.0.load(Ordering::Acquire)).min().unwrap_or(u64::MAX);
        start = Time(next).max(until).min(end);
    }
    sim.end_part();
    (sim, windows)
}

/// The parts of a split run, `first` the first: the others built like it, sharing
/// what no run changes, and each made its part (dropping what the part never reads)
/// before the next is built.
fn build_parts(first: Simulation, n: usize, part_of: &Arc<[u16]>) -> Vec<Simulation> {
    let mut parts = Vec::with_capacity(n);
    parts.push(first);
    parts[0].become_part(0, part_of.clone());
    for id in 1..n {
        let mut part = Simulation::like(&parts[0]);
        part.become_part(id as u16, part_of.clone());
        parts.push(part);
    }
    parts
}

/// What each arrival source's flows did: each flow's sending side from its source's
/// part, its receiving side from its destination's, its drops from every part.
fn arrival_reports(parts: &[Simulation], part_of: &[u16]) -> Vec<ArrivalReport> {
    let first = &parts[0];
    let outcomes: Vec<Option<Outcome>> = first
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            f.generator?;
            let mut o = parts[part_of[f.src as usize] as usize].outcome(i);
            let received = parts[part_of[f.dst as usize] as usize].outcome(i);
            o.counters.delivered_frames = received.counters.delivered_frames;
            o.counters.delivered_bytes = received.counters.delivered_bytes;
            o.completed_at = received.completed_at;
            o.counters.dropped_frames = parts.iter().map(|p| p.flows[i].counters.dropped_frames).sum();
            o.counters.dropped_bytes = parts.iter().map(|p| p.flows[i].counters.dropped_bytes).sum();
            Some(o)
        })
        .collect();
    let in_network: Vec<u64> = outcomes
        .iter()
        .map(|o| o.as_ref().map_or(0, |o| o.counters.sent_frames - o.counters.delivered_frames - o.counters.dropped_frames))
        .collect();
    first.arrival_reports_of(|i| outcomes[i].clone().expect("an arrived flow"), &in_network)
}

/// Each configured flow's fair shares at each sample, from every part's log: the
/// first part's timeline entries and samples, and each part's completions.
fn fair_shares(parts: &mut [Simulation], replay: Replay) -> Vec<Vec<f64>> {
    let mut log = std::mem::take(&mut parts[0].part.as_mut().expect("a part").fair_log);
    for p in &parts[1..] {
        let theirs = &p.part.as_ref().expect("a part").fair_log;
        log.extend(theirs.iter().filter(|(_, op)| matches!(op, FairOp::Completion(_))));
    }
    let first = &parts[0];
    replay.run(&mut log, &first.changes.timeline, (&first.ports, &first.weights), first.sampler.interval)
}

/// The one-thread report from the parts' reports: each port's from the part that
/// owns it, each flow's sending side from its source's part and its receiving side
/// from its destination's, drops added up; the fair shares and the arrival reports
/// from every part ([`fair_shares`], [`arrival_reports`]). Parts are finished one at a
/// time, each dropped once its report is read, and only the flow reports the merged
/// report keeps are held (all the parts' reports held at once took as much again as a
/// part).
fn merge(mut parts: Vec<Simulation>, part_of: &[u16], replay: Replay, wall: f64) -> RunReport {
    let fair = fair_shares(&mut parts, replay);
    let arrivals = arrival_reports(&parts, part_of);
    let shared = parts[0].shared_events;
    let events: u64 = parts.iter().map(|p| p.events).sum::<u64>() - shared * (parts.len() as u64 - 1);
    let port_owner: Vec<usize> = parts[0].ports.iter().filter(|p| !p.is_host).map(|p| part_of[p.node as usize] as usize).collect();
    // A port's PFC ingress accounting is kept where its frames arrive (the peer's part).
    let port_ends: Vec<(usize, usize)> =
        parts[0].ports.iter().map(|p| (part_of[p.node as usize] as usize, part_of[p.peer as usize] as usize)).collect();
    let flow_ends: Vec<(usize, usize)> = parts[0].flows[..parts[0].config.flows.len()]
        .iter()
        .map(|f| (part_of[f.src as usize] as usize, part_of[f.dst as usize] as usize))
        .collect();
    let mut flows: Vec<FlowReport> = Vec::new();
    flows.resize_with(flow_ends.len(), FlowReport::default);
    // Per flow, its receiving side (from its destination's part) and its drops
    // (from every part).
    let mut received: Vec<Received> = vec![Received::default(); flow_ends.len()];
    let mut merged: Option<RunReport> = None;
    let mut classes: Vec<crate::traffic::FlowCounters> = Vec::new();
    let mut ingress = vec![([0; 8], 0); port_ends.len()];
    for (k, part) in parts.into_iter().enumerate() {
        let mut i = 0;
        let report = part.finish_with(|mut f| {
            let (src, dst) = flow_ends[i];
            let r = &mut received[i];
            r.dropped_frames += f.dropped_frames;
            r.dropped_bytes += f.dropped_bytes;
            if dst == k {
                r.delivered_frames = f.delivered_frames;
                r.delivered_bytes = f.delivered_bytes;
                r.completion_time = f.completion_time;
                r.throughput_bps = std::mem::take(&mut f.throughput_bps);
            }
            if src == k {
                flows[i] = f;
            }
            i += 1;
        });
        for (p, pfc) in report.pfc.iter().enumerate().filter(|&(p, _)| port_ends[p].1 == k) {
            ingress[p] = (pfc.ingress_bytes, pfc.headroom_drops);
        }
        classes.resize_with(report.classes.len(), Default::default);
        for (sum, class) in classes.iter_mut().zip(&report.classes) {
            sum.add(&class.counters);
        }
        match merged.as_mut() {
            None => merged = Some(report),
            Some(m) => {
                for (p, port) in report.ports.into_iter().enumerate() {
                    if port_owner[p] == k {
                        m.ports[p] = port;
                    }
                }
                for (p, pfc) in report.pfc.into_iter().enumerate() {
                    if port_ends[p].0 == k {
                        m.pfc[p] = pfc;
                    }
                }
            }
        }
    }
    for ((f, r), fair) in flows.iter_mut().zip(received).zip(fair) {
        f.fair_share_bps = fair;
        f.delivered_frames = r.delivered_frames;
        f.delivered_bytes = r.delivered_bytes;
        f.completion_time = r.completion_time;
        f.throughput_bps = r.throughput_bps;
        f.dropped_frames = r.dropped_frames;
        f.dropped_bytes = r.dropped_bytes;
        f.in_network_frames = f.sent_frames - f.delivered_frames - f.dropped_frames;
    }
    let mut merged = merged.expect("a part");
    merged.flows = flows;
    for (pfc, (bytes, drops)) in merged.pfc.iter_mut().zip(ingress) {
        (pfc.ingress_bytes, pfc.headroom_drops) = (bytes, drops);
    }
    let seconds = merged.simulated.as_secs_f64();
    for (class, counters) in merged.classes.iter_mut().zip(classes) {
        class.counters = counters;
        class.throughput_bps = if seconds > 0.0 { class.counters.delivered_bytes as f64 * 8.0 / seconds } else { 0.0 };
    }
    merged.arrivals = arrivals;
    merged.events = events;
    merged.wall_seconds = wall;
    merged
}

/// A flow's receiving side and drops, gathered from the parts for [`merge`].
#[derive(Clone, Debug, Default)]
struct Received {
    delivered_frames: u64,
    delivered_bytes: u64,
    completion_time: Option<Time>,
    throughput_bps: Vec<f64>,
    dropped_frames: u64,
    dropped_bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_fails_breaks_the_barrier_for_the_others() {
        let barrier = Barrier::new(2);
        let waited = std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                barrier.wait(0);
                barrier.wait(1);
            });
            let failing = s.spawn(|| {
                let _guard = BreakOnPanic(&barrier);
                barrier.wait(0);
                panic!("a part fails");
            });
            assert!(failing.join().is_err());
            waiter.join()
        });
        let message = waited.expect_err("the waiter stops waiting").downcast::<&str>().expect("a message");
        assert_eq!(*message, "another part of the run failed");
    }
}
