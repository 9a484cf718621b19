//! DCQCN's notification point: a receiver answers congestion marks with CNPs, at
//! most one per flow per interval, sent back to the source as real frames.

use super::Simulation;
use crate::cc::Feedback;
use crate::packet::{Packet, PacketKind};

/// The `cpid` of a CNP: it comes from a receiver, not from a switch port.
pub const CNP_CPID: u32 = u32::MAX;

impl Simulation {
    /// A congestion-marked frame of flow `f` reached its receiver.
    #[cold]
    #[inline(never)]
    pub(super) fn notification_point(&mut self, f: u32) {
        let now = self.now;
        let interval = self.cnp_interval;
        let flow = &mut self.flows[f as usize];
        if flow.last_cnp.is_some_and(|t| now < t + interval) {
            return;
        }
        flow.last_cnp = Some(now);
        flow.notes_in_flight += 1;
        let kind = PacketKind::Notification { cpid: CNP_CPID, feedback: Feedback::Cnp };
        let pkt = Packet::new(f, self.config.notification_bytes, flow.src, 7, kind);
        let node = flow.dst;
        self.send_control(node, pkt);
    }
}
