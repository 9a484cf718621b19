//! # dcbsim-core
//!
//! The event engine of dcbsim: a packet-level simulator of Data Center Bridging
//! Ethernet with congestion management (IEEE 802.1Qau and the schemes that followed it).
//!
//! A run is described by a [`config::SimConfig`] (nodes, links, flows, timeline,
//! scheme), executed by a [`sim::Simulation`] and summarised in a
//! [`report::RunReport`]. Time is integer picoseconds ([`units::Time`]); the event
//! queue orders events by (time, event), so the same configuration and seed always
//! give the same result.
//!
//! ```
//! use dcbsim_core::config::{FlowKind, FlowSpec, LinkSpec, NodeKind, NodeSpec, SimConfig};
//! use dcbsim_core::sim::Simulation;
//! use dcbsim_core::units::{Bytes, Rate, Time};
//!
//! let mut cfg = SimConfig::new(Time::from_ms(10));
//! for (name, kind) in [("h0", NodeKind::Host), ("sw", NodeKind::Switch), ("h1", NodeKind::Host)] {
//!     cfg.nodes.push(NodeSpec { name: name.into(), kind });
//! }
//! for (a, b) in [(0, 1), (1, 2)] {
//!     cfg.links.push(LinkSpec {
//!         a, b, rate: Rate::from_gbps(10), delay: Time::from_us(1).into(),
//!         buffer: Bytes::from_kb(128), priorities: 1, frame_service: None,
//!     });
//! }
//! let flow = FlowSpec::new("f", 0, 2, FlowKind::Constant);
//! cfg.flows.push(FlowSpec { rate: Some(Rate::from_gbps(1)), ..flow });
//! let report = Simulation::new(cfg, 1).unwrap().run();
//! // 1 Gb/s for 10 ms is 1.25 MB: 1250 frames of 1000 B, less the last in flight.
//! assert!(report.flows[0].delivered_frames >= 1248);
//! assert_eq!(report.dropped_frames(), 0);
//! ```
#![forbid(unsafe_code)]

pub mod cc;
pub mod config;
pub mod dist;
pub mod fairness;
pub mod fairshare;
pub mod monitor;
pub mod net;
pub mod packet;
pub mod param;
mod prefetch;
pub mod report;
pub mod rng;
pub mod samples;
pub mod sched;
pub mod sim;
pub mod spec;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod transport;
pub mod units;
