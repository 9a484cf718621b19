//! Monitors: exact time-weighted queue statistics and periodic samples.

use crate::report::QueueStats;
use crate::units::Time;

/// Exact time-weighted statistics of a queue length, updated at every change.
///
/// The integrals are kept in integers (byte·picoseconds), so the mean is exact.
#[derive(Clone, Debug, Default)]
pub struct QueueMonitor {
    last_change: Time,
    area: u128,
    area_sq: u128,
    empty: u64,
    max: u64,
    busy: u64,
}

impl QueueMonitor {
    /// Accounts for the time since the last change, during which the queue was `bytes`.
    /// Call it just before the queue changes.
    #[inline]
    pub fn advance(&mut self, now: Time, bytes: u64) {
        let dt = now.0 - self.last_change.0;
        if dt != 0 {
            let q = bytes as u128;
            self.area += q * dt as u128;
            self.area_sq += q * q * dt as u128;
            if bytes == 0 {
                self.empty += dt;
            }
            self.last_change = now;
        }
    }

    /// Records a new maximum candidate.
    #[inline]
    pub fn observe_max(&mut self, bytes: u64) {
        if bytes > self.max {
            self.max = bytes;
        }
    }

    /// Adds transmitter busy time (for utilization).
    #[inline]
    pub fn add_busy(&mut self, dt: Time) {
        self.busy = self.busy.saturating_add(dt.0);
    }

    /// The statistics over [0, `end`], the queue being `bytes` since the last change.
    ///
    /// Busy time past `end` (a frame still being serialized) is not counted.
    pub fn stats(&self, end: Time, bytes: u64, busy_past_end: Time) -> QueueStats {
        let mut m = self.clone();
        m.advance(end, bytes);
        let total = end.0 as f64;
        if total == 0.0 {
            return QueueStats::default();
        }
        let mean = m.area as f64 / total;
        let var = (m.area_sq as f64 / total - mean * mean).max(0.0);
        QueueStats {
            mean_bytes: mean,
            std_bytes: var.sqrt(),
            p_empty: m.empty as f64 / total,
            max_bytes: m.max,
            utilization: (m.busy.saturating_sub(busy_past_end.0)) as f64 / total,
        }
    }
}

/// One flow's figures at one sample, kept together so that a sample touches one place
/// per flow (four separate series cost four cache misses per flow at thousands of
/// flows).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowSample {
    /// Rate of its reaction point (or its sending rate), bits/s.
    pub rate: f64,
    /// Delivered throughput over the interval, bits/s.
    pub throughput: f64,
    /// Sending throughput over the interval, bits/s.
    pub send: f64,
    /// Weighted max-min fair share, mean over the interval, bits/s.
    pub fair: f64,
}

/// Samples gathered in the staging rows before they go to the flows' series.
const CHUNK: usize = 16;

/// Periodic samples: queue lengths of monitored ports, and per flow the rate, the
/// throughput and the fair share over each interval.
///
/// A sample writes the flows' figures into one contiguous staging row; every [`CHUNK`]
/// samples the rows go to the flows' series, each flow's in one run. (Writing each
/// flow's series at every sample cost a cache miss per flow per sample at thousands of
/// flows.)
#[derive(Clone, Debug, Default)]
pub struct Sampler {
    /// Sampling period.
    pub interval: Time,
    /// Sample times so far.
    pub times: Vec<Time>,
    /// Monitored ports and their queue samples.
    pub ports: Vec<(u32, Vec<u64>)>,
    /// Per flow: its figures at each sample (but those still staged).
    flows: Vec<Vec<FlowSample>>,
    /// The last samples' rows, flow `f` of the `s`-th staged sample at `s · flows + f`.
    staged: Vec<FlowSample>,
    /// Per flow over a transport: congestion window at each sample, segments.
    pub cwnd: Vec<Vec<f64>>,
    /// Per DCTCP flow: α at each sample.
    pub alpha: Vec<Vec<f64>>,
    last_delivered: Vec<u64>,
    last_sent: Vec<u64>,
}

impl Sampler {
    /// A sampler for the given ports and number of flows, expecting `samples` samples.
    pub fn new(interval: Time, ports: Vec<u32>, flows: usize, samples: usize) -> Sampler {
        Sampler {
            interval,
            times: Vec::with_capacity(samples),
            ports: ports.into_iter().map(|p| (p, Vec::with_capacity(samples))).collect(),
            flows: (0..flows).map(|_| Vec::with_capacity(samples)).collect(),
            staged: Vec::with_capacity(CHUNK.min(samples) * flows),
            cwnd: vec![Vec::new(); flows],
            alpha: vec![Vec::new(); flows],
            last_delivered: vec![0; flows],
            last_sent: vec![0; flows],
        }
    }

    /// Records one flow's state at the current sample, with its mean fair share over
    /// the interval. Each sample records every flow, in order.
    #[inline]
    pub fn record_flow(&mut self, flow: usize, rate: f64, delivered: u64, sent: u64, fair: f64) {
        let per_second = 8.0 / self.interval.as_secs_f64();
        let throughput = (delivered - self.last_delivered[flow]) as f64 * per_second;
        let send = (sent - self.last_sent[flow]) as f64 * per_second;
        debug_assert_eq!(self.staged.len() % self.flows.len(), flow);
        self.staged.push(FlowSample { rate, throughput, send, fair });
        self.last_delivered[flow] = delivered;
        self.last_sent[flow] = sent;
        if flow + 1 == self.flows.len() && self.staged.len() >= CHUNK * self.flows.len() {
            self.flush();
        }
    }

    /// Moves the staged rows to the flows' series. Flow by flow in order, the rows'
    /// part for 64 flows (16 rows of 2 KB) stays cached while those flows read it.
    #[inline(never)]
    fn flush(&mut self) {
        let n = self.flows.len();
        for (f, series) in self.flows.iter_mut().enumerate() {
            series.extend(self.staged[f..].iter().step_by(n).copied());
        }
        self.staged.clear();
    }

    /// Hands over flow `flow`'s series (rate, throughput, send, fair share), freeing
    /// its samples.
    pub fn take_flow(&mut self, flow: usize) -> [Vec<f64>; 4] {
        if !self.staged.is_empty() {
            self.flush();
        }
        let samples = std::mem::take(&mut self.flows[flow]);
        let series = |f: fn(&FlowSample) -> f64| samples.iter().map(f).collect::<Vec<f64>>();
        [series(|s| s.rate), series(|s| s.throughput), series(|s| s.send), series(|s| s.fair)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_std_and_empty_fraction_are_exact() {
        let mut m = QueueMonitor::default();
        // 0 bytes for 10 ps, then 100 bytes for 30 ps.
        m.advance(Time(10), 0);
        m.observe_max(100);
        let s = m.stats(Time(40), 100, Time::ZERO);
        assert_eq!(s.mean_bytes, 75.0);
        assert_eq!(s.p_empty, 0.25);
        // E[q^2] = 7500, var = 7500 - 5625 = 1875.
        assert!((s.std_bytes - 1875f64.sqrt()).abs() < 1e-9);
        assert_eq!(s.max_bytes, 100);
    }

    #[test]
    fn utilization_excludes_time_past_the_end() {
        let mut m = QueueMonitor::default();
        m.add_busy(Time(60));
        let s = m.stats(Time(100), 0, Time(10));
        assert_eq!(s.utilization, 0.5);
    }
}
