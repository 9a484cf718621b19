//! Periodic samples: the queue of each monitored port, and per flow its rate, its
//! throughput and sending throughput over the interval, its fair share (and over a
//! transport its window and DCTCP's α).
//!
//! A sample appends one row of values to a chunk buffer; a full chunk goes either to
//! memory (one series per column, handed over by the report) or to a [`SampleSink`]
//! that takes it away (to disk), so that a run streaming its samples holds one chunk
//! of them whatever its length.

use crate::units::{Time, u64_to_f64};

/// Values (rows × columns) a chunk holds before it goes to its store: 512 KiB, or
/// [`MIN_CHUNK_ROWS`] rows of a wider sample.
pub const CHUNK_VALUES: usize = 64 * 1024;

/// Rows a chunk holds at least, so that moving a chunk column by column costs little
/// per value however many columns a row has. (Fewer rows make wide runs slightly
/// faster but the sample file twice as slow to read back: docs/speed.md.)
pub const MIN_CHUNK_ROWS: usize = 16;

/// Chunks a streaming run holds at once: the one being filled, one handed over and
/// waiting, and one being written.
pub const CHUNKS_HELD: usize = 3;

/// Where full chunks of sample rows go when a run streams its samples.
///
/// It is called once per chunk (not per sample), and once more at the end of the run
/// with the rows left.
pub trait SampleSink: Send {
    /// Takes the run's [`Rates`], before any row: the rows that follow hold each
    /// flow's byte counters raw, for the sink to turn into rates with it, chunk
    /// after chunk in order (see [`Rates::apply`]).
    fn rates(&mut self, rates: Rates);

    /// Takes the rows of samples `first..first + times.len()`: row `s` holds
    /// `values[s * columns..(s + 1) * columns]`, in the order of the run's
    /// [`SampleLayout::columns`]. The sink may keep the vector itself, leaving
    /// another in its place (a spare of an earlier chunk: no copy, no allocation);
    /// whatever it leaves is cleared and used for the next chunk.
    fn take(&mut self, first: u64, times: &[Time], values: &mut Vec<f64>);
}

/// What a part of a split run keeps of a flow's series (see [`Sampler::keep_only`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepFlow {
    /// None: the flow neither starts nor ends in the part.
    Not,
    /// Its delivered bytes: the part receives the flow but does not send it.
    Delivered,
    /// All of them: the part sends the flow.
    Whole,
}

/// Which series one flow's samples hold beside its rate, throughput, sending
/// throughput and fair share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowColumns {
    /// Its transport's congestion window, segments.
    pub cwnd: bool,
    /// DCTCP's α.
    pub alpha: bool,
    /// Its reaction point's window (bytes) and last RTT (µs): a flow whose frames
    /// are acknowledged one by one.
    pub acked: bool,
    /// Its delivered bytes alone, the one series a part of a split run reads of a
    /// flow it receives and does not send (see [`Sampler::keep_only`]).
    pub delivered_only: bool,
}

impl FlowColumns {
    /// Number of columns of the flow.
    pub fn count(self) -> usize {
        match self.delivered_only {
            true => 1,
            false => 4 + self.cwnd as usize + self.alpha as usize + 2 * self.acked as usize,
        }
    }

    /// Where its delivered bytes lie among its columns.
    pub fn delivered_column(self) -> usize {
        if self.delivered_only { 0 } else { 1 }
    }
}

/// Turns the byte counters a sample row holds raw into throughputs over the interval.
///
/// A sample records each flow's delivered and sent byte counters as they are (their
/// bits in the row's `f64` slots): the difference from the sample before, over the
/// interval, is worked out chunk by chunk, by the sink's own thread when the samples
/// stream, so the loop's sample neither reads nor writes a running total per flow
/// (at 4,096 flows sampled every millisecond, the run took 0.95 of the time).
#[derive(Clone, Debug)]
pub struct Rates {
    /// The row's raw counter columns, in order.
    columns: Vec<u32>,
    /// Each counter column's value at the row before.
    last: Vec<u64>,
    /// Bits per second per byte over one interval.
    per_second: f64,
    /// Values per row.
    width: usize,
}

impl Rates {
    /// The counters of `layout`'s rows, sampled every `interval`.
    pub fn new(layout: &SampleLayout, interval: Time) -> Rates {
        let mut columns = Vec::with_capacity(2 * layout.flows.len());
        let mut at = layout.ports.len();
        for flow in &layout.flows {
            match flow.delivered_only {
                true => columns.push(at as u32),
                false => columns.extend([at as u32 + 1, at as u32 + 2]),
            }
            at += flow.count();
        }
        let last = vec![0; columns.len()];
        Rates { columns, last, per_second: 8.0 / interval.as_secs_f64(), width: layout.columns() }
    }

    /// Turns the raw counters of the rows in `values` (whole rows, the next ones of
    /// the run) into throughputs, bits per second over the interval before each.
    pub fn apply(&mut self, values: &mut [f64]) {
        if self.columns.is_empty() {
            return;
        }
        for row in values.chunks_exact_mut(self.width) {
            for (&column, last) in self.columns.iter().zip(self.last.iter_mut()) {
                let slot = &mut row[column as usize];
                let count = slot.to_bits();
                *slot = u64_to_f64(count - *last) * self.per_second;
                *last = count;
            }
        }
    }
}

/// A flow's four staged values: its byte counters' bits stand in their slots until
/// [`Rates::apply`] turns them into throughputs.
#[inline(always)]
fn flow_values(rate: f64, delivered: u64, sent: u64, fair: f64) -> [f64; 4] {
    [rate, f64::from_bits(delivered), f64::from_bits(sent), fair]
}

/// The columns of a sample row: the monitored switch ports' queues (by port index),
/// then per configured flow `rate, throughput, send, fair share[, cwnd[, alpha]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleLayout {
    /// Monitored ports, by index, each once.
    pub ports: Vec<u32>,
    /// Per configured flow, its optional series.
    pub flows: Vec<FlowColumns>,
}

impl SampleLayout {
    /// Number of values per row.
    pub fn columns(&self) -> usize {
        self.ports.len() + self.flows.iter().map(|f| f.count()).sum::<usize>()
    }
}

/// [`Sampler`]'s column of a port whose queue is not sampled.
const NOT_SAMPLED: u32 = u32::MAX;

/// Where the rows go once a chunk is full.
enum Store {
    /// One series per column, in memory (made at the first chunk, each sized for the
    /// samples expected).
    Memory(Vec<Vec<f64>>, usize),
    /// Handed to a sink, which takes them away.
    Sink(Box<dyn SampleSink>),
}

/// The periodic samples of a run.
pub struct Sampler {
    /// Sampling period.
    pub interval: Time,
    /// Sample times so far (8 bytes per sample, whatever the number of series).
    pub times: Vec<Time>,
    layout: SampleLayout,
    /// Per port index, its column among the ports ([`NOT_SAMPLED`]: none).
    port_column: Vec<u32>,
    /// Values per row.
    columns: usize,
    /// Rows per chunk.
    chunk_rows: usize,
    /// The rows of the chunk being filled, row-major.
    staged: Vec<f64>,
    /// Index of the chunk's first sample.
    staged_from: usize,
    store: Store,
    /// The rates of the rows held in memory (`None` once a sink took them).
    rates: Option<Rates>,
    /// The configured flows whose series the rows hold, in order, when not every
    /// flow's (see [`Sampler::keep_only`]).
    kept_flows: Option<Vec<u32>>,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler").field("interval", &self.interval).field("samples", &self.times.len()).finish()
    }
}

impl Sampler {
    /// A sampler with the given columns, expecting `samples` samples, keeping them in
    /// memory until [`Sampler::stream_to`] gives it a sink.
    pub fn new(interval: Time, layout: SampleLayout, samples: usize) -> Sampler {
        let chunk_rows = (CHUNK_VALUES / layout.columns().max(1)).max(MIN_CHUNK_ROWS);
        Sampler::with_chunk_rows(interval, layout, samples, chunk_rows)
    }

    /// [`Sampler::new`], staging `chunk_rows` rows at a time.
    fn with_chunk_rows(interval: Time, layout: SampleLayout, samples: usize, chunk_rows: usize) -> Sampler {
        let columns = layout.columns();
        let mut port_column = vec![NOT_SAMPLED; layout.ports.iter().max().map_or(0, |&p| p as usize + 1)];
        for (column, &p) in layout.ports.iter().enumerate() {
            port_column[p as usize] = column as u32;
        }
        Sampler {
            port_column,
            interval,
            times: Vec::with_capacity(samples),
            columns,
            chunk_rows,
            staged: Vec::with_capacity(chunk_rows.min(samples) * columns),
            staged_from: 0,
            store: Store::Memory(Vec::new(), samples),
            rates: Some(Rates::new(&layout, interval)),
            layout,
            kept_flows: None,
        }
    }

    /// Keeps only the queues of the ports `port` selects and what `flow` says of
    /// each configured flow's series (by index): a part of a split run samples what
    /// the merged report takes from it alone. Call it before the first sample; the
    /// rows then hold the kept flows only, which [`Sampler::record_kept_flows`]
    /// records.
    pub fn keep_only(&mut self, port: impl Fn(u32) -> bool, flow: impl Fn(usize) -> KeepFlow) {
        debug_assert!(self.times.is_empty() && !self.streams());
        let (mut kept, mut flows) = (Vec::new(), Vec::new());
        for (f, &columns) in self.layout.flows.iter().enumerate() {
            match flow(f) {
                KeepFlow::Not => continue,
                KeepFlow::Delivered => flows.push(FlowColumns { delivered_only: true, ..FlowColumns::default() }),
                KeepFlow::Whole => flows.push(columns),
            }
            kept.push(f as u32);
        }
        let layout = SampleLayout { ports: self.layout.ports.iter().copied().filter(|&p| port(p)).collect(), flows };
        let samples = match self.store {
            Store::Memory(_, expected) => expected,
            Store::Sink(_) => 0,
        };
        // The run's rows per chunk, not the part's: the parts together then stage what
        // one run stages (each its own columns), not a whole chunk each.
        let kept_sampler = Sampler::with_chunk_rows(self.interval, layout, samples, self.chunk_rows);
        *self = Sampler { kept_flows: Some(kept), ..kept_sampler };
    }

    /// The configured flows whose series the rows hold, when not every flow's (see
    /// [`Sampler::keep_only`]).
    pub fn kept_flows(&self) -> Option<&[u32]> {
        self.kept_flows.as_deref()
    }

    /// Records the flow part of the row when the sampler keeps some flows only
    /// (`false`, recording nothing, when it keeps them all): `record` records each
    /// kept flow's values in turn, given the flow's index, but for a flow kept for its
    /// delivered bytes alone, whose counter `delivered` gives.
    #[inline]
    pub fn record_kept_flows(&mut self, mut record: impl FnMut(usize, &mut Sampler), delivered: impl Fn(usize) -> u64) -> bool {
        let Some(kept) = self.kept_flows.take() else { return false };
        for (k, &f) in kept.iter().enumerate() {
            match self.layout.flows[k].delivered_only {
                true => self.staged.push(f64::from_bits(delivered(f as usize))),
                false => record(f as usize, self),
            }
        }
        self.kept_flows = Some(kept);
        true
    }

    /// Hands every later chunk to `sink` instead of keeping it (call it before the
    /// first sample); the chunk buffer is sized for a full chunk, and chunks hold
    /// fewer rows where [`CHUNKS_HELD`] of them would take more than `budget` bytes
    /// (one row at least).
    pub fn stream_to(&mut self, sink: Box<dyn SampleSink>, budget: usize) {
        let row_bytes = 8 * self.columns.max(1);
        let chunk_rows = self.chunk_rows.min((budget / (CHUNKS_HELD * row_bytes)).max(1));
        self.stream_in_chunks(sink, chunk_rows);
    }

    /// [`Sampler::stream_to`] in chunks of `chunk_rows` rows.
    pub fn stream_in_chunks(&mut self, mut sink: Box<dyn SampleSink>, chunk_rows: usize) {
        debug_assert!(self.times.is_empty());
        self.chunk_rows = chunk_rows;
        if let Some(rates) = self.rates.take() {
            sink.rates(rates);
        }
        self.store = Store::Sink(sink);
        self.staged = Vec::with_capacity(self.chunk_rows * self.columns);
    }

    /// Takes back the sink the samples were to stream to, if any, before the first
    /// sample: they stay in memory unless streamed again (a split run hands each part
    /// a sink of its own, and the rows they give to this one).
    pub fn take_sink(&mut self) -> Option<Box<dyn SampleSink>> {
        debug_assert!(self.times.is_empty());
        if !self.streams() {
            return None;
        }
        let Store::Sink(sink) = std::mem::replace(&mut self.store, Store::Memory(Vec::new(), 0)) else { unreachable!() };
        Some(sink)
    }

    /// Whether the samples go to a sink.
    pub fn streams(&self) -> bool {
        matches!(self.store, Store::Sink(_))
    }

    /// The columns of a row.
    pub fn layout(&self) -> &SampleLayout {
        &self.layout
    }

    /// Rows per chunk.
    pub fn chunk_rows(&self) -> usize {
        self.chunk_rows
    }

    /// When the next sample is taken: the interval after the last one taken.
    #[inline]
    pub fn next_time(&self) -> Time {
        Time(self.interval.0 * (self.times.len() as u64 + 1))
    }

    /// Starts the sample at `now`: its row follows, value by value in column order.
    #[inline]
    pub fn begin(&mut self, now: Time) {
        self.times.push(now);
        self.staged.reserve(self.columns);
    }

    /// The column of port `port`'s queue, if samples record it.
    #[inline]
    fn port_column(&self, port: u32) -> Option<usize> {
        self.port_column.get(port as usize).filter(|&&c| c != NOT_SAMPLED).map(|&c| c as usize)
    }

    /// Whether samples record the queue of port `port`.
    pub fn samples_port(&self, port: u32) -> bool {
        self.port_column(port).is_some()
    }

    /// Records the queue of each monitored port: `queued` gives the bytes of the
    /// ports whose queue may not be empty, each once (a port not monitored is
    /// skipped); every other monitored port's queue is empty.
    #[inline]
    pub fn record_queues(&mut self, queued: impl Iterator<Item = (u32, u64)>) {
        let row = self.staged.len();
        self.staged.resize(row + self.layout.ports.len(), 0.0);
        for (port, bytes) in queued {
            if let Some(column) = self.port_column(port) {
                self.staged[row + column] = bytes as f64;
            }
        }
    }

    /// Records one flow's rate, its delivered and sent byte counters (raw: they
    /// become its throughput and sending throughput since the last sample, see
    /// [`Rates`]), and its mean fair share over the interval.
    #[inline]
    pub fn record_flow(&mut self, rate: f64, delivered: u64, sent: u64, fair: f64) {
        self.staged.extend_from_slice(&flow_values(rate, delivered, sent, fair));
    }

    /// Whether every flow has the four plain series only (no window, no α), so that
    /// [`Sampler::record_plain_flows`] can take the whole row's flow part at once.
    pub fn plain_flows(&self) -> bool {
        self.columns == self.layout.ports.len() + 4 * self.layout.flows.len()
    }

    /// [`Sampler::record_flow`] for every flow in order, when the flows are plain:
    /// `rows` yields each flow's (rate, delivered bytes, sent bytes, fair share), in
    /// one extend of known length (pushing each flow's values in turn would store and
    /// reload the vector's length per flow).
    #[inline]
    pub fn record_plain_flows(&mut self, rows: impl Iterator<Item = (f64, u64, u64, f64)>) {
        debug_assert!(self.plain_flows());
        let values = rows.map(|(rate, delivered, sent, fair)| flow_values(rate, delivered, sent, fair));
        self.staged.extend(values.flatten());
    }

    /// Records one more value of the row (a window, an α).
    #[inline]
    pub fn record(&mut self, value: f64) {
        self.staged.push(value);
    }

    /// Ends the sample's row; a full chunk goes to its store. (Counted in rows: a part
    /// of a split run that samples no column still gives its chunks in step with the
    /// others.)
    #[inline]
    pub fn end(&mut self) {
        debug_assert_eq!(self.staged.len() % self.columns.max(1), 0);
        if self.times.len() - self.staged_from >= self.chunk_rows {
            self.flush();
        }
    }

    /// Moves the staged rows to the store: column by column into memory, or to the sink.
    #[inline(never)]
    pub fn flush(&mut self) {
        match &mut self.store {
            Store::Memory(series, expected) => {
                if series.is_empty() {
                    *series = (0..self.columns).map(|_| Vec::with_capacity(*expected)).collect();
                }
                if let Some(rates) = self.rates.as_mut() {
                    rates.apply(&mut self.staged);
                }
                // Eight columns at a time: each staged row then gives one cache line,
                // read once from memory and seven more times from the first-level cache.
                let (staged, columns) = (&self.staged, self.columns);
                for (block, out) in series.chunks_mut(8).enumerate() {
                    for (k, s) in out.iter_mut().enumerate() {
                        s.extend(staged.chunks_exact(columns).map(|row| row[block * 8 + k]));
                    }
                }
            }
            Store::Sink(_) if self.times.len() == self.staged_from => {}
            Store::Sink(sink) => {
                sink.take(self.staged_from as u64, &self.times[self.staged_from..], &mut self.staged);
                self.staged.reserve(self.chunk_rows * self.columns);
            }
        }
        self.staged.clear();
        self.staged_from = self.times.len();
    }

    /// Hands over every column's series, in column order; none at all when the
    /// samples went to a sink (a million flows' empty columns took 96 MB).
    pub fn take_series(&mut self) -> Vec<Vec<f64>> {
        self.flush();
        match &mut self.store {
            Store::Memory(series, _) if series.len() == self.columns => std::mem::take(series),
            Store::Memory(..) => vec![Vec::new(); self.columns],
            Store::Sink(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Each chunk a sink was given: its first sample, rows and values.
    type Kept = Arc<Mutex<Vec<(u64, usize, Vec<f64>)>>>;

    /// A sink keeping what it was given, its counters turned into rates, to compare
    /// with the memory store.
    struct Keep(Kept, Option<Rates>);

    impl Keep {
        fn new(kept: Kept) -> Box<Keep> {
            Box::new(Keep(kept, None))
        }
    }

    impl SampleSink for Keep {
        fn rates(&mut self, rates: Rates) {
            self.1 = Some(rates);
        }

        fn take(&mut self, first: u64, times: &[Time], values: &mut Vec<f64>) {
            if let Some(rates) = self.1.as_mut() {
                rates.apply(values);
            }
            self.0.lock().unwrap().push((first, times.len(), std::mem::take(values)));
        }
    }

    fn layout() -> SampleLayout {
        SampleLayout { ports: vec![3], flows: vec![FlowColumns::default(), FlowColumns { cwnd: true, ..FlowColumns::default() }] }
    }

    fn sample(s: &mut Sampler, k: u64) {
        s.begin(Time(k * 1000));
        s.record_queues([(3, 3 * k), (5, 99)].into_iter());
        s.record_flow(1.0, 100 * k, 200 * k, 5.0);
        s.record_flow(2.0, 10 * k, 20 * k, 6.0);
        s.record(k as f64);
        s.end();
    }

    #[test]
    fn memory_store_gives_each_column_its_series() {
        let mut s = Sampler::new(Time(1_000_000_000_000), layout(), 3);
        for k in 1..=3 {
            sample(&mut s, k);
        }
        let series = s.take_series();
        assert_eq!(series.len(), 10);
        assert_eq!(series[0], vec![3.0, 6.0, 9.0]);
        assert_eq!(series[2], vec![800.0, 800.0, 800.0]);
        // The second flow's counters, behind the first flow's five columns.
        assert_eq!((series[6].clone(), series[7].clone()), (vec![80.0; 3], vec![160.0; 3]));
        assert_eq!(series[9], vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_streaming_run_holds_its_chunks_within_the_budget() {
        let wide = SampleLayout { ports: (0..1000).collect(), flows: vec![FlowColumns::default(); 200_000] };
        let row = 8 * wide.columns();
        let mut s = Sampler::new(Time(1000), wide.clone(), 0);
        assert_eq!(s.chunk_rows(), MIN_CHUNK_ROWS);
        s.stream_to(Keep::new(Default::default()), 64_000_000);
        assert!(s.chunk_rows() * CHUNKS_HELD * row <= 64_000_000 && s.chunk_rows() >= 1, "{} rows", s.chunk_rows());
        assert!(s.chunk_rows() < MIN_CHUNK_ROWS);
        // One row each, however small the budget; a narrow run keeps its chunks whole.
        let mut tiny = Sampler::new(Time(1000), wide, 0);
        tiny.stream_to(Keep::new(Default::default()), 1);
        assert_eq!(tiny.chunk_rows(), 1);
        let mut narrow = Sampler::new(Time(1000), layout(), 0);
        let rows = narrow.chunk_rows();
        narrow.stream_to(Keep::new(Default::default()), 64_000_000);
        assert_eq!(narrow.chunk_rows(), rows);
    }

    #[test]
    fn a_part_stages_the_runs_rows_of_its_own_columns_only() {
        // 1,000 ports and 750 flows: 4,000 columns, 16 rows a chunk.
        let wide = SampleLayout { ports: (0..1000).collect(), flows: vec![FlowColumns::default(); 750] };
        let mut part = Sampler::new(Time(1000), wide, 100);
        let rows = part.chunk_rows();
        part.keep_only(|p| p < 500, |f| if f < 375 { KeepFlow::Whole } else { KeepFlow::Not });
        // Half the columns, the same rows: the parts together stage one run's chunk.
        assert_eq!(part.chunk_rows(), rows);
        assert_eq!(part.staged.capacity(), rows * (500 + 4 * 375));
    }

    #[test]
    fn a_sink_gets_full_chunks_then_the_rest_and_the_same_rows() {
        let mut memory = Sampler::new(Time(1000), layout(), 0);
        let kept = Arc::new(Mutex::new(Vec::new()));
        let mut streamed = Sampler::new(Time(1000), layout(), 0);
        streamed.stream_to(Keep::new(kept.clone()), usize::MAX);
        let n = streamed.chunk_rows() as u64 * 2 + 5;
        for k in 1..=n {
            sample(&mut memory, k);
            sample(&mut streamed, k);
        }
        assert!(streamed.take_series().is_empty());
        let memory = memory.take_series();
        let kept = kept.lock().unwrap();
        let sizes: Vec<(u64, usize)> = kept.iter().map(|(f, r, _)| (*f, *r)).collect();
        let rows = streamed.chunk_rows();
        assert_eq!(sizes, vec![(0, rows), (rows as u64, rows), (2 * rows as u64, 5)]);
        let all: Vec<f64> = kept.iter().flat_map(|(_, _, v)| v.iter().copied()).collect();
        for (c, series) in memory.iter().enumerate() {
            let column: Vec<f64> = all[c..].iter().step_by(10).copied().collect();
            assert_eq!(&column, series);
        }
    }
}
