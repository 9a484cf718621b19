//! The plain description of a run that the engine consumes.
//!
//! `dcbsim-scenario` turns a scenario file into a [`SimConfig`]; Rust users may also
//! build one by hand. Nodes, ports and flows are referred to by their index in the
//! lists here. [`crate::sim::Simulation::new`] checks what only the whole network can
//! tell (reachability, names) and reports it as a [`ConfigError`] whose `path` names the
//! offending entry (for example `flows[2].dst`).

use crate::cc::{ParamValue, SchemeConfig};
use crate::dist::{SizeDist, TimeDist};
use crate::transport::{TcpParams, Transport};
use crate::units::{Bytes, Rate, Time};

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end station: one NIC, the source or sink of flows.
    Host,
    /// An output-queued switch.
    Switch,
}

/// One node of the network.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    /// Unique name, used in port names (`node:peer`) and results.
    pub name: String,
    /// Host or switch.
    pub kind: NodeKind,
}

/// A full-duplex link between two nodes: two egress ports, one at each end.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// Index of one end in [`SimConfig::nodes`].
    pub a: usize,
    /// Index of the other end.
    pub b: usize,
    /// Capacity of each direction.
    pub rate: Rate,
    /// Propagation delay of each direction; a random one is drawn once per link at
    /// set-up (both directions alike), from the stream `link:<a>-<b>`.
    pub delay: TimeDist,
    /// Egress buffer of a switch port on this link (drop-tail, in bytes).
    pub buffer: Bytes,
    /// Number of strict-priority classes at a switch port on this link (at least 1).
    pub priorities: u8,
    /// Optional per-frame service time of a switch port (a frames/s limit); each frame
    /// then takes the larger of this and its serialization time.
    pub frame_service: Option<Time>,
}

/// Names one egress port: the port of `node` that leads to `peer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortRef {
    /// The node that owns the port.
    pub node: usize,
    /// The node at the other end of the port's link.
    pub peer: usize,
}

/// How a flow produces data.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// Always backlogged; its rate is set by its reaction point (or its initial rate).
    Greedy,
    /// Background traffic at a fixed rate, never under congestion control.
    Constant,
    /// A finite transfer; its size is drawn at set-up (from the stream
    /// `flow:<name>`) and its completion time is recorded.
    Finite {
        /// Bytes to transfer.
        size: SizeDist,
    },
    /// An ON-OFF source: ON adds a burst to the backlog, sent as fast as the flow's
    /// rate allows; once the burst's last frame has left the rate limiter an OFF
    /// period follows, with mean `burst·8/load − burst·8/line_rate`, so that the
    /// source offers `load` on average when nothing limits it. OFF times come from
    /// the stream `source:<name>`.
    OnOff {
        /// Bytes of each burst.
        burst: u64,
        /// The average offered load; below the source's line rate.
        load: Rate,
        /// How OFF periods are drawn.
        off: OffTime,
    },
    /// One flow whose backlog is fed by transfers arriving as a Poisson process
    /// (arrival times and sizes from the stream `source:<name>`).
    Poisson {
        /// Transfers per second.
        rate_per_s: f64,
        /// Size of each transfer.
        size: SizeDist,
    },
}

/// How the OFF periods of an ON-OFF source are drawn around their mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OffTime {
    /// Exponentially distributed.
    #[default]
    Exponential,
    /// Always the mean.
    Fixed,
}

/// One flow from a source host to a destination host.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// Unique name, used in results.
    pub name: String,
    /// Index of the source host.
    pub src: usize,
    /// Index of the destination host.
    pub dst: usize,
    /// Greedy, constant-rate, finite, ON-OFF or Poisson-fed.
    pub kind: FlowKind,
    /// Initial rate (greedy, finite) or the fixed rate (constant). `None` is line rate.
    pub rate: Option<Rate>,
    /// A cap on the sending rate whatever the reaction point says (an application
    /// that offers at most this much). `None`: no cap.
    pub max_rate: Option<Rate>,
    /// Frame size in bytes, headers included.
    pub frame_bytes: u32,
    /// Random spread of the gaps between frames: each gap is multiplied by
    /// U(1 − jitter, 1 + jitter), from the flow's own random stream. Zero (exact
    /// pacing) by default; a little breaks the phase locking of identical sources.
    pub jitter: f64,
    /// 802.1p priority, 0..=7: a higher one is served first at strict-priority ports
    /// (see [`crate::net::Port::class_of`]) and is "high" to a drop policy.
    pub priority: u8,
    /// The flow's own AIMD setting under DCC (`None`: the scheme's); other schemes
    /// ignore it.
    pub aimd: Option<crate::cc::Aimd>,
    /// Weight in weighted fair sharing (FQCN, AF-QCN, the weighted max-min share);
    /// 1 by default, finite and > 0.
    pub weight: f64,
    /// The end-to-end transport (none, TCP NewReno or DCTCP).
    pub transport: Transport,
    /// When the flow starts sending.
    pub start: Time,
    /// When it stops producing new frames (`None`: never).
    pub stop: Option<Time>,
}

impl FlowSpec {
    /// A flow of `kind` from host `src` to host `dst` with every other setting at its
    /// default: line rate, no cap, 1000-byte frames, no jitter, priority 0, weight 1,
    /// no transport, from time 0 for the whole run.
    pub fn new(name: &str, src: usize, dst: usize, kind: FlowKind) -> FlowSpec {
        FlowSpec {
            name: name.to_string(),
            src,
            dst,
            kind,
            rate: None,
            max_rate: None,
            frame_bytes: 1000,
            jitter: 0.0,
            priority: 0,
            aimd: None,
            weight: 1.0,
            transport: Transport::None,
            start: Time::ZERO,
            stop: None,
        }
    }

    /// The demand a fair-share calculation should use, bits/s: the load of an ON-OFF
    /// or Poisson-fed flow, the rate of a constant flow, a greedy flow's `max_rate`;
    /// each under `max_rate` when there is one. `None` when nothing bounds it (a
    /// greedy flow without a cap, a finite flow).
    pub fn offered_bps(&self) -> Option<f64> {
        let cap = self.max_rate.map(Rate::as_f64);
        let demand = match &self.kind {
            FlowKind::OnOff { load, .. } => Some(load.as_f64()),
            FlowKind::Poisson { rate_per_s, size } => Some(rate_per_s * 8.0 * size.mean()),
            FlowKind::Constant => self.rate.map(Rate::as_f64),
            FlowKind::Greedy => cap,
            FlowKind::Finite { .. } => None,
        };
        match (demand, cap) {
            (Some(d), Some(c)) => Some(d.min(c)),
            (d, _) => d,
        }
    }
}

/// A source of finite flows arriving as a Poisson process (short flows, say).
#[derive(Clone, Debug, PartialEq)]
pub struct ArrivalSpec {
    /// Name in results; its flows are `<name>#<k>`.
    pub name: String,
    /// Flows per second.
    pub rate_per_s: f64,
    /// Size of each flow.
    pub size: SizeDist,
    /// The flows' template: source, destination, initial rate, frame size, priority,
    /// jitter; `start` and `stop` bound the arrivals. Its `kind` and `name` are unused.
    pub flow: FlowSpec,
}

/// The incast application: a client asks each server flow for one SRU and waits
/// for all of them (a barrier) before asking for the next block.
#[derive(Clone, Debug, PartialEq)]
pub struct IncastSpec {
    /// Indices in [`SimConfig::flows`] of the server flows (each over a transport,
    /// all to the client).
    pub flows: Vec<usize>,
    /// The server request unit: bytes each server sends per block.
    pub sru: u64,
    /// Blocks to request (`None`: until the run ends).
    pub blocks: Option<u32>,
    /// When the first request goes out.
    pub start: Time,
    /// Each server answers a request after a delay drawn uniformly from
    /// `[0, response_jitter)` (stream `incast`); zero: all answer at once.
    pub response_jitter: Time,
}

/// A change applied at a given time during the run.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Set the capacity of one egress port.
    PortRate {
        /// Which port.
        port: PortRef,
        /// Its new capacity.
        rate: Rate,
    },
    /// Start a flow (again).
    FlowStart {
        /// Index in [`SimConfig::flows`].
        flow: usize,
    },
    /// Stop a flow producing new frames.
    FlowStop {
        /// Index in [`SimConfig::flows`].
        flow: usize,
    },
    /// Cap a flow's sending rate (`None` removes the cap).
    FlowMaxRate {
        /// Index in [`SimConfig::flows`].
        flow: usize,
        /// The cap.
        rate: Option<Rate>,
    },
    /// Change one parameter of the congestion-management scheme, everywhere.
    SchemeParam {
        /// The parameter's scenario name (e.g. `bc_limit_kb`).
        name: String,
        /// Its new value, in the unit its name says.
        value: ParamValue,
    },
}

/// One timeline entry.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineEntry {
    /// When it applies.
    pub at: Time,
    /// What changes.
    pub action: Action,
}

/// Where congestion points sit.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum CpPlacement {
    /// On every switch egress port.
    #[default]
    AllSwitchPorts,
    /// On the listed ports only.
    Ports(Vec<PortRef>),
}

/// How frames find their way: equal-cost multipath or the lowest port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoutingSpec {
    /// Spread flows over equal-cost next hops by a per-flow hash (ECMP); without,
    /// the lowest-numbered port among them carries every flow.
    pub ecmp: bool,
    /// The hash's seed; `None` takes the run's seed.
    pub hash_seed: Option<u64>,
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec { ecmp: true, hash_seed: None }
    }
}

impl RoutingSpec {
    /// The ECMP salt for a run with `seed`, or `None` without ECMP.
    pub fn ecmp_salt(&self, seed: u64) -> Option<u64> {
        self.ecmp.then(|| crate::rng::Rng::stream(self.hash_seed.unwrap_or(seed), "ecmp").next_u64())
    }
}

/// What to record.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorSpec {
    /// Period of the queue, rate and throughput samples.
    pub sample_interval: Time,
    /// Ports whose queue is sampled; `None` samples every switch egress port.
    pub ports: Option<Vec<PortRef>>,
}

impl Default for MonitorSpec {
    fn default() -> Self {
        MonitorSpec { sample_interval: Time::from_ms(1), ports: None }
    }
}

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
    pub pfc: crate::net::PfcSpec,
    /// Enhanced transmission selection (off by default).
    pub ets: crate::net::EtsSpec,
    /// ECMP or lowest-port routing.
    pub routing: RoutingSpec,
    /// Whether FIFO switch ports are departure-timed (on by default): the same
    /// results with fewer events, except that simultaneous events may be ordered
    /// differently (see `net/timed.rs`).
    pub departure_timing: bool,
    /// Simulated duration of the run.
    pub duration: Time,
}

impl SimConfig {
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
            notification_bytes: 64,
            notification_latency: TimeDist::Fixed(Time::ZERO),
            tcp: TcpParams::default(),
            incast: None,
            monitor: MonitorSpec::default(),
            pfc: crate::net::PfcSpec::default(),
            ets: crate::net::EtsSpec::default(),
            routing: RoutingSpec::default(),
            departure_timing: true,
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
