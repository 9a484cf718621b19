//! Packet traces: the frames a port sends, laid out as real headers.
//!
//! [`crate::sim::Simulation::trace_port`] hands a port a [`FrameSink`]; from then on
//! each frame the port starts to send is laid out as real headers ([`frame`]) and
//! given to the sink with the simulated time its first bit leaves. Ports without a
//! run pays one flag test per frame. The engine writes no file format: the sink (a
//! pcap writer in `dcbsim-scenario`, say) does.

pub mod frame;

pub use frame::{FrameInfo, encode, mac};

use crate::units::Time;
use std::io;

/// Where a traced port's frames go.
pub trait FrameSink: Send {
    /// Records a frame of `wire_len` bytes whose transmission starts at `at`; its
    /// first bytes are `headers`, the rest zeros (`wire_len` may be less than the
    /// headers' length when the simulated frame is shorter than its headers).
    fn frame(&mut self, at: Time, headers: &[u8], wire_len: u32) -> io::Result<()>;
    /// Ends the stream: flushes what is buffered.
    fn finish(&mut self) -> io::Result<()>;
}

/// The trace of one port.
pub struct PortTrace {
    /// The port's index.
    pub port: u32,
    /// Where its frames go.
    pub sink: Box<dyn FrameSink>,
    /// The current frame's headers.
    pub scratch: Vec<u8>,
    /// Frames given to the sink.
    pub frames: u64,
    /// The first error of the sink, after which the trace records nothing more.
    pub error: Option<io::Error>,
}
