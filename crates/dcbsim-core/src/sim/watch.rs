//! Watched ports: the switch ports a sample must look at.
//!
//! A sample records the queue of every sampled port and delivers the quiet frames of
//! every quietly delivering link (see `delivery.rs`). With thousands of ports, most
//! idle, looking at each port costs a cache miss per port per sample. So a sample looks
//! only at the listed ports: a watched port (sampled, or delivering quietly) goes on
//! the list when a frame arrives at it, and leaves it at a sample that finds its queue
//! empty and, delivering quietly, its link empty too. An unlisted port therefore has
//! an empty queue (and, delivering quietly, no frame on its link): its queue is
//! recorded as empty without reading it.
//!
//! Frames reach a switch port's queue and link only through its arrivals
//! ([`Simulation::enqueue_from`]), apart from PFC's PAUSE frames, which need their own
//! arrival events and no quiet delivery. A host's NIC linked straight to another host
//! delivers quietly too, but its frames come from its own flows: it stays listed.

use super::Simulation;
use crate::net::{Port, Watch};

/// Whether watched port `port` must stay on the list: it holds frames in its queue or,
/// delivering quietly, on its link (a host's NIC stays: its frames do not arrive).
fn stays_listed(port: &Port) -> bool {
    port.is_host || port.holds_frames() || (port.quiet_delivery && !port.link.is_empty())
}

impl Simulation {
    /// Marks the ports a sample must look at, and lists those holding frames (at
    /// build, and when departure timing changes which ports deliver quietly).
    pub(super) fn set_watches(&mut self) {
        self.watched.clear();
        for p in 0..self.ports.len() {
            let sampled = self.sampler.samples_port(p as u32);
            let port = &mut self.ports[p];
            port.watch = match sampled || port.quiet_delivery {
                false => Watch::Unwatched,
                true if stays_listed(port) => Watch::Listed,
                true => Watch::Idle,
            };
            if port.watch == Watch::Listed {
                self.watched.push(p as u32);
            }
        }
    }

    /// Puts watched port `out`, at which a frame arrives, on the list. Out of line: it
    /// runs once per busy period, and inlined into the arrival's path the list's push
    /// measurably slowed the plain dumbbell.
    #[cold]
    #[inline(never)]
    pub(super) fn list_watched(&mut self, out: u32) {
        self.ports[out as usize].watch = Watch::Listed;
        self.watched.push(out);
    }

    /// Brings the listed departure-timed ports up to now, before a sample reads them.
    pub(super) fn catch_up_watched(&mut self) {
        for i in 0..self.watched.len() {
            let p = self.watched[i];
            if self.ports[p as usize].has_due(self.now) {
                self.catch_up_port(p, self.now);
            }
        }
    }

    /// Takes off the list the ports whose queues are empty and, delivering quietly,
    /// whose links are empty too (after a sample, or the end, delivered the quiet
    /// frames due). A queue not brought up to date only keeps its port listed longer.
    pub(super) fn unlist_idle(&mut self) {
        let mut i = 0;
        while i < self.watched.len() {
            let port = &mut self.ports[self.watched[i] as usize];
            if stays_listed(port) {
                i += 1;
            } else {
                port.watch = Watch::Idle;
                self.watched.swap_remove(i);
            }
        }
        if cfg!(debug_assertions) {
            self.check_watches();
        }
    }

    /// Debug builds: every watched port off the list holds no frame in its queue and
    /// none to deliver quietly, and the list holds each listed port once.
    fn check_watches(&self) {
        for (p, port) in self.ports.iter().enumerate() {
            let sampled = self.sampler.samples_port(p as u32);
            assert_eq!(port.watch == Watch::Unwatched, !(sampled || port.quiet_delivery), "port {p}'s watch");
            if port.watch == Watch::Idle {
                assert!(!port.holds_frames(), "port {p} holds frames off the list");
                let quiet = port.link.iter().any(|(_, pkt)| super::delivery::is_quiet(port, pkt));
                assert!(!(port.quiet_delivery && quiet), "port {p}'s link holds quiet frames off the list");
            }
        }
        let listed = self.ports.iter().filter(|p| p.watch == Watch::Listed).count();
        assert_eq!(listed, self.watched.len(), "each listed port once");
    }
}
