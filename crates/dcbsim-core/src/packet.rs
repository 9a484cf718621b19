//! Frames on the wire.

use crate::cc::Feedback;

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PacketKind {
    /// Payload of a flow, from its source host to its destination host.
    Data,
    /// A congestion notification from a congestion point to a flow's source.
    Notification {
        /// The id of the congestion point that sent it.
        cpid: u32,
        /// What it carries.
        feedback: Feedback,
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
    /// Data or notification.
    pub kind: PacketKind,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_stay_small() {
        assert!(std::mem::size_of::<Packet>() <= 40, "{}", std::mem::size_of::<Packet>());
    }
}
