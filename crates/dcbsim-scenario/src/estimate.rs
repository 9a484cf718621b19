//! What a run will ask of the machine, estimated before it starts: memory (samples ×
//! series, routes, per-flow and per-port state) and events. A run above the memory
//! limit is refused with the figure instead of aborting on allocation.

use dcbsim_core::config::{NodeKind, SimConfig};

/// Limits a scenario must fit in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The most memory a run may need, in bytes.
    pub max_memory_bytes: f64,
}

/// The default memory limit, in GB (10^9 bytes).
pub const DEFAULT_MAX_MEMORY_GB: f64 = 4.0;

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_memory_bytes: DEFAULT_MAX_MEMORY_GB * 1e9 }
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
    /// The most events the run can execute: every port busy for the whole run with
    /// 1500-byte frames, two events per frame.
    pub events: f64,
}

/// Bytes of state per port, per flow and per node, measured: a 100,000-server incast
/// (200,002 ports) peaks at 1.1 GB resident with one flow, and 0.12 GB more with
/// 100,000 flows.
const PORT_BYTES: f64 = 5632.0;
const FLOW_BYTES: f64 = 1536.0;
const NODE_BYTES: f64 = 128.0;

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
        Estimate {
            samples_bytes: samples * series * 8.0,
            sample_times_bytes: samples * 8.0,
            routes_bytes: dcbsim_core::net::Routes::table_bytes(&config.nodes, &config.links) as f64,
            state_bytes: ports * PORT_BYTES + flows * FLOW_BYTES + nodes * NODE_BYTES,
            events: 2.0 * frames,
        }
    }

    /// The estimate when series above `budget` bytes are streamed to disk: memory holds
    /// at most `budget` of them, and the sample times.
    pub fn within_sample_budget(mut self, budget: f64) -> Estimate {
        if self.samples_bytes > budget {
            self.samples_bytes = budget + self.sample_times_bytes;
        }
        self
    }

    /// Total memory, bytes.
    pub fn memory_bytes(&self) -> f64 {
        self.samples_bytes + self.routes_bytes + self.state_bytes
    }

    /// Whether the sampled series are the largest part (else the network is).
    pub fn samples_dominate(&self) -> bool {
        self.samples_bytes >= self.routes_bytes + self.state_bytes
    }

    /// The refusal when the run exceeds `limits`, naming the figures; `None` if it fits.
    pub fn check(&self, limits: &Limits) -> Option<String> {
        let gb = |b: f64| b / 1e9;
        if self.memory_bytes() <= limits.max_memory_bytes {
            return None;
        }
        Some(format!(
            "the run would need about {:.3} GB of memory (samples {:.3} GB, routes {:.3} GB, state {:.3} GB), above the limit of {} GB; {}, or raise the limit with --max-memory-gb",
            gb(self.memory_bytes()),
            gb(self.samples_bytes),
            gb(self.routes_bytes),
            gb(self.state_bytes),
            gb(limits.max_memory_bytes),
            if self.samples_dominate() { "shorten the run or lengthen run.sample_interval_us" } else { "use a smaller network" },
        ))
    }
}
