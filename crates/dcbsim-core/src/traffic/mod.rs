//! Traffic sources: the state of each flow at its source host, and the dynamic
//! sources (ON-OFF, Poisson-fed) that feed a flow's backlog.

mod flow;
mod source;

pub use flow::{ACKED, Flow, FlowCounters, NO_CONN};
pub use source::{Source, off_mean};
