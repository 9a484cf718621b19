//! Packet traces: the frames a port sends, as pcap files Wireshark reads.
//!
//! [`crate::sim::Simulation::trace_port`] hands a port a byte sink; from then on each
//! frame the port starts to send is laid out as real headers ([`frame`]) and
//! recorded with the simulated time its first bit leaves ([`pcap`]). Ports without a
//! trace pay one flag test per frame. The engine never opens files: the caller gives
//! the sink (a buffered file, say) and decides where it ends up.

pub mod frame;
pub mod pcap;

pub use frame::{FrameInfo, encode, mac};
pub use pcap::{DEFAULT_SNAPLEN, MAX_SNAPLEN, MIN_SNAPLEN, PcapWriter};

use std::io::{self, Write};

/// Where a traced port's frames go.
pub type TraceSink = Box<dyn Write + Send>;

/// The trace of one port.
pub struct PortTrace {
    /// The port's index.
    pub port: u32,
    /// The stream.
    pub writer: PcapWriter<TraceSink>,
    /// The current frame's headers.
    pub scratch: Vec<u8>,
    /// The first write error, after which the trace records nothing more.
    pub error: Option<io::Error>,
}
