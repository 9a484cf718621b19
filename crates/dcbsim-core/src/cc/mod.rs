//! Congestion management: the [`CongestionPoint`] and [`ReactionPoint`] plug-in points.
//!
//! A congestion point (CP) sits on a switch egress port and sees every arriving frame;
//! it may ask for notifications to be sent to sources. A reaction point (RP) sits at a
//! source, one per flow, and owns that flow's sending rate. A scheme ([`Scheme`]) is
//! one file here: its typed parameters with their table ([`crate::param`]), its CP and
//! RP, and the hooks it needs from the engine. `registry.rs` is the one list of
//! schemes; from it one macro makes [`SchemeConfig`], [`CongestionPointKind`] and
//! [`ReactionPointKind`] and their dispatch, so the hot path has no dynamic dispatch.
//! `docs/writing-a-scheme.md` adds a scheme end to end.

pub mod afqcn;
mod cpid;
pub mod dcc;
#[cfg(test)]
mod dcc_tests;
pub mod dcqcn;
#[cfg(test)]
mod dcqcn_tests;
pub mod dsm;
pub mod ecm;
pub mod fixed;
pub mod fqcn;
pub mod hpcc;
pub mod outstanding;
pub mod qcn;
#[macro_use]
mod scheme;
mod registry;
pub mod smcc;
pub mod threshold;
pub mod timely;

pub use crate::param::{ParamError, ParamValue};
pub use crate::spec::Aimd;
pub use afqcn::{AfQcn, AfQcnCp, AfQcnParams};
pub use cpid::CpidRule;
pub use dcc::{DccCp, DccParams, DccRp};
pub use dcqcn::{DcqcnCp, DcqcnParams, DcqcnRp};
pub use dsm::{DsmCp, DsmParams, DsmRp, ReachingGain};
pub use ecm::{EcmCp, EcmParams, EcmRp};
pub use fixed::{FixedRate, NoCp, Plain};
pub use fqcn::{Fqcn, FqcnCp};
pub use hpcc::{HpccParams, HpccRp};
pub use qcn::{Qcn, QcnCp, QcnParams, QcnRp, QcnVariant};
pub use registry::{CongestionPointKind, ReactionPointKind, SchemeConfig};
pub use scheme::Scheme;
pub use smcc::{CpidNaming, SmccCp, SmccParams, SmccRp, SmccSampling, ZeroRule};
pub use threshold::{ThresholdCp, ThresholdParams, ThresholdRp};
pub use timely::{TimelyParams, TimelyRp};

use crate::spec::FlowSpec;
use crate::units::{Rate, Time};

/// What a notification frame carries from a congestion point to a reaction point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Feedback {
    /// A quantized QCN feedback value Ψ in 1..=63, with the queue figures of the
    /// sample it comes from (a CNM carries them; reaction points read only Ψ).
    Quantized {
        /// The 6-bit magnitude of the (negative) feedback.
        psi: u8,
        /// `Qoff = q − q_eq` at the sample, bytes.
        q_off: i32,
        /// `Qδ = q − q_old` at the sample, bytes.
        q_delta: i32,
    },
    /// The queue's offset from equilibrium and its change since the last sample, in
    /// bytes, of either sign (BCN/ECM, SMCC).
    QueueState {
        /// `Qoff = q − q_eq`.
        q_off: i32,
        /// `Qδ = q − q_old`.
        q_delta: i32,
    },
    /// Add this much to the rate, in kbit/s, of either sign (DSM).
    RateDelta {
        /// The change, kbit/s.
        kbps: i32,
    },
    /// Cut the rate by the largest step (ECM-Max).
    MaxDecrease,
    /// Stop sending for a while (ECM(0,0), DCC's halt).
    Halt,
    /// Cut the window by the source's own factor (DCC's decrease).
    Decrease,
    /// A congestion notification packet from the flow's receiver (DCQCN).
    Cnp,
}

impl Feedback {
    /// A quantized feedback Ψ without queue figures.
    pub fn quantized(psi: u8) -> Feedback {
        Feedback::Quantized { psi, q_off: 0, q_delta: 0 }
    }
}

/// A request from a congestion point: send `feedback` to the source of `flow`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Notify {
    /// The flow (index in the run's flow list) whose source gets the notification.
    pub flow: u32,
    /// What the notification carries.
    pub feedback: Feedback,
}

/// What a congestion point sees of one arriving frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    /// The current time.
    pub now: Time,
    /// The frame's flow.
    pub flow: u32,
    /// The flow's weight (1 unless the scenario sets it).
    pub weight: f64,
    /// The frame's size.
    pub bytes: u32,
    /// Bytes queued at the port after the drop-tail decision (the frame included
    /// unless it was dropped; the frame being transmitted excluded).
    pub queue_bytes: u64,
    /// Whether the frame was dropped because the buffer was full.
    pub dropped: bool,
}

/// The calls the engine makes on a congestion point. Every hook but
/// [`CongestionPoint::on_arrival`] has a default that suits a CP which only samples.
pub trait CongestionPoint {
    /// Whether [`CongestionPoint::passes_unsampled`] is its own: with `false` (the
    /// default) the switch's frame path does not look at it at all, which keeps the
    /// dispatch of the schemes that do count a compare, not a jump table.
    const COUNTS_UNSAMPLED: bool = false;
    /// Whether [`CongestionPoint::drops`] is its own (`false`: never asked).
    const DROPS: bool = false;

    /// Sees one arriving data frame; pushes any notifications to send onto `out`.
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>);
    /// Whether an arriving data frame of `bytes` needs nothing but counting towards
    /// the next sample (counted here, inlined into the switch's frame path): the
    /// switch then makes no [`CongestionPoint::on_arrival`] call for it. A CP that
    /// never notifies from arrivals (an ECN marker) says `true` always.
    #[inline(always)]
    fn passes_unsampled(&mut self, _bytes: u32) -> bool {
        false
    }
    /// Whether a drop policy discards a data frame of 802.1p priority `priority`
    /// arriving at a queue of `queue_bytes`, before it is queued.
    #[inline(always)]
    fn drops(&mut self, _queue_bytes: u64, _priority: u8) -> bool {
        false
    }
    /// Whether it notifies only the flow of the frame that arrives (a CP that
    /// notifies other flows on an arrival says `false`).
    fn notifies_arriving_flow_only(&self) -> bool {
        true
    }
    /// Whether an ECN-capable frame that finds `queue_bytes` queued, above the
    /// port's marking threshold, is marked (`true`: every one, DCTCP's rule).
    #[inline]
    fn marks_ecn(&mut self, _queue_bytes: u64) -> bool {
        true
    }
}

/// The calls the engine makes on a reaction point.
///
/// After any call that returns `true` the engine reads [`ReactionPoint::rate`] and
/// [`ReactionPoint::timer`] again; `false` promises that neither changed.
pub trait ReactionPoint {
    /// Whether [`ReactionPoint::passes_sent`] is its own (`false`: never asked).
    const COUNTS_SENT: bool = false;

    /// The rate the flow may send at now. Zero halts the flow.
    fn rate(&self) -> Rate;
    /// When the RP wants [`ReactionPoint::on_timer`] called next, if at all.
    fn timer(&self) -> Option<Time>;
    /// The flow starts (or starts again) sending at `now`; timers count from here.
    fn on_start(&mut self, _now: Time) -> bool {
        false
    }
    /// A notification arrived for this flow from congestion point `cpid`.
    fn on_feedback(&mut self, now: Time, cpid: u32, feedback: &Feedback) -> bool;
    /// The flow put a frame of `bytes` on the wire (schemes without a byte counter
    /// ignore it).
    fn on_sent(&mut self, _now: Time, _bytes: u32) -> bool {
        false
    }
    /// Whether a sent frame of `bytes` only needs counting (done here, inlined into
    /// the send), so that [`ReactionPoint::on_sent`] need not be called.
    #[inline(always)]
    fn passes_sent(&mut self, _bytes: u32) -> bool {
        false
    }
    /// The time asked for by [`ReactionPoint::timer`] has come (schemes without
    /// timers never ask).
    fn on_timer(&mut self, _now: Time) -> bool {
        false
    }
    /// Whether the flow's rate can change at all (a fixed-rate source says `false`).
    fn reacts(&self) -> bool {
        true
    }
    /// Whether the flow's data frames are ECN-capable (ECT), so switches mark them.
    fn ecn_capable(&self) -> bool {
        false
    }
    /// Whether the flow's frames carry 802.1Qau's CN-TAG (traces show it).
    fn cn_tag(&self) -> bool {
        false
    }
    /// Whether its receiver acknowledges each data frame (see [`Acks`]): the scheme's
    /// reaction points then hear of every frame delivered through
    /// [`ReactionPoint::on_ack`].
    fn wants_acks(&self) -> bool {
        false
    }
    /// The acknowledgement of one of its frames arrived (only asked of a reaction
    /// point that [`ReactionPoint::wants_acks`]).
    fn on_ack(&mut self, _now: Time, _ack: &AckInfo) -> bool {
        false
    }
    /// The rate it paces at, whatever its window allows (samples record it; a
    /// window-limited reaction point's [`ReactionPoint::rate`] is zero while the
    /// window is full).
    fn pacing_rate(&self) -> Rate {
        self.rate()
    }
    /// The engine sent the flow back to byte `to` of its stream (go-back-N: a NACK,
    /// or a timeout it asked for through [`ReactionPoint::take_go_back`]); frames from
    /// there on go again.
    fn on_go_back(&mut self, _now: Time, _to: u64) -> bool {
        false
    }
    /// After [`ReactionPoint::on_timer`]: the byte a retransmission timeout sends the
    /// flow back to, if one expired (asked only of a reaction point that wants acks).
    fn take_go_back(&mut self) -> Option<u64> {
        None
    }
    /// Its window, bytes, if it keeps one (samples record it).
    fn window_bytes(&self) -> Option<f64> {
        None
    }
    /// The round-trip time it measured last, if it measures one (samples record it).
    fn last_rtt(&self) -> Option<Time> {
        None
    }
}

/// How a scheme's receivers acknowledge data frames, for schemes whose sources
/// steer by what every frame meets (HPCC, TIMELY): one acknowledgement per data frame
/// of a flow without a transport, echoing the frame's send time and, with
/// `telemetry`, the record each switch egress added to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acks {
    /// An acknowledgement's size on the wire, bytes (telemetry echoed included).
    pub ack_bytes: u32,
    /// Bytes the probe's header adds to every data frame on the wire (HPCC's INT
    /// header); flows count their payload without them.
    pub header_bytes: u32,
    /// Whether switch egress ports add their in-band telemetry to data frames.
    pub telemetry: bool,
}

/// What a reaction point hears of one acknowledged frame.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo<'a> {
    /// When the frame was sent.
    pub sent: Time,
    /// Its payload, bytes.
    pub payload: u32,
    /// Where it ends in the flow's byte stream.
    pub seq_end: u64,
    /// The bytes the receiver holds in order (go-back-N's cumulative acknowledgement).
    pub cumulative: u64,
    /// Whether it is a NACK: the receiver found a gap before this frame and the flow
    /// goes back to `cumulative`.
    pub nack: bool,
    /// The record of each switch egress it crossed, first hop first (empty
    /// without telemetry).
    pub hops: &'a [crate::net::telemetry::HopRecord],
}

/// What a reaction point is built from.
#[derive(Clone, Copy, Debug)]
pub struct RpInit {
    /// The source host's line rate.
    pub line_rate: Rate,
    /// The flow's initial rate (its configured rate, or line rate).
    pub initial_rate: Rate,
    /// Index of the flow.
    pub flow: u32,
    /// The most the flow can send: its line rate, or its application's cap if lower.
    pub ceiling: Rate,
    /// The flow's own AIMD setting (DCC), if it gives one.
    pub aimd: Option<Aimd>,
    /// The round-trip time of its path without queueing: a frame there and its
    /// acknowledgement back (set for schemes that acknowledge frames; zero otherwise).
    pub base_rtt: Time,
}

impl RpInit {
    /// The reaction point's view of flow number `flow` from its spec, at a source of
    /// `line_rate`.
    pub fn of(spec: &FlowSpec, line_rate: Rate, flow: u32) -> RpInit {
        let ceiling = spec.max_rate.map_or(line_rate, |cap| cap.min(line_rate));
        RpInit { line_rate, initial_rate: spec.rate.unwrap_or(line_rate), flow, ceiling, aimd: spec.aimd, base_rtt: Time::ZERO }
    }
}

/// What a congestion point is built from.
#[derive(Clone, Copy, Debug)]
pub struct CpInit {
    /// The port's capacity.
    pub capacity: Rate,
    /// The port's buffer in bytes.
    pub buffer: u64,
    /// The id this CP puts in its notifications (the port's index).
    pub cpid: u32,
    /// The largest frame the flows send, bytes (DSM's sampling period when unset).
    pub frame_bytes: u64,
}

/// How a scheme's receivers answer congestion marks (DCQCN's notification point): a
/// notification back to the source, at most one per flow per `interval`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReceiverAnswer {
    /// The least time between two answers to one flow.
    pub interval: Time,
    /// What an answer carries.
    pub feedback: Feedback,
}
