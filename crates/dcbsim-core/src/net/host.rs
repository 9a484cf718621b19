//! A host: one NIC port shared round robin by the flows it sources.

use std::collections::VecDeque;

/// A host's sending side.
#[derive(Clone, Debug)]
pub struct Host {
    /// Its NIC's egress port.
    pub nic: u32,
    /// Flows whose rate limiter allows a frame now, in round-robin order.
    pub ready: VecDeque<u32>,
    /// Flows held back while their priority is paused (PFC); they count as in the
    /// ring and return to it when the pause ends.
    pub parked: Vec<u32>,
}

impl Host {
    /// A host whose NIC is port `nic`.
    pub fn new(nic: u32) -> Host {
        Host { nic, ready: VecDeque::with_capacity(8), parked: Vec::new() }
    }
}
