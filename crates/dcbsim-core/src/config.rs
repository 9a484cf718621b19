//! The whole description of a run that the engine consumes.
//!
//! `dcbsim-scenario` turns a scenario file into a [`SimConfig`]; Rust users may also
//! build one by hand. Nodes, ports and flows are referred to by their index in the
//! lists here. [`crate::sim::Simulation::new`] checks what only the whole network can
//! tell (reachability, names) and reports it as a [`ConfigError`] whose `path` names the
//! offending entry (for example `flows[2].dst`). The plain descriptions live in
//! [`crate::spec`] and are re-exported here.

use crate::cc::SchemeConfig;
use crate::dist::TimeDist;
use crate::transport::TcpParams;
use crate::units::Time;

pub use crate::spec::{
    Action, ArrivalSpec, CpPlacement, EtsSpec, FlowKind, FlowSpec, IncastSpec, LinkSpec, MonitorSpec, NodeKind, NodeSpec, OffTime, PfcSpec,
    PortRef, RoutingSpec, TimelineEntry,
};

/// Everything the engine needs for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// Nodes.
    pub nodes: Vec<NodeSpec>,
    /// Full-duplex links.
    pub links: Vec<LinkSpec>,
    /// Flows.
    pub flows: Vec<FlowSpec>,
    /// Sources of flows arriving during the run.
    pub arrivals: Vec<ArrivalSpec>,
    /// Scheduled changes, in any order (applied by time, then list order).
    pub timeline: Vec<TimelineEntry>,
    /// The congestion-management scheme and its parameters.
    pub scheme: SchemeConfig,
    /// Where the scheme's congestion points sit.
    pub congestion_points: CpPlacement,
    /// The schemes flows may run instead of the run's (`FlowSpec::scheme`), with
    /// their parameters; a named scheme missing here runs with its defaults.
    pub flow_schemes: Vec<SchemeConfig>,
    /// Size of a notification frame.
    pub notification_bytes: u32,
    /// Time a congestion point takes to generate each notification (drawn per
    /// notification from the stream `cnm:<port>`); zero by default.
    pub notification_latency: TimeDist,
    /// The transports' parameters and where switches mark ECN.
    pub tcp: TcpParams,
    /// The incast application, if the run has one.
    pub incast: Option<IncastSpec>,
    /// What to record.
    pub monitor: MonitorSpec,
    /// Priority-based flow control (off by default).
    pub pfc: PfcSpec,
    /// Enhanced transmission selection (off by default).
    pub ets: EtsSpec,
    /// ECMP or lowest-port routing.
    pub routing: RoutingSpec,
    /// Whether FIFO switch ports are departure-timed (on by default): the same
    /// results with fewer events, except that simultaneous events may be ordered
    /// differently (see `net/timed.rs`).
    pub departure_timing: bool,
    /// Threads the run may use (0: every core): a network that splits into parts runs
    /// each part on a thread of its own (`sim/parallel/`), with the same results as
    /// on one.
    pub threads: usize,
    /// Simulated duration of the run.
    pub duration: Time,
}

impl SimConfig {
    /// The scheme a flow named `scheme` runs: the run's, or the one of that name in
    /// [`SimConfig::flow_schemes`] (the run's when none is there: the engine adds each
    /// named scheme's defaults before it runs).
    pub fn scheme_for(&self, scheme: Option<&str>) -> &SchemeConfig {
        match scheme {
            Some(name) if name != self.scheme.name() => self.flow_schemes.iter().find(|s| s.name() == name).unwrap_or(&self.scheme),
            _ => &self.scheme,
        }
    }

    /// An empty configuration lasting `duration`, to be filled in by hand.
    pub fn new(duration: Time) -> SimConfig {
        SimConfig {
            nodes: Vec::new(),
            links: Vec::new(),
            flows: Vec::new(),
            arrivals: Vec::new(),
            timeline: Vec::new(),
            scheme: SchemeConfig::default(),
            congestion_points: CpPlacement::default(),
            flow_schemes: Vec::new(),
            notification_bytes: 64,
            notification_latency: TimeDist::Fixed(Time::ZERO),
            tcp: TcpParams::default(),
            incast: None,
            monitor: MonitorSpec::default(),
            pfc: PfcSpec::default(),
            ets: EtsSpec::default(),
            routing: RoutingSpec::default(),
            departure_timing: true,
            threads: 1,
            duration,
        }
    }

    /// Index of the node called `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

/// A configuration the engine cannot run, with the entry at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Key path of the offending entry, as in the scenario file (`flows[2].dst`).
    pub path: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ConfigError {
    /// A new error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError { path: path.into(), message: message.into() }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ConfigError {}
