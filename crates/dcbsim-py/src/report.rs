//! The run's report as the Python result reads it: a dict of plain values, each port
//! `(name, stats, queue samples)` and each flow `(name, stats, series, transfers)`,
//! made as the engine finishes the run.

use dcbsim_core::report::{ArrivalReport, ClassReport, FlowReport, IncastReport, PfcPortReport, PortReport, RunReport};
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::Time;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyModule, PyString, PyTuple};

/// Finishes `sim` and returns its report as a dict (the flows' entries hold no series
/// when the samples went to a file).
pub(crate) fn finish<'py>(py: Python<'py>, sim: Simulation) -> PyResult<Bound<'py, PyDict>> {
    // Each node's name and, on the flows' paths and among the reported ports, about
    // two ports' names per node.
    let mut names = Names::new(py, 3 * sim.config().nodes.len());
    let streamed = sim.streams_samples();
    let _paused = CollectorPaused::new(py)?;
    let (report, flows) = finish_into(py, sim, streamed, &mut names)?;
    report_dict(py, &report, flows, &mut names)
}

/// The dict of a report made whole (a split run's, `sim/parallel/`), its flows'
/// entries made from its flows.
pub(crate) fn from_report<'py>(py: Python<'py>, report: RunReport, nodes: usize) -> PyResult<Bound<'py, PyDict>> {
    let mut names = Names::new(py, 3 * nodes);
    let _paused = CollectorPaused::new(py)?;
    let flows = PyList::empty(py);
    let mut shape = Shape(None);
    for f in &report.flows {
        flows.append(flow_entry(py, f, false, &mut names, &mut shape)?)?;
    }
    report_dict(py, &report, flows, &mut names)
}

/// Python's cyclic garbage collector paused while the report's objects are made (an
/// object or more per port and flow), resumed when this is dropped if it ran: see
/// `dcbsim.bulk.collector_paused`. (At 327,680 ports the collector's passes took a
/// third of `dcbsim.run`.)
struct CollectorPaused<'py>(Option<Bound<'py, PyModule>>);

impl<'py> CollectorPaused<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import("gc")?;
        if !gc.call_method0("isenabled")?.is_truthy()? {
            return Ok(CollectorPaused(None));
        }
        gc.call_method0("disable")?;
        Ok(CollectorPaused(Some(gc)))
    }
}

impl Drop for CollectorPaused<'_> {
    fn drop(&mut self) {
        if let Some(gc) = self.0.take() {
            // Resuming cannot fail short of the interpreter's own failure; nothing to
            // report it to from here.
            let _ = gc.call_method0("enable");
        }
    }
}

fn floats<'py>(py: Python<'py>, values: impl Iterator<Item = f64>) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = values.flat_map(f64::to_le_bytes).collect();
    PyBytes::new(py, &bytes)
}

/// One Python string per node and port name of a report: the flows' ends and paths
/// name the same few nodes and ports again and again (at 90,000 flows, a string of its
/// own per mention took 20 MB).
struct Names<'py> {
    py: Python<'py>,
    made: std::collections::HashMap<Box<str>, Bound<'py, PyString>, std::hash::BuildHasherDefault<Fnv>>,
}

/// FNV-1a, for the names of a report (short, and the report's own: no hostile keys to
/// resist, which the default hash pays for at every one of a million flows' hops).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl<'py> Names<'py> {
    /// Room for `expected` names made without growing (a map grown name by name
    /// rehashed a million entries on the way at a million flows).
    fn new(py: Python<'py>, expected: usize) -> Self {
        Names { py, made: std::collections::HashMap::with_capacity_and_hasher(expected, Default::default()) }
    }

    /// The string for `name`, made once.
    fn get(&mut self, name: &str) -> Bound<'py, PyString> {
        if let Some(made) = self.made.get(name) {
            return made.clone();
        }
        let made = PyString::new(self.py, name);
        self.made.insert(name.into(), made.clone());
        made
    }
}

/// The keys of the first of many dicts made alike (a port's or a flow's stats): each
/// later one starts as a copy of it, sized and laid out, and its values are then
/// replaced in the same order; made key by key, each dict grew twice on the way.
struct Shape<'py>(Option<Bound<'py, PyDict>>);

impl<'py> Shape<'py> {
    /// A dict to fill: a copy of the first one, or a new one for the first.
    fn dict(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &self.0 {
            Some(first) => first.copy(),
            None => Ok(PyDict::new(py)),
        }
    }

    /// Keeps `filled` (its own copy) as the shape of the next ones, if none is kept.
    fn keep(&mut self, filled: &Bound<'py, PyDict>) -> PyResult<()> {
        if self.0.is_none() {
            self.0 = Some(filled.copy()?);
        }
        Ok(())
    }
}

/// A port's statistic as its stats dict holds it (a float by its bits: equal bits are
/// the very same value).
#[derive(Clone, Copy, PartialEq)]
enum Stat {
    Int(u64),
    Float(u64),
    Flag(bool),
}

impl Stat {
    fn float(x: f64) -> Stat {
        Stat::Float(x.to_bits())
    }

    fn object<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Stat::Int(n) => n.into_pyobject(py)?.into_any(),
            Stat::Float(bits) => f64::from_bits(bits).into_pyobject(py)?.into_any(),
            Stat::Flag(b) => b.into_pyobject(py)?.to_owned().into_any(),
        })
    }
}

/// The keys of a port's stats dict, in order.
const PORT_KEYS: [&str; 15] = [
    "capacity_bps",
    "buffer_bytes",
    "monitored",
    "mean_bytes",
    "std_bytes",
    "p_empty",
    "max_bytes",
    "utilization",
    "tx_frames",
    "tx_bytes",
    "dropped_frames",
    "dropped_bytes",
    "notifications",
    "ecn_marks",
    "queued_frames",
];

/// A port's statistics in the order of [`PORT_KEYS`].
fn port_stats(p: &PortReport) -> [Stat; 15] {
    [
        Stat::Int(p.capacity_bps),
        Stat::Int(p.buffer_bytes),
        Stat::Flag(p.monitored),
        Stat::float(p.stats.mean_bytes),
        Stat::float(p.stats.std_bytes),
        Stat::float(p.stats.p_empty),
        Stat::Int(p.stats.max_bytes),
        Stat::float(p.stats.utilization),
        Stat::Int(p.tx_frames),
        Stat::Int(p.tx_bytes),
        Stat::Int(p.dropped_frames),
        Stat::Int(p.dropped_bytes),
        Stat::Int(p.notifications),
        Stat::Int(p.ecn_marks),
        Stat::Int(p.queued_frames),
    ]
}

/// The first port's stats dict and statistics: each later port's dict starts as a
/// copy of it, and only the statistics that differ from the first port's are set (a
/// network's many idle ports share all but none: at 327,680 ports of a k = 64
/// fat-tree, setting all fifteen made a new number object per statistic and port).
struct PortShape<'py> {
    keys: Vec<Bound<'py, PyString>>,
    first: Option<(Bound<'py, PyDict>, [Stat; 15])>,
}

impl<'py> PortShape<'py> {
    fn new(py: Python<'py>) -> Self {
        PortShape { keys: PORT_KEYS.iter().map(|k| PyString::intern(py, k)).collect(), first: None }
    }
}

/// A port of the report: `(name, stats, queue samples)`, the name and the series kept
/// out of the stats (the result's own dict), so that nothing need be taken out of it.
fn port_entry<'py>(py: Python<'py>, p: &PortReport, names: &mut Names<'py>, shape: &mut PortShape<'py>) -> PyResult<Bound<'py, PyTuple>> {
    let stats = port_stats(p);
    let d = match &shape.first {
        Some((first, _)) => first.copy()?,
        None => PyDict::new(py),
    };
    for (k, &stat) in stats.iter().enumerate() {
        if shape.first.as_ref().is_none_or(|(_, first)| first[k] != stat) {
            d.set_item(&shape.keys[k], stat.object(py)?)?;
        }
    }
    if shape.first.is_none() {
        shape.first = Some((d.copy()?, stats));
    }
    let queue = floats(py, p.queue_bytes.iter().map(|&q| q as f64));
    PyTuple::new(py, [names.get(&p.name).into_any(), d.into_any(), queue.into_any()])
}

fn pfc_dict<'py>(py: Python<'py>, p: &PfcPortReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "name"), &p.name)?;
    d.set_item(intern!(py, "pause_sent"), p.pause_sent.to_vec())?;
    d.set_item(intern!(py, "pause_received"), p.pause_received.to_vec())?;
    d.set_item(intern!(py, "paused_time_s"), p.paused_time.iter().map(|t| t.as_secs_f64()).collect::<Vec<_>>())?;
    d.set_item(intern!(py, "paused_s"), p.paused().as_secs_f64())?;
    d.set_item(intern!(py, "ingress_bytes"), p.ingress_bytes.to_vec())?;
    d.set_item(intern!(py, "headroom_drops"), p.headroom_drops)?;
    Ok(d)
}

/// A flow of the report: `(name, stats, sampled series by metric, transfers)`, each
/// series and the transfers' arrays little-endian float64 bytes (empty where the flow
/// has none), kept out of the stats (the result's own dict). The series are `None`
/// when the samples were streamed, the transfers when the flow has no source (at a
/// million flows, each dict per flow took half a second to make).
fn flow_entry<'py>(
    py: Python<'py>,
    f: &FlowReport,
    streamed: bool,
    names: &mut Names<'py>,
    shape: &mut Shape<'py>,
) -> PyResult<Bound<'py, PyTuple>> {
    let d = shape.dict(py)?;
    d.set_item(intern!(py, "src"), names.get(&f.src))?;
    d.set_item(intern!(py, "dst"), names.get(&f.dst))?;
    d.set_item(intern!(py, "sent_frames"), f.sent_frames)?;
    d.set_item(intern!(py, "sent_bytes"), f.sent_bytes)?;
    d.set_item(intern!(py, "delivered_frames"), f.delivered_frames)?;
    d.set_item(intern!(py, "delivered_bytes"), f.delivered_bytes)?;
    d.set_item(intern!(py, "dropped_frames"), f.dropped_frames)?;
    d.set_item(intern!(py, "dropped_bytes"), f.dropped_bytes)?;
    d.set_item(intern!(py, "in_network_frames"), f.in_network_frames)?;
    d.set_item(intern!(py, "notifications"), f.notifications)?;
    d.set_item(intern!(py, "start_s"), f.start.as_secs_f64())?;
    d.set_item(intern!(py, "size_bytes"), f.size)?;
    d.set_item(intern!(py, "completion_time_s"), f.completion_time.map(Time::as_secs_f64))?;
    d.set_item(intern!(py, "ideal_completion_time_s"), f.ideal_completion_time.map(Time::as_secs_f64))?;
    d.set_item(intern!(py, "transport"), f.transport)?;
    d.set_item(intern!(py, "acked"), f.acked)?;
    d.set_item(intern!(py, "retransmits"), f.retransmits)?;
    d.set_item(intern!(py, "path"), PyList::new(py, f.path.iter().map(|hop| names.get(hop)))?)?;
    d.set_item(intern!(py, "timeouts"), f.timeouts)?;
    d.set_item(intern!(py, "weight"), f.weight)?;
    d.set_item(intern!(py, "priority"), f.priority)?;
    d.set_item(intern!(py, "offered_bps"), f.offered_bps)?;
    let source = f.source.as_ref();
    d.set_item(intern!(py, "offered_bytes"), source.map(|s| s.offered_bytes))?;
    d.set_item(intern!(py, "transfers"), source.map(|s| s.transfers))?;
    d.set_item(intern!(py, "transfers_completed"), source.map(|s| s.transfers_completed))?;
    shape.keep(&d)?;
    let series = if streamed { py.None().into_bound(py) } else { flow_series(py, f)?.into_any() };
    let transfers = match source {
        None => py.None().into_bound(py),
        Some(s) => {
            let transfers = PyDict::new(py);
            transfers.set_item(intern!(py, "transfer_completion_s"), floats(py, s.completion_s.iter().copied()))?;
            transfers.set_item(intern!(py, "transfer_bytes"), floats(py, s.completed_bytes.iter().map(|&b| b as f64)))?;
            transfers.into_any()
        }
    };
    PyTuple::new(py, [PyString::new(py, &f.name).into_any(), d.into_any(), series, transfers])
}

/// A flow's sampled series by metric, little-endian float64 bytes each.
fn flow_series<'py>(py: Python<'py>, f: &FlowReport) -> PyResult<Bound<'py, PyDict>> {
    let series = PyDict::new(py);
    series.set_item(intern!(py, "rate_bps"), floats(py, f.rate_bps.iter().copied()))?;
    series.set_item(intern!(py, "throughput_bps"), floats(py, f.throughput_bps.iter().copied()))?;
    series.set_item(intern!(py, "send_bps"), floats(py, f.send_bps.iter().copied()))?;
    series.set_item(intern!(py, "fair_share_bps"), floats(py, f.fair_share_bps.iter().copied()))?;
    series.set_item(intern!(py, "cwnd_segments"), floats(py, f.cwnd_segments.iter().copied()))?;
    series.set_item(intern!(py, "alpha"), floats(py, f.alpha.iter().copied()))?;
    series.set_item(intern!(py, "window_bytes"), floats(py, f.window_bytes.iter().copied()))?;
    series.set_item(intern!(py, "rtt_us"), floats(py, f.rtt_us.iter().copied()))?;
    Ok(series)
}

fn arrival_dict<'py>(py: Python<'py>, a: &ArrivalReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "name"), &a.name)?;
    d.set_item(intern!(py, "flows"), a.flows)?;
    d.set_item(intern!(py, "sent_frames"), a.sent_frames)?;
    d.set_item(intern!(py, "delivered_frames"), a.delivered_frames)?;
    d.set_item(intern!(py, "delivered_bytes"), a.delivered_bytes)?;
    d.set_item(intern!(py, "dropped_frames"), a.dropped_frames)?;
    d.set_item(intern!(py, "in_network_frames"), a.in_network_frames)?;
    d.set_item(intern!(py, "completion_s"), floats(py, a.completion_s.iter().copied()))?;
    d.set_item(intern!(py, "completed_bytes"), floats(py, a.completed_bytes.iter().map(|&b| b as f64)))?;
    d.set_item(intern!(py, "ideal_s"), floats(py, a.ideal_s.iter().copied()))?;
    d.set_item(intern!(py, "each_start_s"), floats(py, a.each.iter().map(|f| f.start_s)))?;
    d.set_item(intern!(py, "each_bytes"), floats(py, a.each.iter().map(|f| f.bytes as f64)))?;
    d.set_item(intern!(py, "each_delivered_bytes"), floats(py, a.each.iter().map(|f| f.delivered_bytes as f64)))?;
    d.set_item(intern!(py, "each_completion_s"), floats(py, a.each.iter().map(|f| f.completion_s.unwrap_or(f64::NAN))))?;
    d.set_item(intern!(py, "each_ideal_s"), floats(py, a.each.iter().map(|f| f.ideal_s)))?;
    d.set_item(intern!(py, "retransmits"), a.retransmits)?;
    d.set_item(intern!(py, "timeouts"), a.timeouts)?;
    Ok(d)
}

fn incast_dict<'py>(py: Python<'py>, a: &IncastReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "servers"), a.servers)?;
    d.set_item(intern!(py, "sru_bytes"), a.sru_bytes)?;
    d.set_item(intern!(py, "block_start_s"), floats(py, a.blocks.iter().map(|b| b.start.as_secs_f64())))?;
    d.set_item(intern!(py, "block_time_s"), floats(py, a.blocks.iter().map(|b| b.time.as_secs_f64())))?;
    d.set_item(intern!(py, "block_bytes"), floats(py, a.blocks.iter().map(|b| b.bytes as f64)))?;
    d.set_item(intern!(py, "block_timeouts"), floats(py, a.blocks.iter().map(|b| b.timeouts as f64)))?;
    d.set_item(intern!(py, "goodput_bps"), a.goodput_bps())?;
    d.set_item(intern!(py, "timeouts"), a.timeouts())?;
    Ok(d)
}

fn class_dict<'py>(py: Python<'py>, c: &ClassReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "priority"), c.priority)?;
    d.set_item(intern!(py, "flows"), c.flows)?;
    let n = &c.counters;
    d.set_item(intern!(py, "sent_frames"), n.sent_frames)?;
    d.set_item(intern!(py, "sent_bytes"), n.sent_bytes)?;
    d.set_item(intern!(py, "delivered_frames"), n.delivered_frames)?;
    d.set_item(intern!(py, "delivered_bytes"), n.delivered_bytes)?;
    d.set_item(intern!(py, "dropped_frames"), n.dropped_frames)?;
    d.set_item(intern!(py, "dropped_bytes"), n.dropped_bytes)?;
    d.set_item(intern!(py, "throughput_bps"), c.throughput_bps)?;
    Ok(d)
}

/// Finishes `sim`, turning each flow's report into its entry as the engine makes it
/// (`streamed`: the samples went to a file, so the entries hold no series). At a
/// million flows, the reports held at once took 500 MB of fresh memory, and most of
/// the time of finishing.
fn finish_into<'py>(py: Python<'py>, sim: Simulation, streamed: bool, names: &mut Names<'py>) -> PyResult<(RunReport, Bound<'py, PyList>)> {
    let flows = PyList::empty(py);
    let mut failed = None;
    let mut shape = Shape(None);
    let report = sim.finish_with(|f| {
        if failed.is_none() {
            if let Err(e) = flow_entry(py, &f, streamed, names, &mut shape).and_then(|entry| flows.append(entry)) {
                failed = Some(e);
            }
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok((report, flows)),
    }
}

/// The report as the result reads it: `flows` holds the flows' entries (made as the
/// engine reports each, see [`finish_into`]), `names` the strings made so far.
fn report_dict<'py>(py: Python<'py>, r: &RunReport, flows: Bound<'py, PyList>, names: &mut Names<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "time_s"), floats(py, r.sample_times.iter().map(|t| t.as_secs_f64())))?;
    d.set_item(intern!(py, "streamed_samples"), r.streamed_samples)?;
    let ports = PyList::empty(py);
    let mut shape = PortShape::new(py);
    for p in &r.ports {
        ports.append(port_entry(py, p, names, &mut shape)?)?;
    }
    d.set_item(intern!(py, "ports"), ports)?;
    d.set_item(intern!(py, "flows"), flows)?;
    let arrivals = PyList::empty(py);
    for a in &r.arrivals {
        arrivals.append(arrival_dict(py, a)?)?;
    }
    d.set_item(intern!(py, "arrivals"), arrivals)?;
    match &r.incast {
        Some(a) => d.set_item(intern!(py, "incast"), incast_dict(py, a)?)?,
        None => d.set_item(intern!(py, "incast"), py.None())?,
    }
    let classes = PyList::empty(py);
    for c in &r.classes {
        classes.append(class_dict(py, c)?)?;
    }
    d.set_item(intern!(py, "classes"), classes)?;
    let pfc = PyList::empty(py);
    for p in &r.pfc {
        pfc.append(pfc_dict(py, p)?)?;
    }
    d.set_item(intern!(py, "pfc"), pfc)?;
    d.set_item(intern!(py, "simulated_s"), r.simulated.as_secs_f64())?;
    d.set_item(intern!(py, "events"), r.events)?;
    d.set_item(intern!(py, "wall_s"), r.wall_seconds)?;
    d.set_item(intern!(py, "sim_speed"), r.speed())?;
    Ok(d)
}
