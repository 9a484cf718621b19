//! Congestion management: the [`CongestionPoint`] and [`ReactionPoint`] plug-in points.
//!
//! A congestion point (CP) sits on a switch egress port and sees every arriving frame;
//! it may ask for notifications to be sent to sources. A reaction point (RP) sits at a
//! source, one per flow, and owns that flow's sending rate. The engine calls them
//! through the enums [`CongestionPointKind`] and [`ReactionPointKind`], which hold one
//! variant per scheme, so the hot path has no dynamic dispatch.
//!
//! Adding a scheme means: a file here with its parameter struct (whose `Default` is
//! the published default), its CP and RP types implementing the traits, a variant in
//! [`SchemeConfig`], [`CongestionPointKind`] and [`ReactionPointKind`], and the
//! [`Feedback`] variant its notifications carry.

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
mod fixed;
pub mod fqcn;
pub mod qcn;
pub mod smcc;

pub use afqcn::{AfQcnCp, AfQcnParams};
pub use cpid::CpidRule;
pub use dcc::{Aimd, DccCp, DccParams, DccRp};
pub use dcqcn::{DcqcnParams, DcqcnRp};
pub use dsm::{DsmCp, DsmParams, DsmRp, ReachingGain};
pub use ecm::{EcmCp, EcmParams, EcmRp};
pub use fixed::FixedRate;
pub use fqcn::FqcnCp;
pub use qcn::{QcnCp, QcnParams, QcnRp};
pub use smcc::{CpidNaming, SmccCp, SmccParams, SmccRp, ZeroRule};

use crate::rng::Rng;
use crate::units::{Rate, Time};

/// A scheme parameter's value as a scenario gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A number, in the unit the parameter's name says.
    Number(f64),
    /// A switch.
    Bool(bool),
    /// A mode name.
    Text(String),
}

impl Feedback {
    /// A quantized feedback Ψ without queue figures.
    pub fn quantized(psi: u8) -> Feedback {
        Feedback::Quantized { psi, q_off: 0, q_delta: 0 }
    }
}

impl ParamValue {
    /// The value as a number, or a message naming what was expected.
    pub fn number(&self, name: &str) -> Result<f64, String> {
        match self {
            ParamValue::Number(x) => Ok(*x),
            _ => Err(format!("{name} must be a number")),
        }
    }
    /// The value as a finite number > 0, or a message naming what was expected.
    pub fn positive(&self, name: &str) -> Result<f64, String> {
        match self.number(name)? {
            x if x.is_finite() && x > 0.0 => Ok(x),
            x => Err(format!("{name} must be > 0 (got {x})")),
        }
    }
    /// The value as a switch, or a message naming what was expected.
    pub fn bool(&self, name: &str) -> Result<bool, String> {
        match self {
            ParamValue::Bool(b) => Ok(*b),
            _ => Err(format!("{name} must be true or false")),
        }
    }
    /// The value as one of the named modes `modes` (name, mode), or `expected`.
    pub fn choice<T: Copy>(&self, modes: &[(&str, T)], expected: &str) -> Result<T, String> {
        match self {
            ParamValue::Text(s) => modes.iter().find(|(m, _)| m == s).map(|&(_, mode)| mode).ok_or_else(|| expected.to_string()),
            _ => Err(expected.to_string()),
        }
    }
}

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

/// The calls the engine makes on a congestion point.
pub trait CongestionPoint {
    /// Sees one arriving frame; pushes any notifications to send onto `out`.
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>);
    /// Changes one parameter (already validated by [`SchemeConfig::set_param`]).
    fn set_param(&mut self, name: &str, value: &ParamValue);
}

/// The calls the engine makes on a reaction point.
///
/// After any call that returns `true` the engine reads [`ReactionPoint::rate`] and
/// [`ReactionPoint::timer`] again; `false` promises that neither changed.
pub trait ReactionPoint {
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
    /// The time asked for by [`ReactionPoint::timer`] has come (schemes without
    /// timers never ask).
    fn on_timer(&mut self, _now: Time) -> bool {
        false
    }
    /// Changes one parameter (already validated by [`SchemeConfig::set_param`]).
    fn set_param(&mut self, name: &str, value: &ParamValue);
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
}

impl RpInit {
    /// The reaction point's view of flow number `flow` from its spec.
    pub fn of(spec: &crate::config::FlowSpec, line_rate: Rate, flow: u32) -> RpInit {
        let ceiling = spec.max_rate.map_or(line_rate, |cap| cap.min(line_rate));
        RpInit { line_rate, initial_rate: spec.rate.unwrap_or(line_rate), flow, ceiling, aimd: spec.aimd }
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

/// The members of the QCN family, which share one CP and one RP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QcnVariant {
    /// IEEE 802.1Qau QCN.
    Standard,
    /// QCN-Timer: increases from the timer only.
    Timer,
    /// QCN-AIMD: additive increase per byte-counter cycle, no Fast Recovery.
    Aimd,
    /// QCN-T: one constant-period timer with a later HAI.
    T,
}

impl QcnVariant {
    fn name(self) -> &'static str {
        match self {
            QcnVariant::Standard => "qcn",
            QcnVariant::Timer => "qcn_timer",
            QcnVariant::Aimd => "qcn_aimd",
            QcnVariant::T => "qcn_t",
        }
    }
}

/// The scheme of a run and its parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SchemeConfig {
    /// Plain Ethernet: no congestion points; each flow keeps its own fixed rate.
    #[default]
    None,
    /// QCN or one of its variants.
    Qcn {
        /// Which member of the family.
        variant: QcnVariant,
        /// Its parameters.
        params: QcnParams,
    },
    /// BCN/ECM.
    Ecm(EcmParams),
    /// SMCC.
    Smcc(SmccParams),
    /// DSM.
    Dsm(DsmParams),
    /// FQCN: QCN's parameters; its congestion point notifies every overrated flow.
    Fqcn(QcnParams),
    /// AF-QCN: QCN's parameters and the fairness controller's.
    AfQcn {
        /// QCN's parameters.
        qcn: QcnParams,
        /// The fairness controller's.
        af: AfQcnParams,
    },
    /// Differentiated AIMD (DCC).
    Dcc(DccParams),
    /// DCQCN: RED-like ECN marking at switches, CNPs from receivers.
    Dcqcn(DcqcnParams),
}

impl SchemeConfig {
    /// The scheme's name as scenario files spell it.
    pub fn name(&self) -> &'static str {
        match self {
            SchemeConfig::None => "none",
            SchemeConfig::Qcn { variant, .. } => variant.name(),
            SchemeConfig::Ecm(_) => "ecm",
            SchemeConfig::Smcc(_) => "smcc",
            SchemeConfig::Dsm(_) => "dsm",
            SchemeConfig::Fqcn(_) => "fqcn",
            SchemeConfig::AfQcn { .. } => "afqcn",
            SchemeConfig::Dcc(_) => "dcc",
            SchemeConfig::Dcqcn(_) => "dcqcn",
        }
    }

    /// Every scheme name a scenario may use.
    pub const NAMES: &'static [&'static str] =
        &["none", "qcn", "qcn_timer", "qcn_aimd", "qcn_t", "ecm", "smcc", "dsm", "fqcn", "afqcn", "dcc", "dcqcn"];

    /// The default configuration of the scheme called `name`.
    pub fn by_name(name: &str) -> Option<SchemeConfig> {
        let qcn = |variant, params| Some(SchemeConfig::Qcn { variant, params });
        match name {
            "none" => Some(SchemeConfig::None),
            "qcn" => qcn(QcnVariant::Standard, QcnParams::default()),
            "qcn_timer" => qcn(QcnVariant::Timer, QcnParams::qcn_timer()),
            "qcn_aimd" => qcn(QcnVariant::Aimd, QcnParams::qcn_aimd()),
            "qcn_t" => qcn(QcnVariant::T, QcnParams::qcn_t()),
            "ecm" => Some(SchemeConfig::Ecm(EcmParams::default())),
            "smcc" => Some(SchemeConfig::Smcc(SmccParams::default())),
            "dsm" => Some(SchemeConfig::Dsm(DsmParams::default())),
            "fqcn" => Some(SchemeConfig::Fqcn(QcnParams::default())),
            "afqcn" => Some(SchemeConfig::AfQcn { qcn: QcnParams::default(), af: AfQcnParams::default() }),
            "dcc" => Some(SchemeConfig::Dcc(DccParams::default())),
            "dcqcn" => Some(SchemeConfig::Dcqcn(DcqcnParams::default())),
            _ => None,
        }
    }

    /// Sets one parameter by its scenario name, checking its range and, with the
    /// others in force, the order of the thresholds (a change while running).
    pub fn set_param(&mut self, name: &str, value: &ParamValue) -> Result<(), String> {
        let mut changed = self.clone();
        changed.set_param_alone(name, value)?;
        changed.check()?;
        *self = changed;
        Ok(())
    }

    /// Sets one parameter by its scenario name, checking its range only: a scenario
    /// sets all its keys, in any order, and then calls [`SchemeConfig::check`] (raising
    /// ECM's three thresholds one at a time would otherwise pass through a disorder).
    pub fn set_param_alone(&mut self, name: &str, value: &ParamValue) -> Result<(), String> {
        match self {
            SchemeConfig::None => Err(format!("scheme \"none\" has no parameter \"{name}\"")),
            SchemeConfig::Qcn { params, .. } => params.set(name, value),
            SchemeConfig::Ecm(params) => params.set(name, value),
            SchemeConfig::Smcc(params) => params.set(name, value),
            SchemeConfig::Dcc(params) => params.set(name, value),
            SchemeConfig::Dsm(params) => params.set(name, value),
            SchemeConfig::Dcqcn(params) => params.set(name, value),
            SchemeConfig::Fqcn(params) => params.set(name, value),
            SchemeConfig::AfQcn { qcn, af } => match af.set(name, value)? {
                true => Ok(()),
                false => qcn.set(name, value).map_err(|m| match m.strip_prefix("unknown parameter; allowed: ") {
                    Some(list) => format!("unknown parameter; allowed: {list}, {}", AfQcnParams::NAMES.join(", ")),
                    None => m,
                }),
            },
        }
    }

    /// Checks what no single parameter can: the order of ECM's and DCC's thresholds.
    pub fn check(&self) -> Result<(), String> {
        match self {
            SchemeConfig::Ecm(params) => params.check(),
            SchemeConfig::Dcc(params) => params.check(),
            _ => Ok(()),
        }
    }

    /// The queue length its congestion points steer towards (`q_eq`), in bytes, for the
    /// schemes that have one.
    pub fn queue_target(&self) -> Option<u64> {
        match self {
            SchemeConfig::Qcn { params, .. } | SchemeConfig::Fqcn(params) | SchemeConfig::AfQcn { qcn: params, .. } => Some(params.q_eq),
            SchemeConfig::Ecm(params) => Some(params.q_eq),
            _ => None,
        }
    }

    /// Builds the congestion point of one port, if the scheme has one.
    pub fn congestion_point(&self, init: CpInit, rng: Rng) -> Option<CongestionPointKind> {
        match self {
            SchemeConfig::None => None,
            SchemeConfig::Qcn { params, .. } => Some(CongestionPointKind::Qcn(QcnCp::new(params.clone(), rng))),
            SchemeConfig::Ecm(params) => Some(CongestionPointKind::Ecm(EcmCp::new(params.clone()))),
            SchemeConfig::Smcc(params) => Some(CongestionPointKind::Smcc(SmccCp::new(params.clone(), rng))),
            SchemeConfig::Dsm(params) => {
                let params = DsmParams { frame_bytes: params.frame_bytes.or(Some(init.frame_bytes)), ..params.clone() };
                Some(CongestionPointKind::Dsm(DsmCp::new(params, init.capacity)))
            }
            SchemeConfig::Fqcn(params) => Some(CongestionPointKind::Fqcn(FqcnCp::new(params.clone(), rng))),
            SchemeConfig::AfQcn { qcn, af } => Some(CongestionPointKind::AfQcn(AfQcnCp::new(qcn.clone(), af.clone(), rng))),
            SchemeConfig::Dcc(params) => Some(CongestionPointKind::Dcc(DccCp::with_rng(params.clone(), rng))),
            // DCQCN's congestion point is the port's RED marker (set up by the engine).
            SchemeConfig::Dcqcn(_) => None,
        }
    }

    /// Builds the reaction point of one controlled flow.
    pub fn reaction_point(&self, init: RpInit, rng: Rng) -> ReactionPointKind {
        match self {
            SchemeConfig::None => ReactionPointKind::Fixed(FixedRate::new(init.initial_rate)),
            SchemeConfig::Qcn { params, .. } => ReactionPointKind::Qcn(QcnRp::new(params.clone(), init.line_rate, init.initial_rate, rng)),
            SchemeConfig::Ecm(params) => ReactionPointKind::Ecm(EcmRp::new(params.clone(), init.line_rate, init.initial_rate)),
            SchemeConfig::Smcc(params) => ReactionPointKind::Smcc(SmccRp::new(params.clone(), init.line_rate, init.initial_rate)),
            SchemeConfig::Dsm(params) => ReactionPointKind::Dsm(DsmRp::new(params, init.line_rate, init.initial_rate)),
            SchemeConfig::Fqcn(params) | SchemeConfig::AfQcn { qcn: params, .. } => {
                ReactionPointKind::Qcn(QcnRp::new(params.clone(), init.line_rate, init.initial_rate, rng))
            }
            SchemeConfig::Dcc(params) => {
                let aimd = init.aimd.unwrap_or(params.aimd);
                let mut rng = rng;
                let phase = if params.random_slot_phase { rng.uniform() } else { 0.0 };
                ReactionPointKind::Dcc(DccRp::new(params, aimd, init.initial_rate, init.ceiling, phase))
            }
            SchemeConfig::Dcqcn(params) => ReactionPointKind::Dcqcn(DcqcnRp::new(params.clone(), init.line_rate, init.initial_rate)),
        }
    }
}

/// Every congestion point, one variant per scheme.
#[derive(Clone, Debug)]
pub enum CongestionPointKind {
    /// QCN and its variants.
    Qcn(QcnCp),
    /// BCN/ECM.
    Ecm(EcmCp),
    /// SMCC.
    Smcc(SmccCp),
    /// DSM.
    Dsm(DsmCp),
    /// FQCN.
    Fqcn(FqcnCp),
    /// AF-QCN.
    AfQcn(AfQcnCp),
    /// DCC.
    Dcc(DccCp),
}

macro_rules! dispatch_cp {
    ($self:ident, $cp:ident => $body:expr) => {
        match $self {
            CongestionPointKind::Qcn($cp) => $body,
            CongestionPointKind::Ecm($cp) => $body,
            CongestionPointKind::Smcc($cp) => $body,
            CongestionPointKind::Dsm($cp) => $body,
            CongestionPointKind::Fqcn($cp) => $body,
            CongestionPointKind::AfQcn($cp) => $body,
            CongestionPointKind::Dcc($cp) => $body,
        }
    };
}

impl CongestionPointKind {
    /// Dispatches [`CongestionPoint::on_arrival`].
    #[inline]
    pub fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        dispatch_cp!(self, cp => cp.on_arrival(arrival, out))
    }
    /// Whether an arriving data frame of `bytes` needs nothing of the congestion
    /// point but counting towards its next sample (QCN's, counted here): the switch
    /// then makes no [`CongestionPointKind::on_arrival`] call for it.
    #[inline(always)]
    pub fn passes_unsampled(&mut self, bytes: u32) -> bool {
        match self {
            CongestionPointKind::Qcn(cp) => cp.passes_unsampled(bytes),
            _ => false,
        }
    }
    /// Dispatches [`CongestionPoint::set_param`].
    pub fn set_param(&mut self, name: &str, value: &ParamValue) {
        dispatch_cp!(self, cp => cp.set_param(name, value))
    }
    /// Whether it notifies only the flow of the frame that arrives (every scheme but
    /// FQCN, which notifies the port's culprit flows on any arrival).
    pub fn notifies_arriving_flow_only(&self) -> bool {
        !matches!(self, CongestionPointKind::Fqcn(_))
    }
    /// Whether a drop policy discards a data frame of 802.1p priority `priority`
    /// arriving at a queue of `queue_bytes`, before it is queued (DCC only).
    #[inline]
    pub fn drops(&mut self, queue_bytes: u64, priority: u8) -> bool {
        match self {
            CongestionPointKind::Dcc(cp) => cp.drops(queue_bytes, priority),
            _ => false,
        }
    }
}

/// Every reaction point, one variant per scheme.
#[derive(Clone, Debug)]
pub enum ReactionPointKind {
    /// A fixed rate: plain Ethernet and background traffic.
    Fixed(FixedRate),
    /// QCN and its variants.
    Qcn(QcnRp),
    /// BCN/ECM.
    Ecm(EcmRp),
    /// SMCC.
    Smcc(SmccRp),
    /// DSM.
    Dsm(DsmRp),
    /// DCC.
    Dcc(DccRp),
    /// DCQCN.
    Dcqcn(DcqcnRp),
}

macro_rules! dispatch_rp {
    ($self:ident, $rp:ident => $body:expr) => {
        match $self {
            ReactionPointKind::Fixed($rp) => $body,
            ReactionPointKind::Qcn($rp) => $body,
            ReactionPointKind::Ecm($rp) => $body,
            ReactionPointKind::Smcc($rp) => $body,
            ReactionPointKind::Dsm($rp) => $body,
            ReactionPointKind::Dcc($rp) => $body,
            ReactionPointKind::Dcqcn($rp) => $body,
        }
    };
}

impl ReactionPointKind {
    /// Dispatches [`ReactionPoint::rate`].
    #[inline]
    pub fn rate(&self) -> Rate {
        dispatch_rp!(self, rp => rp.rate())
    }
    /// Dispatches [`ReactionPoint::timer`].
    #[inline]
    pub fn timer(&self) -> Option<Time> {
        dispatch_rp!(self, rp => rp.timer())
    }
    /// Dispatches [`ReactionPoint::on_start`].
    #[inline]
    pub fn on_start(&mut self, now: Time) -> bool {
        dispatch_rp!(self, rp => rp.on_start(now))
    }
    /// Dispatches [`ReactionPoint::on_feedback`].
    #[inline]
    pub fn on_feedback(&mut self, now: Time, cpid: u32, feedback: &Feedback) -> bool {
        dispatch_rp!(self, rp => rp.on_feedback(now, cpid, feedback))
    }
    /// Dispatches [`ReactionPoint::on_sent`]. A QCN limiter's frame that ends no
    /// byte-counter cycle is counted here, inlined into the send, without the call.
    #[inline(always)]
    pub fn on_sent(&mut self, now: Time, bytes: u32) -> bool {
        if let ReactionPointKind::Qcn(rp) = self {
            if rp.passes_sent(bytes) {
                return false;
            }
        }
        self.dispatch_on_sent(now, bytes)
    }

    #[inline(never)]
    fn dispatch_on_sent(&mut self, now: Time, bytes: u32) -> bool {
        dispatch_rp!(self, rp => rp.on_sent(now, bytes))
    }
    /// Dispatches [`ReactionPoint::on_timer`].
    #[inline]
    pub fn on_timer(&mut self, now: Time) -> bool {
        dispatch_rp!(self, rp => rp.on_timer(now))
    }
    /// Dispatches [`ReactionPoint::set_param`].
    pub fn set_param(&mut self, name: &str, value: &ParamValue) {
        dispatch_rp!(self, rp => rp.set_param(name, value))
    }
}
