//! What a scheme is to the engine ([`Scheme`]), and the macro that turns the registry's
//! list of schemes into the enums the engine holds and their dispatch.

use super::{Acks, CongestionPoint, CpInit, ReactionPoint, ReceiverAnswer, RpInit};
use crate::param::{self, ParamError, ParamValue, Params};
use crate::rng::Rng;
use std::fmt::Debug;

/// A congestion-management scheme: its configuration (typed parameters with their
/// table), how it builds its congestion and reaction points, and the hooks the engine
/// asks it about. Every hook has a default that suits a scheme of CPs on switch ports
/// and RPs at sources; a scheme overrides only what it needs.
pub trait Scheme: Clone + Debug + Default + PartialEq + Sized {
    /// Its congestion point ([`super::NoCp`] for a scheme without one).
    type Cp: CongestionPoint + Clone + Debug;
    /// Its reaction point.
    type Rp: ReactionPoint + Clone + Debug;
    /// The struct holding its parameters, with their table.
    type Params: Params;

    /// The names a scenario may give it (a family of variants has several).
    const NAMES: &'static [&'static str];
    /// The stream its congestion points draw from, per port (`<stream>:<port>`).
    const CP_STREAM: &'static str = "cp";

    /// Its default configuration under `name`, one of [`Scheme::NAMES`] (`Default`
    /// for a scheme of one name).
    fn named(_name: &str) -> Self {
        Self::default()
    }
    /// The name it runs under.
    fn name(&self) -> &'static str {
        Self::NAMES[0]
    }
    /// Its parameters.
    fn params_mut(&mut self) -> &mut Self::Params;

    /// Sets one parameter by a scenario name, checking its type and range only.
    fn set_param(&mut self, name: &str, value: &ParamValue) -> Result<(), ParamError> {
        self.params_mut().set(name, value)
    }
    /// Every parameter name a scenario may write.
    fn parameter_names() -> Vec<String> {
        param::names::<Self::Params>()
    }
    /// The reference rows of its parameters (names, values taken, default, meaning).
    fn reference() -> Vec<[String; 4]> {
        param::reference_rows::<Self::Params>()
    }
    /// A value each of its parameters takes, by name (see [`param::examples`]).
    fn examples() -> Vec<(String, ParamValue)> {
        param::examples::<Self::Params>()
    }
    /// What is wrong with its parameter tables (see [`param::table_faults`]).
    fn table_faults() -> Vec<String> {
        param::table_faults::<Self::Params>()
    }
    /// Checks what no single parameter can (the order of thresholds).
    fn check(&self) -> Result<(), ParamError> {
        Ok(())
    }

    /// Builds the congestion point of one port, if the scheme has one there.
    fn congestion_point(&self, init: CpInit, rng: Rng) -> Option<Self::Cp>;
    /// Builds the reaction point of one controlled flow.
    fn reaction_point(&self, init: RpInit, rng: Rng) -> Self::Rp;
    /// Brings a congestion point it built to these parameters (a timeline change).
    fn reconfigure_cp(&self, _cp: &mut Self::Cp) {}
    /// Brings a reaction point it built to these parameters (a timeline change).
    fn reconfigure_rp(&self, _rp: &mut Self::Rp) {}

    /// The queue length its congestion points steer towards, bytes, if it has one.
    fn queue_target(&self) -> Option<u64> {
        None
    }
    /// Whether its congestion points decide ECN marks: their ports then ask
    /// [`CongestionPoint::marks_ecn`] about every ECN-capable frame that finds a queue,
    /// instead of marking at the transport's threshold.
    fn marks_ecn(&self) -> bool {
        false
    }
    /// How receivers answer congestion-marked frames, if they do.
    fn receiver_answer(&self) -> Option<ReceiverAnswer> {
        None
    }
    /// How receivers acknowledge its flows' data frames, if they do.
    fn acks(&self) -> Option<Acks> {
        None
    }
}

/// From the registry's list `Variant(Type),*` makes [`super::SchemeConfig`] (one
/// variant per scheme), [`super::CongestionPointKind`] and
/// [`super::ReactionPointKind`] (one variant per scheme, holding its CP and RP), and
/// the matches that dispatch to them.
macro_rules! schemes {
    ($($(#[$doc:meta])* $variant:ident($scheme:ty),)*) => {
        /// The scheme of a run and its parameters: one variant per scheme of the registry.
        #[derive(Clone, Debug, PartialEq)]
        pub enum SchemeConfig {
            $($(#[$doc])* $variant($scheme),)*
        }

        /// Every congestion point, one variant per scheme.
        #[derive(Clone, Debug)]
        pub enum CongestionPointKind {
            $($(#[$doc])* $variant(<$scheme as Scheme>::Cp),)*
        }

        /// Every reaction point, one variant per scheme.
        #[derive(Clone, Debug)]
        pub enum ReactionPointKind {
            $($(#[$doc])* $variant(<$scheme as Scheme>::Rp),)*
        }

        impl SchemeConfig {
            /// Every scheme name a scenario may use.
            pub fn names() -> Vec<&'static str> {
                [$(<$scheme as Scheme>::NAMES),*].concat()
            }
            /// The default configuration of the scheme called `name`.
            pub fn by_name(name: &str) -> Option<SchemeConfig> {
                $(if <$scheme as Scheme>::NAMES.contains(&name) {
                    return Some(SchemeConfig::$variant(<$scheme as Scheme>::named(name)));
                })*
                None
            }
            /// The scheme's name as scenario files spell it.
            pub fn name(&self) -> &'static str {
                match self { $(SchemeConfig::$variant(s) => s.name(),)* }
            }
            /// Every parameter name the scheme takes.
            pub fn parameter_names(&self) -> Vec<String> {
                match self { $(SchemeConfig::$variant(_) => <$scheme as Scheme>::parameter_names(),)* }
            }
            /// A value each parameter of the scheme takes, by name.
            pub fn parameter_examples(&self) -> Vec<(String, ParamValue)> {
                match self { $(SchemeConfig::$variant(_) => <$scheme as Scheme>::examples(),)* }
            }
            /// The reference rows of the parameters of every scheme, by name.
            pub fn reference() -> Vec<(&'static [&'static str], Vec<[String; 4]>)> {
                vec![$((<$scheme as Scheme>::NAMES, <$scheme as Scheme>::reference()),)*]
            }
            /// What is wrong with any scheme's parameter tables, by scheme.
            pub fn table_faults() -> Vec<String> {
                let mut faults = Vec::new();
                $(faults.extend(<$scheme as Scheme>::table_faults().into_iter().map(|f| format!("{}: {f}", <$scheme as Scheme>::NAMES[0])));)*
                faults
            }
            /// Sets one parameter by its scenario name, checking its type and range
            /// only: a scenario sets all its keys, in any order, and then calls
            /// [`SchemeConfig::check`] (raising ECM's three thresholds one at a time
            /// would otherwise pass through a disorder).
            pub fn set_param_alone(&mut self, name: &str, value: &ParamValue) -> Result<(), ParamError> {
                match self { $(SchemeConfig::$variant(s) => s.set_param(name, value),)* }
            }
            /// Sets one parameter by its scenario name, checking its range and, with the
            /// others in force, the order of thresholds; on an error nothing changes.
            pub fn set_param(&mut self, name: &str, value: &ParamValue) -> Result<(), ParamError> {
                let mut changed = self.clone();
                changed.set_param_alone(name, value)?;
                changed.check()?;
                *self = changed;
                Ok(())
            }
            /// Checks what no single parameter can: the order of thresholds.
            pub fn check(&self) -> Result<(), ParamError> {
                match self { $(SchemeConfig::$variant(s) => s.check(),)* }
            }
            /// The queue length its congestion points steer towards, bytes.
            pub fn queue_target(&self) -> Option<u64> {
                match self { $(SchemeConfig::$variant(s) => s.queue_target(),)* }
            }
            /// Whether its congestion points decide ECN marks.
            pub fn marks_ecn(&self) -> bool {
                match self { $(SchemeConfig::$variant(s) => s.marks_ecn(),)* }
            }
            /// How receivers answer congestion-marked frames, if they do.
            pub fn receiver_answer(&self) -> Option<ReceiverAnswer> {
                match self { $(SchemeConfig::$variant(s) => s.receiver_answer(),)* }
            }
            /// Whether it places congestion points of its own at switch ports (a
            /// scheme without runs at the sources alone, beside another's).
            pub fn has_congestion_points(&self) -> bool {
                match self { $(SchemeConfig::$variant(_) => std::any::TypeId::of::<<$scheme as Scheme>::Cp>() != std::any::TypeId::of::<super::NoCp>(),)* }
            }
            /// How receivers acknowledge its flows' data frames, if they do.
            pub fn acks(&self) -> Option<Acks> {
                match self { $(SchemeConfig::$variant(s) => s.acks(),)* }
            }
            /// The stream name its congestion points draw from, per port.
            pub fn cp_stream(&self) -> &'static str {
                match self { $(SchemeConfig::$variant(_) => <$scheme as Scheme>::CP_STREAM,)* }
            }
            /// Builds the congestion point of one port, if the scheme has one.
            pub fn congestion_point(&self, init: CpInit, rng: Rng) -> Option<CongestionPointKind> {
                match self { $(SchemeConfig::$variant(s) => s.congestion_point(init, rng).map(CongestionPointKind::$variant),)* }
            }
            /// Builds the reaction point of one controlled flow.
            pub fn reaction_point(&self, init: RpInit, rng: Rng) -> ReactionPointKind {
                match self { $(SchemeConfig::$variant(s) => ReactionPointKind::$variant(s.reaction_point(init, rng)),)* }
            }
            /// Brings a congestion point to these parameters (one of another scheme is
            /// left as it is).
            pub fn reconfigure_cp(&self, cp: &mut CongestionPointKind) {
                match (self, cp) {
                    $((SchemeConfig::$variant(s), CongestionPointKind::$variant(cp)) => s.reconfigure_cp(cp),)*
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
            /// Brings a reaction point to these parameters (one of another scheme, a
            /// constant flow's, is left as it is).
            pub fn reconfigure_rp(&self, rp: &mut ReactionPointKind) {
                match (self, rp) {
                    $((SchemeConfig::$variant(s), ReactionPointKind::$variant(rp)) => s.reconfigure_rp(rp),)*
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
        }

        impl CongestionPointKind {
            /// Dispatches [`CongestionPoint::on_arrival`].
            #[inline]
            pub fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
                match self { $(CongestionPointKind::$variant(cp) => cp.on_arrival(arrival, out),)* }
            }
            /// Dispatches [`CongestionPoint::passes_unsampled`].
            #[inline(always)]
            pub fn passes_unsampled(&mut self, bytes: u32) -> bool {
                // A compare per scheme that counts, in registry order, rather than a
                // jump over every variant: this runs for every frame at a CP port.
                $(if <<$scheme as Scheme>::Cp as CongestionPoint>::COUNTS_UNSAMPLED {
                    if let CongestionPointKind::$variant(cp) = self {
                        return cp.passes_unsampled(bytes);
                    }
                })*
                false
            }
            /// Dispatches [`CongestionPoint::drops`].
            #[inline(always)]
            pub fn drops(&mut self, queue_bytes: u64, priority: u8) -> bool {
                $(if <<$scheme as Scheme>::Cp as CongestionPoint>::DROPS {
                    if let CongestionPointKind::$variant(cp) = self {
                        return cp.drops(queue_bytes, priority);
                    }
                })*
                false
            }
            /// Dispatches [`CongestionPoint::notifies_arriving_flow_only`].
            pub fn notifies_arriving_flow_only(&self) -> bool {
                match self { $(CongestionPointKind::$variant(cp) => cp.notifies_arriving_flow_only(),)* }
            }
            /// Dispatches [`CongestionPoint::marks_ecn`].
            #[inline]
            pub fn marks_ecn(&mut self, queue_bytes: u64) -> bool {
                match self { $(CongestionPointKind::$variant(cp) => cp.marks_ecn(queue_bytes),)* }
            }
        }

        impl ReactionPointKind {
            /// Dispatches [`ReactionPoint::rate`].
            #[inline]
            pub fn rate(&self) -> Rate {
                match self { $(ReactionPointKind::$variant(rp) => rp.rate(),)* }
            }
            /// Dispatches [`ReactionPoint::timer`].
            #[inline]
            pub fn timer(&self) -> Option<Time> {
                match self { $(ReactionPointKind::$variant(rp) => rp.timer(),)* }
            }
            /// Dispatches [`ReactionPoint::on_start`].
            #[inline]
            pub fn on_start(&mut self, now: Time) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.on_start(now),)* }
            }
            /// Dispatches [`ReactionPoint::on_feedback`].
            #[inline]
            pub fn on_feedback(&mut self, now: Time, cpid: u32, feedback: &Feedback) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.on_feedback(now, cpid, feedback),)* }
            }
            /// Dispatches [`ReactionPoint::on_sent`]; a frame that
            /// [`ReactionPoint::passes_sent`] counts, inlined into the send, makes no call.
            #[inline(always)]
            pub fn on_sent(&mut self, now: Time, bytes: u32) -> bool {
                $(if <<$scheme as Scheme>::Rp as ReactionPoint>::COUNTS_SENT {
                    if let ReactionPointKind::$variant(rp) = self {
                        if rp.passes_sent(bytes) {
                            return false;
                        }
                        return self.dispatch_on_sent(now, bytes);
                    }
                })*
                self.dispatch_on_sent(now, bytes)
            }
            #[inline(never)]
            fn dispatch_on_sent(&mut self, now: Time, bytes: u32) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.on_sent(now, bytes),)* }
            }
            /// Dispatches [`ReactionPoint::on_timer`].
            #[inline]
            pub fn on_timer(&mut self, now: Time) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.on_timer(now),)* }
            }
            /// Dispatches [`ReactionPoint::reacts`].
            pub fn reacts(&self) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.reacts(),)* }
            }
            /// Dispatches [`ReactionPoint::ecn_capable`].
            pub fn ecn_capable(&self) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.ecn_capable(),)* }
            }
            /// Dispatches [`ReactionPoint::cn_tag`].
            pub fn cn_tag(&self) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.cn_tag(),)* }
            }
            /// Dispatches [`ReactionPoint::wants_acks`].
            pub fn wants_acks(&self) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.wants_acks(),)* }
            }
            /// Dispatches [`ReactionPoint::on_ack`].
            pub fn on_ack(&mut self, now: Time, ack: &AckInfo) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.on_ack(now, ack),)* }
            }
            /// Dispatches [`ReactionPoint::on_go_back`].
            pub fn on_go_back(&mut self, now: Time, to: u64) -> bool {
                match self { $(ReactionPointKind::$variant(rp) => rp.on_go_back(now, to),)* }
            }
            /// Dispatches [`ReactionPoint::take_go_back`].
            pub fn take_go_back(&mut self) -> Option<u64> {
                match self { $(ReactionPointKind::$variant(rp) => rp.take_go_back(),)* }
            }
            /// Dispatches [`ReactionPoint::pacing_rate`].
            pub fn pacing_rate(&self) -> Rate {
                match self { $(ReactionPointKind::$variant(rp) => rp.pacing_rate(),)* }
            }
            /// Dispatches [`ReactionPoint::window_bytes`].
            pub fn window_bytes(&self) -> Option<f64> {
                match self { $(ReactionPointKind::$variant(rp) => rp.window_bytes(),)* }
            }
            /// Dispatches [`ReactionPoint::last_rtt`].
            pub fn last_rtt(&self) -> Option<Time> {
                match self { $(ReactionPointKind::$variant(rp) => rp.last_rtt(),)* }
            }
        }
    };
}
