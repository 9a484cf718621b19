//! Which ports run departure-timed (see `net/timed.rs`), and leaving that mode.

use super::Simulation;
use crate::sched::Event;
use crate::traffic::NO_CONN;
use crate::units::Time;

impl Simulation {
    /// Turns departure timing on (the default) or off at every port that can use
    /// it, and with it early sending (see `early.rs`). Either way the results are those of a queue served frame by frame; only
    /// the order of events at equal times may differ. Call before running.
    pub fn set_departure_timing(&mut self, on: bool) {
        // Only an endless flow without a transport sends quiet frames (`sending.rs`);
        // where no flow does, every frame has its arrival event anyway, and a link
        // into a host delivers as any other. (Flows that arrive later are finite.)
        let quiet = on && self.flows.iter().any(|f| f.conn == NO_CONN && !f.is_finite());
        for p in 0..self.ports.len() {
            if !on {
                self.untime_port(p as u32);
            }
            let faces_host = self.hosts[self.ports[p].peer as usize].is_some();
            let port = &mut self.ports[p];
            if on {
                port.timed = port.can_be_timed();
            }
            // A link with frames on it keeps its delivery rule: its events follow it.
            if port.link.is_empty() {
                port.quiet_delivery = quiet && faces_host;
            }
        }
        self.set_watches();
        self.set_early_sending(on);
    }

    /// Serves port `p` frame by frame from now on (its rate changes); the frames that have not started go back to its queue.
    pub(super) fn untime_port(&mut self, p: u32) {
        // A traced port records the frames started before now first (the port's own
        // catch-up would start them unrecorded).
        self.catch_up_port(p, self.now);
        let port = &mut self.ports[p as usize];
        if !(port.timed && port.untime(self.now)) {
            return;
        }
        if !port.free_pending {
            port.free_pending = true;
            let at = port.busy_until.max(self.now);
            self.queue.push(at, Event::PortFree { port: p });
        }
        if self.ports[p as usize].quiet_delivery {
            self.recount_loud(p);
        }
    }

    /// Brings departure-timed port `out` up to `now` (frames due before it start).
    #[inline(always)]
    pub(super) fn catch_up_port(&mut self, out: u32, now: Time) {
        if self.tracing.traces.is_empty() {
            self.ports[out as usize].catch_up(now);
        } else {
            self.catch_up_traced(out, now);
        }
    }

    /// Brings every departure-timed port up to now, and delivers the quiet frames
    /// due before now (the end of the run).
    pub(super) fn catch_up_ports(&mut self) {
        self.deliver_quiet(self.now);
        for p in 0..self.ports.len() as u32 {
            if self.ports[p as usize].timed {
                self.catch_up_port(p, self.now);
            }
        }
    }
}
