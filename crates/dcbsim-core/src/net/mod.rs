//! The network: ports (egress queue, serializer and link), hosts and routing.

mod host;
mod port;
mod routing;

pub use host::Host;
pub use port::{Admission, Port};
pub use routing::{NO_ROUTE, Routes};
