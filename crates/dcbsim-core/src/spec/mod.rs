//! Plain descriptions of a run: nodes, links, ports, flows, arrivals, timeline
//! changes, PFC and ETS settings, routing and monitoring, and parameter values.
//!
//! A leaf: nothing here imports the engine (only the unit, distribution and random
//! stream types every description is written in), so the scenario reader, the engine
//! and a Rust user building a run by hand share these types without a cycle.
//! [`crate::config::SimConfig`] puts them together with the scheme and transport.

mod dcb;
mod flow;
mod timeline;

pub use crate::param::ParamValue;
pub use dcb::{EtsSpec, MAX_QUANTA, PfcSpec};
pub use flow::{Aimd, ArrivalSpec, FlowKind, FlowSpec, IncastSpec, OffTime, Transport};
pub use timeline::{Action, TimelineEntry};

use crate::dist::TimeDist;
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
    /// Index of one end in [`crate::config::SimConfig::nodes`].
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
