//! Integer units: [`Time`] in picoseconds, [`Rate`] in bits per second, [`Bytes`].
//!
//! Every quantity the event loop touches is an integer, so runs are exact and
//! repeatable on any machine. One byte at 100 Gb/s is exactly 80 ps, and
//! `u64::MAX` picoseconds is about 213 days of simulated time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds in one second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// A point in simulated time, or a duration, in integer picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// Time zero.
    pub const ZERO: Time = Time(0);
    /// The largest representable time, used as "never".
    pub const NEVER: Time = Time(u64::MAX);

    /// From picoseconds.
    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    /// From nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    /// From microseconds.
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    /// From milliseconds.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    /// From seconds given as a float, rounded to the nearest picosecond.
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * PS_PER_SEC as f64).round() as u64)
    }
    /// From microseconds given as a float, rounded to the nearest picosecond.
    pub fn from_us_f64(us: f64) -> Time {
        Time((us * 1e6).round() as u64)
    }
    /// From milliseconds given as a float, rounded to the nearest picosecond.
    pub fn from_ms_f64(ms: f64) -> Time {
        Time((ms * 1e9).round() as u64)
    }
    /// In picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// In seconds, as a float (for reporting only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// The later of two times.
    pub fn max(self, other: Time) -> Time {
        if self >= other { self } else { other }
    }
    /// `self - other`, or zero when `other` is later.
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }

    /// `self · factor`, truncated to the picosecond: exactly
    /// `(self.0 as f64 * factor) as u64`, but through the signed conversions (one
    /// instruction each on x86-64, where the unsigned ones take about a dozen) wherever
    /// they give the same value: below 2^63 on either side.
    #[inline]
    pub fn scaled(self, factor: f64) -> Time {
        const SIGNED: f64 = 9_223_372_036_854_775_808.0; // 2^63
        if self.0 >= 1 << 63 {
            return self.scaled_unsigned(factor);
        }
        let x = self.0 as i64 as f64 * factor;
        if !(0.0..SIGNED).contains(&x) {
            return self.scaled_unsigned(factor);
        }
        Time(x as i64 as u64)
    }

    /// [`Time::scaled`] through the unsigned conversions. Out of line: the optimizer
    /// would otherwise see that each signed path agrees with it and merge them back.
    #[cold]
    #[inline(never)]
    fn scaled_unsigned(self, factor: f64) -> Time {
        Time((self.0 as f64 * factor) as u64)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}

/// A data rate in integer bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// Zero bits per second.
    pub const ZERO: Rate = Rate(0);

    /// From bits per second.
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    /// From megabits per second.
    pub const fn from_mbps(mbps: u64) -> Rate {
        Rate(mbps * 1_000_000)
    }
    /// From gigabits per second.
    pub const fn from_gbps(gbps: u64) -> Rate {
        Rate(gbps * 1_000_000_000)
    }
    /// From gigabits per second as a float, rounded to the nearest bit/s.
    pub fn from_gbps_f64(gbps: f64) -> Rate {
        Rate((gbps * 1e9).round() as u64)
    }
    /// From bits per second as a float, rounded; negative values become zero.
    pub fn from_bps_f64(bps: f64) -> Rate {
        Rate(bps.max(0.0).round() as u64)
    }
    /// In bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// In bits per second, as a float.
    pub fn as_f64(self) -> f64 {
        u64_to_f64(self.0)
    }
    /// The time to put `bytes` on a wire at this rate, rounded up to a whole picosecond.
    ///
    /// A zero rate never finishes: the result is [`Time::NEVER`].
    pub fn transmit_time(self, bytes: Bytes) -> Time {
        if self.0 == 0 {
            return Time::NEVER;
        }
        // Frames (under 2 MB) fit the fast 64-bit path; larger counts take 128 bits.
        if bytes.0 < (1 << 21) {
            return Time((bytes.0 * 8 * PS_PER_SEC).div_ceil(self.0));
        }
        let bits_ps = bytes.0 as u128 * 8 * PS_PER_SEC as u128;
        Time(bits_ps.div_ceil(self.0 as u128).min(u64::MAX as u128) as u64)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} Gb/s", self.0 as f64 / 1e9)
    }
}

/// `x as f64`, through the signed conversion (one instruction on x86-64, where the
/// unsigned one takes several) when `x` is below 2^63, where both give the same value:
/// a sample converts three counters per flow.
#[inline(always)]
pub fn u64_to_f64(x: u64) -> f64 {
    if x < 1 << 63 { x as i64 as f64 } else { u64_to_f64_unsigned(x) }
}

/// [`u64_to_f64`] of a value at or above 2^63. Out of line: the optimizer would
/// otherwise see that both paths agree and merge them back into the unsigned one.
#[cold]
#[inline(never)]
fn u64_to_f64_unsigned(x: u64) -> f64 {
    x as f64
}

/// A count of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    /// Zero bytes.
    pub const ZERO: Bytes = Bytes(0);
    /// From a byte count.
    pub const fn new(n: u64) -> Bytes {
        Bytes(n)
    }
    /// From kibibytes (1 KB = 1024 bytes, as the papers' 64 KB and 128 KB buffers).
    pub const fn from_kb(kb: u64) -> Bytes {
        Bytes(kb * 1024)
    }
    /// The count.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl Add for Bytes {
    type Output = Bytes;
    fn add(self, rhs: Bytes) -> Bytes {
        Bytes(self.0 + rhs.0)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} B", self.0)
    }
}

/// What a unit suffix measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// A duration, in picoseconds.
    Time,
    /// A byte count.
    Bytes,
    /// A rate, in bits per second.
    Rate,
}

/// A unit a scenario writes as a key's suffix (`_ms`, `_kb`, `_gbps`): what it
/// measures, its factor to the engine's unit, that unit's name, and the most the
/// engine holds in that unit.
#[derive(Clone, Copy, Debug)]
pub struct UnitSuffix {
    /// The suffix, with its underscore.
    pub suffix: &'static str,
    /// What it measures.
    pub kind: UnitKind,
    /// Engine units per unit of the suffix.
    pub factor: f64,
    /// The engine unit's name, for messages.
    pub base: &'static str,
    /// The largest value allowed, in engine units.
    pub max: f64,
}

/// The longest time a scenario may give: 2^62 ps, about 53 days.
pub const MAX_PS: f64 = 4_611_686_018_427_387_904.0;
/// The largest byte count a scenario may give: 2^50 bytes (1 PiB).
pub const MAX_BYTES: f64 = 1_125_899_906_842_624.0;
/// The fastest rate a scenario may give: 10 Tb/s (a 64-byte frame then takes 51 ps, so
/// frame times still resolve to 2 %).
pub const MAX_BPS: f64 = 1e13;

/// Every unit suffix a scenario may use: the one table of units, read by the scenario
/// checks and by every parameter table.
pub const UNITS: &[UnitSuffix] = &[
    UnitSuffix { suffix: "_ms", kind: UnitKind::Time, factor: 1e9, base: "ps", max: MAX_PS },
    UnitSuffix { suffix: "_us", kind: UnitKind::Time, factor: 1e6, base: "ps", max: MAX_PS },
    UnitSuffix { suffix: "_ns", kind: UnitKind::Time, factor: 1e3, base: "ps", max: MAX_PS },
    UnitSuffix { suffix: "_kb", kind: UnitKind::Bytes, factor: 1024.0, base: "bytes", max: MAX_BYTES },
    UnitSuffix { suffix: "_bytes", kind: UnitKind::Bytes, factor: 1.0, base: "bytes", max: MAX_BYTES },
    UnitSuffix { suffix: "_gbps", kind: UnitKind::Rate, factor: 1e9, base: "b/s", max: MAX_BPS },
    UnitSuffix { suffix: "_mbps", kind: UnitKind::Rate, factor: 1e6, base: "b/s", max: MAX_BPS },
];

/// The unit a key's name ends with, if any.
pub fn unit_of(key: &str) -> Option<&'static UnitSuffix> {
    UNITS.iter().find(|u| key.ends_with(u.suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_a_time_matches_the_unsigned_conversions() {
        let times = [0, 1, 800_000, 3_200_000, (1 << 53) + 1, (1 << 62) - 1, 1 << 62, (1 << 63) - 1, 1 << 63, u64::MAX - 1, u64::MAX];
        let factors =
            [0.0, -0.0, 0.9, 0.999_999_999, 1.0, 1.1, 1.999_999_999_999, 2.0, 3.5, -1.0, f64::NAN, f64::INFINITY, f64::MIN_POSITIVE];
        let mut rng = crate::rng::Rng::stream(9, "scaled");
        let random = (0..10_000).map(|_| (rng.next_u64() >> (rng.next_u64() % 64), 0.5 + 1.5 * rng.uniform()));
        let grid = times.iter().flat_map(|&t| factors.iter().map(move |&f| (t, f)));
        for (t, f) in grid.chain(random) {
            assert_eq!(Time(t).scaled(f), Time((t as f64 * f) as u64), "{t} x {f}");
        }
    }

    #[test]
    fn one_byte_at_100g_is_80ps() {
        assert_eq!(Rate::from_gbps(100).transmit_time(Bytes(1)), Time(80));
    }

    #[test]
    fn frame_times_are_exact() {
        assert_eq!(Rate::from_gbps(10).transmit_time(Bytes(1000)), Time::from_ns(800));
        assert_eq!(Rate::from_gbps_f64(2.5).transmit_time(Bytes(1000)), Time::from_ns(3200));
    }

    #[test]
    fn transmit_time_rounds_up() {
        // 1 byte at 3 b/s is 8/3 s: 2.666... s rounds up to the next picosecond.
        assert_eq!(Rate(3).transmit_time(Bytes(1)), Time(2_666_666_666_667));
    }

    #[test]
    fn large_counts_take_the_wide_path() {
        assert_eq!(Rate::from_gbps(1).transmit_time(Bytes(1 << 30)), Time(8 * (1u64 << 30) * 1000));
    }

    #[test]
    fn zero_rate_never_finishes() {
        assert_eq!(Rate::ZERO.transmit_time(Bytes(1)), Time::NEVER);
    }

    #[test]
    fn float_constructors_round() {
        assert_eq!(Time::from_us_f64(1.5), Time(1_500_000));
        assert_eq!(Time::from_ms_f64(0.001), Time::from_us(1));
        assert_eq!(Time::from_secs_f64(1.0), Time(PS_PER_SEC));
    }
}
