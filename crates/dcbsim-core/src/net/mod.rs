//! The network: ports (egress queue, serializer and link), hosts and routing.

pub mod ets;
mod host;
pub mod partition;
pub mod pfc;
mod port;
pub mod ring;
mod route_search;
mod routing;
pub mod telemetry;

mod timed;

pub use crate::spec::{EtsSpec, PfcSpec};
pub use host::Host;
pub use pfc::Pfc;
pub use port::{Admission, Port, QUIET_BACKLOG, Watch};
pub use routing::{NO_ROUTE, Routes};
