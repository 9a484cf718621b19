//! Dynamic sources that feed one flow's backlog: ON-OFF bursts and transfers arriving
//! as a Poisson process.
//!
//! The flow's backlog (`remaining`) holds the burst or transfer being sent; the
//! transfers that arrive meanwhile wait here, in order. Transfers are sent one after
//! another, each in its own frames (a frame never mixes two, as with separate
//! connections). When the flow's backlog empties, the engine calls
//! [`Source::complete`], which hands over the next one. Memory grows per transfer,
//! never per frame.

use crate::config::{FlowKind, FlowSpec, OffTime};
use crate::dist::{SizeDist, TimeDist};
use crate::report::SourceReport;
use crate::rng::Rng;
use crate::units::{Bytes, Rate, Time};
use std::collections::VecDeque;

/// What a source does.
#[derive(Clone, Debug)]
enum Pattern {
    /// A burst of `burst` bytes every `on + off`: `on` is the burst's time at line
    /// rate, `off` a draw.
    OnOff { burst: u64, on: Time, off: TimeDist },
    /// Transfers arriving with exponential gaps of mean `mean_gap_s`, sizes from `size`.
    Poisson { mean_gap_s: f64, size: SizeDist },
}

/// A burst or transfer.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    /// Its size.
    bytes: u64,
    /// When it joined the source.
    arrived: Time,
}

/// The mean OFF period of an ON-OFF source: `burst·8/load − burst·8/line_rate`, so
/// that bursts starting every ON (at line rate) plus OFF offer `load` on average.
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
    /// The burst or transfer in the flow's backlog, if any.
    current: Option<Transfer>,
    /// Transfers waiting behind it.
    waiting: VecDeque<Transfer>,
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
                Pattern::OnOff { burst: *burst, on: line_rate.transmit_time(Bytes(*burst)), off }
            }
            FlowKind::Poisson { rate_per_s, size } => Pattern::Poisson { mean_gap_s: 1.0 / rate_per_s, size: size.clone() },
            _ => return None,
        };
        Some(Source {
            flow,
            generation: 0,
            pattern,
            rng,
            current: None,
            waiting: VecDeque::new(),
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

    /// Whether a burst or transfer is in the flow's backlog.
    pub fn is_sending(&self) -> bool {
        self.current.is_some()
    }

    /// A burst starts or a transfer arrives at `now`. Returns the bytes to put in the
    /// flow's backlog now: its size when nothing was being sent, else zero (it waits).
    pub fn produce(&mut self, now: Time) -> u64 {
        let drawn = match &self.pattern {
            Pattern::OnOff { burst, .. } => *burst,
            Pattern::Poisson { size, .. } => size.sample(&mut self.rng),
        };
        // A backlog of u64::MAX would read as "unlimited".
        let transfer = Transfer { bytes: drawn.clamp(1, u64::MAX - 1), arrived: now };
        self.offered_bytes = self.offered_bytes.saturating_add(transfer.bytes);
        self.arrived += 1;
        if self.current.is_some() {
            self.waiting.push_back(transfer);
            return 0;
        }
        self.current = Some(transfer);
        transfer.bytes
    }

    /// The flow's backlog has emptied, its last byte leaving the NIC at `left`: the
    /// current burst or transfer completes. Returns the size of the next one to put in
    /// the backlog (zero when none waits).
    pub fn complete(&mut self, left: Time) -> u64 {
        if let Some(done) = self.current.take() {
            self.completed += 1;
            if !self.is_on_off() {
                self.completions.push((left.saturating_sub(done.arrived), done.bytes));
            }
        }
        self.current = self.waiting.pop_front();
        self.current.map_or(0, |t| t.bytes)
    }

    /// The time from this burst's start to the next one's (ON at line rate plus an OFF
    /// period), or the gap to the next arrival (Poisson).
    pub fn next_gap(&mut self) -> Time {
        match &self.pattern {
            Pattern::OnOff { on, off, .. } => *on + off.sample(&mut self.rng),
            Pattern::Poisson { mean_gap_s, .. } => Time::from_secs_f64(self.rng.exponential(*mean_gap_s)),
        }
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
        FlowSpec { frame_bytes: 1500, ..FlowSpec::new("f", 0, 1, kind) }
    }

    #[test]
    fn off_mean_meets_the_load_at_line_rate() {
        // 10 KB at 10 Gb/s takes 8.192 us; at 5 Gb/s average the cycle is 16.384 us.
        assert_eq!(off_mean(10_240, Rate::from_gbps(5), Rate::from_gbps(10)), Time::from_ns(8192));
    }

    #[test]
    fn a_burst_completes_and_the_next_one_is_a_cycle_away() {
        let kind = FlowKind::OnOff { burst: 10_240, load: Rate::from_gbps(5), off: OffTime::Fixed };
        let mut s = Source::new(&spec(kind), 0, Rate::from_gbps(10), Rng::stream(1, "s")).unwrap();
        assert!(!s.is_sending());
        assert_eq!(s.produce(Time::ZERO), 10_240);
        assert!(s.is_sending());
        assert_eq!(s.complete(Time::ZERO), 0);
        assert!(!s.is_sending());
        assert_eq!(s.next_gap(), Time::from_ns(16_384));
        let r = s.report();
        assert_eq!((r.offered_bytes, r.transfers, r.transfers_completed), (10_240, 1, 1));
        assert!(r.completion_s.is_empty());
    }

    #[test]
    fn transfers_wait_their_turn_and_record_their_times() {
        let kind = FlowKind::Poisson { rate_per_s: 1000.0, size: SizeDist::Fixed(3000) };
        let mut s = Source::new(&spec(kind), 0, Rate::from_gbps(10), Rng::stream(1, "s")).unwrap();
        assert_eq!(s.produce(Time::from_us(1)), 3000);
        assert_eq!(s.produce(Time::from_us(2)), 0);
        assert_eq!(s.complete(Time::from_us(5)), 3000);
        assert_eq!(s.complete(Time::from_us(10)), 0);
        let r = s.report();
        assert_eq!((r.transfers, r.transfers_completed, r.offered_bytes), (2, 2, 6000));
        assert_eq!(r.completion_s, vec![4e-6, 8e-6]);
        assert_eq!(r.completed_bytes, vec![3000, 3000]);
    }

    #[test]
    fn a_transfer_never_reads_as_an_unlimited_backlog() {
        let kind = FlowKind::Poisson { rate_per_s: 1.0, size: SizeDist::Fixed(u64::MAX) };
        let mut s = Source::new(&spec(kind), 0, Rate::from_gbps(10), Rng::stream(1, "s")).unwrap();
        assert_eq!(s.produce(Time::ZERO), u64::MAX - 1);
    }
}
