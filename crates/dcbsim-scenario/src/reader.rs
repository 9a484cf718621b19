//! Typed reading of one table of the document, with errors at the offending key.

use crate::doc::{Entry, Node, Value};
use crate::error::{Origin, ScenarioError};
use dcbsim_core::dist::{SizeDist, TimeDist};
use dcbsim_core::units::{Rate, Time};
use std::cell::Cell;

/// A table being read: every key read is marked, and [`Table::finish`] rejects the
/// rest as unknown.
pub struct Table<'a> {
    file: &'a str,
    path: String,
    at: Origin,
    entries: &'a [Entry],
    used: Vec<Cell<bool>>,
}

/// The result of reading a scenario.
pub type Result<T> = std::result::Result<T, ScenarioError>;

impl<'a> Table<'a> {
    /// Reads `node` as the table at `path`.
    pub fn new(file: &'a str, path: &str, node: &'a Node) -> Result<Table<'a>> {
        match &node.value {
            Value::Table(entries) => Ok(Table {
                file,
                path: path.to_string(),
                at: node.at.clone(),
                entries,
                used: entries.iter().map(|_| Cell::new(false)).collect(),
            }),
            other => Err(ScenarioError::new(file, &node.at, path, format!("must be a table, not {}", other.type_name()))),
        }
    }

    /// The scenario file's name.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// The key path of `key` in this table.
    pub fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_string() } else { format!("{}.{}", self.path, key) }
    }

    /// An error about `key`, pointing at `node` (or at the table when absent).
    pub fn error(&self, key: &str, node: Option<&Node>, message: impl Into<String>) -> ScenarioError {
        let at = node.map_or(&self.at, |n| &n.at);
        ScenarioError::new(self.file, at, self.key_path(key), message)
    }

    /// The raw value of `key`, marking it read.
    pub fn get(&self, key: &str) -> Option<&'a Node> {
        let i = self.entries.iter().position(|e| e.key == key)?;
        self.used[i].set(true);
        Some(&self.entries[i].node)
    }

    /// Whether `key` is present (without marking it read).
    pub fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|e| e.key == key)
    }

    /// A number (integer or float).
    pub fn number(&self, key: &str) -> Result<Option<(f64, &'a Node)>> {
        let Some(node) = self.get(key) else { return Ok(None) };
        let x = match &node.value {
            Value::Int(i) => *i as f64,
            Value::Float(f) if f.is_finite() => *f,
            Value::BigInt(s) => s.replace('_', "").parse().unwrap_or(f64::INFINITY),
            Value::Float(_) => return Err(self.error(key, Some(node), "must be a finite number")),
            other => return Err(self.error(key, Some(node), format!("must be a number, not {}", other.type_name()))),
        };
        crate::units::check(key, x).map_err(|m| self.error(key, Some(node), m))?;
        Ok(Some((x, node)))
    }

    /// A number > 0.
    pub fn positive(&self, key: &str) -> Result<Option<f64>> {
        match self.number(key)? {
            Some((x, _)) if x > 0.0 => Ok(Some(x)),
            Some((x, node)) => Err(self.error(key, Some(node), format!("must be > 0 (got {x})"))),
            None => Ok(None),
        }
    }

    /// A rate given as `<stem>_gbps` or `<stem>_mbps` (at most one).
    pub fn rate(&self, stem: &str) -> Result<Option<Rate>> {
        let (g, m) = (format!("{stem}_gbps"), format!("{stem}_mbps"));
        match (self.positive(&g)?, self.positive(&m)?) {
            (Some(_), Some(_)) => Err(self.error(&m, self.get(&m), format!("give {g} or {m}, not both"))),
            (Some(x), None) => Ok(Some(Rate::from_gbps_f64(x))),
            (None, Some(x)) => Ok(Some(Rate::from_bps_f64(x * 1e6))),
            (None, None) => Ok(None),
        }
    }

    /// A number ≥ 0.
    pub fn non_negative(&self, key: &str) -> Result<Option<f64>> {
        match self.number(key)? {
            Some((x, _)) if x >= 0.0 => Ok(Some(x)),
            Some((x, node)) => Err(self.error(key, Some(node), format!("must be >= 0 (got {x})"))),
            None => Ok(None),
        }
    }

    /// An integer in `lo..=hi`.
    pub fn integer(&self, key: &str, lo: i64, hi: i64) -> Result<Option<i64>> {
        let Some(node) = self.get(key) else { return Ok(None) };
        match node.value {
            Value::Int(i) if (lo..=hi).contains(&i) => Ok(Some(i)),
            Value::Int(i) => Err(self.error(key, Some(node), format!("must be an integer in {lo}..={hi} (got {i})"))),
            Value::BigInt(ref s) => Err(self.error(key, Some(node), format!("must be an integer in {lo}..={hi} (got {s})"))),
            ref other => Err(self.error(key, Some(node), format!("must be an integer, not {}", other.type_name()))),
        }
    }

    /// A duration in microseconds: a number ≥ 0, or `{ uniform = [low, high] }`, or
    /// `{ exponential = mean }`.
    pub fn time_dist_us(&self, key: &str) -> Result<Option<TimeDist>> {
        let Some(node) = self.get(key) else { return Ok(None) };
        let us = |x: f64| Time::from_us_f64(x);
        let bad = || self.error(key, Some(node), "must be a number of µs ≥ 0, { uniform = [low, high] } or { exponential = mean }");
        let number = |n: &Node| match n.value {
            Value::Int(i) if i >= 0 => Some(i as f64),
            Value::Float(f) if f.is_finite() && f >= 0.0 => Some(f),
            _ => None,
        };
        self.check_units(key, node)?;
        if let Some(x) = number(node) {
            return Ok(Some(TimeDist::Fixed(us(x))));
        }
        let Value::Table(entries) = &node.value else { return Err(bad()) };
        let [entry] = entries.as_slice() else { return Err(bad()) };
        match (entry.key.as_str(), &entry.node.value) {
            ("uniform", Value::Array(pair)) if pair.len() == 2 => match (number(&pair[0]), number(&pair[1])) {
                (Some(low), Some(high)) if low <= high => Ok(Some(TimeDist::Uniform { low: us(low), high: us(high) })),
                _ => Err(self.error(key, Some(node), "uniform = [low, high] needs 0 <= low <= high")),
            },
            ("exponential", _) => match number(&entry.node) {
                Some(mean) => Ok(Some(TimeDist::Exponential { mean: us(mean) })),
                None => Err(bad()),
            },
            _ => Err(bad()),
        }
    }

    /// A size, from `size_kb` (KiB) or `size_bytes` (at most one): a number > 0,
    /// `"websearch"`, `{ uniform = [low, high] }`, `{ exponential = mean }`,
    /// `{ pareto = [mean, shape] }` or `{ empirical = [[size, cdf], ...] }`.
    pub fn size(&self) -> Result<Option<SizeDist>> {
        let (kb, bytes) = (self.get("size_kb"), self.get("size_bytes"));
        let (key, node, scale) = match (kb, bytes) {
            (Some(_), Some(n)) => return Err(self.error("size_bytes", Some(n), "give size_kb or size_bytes, not both")),
            (Some(n), None) => ("size_kb", n, 1024.0),
            (None, Some(n)) => ("size_bytes", n, 1.0),
            (None, None) => return Ok(None),
        };
        let bad = |why: &str| {
            self.error(key, Some(node), format!("{why}; a size is a number > 0, \"websearch\", {{ uniform = [low, high] }}, {{ exponential = mean }}, {{ pareto = [mean, shape] }} or {{ empirical = [[size, cdf], ...] }}"))
        };
        let num = |n: &Node| match n.value {
            Value::Int(i) if i > 0 => Some(i as f64 * scale),
            Value::Float(f) if f.is_finite() && f > 0.0 => Some(f * scale),
            _ => None,
        };
        self.check_units(key, node)?;
        let dist = match &node.value {
            Value::Str(s) if s == "websearch" => SizeDist::web_search(),
            Value::Int(_) | Value::Float(_) => SizeDist::Fixed(num(node).ok_or_else(|| bad("must be > 0"))?.round() as u64),
            Value::Table(entries) if entries.len() == 1 => {
                let (name, v) = (entries[0].key.as_str(), &entries[0].node);
                let list = |n: &Node| match &n.value {
                    Value::Array(items) => {
                        items.iter().map(|i| num(i).ok_or_else(|| bad("values must be numbers > 0"))).collect::<Result<Vec<_>>>()
                    }
                    _ => Err(bad("expected a list")),
                };
                match name {
                    "uniform" => match list(v)?.as_slice() {
                        [low, high] => SizeDist::Uniform { low: low.round() as u64, high: high.round() as u64 },
                        _ => return Err(bad("uniform takes [low, high]")),
                    },
                    "exponential" => SizeDist::Exponential { mean: num(v).ok_or_else(|| bad("the mean must be > 0"))? },
                    "pareto" => match list(v)?.as_slice() {
                        [mean, shape] => SizeDist::Pareto { mean: *mean, shape: shape / scale },
                        _ => return Err(bad("pareto takes [mean, shape]")),
                    },
                    "empirical" => SizeDist::Empirical(empirical(v, scale).ok_or_else(|| bad("empirical takes [[size, cdf], ...]"))?),
                    other => return Err(bad(&format!("unknown distribution \"{other}\""))),
                }
            }
            _ => return Err(bad("not a size")),
        };
        dist.check().map_err(|m| self.error(key, Some(node), m))?;
        Ok(Some(dist))
    }

    /// Checks every number in `node` (a value, a list or a one-key table of them)
    /// against the unit of `key`; see [`crate::units`].
    fn check_units(&self, key: &str, node: &Node) -> Result<()> {
        match &node.value {
            Value::Int(i) => crate::units::check(key, *i as f64).map_err(|m| self.error(key, Some(node), m)),
            Value::Float(f) => crate::units::check(key, *f).map_err(|m| self.error(key, Some(node), m)),
            Value::Array(items) => items.iter().try_for_each(|n| self.check_units(key, n)),
            Value::Table(entries) if entries.len() == 1 && matches!(entries[0].key.as_str(), "uniform" | "exponential") => {
                self.check_units(key, &entries[0].node)
            }
            _ => Ok(()),
        }
    }

    /// A string.
    pub fn string(&self, key: &str) -> Result<Option<(&'a str, &'a Node)>> {
        let Some(node) = self.get(key) else { return Ok(None) };
        match &node.value {
            Value::Str(s) => Ok(Some((s.as_str(), node))),
            other => Err(self.error(key, Some(node), format!("must be a string, not {}", other.type_name()))),
        }
    }

    /// A boolean.
    pub fn boolean(&self, key: &str) -> Result<Option<bool>> {
        let Some(node) = self.get(key) else { return Ok(None) };
        match &node.value {
            Value::Bool(b) => Ok(Some(*b)),
            other => Err(self.error(key, Some(node), format!("must be true or false, not {}", other.type_name()))),
        }
    }

    /// One of `allowed`.
    pub fn choice(&self, key: &str, allowed: &[&str]) -> Result<Option<&'a str>> {
        match self.string(key)? {
            Some((s, _)) if allowed.contains(&s) => Ok(Some(s)),
            Some((s, node)) => Err(self.error(key, Some(node), format!("unknown \"{s}\"; allowed: {}", allowed.join(", ")))),
            None => Ok(None),
        }
    }

    /// A string, or a list of strings.
    pub fn strings(&self, key: &str) -> Result<Option<Vec<(&'a str, &'a Node)>>> {
        let Some(node) = self.get(key) else { return Ok(None) };
        let not_string = |n: &Node| self.error(key, Some(n), format!("must be a string or a list of strings, not {}", n.value.type_name()));
        match &node.value {
            Value::Str(s) => Ok(Some(vec![(s.as_str(), node)])),
            Value::Array(items) => items
                .iter()
                .map(|n| match &n.value {
                    Value::Str(s) => Ok((s.as_str(), n)),
                    _ => Err(not_string(n)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            _ => Err(not_string(node)),
        }
    }

    /// A number > 0, or a list of them (one per flow of a glob, say).
    pub fn positives(&self, key: &str) -> Result<Option<Vec<f64>>> {
        let Some(node) = self.get(key) else { return Ok(None) };
        let one = |n: &Node| match n.value {
            Value::Int(i) if i > 0 => Ok(i as f64),
            Value::Float(f) if f.is_finite() && f > 0.0 => Ok(f),
            _ => Err(self.error(key, Some(n), "must be a finite number > 0 or a list of them")),
        };
        match &node.value {
            Value::Array(items) if items.is_empty() => Err(self.error(key, Some(node), "must not be an empty list")),
            Value::Array(items) => items.iter().map(one).collect::<Result<Vec<_>>>().map(Some),
            _ => one(node).map(|x| Some(vec![x])),
        }
    }

    /// A sub-table.
    pub fn table(&self, key: &str) -> Result<Option<Table<'a>>> {
        match self.get(key) {
            Some(node) => Table::new(self.file, &self.key_path(key), node).map(Some),
            None => Ok(None),
        }
    }

    /// An array of tables (`[[key]]`), each with its path `key[i]`.
    pub fn tables(&self, key: &str) -> Result<Vec<Table<'a>>> {
        let Some(node) = self.get(key) else { return Ok(Vec::new()) };
        let Value::Array(items) = &node.value else {
            return Err(self.error(key, Some(node), format!("must be a list of tables ([[{key}]]), not {}", node.value.type_name())));
        };
        let path = self.key_path(key);
        items.iter().enumerate().map(|(i, n)| Table::new(self.file, &format!("{path}[{i}]"), n)).collect()
    }

    /// The other keys, in document order, marking them read.
    pub fn rest(&self) -> Vec<(&'a str, &'a Node)> {
        let mut out = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            if !self.used[i].get() {
                self.used[i].set(true);
                out.push((e.key.as_str(), &e.node));
            }
        }
        out
    }

    /// Rejects any key not read, naming the allowed ones.
    pub fn finish(&self, allowed: &[&str]) -> Result<()> {
        for (i, e) in self.entries.iter().enumerate() {
            if !self.used[i].get() {
                let message = format!("unknown key; allowed: {}", allowed.join(", "));
                return Err(ScenarioError::new(self.file, &e.key_at, self.key_path(&e.key), message));
            }
        }
        Ok(())
    }

    /// A required value, or an error naming it; when a key not read yet looks like a
    /// misspelling of it, the error points at that key instead.
    pub fn required<T>(&self, key: &str, value: Option<T>) -> Result<T> {
        value.ok_or_else(|| match self.near_miss(key) {
            Some(e) => {
                let message = format!("unknown key; did you mean `{key}` (required)?");
                ScenarioError::new(self.file, &e.key_at, self.key_path(&e.key), message)
            }
            None => self.error(key, None, "is required"),
        })
    }

    /// The first key not read yet within two edits of `key`.
    fn near_miss(&self, key: &str) -> Option<&Entry> {
        let unread = self.entries.iter().enumerate().filter(|(i, _)| !self.used[*i].get());
        unread.map(|(_, e)| e).find(|e| edit_distance(&e.key, key) <= 2)
    }
}

/// Levenshtein distance between two short keys.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The points of an empirical CDF: `[[size, cdf], ...]`, sizes scaled.
fn empirical(node: &Node, scale: f64) -> Option<Vec<(f64, f64)>> {
    let Value::Array(rows) = &node.value else { return None };
    let number = |n: &Node| match n.value {
        Value::Int(i) => Some(i as f64),
        Value::Float(f) if f.is_finite() => Some(f),
        _ => None,
    };
    rows.iter()
        .map(|row| match &row.value {
            Value::Array(pair) if pair.len() == 2 => Some((number(&pair[0])? * scale, number(&pair[1])?)),
            _ => None,
        })
        .collect()
}
