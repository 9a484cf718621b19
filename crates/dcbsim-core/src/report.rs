//! What a finished run hands back: time series and counters, per port and per flow.

use crate::units::Time;

/// Exact time-weighted statistics of one port's queue over the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueStats {
    /// Time-weighted mean queue, bytes.
    pub mean_bytes: f64,
    /// Time-weighted standard deviation of the queue, bytes.
    pub std_bytes: f64,
    /// Fraction of time the queue held no frame.
    pub p_empty: f64,
    /// Largest queue seen, bytes.
    pub max_bytes: u64,
    /// Fraction of time the port was transmitting.
    pub utilization: f64,
}

/// Everything recorded at one egress port.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortReport {
    /// `node:peer`.
    pub name: String,
    /// Capacity at the end of the run, bits/s.
    pub capacity_bps: u64,
    /// Buffer, bytes.
    pub buffer_bytes: u64,
    /// Queue length at each sample time, bytes (empty when the port is not monitored).
    pub queue_bytes: Vec<u64>,
    /// Exact statistics over the whole run.
    pub stats: QueueStats,
    /// Frames and bytes that left the port.
    pub tx_frames: u64,
    /// Bytes that left the port.
    pub tx_bytes: u64,
    /// Frames dropped on a full buffer.
    pub dropped_frames: u64,
    /// Bytes dropped on a full buffer.
    pub dropped_bytes: u64,
    /// Notifications its congestion point asked for.
    pub notifications: u64,
    /// Frames still queued at the end.
    pub queued_frames: u64,
}

/// Everything recorded for one flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowReport {
    /// The flow's name.
    pub name: String,
    /// Source host name.
    pub src: String,
    /// Destination host name.
    pub dst: String,
    /// Frames put on the wire by the source.
    pub sent_frames: u64,
    /// Bytes put on the wire by the source.
    pub sent_bytes: u64,
    /// Frames that reached the destination.
    pub delivered_frames: u64,
    /// Bytes that reached the destination.
    pub delivered_bytes: u64,
    /// Frames dropped anywhere.
    pub dropped_frames: u64,
    /// Bytes dropped anywhere.
    pub dropped_bytes: u64,
    /// Frames still in a queue or on a link at the end.
    pub in_network_frames: u64,
    /// Notifications its reaction point received.
    pub notifications: u64,
    /// Completion time of a finite flow (last byte delivered minus start).
    pub completion_time: Option<Time>,
    /// Reaction-point rate at each sample time, bits/s.
    pub rate_bps: Vec<f64>,
    /// Delivered throughput over each sample interval, bits/s.
    pub throughput_bps: Vec<f64>,
    /// Sending throughput over each sample interval, bits/s.
    pub send_bps: Vec<f64>,
}

/// The outcome of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReport {
    /// Sample times; each interval series value covers the interval ending there.
    pub sample_times: Vec<Time>,
    /// Every switch egress port (queues sampled only where monitored).
    pub ports: Vec<PortReport>,
    /// Every flow.
    pub flows: Vec<FlowReport>,
    /// Simulated time reached.
    pub simulated: Time,
    /// Events executed.
    pub events: u64,
    /// Wall-clock seconds spent in the event loop.
    pub wall_seconds: f64,
}

impl RunReport {
    /// Simulated seconds per wall-clock second.
    pub fn speed(&self) -> f64 {
        if self.wall_seconds > 0.0 { self.simulated.as_secs_f64() / self.wall_seconds } else { 0.0 }
    }
    /// Total frames sent by all flows.
    pub fn sent_frames(&self) -> u64 {
        self.flows.iter().map(|f| f.sent_frames).sum()
    }
    /// Total frames delivered.
    pub fn delivered_frames(&self) -> u64 {
        self.flows.iter().map(|f| f.delivered_frames).sum()
    }
    /// Total frames dropped.
    pub fn dropped_frames(&self) -> u64 {
        self.flows.iter().map(|f| f.dropped_frames).sum()
    }

    /// Convergence to fairness of the given flows (all flows when empty): the first
    /// sample time from which `min rate / max rate ≥ epsilon` holds at every later
    /// sample, using the reaction points' rates. `None` if it does not hold at the end.
    pub fn convergence_time(&self, flows: &[usize], epsilon: f64) -> Option<Time> {
        let chosen: Vec<&FlowReport> = if flows.is_empty() {
            self.flows.iter().collect()
        } else {
            flows.iter().filter_map(|&i| self.flows.get(i)).collect()
        };
        convergence_time(&self.sample_times, &chosen, epsilon)
    }
}

/// See [`RunReport::convergence_time`].
fn convergence_time(times: &[Time], flows: &[&FlowReport], epsilon: f64) -> Option<Time> {
    if flows.is_empty() || times.is_empty() {
        return None;
    }
    let fair = |i: usize| {
        let rates = flows.iter().map(|f| f.rate_bps[i]);
        let (lo, hi) = rates.fold((f64::INFINITY, 0.0f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
        hi > 0.0 && lo / hi >= epsilon
    };
    let mut since = None;
    for i in 0..times.len() {
        if fair(i) {
            since.get_or_insert(times[i]);
        } else {
            since = None;
        }
    }
    since
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(rates: &[f64]) -> FlowReport {
        FlowReport { rate_bps: rates.to_vec(), ..FlowReport::default() }
    }

    #[test]
    fn convergence_is_the_start_of_the_last_fair_stretch() {
        let report = RunReport {
            sample_times: (1..=5).map(Time::from_ms).collect(),
            flows: vec![flow(&[9.0, 6.0, 8.0, 5.0, 5.0]), flow(&[1.0, 5.5, 2.0, 4.6, 4.9])],
            ..RunReport::default()
        };
        assert_eq!(report.convergence_time(&[], 0.9), Some(Time::from_ms(4)));
        assert_eq!(report.convergence_time(&[], 0.99), None);
        assert_eq!(report.convergence_time(&[0], 0.9), Some(Time::from_ms(1)));
    }
}
