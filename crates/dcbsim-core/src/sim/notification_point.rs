//! The notification point at receivers, for schemes whose receivers answer congestion
//! marks (DCQCN's CNPs): at most one answer per flow per interval, sent back to the
//! source as a real frame.

use super::Simulation;
use crate::packet::{Packet, PacketKind};

/// The `cpid` of a receiver's answer: it comes from a receiver, not a switch port.
pub const CNP_CPID: u32 = u32::MAX;

impl Simulation {
    /// A congestion-marked frame of flow `f` reached its receiver.
    #[cold]
    #[inline(never)]
    pub(super) fn notification_point(&mut self, f: u32) {
        let now = self.now;
        let Some(answer) = self.notes.receiver_answer else { return };
        let interval = answer.interval;
        let flow = &mut self.flows[f as usize];
        if flow.last_cnp.is_some_and(|t| now < t + interval) {
            return;
        }
        flow.last_cnp = Some(now);
        flow.notes_in_flight += 1;
        let kind = PacketKind::Notification { cpid: CNP_CPID, feedback: answer.feedback };
        let pkt = Packet::new(f, self.notes.bytes, flow.src, 7, kind);
        let node = flow.dst;
        self.send_control(node, pkt);
    }
}
