//! `dcbsim._core.write_json`: a run's summary or manifest (dicts, lists, strings,
//! numbers) written as JSON by `serde_json`, straight from the Python values (no copy
//! of a hundred thousand flows' entries first), in the layout of
//! `dcbsim.outputs.write_json`.
//!
//! What is written, value by value: keys in the dict's own order; `None`, bools,
//! strings as JSON has them (UTF-8, only `"`, `\` and control characters escaped; a
//! lone surrogate, which has no UTF-8, as replacement characters, U+FFFD);
//! ints exactly, however large; finite floats as the shortest text that reads back
//! as the same float (`0.1`, `1e-7`, `1e16`, `-0.0`); NaN and the infinities as
//! `null`, since JSON has no such numbers; tuples as lists; anything else as the
//! string `str()` gives it. Keys that are not strings become strings: `None`, bools
//! and numbers as their JSON text; other keys are refused (`TypeError`).

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

mod layout;

/// Containers nested deeper than this are refused (as Python's encoder refuses
/// runaway recursion), which also ends a structure that contains itself.
const MAX_DEPTH: usize = 512;

/// Writes `value` to `path` as JSON, then a newline: the containers above
/// `one_line_depth` indented by two spaces a level, those at it and below each on one
/// line (see [`layout::Layout`]); the values as the module's documentation says.
#[pyfunction]
pub fn write_json(path: std::path::PathBuf, value: &Bound<'_, PyAny>, one_line_depth: usize) -> PyResult<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    let failed = RefCell::new(None);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, layout::Layout::new(one_line_depth));
    let written = Py { value, depth: 0, failed: &failed }.serialize(&mut serializer);
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    written.map_err(|e| if e.is_io() { PyOSError::new_err(e.to_string()) } else { PyValueError::new_err(e.to_string()) })?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// A Python value being serialized; a Python error met on the way is kept in `failed`
/// (and raised as it is), the serializer told only that it failed.
struct Py<'a, 'py> {
    value: &'a Bound<'py, PyAny>,
    depth: usize,
    failed: &'a RefCell<Option<PyErr>>,
}

impl<'py> Py<'_, 'py> {
    fn fail<E: serde::ser::Error>(&self, e: PyErr) -> E {
        let message = e.to_string();
        *self.failed.borrow_mut() = Some(e);
        E::custom(message)
    }

    fn child<'b>(&'b self, value: &'b Bound<'py, PyAny>) -> Py<'b, 'py> {
        Py { value, depth: self.depth + 1, failed: self.failed }
    }

    fn items<S: Serializer>(&self, items: impl ExactSizeIterator<Item = Bound<'py, PyAny>>, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(items.len()))?;
        for item in items {
            seq.serialize_element(&self.child(&item))?;
        }
        seq.end()
    }

    fn dict<S: Serializer>(&self, d: &Bound<'py, PyDict>, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(d.len()))?;
        for (key, item) in d.iter() {
            match key.cast::<PyString>() {
                // A string key as it is, without a copy (a summary has millions).
                Ok(text) => map.serialize_key(&*text.to_string_lossy())?,
                Err(_) => map.serialize_key(&key_text(&key).map_err(|e| self.fail::<S::Error>(e))?)?,
            }
            map.serialize_value(&self.child(&item))?;
        }
        map.end()
    }
}

impl Serialize for Py<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.value;
        if self.depth > MAX_DEPTH {
            return Err(S::Error::custom("the value is nested too deeply to write as JSON"));
        }
        if v.is_none() {
            s.serialize_unit()
        } else if let Ok(b) = v.cast::<PyBool>() {
            s.serialize_bool(b.is_true())
        } else if let Ok(text) = v.cast::<PyString>() {
            // A lone surrogate (no UTF-8 text) becomes replacement characters.
            s.serialize_str(&text.to_string_lossy())
        } else if let Ok(i) = v.cast::<PyInt>() {
            int(i, s).map_err(|e| self.fail(e))?
        } else if let Ok(f) = v.cast::<PyFloat>() {
            // serde_json writes a NaN or an infinity as null.
            s.serialize_f64(f.value())
        } else if let Ok(d) = v.cast::<PyDict>() {
            self.dict(d, s)
        } else if let Ok(l) = v.cast::<PyList>() {
            self.items(l.iter(), s)
        } else if let Ok(t) = v.cast::<PyTuple>() {
            self.items(t.iter(), s)
        } else {
            let text = v.str().map_err(|e| self.fail::<S::Error>(e))?;
            s.serialize_str(&text.to_string_lossy())
        }
    }
}

/// An int exactly: as a 64-bit integer when it is one, else as its decimal text (which
/// JSON allows at any length).
fn int<S: Serializer>(i: &Bound<'_, PyInt>, s: S) -> PyResult<Result<S::Ok, S::Error>> {
    if let Ok(n) = i.extract::<i64>() {
        return Ok(s.serialize_i64(n));
    }
    if let Ok(n) = i.extract::<u64>() {
        return Ok(s.serialize_u64(n));
    }
    // `int.__repr__`, not a subclass's own text.
    let text = i.py().get_type::<PyInt>().call_method1("__repr__", (i,))?.extract::<String>()?;
    let raw = serde_json::value::RawValue::from_string(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(raw.serialize(s))
}

/// A mapping key that is not a string as a string: `None`, a bool or a number as its
/// JSON text; any other key is refused, as Python's `json` module refuses it.
fn key_text(key: &Bound<'_, PyAny>) -> PyResult<String> {
    if key.is_none() || key.is_instance_of::<PyBool>() || key.is_instance_of::<PyInt>() || key.is_instance_of::<PyFloat>() {
        let failed = RefCell::new(None);
        let text = serde_json::to_string(&Py { value: key, depth: 0, failed: &failed });
        if let Some(e) = failed.into_inner() {
            return Err(e);
        }
        return text.map_err(|e| PyValueError::new_err(e.to_string()));
    }
    let kind = key.get_type().name()?;
    Err(PyTypeError::new_err(format!("keys must be str, int, float, bool or None, not {kind}")))
}
