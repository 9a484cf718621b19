//! What a run will ask of the machine, estimated before it starts: memory (samples ×
//! series, routes, per-flow and per-port state, and the results made of them) and
//! events. A run above the memory limit is refused with the figure instead of aborting
//! on allocation.
//!
//! The figure is the peak of a whole `dcbsim run`: the engine, then the report as the
//! Python result, its summary, tables and plots (which outgrow the engine: at 90,000
//! flows the engine peaked at 222 MiB and the whole command at 588 MiB).

use dcbsim_core::config::{NodeKind, SimConfig};

/// Limits a scenario must fit in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The most memory a run may need, in bytes.
    pub max_memory_bytes: f64,
    /// The machine's physical memory in bytes, where known: a run needing more is
    /// refused whatever `max_memory_bytes` allows, since it would be killed or abort
    /// part way instead.
    pub machine_bytes: Option<f64>,
}

/// The default memory limit, in GB (10^9 bytes).
pub const DEFAULT_MAX_MEMORY_GB: f64 = 4.0;

impl Limits {
    /// A limit of `max_memory_bytes` on this machine.
    pub fn new(max_memory_bytes: f64) -> Limits {
        Limits { max_memory_bytes, machine_bytes: machine_memory() }
    }

    /// The machine's memory, where it is below the limit (and so the bound).
    fn machine_bound(&self) -> Option<f64> {
        self.machine_bytes.filter(|&machine| machine < self.max_memory_bytes)
    }

    /// The bytes a run may need, and how a refusal names that bound.
    fn bound(&self) -> (f64, String) {
        match self.machine_bound() {
            Some(machine) => (machine, format!("this machine's {:.1} GB of memory", machine / 1e9)),
            None => (self.max_memory_bytes, format!("the limit of {} GB", self.max_memory_bytes / 1e9)),
        }
    }

    /// How a refusal ends: a smaller run, and a higher limit where that would help.
    fn advice(&self) -> &'static str {
        if self.machine_bound().is_some() { "" } else { ", or raise the limit with --max-memory-gb" }
    }

    /// The most flows whose own state and results fit the limit: a scenario that
    /// makes more is refused while it is read, before its flows are made (an
    /// all-to-all entry over a large fabric makes billions).
    pub fn max_flows(&self) -> u64 {
        (self.bound().0 / (FLOW_BYTES + RESULT_FLOW_BYTES)) as u64
    }

    /// The refusal of a scenario whose flows number `flows`, above [`Limits::max_flows`].
    pub fn too_many_flows(&self, flows: u64) -> String {
        let gb = flows as f64 * (FLOW_BYTES + RESULT_FLOW_BYTES) / 1e9;
        format!(
            "the run's {flows} flows alone would need about {gb:.3} GB of memory, above {}; use fewer sources or destinations{}",
            self.bound().1,
            self.advice()
        )
    }
}

/// A network's size, counted from a topology's parameters before it is built.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NetworkCounts {
    /// Nodes, hosts and switches.
    pub nodes: f64,
    /// Links (two ports each).
    pub links: f64,
    /// Nodes that route (switches, and hosts with more than one link).
    pub routers: f64,
    /// Destinations the routing table keeps a column for (switches with hosts).
    pub columns: f64,
}

impl NetworkCounts {
    /// The least memory a run over this network needs, bytes: its ports, nodes and
    /// routing table in the engine and the results. Never above
    /// [`Estimate::memory_bytes`] of a run over it, so a network refused here would be
    /// refused once built too.
    pub fn memory_bytes(&self) -> f64 {
        let ports = 2.0 * self.links;
        ports * (PORT_BYTES + RESULT_PORT_BYTES) + self.nodes * (NODE_BYTES + 9.0) + self.routers * self.columns * 4.0
    }
}

impl Limits {
    /// The refusal of a network of `counts`, before it is built, when it alone needs
    /// more than the limit; `None` if it fits.
    pub fn check_network(&self, counts: &NetworkCounts) -> Option<String> {
        let (bound, named) = self.bound();
        let need = counts.memory_bytes();
        if need <= bound {
            return None;
        }
        Some(format!(
            "the network of {} nodes and {} links alone would need at least {:.3} GB of memory, above {named}; use a smaller network{}",
            counts.nodes,
            counts.links,
            need / 1e9,
            self.advice()
        ))
    }
}

/// The machine's physical memory in bytes (Linux: `MemTotal` of /proc/meminfo), or
/// `None` where it cannot be read.
fn machine_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::new(DEFAULT_MAX_MEMORY_GB * 1e9)
    }
}

/// A run's estimated needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Memory of the sampled time series, bytes.
    pub samples_bytes: f64,
    /// Memory of the sample times alone, bytes (kept even when the series are streamed).
    pub sample_times_bytes: f64,
    /// Memory of the routing table, bytes.
    pub routes_bytes: f64,
    /// Memory of the per-node, per-port and per-flow state, bytes.
    pub state_bytes: f64,
    /// Memory of the flows that arrival sources make during the run, results
    /// included, bytes.
    pub arrivals_bytes: f64,
    /// Memory of the results apart from the samples' copies (see
    /// [`Estimate::results_bytes`]): the report as the Python result, its summary,
    /// tables and plots, per port and per flow, and the interpreter and libraries they
    /// need, bytes.
    pub results_base_bytes: f64,
    /// The most events the run can execute: every port busy for the whole run with
    /// 1500-byte frames, two events per frame.
    pub events: f64,
    /// Values of the sampled series (sample times × series), what the results file
    /// holds one row of each.
    pub sampled_values: f64,
}

/// Bytes of `results.parquet` per sampled value: the value (8), its time as an index
/// into the sample times, and the metric and entity columns' runs; measured on the
/// quickstart (100 ms, 21 series) sampled every 10, 1 and 0.1 µs: 10.4, 12.4 and
/// (streamed) 14.3 bytes.
pub const RESULT_VALUE_BYTES: f64 = 14.5;
/// Bytes per sampled value of the file streamed samples go to while the run goes
/// (beside the results file it becomes).
pub const STREAMED_VALUE_BYTES: f64 = 8.0;
/// The default of `output.max_output_gb`: the results a run may write, in GB.
pub const DEFAULT_MAX_OUTPUT_GB: f64 = 10.0;

/// Bytes of the engine's state per port, per flow and per node, measured (peak of
/// `dcbsim-bench`, 1 ms runs): incast of 20,000 and 100,000 servers with one flow,
/// 39.9 and 192.0 MiB, 0.97 KiB per port with its half node; all-to-all dumbbells of
/// 10,000 and 90,000 flows, 27.7 and 222.3 MiB, 2.49 KiB per flow.
const PORT_BYTES: f64 = 1024.0;
const FLOW_BYTES: f64 = 2560.0;
const NODE_BYTES: f64 = 128.0;

/// Bytes of the results per port and per flow, beyond the engine's: the peaks of
/// `dcbsim run` (plots included) on the same runs, 155 and 358 MiB (1.30 KiB per port
/// in all) and 142 and 406 MiB (3.3 KiB per flow in all, remeasured: 5.5 KiB when
/// first measured, before the results were made leaner), less the engine's share,
/// rounded up, with room for longer paths: the k = 16 fat-tree's 1,047,552 flows of
/// six hops peaked at 3,784 MiB, 3.6 KiB per flow in all, where these give 4.5.
const RESULT_PORT_BYTES: f64 = 512.0;
const RESULT_FLOW_BYTES: f64 = 2048.0;
/// Copies of the samples held in memory that the results make (the report's bytes
/// beside the engine's series, the plots' arrays): the quickstart sampled every
/// microsecond for 10 and 250 ms (2 and 44 MB of samples) peaked at 24 and 112 MiB
/// without plots, 2.2 times the samples beyond that, and at 188 MiB (50 ms) and 251
/// MiB (250 ms) with them, 1.9 times; two more than the engine's one leave room. (The
/// tidy table's series are no longer joined before they are written, nor made arrays
/// for the summary: 144 MiB at 250 ms without plots before.)
const RESULT_SAMPLE_COPIES: f64 = 2.0;
/// The interpreter, numpy and matplotlib with the plots drawn: 162 MiB for the 10 ms
/// of that dumbbell, its samples' share aside (106 MiB for 1 ms of it sampled every
/// millisecond).
const RESULT_BASE_BYTES: f64 = 0.18e9;
/// Bytes per flow that an arrival source makes during the run, results included: 48,509
/// and 145,461 flows of 1 KB (over TCP or not) peaked at 165 and 225 MiB, 0.63 KiB each.
const ARRIVED_FLOW_BYTES: f64 = 1024.0;

/// The flows the arrival sources are expected to make: each one's rate over the time
/// it makes them.
fn arrived_flows(config: &SimConfig) -> f64 {
    let end = config.duration;
    let window = |a: &dcbsim_core::config::ArrivalSpec| {
        let stop = a.flow.stop.unwrap_or(end).min(end);
        (stop.0.saturating_sub(a.flow.start.0)) as f64 / 1e12
    };
    config.arrivals.iter().fold(0.0, |sum, a| sum + a.rate_per_s * window(a))
}

impl Estimate {
    /// Estimates the needs of `config`.
    pub fn of(config: &SimConfig) -> Estimate {
        let is_switch = |n: usize| config.nodes[n].kind == NodeKind::Switch;
        let switch_ports = config.links.iter().map(|l| is_switch(l.a) as usize + is_switch(l.b) as usize).sum::<usize>();
        let monitored = config.monitor.ports.as_ref().map_or(switch_ports, Vec::len);
        let samples = (config.duration.0 / config.monitor.sample_interval.0.max(1)) as f64 + 2.0;
        let series = 1.0 + monitored as f64 + 4.0 * config.flows.len() as f64;
        let nodes = config.nodes.len() as f64;
        let ports = 2.0 * config.links.len() as f64;
        let flows = (config.flows.len() + config.arrivals.len()) as f64;
        let seconds = config.duration.as_secs_f64();
        let frames: f64 = config.links.iter().map(|l| 2.0 * l.rate.as_f64() * seconds / (8.0 * 1500.0)).sum();
        // A run split over threads holds an engine's ports and flows per part
        // (`sim/parallel/`), at most one part per thread; the parts share the
        // configuration, timeline, paths, routes and ports' names (the routes counted
        // once, the rest within those figures per engine: an upper bound), and each
        // samples only the ports it owns and the flows with an end in it
        // (`sim/part_state.rs`), so each series is held by two parts at most. Its
        // report is made once.
        let parts = match config.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        } as f64;
        let samples_bytes = samples * series * 8.0;
        let routes_bytes = dcbsim_core::net::Routes::table_bytes(&config.nodes, &config.links) as f64;
        let engine = ports * PORT_BYTES + flows * FLOW_BYTES + nodes * NODE_BYTES;
        Estimate {
            samples_bytes,
            sample_times_bytes: samples * 8.0,
            routes_bytes,
            state_bytes: engine * parts + samples_bytes * (parts.min(2.0) - 1.0),
            arrivals_bytes: arrived_flows(config) * ARRIVED_FLOW_BYTES,
            results_base_bytes: RESULT_BASE_BYTES + ports * RESULT_PORT_BYTES + flows * RESULT_FLOW_BYTES,
            events: 2.0 * frames,
            sampled_values: samples * (series - 1.0),
        }
    }

    /// Bytes the run writes to disk, the results file and (when `streamed`) the file
    /// its samples stream to while it runs.
    pub fn output_bytes(&self, streamed: bool) -> f64 {
        let streaming = if streamed { STREAMED_VALUE_BYTES } else { 0.0 };
        self.sampled_values * (RESULT_VALUE_BYTES + streaming)
    }

    /// The estimate when series above `budget` bytes are streamed to disk: memory holds
    /// at most `budget` of them, and the sample times.
    pub fn within_sample_budget(mut self, budget: f64) -> Estimate {
        if self.samples_bytes > budget {
            self.samples_bytes = budget + self.sample_times_bytes;
        }
        self
    }

    /// Memory of the results, bytes: their base and their copies of the samples held
    /// in memory.
    pub fn results_bytes(&self) -> f64 {
        self.results_base_bytes + self.samples_bytes * RESULT_SAMPLE_COPIES
    }

    /// Total memory, bytes.
    pub fn memory_bytes(&self) -> f64 {
        self.samples_bytes + self.routes_bytes + self.state_bytes + self.arrivals_bytes + self.results_bytes()
    }

    /// Whether the flows that arrival sources make are the largest part.
    pub fn arrivals_dominate(&self) -> bool {
        self.arrivals_bytes >= self.memory_bytes() - self.arrivals_bytes
    }

    /// Whether the sampled series and their results are the largest part (else the
    /// network and its results are).
    pub fn samples_dominate(&self) -> bool {
        let samples = self.samples_bytes * (1.0 + RESULT_SAMPLE_COPIES);
        samples >= self.memory_bytes() - samples
    }

    /// The refusal when the run exceeds `limits`, naming the figures; `None` if it fits.
    pub fn check(&self, limits: &Limits) -> Option<String> {
        let gb = |b: f64| b / 1e9;
        let (bound, named) = limits.bound();
        if self.memory_bytes() <= bound {
            return None;
        }
        Some(format!(
            "the run would need about {:.3} GB of memory (samples {:.3} GB, routes {:.3} GB, state {:.3} GB{}, results {:.3} GB), above {named}; {}{}",
            gb(self.memory_bytes()),
            gb(self.samples_bytes),
            gb(self.routes_bytes),
            gb(self.state_bytes),
            match self.arrivals_bytes > 0.0 {
                true => format!(", arriving flows {:.3} GB", gb(self.arrivals_bytes)),
                false => String::new(),
            },
            gb(self.results_bytes()),
            if self.arrivals_dominate() {
                "shorten the run or the arrivals' time, or lower their load"
            } else if self.samples_dominate() {
                "shorten the run or lengthen run.sample_interval_us"
            } else {
                "use a smaller network"
            },
            limits.advice(),
        ))
    }
}
