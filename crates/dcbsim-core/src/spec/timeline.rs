//! Changes scheduled during a run.

use super::{ParamValue, PortRef};
use crate::units::{Rate, Time};

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
        /// Index in [`crate::config::SimConfig::flows`].
        flow: usize,
    },
    /// Stop a flow producing new frames.
    FlowStop {
        /// Index in [`crate::config::SimConfig::flows`].
        flow: usize,
    },
    /// Cap a flow's sending rate (`None` removes the cap).
    FlowMaxRate {
        /// Index in [`crate::config::SimConfig::flows`].
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
