//! Per-frame acknowledgements and in-band telemetry, for schemes whose sources steer
//! by what each frame met (HPCC, TIMELY; see [`crate::cc::Acks`]).
//!
//! A flow whose reaction point wants acknowledgements opens a probe for each data
//! frame it sends (its send time, payload and place in the flow's bytes; the frame
//! grows by the scheme's header on the wire). With telemetry, every switch egress
//! adds its record to the probe as the frame starts there. The receiver answers each
//! such frame with a [`PacketKind::FrameAck`] echoing the probe, at priority 7 as
//! notifications go, and the source's reaction point reads it. A probe closes when
//! its acknowledgement arrives or either frame is dropped.
//!
//! Losses are repaired as RoCE's reliable connections do, by go-back-N: the receiver
//! takes frames in order only; the first frame past a gap draws a NACK (one per gap),
//! later ones are discarded unanswered, and frames before the point it holds are
//! acknowledged again; a NACK, or a retransmission timeout of the source's reaction
//! point, sends the flow back to the first byte the receiver lacks.

use super::Simulation;
use crate::cc::{AckInfo, Acks};
use crate::net::telemetry::{HopRecord, NO_PROBE, Probes};
use crate::net::{Port, Routes};
use crate::packet::{Packet, PacketKind};
use crate::traffic::Flow;
use crate::units::{Bytes, Time};

/// The acknowledgement machinery of a run.
pub(super) struct Acking {
    /// Whether switch egress ports add telemetry to probed frames.
    pub(super) telemetry: bool,
    /// The probes in flight.
    pub(super) probes: Probes,
    /// Per flow (by index, grown as flows arrive): the go-back-N state of both ends.
    streams: Vec<Stream>,
}

/// Both ends of one acknowledged flow's byte stream, and the sizes its scheme gives
/// its acknowledgements and probe headers.
#[derive(Clone, Copy, Debug, Default)]
struct Stream {
    /// Bytes of an acknowledgement.
    ack_bytes: u32,
    /// Bytes a probed frame carries beyond its payload.
    header_bytes: u32,
    /// The source: where its next frame starts.
    next: u64,
    /// The receiver: the bytes it holds in order.
    expected: u64,
    /// The receiver: whether it has sent a NACK for the current gap.
    nacked: bool,
}

impl Acking {
    /// The machinery, switches adding telemetry or not.
    pub(super) fn new(telemetry: bool) -> Acking {
        Acking { telemetry, probes: Probes::default(), streams: Vec::new() }
    }

    /// Flow `f`'s scheme acknowledges as `acks` says (if it does).
    pub(super) fn register(&mut self, f: u32, acks: Option<Acks>) {
        if let Some(a) = acks {
            let stream = self.stream(f);
            (stream.ack_bytes, stream.header_bytes) = (a.ack_bytes, a.header_bytes);
        }
    }

    /// Whether no flow of the run is acknowledged so far (so no frame carries a
    /// probe).
    pub(super) fn none(&self) -> bool {
        self.streams.is_empty()
    }

    /// Flow `f`'s stream.
    fn stream(&mut self, f: u32) -> &mut Stream {
        let f = f as usize;
        if f >= self.streams.len() {
            self.streams.resize(f + 1, Stream::default());
        }
        &mut self.streams[f]
    }
}

/// The round trip without queueing of flow `flow`'s path from `src` to `dst` for
/// frames of `frame_bytes` payload and their acknowledgements as `acks` says: each
/// port's delay and a frame (with the scheme's header) there, each reverse port's
/// delay and an acknowledgement back (zero: no route, or no acknowledgements).
pub(super) fn base_rtt(routes: &Routes, ports: &[Port], (src, dst, flow): (u32, u32, u32), frame_bytes: u32, acks: Option<Acks>) -> Time {
    let Some(acks) = acks else { return Time::ZERO };
    let Some(path) = routes.path(src, dst, flow, |p| ports[p as usize].peer) else { return Time::ZERO };
    let (frame, ack) = (Bytes((frame_bytes + acks.header_bytes) as u64), Bytes(acks.ack_bytes as u64));
    let mut rtt = Time::ZERO;
    for &p in &path {
        let forward = &ports[p as usize];
        let back = &ports[forward.reverse as usize];
        rtt = rtt + forward.delay + forward.rate().transmit_time(frame);
        rtt = rtt + back.delay + back.rate().transmit_time(ack);
    }
    rtt
}

/// The probe frame `pkt` of one of `flows` carries ([`NO_PROBE`]: none): an
/// acknowledgement's, or a data frame's whose flow is acknowledged (in its `seq`).
#[inline]
pub(super) fn probe_of(flows: &[Flow], pkt: &Packet) -> u32 {
    match pkt.kind {
        PacketKind::Data { seq, .. } if flows[pkt.flow as usize].acked() => seq,
        PacketKind::FrameAck { probe } => probe,
        _ => NO_PROBE,
    }
}

impl Simulation {
    /// The spec flow `f` was made from: its own, or its arrival source's template.
    pub(super) fn spec_of(&self, f: usize) -> &crate::config::FlowSpec {
        match self.flows[f].generator {
            Some(g) => &self.apps.generators[g as usize].spec().flow,
            None => &self.config.flows[f],
        }
    }

    /// Opens the probe of flow `f`'s next frame of `payload` bytes, sent now: the
    /// probe and the frame's size on the wire.
    #[inline]
    pub(super) fn probe_frame(&mut self, f: u32, payload: u32) -> (u32, u32) {
        let stream = self.acking.stream(f);
        stream.next += payload as u64;
        let (seq_end, header) = (stream.next, stream.header_bytes);
        let probe = self.acking.probes.open(self.now, payload, seq_end);
        (probe, payload + header)
    }

    /// The probe a frame carries ([`NO_PROBE`]: none): an acknowledgement's, or a data
    /// frame's whose flow is acknowledged (in its `seq`).
    #[inline]
    fn probe_of(&self, pkt: &Packet) -> u32 {
        probe_of(&self.flows, pkt)
    }

    /// Switch port `out` starts `pkt`: a data frame of an acknowledged flow (its probe
    /// in `seq`) takes the port's record.
    #[inline(never)]
    pub(super) fn stamp(&mut self, out: u32, pkt: &Packet) {
        let PacketKind::Data { seq: probe, .. } = pkt.kind else { return };
        if !self.flows[pkt.flow as usize].acked() {
            return;
        }
        let port = &self.ports[out as usize];
        let hop = HopRecord { queue_bytes: port.queued_bytes, tx_bytes: port.tx_bytes, at: self.now, rate: port.rate() };
        self.acking.probes.record(probe, hop);
    }

    /// A probed data frame was dropped: its flow counts its payload, and its probe
    /// closes.
    #[cold]
    #[inline(never)]
    pub(super) fn drop_probed(&mut self, pkt: &Packet) {
        let probe = self.probe_of(pkt);
        let payload = self.acking.probes.get(probe).payload;
        let c = &mut self.flows[pkt.flow as usize].counters;
        c.dropped_frames += 1;
        c.dropped_bytes += payload as u64;
        self.acking.probes.close(probe);
    }

    /// A frame carrying a probe (an acknowledgement) was dropped: the probe closes.
    #[inline]
    pub(super) fn forget_probe(&mut self, pkt: &Packet) {
        let probe = self.probe_of(pkt);
        if probe != NO_PROBE {
            self.acking.probes.close(probe);
        }
    }

    /// A probed data frame of flow `pkt.flow` reached its receiver: taken if it is the
    /// next in order (counted as delivered and acknowledged), else discarded (a
    /// frame delivered without new bytes) and answered by go-back-N's rules.
    #[inline(never)]
    pub(super) fn receive_probed(&mut self, pkt: &Packet, probe: u32) {
        let p = *self.acking.probes.get(probe);
        let start = p.seq_end - p.payload as u64;
        let stream = self.acking.stream(pkt.flow);
        let (taken, nack) = if start == stream.expected {
            stream.expected = p.seq_end;
            stream.nacked = false;
            (true, false)
        } else if start > stream.expected {
            let first = !stream.nacked;
            stream.nacked = true;
            (false, first)
        } else {
            (false, false)
        };
        let (cumulative, ack_bytes) = (stream.expected, stream.ack_bytes);
        if taken {
            self.count_delivered(pkt.flow, p.payload);
        } else {
            self.flows[pkt.flow as usize].counters.delivered_frames += 1;
            if start > cumulative && !nack {
                self.acking.probes.close(probe);
                return;
            }
        }
        let answer = self.acking.probes.get_mut(probe);
        (answer.cumulative, answer.nack) = (cumulative, nack);
        let flow = &self.flows[pkt.flow as usize];
        let ack = Packet::new(pkt.flow, ack_bytes, flow.src, 7, PacketKind::FrameAck { probe });
        let node = flow.dst;
        self.send_control(node, ack);
    }

    /// An acknowledgement of flow `f`'s frame reached the source: its reaction point
    /// reads the probe, which then closes; a NACK sends the flow back.
    #[inline(never)]
    pub(super) fn receive_frame_ack(&mut self, f: u32, probe: u32) {
        let p = self.acking.probes.get(probe);
        let info = AckInfo { sent: p.sent, payload: p.payload, seq_end: p.seq_end, cumulative: p.cumulative, nack: p.nack, hops: p.path() };
        let (nack, to) = (p.nack, p.cumulative);
        let changed = self.flows[f as usize].rp.on_ack(self.now, &info);
        self.acking.probes.close(probe);
        if nack {
            self.go_back(f, to);
        } else if changed {
            self.rp_changed(f);
        }
    }

    /// Flow `f`'s reaction point timed out: the flow goes back to the first byte not
    /// acknowledged.
    pub(super) fn check_go_back(&mut self, f: u32) {
        if let Some(to) = self.flows[f as usize].rp.take_go_back() {
            self.go_back(f, to);
        }
    }

    /// Flow `f` sends again from byte `to` of its stream: what it had sent past it is
    /// put back on its backlog (an endless flow's backlog stays endless).
    fn go_back(&mut self, f: u32, to: u64) {
        let stream = self.acking.stream(f);
        let back = stream.next.saturating_sub(to);
        stream.next = stream.next.min(to);
        let flow = &mut self.flows[f as usize];
        if flow.remaining != u64::MAX {
            flow.remaining += back;
        }
        flow.rp.on_go_back(self.now, to);
        self.rp_changed(f);
        self.make_ready(f);
    }
}
