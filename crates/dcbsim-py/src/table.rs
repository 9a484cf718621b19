//! `dcbsim._core.flow_table`: the summary's flow table (`dcbsim.table`), the same
//! text Python's formatting gives, for runs of up to a million flows (built cell by
//! cell in Python it took most of the time of writing `summary.txt`).

use std::fmt::Write as _;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyTuple};

/// The flow table's headers, in column order.
const HEADERS: [&str; 11] =
    ["flow", "Gb/s", "active Gb/s", "offered", "fair Gb/s", "weight", "delivered", "dropped", "notifications", "rtx/RTO", "FCT (ms)"];

/// The table of `flows`, a list of `(name, summary entry)`: one row per flow (its
/// throughput, active throughput, offered load and fair share in Gb/s, weight,
/// delivered and dropped frames, notifications, retransmissions/timeouts, FCT in ms),
/// under the headers and a rule, the first column left-aligned and the others
/// right-aligned, each as wide as its widest cell.
#[pyfunction]
pub fn flow_table(flows: &Bound<'_, PyList>) -> PyResult<String> {
    let mut cells = Cells::default();
    for header in HEADERS {
        cells.push_str(header);
    }
    for item in flows.iter() {
        let item = item.cast::<PyTuple>()?;
        let (name, flow) = (item.get_item(0)?, item.get_item(1)?);
        let flow = flow.cast::<PyDict>()?;
        cells.push_str(&name.str()?.to_cow()?);
        cells.fixed(required(flow, "throughput_bps")?.extract::<f64>()? / 1e9, 3);
        for key in ["throughput_active_bps", "offered_bps", "fair_share_bps"] {
            match present(flow, key)? {
                Some(v) => cells.fixed(v.extract::<f64>()? / 1e9, 3),
                None => cells.push_str(""),
            }
        }
        let weight = present(flow, "weight")?.map(|w| w.extract::<f64>()).transpose()?.unwrap_or(1.0);
        cells.general(weight);
        for key in ["delivered_frames", "dropped_frames", "notifications"] {
            cells.text(&required(flow, key)?)?;
        }
        let retransmits = text_or_zero(flow, "retransmits")?;
        let timeouts = text_or_zero(flow, "timeouts")?;
        cells.push_str(&format!("{retransmits}/{timeouts}"));
        match required(flow, "completion_time_s")? {
            v if v.is_none() => cells.push_str(""),
            v => cells.fixed(1e3 * v.extract::<f64>()?, 3),
        }
    }
    Ok(cells.layout(HEADERS.len()))
}

/// `flow[key]`, an error as Python's `KeyError` when missing.
fn required<'py>(flow: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    flow.get_item(key)?.ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(key.to_string()))
}

/// `flow.get(key)`, `None` also when the value is `None`.
fn present<'py>(flow: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(flow.get_item(key)?.filter(|v| !v.is_none()))
}

/// `str(flow.get(key, 0))`.
fn text_or_zero(flow: &Bound<'_, PyDict>, key: &str) -> PyResult<String> {
    match flow.get_item(key)? {
        Some(v) => text_of(&v),
        None => Ok("0".to_string()),
    }
}

/// `str(value)`: an int's digits made here, anything else's text from Python.
fn text_of(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_instance_of::<PyInt>() {
        if let Ok(n) = value.extract::<i64>() {
            return Ok(n.to_string());
        }
    }
    Ok(value.str()?.to_cow()?.into_owned())
}

/// The cells of a table, row after row, in one string.
#[derive(Default)]
struct Cells {
    text: String,
    /// Each cell's end in `text` and its width in characters (as Python counts them).
    ends: Vec<(usize, usize)>,
}

impl Cells {
    fn push_str(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push((self.text.len(), s.chars().count()));
    }

    fn text(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let s = text_of(value)?;
        self.push_str(&s);
        Ok(())
    }

    /// `f"{x:.{digits}f}"`.
    fn fixed(&mut self, x: f64, digits: usize) {
        let start = self.text.len();
        if x.is_nan() {
            self.text.push_str("nan");
        } else {
            let _ = write!(self.text, "{x:.digits$}");
        }
        self.ends.push((self.text.len(), self.text.len() - start));
    }

    /// `f"{x:g}"`: six significant digits, trailing zeros dropped, in exponent form
    /// below 1e-4 and from 1e6 on.
    fn general(&mut self, x: f64) {
        let start = self.text.len();
        self.text.push_str(&general(x));
        self.ends.push((self.text.len(), self.text.len() - start));
    }

    /// The table: rows of `columns` cells (the headers first), padded to the widest
    /// cell of each column, then joined by newlines, a rule under the headers.
    fn layout(&self, columns: usize) -> String {
        let mut widths = vec![0; columns];
        for (i, &(_, width)) in self.ends.iter().enumerate() {
            widths[i % columns] = widths[i % columns].max(width);
        }
        let line = widths.iter().sum::<usize>() + 2 * (columns - 1);
        let mut out = String::with_capacity(self.text.len() + self.ends.len() * 4 + line);
        let mut start = 0;
        for (i, &(end, width)) in self.ends.iter().enumerate() {
            let column = i % columns;
            if column > 0 {
                out.push_str("  ");
            } else if i > 0 {
                out.push('\n');
            }
            let pad = widths[column] - width;
            if column > 0 {
                out.extend(std::iter::repeat_n(' ', pad));
            }
            out.push_str(&self.text[start..end]);
            if column == 0 {
                out.extend(std::iter::repeat_n(' ', pad));
            }
            start = end;
            if i + 1 == columns {
                out.push('\n');
                out.extend(std::iter::repeat_n('-', line));
            }
        }
        out
    }
}

/// `format(x, "g")` as Python writes it.
fn general(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let scientific = format!("{x:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("exponent notation");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let trim = |s: &str| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() };
    if (-4..6).contains(&exponent) {
        trim(&format!("{x:.*}", (5 - exponent) as usize))
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.unsigned_abs())
    }
}

/// The cells' text as Python would hold it (for the tests).
#[cfg(test)]
fn strings(cells: &Cells) -> Vec<&str> {
    let mut start = 0;
    cells
        .ends
        .iter()
        .map(|&(end, _)| {
            let s = &cells.text[start..end];
            start = end;
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_reads_as_python_writes_it() {
        let cases = [
            (1.0, "1"),
            (0.5, "0.5"),
            (1.5, "1.5"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (999999.5, "1e+06"),
            (0.0001, "0.0001"),
            (1e-5, "1e-05"),
            (1.0 / 3.0, "0.333333"),
            (-0.0, "-0"),
        ];
        for (x, want) in cases {
            assert_eq!(general(x), want, "{x}");
        }
    }

    #[test]
    fn cells_pad_to_the_widest_left_then_right() {
        let mut cells = Cells::default();
        for s in ["a", "bb", "ééé", "1", "x", "22"] {
            cells.push_str(s);
        }
        assert_eq!(strings(&cells), ["a", "bb", "ééé", "1", "x", "22"]);
        assert_eq!(cells.layout(3), "a  bb  ééé\n----------\n1   x   22");
    }
}
