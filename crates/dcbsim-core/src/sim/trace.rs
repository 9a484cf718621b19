//! Packet traces of chosen ports (see [`crate::trace`]).

use super::Simulation;
use super::notification_point::CNP_CPID;
use crate::packet::{Packet, PacketKind};
use crate::trace::{FrameInfo, FrameSink, PortTrace, frame};
use crate::traffic::NO_CONN;
use crate::units::Time;
use std::io;

/// [`Simulation::trace_of`] of a port without a trace.
const NO_TRACE: u32 = u32::MAX;

impl Simulation {
    /// The names of the ports (`node:peer`), by index.
    pub fn port_names(&self) -> &[String] {
        &self.port_names
    }

    /// The index of the port called `name` (`node:peer`), if there is one.
    pub fn port_index(&self, name: &str) -> Option<u32> {
        self.port_names.iter().position(|n| n == name).map(|p| p as u32)
    }

    /// Gives every frame that port `port` starts to send from now on to `sink`.
    /// Fails if the port does not exist or is traced already.
    pub fn trace_port(&mut self, port: u32, sink: Box<dyn FrameSink>) -> io::Result<()> {
        let invalid = |msg: &str| io::Error::new(io::ErrorKind::InvalidInput, msg.to_string());
        if port as usize >= self.ports.len() {
            return Err(invalid("no such port"));
        }
        if self.tracing.trace_of.get(port as usize).is_some_and(|&t| t != NO_TRACE) {
            return Err(invalid("the port is traced already"));
        }
        self.adopt_trace(PortTrace { port, sink, scratch: Vec::with_capacity(128), frames: 0, error: None });
        Ok(())
    }

    /// Takes on `trace`, of a port not traced here yet.
    pub(super) fn adopt_trace(&mut self, trace: PortTrace) {
        if self.tracing.trace_of.is_empty() {
            self.tracing.trace_of = vec![NO_TRACE; self.ports.len()];
        }
        self.tracing.trace_of[trace.port as usize] = self.tracing.traces.len() as u32;
        self.tracing.traces.push(trace);
        self.tracing.traced = true;
    }

    /// Hands over every trace, and traces no port any more (no host sends early
    /// still: the run traces, elsewhere).
    pub(super) fn take_traces(&mut self) -> Vec<PortTrace> {
        self.tracing.trace_of.clear();
        std::mem::take(&mut self.tracing.traces)
    }

    /// Whether the run traces a port.
    pub(super) fn traced(&self) -> bool {
        self.tracing.traced
    }

    /// Sends no frame early, as a run that traces (a part of a split run whose
    /// traces are all in other parts).
    pub(super) fn as_traced(&mut self) {
        self.tracing.traced = true;
    }

    /// Ends every trace: finishes and drops each sink. Returns the frames recorded
    /// per traced port, or the first error of any sink.
    pub fn finish_traces(&mut self) -> io::Result<Vec<(u32, u64)>> {
        self.catch_up_ports();
        let mut counts = Vec::with_capacity(self.tracing.traces.len());
        let mut failure = None;
        self.tracing.trace_of.clear();
        for mut trace in std::mem::take(&mut self.tracing.traces) {
            counts.push((trace.port, trace.frames));
            let done = match trace.error {
                Some(e) => Err(e),
                None => trace.sink.finish(),
            };
            if let Err(e) = done {
                failure.get_or_insert(e);
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(counts),
        }
    }

    /// Records `pkt`, which port `out` starts to send at `at`, if the port is traced.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_frame(&mut self, out: u32, pkt: Packet, at: Time) {
        let index = self.tracing.trace_of[out as usize];
        if index == NO_TRACE {
            return;
        }
        let info = self.frame_info(out, &pkt);
        let now = at;
        let trace = &mut self.tracing.traces[index as usize];
        if trace.error.is_some() {
            return;
        }
        frame::encode(&mut trace.scratch, &pkt, &info, pkt.bytes);
        match trace.sink.frame(now, &trace.scratch, pkt.bytes) {
            Ok(()) => trace.frames += 1,
            Err(e) => trace.error = Some(e),
        }
    }

    /// Brings departure-timed port `out` up to `now`, recording each frame it
    /// starts if the port is traced.
    #[cold]
    #[inline(never)]
    pub(super) fn catch_up_traced(&mut self, out: u32, now: Time) {
        if self.tracing.trace_of[out as usize] == NO_TRACE {
            self.ports[out as usize].catch_up(now);
            return;
        }
        while let Some((at, pkt)) = self.ports[out as usize].next_due(now) {
            self.trace_frame(out, pkt, at);
            self.ports[out as usize].start_next();
        }
    }

    /// The nodes and flow facts the layout of `pkt` needs.
    fn frame_info(&self, out: u32, pkt: &Packet) -> FrameInfo {
        let sender = self.ports[out as usize].node;
        if let PacketKind::Pause { .. } = pkt.kind {
            return FrameInfo { sender, ..FrameInfo::default() };
        }
        let f = &self.flows[pkt.flow as usize];
        let cp_node = match pkt.kind {
            PacketKind::Notification { cpid, .. } if cpid != CNP_CPID => self.ports[cpid as usize].node,
            _ => sender,
        };
        FrameInfo {
            sender,
            src: f.src,
            dst: f.dst,
            priority: f.priority,
            frame_bytes: f.frame_bytes,
            cn_tag: f.rp.cn_tag(),
            tcp: f.conn != NO_CONN && !f.acked(),
            roce: (f.ecn_capable && f.conn == NO_CONN) || f.acked(),
            cp_node,
        }
    }
}
