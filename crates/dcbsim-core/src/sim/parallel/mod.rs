//! One run on several threads: the network split into parts (`net/partition.rs`),
//! each part run by a thread of its own, in conservative windows.
//!
//! Every part is a whole [`Simulation`] built from the same configuration, which
//! sends only its own hosts' flows and so only ever handles events at its own nodes.
//! A frame put on a link that leaves the part (a crossing port, between switches) is
//! left on the sending part's copy of the link, its arrival not scheduled; it arrives
//! no sooner than the link's delay after it was sent. Parts therefore advance together
//! in windows no longer than the smallest delay of a crossing link (the lookahead):
//! each runs the window's events, then at the barrier hands over the frames on its
//! crossing links that arrive within the next two windows. The receiving part puts
//! each on its copy of the link and schedules its arrival when the link was empty,
//! which is the very event one queue would hold; as events due together pop in an
//! order of their own (`sched/mod.rs`), each part pops its events in the order one
//! queue pops them all, and the merged report is the one-thread run's bit for bit,
//! whatever the threads.
//!
//! A departure-timed port (`net/timed.rs`) puts a frame on its link when it is
//! admitted, behind the whole queue: such frames wait on the sender's link until
//! their turn (a window never ends past the first of them, anywhere), so the
//! receiver's copy holds no more than two windows of frames. The sender takes them off
//! its link at the barrier after their arrival.
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
//! A new capacity of a departure-timed port sends its frames not started yet again,
//! later ([`crate::net::port::Port::untime`]): a crossing port whose capacity the
//! timeline changes at `T` hands over only the frames that arrive before `T` plus
//! its link's delay (they started before `T`, and stay as they are); the others wait
//! on its link until the change has passed.
//!
//! Streamed samples are put together from the parts' rows at the barriers
//! ([`stream`]).
//!
//! A traced port is traced by the part that owns it; a crossing one records the
//! frames it started at each barrier, before they leave its link. Every part sends
//! as a traced run does (no host early).
//!
//! A run splits only where nothing acts across parts without a frame, or at once:
//! runs with the incast application (a block's end at the client sets every server
//! sending at that instant), or with a crossing link of zero delay, run on one
//! thread. (Every part applies every timeline entry: a new capacity
//! or scheme parameter is in force everywhere, and a part changes only what fair
//! shares read of the flows it does not send.)
//!
//! A part that fails breaks the barrier, and the others stop rather than wait for it.

use super::Simulation;
use super::acks::probe_of;
use super::fair::{FairOp, Replay};
use crate::config::Action;
use crate::net::partition::{Partitioning, partition};
use crate::net::telemetry::NO_PROBE;
use crate::report::RunReport;
use crate::sched::Event;
use crate::units::Time;
use exchange::{BreakOnPanic, Exchange, Letters, Mail};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use stream::Streamer;

mod exchange;
mod merge;
mod stream;

pub use exchange::{Barrier, Patience};

/// What a part of a split run knows of the split.
#[derive(Debug)]
pub struct Part {
    /// This part.
    id: u16,
    /// Per node, its part.
    part_of: Arc<[u16]>,
    /// The crossing ports this part owns (it sends on them).
    crossing: Vec<Crossing>,
    /// What moved or read the fair shares, when (see [`Replay`]).
    fair_log: Vec<(Time, FairOp)>,
}

/// A port that sends from its part into another.
#[derive(Debug)]
struct Crossing {
    /// The port.
    port: u32,
    /// How many frames at the front of its link were handed over already.
    handed: u32,
    /// When the timeline changes its capacity, latest first (popped once passed).
    new_rates: Vec<Time>,
}

impl Crossing {
    /// The first frame arrival not to hand over at a barrier at `end`, for a
    /// `horizon` of the windows and the link's `delay`: a frame that arrives later
    /// may not have started by the next capacity change (see the module's
    /// documentation).
    fn limit(&mut self, end: Time, horizon: Time, delay: Time) -> Time {
        while self.new_rates.last().is_some_and(|&at| at < end) {
            self.new_rates.pop();
        }
        self.new_rates.last().map_or(horizon, |&at| horizon.min(Time(at.0.saturating_add(delay.0))))
    }
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
    useful.then_some(Split { parts })
}

/// Whether nothing in `sim` acts across parts without a frame (see the module's
/// documentation).
fn splits(sim: &Simulation) -> bool {
    let c = &sim.config;
    c.incast.is_none()
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

    /// Takes what this part logged of the fair shares that the replay reads (see
    /// [`Replay`]): all of it from the first part (timeline entries, samples), the
    /// completions from the others (each part sees its own flows complete).
    fn take_fair_log(&mut self) -> impl Iterator<Item = (Time, FairOp)> {
        let part = self.part.as_mut().expect("a part");
        let first = part.id == 0;
        std::mem::take(&mut part.fair_log).into_iter().filter(move |(_, op)| first || matches!(op, FairOp::Completion(_)))
    }

    /// Logs `op` at this time if this run is a part of a split run (for [`Replay`]);
    /// returns whether it is.
    pub(super) fn log_fair(&mut self, op: FairOp) -> bool {
        let Some(part) = self.part.as_mut() else { return false };
        part.fair_log.push((self.now, op));
        true
    }

    /// Makes this run part `id` of the split `part_of`: marks the ports that cross, and
    /// drops what the part never reads (`part_state.rs`).
    fn become_part(&mut self, id: u16, part_of: Arc<[u16]>) {
        let mut crossing = Vec::new();
        for (p, port) in self.ports.iter_mut().enumerate() {
            let (mine, theirs) = (part_of[port.node as usize], part_of[port.peer as usize]);
            port.crosses = mine != theirs;
            if port.crosses && mine == id {
                crossing.push(Crossing { port: p as u32, handed: 0, new_rates: Vec::new() });
            }
        }
        for entry in self.changes.timeline.iter().rev() {
            let Action::PortRate { port, .. } = entry.action else { continue };
            let Some(p) = self.port_of(port) else { continue };
            if let Some(c) = crossing.iter_mut().find(|c| c.port == p) {
                c.new_rates.push(entry.at);
            }
        }
        self.keep_own_state(id, &part_of);
        self.part = Some(Box::new(Part { id, part_of, crossing, fair_log: Vec::new() }));
    }

    /// At the barrier ending a window at `end`: takes the frames that have reached the
    /// far end off this part's crossing links, and hands over those that arrive
    /// before `horizon` and were not handed over yet into `by_part`, the letters for
    /// the part at each link's far end (a probe leaves with its frame). Returns when
    /// the first frame not handed over arrives and when the first handed over does
    /// (`Time::NEVER`: none).
    fn close_window(&mut self, end: Time, horizon: Time, by_part: &mut [Letters]) -> (Time, Time) {
        if !self.tracing.traces.is_empty() {
            // A traced port records its frames as they start: before they leave.
            for c in 0..self.part.as_ref().expect("a part").crossing.len() {
                let p = self.part.as_ref().expect("a part").crossing[c].port;
                self.catch_up_port(p, end);
            }
        }
        let part = self.part.as_mut().expect("a part");
        let (mut waiting, mut first) = (Time::NEVER, Time::NEVER);
        // Most runs acknowledge no frame: their frames need no look at their flow.
        let probed = !self.acking.none();
        for c in part.crossing.iter_mut() {
            let port = &mut self.ports[c.port as usize];
            let to = &mut by_part[part.part_of[port.peer as usize] as usize];
            while port.link.front().is_some_and(|&(at, _)| at < end) {
                debug_assert!(c.handed > 0, "a frame arrived before it was handed over");
                port.pop_arrived(end);
                c.handed -= 1;
            }
            let limit = c.limit(end, horizon, port.delay);
            while let Some(&(arrival, pkt)) = port.link.get(c.handed as usize) {
                if arrival >= limit {
                    waiting = waiting.min(arrival);
                    break;
                }
                c.handed += 1;
                first = first.min(arrival);
                let m = Mail { port: c.port, arrival, pkt, probe: NO_PROBE };
                let probe = if probed { probe_of(&self.flows, &pkt) } else { NO_PROBE };
                if probe == NO_PROBE {
                    to.post(m, None);
                } else {
                    to.post(m, Some(self.acking.probes.get(probe)));
                    self.acking.probes.close(probe);
                }
            }
        }
        (waiting, first)
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

/// What a split run did besides its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitStats {
    /// Parts, one thread each.
    pub parts: usize,
    /// Windows run (barriers met).
    pub windows: u64,
}

/// What a split run gives besides its report: how it went, and its traces.
pub struct SplitRun {
    /// The one-thread report.
    pub report: RunReport,
    /// Parts and windows.
    pub stats: SplitStats,
    /// Its traces ended, as [`Simulation::finish_traces`] ends them: the frames
    /// recorded per traced port, or the first error of any trace.
    pub traces: std::io::Result<Vec<(u32, u64)>>,
}

/// Runs `sim` split as `split`, one thread per part, and merges the parts' reports.
pub fn run(sim: Simulation, split: Split) -> RunReport {
    run_with_stats(sim, split).report
}

/// [`run`], with how many windows it took and its traces ended.
pub fn run_with_stats(sim: Simulation, split: Split) -> SplitRun {
    run_parts(sim, split, None).expect("a run nobody stops")
}

/// [`run_with_stats`], watched: every `every` of wall time the calling thread calls
/// `watch` with the simulated time every part has reached, and stops the run (`None`)
/// when it says false. (A progress bar, and an interrupt, for a run that goes in one
/// piece.)
pub fn run_watched(sim: Simulation, split: Split, every: Duration, mut watch: impl FnMut(Time) -> bool) -> Option<SplitRun> {
    run_parts(sim, split, Some((every, &mut watch)))
}

/// A watcher of a split run: how often, and what it calls (false: stop).
type Watcher<'a> = (Duration, &'a mut dyn FnMut(Time) -> bool);

/// Runs the parts, one thread each: the calling thread runs the first one, unless it
/// watches the others (then every part has a thread of its own). `None`: the watcher
/// stopped the run.
fn run_parts(mut sim: Simulation, split: Split, watcher: Option<Watcher>) -> Option<SplitRun> {
    let started = std::time::Instant::now();
    let n = split.parts.parts;
    let lookahead = split.parts.lookahead;
    let part_of: Arc<[u16]> = split.parts.part_of.into();
    let end = sim.config.duration;
    let replay = Replay::of(&sim);
    // Streamed samples: the parts' rows go to the run's sink put together.
    let streamed = sim.sampler.take_sink().map(|sink| (sink, sim.sampler.layout().clone(), sim.sampler.chunk_rows(), Replay::of(&sim)));
    let traces = sim.take_traces();
    let traced_ports: Vec<u32> = traces.iter().map(|t| t.port).collect();
    let traced = sim.traced();
    let mut parts = build_parts(sim, n, &part_of);
    for trace in traces {
        let owner = part_of[parts[0].ports[trace.port as usize].node as usize];
        parts[owner as usize].adopt_trace(trace);
    }
    if traced {
        parts.iter_mut().for_each(Simulation::as_traced);
    }
    let mut exchange = Exchange::new(n);
    exchange.streamer = streamed.map(|(sink, layout, rows, replay)| Mutex::new(Streamer::new(sink, &layout, &mut parts, replay, rows)));
    exchange.watcher = watcher.is_some().then(std::thread::current);
    let ran: Vec<(Simulation, u64)> = std::thread::scope(|s| {
        let exchange = &exchange;
        let mut parts = parts.into_iter().enumerate();
        // Unwatched, the calling thread runs the first part: one thread fewer to start,
        // with its stack and its allocator's arena.
        let first = if watcher.is_none() { parts.next() } else { None };
        let handles: Vec<_> = parts.map(|(id, part)| s.spawn(move || run_part(part, id, exchange, lookahead, end))).collect();
        let mut ran = Vec::with_capacity(n);
        match (first, watcher) {
            (Some((id, part)), _) => ran.push(run_part(part, id, exchange, lookahead, end)),
            (None, Some((every, watch))) => watch_parts(exchange, &handles, every, watch),
            (None, None) => unreachable!("an unwatched run keeps its first part"),
        }
        ran.extend(handles.into_iter().map(|h| h.join().expect("a part's thread")));
        ran
    });
    if exchange.halted.load(Ordering::Acquire) {
        return None;
    }
    let wall = started.elapsed().as_secs_f64();
    let windows = ran[0].1;
    let mut parts: Vec<Simulation> = ran.into_iter().map(|(sim, _)| sim).collect();
    let traces = finish_traces(&mut parts, &traced_ports);
    let report = merge::merge(parts, &part_of, replay, wall);
    Some(SplitRun { report, stats: SplitStats { parts: n, windows }, traces })
}

/// Ends the traces of every part: the frames recorded per port of `ports` (the traced
/// ports, in the order they were traced), or the first error of any.
fn finish_traces(parts: &mut [Simulation], ports: &[u32]) -> std::io::Result<Vec<(u32, u64)>> {
    if ports.is_empty() {
        return Ok(Vec::new());
    }
    let mut counts = Vec::with_capacity(ports.len());
    for part in parts {
        counts.extend(part.finish_traces()?);
    }
    counts.sort_by_key(|&(port, _)| ports.iter().position(|&p| p == port));
    Ok(counts)
}

/// The watcher's loop, on the calling thread while the parts run: `watch` every
/// `every` with the time the parts have reached, until they are done, or until it
/// says false (the parts then stop together at their next barrier).
fn watch_parts<T>(ex: &Exchange, parts: &[std::thread::ScopedJoinHandle<T>], every: Duration, watch: &mut dyn FnMut(Time) -> bool) {
    while !parts.iter().all(|h| h.is_finished()) {
        std::thread::park_timeout(every);
        if !watch(Time(ex.reached.load(Ordering::Relaxed))) {
            ex.stop.store(true, Ordering::Release);
            return;
        }
    }
}

/// One thread's loop: windows until the run's end, one barrier each; the part and
/// the windows it ran.
fn run_part(mut sim: Simulation, id: usize, ex: &Exchange, lookahead: Time, end: Time) -> (Simulation, u64) {
    let mut start = Time::ZERO;
    let mut windows = 0;
    // Kept from window to window for their room.
    let mut by_part: Vec<Letters> = (0..ex.next[0].len()).map(|_| Letters::default()).collect();
    let mut inbox = Letters::default();
    let _guard = BreakOnPanic(&ex.barrier);
    // No frame held back anywhere arrives before it (none at the start).
    let mut held = Time::NEVER;
    for round in 0.. {
        windows += 1;
        let until = Time(start.0.saturating_add(lookahead.0)).min(end).min(held);
        sim.run_slice(until);
        if let Some(streamer) = &ex.streamer {
            streamer.lock().expect("the streamer").take_from(id, &mut sim);
        }
        // Frames arriving within two windows are handed over; the later ones wait on
        // the sender's link (the receiver's copy holds no whole queue).
        let (waiting, first_sent) = sim.close_window(until, Time(until.0.saturating_add(2 * lookahead.0)), &mut by_part);
        let parity = round % 2;
        let next = sim.next_event().min(waiting).min(first_sent);
        for (to, letters) in by_part.iter_mut().enumerate().filter(|(_, l)| !l.mail.is_empty()) {
            ex.mailboxes[parity][to].lock().expect("a mailbox").take(letters);
        }
        ex.next[parity][id].0.store(next.0, Ordering::Release);
        ex.held[parity][id].0.store(waiting.0, Ordering::Release);
        if id == 0 {
            ex.reached.store(until.0, Ordering::Relaxed);
            ex.halting[parity].store(ex.stop.load(Ordering::Acquire), Ordering::Release);
        }
        ex.barrier.wait(round);
        std::mem::swap(&mut inbox, &mut *ex.mailboxes[parity][id].lock().expect("a mailbox"));
        sim.receive_mail(&inbox);
        inbox.clear();
        if ex.halting[parity].load(Ordering::Acquire) {
            ex.halted.store(true, Ordering::Release);
            break;
        }
        if until >= end {
            break;
        }
        let next = ex.next[parity].iter().map(|t| t.0.load(Ordering::Acquire)).min().unwrap_or(u64::MAX);
        held = Time(ex.held[parity].iter().map(|t| t.0.load(Ordering::Acquire)).min().unwrap_or(u64::MAX));
        start = Time(next).max(until).min(end);
    }
    if let Some(streamer) = &ex.streamer {
        // The last rows, fewer than a chunk.
        sim.sampler.flush();
        streamer.lock().expect("the streamer").take_from(id, &mut sim);
    }
    sim.end_part();
    if let Some(watcher) = &ex.watcher {
        watcher.unpark();
    }
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
