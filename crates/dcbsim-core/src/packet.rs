//! Frames on the wire.

use crate::cc::Feedback;

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PacketKind {
    /// Payload of a flow, from its source host to its destination host.
    Data {
        /// Segment number over a transport; for a flow whose frames are acknowledged
        /// one by one (its `conn` is `traffic::ACKED`), the index of the frame's probe
        /// (see `net/telemetry.rs`); zero otherwise.
        seq: u32,
        /// ECN-capable transport: switches may mark the frame.
        ect: bool,
        /// Congestion experienced: a switch marked the frame.
        ce: bool,
        /// Its arrival needs nothing but counting unless it is marked: its flow has
        /// no transport and no size (see `sim/delivery.rs`).
        quiet: bool,
    },
    /// A congestion notification from a congestion point to a flow's source.
    Notification {
        /// The id of the congestion point that sent it.
        cpid: u32,
        /// What it carries.
        feedback: Feedback,
    },
    /// A cumulative TCP acknowledgement from a flow's destination to its source.
    Ack {
        /// The next segment the receiver expects.
        next: u32,
        /// ECN-Echo: the acknowledged segment carried a congestion mark.
        ece: bool,
    },
    /// A PFC frame (802.1Qbb) from a switch to the node upstream of it; its `flow`
    /// field holds the index of the port it pauses.
    Pause {
        /// The priorities it applies to (bit q: priority q).
        mask: u8,
        /// The pause time in quanta of 512 bit times; zero resumes at once (XON).
        quanta: u16,
    },
    /// The receiver's acknowledgement of one data frame of a flow without a
    /// transport whose scheme asks for them (HPCC, TIMELY): it echoes the frame's
    /// probe back to the source.
    FrameAck {
        /// The acknowledged frame's probe.
        probe: u32,
    },
}

/// One frame. Small and `Copy`: queues and links hold frames by value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// The flow it belongs to (for a notification: the flow it is about).
    pub flow: u32,
    /// Size on the wire, in bytes.
    pub bytes: u32,
    /// The node it is addressed to.
    pub dst: u32,
    /// 802.1p priority (0..=7; higher is served first; notifications use 7).
    pub priority: u8,
    /// Data, notification or ACK.
    pub kind: PacketKind,
}

impl PacketKind {
    /// A data frame without a transport.
    pub const DATA: PacketKind = PacketKind::Data { seq: 0, ect: false, ce: false, quiet: false };
}

impl Packet {
    /// The same frame with its probe index (a data frame's `seq`, an
    /// acknowledgement's `probe`) set to `probe`: the frame arrived in another arena.
    pub fn with_probe(mut self, probe: u32) -> Packet {
        match &mut self.kind {
            PacketKind::Data { seq, .. } => *seq = probe,
            PacketKind::FrameAck { probe: p } => *p = probe,
            _ => {}
        }
        self
    }

    /// A frame of `kind`.
    #[inline]
    pub fn new(flow: u32, bytes: u32, dst: u32, priority: u8, kind: PacketKind) -> Packet {
        Packet { flow, bytes, dst, priority, kind }
    }

    /// Whether it is a data frame.
    #[inline]
    pub fn is_data(&self) -> bool {
        matches!(self.kind, PacketKind::Data { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_stay_small() {
        assert!(std::mem::size_of::<Packet>() <= 32, "{}", std::mem::size_of::<Packet>());
    }
}
