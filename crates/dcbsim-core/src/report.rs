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
    /// Whether its queue was sampled (a monitored port, in a run that took samples).
    pub monitored: bool,
    /// Queue length at each sample time, bytes (empty when the port is not monitored,
    /// or when the run streamed its samples).
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
    /// ECN-capable frames it marked.
    pub ecn_marks: u64,
    /// Frames still queued at the end.
    pub queued_frames: u64,
}

/// PFC counters of one port (a switch's or a host's NIC), per 802.1p priority.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PfcPortReport {
    /// `node:peer`.
    pub name: String,
    /// PAUSE frames (XOFF and XON) the port's owner sent on it, to the peer.
    pub pause_sent: [u64; 8],
    /// PAUSE frames the port received from the peer (which paused or resumed it).
    pub pause_received: [u64; 8],
    /// Time each priority of the port's transmitter was paused.
    pub paused_time: [Time; 8],
    /// Bytes of each priority that arrived over this port's link and still wait at
    /// the peer at the end (its ingress accounting).
    pub ingress_bytes: [u64; 8],
    /// Frames lost at the peer because the headroom of this link was exhausted.
    pub headroom_drops: u64,
}

impl PfcPortReport {
    /// The longest time any priority was paused (the port's paused time when one
    /// priority is lossless).
    pub fn paused(&self) -> Time {
        self.paused_time.iter().copied().max().unwrap_or(Time::ZERO)
    }
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
    /// Frames that reached the destination, a transport's duplicate segments
    /// included: `sent_frames = delivered_frames + dropped_frames + in_network_frames`.
    pub delivered_frames: u64,
    /// Bytes that reached the destination (over a transport: new data only, so a
    /// duplicate segment adds a frame to `delivered_frames` but no bytes here).
    pub delivered_bytes: u64,
    /// Frames dropped anywhere.
    pub dropped_frames: u64,
    /// Bytes dropped anywhere.
    pub dropped_bytes: u64,
    /// Frames still in a queue or on a link at the end.
    pub in_network_frames: u64,
    /// Notifications its reaction point received.
    pub notifications: u64,
    /// When the flow started.
    pub start: Time,
    /// A finite flow's size, bytes (drawn at set-up); `None` for other kinds.
    pub size: Option<u64>,
    /// Completion time of a finite flow (last byte delivered minus start).
    pub completion_time: Option<Time>,
    /// The shortest completion time a finite flow could have: its size at the
    /// slowest link of its path, plus the path's propagation delays and one frame's
    /// store-and-forward at each further hop (the denominator of the slowdown).
    pub ideal_completion_time: Option<Time>,
    /// The end-to-end transport: "none", "tcp" or "dctcp".
    pub transport: &'static str,
    /// Segments sent again by its transport.
    pub retransmits: u64,
    /// Retransmission timeouts of its transport.
    pub timeouts: u64,
    /// Its transport's congestion window at each sample time, segments (empty
    /// without a transport).
    pub cwnd_segments: Vec<f64>,
    /// DCTCP's α at each sample time (empty unless the flow runs DCTCP).
    pub alpha: Vec<f64>,
    /// Whether its receiver acknowledged each data frame (HPCC, TIMELY): it then has
    /// the two series below.
    pub acked: bool,
    /// Its reaction point's window at each sample time, bytes (NaN: it keeps none).
    pub window_bytes: Vec<f64>,
    /// The last RTT its reaction point measured, at each sample time, µs (NaN: none
    /// yet).
    pub rtt_us: Vec<f64>,
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
    /// The ports its frames cross, `node:peer` from its source's NIC on (with ECMP,
    /// the path its hash picked).
    pub path: Vec<String>,
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
    /// The ideal completion time of each completed flow, seconds (same order; see
    /// [`FlowReport::ideal_completion_time`]).
    pub ideal_s: Vec<f64>,
    /// Segments its flows' transports sent again.
    pub retransmits: u64,
    /// Retransmission timeouts of its flows' transports.
    pub timeouts: u64,
    /// Every flow that arrived, completed or not, in arrival order.
    pub each: Vec<ArrivedFlow>,
}

/// One flow made by an arrival source.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ArrivedFlow {
    /// When it arrived, seconds.
    pub start_s: f64,
    /// Its size, bytes.
    pub bytes: u64,
    /// Bytes delivered by the end of the run.
    pub delivered_bytes: u64,
    /// Its completion time, seconds, if it completed.
    pub completion_s: Option<f64>,
    /// Its ideal completion time, seconds (see [`FlowReport::ideal_completion_time`]).
    pub ideal_s: f64,
}

/// One block of the incast application.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IncastBlockReport {
    /// When the client requested it.
    pub start: Time,
    /// From the request to the last server's last byte.
    pub time: Time,
    /// Bytes of the block (servers × SRU).
    pub bytes: u64,
    /// Retransmission timeouts of the servers during the block.
    pub timeouts: u64,
}

/// What the incast application achieved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IncastReport {
    /// Number of servers.
    pub servers: u32,
    /// Bytes each server sends per block.
    pub sru_bytes: u64,
    /// Every completed block, in order.
    pub blocks: Vec<IncastBlockReport>,
}

impl IncastReport {
    /// Goodput over the completed blocks: their bytes over their total time, bits/s.
    pub fn goodput_bps(&self) -> f64 {
        let bytes: u64 = self.blocks.iter().map(|b| b.bytes).sum();
        let time: f64 = self.blocks.iter().map(|b| b.time.as_secs_f64()).sum();
        if time > 0.0 { bytes as f64 * 8.0 / time } else { 0.0 }
    }

    /// Timeouts over the completed blocks.
    pub fn timeouts(&self) -> u64 {
        self.blocks.iter().map(|b| b.timeouts).sum()
    }
}

/// What the flows of one 802.1p priority did, arrival flows included.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassReport {
    /// The 802.1p priority.
    pub priority: u8,
    /// Flows of this priority.
    pub flows: u64,
    /// Their counters summed (drops: full buffers and drop policies).
    pub counters: crate::traffic::FlowCounters,
    /// Delivered bits per simulated second.
    pub throughput_bps: f64,
}

/// The outcome of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReport {
    /// Sample times; each interval series value covers the interval ending there.
    pub sample_times: Vec<Time>,
    /// Whether the samples went to a sink (see [`crate::samples::SampleSink`]): the
    /// ports' and flows' sampled series are then empty.
    pub streamed_samples: bool,
    /// Every switch egress port (queues sampled only where monitored).
    pub ports: Vec<PortReport>,
    /// Every flow of the configuration.
    pub flows: Vec<FlowReport>,
    /// Every arrival source, with its flows aggregated.
    pub arrivals: Vec<ArrivalReport>,
    /// The incast application's blocks, if the run has one.
    pub incast: Option<IncastReport>,
    /// Every 802.1p priority that some flow has, lowest first.
    pub classes: Vec<ClassReport>,
    /// PFC counters of every port, hosts' NICs included (empty without PFC).
    pub pfc: Vec<PfcPortReport>,
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
