//! PFC in the event loop: ingress accounting at switches, PAUSE frames sent at the
//! next frame boundary, and pause timers at the upstream transmitters (hosts' NICs
//! included).

use super::Simulation;
use crate::config::{ConfigError, NodeKind, PortRef, SimConfig};
use crate::net::Port;
use crate::net::pfc::{self, Ingress, NO_INGRESS, PAUSE_FRAME_BYTES, REFRESH, REFRESH_MASK};
use crate::packet::{Packet, PacketKind};
use crate::sched::Event;
use crate::units::Bytes;

/// The largest frame any flow of `config` sends (the MTU of the headroom rule).
fn mtu(config: &SimConfig) -> u32 {
    let templates = config.arrivals.iter().map(|a| a.flow.frame_bytes);
    config.flows.iter().map(|f| f.frame_bytes).chain(templates).max().unwrap_or(1500).max(64)
}

/// The MTU used by the headroom rule and the XOFF refresh.
pub(super) fn frame_limit(config: &SimConfig) -> u32 {
    mtu(config)
}

/// Sets up PFC on the ports (`find` resolves a port name, naming `key` in errors).
pub(super) fn configure(
    config: &SimConfig,
    ports: &mut [Port],
    find: impl Fn(PortRef, &str) -> Result<u32, ConfigError>,
) -> Result<(), ConfigError> {
    let spec = &config.pfc;
    if spec.lossless == 0 {
        return Ok(());
    }
    for p in ports.iter_mut() {
        p.pfc_mut().quanta = spec.quanta;
    }
    if spec.quanta == 0 {
        return Err(ConfigError::new("pfc.quanta", "must be > 0"));
    }
    // The switch port `sw:up` names the ingress from `up`: PFC state lives on the
    // upstream's port `up:sw`, the reverse of `sw:up`.
    let ingress: Vec<u32> = match &spec.ports {
        None => (0..ports.len() as u32).filter(|&p| !ports[p as usize].is_host).collect(),
        Some(list) => list.iter().enumerate().map(|(i, &r)| find(r, &format!("pfc.ports[{i}]"))).collect::<Result<_, _>>()?,
    };
    let frame = mtu(config);
    for &sw_port in &ingress {
        if ports[sw_port as usize].is_host {
            return Err(ConfigError::new("pfc.ports", "names a host's port; PFC ingress ports are switch ports"));
        }
        let up = ports[sw_port as usize].reverse as usize;
        let (rate, delay) = (ports[up].rate(), ports[up].delay);
        let pfc = ports[up].pfc_mut();
        pfc.lossless = spec.lossless;
        pfc.xoff = spec.xoff.0;
        pfc.xon = spec.xon.map_or(spec.xoff.0.saturating_sub(2 * frame as u64), |b| b.0);
        pfc.headroom = spec.headroom.map_or_else(|| pfc::headroom(rate, delay, frame), |b| b.0);
    }
    let lists: [(&str, &Vec<(PortRef, Bytes)>); 3] =
        [("pfc.xoff_kb", &spec.xoff_ports), ("pfc.xon_kb", &spec.xon_ports), ("pfc.headroom_kb", &spec.headroom_ports)];
    for (k, (key, list)) in lists.into_iter().enumerate() {
        for &(r, b) in list.iter() {
            let up = ports[find(r, key)? as usize].reverse as usize;
            let pfc = ports[up].pfc_mut();
            *[&mut pfc.xoff, &mut pfc.xon, &mut pfc.headroom][k] = b.0;
        }
    }
    for (i, p) in ports.iter().enumerate() {
        if p.pfc().lossless != 0 && p.pfc().xon > p.pfc().xoff {
            return Err(ConfigError::new("pfc.xon_kb", format!("X_on must not exceed X_off (port {i})")));
        }
    }
    // Switches receiving lossless traffic remember each queued frame's ingress; every
    // port that may be paused, or may send a PAUSE, takes the PFC path when it frees.
    let lossless_into: Vec<u32> = ports.iter().filter(|p| p.pfc().lossless != 0).map(|p| p.peer).collect();
    let senders: Vec<u32> = ports.iter().filter(|p| p.pfc().lossless != 0).map(|p| p.reverse).collect();
    for (i, p) in ports.iter_mut().enumerate() {
        if lossless_into.contains(&p.node) && config.nodes[p.node as usize].kind == NodeKind::Switch {
            p.track_ingress();
        }
        if p.pfc().lossless != 0 || senders.contains(&(i as u32)) || lossless_into.contains(&p.node) {
            p.in_pfc = true;
        }
    }
    Ok(())
}

impl Simulation {
    /// Whether a frame of priority `q` arriving over port `ingress` is lossless.
    #[inline]
    pub(super) fn is_lossless(&self, ingress: u32, q: u8) -> bool {
        self.pfc.on && ingress != NO_INGRESS && self.ports[ingress as usize].pfc().lossless & (1 << (q & 7)) != 0
    }

    /// A lossless frame from `ingress` arrives for port `out`: the ingress it is
    /// accounted to ([`NO_INGRESS`] when it leaves at once), or `None` when the
    /// headroom is exhausted and it is lost (counted).
    #[cold]
    #[inline(never)]
    pub(super) fn pfc_pre_admit(&mut self, out: u32, pkt: &Packet, ingress: u32) -> Option<u32> {
        let port = &self.ports[out as usize];
        if port.is_idle(self.now) && !port.free_pending && !port.is_paused(pkt.priority) {
            return Some(NO_INGRESS);
        }
        if self.pfc_ingress(ingress, pkt) {
            return Some(ingress);
        }
        self.ports[out as usize].drop_by_policy(pkt.bytes);
        if pkt.is_data() {
            self.count_dropped(pkt);
        } else {
            self.forget_probe(pkt);
        }
        None
    }

    /// Ingress accounting of a lossless frame that will wait at port `out`. Returns
    /// false when the headroom is exhausted and the frame is lost.
    #[cold]
    #[inline(never)]
    pub(super) fn pfc_ingress(&mut self, ingress: u32, pkt: &Packet) -> bool {
        let now = self.now;
        self.refresh_thresholds(ingress);
        let port = &mut self.ports[ingress as usize];
        let rate = port.rate();
        let accepted = match port.pfc_mut().on_ingress(now, pkt.priority, pkt.bytes, rate) {
            Ingress::Lost => false,
            Ingress::Accepted => true,
            Ingress::Xoff => {
                let back = port.reverse;
                self.request_pause(back, pkt.priority, true);
                true
            }
        };
        if accepted {
            self.account_shared(ingress, pkt.bytes, true);
        }
        accepted
    }

    /// A frame that arrived over `ingress` left its switch.
    #[cold]
    #[inline(never)]
    pub(super) fn pfc_release(&mut self, ingress: u32, pkt: &Packet) {
        self.account_shared(ingress, pkt.bytes, false);
        self.refresh_thresholds(ingress);
        let port = &mut self.ports[ingress as usize];
        if port.pfc_mut().on_egress(pkt.priority, pkt.bytes) {
            let back = port.reverse;
            self.request_pause(back, pkt.priority, false);
        }
    }

    /// A switch port that takes part in PFC may send: a waiting PAUSE first, else the
    /// next frame whose priority is not paused (releasing its ingress bytes).
    #[cold]
    #[inline(never)]
    pub(super) fn pfc_port_free(&mut self, out: u32) {
        let now = self.now;
        let port = &mut self.ports[out as usize];
        if port.pause_pending {
            self.send_pause(out);
        } else if let Some(pkt) = port.dequeue(now) {
            let ingress = port.last_ingress;
            if ingress != NO_INGRESS {
                self.pfc_release(ingress, &pkt);
            }
            self.transmit_at_switch(out, pkt);
        }
        let port = &mut self.ports[out as usize];
        if port.has_eligible() || port.pause_pending {
            port.free_pending = true;
            let at = port.busy_until;
            self.queue.push(at, Event::PortFree { port: out });
        }
    }

    /// Asks switch port `out` to send an XOFF (or XON) for priority `q` at its next
    /// frame boundary.
    #[cold]
    #[inline(never)]
    fn request_pause(&mut self, out: u32, q: u8, xoff: bool) {
        let port = &mut self.ports[out as usize];
        let bit = 1 << (q & 7);
        if xoff {
            port.pfc_mut().tx_xoff |= bit;
            port.pfc_mut().tx_xon &= !bit;
        } else {
            port.pfc_mut().tx_xon |= bit;
            port.pfc_mut().tx_xoff &= !bit;
        }
        port.sync_pfc();
        if !port.free_pending {
            port.free_pending = true;
            let at = port.busy_until.max(self.now);
            self.queue.push(at, Event::PortFree { port: out });
        }
    }

    /// Sends the PAUSE frame waiting at switch port `out`, if any; returns whether
    /// one was sent.
    #[cold]
    #[inline(never)]
    pub(super) fn send_pause(&mut self, out: u32) -> bool {
        let port = &mut self.ports[out as usize];
        let Some((mask, quanta)) = port.pfc_mut().take_pending() else { return false };
        port.sync_pfc();
        let ingress = port.reverse;
        let pkt = Packet::new(ingress, PAUSE_FRAME_BYTES, port.peer, 7, PacketKind::Pause { mask, quanta });
        // A switch's PAUSE may cross to another part of a split run, as its frames do.
        let (arrival, was_empty) = self.put_on_link(out, pkt);
        self.on_switch_link_push(out, &pkt, arrival, was_empty);
        if quanta != 0 {
            // Refresh the XOFF while it is needed: the next one must reach the
            // upstream port (one frame, the PAUSE and the propagation delay away)
            // before this one runs out.
            let now = self.now;
            let port = &mut self.ports[ingress as usize];
            let lead = port.delay + port.rate().transmit_time(Bytes(2 * self.pfc.mtu as u64 + PAUSE_FRAME_BYTES as u64));
            let pause = pfc::quanta_time(quanta, port.rate());
            let at = port.pfc_mut().xoff_sent(now, mask, pause, lead);
            let generation = REFRESH | port.pfc_mut().refresh_generation;
            self.queue.push(at, Event::PauseEnd { port: ingress, generation });
        }
        true
    }

    /// The refresh time of the XOFFs about the link into port `ingress`'s peer.
    #[cold]
    #[inline(never)]
    fn on_refresh(&mut self, ingress: u32, generation: u32) {
        let port = &self.ports[ingress as usize];
        if port.pfc().refresh_generation != generation & REFRESH_MASK {
            return;
        }
        let due = port.pfc().due_refresh(self.now);
        let back = port.reverse;
        for q in 0..8 {
            if due & (1 << q) != 0 {
                self.request_pause(back, q, true);
            }
        }
    }

    /// A PAUSE frame for port `p` arrived at its owner.
    #[cold]
    #[inline(never)]
    pub(super) fn on_pause(&mut self, p: u32, mask: u8, quanta: u16) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        let rate = port.rate();
        if let Some(end) = port.pfc_mut().on_pause(now, mask, quanta, rate) {
            let generation = port.pfc_mut().generation;
            self.queue.push(end, Event::PauseEnd { port: p, generation });
        }
        port.sync_pfc();
        self.pfc_kick(p);
    }

    /// A pause timer of port `p` may have run out.
    #[cold]
    #[inline(never)]
    pub(super) fn on_pause_end(&mut self, p: u32, generation: u32) {
        if generation & REFRESH != 0 {
            self.on_refresh(p, generation);
            return;
        }
        let now = self.now;
        let port = &mut self.ports[p as usize];
        if port.pfc_mut().generation != generation {
            return;
        }
        if let Some(end) = port.pfc_mut().expire(now) {
            self.queue.push(end, Event::PauseEnd { port: p, generation });
        }
        port.sync_pfc();
        self.pfc_kick(p);
    }

    /// Port `p` may send again what a pause held back.
    #[cold]
    #[inline(never)]
    fn pfc_kick(&mut self, p: u32) {
        let now = self.now;
        let port = &self.ports[p as usize];
        if port.is_host {
            let node = port.node as usize;
            let paused = port.paused;
            let host = self.hosts[node].as_mut().expect("a host");
            let flows = &self.flows;
            let mut k = 0;
            while k < host.parked.len() {
                let f = host.parked[k];
                if paused & (1 << (flows[f as usize].priority & 7)) == 0 {
                    host.parked.swap_remove(k);
                    host.ready.push_back(f);
                } else {
                    k += 1;
                }
            }
            self.nic_wake(p);
            return;
        }
        let port = &mut self.ports[p as usize];
        if !port.free_pending && (port.has_eligible() || port.pause_pending) {
            port.free_pending = true;
            let at = port.busy_until.max(now);
            self.queue.push(at, Event::PortFree { port: p });
        }
    }
}
