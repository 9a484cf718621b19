//! Streamed samples of a split run: each part streams the rows of its own columns
//! ([`Sampler::keep_only`](crate::samples::Sampler::keep_only)) in chunks of the
//! run's rows, and at the barriers the chunks every part has given are put together
//! into the rows one run streams, in its column order, and handed to the run's sink.
//!
//! A port's queue comes from the part that owns the port; a flow's columns from its
//! source's part, but for its delivered bytes, counted in its destination's part, and
//! its fair share, which no part works out: the fair shares are replayed ([`Replay`])
//! from what every part logged, up to the chunk's last sample. Every part has
//! logged what happened before a chunk's last sample once it has given the chunk (it
//! gives it at the barrier after the sample), so the replay never runs ahead of a log.

use super::super::Simulation;
use super::super::fair::{FairOp, Replay, sort_log};
use crate::samples::{Rates, SampleLayout, SampleSink};
use crate::units::Time;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Rows of samples a part gave: the first's index, their times and their values,
/// row after row.
#[derive(Debug)]
struct Chunk {
    first: u64,
    times: Vec<Time>,
    values: Vec<f64>,
}

/// The chunks a part's sampler has given and the streamer has not taken yet.
type Given = Arc<Mutex<Vec<Chunk>>>;

/// A part's sink: keeps each chunk for the streamer to take at the barrier.
struct Keep(Given);

impl SampleSink for Keep {
    fn rates(&mut self, _: Rates) {
        // The rows stay raw: the run's sink turns the counters into rates.
    }

    fn take(&mut self, first: u64, times: &[Time], values: &mut Vec<f64>) {
        let chunk = Chunk { first, times: times.to_vec(), values: std::mem::take(values) };
        self.0.lock().expect("a part's chunks").push(chunk);
    }
}

/// Where a column of the run's rows comes from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// Column `column` of part `part`'s rows.
    Part { part: u16, column: u32 },
    /// The fair share of configured flow `flow`.
    Fair { flow: u32 },
}

/// Puts the parts' rows together into the run's and streams them to the run's sink.
pub(super) struct Streamer {
    sink: Box<dyn SampleSink>,
    /// Per column of the run's rows, where it comes from.
    sources: Vec<Source>,
    /// Per part, the chunks it gave not yet put together, and where it gives them.
    waiting: Vec<VecDeque<Chunk>>,
    given: Vec<Given>,
    /// The fair shares' replay, and what it has not replayed yet of the parts' logs.
    replay: Replay,
    log: Vec<(Time, FairOp)>,
    /// Per sample replayed and not yet streamed, every configured flow's share.
    shares: VecDeque<Vec<f64>>,
    /// The run's rows being put together (kept for its room).
    rows: Vec<f64>,
}

impl Streamer {
    /// A streamer to `sink` of the rows of `layout` (the run's), for `parts` (each
    /// made its part, sampling its own columns), whose shares `replay` works out:
    /// gives every part a sink of its own, in chunks of `chunk_rows` rows.
    pub(super) fn new(
        sink: Box<dyn SampleSink>,
        layout: &SampleLayout,
        parts: &mut [Simulation],
        replay: Replay,
        chunk_rows: usize,
    ) -> Streamer {
        let sources = sources(layout, parts);
        let mut given = Vec::with_capacity(parts.len());
        for part in parts.iter_mut() {
            let chunks = Given::default();
            part.sampler.stream_in_chunks(Box::new(Keep(chunks.clone())), chunk_rows);
            given.push(chunks);
        }
        let waiting = parts.iter().map(|_| VecDeque::new()).collect();
        Streamer { sink, sources, waiting, given, replay, log: Vec::new(), shares: VecDeque::new(), rows: Vec::new() }
    }

    /// Takes what part `id` (`sim`) has given since it last did, its chunks and what
    /// it logged of the fair shares (the first part all of it, the others their
    /// completions), and streams the rows every part has given.
    pub(super) fn take_from(&mut self, id: usize, sim: &mut Simulation) {
        self.waiting[id].extend(self.given[id].lock().expect("a part's chunks").drain(..));
        self.log.extend(sim.take_fair_log());
        while self.waiting.iter().all(|w| !w.is_empty()) {
            let chunks: Vec<Chunk> = self.waiting.iter_mut().map(|w| w.pop_front().expect("a chunk")).collect();
            self.stream(&chunks, sim);
        }
    }

    /// Streams the run's rows of `chunks`, one from each part (the same rows), with
    /// the fair shares replayed over `sim`'s network.
    fn stream(&mut self, chunks: &[Chunk], sim: &Simulation) {
        let (first, times) = (chunks[0].first, &chunks[0].times);
        debug_assert!(chunks.iter().all(|c| c.first == first && c.times == *times));
        self.replay_samples(times.len(), sim);
        let widths: Vec<usize> = chunks.iter().map(|c| c.values.len() / times.len().max(1)).collect();
        self.rows.clear();
        for row in 0..times.len() {
            let shares = self.shares.pop_front().expect("a replayed sample");
            self.rows.extend(self.sources.iter().map(|&source| match source {
                Source::Part { part, column } => chunks[part as usize].values[row * widths[part as usize] + column as usize],
                Source::Fair { flow } => shares[flow as usize],
            }));
        }
        self.sink.take(first, times, &mut self.rows);
    }

    /// Replays the fair shares until `samples` more are held.
    fn replay_samples(&mut self, samples: usize, sim: &Simulation) {
        sort_log(&mut self.log);
        let network = (&sim.ports[..], &sim.weights[..]);
        let (timeline, interval) = (&sim.changes.timeline, sim.sampler.interval);
        let mut taken = 0;
        while self.shares.len() < samples {
            let (now, op) = self.log[taken];
            taken += 1;
            let shares = &mut self.shares;
            self.replay.step(now, op, timeline, network, interval, |means| shares.push_back(means.to_vec()));
        }
        self.log.drain(..taken);
    }
}

/// Per column of the run's rows (`layout`), where it comes from among `parts`.
fn sources(layout: &SampleLayout, parts: &[Simulation]) -> Vec<Source> {
    let part_of = &parts[0].part.as_ref().expect("a part").part_of;
    let ports = &parts[0].ports;
    // Per part, where each of its ports' and kept flows' columns start (and, for a
    // flow, where its delivered bytes lie among them).
    let mut port_column: Vec<Vec<u32>> = Vec::with_capacity(parts.len());
    let mut flow_column: Vec<Vec<(u32, u32)>> = Vec::with_capacity(parts.len());
    for part in parts {
        let own = part.sampler.layout();
        let mut at = vec![u32::MAX; ports.len()];
        for (column, &p) in own.ports.iter().enumerate() {
            at[p as usize] = column as u32;
        }
        port_column.push(at);
        let mut starts = vec![(u32::MAX, 0); layout.flows.len()];
        let mut column = own.ports.len() as u32;
        for (&f, cols) in part.sampler.kept_flows().unwrap_or_default().iter().zip(&own.flows) {
            starts[f as usize] = (column, cols.delivered_column() as u32);
            column += cols.count() as u32;
        }
        flow_column.push(starts);
    }
    let mut sources = Vec::with_capacity(layout.columns());
    for &p in &layout.ports {
        let part = part_of[ports[p as usize].node as usize];
        sources.push(Source::Part { part, column: port_column[part as usize][p as usize] });
    }
    for (f, cols) in layout.flows.iter().enumerate() {
        let flow = &parts[0].flows[f];
        let (src, dst) = (part_of[flow.src as usize], part_of[flow.dst as usize]);
        let from = |part: u16, k: u32| Source::Part { part, column: flow_column[part as usize][f].0 + k };
        let delivered = Source::Part { part: dst, column: flow_column[dst as usize][f].0 + flow_column[dst as usize][f].1 };
        // Rate, delivered bytes, sent bytes, fair share, then the optional series.
        sources.extend([from(src, 0), delivered, from(src, 2), Source::Fair { flow: f as u32 }]);
        sources.extend((4..cols.count() as u32).map(|k| from(src, k)));
    }
    sources
}
