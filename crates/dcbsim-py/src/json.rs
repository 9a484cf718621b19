//! `dcbsim._core.write_json`: a run's summary (dicts, lists, strings, numbers) written
//! as JSON in the layout of `dcbsim.outputs.write_json`, byte for byte what Python's
//! `json` module writes for each value (`ensure_ascii`, `NaN`, `default=str`), a
//! hundred thousand flows' entries in a fraction of the time its encoder takes.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Containers nested deeper than this are refused (as Python's encoder refuses
/// runaway recursion), which also ends a structure that contains itself.
const MAX_DEPTH: usize = 512;

/// Writes `value` to `path` as JSON: the containers above `one_line_depth` indented
/// by two spaces a level, those at it and below each on one line (", " and ": "
/// between items), then a newline. Mapping keys that are not strings are written
/// as JSON writes them (on the indented levels, as their JSON text); values JSON has
/// no type for, as their `str()`.
#[pyfunction]
pub fn write_json(path: std::path::PathBuf, value: &Bound<'_, PyAny>, one_line_depth: usize) -> PyResult<()> {
    let file = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    let mut writer = Writer { out: Vec::with_capacity(1 << 16), file, one_line_depth, scratch: String::new(), in_key: false };
    writer.value(value, 0)?;
    writer.out.push(b'\n');
    writer.flush()?;
    writer.file.flush()?;
    Ok(())
}

struct Writer {
    out: Vec<u8>,
    file: BufWriter<File>,
    one_line_depth: usize,
    scratch: String,
    /// Whether a key's text is being made in `out` (which must not be flushed then).
    in_key: bool,
}

impl Writer {
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.write_all(&self.out)?;
        self.out.clear();
        Ok(())
    }

    fn value(&mut self, v: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
        if depth > MAX_DEPTH {
            return Err(PyValueError::new_err("the value is nested too deeply to write as JSON"));
        }
        if v.is_none() {
            self.out.extend_from_slice(b"null");
        } else if let Ok(b) = v.cast::<PyBool>() {
            self.out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
        } else if let Ok(s) = v.cast::<PyString>() {
            self.string(s)?;
        } else if let Ok(i) = v.cast::<PyInt>() {
            self.int(i)?;
        } else if let Ok(f) = v.cast::<PyFloat>() {
            float(&mut self.out, &mut self.scratch, f.value());
        } else if let Ok(d) = v.cast::<PyDict>() {
            self.dict(d, depth)?;
        } else if let Ok(l) = v.cast::<PyList>() {
            self.list(l.iter(), l.len(), depth)?;
        } else if let Ok(t) = v.cast::<PyTuple>() {
            self.list(t.iter(), t.len(), depth)?;
        } else {
            self.string(&v.str()?)?;
        }
        if self.out.len() >= 1 << 16 && !self.in_key {
            self.flush()?;
        }
        Ok(())
    }

    /// An int as `int.__repr__` writes it (not a subclass's own text).
    fn int(&mut self, i: &Bound<'_, PyInt>) -> PyResult<()> {
        if let Ok(n) = i.extract::<i64>() {
            let _ = write!(self.scratch_clear(), "{n}");
        } else if let Ok(n) = i.extract::<u64>() {
            let _ = write!(self.scratch_clear(), "{n}");
        } else {
            let text = i.py().get_type::<PyInt>().call_method1("__repr__", (i,))?;
            let text = text.cast::<PyString>()?.to_str()?.to_string();
            self.scratch_clear().push_str(&text);
        }
        self.out.extend_from_slice(self.scratch.as_bytes());
        Ok(())
    }

    fn scratch_clear(&mut self) -> &mut String {
        self.scratch.clear();
        &mut self.scratch
    }

    fn string(&mut self, s: &Bound<'_, PyString>) -> PyResult<()> {
        match s.to_str() {
            Ok(text) => {
                escape(&mut self.out, text);
                Ok(())
            }
            // A lone surrogate: Python's own escaping writes it as \udXXX.
            Err(_) => {
                let escaped = s.py().import("json.encoder")?.getattr("encode_basestring_ascii")?.call1((s,))?;
                self.out.extend_from_slice(escaped.cast::<PyString>()?.to_str()?.as_bytes());
                Ok(())
            }
        }
    }

    fn list<'py>(&mut self, items: impl Iterator<Item = Bound<'py, PyAny>>, len: usize, depth: usize) -> PyResult<()> {
        if len == 0 {
            self.out.extend_from_slice(b"[]");
            return Ok(());
        }
        let indented = depth < self.one_line_depth;
        self.out.extend_from_slice(if indented { b"[\n" } else { b"[" });
        for (i, item) in items.enumerate() {
            self.separator(i, depth, indented);
            self.value(&item, depth + 1)?;
        }
        self.close(b']', depth, indented);
        Ok(())
    }

    fn dict(&mut self, d: &Bound<'_, PyDict>, depth: usize) -> PyResult<()> {
        if d.is_empty() {
            self.out.extend_from_slice(b"{}");
            return Ok(());
        }
        let indented = depth < self.one_line_depth;
        self.out.extend_from_slice(if indented { b"{\n" } else { b"{" });
        for (i, (key, item)) in d.iter().enumerate() {
            self.separator(i, depth, indented);
            self.key(&key, indented)?;
            self.out.extend_from_slice(b": ");
            self.value(&item, depth + 1)?;
        }
        self.close(b'}', depth, indented);
        Ok(())
    }

    fn separator(&mut self, i: usize, depth: usize, indented: bool) {
        if indented {
            if i > 0 {
                self.out.extend_from_slice(b",\n");
            }
            self.out.extend(std::iter::repeat_n(b' ', 2 * (depth + 1)));
        } else if i > 0 {
            self.out.extend_from_slice(b", ");
        }
    }

    fn close(&mut self, bracket: u8, depth: usize, indented: bool) {
        if indented {
            self.out.push(b'\n');
            self.out.extend(std::iter::repeat_n(b' ', 2 * depth));
        }
        self.out.push(bracket);
    }

    /// A mapping key: a string as it is; on an indented level any other key as its
    /// JSON text, on a one-line level as Python's encoder turns keys into strings
    /// (numbers as written, `true`, `false`, `null`; others refused).
    fn key(&mut self, key: &Bound<'_, PyAny>, indented: bool) -> PyResult<()> {
        if let Ok(s) = key.cast::<PyString>() {
            return self.string(s);
        }
        let simple = key.is_none() || key.is_instance_of::<PyBool>() || key.is_instance_of::<PyInt>() || key.is_instance_of::<PyFloat>();
        if !indented && !simple {
            let kind = key.get_type().name()?;
            return Err(PyTypeError::new_err(format!("keys must be str, int, float, bool or None, not {kind}")));
        }
        // The key's JSON text, made apart from the output (which `value` may flush).
        let out = std::mem::take(&mut self.out);
        self.in_key = true;
        let made = self.value(key, self.one_line_depth);
        self.in_key = false;
        let text = std::mem::replace(&mut self.out, out);
        made?;
        escape(&mut self.out, &String::from_utf8(text).expect("JSON text is UTF-8"));
        Ok(())
    }
}

/// `text` as a JSON string with every character outside printable ASCII escaped, as
/// `json.encoder.encode_basestring_ascii` writes it. Runs of printable ASCII are
/// copied whole (names and keys are mostly nothing else).
fn escape(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut plain_from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\' {
            i += 1;
            continue;
        }
        out.extend_from_slice(&bytes[plain_from..i]);
        let c = text[i..].chars().next().expect("a character starts here");
        escape_char(out, c);
        i += c.len_utf8();
        plain_from = i;
    }
    out.extend_from_slice(&bytes[plain_from..]);
    out.push(b'"');
}

/// One character that is not printable ASCII (or is a quote or a backslash), escaped.
fn escape_char(out: &mut Vec<u8>, c: char) {
    match c {
        '"' => out.extend_from_slice(b"\\\""),
        '\\' => out.extend_from_slice(b"\\\\"),
        '\n' => out.extend_from_slice(b"\\n"),
        '\r' => out.extend_from_slice(b"\\r"),
        '\t' => out.extend_from_slice(b"\\t"),
        '\u{8}' => out.extend_from_slice(b"\\b"),
        '\u{c}' => out.extend_from_slice(b"\\f"),
        _ => {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(Hex(out), "\\u{unit:04x}");
            }
        }
    }
}

/// Formatting into a byte buffer.
struct Hex<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Hex<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// `x` as Python's `json` writes a float: `NaN`, `Infinity` and `-Infinity`, else
/// `repr(x)`, the shortest digits that read back as `x`, in positional notation when
/// the decimal point falls within 16 places left of them to 4 zeros right (`100.0`,
/// `0.0001`), else in exponent notation (`1e+16`, `1.5e-05`).
fn float(out: &mut Vec<u8>, scratch: &mut String, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(b"NaN");
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"Infinity" } else { b"-Infinity" });
        return;
    }
    scratch.clear();
    let _ = write!(scratch, "{:e}", x.abs());
    let digits = scratch.bytes().take_while(|&b| b != b'e').filter(|&b| b != b'.').count();
    if digits >= 16 {
        // Two decimals of 16 or 17 digits may both read back as `x`: Python writes
        // the nearer, the correctly rounded one, where Rust's shortest may not.
        let shortest = scratch.len();
        let _ = write!(scratch, "{:.*e}", digits - 1, x.abs());
        if scratch[shortest..].parse::<f64>() == Ok(x.abs()) {
            scratch.drain(..shortest);
        } else {
            scratch.truncate(shortest);
        }
    }
    let (mantissa, exponent) = scratch.split_once('e').expect("exponent notation");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let digits: Vec<u8> = mantissa.bytes().filter(|&b| b != b'.').collect();
    if x.is_sign_negative() {
        out.push(b'-');
    }
    // The decimal point lies `point` digits from the first digit's left.
    let point = exponent + 1;
    if !(-4 < point && point <= 16) {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(Hex(out), "e{sign}{:02}", exponent.unsigned_abs());
    } else if point <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-point) as usize));
        out.extend_from_slice(&digits);
    } else if (point as usize) < digits.len() {
        out.extend_from_slice(&digits[..point as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[point as usize..]);
    } else {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat_n(b'0', point as usize - digits.len()));
        out.extend_from_slice(b".0");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(x: f64) -> String {
        let mut out = Vec::new();
        float(&mut out, &mut String::new(), x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_read_as_python_writes_them() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (1e100, "1e+100"),
            (-2.5, "-2.5"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (2441406.25, "2441406.25"),
            (-1113178120592002.2, "-1113178120592002.2"),
        ];
        for (x, want) in cases {
            assert_eq!(text(x), want, "{x:e}");
        }
    }

    #[test]
    fn strings_escape_all_but_printable_ascii() {
        let mut out = Vec::new();
        escape(&mut out, "a\"\\\n\r\t\u{8}\u{c}\u{1}\u{7f}é😀~");
        assert_eq!(String::from_utf8(out).unwrap(), r#""a\"\\\n\r\t\b\f\u0001\u007f\u00e9\ud83d\ude00~""#);
    }
}
