use super::*;
use crate::packet::Packet;

fn info() -> FrameInfo {
    FrameInfo { sender: 0, src: 0, dst: 2, priority: 3, frame_bytes: 1500, cn_tag: true, tcp: false, roce: false, cp_node: 1 }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[test]
fn data_frames_carry_the_tag_the_cn_tag_and_the_opaque_payload() {
    let pkt = Packet::new(9, 1500, 2, 3, PacketKind::Data { seq: 7, ect: false, ce: false, quiet: false });
    let mut out = Vec::new();
    encode(&mut out, &pkt, &info(), 1500);
    assert_eq!(&out[0..6], &mac(2), "to the flow's destination");
    assert_eq!(&out[6..12], &[2, 0, 0, 0, 0, 0], "from its source, locally administered");
    assert_eq!(be16(&out, 12), 0x8100);
    assert_eq!(be16(&out, 14) >> 13, 3, "PCP is the priority");
    assert_eq!((be16(&out, 16), be16(&out, 18)), (0x22E9, 9), "CN-TAG with the flow id");
    assert_eq!(be16(&out, 20), 0x88B5);
    assert_eq!(&out[22..30], &[0, 0, 0, 9, 0, 0, 0, 7]);
    let mut plain = info();
    plain.cn_tag = false;
    encode(&mut out, &pkt, &plain, 1500);
    assert_eq!(be16(&out, 16), 0x88B5, "no CN-TAG outside the QCN family");
}

#[test]
fn tcp_segments_have_valid_checksums_and_ecn_bits() {
    let mut tcp = info();
    tcp.tcp = true;
    tcp.cn_tag = false;
    let pkt = Packet::new(4, 1500, 2, 3, PacketKind::Data { seq: 2, ect: true, ce: true, quiet: false });
    let mut out = Vec::new();
    encode(&mut out, &pkt, &tcp, 1500);
    let ip = &out[18..38];
    assert_eq!(be16(&out, 16), 0x0800);
    assert_eq!(ip[1] & 3, 3, "CE");
    assert_eq!(be16(ip, 2), 1500 - 18, "total length");
    assert_eq!(checksum(0, ip), 0, "IPv4 header checksum");
    let seg = &out[38..58];
    assert_eq!(u32::from_be_bytes(seg[4..8].try_into().unwrap()), 2 * (1500 - 58), "sequence in bytes");
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&ip[12..20]);
    pseudo.extend_from_slice(&[0, 6]);
    pseudo.extend_from_slice(&(1500u16 - 38).to_be_bytes());
    assert_eq!(checksum(partial_sum(0, &pseudo), seg), 0, "TCP checksum over a zero payload");
    let ack = Packet::new(4, 64, 0, 3, PacketKind::Ack { next: 3, ece: true });
    encode(&mut out, &ack, &tcp, 64);
    assert_eq!(&out[0..6], &mac(0), "ACKs go back to the source");
    assert_eq!(out[18 + 20 + 13], 0x50, "ACK and ECE flags");
}

#[test]
fn cnms_follow_the_802_1qau_layout() {
    let kind = PacketKind::Notification { cpid: 5, feedback: Feedback::Quantized { psi: 41, q_off: 6400, q_delta: -128 } };
    let note = Packet::new(9, 64, 0, 7, kind);
    let mut out = Vec::new();
    encode(&mut out, &note, &info(), 64);
    assert_eq!(&out[0..6], &mac(0), "to the reaction point's host");
    assert_eq!(&out[6..12], &mac(1), "from the congestion point's switch");
    assert_eq!(be16(&out, 14) >> 13, 7);
    assert_eq!((be16(&out, 16), be16(&out, 18), be16(&out, 20)), (0x22E9, 9, 0x22E7));
    let pdu = &out[22..];
    assert_eq!(be16(pdu, 0) >> 12, 0, "version 0");
    assert_eq!(be16(pdu, 0) & 0x3F, 41, "QntzFb");
    assert_eq!(u64::from_be_bytes(pdu[2..10].try_into().unwrap()), 5, "CPID");
    assert_eq!((be16(pdu, 10) as i16, be16(pdu, 12) as i16), (100, -2), "cnmQOffset, cnmQDelta");
    assert_eq!(be16(pdu, 14), 3, "encapsulated priority");
    assert_eq!(&pdu[16..22], &mac(2), "encapsulated destination MAC");
    assert_eq!(be16(pdu, 22), 6, "encapsulated MSDU length");
    assert_eq!(pdu.len(), 24 + 6);
    assert!(header_len(&note, &info()) <= 64, "fits a 64-byte notification");
    let kind = PacketKind::Notification { cpid: 5, feedback: Feedback::QueueState { q_off: -6400, q_delta: 640 } };
    encode(&mut out, &Packet::new(9, 64, 0, 7, kind), &info(), 64);
    assert_eq!((be16(&out, 22 + 10) as i16, be16(&out, 22 + 12) as i16), (-100, 10), "64-byte units");
}

#[test]
fn other_feedback_and_pfc_frames() {
    let mut plain = info();
    plain.cn_tag = false;
    let kind = PacketKind::Notification { cpid: 5, feedback: Feedback::RateDelta { kbps: -1234 } };
    let mut out = Vec::new();
    encode(&mut out, &Packet::new(9, 64, 0, 7, kind), &plain, 64);
    assert_eq!(be16(&out, 16), 0x88B6);
    assert_eq!(out[18], feedback_code::RATE_DELTA);
    assert_eq!(i32::from_be_bytes(out[32..36].try_into().unwrap()), -1234);
    let pause = Packet::new(3, 64, 4, 7, PacketKind::Pause { mask: 0b1000_1000, quanta: 0xFFFF });
    encode(&mut out, &pause, &FrameInfo { sender: 4, ..FrameInfo::default() }, 64);
    assert_eq!(&out[0..6], &PFC_DESTINATION);
    assert_eq!(&out[6..12], &mac(4));
    assert_eq!((be16(&out, 12), be16(&out, 14), be16(&out, 16)), (0x8808, 0x0101, 0x88));
    let quanta: Vec<u16> = (0..8).map(|q| be16(&out, 18 + 2 * q)).collect();
    assert_eq!(quanta, vec![0, 0, 0, 0xFFFF, 0, 0, 0, 0xFFFF]);
}

#[test]
fn cnps_are_rocev2() {
    let mut roce = info();
    roce.roce = true;
    roce.cn_tag = false;
    let kind = PacketKind::Notification { cpid: u32::MAX, feedback: Feedback::Cnp };
    let mut out = Vec::new();
    encode(&mut out, &Packet::new(9, 64, 0, 7, kind), &roce, 64);
    assert_eq!(out[18 + 9], 17, "UDP");
    assert_eq!(be16(&out, 18 + 20 + 2), ROCE_PORT);
    assert_eq!(out[18 + 28], 0x81, "CNP opcode");
}
