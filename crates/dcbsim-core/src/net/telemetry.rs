//! Probes: what an acknowledged data frame carries besides its payload (when it was
//! sent, and the in-band telemetry each switch egress adds) and what its
//! acknowledgement echoes back to the source.
//!
//! A [`Packet`](crate::packet::Packet) stays small and `Copy`: the frame holds the
//! index of its probe, and the probe lives in a [`Probes`] arena from the frame's send
//! until its acknowledgement reaches the source (or either is dropped). Slots are
//! reused, so a run allocates only while the number of frames in flight grows.

use crate::units::{Rate, Time};

/// The most hops a probe records: HPCC's INT header has room for a fixed number (its
/// size is reserved in every frame); a longer path's further hops add nothing.
pub const MAX_HOPS: usize = 8;

/// A frame that carries no probe.
pub const NO_PROBE: u32 = u32::MAX;

/// What one switch egress port reports of itself as a probed frame starts there
/// (HPCC's INT record).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HopRecord {
    /// Bytes queued at the port, the frame itself excluded.
    pub queue_bytes: u64,
    /// Bytes the port had transmitted before this frame.
    pub tx_bytes: u64,
    /// When the frame started at the port.
    pub at: Time,
    /// The port's capacity.
    pub rate: Rate,
}

/// One probed frame: its send time, its payload, where it ends in its flow's byte
/// stream, and the hops it has crossed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// When the source put the frame on the wire.
    pub sent: Time,
    /// The frame's payload (its size on the wire less the probe's header).
    pub payload: u32,
    /// Where the frame ends in its flow's byte stream.
    pub seq_end: u64,
    /// Written by the receiver: the bytes it holds in order.
    pub cumulative: u64,
    /// Written by the receiver: whether its acknowledgement is a NACK.
    pub nack: bool,
    /// Hops recorded.
    pub hops: u8,
    /// The records, first hop first.
    pub records: [HopRecord; MAX_HOPS],
}

impl Probe {
    /// The hops recorded.
    pub fn path(&self) -> &[HopRecord] {
        &self.records[..self.hops as usize]
    }
}

/// The arena of probes in flight.
#[derive(Clone, Debug, Default)]
pub struct Probes {
    slots: Vec<Probe>,
    free: Vec<u32>,
}

impl Probes {
    /// A probe for a frame sent at `sent` with `payload` bytes, ending at `seq_end`:
    /// its index.
    pub fn open(&mut self, sent: Time, payload: u32, seq_end: u64) -> u32 {
        self.insert(Probe { sent, payload, seq_end, cumulative: 0, nack: false, hops: 0, records: [HopRecord::default(); MAX_HOPS] })
    }

    /// Keeps `probe` (one that arrived from elsewhere, with its frame): its index.
    pub fn insert(&mut self, probe: Probe) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = probe;
                slot
            }
            None => {
                self.slots.push(probe);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Adds a hop's record to probe `id` (a full probe keeps its first hops).
    #[inline]
    pub fn record(&mut self, id: u32, hop: HopRecord) {
        let probe = &mut self.slots[id as usize];
        if (probe.hops as usize) < MAX_HOPS {
            probe.records[probe.hops as usize] = hop;
            probe.hops += 1;
        }
    }

    /// Probe `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &Probe {
        &self.slots[id as usize]
    }

    /// Probe `id`, to write the receiver's answer into.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Probe {
        &mut self.slots[id as usize]
    }

    /// Probe `id` is done with (its acknowledgement arrived, or it was dropped).
    #[inline]
    pub fn close(&mut self, id: u32) {
        self.free.push(id);
    }

    /// Probes open now.
    pub fn open_count(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_a_full_probe_keeps_its_first_hops() {
        let mut probes = Probes::default();
        let a = probes.open(Time::from_us(1), 1000, 1000);
        let b = probes.open(Time::from_us(2), 1000, 2000);
        assert_ne!(a, b);
        for k in 0..MAX_HOPS as u64 + 2 {
            probes.record(a, HopRecord { queue_bytes: k, ..HopRecord::default() });
        }
        assert_eq!(probes.get(a).path().len(), MAX_HOPS);
        assert_eq!(probes.get(a).path()[0].queue_bytes, 0);
        assert_eq!(probes.get(a).path()[MAX_HOPS - 1].queue_bytes, MAX_HOPS as u64 - 1);
        probes.close(a);
        assert_eq!(probes.open_count(), 1);
        let c = probes.open(Time::from_us(3), 500, 2500);
        assert_eq!(c, a);
        assert_eq!(probes.get(c).hops, 0);
        assert_eq!(probes.get(c).sent, Time::from_us(3));
    }
}
