//! QCN as IEEE 802.1Qau defines it, and its variants QCN-Timer, QCN-AIMD and QCN-T.
//!
//! The congestion point samples arriving frames, computes `Fb = −(Qoff + w·Qδ)` and
//! sends the 6-bit quantized `|Fb|` to the source of the sampled frame. The reaction
//! point cuts its current rate on each notification and recovers by itself in three
//! phases (Fast Recovery, Active Increase, Hyper-Active Increase) driven by a byte
//! counter and a rate-increase timer. See `docs/models/qcn.md`.

use super::{Arrival, CongestionPoint, CpInit, Feedback, Notify, ReactionPoint, RpInit, Scheme};
use crate::param::Range::{Any, Fraction, NonNegative, Positive, Unit, Whole};
use crate::param::{Param, Params, Setter};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// The standard byte-based sampling table: bytes between samples, indexed by `Ψ/8`.
pub const SAMPLING_TABLE: [u64; 8] = [150_000, 75_000, 50_000, 37_500, 30_000, 25_000, 21_500, 18_500];

/// How a QCN congestion point picks the frames it samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    /// By bytes arrived, from [`SAMPLING_TABLE`] at the last Ψ (the standard).
    Table,
    /// Per frame with probability `(1 + 9Ψ/64) %` (FQCN eq. 2).
    Linear,
    /// Per frame with a fixed probability (`p`).
    Fixed,
    /// Every `1/p`-th frame (times U(0.85, 1.15) when `sample_jitter`): a counter.
    Periodic,
}

/// How the reaction point raises its rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Increase {
    /// Fast Recovery, Active and Hyper-Active Increase, from the byte counter and the
    /// timer (QCN and QCN-Timer).
    Standard,
    /// No Fast Recovery: each byte-counter cycle adds `R_AI` to the current rate.
    Aimd,
    /// QCN-T: one timer of constant period; Hyper-Active Increase once the timer
    /// stage exceeds `hai_threshold` (default `⌈5 · 15 ms / period⌉`).
    TimerOnly,
}

/// QCN-T's timer period at 1 Gb/s (QCN-T §VI).
pub const QCN_T_PERIOD_AT_1_GBPS: Time = Time::from_us(2400);

/// Parameters of QCN and its variants. `Default` is the 802.1Qau baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct QcnParams {
    /// Equilibrium queue `Qeq`, bytes.
    pub q_eq: u64,
    /// Weight of the queue growth `Qδ`.
    pub w: f64,
    /// Sampling mode.
    pub sampling: Sampling,
    /// Per-frame probability for [`Sampling::Fixed`].
    pub p: f64,
    /// Multiply each sampling interval by U(0.85, 1.15).
    pub sample_jitter: bool,
    /// Decrease gain `Gd`.
    pub gd: f64,
    /// Smallest factor a decrease multiplies the rate by.
    pub min_decrease: f64,
    /// Minimum rate.
    pub r_min: Rate,
    /// Byte-counter cycle, bytes.
    pub bc_limit: u64,
    /// Byte-counter cycle past Fast Recovery (`T_AI`), bytes; `None` is `bc_limit / 2`.
    pub bc_limit_ai: Option<u64>,
    /// Multiply each byte-counter cycle by U(0.85, 1.15).
    pub bc_jitter: bool,
    /// Whether the byte counter drives increases.
    pub byte_counter: bool,
    /// Rate-increase timer period; `None` is the variant's: 15 ms (the standard), or
    /// in QCN-T 2.4 ms at 1 Gb/s scaled by 1 Gb/s over the line rate (§VI: the time an
    /// RP at half of C takes to send 150 KB).
    pub timer_period: Option<Time>,
    /// Whether the timer drives increases.
    pub timer: bool,
    /// Cycles of Fast Recovery (`CT`).
    pub fast_recovery_cycles: u32,
    /// Active-Increase step; `None` scales 5 Mb/s per 10 Gb/s of line rate.
    pub r_ai: Option<Rate>,
    /// Hyper-Active-Increase step; `None` is ten times `R_AI`.
    pub r_hai: Option<Rate>,
    /// Target-rate reduction (`TR/8` when `TR > 10·CR` in the first cycle).
    pub target_reduction: bool,
    /// On a CNM, keep TR (rather than set it to CR) while BS = TS = 0, so that a burst
    /// of CNMs does not drag the target down (the standard's pseudo-code). Off, every
    /// CNM sets TR ← CR (the SMCC paper's NetFPGA QCN).
    pub hold_target: bool,
    /// Hyper-Active Increase; without it, Active Increase goes on instead.
    pub hyper_active: bool,
    /// How the rate increases.
    pub increase: Increase,
    /// QCN-T's HAI threshold; `None` derives it from the timer period.
    pub hai_threshold: Option<u32>,
    /// Bits the CNM's feedback is quantized to (6 in the standard). With more, the
    /// reaction point reads `Fb` from the CNM's `Qoff` and `Qδ` at that resolution, on
    /// Ψ's scale (a decrease of `Gd·Ψ`, Ψ now fractional, still below 64).
    pub fb_bits: u32,
}

impl Default for QcnParams {
    fn default() -> Self {
        QcnParams {
            q_eq: 33 * 1024,
            w: 2.0,
            sampling: Sampling::Table,
            p: 0.01,
            sample_jitter: true,
            gd: 1.0 / 128.0,
            min_decrease: 0.5,
            r_min: Rate::from_mbps(10),
            bc_limit: 150_000,
            bc_limit_ai: None,
            bc_jitter: true,
            byte_counter: true,
            timer_period: None,
            timer: true,
            fast_recovery_cycles: 5,
            r_ai: None,
            r_hai: None,
            target_reduction: true,
            hold_target: true,
            hyper_active: true,
            increase: Increase::Standard,
            hai_threshold: None,
            fb_bits: 6,
        }
    }
}

impl QcnParams {
    /// QCN-Timer: the byte counter off, only the timer drives increases.
    pub fn qcn_timer() -> QcnParams {
        QcnParams { byte_counter: false, ..QcnParams::default() }
    }

    /// QCN-AIMD: no Fast Recovery; each byte-counter cycle adds `R_AI`.
    pub fn qcn_aimd() -> QcnParams {
        QcnParams { timer: false, increase: Increase::Aimd, ..QcnParams::default() }
    }

    /// QCN-T: a single timer of period 2.4 ms at 1 Gb/s, no byte counter.
    pub fn qcn_t() -> QcnParams {
        QcnParams { byte_counter: false, increase: Increase::TimerOnly, ..QcnParams::default() }
    }

    /// `R_AI` at a given line rate: 5 Mb/s per 10 Gb/s unless set.
    pub fn r_ai_at(&self, line: Rate) -> f64 {
        self.r_ai.map_or(line.as_f64() * 5e-4, Rate::as_f64)
    }

    /// `R_HAI` at a given line rate: ten times `R_AI` unless set.
    pub fn r_hai_at(&self, line: Rate) -> f64 {
        self.r_hai.map_or(10.0 * self.r_ai_at(line), Rate::as_f64)
    }

    /// The timer period at a given line rate: as set, else 15 ms, or in QCN-T
    /// 2.4 ms · (1 Gb/s / line rate) (QCN-T §VI: 150 KB at the fair share of two RPs).
    pub fn timer_period_at(&self, line: Rate) -> Time {
        self.timer_period.unwrap_or_else(|| match self.increase {
            Increase::TimerOnly => Time((QCN_T_PERIOD_AT_1_GBPS.0 as f64 * 1e9 / line.as_f64()).round().max(1.0) as u64),
            _ => Time::from_ms(15),
        })
    }

    /// QCN-T's HAI threshold at a given line rate: `⌈5 · 15 ms / period⌉` unless set.
    pub fn hai_threshold_at(&self, line: Rate) -> u32 {
        let period = self.timer_period_at(line);
        self.hai_threshold.unwrap_or_else(|| (75e9 / period.0 as f64).ceil() as u32)
    }

    /// Quantizes a negative feedback `fb` (bytes) to Ψ in 0..=63.
    pub fn quantize(&self, fb: f64) -> u8 {
        if fb >= 0.0 {
            return 0;
        }
        let scale = (2.0 * self.w + 1.0) * self.q_eq as f64;
        ((-fb / scale * 64.0).floor()).min(63.0) as u8
    }

    /// The decrease magnitude a CNM carries, on Ψ's scale (0 to below 64): Ψ itself with
    /// 6 bits, else `Fb` from the CNM's `Qoff` and `Qδ` quantized to `fb_bits` bits.
    #[inline]
    pub fn magnitude(&self, psi: u8, q_off: i32, q_delta: i32) -> f64 {
        if self.fb_bits <= 6 {
            return psi as f64;
        }
        let fb = -(q_off as f64 + self.w * q_delta as f64);
        if fb >= 0.0 {
            return 0.0;
        }
        let levels = (1u32 << self.fb_bits) as f64;
        let scale = (2.0 * self.w + 1.0) * self.q_eq as f64;
        (-fb / scale * levels).floor().min(levels - 1.0) * 64.0 / levels
    }
}

impl Params for QcnParams {
    const TABLE: &'static [Param<Self>] = &[
        Param {
            name: "q_eq_kb",
            range: Positive,
            default: "33 KB (802.1Qau)",
            doc: "equilibrium queue `Qeq`",
            set: Setter::Bytes(|p, v| p.q_eq = v),
        },
        Param {
            name: "w",
            range: NonNegative,
            default: "2 (802.1Qau)",
            doc: "weight of the queue growth `Qδ` in `Fb`",
            set: Setter::Real(|p, v| p.w = v),
        },
        Param {
            name: "sampling",
            range: Any,
            default: "\"table\" (802.1Qau)",
            doc: "how the CP picks frames: by bytes from the standard's table, per frame with probability `(1 + 9Ψ/64) %` (FQCN eq. 2), with fixed probability `p`, or every `1/p`-th frame",
            set: Setter::Mode(&["table", "linear", "fixed", "periodic"], |p, i| {
                p.sampling = [Sampling::Table, Sampling::Linear, Sampling::Fixed, Sampling::Periodic][i]
            }),
        },
        Param {
            name: "p",
            range: Fraction,
            default: "0.01",
            doc: "sampling probability (`fixed`) or 1/frames between samples (`periodic`)",
            set: Setter::Real(|p, v| p.p = v),
        },
        Param {
            name: "sample_jitter",
            range: Any,
            default: "true (802.1Qau)",
            doc: "multiply each sampling interval by U(0.85, 1.15)",
            set: Setter::Switch(|p, v| p.sample_jitter = v),
        },
        Param { name: "gd", range: Positive, default: "1/128 (802.1Qau)", doc: "decrease gain `Gd`", set: Setter::Real(|p, v| p.gd = v) },
        Param {
            name: "min_decrease",
            range: Unit,
            default: "0.5 (802.1Qau)",
            doc: "smallest factor one decrease multiplies the rate by",
            set: Setter::Real(|p, v| p.min_decrease = v),
        },
        Param {
            name: "r_min_mbps",
            range: Positive,
            default: "10 Mb/s (802.1Qau)",
            doc: "minimum rate",
            set: Setter::Rate(|p, v| p.r_min = v),
        },
        Param {
            name: "bc_limit_bytes",
            range: Positive,
            default: "150 000 bytes (802.1Qau)",
            doc: "byte-counter cycle",
            set: Setter::Bytes(|p, v| p.bc_limit = v),
        },
        Param {
            name: "bc_limit_ai_bytes",
            range: Positive,
            default: "half of `bc_limit`",
            doc: "byte-counter cycle past Fast Recovery (`T_AI`)",
            set: Setter::Bytes(|p, v| p.bc_limit_ai = Some(v)),
        },
        Param {
            name: "bc_jitter",
            range: Any,
            default: "true (802.1Qau)",
            doc: "multiply each byte-counter cycle by U(0.85, 1.15)",
            set: Setter::Switch(|p, v| p.bc_jitter = v),
        },
        Param {
            name: "byte_counter",
            range: Any,
            default: "true (false in QCN-Timer and QCN-T)",
            doc: "whether the byte counter drives increases",
            set: Setter::Switch(|p, v| p.byte_counter = v),
        },
        Param {
            name: "timer_ms",
            range: Positive,
            default: "15 ms (802.1Qau); QCN-T: 2.4 ms at 1 Gb/s, scaled by 1 Gb/s over the line rate",
            doc: "rate-increase timer period",
            set: Setter::Time(|p, v| p.timer_period = Some(v)),
        },
        Param {
            name: "timer",
            range: Any,
            default: "true (false in QCN-AIMD)",
            doc: "whether the timer drives increases",
            set: Setter::Switch(|p, v| p.timer = v),
        },
        Param {
            name: "fast_recovery_cycles",
            range: Positive,
            default: "5 (802.1Qau)",
            doc: "cycles of Fast Recovery (`CT`)",
            set: Setter::Count(|p, v| p.fast_recovery_cycles = v),
        },
        Param {
            name: "r_ai_mbps",
            range: Positive,
            default: "5 Mb/s per 10 Gb/s of line rate (802.1Qau)",
            doc: "Active-Increase step",
            set: Setter::Rate(|p, v| p.r_ai = Some(v)),
        },
        Param {
            name: "r_hai_mbps",
            range: Positive,
            default: "ten times `r_ai`",
            doc: "Hyper-Active-Increase step",
            set: Setter::Rate(|p, v| p.r_hai = Some(v)),
        },
        Param {
            name: "target_reduction",
            range: Any,
            default: "true (802.1Qau)",
            doc: "`TR/8` when `TR > 10·CR` in the first cycle",
            set: Setter::Switch(|p, v| p.target_reduction = v),
        },
        Param {
            name: "hold_target",
            range: Any,
            default: "true (802.1Qau pseudo-code)",
            doc: "keep TR on a CNM while BS = TS = 0 (off: every CNM sets TR ← CR)",
            set: Setter::Switch(|p, v| p.hold_target = v),
        },
        Param {
            name: "hyper_active",
            range: Any,
            default: "true (802.1Qau)",
            doc: "Hyper-Active Increase (off: Active Increase goes on)",
            set: Setter::Switch(|p, v| p.hyper_active = v),
        },
        Param {
            name: "hai_threshold",
            range: Positive,
            default: "⌈5 · 15 ms / timer period⌉ (QCN-T)",
            doc: "QCN-T's timer stages before Hyper-Active Increase",
            set: Setter::Count(|p, v| p.hai_threshold = Some(v)),
        },
        Param {
            name: "fb_bits",
            range: Whole(6, 16),
            default: "6 (802.1Qau)",
            doc: "bits the CNM's feedback is quantized to",
            set: Setter::Count(|p, v| p.fb_bits = v),
        },
    ];
}

/// The members of the QCN family, which share one CP and one RP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QcnVariant {
    /// IEEE 802.1Qau QCN.
    #[default]
    Standard,
    /// QCN-Timer: increases from the timer only.
    Timer,
    /// QCN-AIMD: additive increase per byte-counter cycle, no Fast Recovery.
    Aimd,
    /// QCN-T: one constant-period timer with a later HAI.
    T,
}

/// QCN and its variants as a scheme: the member of the family and its parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Qcn {
    /// Which member of the family.
    pub variant: QcnVariant,
    /// Its parameters.
    pub params: QcnParams,
}

impl Scheme for Qcn {
    type Cp = QcnCp;
    type Rp = QcnRp;
    type Params = QcnParams;
    const NAMES: &'static [&'static str] = &["qcn", "qcn_timer", "qcn_aimd", "qcn_t"];

    fn named(name: &str) -> Self {
        let (variant, params) = match name {
            "qcn_timer" => (QcnVariant::Timer, QcnParams::qcn_timer()),
            "qcn_aimd" => (QcnVariant::Aimd, QcnParams::qcn_aimd()),
            "qcn_t" => (QcnVariant::T, QcnParams::qcn_t()),
            _ => (QcnVariant::Standard, QcnParams::default()),
        };
        Qcn { variant, params }
    }
    fn name(&self) -> &'static str {
        match self.variant {
            QcnVariant::Standard => "qcn",
            QcnVariant::Timer => "qcn_timer",
            QcnVariant::Aimd => "qcn_aimd",
            QcnVariant::T => "qcn_t",
        }
    }
    fn params_mut(&mut self) -> &mut QcnParams {
        &mut self.params
    }
    fn congestion_point(&self, _init: CpInit, rng: Rng) -> Option<QcnCp> {
        Some(QcnCp::new(self.params.clone(), rng))
    }
    fn reaction_point(&self, init: RpInit, rng: Rng) -> QcnRp {
        QcnRp::new(self.params.clone(), init.line_rate, init.initial_rate, rng)
    }
    fn reconfigure_cp(&self, cp: &mut QcnCp) {
        cp.params = self.params.clone();
    }
    fn reconfigure_rp(&self, rp: &mut QcnRp) {
        rp.params = self.params.clone();
    }
    fn queue_target(&self) -> Option<u64> {
        Some(self.params.q_eq)
    }
}

/// A QCN congestion point.
#[derive(Clone, Debug)]
pub struct QcnCp {
    pub(super) params: QcnParams,
    q_old: u64,
    psi_last: u8,
    /// Bytes (table) or frames (periodic) left before the next sample.
    until_sample: i64,
    rng: Rng,
}

impl QcnCp {
    /// A congestion point with the given parameters.
    pub fn new(params: QcnParams, rng: Rng) -> QcnCp {
        let mut cp = QcnCp { params, q_old: 0, psi_last: 0, until_sample: 0, rng };
        cp.until_sample = cp.next_interval();
        cp
    }

    fn next_interval(&mut self) -> i64 {
        let base = match self.params.sampling {
            Sampling::Periodic => 1.0 / self.params.p,
            _ => SAMPLING_TABLE[(self.psi_last / 8) as usize] as f64,
        };
        let jitter = if self.params.sample_jitter { self.rng.uniform_range(0.85, 1.15) } else { 1.0 };
        (base * jitter).round() as i64
    }

    /// Counts an arriving frame of `bytes` towards the next sample when it is not
    /// one under table or periodic sampling (what [`QcnCp::is_sample`] would do);
    /// false, with nothing counted, otherwise. Inlined into the switch's frame
    /// path: most frames are not sampled and need no call to the congestion point.
    #[inline(always)]
    pub fn count_unsampled(&mut self, bytes: u32) -> bool {
        let Some(step) = self.counted_step(bytes) else { return false };
        if self.until_sample <= step {
            return false;
        }
        self.until_sample -= step;
        true
    }

    /// What a frame of `bytes` counts towards the next sample under table (its bytes)
    /// or periodic (one frame) sampling; `None` under the random samplers.
    #[inline(always)]
    fn counted_step(&self, bytes: u32) -> Option<i64> {
        match self.params.sampling {
            Sampling::Table => Some(bytes as i64),
            Sampling::Periodic => Some(1),
            Sampling::Linear | Sampling::Fixed => None,
        }
    }

    fn is_sample(&mut self, bytes: u32) -> bool {
        if let Some(step) = self.counted_step(bytes) {
            self.until_sample -= step;
            return self.until_sample <= 0;
        }
        let p = match self.params.sampling {
            Sampling::Linear => (1.0 + 9.0 * self.psi_last as f64 / 64.0) / 100.0,
            _ => self.params.p,
        };
        self.rng.chance(p)
    }

    /// The feedback `Fb = −(Qoff + w·Qδ)` at queue `q`, bytes.
    pub fn feedback(&self, q: u64) -> f64 {
        let q_off = q as f64 - self.params.q_eq as f64;
        let q_delta = q as f64 - self.q_old as f64;
        -(q_off + self.params.w * q_delta)
    }

    /// Sees one arriving frame; if it is sampled, returns the sample's
    /// [`Feedback::Quantized`]: Ψ (0 when `Fb ≥ 0` or too small to quantize) with
    /// `Qoff` and `Qδ`, and moves the sampler on. The schemes built on QCN's CP
    /// (FQCN, AF-QCN) call this and decide who hears.
    #[inline(always)]
    pub fn sample(&mut self, arrival: &Arrival) -> Option<Feedback> {
        if !self.is_sample(arrival.bytes) {
            return None;
        }
        let fb = self.feedback(arrival.queue_bytes);
        let q = arrival.queue_bytes as i64;
        let clamp = |x: i64| x.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        let (q_off, q_delta) = (clamp(q - self.params.q_eq as i64), clamp(q - self.q_old as i64));
        self.q_old = arrival.queue_bytes;
        let psi = self.params.quantize(fb);
        self.psi_last = psi;
        if matches!(self.params.sampling, Sampling::Table | Sampling::Periodic) {
            self.until_sample = self.next_interval();
        }
        Some(Feedback::Quantized { psi, q_off, q_delta })
    }

    /// The parameters in force.
    pub fn params(&self) -> &QcnParams {
        &self.params
    }
}

impl CongestionPoint for QcnCp {
    #[inline]
    fn on_arrival(&mut self, arrival: &Arrival, out: &mut Vec<Notify>) {
        if let Some(feedback @ Feedback::Quantized { psi, q_off, q_delta }) = self.sample(arrival) {
            if self.params.magnitude(psi, q_off, q_delta) > 0.0 {
                out.push(Notify { flow: arrival.flow, feedback });
            }
        }
    }
    const COUNTS_UNSAMPLED: bool = true;
    #[inline(always)]
    fn passes_unsampled(&mut self, bytes: u32) -> bool {
        self.count_unsampled(bytes)
    }
}

/// A QCN reaction point (rate limiter) of one flow.
#[derive(Clone, Debug)]
pub struct QcnRp {
    pub(super) params: QcnParams,
    line: f64,
    /// Whether the rate limiter is engaged (it is released at line rate).
    active: bool,
    current: f64,
    target: f64,
    byte_stage: u32,
    timer_stage: u32,
    bytes_left: i64,
    timer_at: Option<Time>,
    rng: Rng,
}

impl QcnRp {
    /// A reaction point for a flow starting at `initial`, on a NIC of `line` rate.
    /// Below line rate the limiter starts engaged, with `CR = TR = initial`.
    pub fn new(params: QcnParams, line: Rate, initial: Rate, rng: Rng) -> QcnRp {
        let mut rp = QcnRp {
            params,
            line: line.as_f64(),
            active: false,
            current: initial.as_f64().min(line.as_f64()),
            target: initial.as_f64().min(line.as_f64()),
            byte_stage: 0,
            timer_stage: 0,
            bytes_left: 0,
            timer_at: None,
            rng,
        };
        if rp.current < rp.line {
            rp.engage(Time::ZERO);
        }
        rp
    }

    /// Current rate CR, bits/s.
    pub fn current_rate(&self) -> f64 {
        self.current
    }

    /// Target rate TR, bits/s.
    pub fn target_rate(&self) -> f64 {
        self.target
    }

    /// (byte-counter stage, timer stage).
    pub fn stages(&self) -> (u32, u32) {
        (self.byte_stage, self.timer_stage)
    }

    /// Whether the rate limiter is engaged.
    pub fn is_active(&self) -> bool {
        self.active
    }

    fn engage(&mut self, now: Time) {
        self.active = true;
        self.restart_cycles(now);
    }

    fn restart_cycles(&mut self, now: Time) {
        self.byte_stage = 0;
        self.timer_stage = 0;
        self.bytes_left = self.byte_cycle();
        self.timer_at = self.timer_cycle().map(|d| now + d);
    }

    fn in_fast_recovery(&self, stage: u32) -> bool {
        stage <= self.params.fast_recovery_cycles
    }

    /// Bytes of the next byte-counter cycle: `T_AI` (half) past Fast Recovery. QCN-AIMD has
    /// no Fast Recovery and keeps the full cycle (QCN-T paper eq. 28: one increase per
    /// 150 KB sent).
    fn byte_cycle(&mut self) -> i64 {
        let full = self.params.bc_limit as f64;
        let mut bytes = if self.params.increase == Increase::Standard && !self.in_fast_recovery(self.byte_stage) {
            self.params.bc_limit_ai.map_or(full / 2.0, |b| b as f64)
        } else {
            full
        };
        if self.params.bc_jitter {
            bytes *= self.rng.uniform_range(0.85, 1.15);
        }
        bytes.round().max(1.0) as i64
    }

    /// Length of the next timer cycle: halved past Fast Recovery, except in QCN-T.
    fn timer_cycle(&self) -> Option<Time> {
        let uses_timer = match self.params.increase {
            Increase::TimerOnly => true,
            _ => self.params.timer,
        };
        if !uses_timer {
            return None;
        }
        let period = self.params.timer_period_at(Rate(self.line as u64));
        let halve = self.params.increase != Increase::TimerOnly && !self.in_fast_recovery(self.timer_stage);
        Some(if halve { Time(period.0 / 2) } else { period })
    }

    /// Counts a sent frame of `bytes` when that ends no byte-counter cycle (or the
    /// limiter counts no bytes): what [`ReactionPoint::on_sent`] does when it
    /// returns false; false, with nothing counted, when the cycle ends.
    #[inline(always)]
    pub fn count_sent(&mut self, bytes: u32) -> bool {
        if !self.active || !self.uses_byte_counter() {
            return true;
        }
        if self.bytes_left <= bytes as i64 {
            return false;
        }
        self.bytes_left -= bytes as i64;
        true
    }

    #[inline]
    fn uses_byte_counter(&self) -> bool {
        match self.params.increase {
            Increase::TimerOnly => false,
            _ => self.params.byte_counter,
        }
    }

    /// The increase applied at the end of a byte-counter or timer cycle.
    fn increase(&mut self) {
        let line = Rate(self.line as u64);
        if self.params.increase == Increase::Aimd {
            self.current = (self.current + self.params.r_ai_at(line)).min(self.line);
            self.release_at_line_rate();
            return;
        }
        let (bs, ts) = (self.byte_stage, self.timer_stage);
        if self.params.target_reduction && (bs == 1 || ts == 1) && self.target > 10.0 * self.current {
            self.target /= 8.0;
        } else {
            self.target += self.target_step(line);
        }
        self.current = ((self.current + self.target) / 2.0).min(self.line);
        self.release_at_line_rate();
    }

    /// How much TR grows in the current phase.
    fn target_step(&self, line: Rate) -> f64 {
        let ct = self.params.fast_recovery_cycles;
        let (r_ai, r_hai) = (self.params.r_ai_at(line), self.params.r_hai_at(line));
        if self.params.increase == Increase::TimerOnly {
            let (ts, h) = (self.timer_stage, self.params.hai_threshold_at(line));
            return if ts <= ct {
                0.0
            } else if ts <= h || !self.params.hyper_active {
                r_ai
            } else {
                r_hai * (ts - h) as f64
            };
        }
        let bs = if self.uses_byte_counter() { self.byte_stage } else { 0 };
        let ts = if self.params.timer { self.timer_stage } else { 0 };
        let (low, high) = (bs.min(ts), bs.max(ts));
        if high <= ct {
            0.0
        } else if low <= ct || !self.params.hyper_active {
            r_ai
        } else {
            r_hai * (low - ct) as f64
        }
    }

    fn release_at_line_rate(&mut self) {
        if self.current >= self.line {
            self.current = self.line;
            self.active = false;
            self.timer_at = None;
        }
    }
}

impl ReactionPoint for QcnRp {
    const COUNTS_SENT: bool = true;
    #[inline(always)]
    fn passes_sent(&mut self, bytes: u32) -> bool {
        self.count_sent(bytes)
    }
    fn cn_tag(&self) -> bool {
        true
    }
    #[inline]
    fn rate(&self) -> Rate {
        Rate::from_bps_f64(self.current)
    }

    #[inline]
    fn timer(&self) -> Option<Time> {
        if self.active { self.timer_at } else { None }
    }

    fn on_start(&mut self, now: Time) -> bool {
        if self.active {
            self.restart_cycles(now);
        }
        true
    }

    fn on_feedback(&mut self, now: Time, _cpid: u32, feedback: &Feedback) -> bool {
        let Feedback::Quantized { psi, q_off, q_delta } = *feedback else { return false };
        if !self.active {
            self.active = true;
            self.target = self.current;
        } else if !(self.params.hold_target && self.byte_stage == 0 && self.timer_stage == 0) {
            self.target = self.current;
        }
        let magnitude = self.params.magnitude(psi, q_off, q_delta);
        let factor = (1.0 - self.params.gd * magnitude).max(self.params.min_decrease);
        self.current = (self.current * factor).max(self.params.r_min.as_f64());
        self.restart_cycles(now);
        true
    }

    #[inline]
    fn on_sent(&mut self, _now: Time, bytes: u32) -> bool {
        if self.passes_sent(bytes) {
            return false;
        }
        // This frame ends the byte-counter cycle.
        self.byte_stage += 1;
        self.bytes_left = self.byte_cycle();
        self.increase();
        true
    }

    fn on_timer(&mut self, now: Time) -> bool {
        if !self.active {
            return false;
        }
        self.timer_stage += 1;
        self.timer_at = self.timer_cycle().map(|d| now + d);
        self.increase();
        true
    }
}

#[cfg(test)]
#[path = "qcn_tests.rs"]
mod tests;
