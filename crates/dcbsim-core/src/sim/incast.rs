//! The incast application: the client asks every server for one SRU, waits for all
//! of them (the barrier), then asks for the next block.
//!
//! Requests are not frames: a block's data is offered to every server's sender the
//! moment the previous block completes at the client (our choice; a request would add
//! one one-way delay, a few µs, per block).

use super::Simulation;
use crate::report::{IncastBlockReport, IncastReport};
use crate::sched::Event;
use crate::units::Time;

/// The application's state.
#[derive(Clone, Debug)]
pub(super) struct Incast {
    /// The servers' connections.
    pub conns: Vec<u32>,
    /// Segments of one SRU.
    pub segments: u32,
    /// Bytes of one SRU.
    pub sru: u64,
    /// Blocks to request (`None`: until the run ends).
    pub limit: Option<u32>,
    /// Blocks requested so far.
    pub requested: u32,
    /// Servers done with the current block.
    pub done: u32,
    /// When the current block was requested.
    pub started: Time,
    /// Timeouts of all servers when it was requested.
    pub timeouts_before: u64,
    /// Completed blocks.
    pub blocks: Vec<IncastBlockReport>,
    /// The largest delay of a server's answer (zero: all answer at once).
    pub jitter: Time,
    /// The stream the answer delays are drawn from.
    pub rng: crate::rng::Rng,
}

impl Simulation {
    fn incast_timeouts(&self) -> u64 {
        let app = self.apps.incast.as_ref().expect("an incast run");
        app.conns.iter().map(|&c| self.apps.conns[c as usize].sender.timeouts).sum()
    }

    /// The client requests the next block from every server.
    pub(super) fn incast_request(&mut self) {
        let timeouts = self.incast_timeouts();
        let app = self.apps.incast.as_mut().expect("an incast run");
        if app.limit.is_some_and(|n| app.requested >= n) {
            return;
        }
        app.requested += 1;
        app.done = 0;
        app.started = self.now;
        app.timeouts_before = timeouts;
        let jitter = app.jitter;
        for i in 0..app.conns.len() {
            if jitter == Time::ZERO {
                self.incast_answer(i as u32);
                continue;
            }
            let app = self.apps.incast.as_mut().expect("an incast run");
            let delay = Time((app.rng.uniform() * jitter.0 as f64) as u64);
            let id = self.incast_source_id() + 1 + i as u32;
            self.queue.push(self.now + delay, Event::Source { source: id, generation: 0 });
        }
    }

    /// Server `i` starts to send its SRU of the current block.
    pub(super) fn incast_answer(&mut self, i: u32) {
        let c = self.apps.incast.as_ref().expect("an incast run").conns[i as usize];
        let conn = &mut self.apps.conns[c as usize];
        conn.sender.offer(1);
        let f = conn.flow;
        self.flows[f as usize].set_window_open(conn.sender.can_send());
        self.make_ready(f);
    }

    /// A server's receiver moved from segment `before` to `after`: it may have
    /// delivered its SRU; the last one ends the block.
    pub(super) fn incast_progress(&mut self, before: u32, after: u32) {
        let app = self.apps.incast.as_mut().expect("an incast run");
        let target = app.requested * app.segments;
        if !(before < target && after >= target) {
            return;
        }
        app.done += 1;
        if app.done as usize != app.conns.len() {
            return;
        }
        let timeouts = self.incast_timeouts();
        let app = self.apps.incast.as_mut().expect("an incast run");
        let bytes = app.sru * app.conns.len() as u64;
        let block = IncastBlockReport { start: app.started, time: self.now - app.started, bytes, timeouts: timeouts - app.timeouts_before };
        app.blocks.push(block);
        let id = self.incast_source_id();
        self.queue.push(self.now, Event::Source { source: id, generation: 0 });
    }

    /// What the application achieved.
    pub(super) fn incast_report(&self) -> Option<IncastReport> {
        let app = self.apps.incast.as_ref()?;
        Some(IncastReport { servers: app.conns.len() as u32, sru_bytes: app.sru, blocks: app.blocks.clone() })
    }
}
