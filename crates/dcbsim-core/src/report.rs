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
    /// The flow's weight.
    pub weight: f64,
    /// The flow's 802.1p priority.
    pub priority: u8,
    /// Its weighted max-min fair share at each sample time, bits/s, from the ports'
    /// capacities and the flows' demands then (flows made by `[[arrivals]]` not
    /// counted).
    pub fair_share_bps: Vec<f64>,
    /// The demand a fair-share calculation should use, bits/s (see
    /// [`crate::config::FlowSpec::offered_bps`]); `None` for an unbounded greedy flow.
    pub offered_bps: Option<f64>,
    /// What its ON-OFF or Poisson source offered; `None` for other kinds.
    pub source: Option<SourceReport>,
}

/// What the dynamic source of an ON-OFF or Poisson-fed flow offered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceReport {
    /// Bytes added to the flow's backlog.
    pub offered_bytes: u64,
    /// Transfers that arrived (for ON-OFF, bursts that started).
    pub transfers: u64,
    /// Transfers (bursts) whose last byte was handed to the NIC.
    pub transfers_completed: u64,
    /// Poisson-fed flows: per completed transfer, seconds from its arrival until its
    /// last byte left the source's NIC (not its delivery). Empty for ON-OFF.
    pub completion_s: Vec<f64>,
    /// Size of each completed transfer, bytes (same order).
    pub completed_bytes: Vec<u64>,
}

/// What the flows of one arrival source did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArrivalReport {
    /// The source's name.
    pub name: String,
    /// Flows that arrived.
    pub flows: u64,
    /// Frames they sent.
    pub sent_frames: u64,
    /// Frames delivered.
    pub delivered_frames: u64,
    /// Bytes delivered.
    pub delivered_bytes: u64,
    /// Frames dropped.
    pub dropped_frames: u64,
    /// Frames still in a queue or on a link at the end.
    pub in_network_frames: u64,
    /// Completion time of each completed flow, seconds.
    pub completion_s: Vec<f64>,
    /// Size of each completed flow, bytes (same order).
    pub completed_bytes: Vec<u64>,
}

/// What the flows of one 802.1p priority did, arrival flows included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassReport {
    /// The 802.1p priority.
    pub priority: u8,
    /// Flows of this priority.
    pub flows: u64,
    /// Frames sent.
    pub sent_frames: u64,
    /// Bytes sent.
    pub sent_bytes: u64,
    /// Frames delivered.
    pub delivered_frames: u64,
    /// Bytes delivered.
    pub delivered_bytes: u64,
    /// Frames dropped (full buffers and drop policies).
    pub dropped_frames: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
    /// Delivered bits per simulated second.
    pub throughput_bps: f64,
}

/// The outcome of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReport {
    /// Sample times; each interval series value covers the interval ending there.
    pub sample_times: Vec<Time>,
    /// Every switch egress port (queues sampled only where monitored).
    pub ports: Vec<PortReport>,
    /// Every flow of the configuration.
    pub flows: Vec<FlowReport>,
    /// Every arrival source, with its flows aggregated.
    pub arrivals: Vec<ArrivalReport>,
    /// Every 802.1p priority that some flow has, lowest first.
    pub classes: Vec<ClassReport>,
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
}
