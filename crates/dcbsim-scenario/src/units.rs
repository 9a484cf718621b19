//! Unit checks. A number whose key names a unit (`_ms`, `_us`, `_kb`, `_gbps`, ...)
//! becomes an integer count of the engine's unit (picoseconds, bytes, bits/s). A value
//! other than 0 that rounds to 0 there, or one beyond what the engine can hold, is
//! refused, the same way wherever it is written: `[run]`, `[topology]`, flows,
//! timeline entries and scheme parameters.

use dcbsim_core::units::unit_of;

/// Checks that `x`, given under `key`, survives conversion to the engine's unit;
/// keys without a unit suffix pass unchecked. The message says what is allowed.
pub fn check(key: &str, x: f64) -> Result<(), String> {
    let Some(unit) = unit_of(key) else { return Ok(()) };
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
