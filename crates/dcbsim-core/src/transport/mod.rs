//! End-to-end transports at the hosts: TCP NewReno and DCTCP.
//!
//! A flow over a transport sends segments (one frame each, `frame_bytes` on the wire)
//! under a congestion window; its receiver answers every segment (or every second one,
//! with delayed ACKs) with a cumulative ACK frame that crosses the reverse path like
//! any frame. Sequence numbers count segments, as in ns-2's TCP agents. When an L2
//! reaction point also controls the flow, both apply: a segment leaves when the window
//! allows it and the rate limiter lets it go.
//!
//! [`sender::TcpSender`] and [`receiver::TcpReceiver`] are pure state machines (no
//! events, no allocation after set-up); the engine (`sim/transport.rs`) moves frames
//! and timers between them.

pub mod receiver;
pub mod sender;
pub mod validation;

pub use receiver::{Ack, Received, TcpReceiver};
pub use sender::TcpSender;

pub use crate::spec::Transport;

use crate::param::Range::{Any, Fraction, Positive, Whole};
use crate::param::{Param, Params, Setter};
use crate::units::{Bytes, Time};

/// Where switch ports mark ECN-capable frames, and at what queue.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum EcnMarking {
    /// Every switch port, with the DCTCP paper's threshold for its capacity: 20 frames
    /// of 1500 B below 10 Gb/s, 65 at 10 Gb/s and above.
    #[default]
    ByCapacity,
    /// Every switch port, at this threshold.
    All(Bytes),
    /// Only the listed ports `(node, peer)`, each at its own threshold.
    Ports(Vec<(crate::spec::PortRef, Bytes)>),
}

impl EcnMarking {
    /// The DCTCP paper's marking threshold for a port of this capacity (§3.4, §4.1).
    pub fn default_threshold(capacity: crate::units::Rate) -> Bytes {
        if capacity.0 >= 10_000_000_000 { Bytes(65 * 1500) } else { Bytes(20 * 1500) }
    }
}

/// The smallest receive window sized by the path (1 MiB, the window of a path of
/// 512 KiB in flight or less).
pub const MIN_AUTO_RWND: Bytes = Bytes(1 << 20);

/// The transport's parameters; `Default` gives the sources' defaults (see
/// `docs/models/tcp.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    /// Lower bound of the retransmission timeout (RFC 6298 says 1 s; Linux uses 200 ms).
    pub rto_min: Time,
    /// Retransmission timeout before the first RTT sample (RFC 6298: 1 s).
    pub rto_initial: Time,
    /// Upper bound of the backed-off timeout (RFC 6298: at least 60 s).
    pub rto_max: Time,
    /// Initial congestion window, segments (RFC 5681 / RFC 3390: 3 for 1500-byte frames).
    pub initial_window: u32,
    /// The receiver's advertised window, bytes; `None` sizes it by the flow's path
    /// ([`TcpParams::receive_window`]).
    pub rwnd: Option<Bytes>,
    /// Whether the receiver delays ACKs (every second segment, or after the timeout).
    pub delayed_ack: bool,
    /// The delayed-ACK timeout (Linux's minimum, 40 ms).
    pub delayed_ack_timeout: Time,
    /// Duplicate ACKs that trigger a fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// Size of an ACK frame on the wire (a minimum Ethernet frame).
    pub ack_bytes: u32,
    /// DCTCP's EWMA gain g (the paper: 1/16).
    pub g: f64,
    /// Whether a sender idle for longer than its RTO restarts from the initial window
    /// (RFC 5681 §4.1, Linux's `tcp_slow_start_after_idle`).
    pub restart_after_idle: bool,
    /// The smallest window a DCTCP cut leaves, segments (Linux's `dctcp_ssthresh`: 2).
    pub dctcp_min_cwnd: f64,
    /// Where and at what queue switches mark ECN-capable (DCTCP) frames.
    pub ecn: EcnMarking,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            rto_min: Time::from_ms(200),
            rto_initial: Time::from_ms(1000),
            rto_max: Time::from_ms(60_000),
            initial_window: 3,
            rwnd: None,
            delayed_ack: false,
            delayed_ack_timeout: Time::from_ms(40),
            dupack_threshold: 3,
            ack_bytes: 64,
            g: 1.0 / 16.0,
            restart_after_idle: true,
            dctcp_min_cwnd: 2.0,
            ecn: EcnMarking::ByCapacity,
        }
    }
}

impl Params for TcpParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "rto_min_ms",
            range: Positive,
            default: "200 ms (Linux)",
            doc: "lower bound of the retransmission timeout",
            set: Setter::Time(|p, v| p.rto_min = v),
        },
        Param {
            name: "rto_initial_ms",
            range: Positive,
            default: "1 s (RFC 6298)",
            doc: "retransmission timeout before the first RTT sample",
            set: Setter::Time(|p, v| p.rto_initial = v),
        },
        Param {
            name: "rto_max_ms",
            range: Positive,
            default: "60 s (RFC 6298)",
            doc: "upper bound of the backed-off timeout",
            set: Setter::Time(|p, v| p.rto_max = v),
        },
        Param {
            name: "initial_window",
            range: Whole(1, 1000),
            default: "3 segments (RFC 3390)",
            doc: "initial congestion window",
            set: Setter::Count(|p, v| p.initial_window = v),
        },
        Param {
            name: "rwnd_kb",
            range: Positive,
            default: "twice the path's bandwidth-delay product, at least 1 MiB",
            doc: "the receiver's advertised window",
            set: Setter::Bytes(|p, v| p.rwnd = Some(Bytes(v))),
        },
        Param {
            name: "delayed_ack",
            range: Any,
            default: "false",
            doc: "the receiver delays ACKs (every second segment, or after the timeout)",
            set: Setter::Switch(|p, v| p.delayed_ack = v),
        },
        Param {
            name: "delayed_ack_ms",
            range: Positive,
            default: "40 ms (Linux)",
            doc: "the delayed-ACK timeout",
            set: Setter::Time(|p, v| p.delayed_ack_timeout = v),
        },
        Param {
            name: "dupack_threshold",
            range: Whole(1, 100),
            default: "3 (RFC 5681)",
            doc: "duplicate ACKs that trigger a fast retransmit",
            set: Setter::Count(|p, v| p.dupack_threshold = v),
        },
        Param {
            name: "ack_bytes",
            range: Whole(64, 1500),
            default: "64",
            doc: "size of an ACK frame on the wire",
            set: Setter::Count(|p, v| p.ack_bytes = v),
        },
        Param { name: "g", range: Fraction, default: "1/16 (DCTCP)", doc: "DCTCP's EWMA gain", set: Setter::Real(|p, v| p.g = v) },
        Param {
            name: "restart_after_idle",
            range: Any,
            default: "true (RFC 5681 §4.1, Linux)",
            doc: "a sender idle for longer than its RTO restarts from the initial window (RFC 5681 §4.1)",
            set: Setter::Switch(|p, v| p.restart_after_idle = v),
        },
        Param {
            name: "dctcp_min_cwnd",
            range: Positive,
            default: "2 segments (Linux's dctcp_ssthresh)",
            doc: "the smallest window a DCTCP cut leaves",
            set: Setter::Real(|p, v| p.dctcp_min_cwnd = v),
        },
    ];
}

impl TcpParams {
    /// Checks the parameters together.
    pub fn check(&self) -> Result<(), String> {
        if self.rto_max < self.rto_min {
            return Err("rto_max_ms must be >= rto_min_ms".into());
        }
        Ok(())
    }

    /// The receive window of a connection whose path holds `path_bdp` bytes in flight
    /// at its slowest link over one round trip of propagation: `rwnd_kb` when given,
    /// else the larger of [`MIN_AUTO_RWND`] and twice the path's bandwidth-delay product
    /// (as a receiver's buffer auto-tuning would grow it), so that no path's window is
    /// capped below its capacity whatever its rate and delay.
    pub fn receive_window(&self, path_bdp: Bytes) -> Bytes {
        self.rwnd.unwrap_or(Bytes(MIN_AUTO_RWND.0.max(path_bdp.0.saturating_mul(2))))
    }

    /// [`TcpParams::receive_window`] in segments of `mss` bytes (at least 2).
    pub fn rwnd_segments(&self, mss: u32, path_bdp: Bytes) -> u32 {
        (self.receive_window(path_bdp).0 / mss.max(1) as u64).clamp(2, 1 << 20) as u32
    }
}

#[cfg(test)]
mod tests;
