//! Dynamic sources that feed one flow's backlog: ON-OFF bursts and transfers arriving
//! as a Poisson process.
//!
//! A source adds bytes to its flow's backlog and remembers where each burst or
//! transfer ends in the flow's count of sent bytes. The engine compares that count with
//! [`Source::mark`] after each frame (one comparison) and calls [`Source::on_sent`]
//! when it passes. Memory grows per transfer, never per frame.

use crate::config::{FlowKind, FlowSpec, OffTime};
use crate::dist::{SizeDist, TimeDist};
use crate::report::SourceReport;
use crate::rng::Rng;
use crate::units::{Bytes, Rate, Time};
use std::collections::VecDeque;

/// No pending transfer: the mark that sent bytes never reach.
pub const NO_MARK: u64 = u64::MAX;

/// What a source does.
#[derive(Clone, Debug)]
enum Pattern {
    /// A burst of `burst` bytes, then an OFF period drawn from `off`.
    OnOff { burst: u64, off: TimeDist },
    /// Transfers arriving with exponential gaps of mean `mean_gap_s`, sizes from `size`.
    Poisson { mean_gap_s: f64, size: SizeDist },
}

/// A burst or transfer not yet fully handed to the NIC.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// The flow's sent-byte count once its last byte is sent.
    end: u64,
    /// Its size.
    bytes: u64,
    /// When it joined the backlog.
    arrived: Time,
}

/// The mean OFF period of an ON-OFF source: `burst·8/load − burst·8/line_rate`, so
/// that a source sending its bursts at line rate offers `load` on average.
pub fn off_mean(burst: u64, load: Rate, line_rate: Rate) -> Time {
    load.transmit_time(Bytes(burst)).saturating_sub(line_rate.transmit_time(Bytes(burst)))
}

/// The state of one dynamic source.
#[derive(Clone, Debug)]
pub struct Source {
    /// The flow it feeds.
    pub flow: u32,
    /// Generation of its valid pending event; stopping the flow makes older ones stale.
    pub generation: u32,
    pattern: Pattern,
    rng: Rng,
    pending: VecDeque<Pending>,
    offered_bytes: u64,
    arrived: u64,
    completed: u64,
    /// Per completed Poisson transfer: time from its arrival until its last byte left
    /// the NIC, and its size.
    completions: Vec<(Time, u64)>,
}

impl Source {
    /// The source of flow `flow` when its kind has one; `line_rate` is its host's NIC
    /// rate and `rng` its own stream.
    pub fn new(spec: &FlowSpec, flow: u32, line_rate: Rate, rng: Rng) -> Option<Source> {
        let pattern = match &spec.kind {
            FlowKind::OnOff { burst, load, off } => {
                let mean = off_mean(*burst, *load, line_rate);
                let off = match off {
                    OffTime::Exponential => TimeDist::Exponential { mean },
                    OffTime::Fixed => TimeDist::Fixed(mean),
                };
                Pattern::OnOff { burst: *burst, off }
            }
            FlowKind::Poisson { rate_per_s, size } => Pattern::Poisson { mean_gap_s: 1.0 / rate_per_s, size: size.clone() },
            _ => return None,
        };
        Some(Source {
            flow,
            generation: 0,
            pattern,
            rng,
            pending: VecDeque::new(),
            offered_bytes: 0,
            arrived: 0,
            completed: 0,
            completions: Vec::new(),
        })
    }

    /// Whether it is an ON-OFF source (else Poisson-fed).
    pub fn is_on_off(&self) -> bool {
        matches!(self.pattern, Pattern::OnOff { .. })
    }

    /// Adds a burst or an arriving transfer at `now` to a backlog whose last byte is
    /// the flow's `backlog_end`-th; returns its size in bytes.
    pub fn produce(&mut self, now: Time, backlog_end: u64) -> u64 {
        let drawn = match &self.pattern {
            Pattern::OnOff { burst, .. } => *burst,
            Pattern::Poisson { size, .. } => size.sample(&mut self.rng),
        };
        // Keep every count below NO_MARK (and the backlog below "unlimited").
        let bytes = drawn.min(NO_MARK - 1 - backlog_end.min(NO_MARK - 1));
        self.pending.push_back(Pending { end: backlog_end + bytes, bytes, arrived: now });
        self.offered_bytes = self.offered_bytes.saturating_add(bytes);
        self.arrived += 1;
        bytes
    }

    /// The next OFF period (ON-OFF) or gap to the next arrival (Poisson).
    pub fn next_gap(&mut self) -> Time {
        match &self.pattern {
            Pattern::OnOff { off, .. } => off.sample(&mut self.rng),
            Pattern::Poisson { mean_gap_s, .. } => Time::from_secs_f64(self.rng.exponential(*mean_gap_s)),
        }
    }

    /// The flow's sent-byte count at which the oldest pending burst or transfer is
    /// fully sent ([`NO_MARK`] when none is pending).
    pub fn mark(&self) -> u64 {
        self.pending.front().map_or(NO_MARK, |p| p.end)
    }

    /// The flow has sent `sent` bytes, the last of them leaving the NIC at `left`:
    /// completes every burst or transfer that ended, and returns the new mark.
    pub fn on_sent(&mut self, sent: u64, left: Time) -> u64 {
        while let Some(p) = self.pending.front().copied().filter(|p| p.end <= sent) {
            self.pending.pop_front();
            self.completed += 1;
            if !self.is_on_off() {
                self.completions.push((left.saturating_sub(p.arrived), p.bytes));
            }
        }
        self.mark()
    }

    /// What the source did.
    pub fn report(&self) -> SourceReport {
        SourceReport {
            offered_bytes: self.offered_bytes,
            transfers: self.arrived,
            transfers_completed: self.completed,
            completion_s: self.completions.iter().map(|(t, _)| t.as_secs_f64()).collect(),
            completed_bytes: self.completions.iter().map(|&(_, b)| b).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FlowSpec;

    fn spec(kind: FlowKind) -> FlowSpec {
        FlowSpec {
            name: "f".into(),
            src: 0,
            dst: 1,
            kind,
            rate: None,
            max_rate: None,
            frame_bytes: 1500,
            jitter: 0.0,
            priority: 0,
            start: Time::ZERO,
            stop: None,
        }
    }

    #[test]
    fn off_mean_meets_the_load_at_line_rate() {
        // 10 KB at 10 Gb/s takes 8.192 us; at 5 Gb/s average the cycle is 16.384 us.
        assert_eq!(off_mean(10_240, Rate::from_gbps(5), Rate::from_gbps(10)), Time::from_ns(8192));
    }

    #[test]
    fn a_burst_completes_when_its_last_byte_is_sent() {
        let kind = FlowKind::OnOff { burst: 10_240, load: Rate::from_gbps(5), off: OffTime::Fixed };
        let mut s = Source::new(&spec(kind), 0, Rate::from_gbps(10), Rng::stream(1, "s")).unwrap();
        assert_eq!(s.mark(), NO_MARK);
        assert_eq!(s.produce(Time::ZERO, 0), 10_240);
        assert_eq!(s.mark(), 10_240);
        assert_eq!(s.on_sent(9_000, Time::ZERO), 10_240);
        assert_eq!(s.on_sent(10_240, Time::ZERO), NO_MARK);
        assert_eq!(s.next_gap(), Time::from_ns(8192));
        let r = s.report();
        assert_eq!((r.offered_bytes, r.transfers, r.transfers_completed), (10_240, 1, 1));
        assert!(r.completion_s.is_empty());
    }

    #[test]
    fn transfers_complete_in_order_with_their_times() {
        let kind = FlowKind::Poisson { rate_per_s: 1000.0, size: SizeDist::Fixed(3000) };
        let mut s = Source::new(&spec(kind), 0, Rate::from_gbps(10), Rng::stream(1, "s")).unwrap();
        s.produce(Time::from_us(1), 0);
        s.produce(Time::from_us(2), 3000);
        assert_eq!(s.on_sent(6000, Time::from_us(10)), NO_MARK);
        let r = s.report();
        assert_eq!(r.transfers_completed, 2);
        assert_eq!(r.completion_s, vec![9e-6, 8e-6]);
        assert_eq!(r.completed_bytes, vec![3000, 3000]);
    }

    #[test]
    fn the_backlog_never_reaches_the_unlimited_sentinel() {
        let kind = FlowKind::Poisson { rate_per_s: 1.0, size: SizeDist::Fixed(u64::MAX) };
        let mut s = Source::new(&spec(kind), 0, Rate::from_gbps(10), Rng::stream(1, "s")).unwrap();
        let bytes = s.produce(Time::ZERO, 5);
        assert_eq!(bytes + 5, NO_MARK - 1);
        assert_eq!(s.produce(Time::ZERO, NO_MARK - 1), 0);
    }
}
