//! Hand-worked cases of the sender and receiver state machines.

use super::*;
use crate::units::{Bytes, Time};

fn params() -> TcpParams {
    TcpParams { rto_min: Time::from_ms(200), rto_initial: Time::from_ms(1000), ..TcpParams::default() }
}

/// Sends every segment the windows allow; returns their numbers.
fn burst(s: &mut TcpSender, now: Time) -> Vec<u32> {
    let mut out = Vec::new();
    while s.can_send() {
        out.push(s.next_segment(now));
    }
    out
}

fn stream(p: &TcpParams) -> TcpSender {
    let mut s = TcpSender::new(p, 1000, p.rwnd_segments(1000, Bytes(0)), None, false);
    s.offer(1);
    s
}

#[test]
fn slow_start_grows_by_one_segment_per_ack() {
    let mut s = stream(&params());
    assert_eq!(burst(&mut s, Time::ZERO), vec![0, 1, 2]);
    let t = Time::from_us(100);
    for (i, next) in [1, 2, 3].into_iter().enumerate() {
        s.on_ack(t, next, false);
        assert_eq!(s.cwnd(), 4.0 + i as f64);
    }
    // cwnd 6 with nothing in flight: six new segments.
    assert_eq!(burst(&mut s, t), vec![3, 4, 5, 6, 7, 8]);
    // The first segment was timed: SRTT = 100 us, RTTVAR = 50 us, RTO = 300 us,
    // raised to RTO_min.
    assert_eq!(s.srtt(), Some(Time::from_us(100)));
    assert_eq!(s.rto(), Time::from_ms(200));
}

#[test]
fn congestion_avoidance_adds_one_segment_per_window() {
    let p = TcpParams { initial_window: 4, ..params() };
    let mut s = stream(&p);
    burst(&mut s, Time::ZERO);
    // Force congestion avoidance through a triple duplicate ACK and a full ACK.
    for _ in 0..3 {
        s.on_ack(Time::ZERO, 0, false);
    }
    burst(&mut s, Time::ZERO);
    s.on_ack(Time::ZERO, s.snd_nxt(), false);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 2.0);
    let before = s.cwnd();
    burst(&mut s, Time::ZERO);
    let next = s.snd_nxt();
    s.on_ack(Time::ZERO, next, false);
    // Two segments acked at cwnd 2: +2/2 = one segment.
    assert_eq!(s.cwnd(), before + 1.0);
}

/// RFC 5681 §4.1: a sender idle for longer than its RTO sends again from
/// min(IW, cwnd); one idle for less keeps its window.
#[test]
fn an_idle_sender_restarts_from_the_initial_window() {
    let p = TcpParams { rto_initial: Time::from_ms(200), ..params() };
    let mut s = TcpSender::new(&p, 1000, p.rwnd_segments(1000, Bytes(0)), Some(20_000), false);
    s.offer(1);
    let mut t = Time::ZERO;
    while !s.all_acked() {
        let sent = burst(&mut s, t);
        t += Time::from_us(100);
        for seq in sent {
            s.on_ack(t, seq + 1, false);
        }
    }
    let grown = s.cwnd();
    assert!(grown > 10.0, "cwnd {grown}");
    // Idle for less than the RTO (200 ms): the window is kept.
    s.offer(1);
    t += Time::from_ms(150);
    burst(&mut s, t);
    assert_eq!(s.cwnd(), grown);
    let next = s.snd_nxt();
    s.on_ack(t, next, false);
    // Idle for more than the RTO: back to the initial window, 3 segments.
    s.offer(1);
    t += Time::from_ms(250);
    assert_eq!(burst(&mut s, t).len(), 3);
    assert_eq!(s.cwnd(), 3.0);
    // Unless the rule is off.
    let off = TcpParams { restart_after_idle: false, ..p };
    let mut s = TcpSender::new(&off, 1000, off.rwnd_segments(1000, Bytes(0)), Some(20_000), false);
    s.offer(1);
    let sent = burst(&mut s, Time::ZERO);
    s.on_ack(Time::from_us(100), sent.len() as u32, false);
    let before = s.cwnd();
    s.offer(1);
    burst(&mut s, Time::from_ms(1000));
    assert_eq!(s.cwnd(), before);
}

/// A DCTCP cut leaves at least two segments (Linux's `dctcp_ssthresh`): from IW 2 the
/// first ACK grows the window to 3 and, marked, halves it (α = 1) to 1.5, raised to 2;
/// congestion avoidance then adds 1/2 per ACK.
#[test]
fn a_dctcp_cut_leaves_two_segments() {
    let p = TcpParams { initial_window: 2, ..params() };
    let mut s = TcpSender::new(&p, 1000, p.rwnd_segments(1000, Bytes(0)), None, true);
    s.offer(1);
    burst(&mut s, Time::ZERO);
    s.on_ack(Time::ZERO, 1, true);
    assert_eq!(s.cwnd(), 2.0);
    assert_eq!(s.ssthresh(), 2.0);
    s.on_ack(Time::ZERO, 2, false);
    assert_eq!(s.cwnd(), 2.5);
    // With the former floor of one segment the same cut leaves 1.5.
    let one = TcpParams { dctcp_min_cwnd: 1.0, ..p };
    let mut s = TcpSender::new(&one, 1000, one.rwnd_segments(1000, Bytes(0)), None, true);
    s.offer(1);
    burst(&mut s, Time::ZERO);
    s.on_ack(Time::ZERO, 1, true);
    assert_eq!(s.cwnd(), 1.5);
}

/// Ten segments out, segment 0 lost: the third duplicate ACK retransmits it with
/// ssthresh = 10/2 and cwnd = ssthresh + 3; each further duplicate inflates by one.
#[test]
fn triple_duplicate_ack_fast_retransmits() {
    let p = TcpParams { initial_window: 10, ..params() };
    let mut s = stream(&p);
    assert_eq!(burst(&mut s, Time::ZERO).len(), 10);
    let t = Time::from_us(50);
    s.on_ack(t, 0, false);
    s.on_ack(t, 0, false);
    assert!(!s.can_send() && !s.in_recovery());
    s.on_ack(t, 0, false);
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh(), 5.0);
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(burst(&mut s, t), vec![0], "the retransmission, nothing new (8 < 10 in flight)");
    assert_eq!(s.retransmits, 1);
    for _ in 0..3 {
        s.on_ack(t, 0, false);
    }
    assert_eq!(s.cwnd(), 11.0);
    assert_eq!(burst(&mut s, t), vec![10], "cwnd 11 > 10 in flight: one new segment");
}

/// Segments 0 and 5 of ten lost. After the fast retransmit of 0, the ACK for 5 is
/// partial: retransmit 5, cwnd ← cwnd − 5 + 1, stay in recovery; the ACK past the
/// recovery point ends it with cwnd = ssthresh.
#[test]
fn partial_ack_retransmits_the_next_hole() {
    let p = TcpParams { initial_window: 10, ..params() };
    let mut s = stream(&p);
    burst(&mut s, Time::ZERO);
    let t = Time::from_us(50);
    for _ in 0..8 {
        s.on_ack(t, 0, false); // segments 1-4 and 6-9 arrive
    }
    assert_eq!(s.cwnd(), 13.0);
    let sent = burst(&mut s, t);
    assert_eq!(sent[0], 0);
    s.on_ack(t, 5, false); // the retransmitted 0 fills the first hole
    assert!(s.in_recovery());
    assert_eq!(s.cwnd(), 13.0 - 5.0 + 1.0);
    assert_eq!(s.next_segment(t), 5, "the partial ACK's hole goes first");
    let highest = s.snd_nxt();
    s.on_ack(t, highest, false);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 5.0);
    assert_eq!(s.rto_deadline(), None, "nothing outstanding");
}

/// The timer fires at the initial RTO (1 s); the RTO doubles on each expiry and the
/// window collapses to one segment with go-back-N from the first unacked one.
#[test]
fn rto_backs_off_exponentially() {
    let mut s = stream(&params());
    burst(&mut s, Time::ZERO);
    assert_eq!(s.rto_deadline(), Some(Time::from_ms(1000)));
    let t1 = Time::from_ms(1000);
    s.on_timeout();
    assert_eq!((s.cwnd(), s.ssthresh(), s.timeouts), (1.0, 2.0, 1));
    assert_eq!(s.rto(), Time::from_ms(2000));
    assert_eq!(burst(&mut s, t1), vec![0]);
    assert_eq!(s.rto_deadline(), Some(t1 + Time::from_ms(2000)));
    let t2 = t1 + Time::from_ms(2000);
    s.on_timeout();
    assert_eq!(s.rto(), Time::from_ms(4000));
    assert_eq!(burst(&mut s, t2), vec![0]);
    assert_eq!(s.retransmits, 2);
    // The ACK of a retransmission gives no RTT sample (Karn), but ends the back-off.
    s.on_ack(t2 + Time::from_us(100), 1, false);
    assert_eq!(s.srtt(), None);
    assert_eq!(s.rto(), Time::from_ms(1000));
    assert_eq!(s.rto_deadline(), None, "segment 1 and 2 wait to be resent");
    assert_eq!(burst(&mut s, t2).len(), 2, "cwnd 2 after slow start from 1: segments 1 and 2");
}

#[test]
fn rto_follows_rfc6298_and_the_bounds() {
    let p = TcpParams { rto_min: Time::from_us(1), ..params() };
    let mut s = stream(&p);
    s.next_segment(Time::ZERO);
    s.on_ack(Time::from_us(100), 1, false);
    assert_eq!(s.rto(), Time::from_us(300));
    s.next_segment(Time::from_us(100));
    s.on_ack(Time::from_us(300), 2, false);
    // R = 200: RTTVAR = 3/4·50 + 1/4·100 = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5.
    assert_eq!(s.srtt(), Some(Time::from_ns(112_500)));
    assert_eq!(s.rto(), Time::from_ns(112_500 + 4 * 62_500));
}

/// DCTCP with g = 1/16 and α₀ = 1. The first ACK closes the (empty) window begun at
/// set-up: F = 0. The next window holds segments 1-4, two of them marked: F = 1/2.
#[test]
fn dctcp_alpha_over_two_windows() {
    let p = TcpParams { initial_window: 4, ..params() };
    let mut s = TcpSender::new(&p, 1000, p.rwnd_segments(1000, Bytes(0)), None, true);
    s.offer(1);
    burst(&mut s, Time::ZERO);
    s.on_ack(Time::ZERO, 1, false);
    let a1 = 15.0 / 16.0;
    assert_eq!(s.alpha(), a1);
    assert_eq!(s.cwnd(), 5.0);
    burst(&mut s, Time::ZERO);
    s.on_ack(Time::ZERO, 2, true);
    // The mark cuts the window once: cwnd ← 6·(1 − α/2).
    let cut = 6.0 * (1.0 - a1 / 2.0);
    assert_eq!(s.cwnd(), cut);
    s.on_ack(Time::ZERO, 3, true);
    assert_eq!(s.cwnd(), cut + 1.0 / cut, "at most one cut per window (then congestion avoidance)");
    s.on_ack(Time::ZERO, 4, false);
    assert_eq!(s.alpha(), a1, "the window is not over yet");
    s.on_ack(Time::ZERO, 5, false);
    assert_eq!(s.alpha(), (15.0 / 16.0) * a1 + 0.5 / 16.0);
}

#[test]
fn finite_flow_segments_and_sizes() {
    let mut s = TcpSender::new(&params(), 1000, params().rwnd_segments(1000, Bytes(0)), Some(2500), false);
    s.offer(1);
    assert_eq!(s.total(), 3);
    assert_eq!((s.segment_bytes(0), s.segment_bytes(1), s.segment_bytes(2)), (1000, 1000, 500));
    s.offer(1);
    assert_eq!(s.total(), 6);
    assert_eq!(s.segment_bytes(5), 500);
    assert_eq!(burst(&mut s, Time::ZERO).len(), 3);
    s.on_ack(Time::ZERO, 3, false);
    assert!(!s.all_acked());
    assert_eq!(burst(&mut s, Time::ZERO), vec![3, 4, 5]);
    s.on_ack(Time::ZERO, 6, false);
    assert!(s.all_acked() && !s.can_send());
}

#[test]
fn receiver_acks_cumulatively_and_fills_holes() {
    let mut r = TcpReceiver::new(&params(), 64);
    let t = Time::ZERO;
    let ack = |x: Received| x.acks[0].map(|a| a.next);
    assert_eq!(ack(r.on_segment(t, 0, false)), Some(1));
    assert_eq!(ack(r.on_segment(t, 2, false)), Some(1), "a duplicate ACK for the hole");
    assert_eq!(ack(r.on_segment(t, 3, false)), Some(1));
    let x = r.on_segment(t, 1, false);
    assert!(x.new);
    assert_eq!(ack(x), Some(4));
    let dup = r.on_segment(t, 2, false);
    assert!(!dup.new);
    assert_eq!(ack(dup), Some(4));
}

#[test]
fn delayed_ack_every_second_segment_or_on_timeout() {
    let p = TcpParams { delayed_ack: true, ..params() };
    let mut r = TcpReceiver::new(&p, 64);
    assert_eq!(r.on_segment(Time::ZERO, 0, false).acks, [None, None]);
    assert_eq!(r.delack_deadline(), Some(Time::from_ms(40)));
    assert_eq!(r.on_segment(Time::ZERO, 1, false).acks[0], Some(Ack { next: 2, ece: false }));
    r.on_segment(Time::ZERO, 2, false);
    assert_eq!(r.on_delack_timer(Time::from_ms(40)), Some(Ack { next: 3, ece: false }));
    // DCTCP's state machine: a CE change flushes the pending ACK with the old state.
    r.on_segment(Time::ZERO, 3, false);
    let x = r.on_segment(Time::ZERO, 4, true);
    assert_eq!(x.acks[0], Some(Ack { next: 4, ece: false }));
    assert_eq!(x.acks[1], None);
    assert_eq!(r.on_segment(Time::ZERO, 5, true).acks[0], Some(Ack { next: 6, ece: true }));
}

#[test]
fn the_default_receive_window_is_twice_the_path_bdp_and_at_least_1_mib() {
    let p = params();
    assert_eq!(p.receive_window(Bytes(0)), Bytes(1 << 20));
    assert_eq!(p.receive_window(Bytes(400_000)), Bytes(1 << 20));
    // 100 Gb/s over a 200 us round trip: 2.5 MB in flight, a 5 MB window.
    assert_eq!(p.receive_window(Bytes(2_500_000)), Bytes(5_000_000));
    assert_eq!(p.rwnd_segments(1500, Bytes(2_500_000)), 3333);
    let fixed = TcpParams { rwnd: Some(Bytes(64 * 1024)), ..params() };
    assert_eq!(fixed.receive_window(Bytes(2_500_000)), Bytes(64 * 1024));
    assert_eq!(fixed.rwnd_segments(1000, Bytes(0)), 65);
}

/// Sends what the windows allow and acknowledges it segment by segment, `rounds`
/// times (no loss).
fn lossless_rounds(s: &mut TcpSender, rounds: u32) {
    for _ in 0..rounds {
        for seq in burst(s, Time::ZERO) {
            s.on_ack(Time::ZERO, seq + 1, false);
        }
    }
}

/// A stream held back by a 10-segment receive window: slow start grows cwnd only to
/// twice the 10 segments in flight (Linux's `tcp_is_cwnd_limited`), and no further
/// however long it runs; without the rule it would grow by one segment per ACK.
#[test]
fn a_receive_window_limited_flow_does_not_grow_its_window() {
    let p = TcpParams { rwnd: Some(Bytes(10_000)), ..params() };
    let mut s = TcpSender::new(&p, 1000, p.rwnd_segments(1000, Bytes(0)), None, false);
    s.offer(1);
    lossless_rounds(&mut s, 3);
    assert_eq!(s.cwnd(), 20.0);
    lossless_rounds(&mut s, 100);
    assert_eq!(s.cwnd(), 20.0, "1,000 more ACKs");
}

/// In congestion avoidance a receive-window-limited flow keeps its window: it grows
/// while cwnd holds it back (cwnd ≤ rwnd) and stops one segment above rwnd.
#[test]
fn congestion_avoidance_stops_growing_above_the_receive_window() {
    let p = TcpParams { rwnd: Some(Bytes(8_000)), initial_window: 8, ..params() };
    let mut s = TcpSender::new(&p, 1000, p.rwnd_segments(1000, Bytes(0)), None, false);
    s.offer(1);
    burst(&mut s, Time::ZERO);
    for _ in 0..3 {
        s.on_ack(Time::ZERO, 0, false);
    }
    burst(&mut s, Time::ZERO);
    s.on_ack(Time::ZERO, s.snd_nxt(), false);
    assert_eq!((s.cwnd(), s.ssthresh()), (4.0, 4.0), "congestion avoidance from 4");
    lossless_rounds(&mut s, 200);
    assert!((9.0..10.0).contains(&s.cwnd()), "{}", s.cwnd());
}

/// An application that hands over 5 segments at a time (an incast server's SRU) never
/// has more than 5 in flight: cwnd stops at twice that, not one segment per ACK.
#[test]
fn an_application_limited_flow_does_not_grow_its_window() {
    let mut s = TcpSender::new(&params(), 1000, params().rwnd_segments(1000, Bytes(0)), Some(5000), false);
    for _ in 0..200 {
        s.offer(1);
        lossless_rounds(&mut s, 2);
        assert!(s.all_acked());
    }
    assert_eq!(s.cwnd(), 10.0);
}

/// DCTCP grows by the same rule: a receive-window-limited flow's window stays put, so
/// a cut after marks acts on the window in use.
#[test]
fn dctcp_limited_by_the_receive_window_keeps_its_window() {
    let p = TcpParams { rwnd: Some(Bytes(10_000)), ..params() };
    let mut s = TcpSender::new(&p, 1000, p.rwnd_segments(1000, Bytes(0)), None, true);
    s.offer(1);
    lossless_rounds(&mut s, 100);
    assert_eq!(s.cwnd(), 20.0);
}
