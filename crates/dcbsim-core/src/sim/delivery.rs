//! Quiet delivery: frames whose arrival needs nothing but counting reach their host
//! without an event of their own.
//!
//! A data frame without a transport, without a CE mark and of an endless flow only
//! adds to its flow's delivered counters when it arrives: nothing reacts to it. On a
//! link into a host such frames stay on the link until something needs the counters
//! (a sample, the end of the run), a frame that does need its arrival (a
//! notification, an ACK, a TCP segment, a marked or finite flow's frame) reaches the
//! host, or the link has taken [`QUIET_BACKLOG`] frames since it last delivered:
//! they are counted then, in order. Only those loud frames have arrival
//! events: one pending at a time, at the first loud frame's arrival
//! ([`Port::arrival_due`]); an event at another time is stale (the frame it was for
//! went back to the queue) and is dropped.
//!
//! A sample visits only the quiet links that may hold frames (the watched ports of
//! `watch.rs`).

use super::Simulation;
use crate::net::{Port, QUIET_BACKLOG};
use crate::packet::{Packet, PacketKind};
use crate::sched::Event;
use crate::traffic::Flow;
use crate::units::Time;

/// Whether `pkt`, put on `port`'s link, needs nothing at its arrival but counting.
#[inline]
pub(super) fn is_quiet(port: &Port, pkt: &Packet) -> bool {
    matches!(pkt.kind, PacketKind::Data { ce: false, quiet: true, .. }) && pkt.dst == port.peer
}

impl Simulation {
    /// `pkt` went on `out`'s link, reaching the far end at `arrival` (`was_empty`: the
    /// link held nothing before): schedules its arrival if it needs one.
    #[inline(always)]
    pub(super) fn on_link_push(&mut self, out: u32, pkt: &Packet, arrival: Time, was_empty: bool) {
        let port = &self.ports[out as usize];
        if !port.quiet_delivery {
            if was_empty {
                self.queue.push(arrival, Event::LinkArrival { port: out });
            }
            return;
        }
        if is_quiet(port, pkt) {
            if port.link.len() as u32 >= port.deliver_at {
                self.deliver_backlog(out);
            }
            return;
        }
        let port = &mut self.ports[out as usize];
        port.loud_on_link += 1;
        if port.arrival_due == Time::NEVER {
            port.arrival_due = arrival;
            self.queue.push(arrival, Event::LinkArrival { port: out });
        }
    }

    /// The arrival event of a quietly delivering port: the quiet frames ahead reach
    /// the host, then the loud frame the event is for; the next loud frame's arrival
    /// is scheduled before that one is received (as a plain link schedules its next
    /// frame's arrival before receiving), so events keep the order they would have.
    #[inline(never)]
    pub(super) fn on_quiet_arrival(&mut self, port: u32) {
        if self.ports[port as usize].arrival_due != self.now {
            return;
        }
        self.ports[port as usize].arrival_due = Time::NEVER;
        let now = self.now;
        while let Some((_, pkt)) = self.ports[port as usize].pop_arrived(now) {
            if is_quiet(&self.ports[port as usize], &pkt) {
                count_delivery(&mut self.flows, &pkt);
                continue;
            }
            self.ports[port as usize].loud_on_link -= 1;
            self.schedule_next_loud(port);
            self.receive(pkt);
            return;
        }
    }

    fn schedule_next_loud(&mut self, port: u32) {
        let p = &self.ports[port as usize];
        if p.loud_on_link == 0 || p.arrival_due != Time::NEVER {
            return;
        }
        let next = p.link.iter().find(|(_, pkt)| !is_quiet(p, pkt)).map(|&(at, _)| at);
        if let Some(at) = next {
            self.ports[port as usize].arrival_due = at;
            self.queue.push(at.max(self.now), Event::LinkArrival { port });
        }
    }

    /// Frames went back from `port`'s link to its queue (it left departure timing):
    /// the loud ones among them no longer count, and the pending event may have been
    /// for one of them (it goes stale; a new one is set for the first loud frame left).
    pub(super) fn recount_loud(&mut self, port: u32) {
        let p = &self.ports[port as usize];
        let loud = p.link.iter().filter(|(_, pkt)| !is_quiet(p, pkt)).count() as u32;
        let p = &mut self.ports[port as usize];
        p.loud_on_link = loud;
        p.arrival_due = Time::NEVER;
        self.schedule_next_loud(port);
    }

    /// Delivers the quiet frames at the head of every quietly delivering link that
    /// arrived before `now` (before a sample or the report reads the counters), then
    /// takes the watched ports found empty off the list.
    ///
    /// Only the listed links can hold quiet frames. The order in which links are
    /// visited does not matter: each delivery only adds to its flow's counters. (With
    /// 4,096 servers, visiting every port facing a host read one cache line of each of
    /// 4,097 ports per sample, where one link held frames.)
    pub(super) fn deliver_quiet(&mut self, now: Time) {
        for i in 0..self.watched.len() {
            let port = self.watched[i];
            if self.ports[port as usize].quiet_delivery {
                self.deliver_arrived(port, now);
            }
        }
        self.unlist_idle();
    }

    /// Delivers the quiet frames at the head of quietly delivering `port`'s link
    /// that arrived before `now`.
    fn deliver_arrived(&mut self, port: u32, now: Time) {
        if !self.tracing.traces.is_empty() && self.ports[port as usize].timed {
            self.catch_up_traced(port, now);
        }
        let (port, flows) = (&mut self.ports[port as usize], &mut self.flows);
        // The frames that arrived before now started before it: counted first.
        port.catch_up(now);
        while let Some((at, pkt)) = port.link.front() {
            if *at >= now || !is_quiet(port, pkt) {
                break;
            }
            count_delivery(flows, pkt);
            port.link.pop_front();
        }
    }

    /// Quiet `port`'s link has grown by [`QUIET_BACKLOG`] frames since it last
    /// delivered: the frames that have arrived are delivered now, and the next
    /// delivery comes as many frames later. So a link holds the frames on their way
    /// and at most that many more, however long between samples; with samples a
    /// second apart, the plain dumbbell's link held a second of frames (50 MB) and
    /// ran 1.25-1.6 times as long. Counting them before the sample changes nothing:
    /// the sample would count them too, and only a frame's own flow reads them
    /// (quiet frames are of endless flows without a transport). Called from a
    /// frame's admission, at the event's own time.
    #[inline(never)]
    fn deliver_backlog(&mut self, port: u32) {
        self.deliver_arrived(port, self.now);
        let p = &mut self.ports[port as usize];
        p.deliver_at = (p.link.len() as u32).saturating_add(QUIET_BACKLOG);
    }
}

/// Counts a quiet frame's arrival at its flow (a function of the flows alone, so a
/// loop holding a port can call it).
#[inline]
fn count_delivery(flows: &mut [Flow], pkt: &Packet) {
    let counters = &mut flows[pkt.flow as usize].counters;
    counters.delivered_frames += 1;
    counters.delivered_bytes += pkt.bytes as u64;
}

#[cfg(test)]
mod tests {
    use crate::config::{FlowKind, FlowSpec, SimConfig};
    use crate::net::QUIET_BACKLOG;
    use crate::sim::Simulation;
    use crate::topology::{LinkDefaults, incast};
    use crate::units::{Bytes, Rate, Time};

    /// Five servers sending 2.5 Gb/s each into a 10 Gb/s link to the client, through
    /// one switch with a 131,072-byte buffer, sampled every `interval`.
    fn five_into_one(interval: Time) -> SimConfig {
        let mut cfg = SimConfig::new(Time::from_ms(10));
        cfg.monitor.sample_interval = interval;
        let d = LinkDefaults {
            rate: Rate::from_gbps(10),
            delay: Time::from_us(1).into(),
            buffer: Bytes(131_072),
            priorities: 1,
            frame_service: None,
        };
        let t = incast(5, &d);
        let client = t.index("client").unwrap();
        for i in 0..5 {
            let src = t.index(&format!("srv{i}")).unwrap();
            let spec = FlowSpec::new(&format!("f{i}"), src, client, FlowKind::Constant);
            cfg.flows.push(FlowSpec { rate: Some(Rate::from_gbps_f64(2.5)), ..spec });
        }
        (cfg.nodes, cfg.links) = (t.nodes, t.links);
        cfg
    }

    #[test]
    fn links_deliver_quietly_only_where_a_flow_can_send_quiet_frames() {
        use crate::transport::Transport;
        let faces_client = |cfg: SimConfig| {
            let sim = Simulation::new(cfg, 1).unwrap();
            let client = sim.config().nodes.iter().position(|n| n.name == "client").unwrap() as u32;
            sim.ports.iter().filter(|p| p.peer == client).map(|p| p.quiet_delivery).collect::<Vec<_>>()
        };
        assert_eq!(faces_client(five_into_one(Time::from_ms(1))), vec![true]);
        // Every flow over a transport: each frame has its arrival event anyway.
        let mut tcp = five_into_one(Time::from_ms(1));
        for f in tcp.flows.iter_mut() {
            (f.kind, f.rate, f.transport) = (FlowKind::Greedy, None, Transport::Dctcp);
        }
        assert_eq!(faces_client(tcp.clone()), vec![false]);
        // One endless flow without a transport among them is enough.
        tcp.flows[2].transport = Transport::None;
        assert_eq!(faces_client(tcp), vec![true]);
    }

    #[test]
    fn a_quiet_link_holds_its_frames_on_their_way_and_a_backlog_at_most() {
        let mut sim = Simulation::new(five_into_one(Time::from_ms(10)), 1).unwrap();
        let client = sim.config().nodes.iter().position(|n| n.name == "client").unwrap() as u32;
        let out = sim.ports.iter().position(|p| p.peer == client).unwrap();
        assert!(sim.ports[out].quiet_delivery);
        let mut longest = 0;
        for k in 1..=200 {
            sim.run_until(Time::from_us(50 * k));
            longest = longest.max(sim.ports[out].link.len());
        }
        // On their way: the 131 frames the buffer holds, the one being sent and the
        // one on the wire (a frame takes 0.8 us to send, 1 us to cross).
        assert!(longest <= 133 + QUIET_BACKLOG as usize, "{longest}");
        assert!(longest > QUIET_BACKLOG as usize, "{longest}");
        // Delivering between samples counts the same frames as samples every 1 ms.
        let once = sim.finish();
        let often = Simulation::new(five_into_one(Time::from_ms(1)), 1).unwrap().run();
        let delivered = |r: &crate::report::RunReport| r.flows.iter().map(|f| f.delivered_bytes).collect::<Vec<_>>();
        assert_eq!(delivered(&once), delivered(&often));
    }
}
