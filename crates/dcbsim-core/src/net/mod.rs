//! The network: ports (egress queue, serializer and link), hosts and routing.

pub mod ets;
mod host;
pub mod pfc;
mod port;
mod route_search;
mod routing;
mod spec;
mod timed;

pub use host::Host;
pub use pfc::Pfc;
pub use port::{Admission, Port, QUIET_BACKLOG, Red, Watch};
pub use routing::{NO_ROUTE, Routes};
pub use spec::{EtsSpec, PfcSpec};
