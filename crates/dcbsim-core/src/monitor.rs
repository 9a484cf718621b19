//! Monitors: exact time-weighted queue statistics (the periodic samples are in
//! [`crate::samples`]).

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

pub use crate::samples::Sampler;

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
