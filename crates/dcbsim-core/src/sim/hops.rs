//! Next hops remembered per link: the egress port that the node at a link's far end
//! gives the frame at the link's front.
//!
//! Routes are fixed for a run and a frame's egress at a node depends only on its
//! destination and flow, so each link keeps its last answer, tagged with the pair it
//! is for, and a frame of the same pair takes it without a look-up. When a frame
//! reaches the front of its link (the one before it has just arrived), its egress is
//! found then, so the loop, fetching the next event's state ahead, can also fetch
//! the egress port that event's frame will be admitted to: in a large fabric that
//! port's lines are the costliest misses of an arrival. A frame that reaches the
//! front otherwise (onto an empty link) checks the tag, and is routed at its arrival
//! when the tag is another pair's.

use super::Simulation;

/// One link's remembered next hop.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hop {
    /// The destination and flow of the frame it was found for (`u32::MAX`: none).
    dst: u32,
    flow: u32,
    /// The egress port at the far end.
    out: u32,
}

impl Hop {
    /// A link that has routed nothing yet.
    pub(super) const NONE: Hop = Hop { dst: u32::MAX, flow: u32::MAX, out: u32::MAX };
}

impl Simulation {
    /// The egress port at `node`, the far end of `port`'s link, of a frame to `dst`
    /// of `flow` (which has come over that link or is at its front), remembered for
    /// the link.
    #[inline(always)]
    pub(super) fn next_hop(&mut self, port: u32, node: u32, dst: u32, flow: u32) -> u32 {
        let hop = &mut self.hops[port as usize];
        if hop.dst == dst && hop.flow == flow {
            return hop.out;
        }
        let out = self.routes.next_port(node, dst, flow);
        *hop = Hop { dst, flow, out };
        out
    }

    /// Finds the egress port of the frame now at the front of `port`'s link (if the
    /// far end, `node`, forwards it), for the loop to fetch ahead.
    #[inline(always)]
    pub(super) fn route_front(&mut self, port: u32, node: u32) {
        if let Some((_, next)) = self.ports[port as usize].link.front()
            && next.dst != node
        {
            let (dst, flow) = (next.dst, next.flow);
            self.next_hop(port, node, dst, flow);
        }
    }

    /// The egress port the frame at the front of `port`'s link will most likely take
    /// at the far end (what the loop fetches ahead; `u32::MAX` when unknown).
    #[inline(always)]
    pub(super) fn hop_hint(&self, port: u32) -> u32 {
        self.hops.get(port as usize).map_or(u32::MAX, |hop| hop.out)
    }
}
