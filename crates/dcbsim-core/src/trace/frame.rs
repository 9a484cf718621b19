//! The bytes of a frame on the wire, as a packet trace shows it.
//!
//! Every frame is Ethernet II. Addresses are locally administered unicast MACs made
//! from node indices ([`mac`]); IPv4 addresses likewise ([`ipv4`]). Data and control
//! frames carry an 802.1Q tag (TPID 0x8100, VID 0) with their priority; PFC frames
//! are untagged MAC Control frames. What follows the tag:
//!
//! | frame | layout after the tag |
//! |---|---|
//! | data, QCN family | CN-TAG (0x22E9, 16-bit flow id), then as below |
//! | data, no transport | 0x88B5 (local experimental), flow index (u32), segment (u32), zeros |
//! | data, TCP/DCTCP | IPv4 (ECN bits: ECT(0), CE) and TCP (sequence in bytes) |
//! | data, DCQCN | IPv4 (ECN bits) + UDP 4791 + InfiniBand BTH (RoCEv2, RC Send Only, queue pair = flow + 2) |
//! | ACK | IPv4 + TCP with ACK (and ECE when echoed) |
//! | QCN, BCN/ECM, SMCC notification | CN-TAG if the flow has one, 0x22E7 and the 802.1Qau CNM PDU |
//! | DSM, ECM-Max, ECM halt, DCC notification | 0x88B6 (local experimental) feedback PDU |
//! | DCQCN CNP | IPv4 + UDP 4791 + BTH opcode 0x81 (RoCEv2 CNP) |
//! | PFC | MAC Control 0x8808, opcode 0x0101, class-enable vector, 8 quanta |
//!
//! Only headers are built; the rest of a frame is zeros up to its size.

use crate::cc::Feedback;
use crate::packet::{Packet, PacketKind};

/// 802.1Q tag protocol identifier.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// 802.1Qau congestion notification tag (CN-TAG).
pub const ETHERTYPE_CN_TAG: u16 = 0x22E9;
/// 802.1Qau congestion notification message (CNM).
pub const ETHERTYPE_CNM: u16 = 0x22E7;
/// MAC Control (PAUSE, PFC).
pub const ETHERTYPE_MAC_CONTROL: u16 = 0x8808;
/// IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IEEE 802 local experimental EtherType 1: the opaque payload of data frames
/// without a transport.
pub const ETHERTYPE_DATA: u16 = 0x88B5;
/// IEEE 802 local experimental EtherType 2: feedback that is not a CNM.
pub const ETHERTYPE_FEEDBACK: u16 = 0x88B6;
/// The PFC (802.1Qbb) MAC Control opcode.
pub const PFC_OPCODE: u16 = 0x0101;
/// RoCEv2's UDP port.
pub const ROCE_PORT: u16 = 4791;
/// PFC frames go to this reserved multicast address.
pub const PFC_DESTINATION: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];

/// Codes of the feedback PDU (EtherType [`ETHERTYPE_FEEDBACK`]).
pub mod feedback_code {
    /// DSM: add the value (kbit/s, signed) to the rate.
    pub const RATE_DELTA: u8 = 1;
    /// ECM-Max: cut the rate by the largest step.
    pub const MAX_DECREASE: u8 = 2;
    /// ECM(0,0) or DCC: stop sending for a while.
    pub const HALT: u8 = 3;
    /// DCC: cut the window by the source's own factor.
    pub const DECREASE: u8 = 4;
}

/// The MAC address of node `node`: `02:00` and the index, big-endian.
pub fn mac(node: u32) -> [u8; 6] {
    let b = node.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// The IPv4 address of node `node`: `10.x.y.z` with the index's low 24 bits.
pub fn ipv4(node: u32) -> [u8; 4] {
    let b = node.to_be_bytes();
    [10, b[1], b[2], b[3]]
}

/// What the frame's own fields do not say: the nodes and the flow it belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameInfo {
    /// The node whose port sends the frame.
    pub sender: u32,
    /// The flow's source host (for a PFC frame: unused).
    pub src: u32,
    /// The flow's destination host.
    pub dst: u32,
    /// The flow's 802.1p priority (a notification's encapsulated priority).
    pub priority: u8,
    /// The flow's data frame size in bytes (a full segment).
    pub frame_bytes: u32,
    /// The flow's data frames carry a CN-TAG (a QCN-family reaction point).
    pub cn_tag: bool,
    /// The flow runs over TCP (or DCTCP).
    pub tcp: bool,
    /// The flow's frames are RoCEv2 (DCQCN).
    pub roce: bool,
    /// For a notification from a switch, the node of its congestion point.
    pub cp_node: u32,
}

/// Bytes of the Ethernet header with the 802.1Q tag.
const TAGGED_HEADER: usize = 18;
/// Bytes of IPv4 and TCP headers (no options).
const IP_TCP: usize = 40;

/// Appends the headers of `pkt` to `out` (cleared first); the frame is `wire_len`
/// bytes long in all (at least the headers: see [`header_len`]).
pub fn encode(out: &mut Vec<u8>, pkt: &Packet, info: &FrameInfo, wire_len: u32) {
    out.clear();
    match pkt.kind {
        PacketKind::Data { seq, ect, ce, .. } => data(out, pkt, info, wire_len, seq, ecn(ect, ce)),
        PacketKind::Ack { next, ece } => ack(out, pkt, info, next, ece),
        PacketKind::FrameAck { .. } => frame_ack(out, pkt, info, wire_len),
        PacketKind::Notification { cpid, feedback } => notification(out, pkt, info, cpid, feedback),
        PacketKind::Pause { mask, quanta } => pause(out, info, mask, quanta),
    }
}

/// The length of the headers [`encode`] writes for `pkt`: a frame shorter than this
/// is recorded at this length.
pub fn header_len(pkt: &Packet, info: &FrameInfo) -> u32 {
    let mut scratch = Vec::with_capacity(96);
    encode(&mut scratch, pkt, info, 0);
    scratch.len() as u32
}

/// The two ECN bits of an IPv4 header.
fn ecn(ect: bool, ce: bool) -> u8 {
    match (ect, ce) {
        (_, true) => 0b11,
        (true, false) => 0b10,
        (false, false) => 0b00,
    }
}

fn ethernet(out: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], priority: u8) {
    out.extend_from_slice(&dst);
    out.extend_from_slice(&src);
    out.extend_from_slice(&ETHERTYPE_VLAN.to_be_bytes());
    out.extend_from_slice(&(u16::from(priority & 7) << 13).to_be_bytes());
}

fn cn_tag(out: &mut Vec<u8>, flow: u32) {
    out.extend_from_slice(&ETHERTYPE_CN_TAG.to_be_bytes());
    out.extend_from_slice(&(flow as u16).to_be_bytes());
}

/// Bytes left for the IP packet of a frame of `wire_len` bytes once `out` (the
/// layer-2 header, EtherType excluded) and the EtherType are written.
fn ip_len(out: &[u8], wire_len: u32) -> u16 {
    (wire_len as usize).saturating_sub(out.len() + 2).min(u16::MAX as usize) as u16
}

fn data(out: &mut Vec<u8>, pkt: &Packet, info: &FrameInfo, wire_len: u32, seq: u32, ecn: u8) {
    ethernet(out, mac(info.dst), mac(info.src), pkt.priority);
    if info.cn_tag {
        cn_tag(out, pkt.flow);
    }
    if info.tcp {
        let payload = segment_payload(info);
        let tcp = Tcp { flow: pkt.flow, seq: seq.wrapping_mul(payload), ack: 0, flags: 0x08, forward: true };
        let len = ip_len(out, wire_len);
        out.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        ip_tcp(out, info.src, info.dst, len, ecn, &tcp);
    } else if info.roce {
        let len = ip_len(out, wire_len);
        out.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        roce(out, info.src, info.dst, len, ecn, pkt.flow, 0x04);
    } else {
        out.extend_from_slice(&ETHERTYPE_DATA.to_be_bytes());
        out.extend_from_slice(&pkt.flow.to_be_bytes());
        out.extend_from_slice(&seq.to_be_bytes());
    }
}

/// TCP payload bytes of a full segment of the flow.
fn segment_payload(info: &FrameInfo) -> u32 {
    let headers = TAGGED_HEADER + IP_TCP + if info.cn_tag { 4 } else { 0 };
    info.frame_bytes.saturating_sub(headers as u32).max(1)
}

/// A pure ACK: IPv4 and TCP headers without data (the rest of the frame is
/// Ethernet padding).
fn ack(out: &mut Vec<u8>, pkt: &Packet, info: &FrameInfo, next: u32, ece: bool) {
    ethernet(out, mac(info.src), mac(info.dst), pkt.priority);
    let ack = next.wrapping_mul(segment_payload(info));
    let tcp = Tcp { flow: pkt.flow, seq: 0, ack, flags: 0x10 | if ece { 0x40 } else { 0 }, forward: false };
    out.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    ip_tcp(out, info.dst, info.src, IP_TCP as u16, 0, &tcp);
}

/// A frame acknowledgement, as a RoCEv2 RC Acknowledge (opcode 0x11) from the
/// flow's destination back to its source.
fn frame_ack(out: &mut Vec<u8>, pkt: &Packet, info: &FrameInfo, wire_len: u32) {
    ethernet(out, mac(info.src), mac(info.dst), pkt.priority);
    let len = ip_len(out, wire_len).max(20 + 8 + 12);
    out.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    roce(out, info.dst, info.src, len, 0, pkt.flow, 0x11);
}

/// The TCP header fields that vary.
struct Tcp {
    flow: u32,
    seq: u32,
    ack: u32,
    flags: u8,
    /// From the flow's source to its destination (else the reverse).
    forward: bool,
}

/// The flow's TCP (or UDP source) port: one per flow, from 1024 up.
fn flow_port(flow: u32) -> u16 {
    (1024 + flow % 64_000) as u16
}

/// An IPv4 header (20 bytes, no options) for `len` bytes of packet.
fn ipv4_header(out: &mut Vec<u8>, src: u32, dst: u32, len: u16, ecn: u8, protocol: u8) {
    let start = out.len();
    out.extend_from_slice(&[0x45, ecn]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0x40, 0, 64, protocol, 0, 0]);
    out.extend_from_slice(&ipv4(src));
    out.extend_from_slice(&ipv4(dst));
    let sum = checksum(0, &out[start..]);
    out[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
}

fn ip_tcp(out: &mut Vec<u8>, src: u32, dst: u32, len: u16, ecn: u8, tcp: &Tcp) {
    ipv4_header(out, src, dst, len, ecn, 6);
    let start = out.len();
    let (sport, dport) = if tcp.forward { (flow_port(tcp.flow), 5001) } else { (5001, flow_port(tcp.flow)) };
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&tcp.seq.to_be_bytes());
    out.extend_from_slice(&tcp.ack.to_be_bytes());
    out.extend_from_slice(&[0x50, tcp.flags, 0xFF, 0xFF, 0, 0, 0, 0]);
    // The payload is zeros, so the checksum covers the pseudo-header and the header.
    let tcp_len = len.saturating_sub(20);
    let mut pseudo = [0u8; 12];
    pseudo[..4].copy_from_slice(&ipv4(src));
    pseudo[4..8].copy_from_slice(&ipv4(dst));
    pseudo[9] = 6;
    pseudo[10..].copy_from_slice(&tcp_len.to_be_bytes());
    let sum = checksum(partial_sum(0, &pseudo), &out[start..]);
    out[start + 16..start + 18].copy_from_slice(&sum.to_be_bytes());
}

/// IPv4, UDP to port 4791 and an InfiniBand base transport header with `opcode`
/// (0x04: RC Send Only; 0x81: CNP) to the flow's [`queue_pair`].
fn roce(out: &mut Vec<u8>, src: u32, dst: u32, len: u16, ecn: u8, flow: u32, opcode: u8) {
    ipv4_header(out, src, dst, len, ecn, 17);
    out.extend_from_slice(&(49_152 + (flow % 16_384) as u16).to_be_bytes());
    out.extend_from_slice(&ROCE_PORT.to_be_bytes());
    out.extend_from_slice(&len.saturating_sub(20).to_be_bytes());
    out.extend_from_slice(&[0, 0]); // no UDP checksum (RoCEv2 allows it)
    let qp = queue_pair(flow).to_be_bytes();
    out.extend_from_slice(&[opcode, 0, 0xFF, 0xFF, 0, qp[1], qp[2], qp[3], 0, 0, 0, 0]);
    if opcode == 0x81 {
        out.extend_from_slice(&[0; 20]); // reserved, then the ICRC
    }
}

/// Bytes of a CNP's IP packet: IPv4, UDP, BTH, 16 reserved bytes and the ICRC.
const CNP_IP_LEN: u16 = 20 + 8 + 12 + 16 + 4;

/// The destination queue pair of a flow's RoCEv2 frames: the flow index plus 2
/// (queue pairs 0 and 1 are InfiniBand's management pairs).
pub fn queue_pair(flow: u32) -> u32 {
    (flow + 2) & 0x00FF_FFFF
}

fn notification(out: &mut Vec<u8>, pkt: &Packet, info: &FrameInfo, cpid: u32, feedback: Feedback) {
    match feedback {
        Feedback::Cnp => {
            ethernet(out, mac(info.src), mac(info.dst), pkt.priority);
            out.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
            roce(out, info.dst, info.src, CNP_IP_LEN, 0, pkt.flow, 0x81);
        }
        Feedback::Quantized { psi, q_off, q_delta } => cnm(out, pkt, info, cpid, psi, (q_off, q_delta)),
        Feedback::QueueState { q_off, q_delta } => cnm(out, pkt, info, cpid, 0, (q_off, q_delta)),
        Feedback::RateDelta { kbps } => other_feedback(out, pkt, info, cpid, feedback_code::RATE_DELTA, kbps),
        Feedback::MaxDecrease => other_feedback(out, pkt, info, cpid, feedback_code::MAX_DECREASE, 0),
        Feedback::Halt => other_feedback(out, pkt, info, cpid, feedback_code::HALT, 0),
        Feedback::Decrease => other_feedback(out, pkt, info, cpid, feedback_code::DECREASE, 0),
    }
}

/// A queue figure in bytes as a CNM field: signed, in units of 64 bytes, saturated.
fn cnm_units(bytes: i32) -> i16 {
    (bytes / 64).clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

/// An 802.1Qau CNM from the congestion point on port `cpid` to the flow's source:
/// the sampled frame's CN-TAG (if any), then the PDU: version 0 and reserved bits,
/// QntzFb (6 bits), CPID (8 bytes: the port's index), cnmQOffset and cnmQDelta
/// (units of 64 bytes), encapsulated priority, destination MAC and MSDU length, and
/// the encapsulated MSDU: the sampled frame's first six MSDU bytes when it carries
/// the opaque payload (its EtherType and flow index), none over TCP or RoCE.
fn cnm(out: &mut Vec<u8>, pkt: &Packet, info: &FrameInfo, cpid: u32, psi: u8, queue: (i32, i32)) {
    ethernet(out, mac(info.src), mac(info.cp_node), pkt.priority);
    if info.cn_tag {
        cn_tag(out, pkt.flow);
    }
    out.extend_from_slice(&ETHERTYPE_CNM.to_be_bytes());
    out.extend_from_slice(&u16::from(psi & 0x3F).to_be_bytes());
    out.extend_from_slice(&u64::from(cpid).to_be_bytes());
    out.extend_from_slice(&cnm_units(queue.0).to_be_bytes());
    out.extend_from_slice(&cnm_units(queue.1).to_be_bytes());
    out.extend_from_slice(&u16::from(info.priority & 7).to_be_bytes());
    out.extend_from_slice(&mac(info.dst));
    let opaque = !info.tcp && !info.roce;
    out.extend_from_slice(&(if opaque { 6u16 } else { 0 }).to_be_bytes());
    if opaque {
        out.extend_from_slice(&ETHERTYPE_DATA.to_be_bytes());
        out.extend_from_slice(&pkt.flow.to_be_bytes());
    }
}

/// Feedback that is not a CNM, on EtherType 0x88B6: code (1 byte, see
/// [`feedback_code`]), reserved (1), CPID (8), flow index (4), value (4, signed).
fn other_feedback(out: &mut Vec<u8>, pkt: &Packet, info: &FrameInfo, cpid: u32, code: u8, value: i32) {
    ethernet(out, mac(info.src), mac(info.cp_node), pkt.priority);
    out.extend_from_slice(&ETHERTYPE_FEEDBACK.to_be_bytes());
    out.extend_from_slice(&[code, 0]);
    out.extend_from_slice(&u64::from(cpid).to_be_bytes());
    out.extend_from_slice(&pkt.flow.to_be_bytes());
    out.extend_from_slice(&value.to_be_bytes());
}

/// An 802.1Qbb PFC frame: the priorities in `mask` paused for `quanta` (zero: resumed).
fn pause(out: &mut Vec<u8>, info: &FrameInfo, mask: u8, quanta: u16) {
    out.extend_from_slice(&PFC_DESTINATION);
    out.extend_from_slice(&mac(info.sender));
    out.extend_from_slice(&ETHERTYPE_MAC_CONTROL.to_be_bytes());
    out.extend_from_slice(&PFC_OPCODE.to_be_bytes());
    out.extend_from_slice(&u16::from(mask).to_be_bytes());
    for q in 0..8 {
        let time = if mask & (1 << q) != 0 { quanta } else { 0 };
        out.extend_from_slice(&time.to_be_bytes());
    }
}

/// The ones'-complement sum of `bytes` (as big-endian 16-bit words) added to `sum`.
fn partial_sum(mut sum: u32, bytes: &[u8]) -> u32 {
    for pair in bytes.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += u32::from(word);
    }
    sum
}

/// The Internet checksum of `bytes` starting from the partial sum `sum`.
fn checksum(sum: u32, bytes: &[u8]) -> u16 {
    let mut sum = partial_sum(sum, bytes);
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
#[path = "frame_tests.rs"]
mod tests;
