//! Typed parameters with a table: one place that knows a parameter's scenario names,
//! unit, range, default and meaning.
//!
//! A scheme (or the transport) describes its parameters once, as a `&'static` slice of
//! [`Param`]s over its parameter struct. From that table come the names a scenario may
//! write (the stem and a unit suffix, `q_eq_kb` or `q_eq_bytes`), the conversion of
//! the number to the engine's unit (applied here, once: setters see bytes, [`Time`]
//! and [`Rate`], never a scenario's kilobytes or milliseconds), the range check, the
//! error a bad value gets, and the reference text of the scenario format.

use crate::units::{Rate, Time, UNITS, UnitKind, UnitSuffix};
use std::fmt;

/// A parameter's value as a scenario gives it, before its unit is applied.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A number, in the unit the parameter's name says.
    Number(f64),
    /// A switch.
    Bool(bool),
    /// A mode name.
    Text(String),
}

/// Which numbers a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// Any finite number.
    Any,
    /// Finite and > 0.
    Positive,
    /// Finite and >= 0.
    NonNegative,
    /// In (0, 1].
    Fraction,
    /// In [0, 1].
    Unit,
    /// In (0, 1).
    Open,
    /// A whole number in `lo..=hi`.
    Whole(u32, u32),
}

impl Range {
    /// Whether `x` lies in the range.
    pub fn holds(self, x: f64) -> bool {
        match self {
            Range::Any => x.is_finite(),
            Range::Positive => x.is_finite() && x > 0.0,
            Range::NonNegative => x.is_finite() && x >= 0.0,
            Range::Fraction => x > 0.0 && x <= 1.0,
            Range::Unit => (0.0..=1.0).contains(&x),
            Range::Open => x > 0.0 && x < 1.0,
            Range::Whole(lo, hi) => x.fract() == 0.0 && (lo as f64..=hi as f64).contains(&x),
        }
    }

    /// What the range allows, as a message ends: `"> 0"`, `"in (0, 1]"`.
    pub fn text(self) -> String {
        match self {
            Range::Any => "a finite number".into(),
            Range::Positive => "> 0".into(),
            Range::NonNegative => ">= 0".into(),
            Range::Fraction => "in (0, 1]".into(),
            Range::Unit => "in [0, 1]".into(),
            Range::Open => "in (0, 1)".into(),
            Range::Whole(lo, hi) => format!("an integer in {lo}..={hi}"),
        }
    }
}

/// How a parameter is set on its struct `P`: the kind of value, which fixes its unit
/// suffixes, and the function that stores it.
pub enum Setter<P> {
    /// A unitless number.
    Real(fn(&mut P, f64)),
    /// A whole count (the range says which).
    Count(fn(&mut P, u32)),
    /// A byte count: `_bytes` or `_kb`.
    Bytes(fn(&mut P, u64)),
    /// A duration: `_ms`, `_us` or `_ns`.
    Time(fn(&mut P, Time)),
    /// A rate: `_gbps` or `_mbps`.
    Rate(fn(&mut P, Rate)),
    /// A switch.
    Switch(fn(&mut P, bool)),
    /// One of the named modes; the function gets the mode's index.
    Mode(&'static [&'static str], fn(&mut P, usize)),
}

impl<P> Setter<P> {
    /// The unit kind of the parameter's value, if it is a number with a unit.
    fn unit(&self) -> Option<UnitKind> {
        match self {
            Setter::Bytes(_) => Some(UnitKind::Bytes),
            Setter::Time(_) => Some(UnitKind::Time),
            Setter::Rate(_) => Some(UnitKind::Rate),
            _ => None,
        }
    }
}

/// One parameter: its name, range, default and meaning, and its setter.
pub struct Param<P> {
    /// Its name as the reference text shows it, with its usual unit suffix
    /// (`q_eq_kb`); a scenario may write the stem with any suffix of the same kind
    /// (`q_eq_bytes`).
    pub name: &'static str,
    /// The numbers it takes (numbers only).
    pub range: Range,
    /// Its default, as the reference text shows it, with the source.
    pub default: &'static str,
    /// One line saying what it is.
    pub doc: &'static str,
    /// How it is set.
    pub set: Setter<P>,
}

/// A struct of parameters with a table of them.
pub trait Params: Sized + 'static {
    /// Every parameter, in the order the reference text lists them.
    const TABLE: &'static [Param<Self>];

    /// Sets the parameter a scenario calls `name` to `value`, checking its type and
    /// range.
    fn set(&mut self, name: &str, value: &ParamValue) -> Result<(), ParamError> {
        set(self, name, value).unwrap_or_else(|| Err(ParamError::Unknown { allowed: names::<Self>() }))
    }
}

/// Why a parameter could not be set.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamError {
    /// No parameter has this name.
    Unknown {
        /// Every name allowed.
        allowed: Vec<String>,
    },
    /// The value has the wrong type: it should be a number, a switch or a mode.
    Type {
        /// The name written.
        name: String,
        /// What it should be: `"a number"`, `"true or false"`, `"\"a\" or \"b\""`.
        expected: String,
    },
    /// The number lies outside the range.
    Range {
        /// The name written.
        name: String,
        /// What the range allows.
        allowed: String,
        /// The number given, in the unit of the name.
        got: f64,
    },
    /// The parameters disagree with each other (thresholds out of order).
    Inconsistent(String),
}

/// How a message says that a unit suffix may change within its kind.
const UNIT_NOTE: &str = "(a unit suffix may be any of its kind: _ms, _us, _ns; _kb, _bytes; _gbps, _mbps)";

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Unknown { allowed } if allowed.is_empty() => f.write_str("unknown parameter; the scheme has none"),
            ParamError::Unknown { allowed } => write!(f, "unknown parameter; allowed: {} {UNIT_NOTE}", allowed.join(", ")),
            ParamError::Type { name, expected } => write!(f, "{name} must be {expected}"),
            ParamError::Range { name, allowed, got } => write!(f, "{name} must be {allowed} (got {got})"),
            ParamError::Inconsistent(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ParamError {}

impl<P> Param<P> {
    /// The name without its unit suffix (`q_eq` for `q_eq_kb`), and the kind of
    /// that unit; the whole name for a unitless parameter.
    fn stem(&self) -> (&'static str, Option<UnitKind>) {
        let Some(kind) = self.set.unit() else { return (self.name, None) };
        let stem = UNITS.iter().filter(|u| u.kind == kind).find_map(|u| self.name.strip_suffix(u.suffix));
        (stem.unwrap_or(self.name), Some(kind))
    }

    /// Whether `name` names this parameter, and with which unit (`None` for a
    /// unitless one).
    fn unit_of(&self, name: &str) -> Option<Option<&'static UnitSuffix>> {
        match self.stem() {
            (stem, None) => (stem == name).then_some(None),
            (stem, Some(kind)) => {
                let suffix = name.strip_prefix(stem)?;
                UNITS.iter().find(|u| u.kind == kind && u.suffix == suffix).map(Some)
            }
        }
    }
}

/// Every name a scenario may write for a parameter: its stem with each suffix of its
/// unit's kind, or its name alone.
pub fn names_of<P>(param: &Param<P>) -> Vec<String> {
    match param.stem() {
        (stem, Some(kind)) => UNITS.iter().filter(|u| u.kind == kind).map(|u| format!("{stem}{}", u.suffix)).collect(),
        (name, None) => vec![name.to_string()],
    }
}

/// The name of every parameter of `P`'s table, each with its usual unit suffix.
pub fn names<P: Params>() -> Vec<String> {
    P::TABLE.iter().map(|p| p.name.to_string()).collect()
}

/// The parameter of `P`'s table that `name` writes, and the unit of its suffix.
fn find<P: Params>(name: &str) -> Option<(&'static Param<P>, Option<&'static UnitSuffix>)> {
    P::TABLE.iter().find_map(|param| param.unit_of(name).map(|unit| (param, unit)))
}

/// Sets the parameter `name` of `params` to `value`: `None` when `P` has no such
/// parameter, else whether the value was taken.
pub fn set<P: Params>(params: &mut P, name: &str, value: &ParamValue) -> Option<Result<(), ParamError>> {
    let (param, unit) = find::<P>(name)?;
    Some(apply(param, unit, params, name, value))
}

/// Sets `param`, written as `name` with `unit` (if it has one), to `value`.
fn apply<P>(param: &Param<P>, unit: Option<&UnitSuffix>, params: &mut P, name: &str, value: &ParamValue) -> Result<(), ParamError> {
    let wrong = |expected: &str| ParamError::Type { name: name.to_string(), expected: expected.to_string() };
    let factor = unit.map_or(1.0, |u| u.factor);
    let out_of = |allowed: String, got: f64| ParamError::Range { name: name.to_string(), allowed, got };
    let number = || match value {
        ParamValue::Number(x) if !param.range.holds(*x) => Err(out_of(param.range.text(), *x)),
        // A number with a unit must survive its conversion to the engine's unit.
        ParamValue::Number(x) => match unit {
            Some(u) if (*x * factor).abs() > u.max => Err(out_of(format!("at most {} {}", u.max / factor, &u.suffix[1..]), *x)),
            Some(u) if *x != 0.0 && (*x * factor).abs() < 0.5 => {
                Err(out_of(format!("0 or at least {} {} (it rounds to 0 {})", 1.0 / factor, &u.suffix[1..], u.base), *x))
            }
            _ => Ok(*x),
        },
        _ => Err(wrong("a number")),
    };
    let scaled = |x: f64| (x * factor).round();
    match &param.set {
        Setter::Switch(set) => match value {
            ParamValue::Bool(b) => set(params, *b),
            _ => return Err(wrong("true or false")),
        },
        Setter::Mode(modes, set) => {
            let index = match value {
                ParamValue::Text(text) => modes.iter().position(|m| m == text),
                _ => None,
            };
            let expected = || either(modes);
            set(params, index.ok_or_else(|| wrong(&expected()))?);
        }
        Setter::Real(set) => set(params, number()?),
        Setter::Count(set) => set(params, number()?.round() as u32),
        Setter::Bytes(set) => set(params, scaled(number()?) as u64),
        Setter::Time(set) => set(params, Time::from_ps(scaled(number()?) as u64)),
        Setter::Rate(set) => set(params, Rate::from_bps_f64(number()? * factor)),
    }
    Ok(())
}

/// A value each parameter of `P` takes (a number inside its range, `true`, its first
/// mode), by name: what the tests every scheme gets set and change during a run.
pub fn examples<P: Params>() -> Vec<(String, ParamValue)> {
    let number = |range: Range| match range {
        Range::Whole(lo, _) => lo as f64,
        Range::Fraction | Range::Unit | Range::Open => 0.5,
        Range::Any | Range::Positive | Range::NonNegative => 1.0,
    };
    let value = |p: &Param<P>| match &p.set {
        Setter::Switch(_) => ParamValue::Bool(true),
        Setter::Mode(modes, _) => ParamValue::Text(modes[0].to_string()),
        _ => ParamValue::Number(number(p.range)),
    };
    P::TABLE.iter().map(|p| (p.name.to_string(), value(p))).collect()
}

/// What is wrong with `P`'s table: a unit parameter whose name does not end with a
/// suffix of its kind, or a name two parameters answer to. Empty when sound (every
/// scheme's table is checked by the tests).
pub fn table_faults<P: Params>() -> Vec<String> {
    let mut faults = Vec::new();
    for (i, p) in P::TABLE.iter().enumerate() {
        if p.set.unit().is_some() && p.stem().0 == p.name {
            faults.push(format!("{}: no unit suffix of its kind", p.name));
        }
        for name in names_of(p) {
            let first = P::TABLE.iter().position(|q| q.unit_of(&name).is_some());
            if first != Some(i) {
                faults.push(format!("{name}: also names parameter {first:?}"));
            }
        }
    }
    faults
}

/// The modes as a message lists them: `"a"`, `"b"` or `"c"`.
fn either(modes: &[&str]) -> String {
    let quoted: Vec<String> = modes.iter().map(|m| format!("\"{m}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// One row of the reference text of a table: names, range, default, meaning.
pub fn reference_rows<P: Params>() -> Vec<[String; 4]> {
    P::TABLE
        .iter()
        .map(|p| {
            let others: Vec<String> = names_of(p).into_iter().filter(|n| n != p.name).map(|n| format!("`{n}`")).collect();
            let names = if others.is_empty() { format!("`{}`", p.name) } else { format!("`{}` (or {})", p.name, others.join(", ")) };
            let takes = match &p.set {
                Setter::Switch(_) => "true or false".to_string(),
                Setter::Mode(modes, _) => modes.iter().map(|m| format!("`\"{m}\"`")).collect::<Vec<_>>().join(", "),
                _ => p.range.text(),
            };
            [names, takes, p.default.to_string(), p.doc.to_string()]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Demo {
        q: u64,
        t: Time,
        r: Rate,
        on: bool,
        mode: usize,
        g: f64,
        n: u32,
    }

    impl Params for Demo {
        const TABLE: &'static [Param<Self>] = &[
            Param { name: "q_kb", range: Range::Positive, default: "1 KB", doc: "a queue", set: Setter::Bytes(|p, v| p.q = v) },
            Param { name: "t_ms", range: Range::Positive, default: "1 ms", doc: "a time", set: Setter::Time(|p, v| p.t = v) },
            Param { name: "r_mbps", range: Range::Positive, default: "1 Mb/s", doc: "a rate", set: Setter::Rate(|p, v| p.r = v) },
            Param { name: "on", range: Range::Any, default: "false", doc: "a switch", set: Setter::Switch(|p, v| p.on = v) },
            Param { name: "mode", range: Range::Any, default: "a", doc: "a mode", set: Setter::Mode(&["a", "b"], |p, v| p.mode = v) },
            Param { name: "g", range: Range::Fraction, default: "1/16", doc: "a gain", set: Setter::Real(|p, v| p.g = v) },
            Param { name: "n", range: Range::Whole(1, 10), default: "3", doc: "a count", set: Setter::Count(|p, v| p.n = v) },
        ];
    }

    fn set_one(name: &str, value: ParamValue) -> Result<Demo, ParamError> {
        let mut d = Demo::default();
        set(&mut d, name, &value).expect("a known name")?;
        Ok(d)
    }

    #[test]
    fn units_are_applied_once_from_the_suffix() {
        assert_eq!(set_one("q_kb", ParamValue::Number(33.0)).unwrap().q, 33 * 1024);
        assert_eq!(set_one("q_bytes", ParamValue::Number(1500.0)).unwrap().q, 1500);
        assert_eq!(set_one("t_us", ParamValue::Number(2.5)).unwrap().t, Time::from_ps(2_500_000));
        assert_eq!(set_one("t_ms", ParamValue::Number(1.0)).unwrap().t, Time::from_ms(1));
        assert_eq!(set_one("r_gbps", ParamValue::Number(2.5)).unwrap().r, Rate::from_bps(2_500_000_000));
        assert_eq!(set_one("r_mbps", ParamValue::Number(10.0)).unwrap().r, Rate::from_mbps(10));
    }

    #[test]
    fn the_conversion_matches_the_named_constructors() {
        for x in [0.001, 0.1, 1.0 / 3.0, 2.4, 15.0, 123.456] {
            assert_eq!(set_one("t_ms", ParamValue::Number(x)).unwrap().t, Time::from_ms_f64(x));
            assert_eq!(set_one("t_us", ParamValue::Number(x)).unwrap().t, Time::from_us_f64(x));
            assert_eq!(set_one("q_kb", ParamValue::Number(x)).unwrap().q, (x * 1024.0).round() as u64);
            assert_eq!(set_one("r_mbps", ParamValue::Number(x)).unwrap().r, Rate::from_bps_f64(x * 1e6));
        }
    }

    #[test]
    fn bad_values_get_typed_errors() {
        let err = set_one("q_kb", ParamValue::Number(-1.0)).err().unwrap();
        assert_eq!(err.to_string(), "q_kb must be > 0 (got -1)");
        assert_eq!(set_one("g", ParamValue::Number(1.5)).err().unwrap().to_string(), "g must be in (0, 1] (got 1.5)");
        assert_eq!(set_one("n", ParamValue::Number(2.5)).err().unwrap().to_string(), "n must be an integer in 1..=10 (got 2.5)");
        assert_eq!(set_one("on", ParamValue::Number(1.0)).err().unwrap().to_string(), "on must be true or false");
        assert_eq!(set_one("mode", ParamValue::Text("c".into())).err().unwrap().to_string(), "mode must be \"a\" or \"b\"");
        assert_eq!(set_one("q_kb", ParamValue::Bool(true)).err().unwrap().to_string(), "q_kb must be a number");
        assert!(set(&mut Demo::default(), "q_ms", &ParamValue::Number(1.0)).is_none());
        assert!(set(&mut Demo::default(), "q", &ParamValue::Number(1.0)).is_none());
        let huge = set_one("q_kb", ParamValue::Number(1e300)).err().unwrap().to_string();
        assert!(huge.starts_with("q_kb must be at most 1099511627776 kb"), "{huge}");
        let tiny = set_one("t_ms", ParamValue::Number(1e-12)).err().unwrap().to_string();
        assert!(tiny.contains("rounds to 0 ps"), "{tiny}");
        let unknown = Demo::default().set("x", &ParamValue::Number(1.0)).unwrap_err().to_string();
        assert!(unknown.starts_with("unknown parameter; allowed: q_kb, t_ms, r_mbps, on, mode, g, n (a unit suffix"), "{unknown}");
    }

    #[test]
    fn switches_modes_and_counts_are_stored() {
        assert!(set_one("on", ParamValue::Bool(true)).unwrap().on);
        assert_eq!(set_one("mode", ParamValue::Text("b".into())).unwrap().mode, 1);
        assert_eq!(set_one("n", ParamValue::Number(7.0)).unwrap().n, 7);
    }

    #[test]
    fn names_and_reference_rows_come_from_the_table() {
        assert_eq!(names::<Demo>(), ["q_kb", "t_ms", "r_mbps", "on", "mode", "g", "n"]);
        assert_eq!(names_of(&Demo::TABLE[1]), ["t_ms", "t_us", "t_ns"]);
        assert!(table_faults::<Demo>().is_empty());
        let rows = reference_rows::<Demo>();
        assert_eq!(rows.len(), Demo::TABLE.len());
        assert_eq!(rows[4][1], "`\"a\"`, `\"b\"`");
    }
}
