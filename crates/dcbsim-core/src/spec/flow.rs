//! Flows: what each sends, how, and from when; arrivals of short flows; the incast
//! application.

use crate::dist::SizeDist;
use crate::units::{Rate, Time};

/// How a flow produces data.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// Always backlogged; its rate is set by its reaction point (or its initial rate).
    Greedy,
    /// Background traffic at a fixed rate, never under congestion control.
    Constant,
    /// A finite transfer; its size is drawn at set-up (from the stream
    /// `flow:<name>`) and its completion time is recorded.
    Finite {
        /// Bytes to transfer.
        size: SizeDist,
    },
    /// An ON-OFF source: ON adds a burst to the backlog, sent as fast as the flow's
    /// rate allows; once the burst's last frame has left the rate limiter an OFF
    /// period follows, with mean `burst·8/load − burst·8/line_rate`, so that the
    /// source offers `load` on average when nothing limits it. OFF times come from
    /// the stream `source:<name>`.
    OnOff {
        /// Bytes of each burst.
        burst: u64,
        /// The average offered load; below the source's line rate.
        load: Rate,
        /// How OFF periods are drawn.
        off: OffTime,
    },
    /// One flow whose backlog is fed by transfers arriving as a Poisson process
    /// (arrival times and sizes from the stream `source:<name>`).
    Poisson {
        /// Transfers per second.
        rate_per_s: f64,
        /// Size of each transfer.
        size: SizeDist,
    },
}

/// How the OFF periods of an ON-OFF source are drawn around their mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OffTime {
    /// Exponentially distributed.
    #[default]
    Exponential,
    /// Always the mean.
    Fixed,
}

/// One flow from a source host to a destination host.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// Unique name, used in results.
    pub name: String,
    /// Index of the source host.
    pub src: usize,
    /// Index of the destination host.
    pub dst: usize,
    /// Greedy, constant-rate, finite, ON-OFF or Poisson-fed.
    pub kind: FlowKind,
    /// Initial rate (greedy, finite) or the fixed rate (constant). `None` is line rate.
    pub rate: Option<Rate>,
    /// A cap on the sending rate whatever the reaction point says (an application
    /// that offers at most this much). `None`: no cap.
    pub max_rate: Option<Rate>,
    /// Frame size in bytes, headers included.
    pub frame_bytes: u32,
    /// Random spread of the gaps between frames: each gap is multiplied by
    /// U(1 − jitter, 1 + jitter), from the flow's own random stream. Zero (exact
    /// pacing) by default; a little breaks the phase locking of identical sources.
    pub jitter: f64,
    /// 802.1p priority, 0..=7: a higher one is served first at strict-priority ports
    /// (see [`crate::net::Port::class_of`]) and is "high" to a drop policy.
    pub priority: u8,
    /// The flow's own AIMD setting under DCC (`None`: the scheme's); other schemes
    /// ignore it.
    pub aimd: Option<Aimd>,
    /// Weight in weighted fair sharing (FQCN, AF-QCN, the weighted max-min share);
    /// 1 by default, finite and > 0.
    pub weight: f64,
    /// The end-to-end transport (none, TCP NewReno or DCTCP).
    pub transport: Transport,
    /// The scheme whose reaction point the flow runs, if not the run's (one without
    /// congestion points of its own: HPCC or TIMELY beside DCQCN, say; configured by
    /// [`crate::config::SimConfig::flow_schemes`]).
    pub scheme: Option<&'static str>,
    /// When the flow starts sending.
    pub start: Time,
    /// When it stops producing new frames (`None`: never).
    pub stop: Option<Time>,
}

impl FlowSpec {
    /// A flow of `kind` from host `src` to host `dst` with every other setting at its
    /// default: line rate, no cap, 1000-byte frames, no jitter, priority 0, weight 1,
    /// no transport, from time 0 for the whole run.
    pub fn new(name: &str, src: usize, dst: usize, kind: FlowKind) -> FlowSpec {
        FlowSpec {
            name: name.to_string(),
            src,
            dst,
            kind,
            rate: None,
            max_rate: None,
            frame_bytes: 1000,
            jitter: 0.0,
            priority: 0,
            aimd: None,
            weight: 1.0,
            transport: Transport::None,
            scheme: None,
            start: Time::ZERO,
            stop: None,
        }
    }

    /// The demand a fair-share calculation should use, bits/s: the load of an ON-OFF
    /// or Poisson-fed flow, the rate of a constant flow, a greedy flow's `max_rate`;
    /// each under `max_rate` when there is one. `None` when nothing bounds it (a
    /// greedy flow without a cap, a finite flow).
    pub fn offered_bps(&self) -> Option<f64> {
        let cap = self.max_rate.map(Rate::as_f64);
        let demand = match &self.kind {
            FlowKind::OnOff { load, .. } => Some(load.as_f64()),
            FlowKind::Poisson { rate_per_s, size } => Some(rate_per_s * 8.0 * size.mean()),
            FlowKind::Constant => self.rate.map(Rate::as_f64),
            FlowKind::Greedy => cap,
            FlowKind::Finite { .. } => None,
        };
        match (demand, cap) {
            (Some(d), Some(c)) => Some(d.min(c)),
            (d, _) => d,
        }
    }
}

/// A source of finite flows arriving as a Poisson process (short flows, say).
#[derive(Clone, Debug, PartialEq)]
pub struct ArrivalSpec {
    /// Name in results; its flows are `<name>#<k>`.
    pub name: String,
    /// Flows per second.
    pub rate_per_s: f64,
    /// Size of each flow.
    pub size: SizeDist,
    /// The flows' template: source, destination, initial rate, frame size, priority,
    /// jitter; `start` and `stop` bound the arrivals. Its `kind` and `name` are unused.
    pub flow: FlowSpec,
}

/// The incast application: a client asks each server flow for one SRU and waits
/// for all of them (a barrier) before asking for the next block.
#[derive(Clone, Debug, PartialEq)]
pub struct IncastSpec {
    /// Indices in [`crate::config::SimConfig::flows`] of the server flows (each over a transport,
    /// all to the client).
    pub flows: Vec<usize>,
    /// The server request unit: bytes each server sends per block.
    pub sru: u64,
    /// Blocks to request (`None`: until the run ends).
    pub blocks: Option<u32>,
    /// When the first request goes out.
    pub start: Time,
    /// Each server answers a request after a delay drawn uniformly from
    /// `[0, response_jitter)` (stream `incast`); zero: all answer at once.
    pub response_jitter: Time,
}

/// The end-to-end transport of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transport {
    /// None: the source pushes frames as fast as its rate limiter allows (the L2
    /// flows of the congestion-management papers).
    #[default]
    None,
    /// TCP NewReno (RFC 5681, RFC 6582, RFC 6298).
    Tcp,
    /// DCTCP (Alizadeh et al., SIGCOMM 2010): NewReno plus ECN with a window cut in
    /// proportion to the fraction of marked bytes.
    Dctcp,
}

impl Transport {
    /// Every name a scenario may use.
    pub const NAMES: &'static [&'static str] = &["none", "tcp", "dctcp"];

    /// Its name as scenario files spell it.
    pub fn name(self) -> &'static str {
        match self {
            Transport::None => "none",
            Transport::Tcp => "tcp",
            Transport::Dctcp => "dctcp",
        }
    }

    /// The transport called `name`.
    pub fn by_name(name: &str) -> Option<Transport> {
        match name {
            "none" => Some(Transport::None),
            "tcp" => Some(Transport::Tcp),
            "dctcp" => Some(Transport::Dctcp),
            _ => None,
        }
    }
}

/// A source's AIMD setting: `+a` per slot, `×b` per decrease.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aimd {
    /// Additive increase per slot, in units of the rate step (> 0).
    pub a: f64,
    /// Multiplicative decrease factor, in [0, 1]; 1 ignores decreases.
    pub b: f64,
}

impl Default for Aimd {
    fn default() -> Self {
        Aimd { a: 1.0, b: 0.5 }
    }
}

impl Aimd {
    /// Checks `a > 0` and `0 ≤ b ≤ 1`.
    pub fn check(&self) -> Result<(), String> {
        if !(self.a.is_finite() && self.a > 0.0) {
            return Err(format!("a must be > 0 (got {})", self.a));
        }
        if !(0.0..=1.0).contains(&self.b) {
            return Err(format!("b must be in [0, 1] (got {})", self.b));
        }
        Ok(())
    }

    /// Whether the source ignores decreases (`b = 1`; it still obeys halts).
    pub fn misbehaves(&self) -> bool {
        self.b >= 1.0
    }
}
