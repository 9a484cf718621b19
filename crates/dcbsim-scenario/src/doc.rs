//! The scenario document: a TOML tree whose every value remembers where it came from
//! (a file position or a `--set` override), so that errors can point at it.

use crate::error::Origin;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A TOML value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// An integer beyond the 64-bit signed range, as written.
    BigInt(String),
    /// A boolean.
    Bool(bool),
    /// A date or time, kept as written.
    Datetime(String),
    /// An array.
    Array(Vec<Node>),
    /// A table, in document order.
    Table(Vec<Entry>),
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it came from.
    pub at: Origin,
}

/// One key of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Where the key is written.
    pub key_at: Origin,
    /// Its value.
    pub node: Node,
}

impl Value {
    /// A short name of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::BigInt(_) => "an integer beyond ±2^63",
            Value::Bool(_) => "a boolean",
            Value::Datetime(_) => "a date",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

/// Byte offsets of the line starts of a text, so that a position costs a binary
/// search instead of a scan from the start (reading stays linear in the file's size).
/// A column counts characters from the line's start: the last position asked for is
/// kept, so that positions along one long line (a list of a million values written on
/// one line) count on from the one before instead of from the line's start again.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
    /// The last position: (line, byte offset, column).
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl<'t> Lines<'t> {
    /// Indexes the lines of `text`.
    pub fn new(text: &'t str) -> Lines<'t> {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Lines { text, starts, last: std::cell::Cell::new((1, 0, 1)) }
    }

    /// The position of byte `offset`.
    pub fn at(&self, offset: usize) -> Origin {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let (last_line, last_offset, last_column) = self.last.get();
        let (from, counted) = match last_line == line && last_offset <= offset {
            true => (last_offset, last_column - 1),
            false => (start, 0),
        };
        let column = self.text.get(from..offset).map_or(offset - from, |s| s.chars().count()) + counted + 1;
        if self.text.is_char_boundary(offset) {
            self.last.set((line, offset, column));
        }
        Origin::File { line, column }
    }
}

fn convert(lines: &Lines, value: &Spanned<DeValue<'_>>) -> Node {
    let at = lines.at(value.span().start);
    let value = match value.get_ref() {
        DeValue::String(s) => Value::Str(s.to_string()),
        DeValue::Integer(i) => match i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()) {
            Ok(n) => Value::Int(n),
            Err(_) => Value::BigInt(i.as_str().to_string()),
        },
        DeValue::Float(f) => Value::Float(parse_float(f.as_str())),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(items) => Value::Array(items.iter().map(|v| convert(lines, v)).collect()),
        DeValue::Table(table) => Value::Table(entries(lines, table)),
    };
    Node { value, at }
}

fn parse_float(s: &str) -> f64 {
    match s.replace('_', "").as_str() {
        "inf" | "+inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" | "+nan" | "-nan" => f64::NAN,
        other => other.parse().unwrap_or(f64::NAN),
    }
}

fn entries(lines: &Lines, table: &DeTable<'_>) -> Vec<Entry> {
    table.iter().map(|(k, v)| Entry { key: k.get_ref().to_string(), key_at: lines.at(k.span().start), node: convert(lines, v) }).collect()
}

/// Parses `text` into a tree; a syntax error comes back as (position, message).
pub fn parse(text: &str) -> Result<Node, (Origin, String)> {
    match DeTable::parse(text) {
        Ok(table) => {
            let lines = Lines::new(text);
            Ok(Node { value: Value::Table(entries(&lines, table.get_ref())), at: lines.at(0) })
        }
        Err(e) => {
            let at = e.span().map_or(Origin::Nowhere, |s| Origin::at(text, s.start));
            Err((at, e.message().trim().replace('\n', " ")))
        }
    }
}

/// Parses the value of a `--set` override: a TOML value, or else a plain string.
pub fn parse_value(raw: &str, expr: &str) -> Node {
    let origin = Origin::Override(expr.to_string());
    let text = format!("v = {raw}");
    let value = match DeTable::parse(&text) {
        Ok(t) => t.get_ref().iter().next().map(|(_, v)| convert(&Lines::new(&text), v).value),
        Err(_) => None,
    };
    let mut node = Node { value: value.unwrap_or_else(|| Value::Str(raw.to_string())), at: origin.clone() };
    relabel(&mut node, &origin);
    node
}

fn relabel(node: &mut Node, origin: &Origin) {
    node.at = origin.clone();
    match &mut node.value {
        Value::Array(items) => items.iter_mut().for_each(|n| relabel(n, origin)),
        Value::Table(entries) => entries.iter_mut().for_each(|e| {
            e.key_at = origin.clone();
            relabel(&mut e.node, origin)
        }),
        _ => {}
    }
}

/// The tree as a plain TOML value (for writing the scenario as run).
pub fn to_toml(node: &Node) -> toml::Value {
    match &node.value {
        Value::Str(s) | Value::Datetime(s) | Value::BigInt(s) => toml::Value::String(s.clone()),
        Value::Int(i) => toml::Value::Integer(*i),
        Value::Float(f) => toml::Value::Float(*f),
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Array(items) => toml::Value::Array(items.iter().map(to_toml).collect()),
        Value::Table(entries) => toml::Value::Table(entries.iter().map(|e| (e.key.clone(), to_toml(&e.node))).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_remember_their_position() {
        let doc = parse("[run]\nduration_ms = 5.0\n").unwrap();
        let Value::Table(top) = &doc.value else { panic!() };
        let Value::Table(run) = &top[0].node.value else { panic!() };
        assert_eq!(run[0].key, "duration_ms");
        assert_eq!(run[0].node.value, Value::Float(5.0));
        assert_eq!(run[0].node.at, Origin::File { line: 2, column: 15 });
        assert_eq!(run[0].key_at, Origin::File { line: 2, column: 1 });
    }

    #[test]
    fn line_index_matches_a_scan() {
        let text = "a = 1\nbé = 2\n\nc = 3";
        let lines = Lines::new(text);
        for offset in [0, 3, 6, 8, 13, 14, 15, text.len()] {
            if text.is_char_boundary(offset) {
                assert_eq!(lines.at(offset), Origin::at(text, offset), "offset {offset}");
            }
        }
    }

    #[test]
    fn positions_asked_in_any_order_match_a_scan() {
        // Columns count on from the last position asked on the same line: forwards,
        // backwards, repeated and across lines, with multi-byte characters between.
        let text = "xs = [\"é\", \"µµ\", \"a\", \"ö\"]\ny = \"ü\"\nz = [1, 2]";
        let lines = Lines::new(text);
        let offsets: Vec<usize> = (0..=text.len()).filter(|&o| text.is_char_boundary(o)).collect();
        let mut order = offsets.clone();
        order.extend(offsets.iter().rev());
        order.extend(offsets.iter().step_by(3).chain(offsets.iter().step_by(2)));
        for offset in order {
            assert_eq!(lines.at(offset), Origin::at(text, offset), "offset {offset}");
        }
    }

    #[test]
    fn integers_beyond_i64_are_kept_as_written() {
        let doc = parse("seed = 18446744073709551616\n").unwrap();
        let Value::Table(top) = &doc.value else { panic!() };
        assert_eq!(top[0].node.value, Value::BigInt("18446744073709551616".into()));
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let (at, msg) = parse("[run\nx = 1").unwrap_err();
        assert!(matches!(at, Origin::File { line: 1, .. }), "{at:?}");
        assert!(!msg.is_empty());
    }

    #[test]
    fn override_values_parse_as_toml_or_fall_back_to_strings() {
        assert_eq!(parse_value("1.5", "x=1.5").value, Value::Float(1.5));
        assert_eq!(parse_value("\"qcn\"", "x").value, Value::Str("qcn".into()));
        assert_eq!(parse_value("qcn", "x").value, Value::Str("qcn".into()));
        assert_eq!(parse_value("[1, 2]", "x").at, Origin::Override("x".into()));
    }
}
