//! Traffic sources: the state of each flow at its source host.

mod flow;

pub use flow::{Flow, FlowCounters, NO_CONN};
