//! Unit checks. A number whose key names a unit (`_ms`, `_us`, `_kb`, `_gbps`, ...)
//! becomes an integer count of the engine's unit (picoseconds, bytes, bits/s). A value
//! other than 0 that rounds to 0 there, or one beyond what the engine can hold, is
//! refused, the same way wherever it is written: `[run]`, `[topology]`, flows,
//! timeline entries and scheme parameters.

/// The longest time a scenario may give: 2^62 ps, about 53 days.
pub const MAX_PS: f64 = 4_611_686_018_427_387_904.0;
/// The largest byte count a scenario may give: 2^50 bytes (1 PiB).
pub const MAX_BYTES: f64 = 1_125_899_906_842_624.0;
/// The fastest rate a scenario may give: 10 Tb/s (a 64-byte frame then takes 51 ps, so
/// frame times still resolve to 2 %).
pub const MAX_BPS: f64 = 1e13;

/// A unit suffix: its factor to the engine's unit, that unit's name, and the most allowed
/// in the engine's unit.
struct Unit {
    suffix: &'static str,
    factor: f64,
    base: &'static str,
    max: f64,
}

const UNITS: &[Unit] = &[
    Unit { suffix: "_ms", factor: 1e9, base: "ps", max: MAX_PS },
    Unit { suffix: "_us", factor: 1e6, base: "ps", max: MAX_PS },
    Unit { suffix: "_ns", factor: 1e3, base: "ps", max: MAX_PS },
    Unit { suffix: "_kb", factor: 1024.0, base: "bytes", max: MAX_BYTES },
    Unit { suffix: "_bytes", factor: 1.0, base: "bytes", max: MAX_BYTES },
    Unit { suffix: "_gbps", factor: 1e9, base: "b/s", max: MAX_BPS },
    Unit { suffix: "_mbps", factor: 1e6, base: "b/s", max: MAX_BPS },
];

/// Checks that `x`, given under `key`, survives conversion to the engine's unit;
/// keys without a unit suffix pass unchecked. The message says what is allowed.
pub fn check(key: &str, x: f64) -> Result<(), String> {
    let Some(unit) = UNITS.iter().find(|u| key.ends_with(u.suffix)) else { return Ok(()) };
    let scaled = (x * unit.factor).abs();
    if x != 0.0 && scaled < 0.5 {
        let least = 1.0 / unit.factor;
        return Err(format!("{} rounds to 0 {}; the smallest value allowed is {}", number(x), unit.base, number(least)));
    }
    if !scaled.is_finite() || scaled > unit.max {
        let most = unit.max / unit.factor;
        return Err(format!("{} is too large; the largest value allowed is {}", number(x), number(most)));
    }
    Ok(())
}

/// A number as a person would write it: plain, or in exponent form when very large or
/// very small.
pub fn number(x: f64) -> String {
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) { format!("{x:e}") } else { format!("{x}") }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn values_that_round_to_zero_are_refused() {
        assert!(check("timer_ms", 1e-12).unwrap_err().contains("rounds to 0 ps"));
        assert!(check("bc_limit_bytes", 0.4).unwrap_err().contains("rounds to 0 bytes"));
        assert!(check("rate_gbps", 1e-12).unwrap_err().contains("rounds to 0 b/s"));
        assert!(check("loop_delay_us", 1e-9).is_err());
        assert!(check("delay_us", 0.0).is_ok());
        assert!(check("timer_ms", 1e-9).is_ok());
    }

    #[test]
    fn values_that_saturate_are_refused() {
        assert!(check("buffer_kb", 1e300).unwrap_err().contains("too large"));
        assert!(check("rate_gbps", 1e30).is_err());
        assert!(check("rate_gbps", 10_000.0).is_ok());
        assert!(check("duration_ms", 1e12).is_err());
        assert!(check("duration_ms", 1e9).is_ok());
    }

    #[test]
    fn keys_without_a_unit_pass() {
        assert!(check("w", 1e300).is_ok());
        assert!(check("rate_per_s", 1e-30).is_ok());
    }
}
