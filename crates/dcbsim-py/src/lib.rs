//! Python bindings of dcbsim: the private module `dcbsim._core`.
//!
//! Only conversions live here: scenarios in, run reports out as a dict of plain values
//! and little-endian float64 byte strings (read with `numpy.frombuffer`; made in
//! `report.rs`). Runs release the GIL, slice by slice, and report progress between
//! slices; finishing holds it, each flow's entry made as the engine reports the flow.

use dcbsim_core::units::Time;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;
use std::time::Instant;

mod fairness;
mod json;
mod parquet;
mod report;
mod table;
mod tidy;

create_exception!(_core, ScenarioError, PyValueError, "A scenario that cannot run: the message names the file, position and key.");

fn scenario_error(e: dcbsim_scenario::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

fn trace_error(e: dcbsim_scenario::TraceError) -> PyErr {
    match e {
        dcbsim_scenario::TraceError::Input(e) => scenario_error(e),
        dcbsim_scenario::TraceError::Io(msg) => pyo3::exceptions::PyOSError::new_err(msg),
    }
}

/// A validated scenario.
/// How often the thread that runs a split run from Python moves the progress bar and
/// looks for an interrupt.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

#[pyclass(module = "dcbsim._core", frozen)]
struct Scenario {
    inner: dcbsim_scenario::Scenario,
    /// The simulation its loading built, with its own seed, when asked to keep it
    /// for the first run (taken by that run).
    built: std::sync::Mutex<Option<dcbsim_core::sim::Simulation>>,
}

impl Scenario {
    fn new(inner: dcbsim_scenario::Scenario, built: Option<dcbsim_core::sim::Simulation>) -> Scenario {
        Scenario { inner, built: std::sync::Mutex::new(built) }
    }

    /// The kept simulation, if any, for a run with `seed`.
    fn take_built(&self, seed: u64) -> Option<dcbsim_core::sim::Simulation> {
        if seed != self.inner.seed {
            return None;
        }
        self.built.lock().ok().and_then(|mut built| built.take())
    }
}

#[pymethods]
impl Scenario {
    /// Reads and validates the scenario file at `path`, after `overrides`; a run needing
    /// more than `max_memory_gb` (default 4) is refused. With `keep_built`, the
    /// simulation that validating it built is kept for the first run with the
    /// scenario's own seed (which then need not build it again), holding its memory
    /// until then. The GIL is released while the file is read and the network built
    /// (other threads run meanwhile: the command imports its plotting modules).
    #[staticmethod]
    #[pyo3(signature = (path, overrides = Vec::new(), max_memory_gb = None, keep_built = false))]
    fn load(py: Python<'_>, path: &str, overrides: Vec<String>, max_memory_gb: Option<f64>, keep_built: bool) -> PyResult<Scenario> {
        let limits = limits(max_memory_gb)?;
        let (inner, sim) = py.detach(|| dcbsim_scenario::load_file_built(Path::new(path), &overrides, &limits)).map_err(scenario_error)?;
        Ok(Scenario::new(inner, keep_built.then_some(sim)))
    }

    /// Reads and validates a scenario given as text (`keep_built` as for `load`).
    #[staticmethod]
    #[pyo3(signature = (text, file = "<string>", overrides = Vec::new(), max_memory_gb = None, keep_built = false))]
    fn loads(text: &str, file: &str, overrides: Vec<String>, max_memory_gb: Option<f64>, keep_built: bool) -> PyResult<Scenario> {
        let limits = limits(max_memory_gb)?;
        let (inner, sim) = dcbsim_scenario::load_str_built(text, file, &overrides, &limits).map_err(scenario_error)?;
        Ok(Scenario::new(inner, keep_built.then_some(sim)))
    }

    /// The run's estimated needs: `(memory_bytes, events)` (events at most).
    #[getter]
    fn estimate(&self) -> (f64, f64) {
        let e = self.inner.estimate();
        (e.memory_bytes(), e.events)
    }

    /// Bytes a run will write to disk, estimated: its results file, and the file its
    /// samples stream to while it runs when they do.
    #[getter]
    fn output_bytes(&self) -> f64 {
        self.inner.output_bytes()
    }

    /// The scenario file as given.
    #[getter]
    fn file(&self) -> &str {
        &self.inner.file
    }

    /// The run's name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// The scenario as run, as TOML.
    #[getter]
    fn toml(&self) -> &str {
        &self.inner.toml
    }

    /// The scenario's own seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed
    }

    /// Simulated duration, seconds.
    #[getter]
    fn duration_s(&self) -> f64 {
        self.inner.config.duration.as_secs_f64()
    }

    /// Whether a run streams its samples to disk (they would take more memory than
    /// `output.sample_memory_mb`).
    #[getter]
    fn streams_samples(&self) -> bool {
        self.inner.streams_samples()
    }

    /// `output.sample_memory_mb` in bytes: the memory the samples may take.
    #[getter]
    fn sample_memory_bytes(&self) -> f64 {
        self.inner.sample_memory_bytes
    }

    /// `output.compression`: how the run's Parquet tables are compressed (`zstd`,
    /// `lz4`, `snappy` or `none`).
    #[getter]
    fn compression(&self) -> &'static str {
        self.inner.compression.name()
    }

    /// The congestion-management scheme's name.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.inner.config.scheme.name()
    }

    /// Names of the flows, in order.
    #[getter]
    fn flow_names(&self) -> Vec<String> {
        self.inner.config.flows.iter().map(|f| f.name.clone()).collect()
    }

    /// Names of the nodes, by index (a node's MAC address in a packet trace is
    /// `02:00` and this index).
    #[getter]
    fn node_names(&self) -> Vec<String> {
        self.inner.config.nodes.iter().map(|n| n.name.clone()).collect()
    }

    /// Names of the ports (`node:peer`), by index (a CNM's CPID in a packet trace).
    #[getter]
    fn port_names(&self) -> Vec<String> {
        let name = |i: usize| &self.inner.config.nodes[i].name;
        self.inner
            .config
            .links
            .iter()
            .flat_map(|l| [format!("{}:{}", name(l.a), name(l.b)), format!("{}:{}", name(l.b), name(l.a))])
            .collect()
    }

    /// Numbers of nodes, links and flows.
    #[getter]
    fn size(&self) -> (usize, usize, usize) {
        let c = &self.inner.config;
        (c.nodes.len(), c.links.len(), c.flows.len())
    }

    /// Runs with `seed` in slices of simulated time sized to take about 0.1 s of wall
    /// time each (and at most `1/steps` of the run), with the GIL released, calling
    /// `progress(fraction_done)` between slices. An exception raised by the callback, or
    /// a signal such as Ctrl-C, stops the run within about 0.1 s and propagates.
    ///
    /// `pcap` lists `(port, path)` pairs: each port's frames go to a pcap file at
    /// `path`, keeping `snaplen` bytes of each, written whole when the run ends and
    /// not at all if it fails or stops.
    ///
    /// With `samples`, the sampled series go to that file as the run goes (see
    /// `dcbsim.samples`) rather than into the result, which then gives
    /// `sample_columns` and `sample_chunk_rows`.
    #[pyo3(signature = (seed, progress = None, steps = 100, pcap = Vec::new(), snaplen = dcbsim_scenario::DEFAULT_SNAPLEN, samples = None))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        seed: u64,
        progress: Option<Bound<'py, PyAny>>,
        steps: u32,
        pcap: Vec<(String, std::path::PathBuf)>,
        snaplen: u32,
        samples: Option<std::path::PathBuf>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let requests: Vec<_> = pcap.into_iter().map(|(port, path)| dcbsim_scenario::PcapRequest { port, path }).collect();
        let built = self.take_built(seed);
        let (mut sim, traces) = self.inner.build_traced_from(built, seed, &requests, snaplen).map_err(trace_error)?;
        let columns = sim.sample_layout().0.columns();
        let spill = match samples {
            Some(path) => {
                let (file, status) = dcbsim_scenario::SpillFile::create(&path, columns).map_err(pyo3::exceptions::PyOSError::new_err)?;
                sim.stream_samples(Box::new(file), self.inner.sample_memory_bytes as usize);
                Some(status)
            }
            None => None,
        };
        let chunk_rows = sim.sample_layout().1;
        if let Some(split) = dcbsim_core::sim::parallel::split_for(&sim) {
            // A split run goes in one piece (its parts meet every window): this thread
            // watches it, moving the progress bar and taking an interrupt as it goes.
            let (nodes, parts) = (sim.config().nodes.len(), split.parts());
            let end = self.inner.config.duration.as_secs_f64();
            let callback = progress.as_ref().map(|cb| cb.clone().unbind());
            let mut failure: Option<PyErr> = None;
            let watch = |reached: dcbsim_core::units::Time| {
                Python::attach(|py| {
                    let step = || -> PyResult<()> {
                        // A failed write of the streamed samples stops the run, as
                        // on one thread.
                        if let Some(status) = &spill {
                            status.check().map_err(|e| {
                                let (at, of) = (reached.as_secs_f64() * 1e3, end * 1e3);
                                pyo3::exceptions::PyOSError::new_err(format!("{e}; the run stopped at {at:.6} ms of {of} ms"))
                            })?;
                        }
                        if let Some(cb) = &callback {
                            cb.bind(py).call1((reached.as_secs_f64() / end,))?;
                        }
                        py.check_signals()
                    };
                    step().map_err(|e| failure = Some(e)).is_ok()
                })
            };
            let watched = py.detach(|| dcbsim_core::sim::parallel::run_watched(sim, split, WATCH_EVERY, watch));
            let Some(ran) = watched else {
                return Err(failure.unwrap_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the run stopped")));
            };
            traces.commit_ended(ran.traces).map_err(trace_error)?;
            let result = ran.report;
            if let Some(status) = &spill {
                status.check().map_err(pyo3::exceptions::PyOSError::new_err)?;
            }
            if let Some(cb) = &progress {
                cb.call1((1.0,))?;
            }
            let d = report::from_report(py, result, nodes)?;
            d.set_item(intern!(py, "parts"), parts)?;
            d.set_item(intern!(py, "sample_columns"), columns)?;
            d.set_item(intern!(py, "sample_chunk_rows"), chunk_rows)?;
            return Ok(d);
        }
        let end = self.inner.config.duration;
        let mut slices = WallSlices::new(end, steps);
        while let Some(until) = slices.next_until() {
            let started = Instant::now();
            py.detach(|| sim.run_slice(until));
            slices.took(started.elapsed().as_secs_f64());
            py.check_signals()?;
            // A failed write of the streamed samples (a full disk) stops the run at
            // once: what follows could not be kept.
            if let Some(status) = &spill {
                status.check().map_err(|e| {
                    let (at, of) = (until.as_secs_f64() * 1e3, end.as_secs_f64() * 1e3);
                    pyo3::exceptions::PyOSError::new_err(format!("{e}; the run stopped at {at:.6} ms of {of} ms"))
                })?;
            }
            if let Some(cb) = &progress {
                cb.call1((until.as_secs_f64() / end.as_secs_f64(),))?;
            }
        }
        py.detach(|| traces.commit(&mut sim)).map_err(trace_error)?;
        let d = report::finish(py, sim)?;
        if let Some(status) = spill {
            status.check().map_err(pyo3::exceptions::PyOSError::new_err)?;
        }
        d.set_item(intern!(py, "sample_columns"), columns)?;
        d.set_item(intern!(py, "sample_chunk_rows"), chunk_rows)?;
        Ok(d)
    }
}

/// The limits of a load: `max_memory_gb`, if given, must be a number > 0.
fn limits(max_memory_gb: Option<f64>) -> PyResult<dcbsim_scenario::Limits> {
    match max_memory_gb {
        None => Ok(dcbsim_scenario::Limits::default()),
        Some(gb) if gb.is_finite() && gb > 0.0 => Ok(dcbsim_scenario::Limits::new(gb * 1e9)),
        Some(gb) => Err(PyValueError::new_err(format!("max_memory_gb must be a number > 0 (got {gb})"))),
    }
}

/// Slices of simulated time sized by wall time: each aims at [`WallSlices::TARGET_S`]
/// of wall time, growing or shrinking at most fourfold from the last, so that signals
/// and progress are served about ten times a second however fast the run goes.
struct WallSlices {
    end: Time,
    now: Time,
    slice: u64,
    most: u64,
}

impl WallSlices {
    const TARGET_S: f64 = 0.1;
    /// The first slice: 1 µs of simulated time.
    const FIRST_PS: u64 = 1_000_000;

    fn new(end: Time, steps: u32) -> WallSlices {
        let most = (end.0 / steps.max(1) as u64).max(1);
        WallSlices { end, now: Time::ZERO, slice: Self::FIRST_PS.min(most), most }
    }

    /// The end of the next slice, or `None` when the run is done.
    fn next_until(&mut self) -> Option<Time> {
        if self.now >= self.end {
            return None;
        }
        self.now = Time(self.now.0.saturating_add(self.slice).min(self.end.0));
        Some(self.now)
    }

    /// The last slice took `wall_s` seconds: size the next.
    fn took(&mut self, wall_s: f64) {
        let factor = if wall_s > 0.0 { (Self::TARGET_S / wall_s).clamp(0.25, 4.0) } else { 4.0 };
        self.slice = ((self.slice as f64 * factor) as u64).clamp(1, self.most);
    }
}

/// DSM's predictor (eq. 14) as the engine's congestion point computes it: after the
/// feedback values `sent` (bits/s, oldest first) over a horizon of `m` samples, the
/// predicted `(Q̂f, Q̂v)` for queue offset `q_f` and growth `q_v` (bits), period `period_s`.
#[pyfunction]
fn dsm_predict(m: u32, period_s: f64, sent: Vec<i64>, q_f: f64, q_v: f64) -> (f64, f64) {
    let mut predictor = dcbsim_core::cc::dsm::DsmPredictor::new(m);
    for u in sent {
        predictor.record(u);
    }
    predictor.predict(q_f, q_v, period_s)
}

/// The native part of dcbsim.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Scenario>()?;
    m.add_class::<fairness::FairnessSums>()?;
    m.add_function(wrap_pyfunction!(dsm_predict, m)?)?;
    m.add_class::<parquet::TidyWriter>()?;
    m.add_function(wrap_pyfunction!(json::write_json, m)?)?;
    m.add_function(wrap_pyfunction!(table::flow_table, m)?)?;
    m.add_function(wrap_pyfunction!(tidy::full_series, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_MAX_MEMORY_GB", dcbsim_scenario::DEFAULT_MAX_MEMORY_GB)?;
    Ok(())
}
