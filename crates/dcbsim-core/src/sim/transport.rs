//! Flows over a transport: segments out, ACK frames back along the reverse path,
//! the retransmission and delayed-ACK timers.
//!
//! Timers are lazy: a connection keeps at most one pending event, for the earlier of
//! its retransmission and delayed-ACK deadlines. When it fires early (a deadline moved
//! later since), it is pushed again for the deadline; only a deadline moved earlier
//! needs a new event (the old one goes stale by its generation). So ACKs that restart
//! the retransmission timer cost no event.

use super::Simulation;
use crate::packet::{Packet, PacketKind};
use crate::sched::Event;
use crate::transport::{Ack, TcpReceiver, TcpSender};
use crate::units::Time;

/// One transport connection: the sender at the flow's source and the receiver at
/// its destination.
#[derive(Clone, Debug)]
pub(super) struct Conn {
    /// The sender.
    pub sender: TcpSender,
    /// The receiver.
    pub receiver: TcpReceiver,
    /// The flow it carries.
    pub flow: u32,
    /// Whether data frames are ECN-capable (DCTCP).
    pub ect: bool,
    /// Whether it serves the incast application.
    pub incast: bool,
    timer_event: Option<Time>,
    timer_generation: u32,
}

impl Conn {
    /// A connection for flow `flow`.
    pub fn new(sender: TcpSender, receiver: TcpReceiver, flow: u32, ect: bool) -> Conn {
        Conn { sender, receiver, flow, ect, incast: false, timer_event: None, timer_generation: 0 }
    }
}

impl Simulation {
    /// Flow `f` (over connection `c`) takes its next segment at `now`: its number,
    /// size, and whether it is ECN-capable.
    #[inline]
    pub(super) fn take_segment(&mut self, f: u32, c: u32, now: Time) -> (u32, u32, bool) {
        let conn = &mut self.apps.conns[c as usize];
        let seq = conn.sender.next_segment(now);
        let bytes = conn.sender.segment_bytes(seq);
        let flow = &mut self.flows[f as usize];
        flow.sent(now, bytes);
        flow.set_window_open(conn.sender.can_send());
        let ect = conn.ect;
        self.arm_timer(c);
        (seq, bytes, ect)
    }

    /// Makes sure an event is pending no later than the connection's earliest
    /// deadline.
    #[inline]
    fn arm_timer(&mut self, c: u32) {
        let conn = &mut self.apps.conns[c as usize];
        let deadline = match (conn.sender.rto_deadline(), conn.receiver.delack_deadline()) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => return,
            },
        };
        if conn.timer_event.is_some_and(|e| e <= deadline) {
            return;
        }
        conn.timer_generation = conn.timer_generation.wrapping_add(1);
        conn.timer_event = Some(deadline);
        let generation = conn.timer_generation;
        self.queue.push(deadline.max(self.now), Event::ConnTimer { conn: c, generation });
    }

    /// The connection's timer event: send a due delayed ACK, time out if the
    /// retransmission deadline has come, and wait for the next deadline.
    pub(super) fn on_conn_timer(&mut self, c: u32, generation: u32) {
        let now = self.now;
        let conn = &mut self.apps.conns[c as usize];
        if conn.timer_generation != generation || conn.timer_event.is_none() {
            return;
        }
        conn.timer_event = None;
        let f = conn.flow;
        if let Some(ack) = conn.receiver.on_delack_timer(now) {
            self.send_ack(f, ack);
        }
        let conn = &mut self.apps.conns[c as usize];
        if conn.sender.rto_deadline().is_some_and(|at| at <= now) {
            conn.sender.on_timeout();
            self.flows[f as usize].set_window_open(conn.sender.can_send());
            self.make_ready(f);
        }
        self.arm_timer(c);
    }

    /// A data frame of a transport flow reached its destination. Returns whether it
    /// carried new data.
    #[inline]
    pub(super) fn receive_segment(&mut self, pkt: &Packet, c: u32) -> bool {
        let now = self.now;
        let PacketKind::Data { seq, ce, .. } = pkt.kind else { return false };
        let conn = &mut self.apps.conns[c as usize];
        let before = conn.receiver.rcv_nxt();
        let got = conn.receiver.on_segment(now, seq, ce);
        let (after, incast) = (conn.receiver.rcv_nxt(), conn.incast);
        for ack in got.acks.into_iter().flatten() {
            self.send_ack(pkt.flow, ack);
        }
        self.arm_timer(c);
        if incast && after > before {
            self.incast_progress(before, after);
        }
        got.new
    }

    /// The receiver of flow `f` sends `ack` from its host back to the source.
    fn send_ack(&mut self, f: u32, ack: Ack) {
        let flow = &self.flows[f as usize];
        let kind = PacketKind::Ack { next: ack.next, ece: ack.ece };
        let pkt = Packet::new(f, self.apps.ack_bytes, flow.src, flow.priority, kind);
        let node = flow.dst;
        self.send_control(node, pkt);
    }

    /// Host `node` sends a control frame: at once if its NIC is free, else ahead of
    /// its flows' data when the NIC frees.
    pub(super) fn send_control(&mut self, node: u32, pkt: Packet) {
        let now = self.now;
        let nic = self.hosts[node as usize].as_ref().expect("a host").nic;
        let port = &mut self.ports[nic as usize];
        if port.busy_until <= now && !port.free_pending && !port.has_queued() && !port.is_paused(pkt.priority) {
            self.transmit(nic, pkt);
        } else {
            port.push_local(now, pkt);
        }
        self.nic_wake(nic);
    }

    /// An ACK for flow `f` reached its source.
    #[inline]
    pub(super) fn receive_ack(&mut self, f: u32, next: u32, ece: bool) {
        let c = self.flows[f as usize].conn;
        let conn = &mut self.apps.conns[c as usize];
        conn.sender.on_ack(self.now, next, ece);
        let open = conn.sender.can_send();
        self.arm_timer(c);
        let flow = &mut self.flows[f as usize];
        flow.set_window_open(open);
        if open && !flow.in_ring && !flow.wake_pending {
            self.make_ready(f);
        }
    }
}

impl Simulation {
    /// The bytes flow `f`'s path holds over one round trip of propagation at its
    /// slowest link (0 when the path is unknown): what sizes the default receive window.
    fn path_bdp(&self, f: u32) -> crate::units::Bytes {
        let flow = &self.flows[f as usize];
        let Some(path) = self.routes.path(flow.src, flow.dst, f, |p| self.ports[p as usize].peer) else {
            return crate::units::Bytes(0);
        };
        let slowest = path.iter().map(|&p| self.ports[p as usize].rate().as_f64()).fold(f64::INFINITY, f64::min);
        let round_trip = 2.0 * path.iter().map(|&p| self.ports[p as usize].delay.as_secs_f64()).sum::<f64>();
        crate::units::Bytes(if slowest.is_finite() { (slowest * round_trip / 8.0).ceil() as u64 } else { 0 })
    }

    /// Gives flow `f` a connection of its spec's transport (if any). A finite flow
    /// offers its size at once, a greedy one an endless stream; an incast server
    /// (`sru` given) offers one SRU per request of the client.
    pub(super) fn attach_conn(&mut self, f: u32, transport: crate::transport::Transport, sru: Option<u64>) {
        use crate::transport::Transport;
        if transport == Transport::None {
            return;
        }
        let params = &self.config.tcp;
        let mss = self.flows[f as usize].frame_bytes;
        let rwnd = params.rwnd_segments(mss, self.path_bdp(f));
        let flow = &mut self.flows[f as usize];
        let unit = sru.or(flow.size());
        let mut sender = TcpSender::new(params, mss, rwnd, unit, transport == Transport::Dctcp);
        if sru.is_none() {
            sender.offer(1);
        }
        let receiver = TcpReceiver::new(params, rwnd);
        flow.conn = self.apps.conns.len() as u32;
        flow.set_window_open(sender.can_send());
        let mut conn = Conn::new(sender, receiver, f, transport == Transport::Dctcp);
        conn.incast = sru.is_some();
        self.apps.conns.push(conn);
    }
}
