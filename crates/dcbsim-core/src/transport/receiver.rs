//! The receiving side: cumulative ACKs, out-of-order segments held in a bitmap ring,
//! optional delayed ACKs, and DCTCP's ECN-Echo state machine.

use super::TcpParams;
use crate::units::Time;

/// A cumulative ACK: every segment before `next` has arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// The next segment expected.
    pub next: u32,
    /// ECN-Echo: the segment(s) it acknowledges carried a congestion mark.
    pub ece: bool,
}

/// What one arriving segment did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Received {
    /// Whether it carried data not received before.
    pub new: bool,
    /// ACKs to send now, in order (DCTCP may flush a delayed ACK first).
    pub acks: [Option<Ack>; 2],
}

/// One connection's receiver.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    rcv_nxt: u32,
    held: Vec<u64>,
    mask: u32,
    out_of_order: u32,
    delayed: bool,
    timeout: Time,
    unacked: u32,
    ce_state: bool,
    delack_at: Option<Time>,
}

impl TcpReceiver {
    /// A receiver advertising `rwnd_segments` (segments beyond it are dropped).
    pub fn new(params: &TcpParams, rwnd_segments: u32) -> TcpReceiver {
        let capacity = rwnd_segments.max(64).next_power_of_two();
        TcpReceiver {
            rcv_nxt: 0,
            held: vec![0; (capacity / 64) as usize],
            mask: capacity - 1,
            out_of_order: 0,
            delayed: params.delayed_ack,
            timeout: params.delayed_ack_timeout,
            unacked: 0,
            ce_state: false,
            delack_at: None,
        }
    }

    /// Frees the room kept for segments arriving out of order, for a receiver that
    /// never takes a segment (its flow's destination is in another part of a split
    /// run); a segment given to it then panics.
    pub fn release(&mut self) {
        self.held = Vec::new();
    }

    #[inline]
    fn bit(&self, seq: u32) -> (usize, u64) {
        let i = seq & self.mask;
        ((i / 64) as usize, 1u64 << (i % 64))
    }

    /// Segment `seq` arrives at `now`, its CE mark `ce`.
    #[inline]
    pub fn on_segment(&mut self, now: Time, seq: u32, ce: bool) -> Received {
        let mut out = Received::default();
        let mut k = 0;
        if self.unacked > 0 && ce != self.ce_state {
            // DCTCP's two-state machine: the pending ACK echoes the old state.
            out.acks[0] = Some(self.flush());
            k = 1;
        }
        self.ce_state = ce;
        let had_holes = self.out_of_order > 0;
        let in_order = seq == self.rcv_nxt;
        if seq < self.rcv_nxt {
            out.new = false;
        } else if in_order {
            out.new = true;
            self.rcv_nxt += 1;
            while self.out_of_order > 0 {
                let (w, b) = self.bit(self.rcv_nxt);
                if self.held[w] & b == 0 {
                    break;
                }
                self.held[w] &= !b;
                self.out_of_order -= 1;
                self.rcv_nxt += 1;
            }
        } else if seq - self.rcv_nxt <= self.mask {
            let (w, b) = self.bit(seq);
            out.new = self.held[w] & b == 0;
            if out.new {
                self.held[w] |= b;
                self.out_of_order += 1;
            }
        }
        let immediate = !self.delayed || !in_order || had_holes || !out.new;
        self.unacked += 1;
        if immediate || self.unacked >= 2 {
            out.acks[k] = Some(self.flush());
        } else if self.delack_at.is_none() {
            self.delack_at = Some(now + self.timeout);
        }
        out
    }

    fn flush(&mut self) -> Ack {
        self.unacked = 0;
        self.delack_at = None;
        Ack { next: self.rcv_nxt, ece: self.ce_state }
    }

    /// When the delayed-ACK timer expires, if it runs.
    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_at
    }

    /// The delayed-ACK timer fired at `now`: the pending ACK, if it is due.
    pub fn on_delack_timer(&mut self, now: Time) -> Option<Ack> {
        match self.delack_at {
            Some(at) if at <= now && self.unacked > 0 => Some(self.flush()),
            _ => None,
        }
    }

    /// The next segment expected (all before it have arrived).
    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }
}
