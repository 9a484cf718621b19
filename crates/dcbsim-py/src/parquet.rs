//! `dcbsim._core.TidyWriter`: the tidy table of samples (`time_s, metric, entity,
//! value, seed`) written as Parquet by the `parquet` crate, which does the encodings
//! (dictionary where it pays), the statistics and the compression. The table is
//! given a group of series at a time, each group written as row groups of at most
//! [`ROW_GROUP_ROWS`] rows, so a table larger than memory streams through.

use std::fs::File;
use std::sync::Arc;

use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PyString};

/// The schema readers see: Float64, String and UInt64 columns, none nullable.
const SCHEMA: &str = "message schema {
    REQUIRED DOUBLE time_s;
    REQUIRED BYTE_ARRAY metric (STRING);
    REQUIRED BYTE_ARRAY entity (STRING);
    REQUIRED DOUBLE value;
    REQUIRED INT64 seed (INTEGER(64, false));
}";

/// Rows of a row group at most (the crate's own default for its Arrow writer).
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Rows handed to a column writer at a time: the rows made for it (strings, times)
/// take memory in proportion to this, not to the table.
const BATCH_ROWS: usize = 1 << 16;

/// The compression of a scenario's `output.compression` (`zstd`, `lz4`, `snappy`,
/// `none`); anything else is refused.
fn compression(name: &str) -> PyResult<Compression> {
    Ok(match name {
        // Level 1, the crate's default: most of the gain at a fraction of the time.
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        // The raw block format: Parquet's own LZ4 codec (Hadoop framing) is deprecated.
        "lz4" => Compression::LZ4_RAW,
        "snappy" => Compression::SNAPPY,
        "none" => Compression::UNCOMPRESSED,
        other => return Err(PyValueError::new_err(format!("unknown compression \"{other}\"; allowed: zstd, lz4, snappy, none"))),
    })
}

/// The library's defaults (dictionary encoding where it pays, page statistics), the
/// codec, and no minimum and maximum for the name columns: comparing every name took a
/// tenth of the time of a table of 100,000 flows, and readers select names through
/// the dictionary.
fn properties(codec: Compression) -> WriterProperties {
    let mut builder = WriterProperties::builder().set_compression(codec).set_created_by(format!("dcbsim {}", env!("CARGO_PKG_VERSION")));
    for name in ["metric", "entity"] {
        builder = builder.set_column_statistics_enabled(ColumnPath::from(name), EnabledStatistics::None);
    }
    builder.build()
}

fn io_error(path: &str, e: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(format!("{path}: cannot write the table: {e}"))
}

/// One group of series, owned (the GIL is released while it is written): every
/// series has one value per sample time.
struct Group {
    times: Vec<f64>,
    metrics: Vec<ByteArray>,
    entities: Vec<ByteArray>,
    values: Vec<f64>,
    seed: u64,
}

impl Group {
    fn rows(&self) -> usize {
        self.times.len() * self.metrics.len()
    }
}

/// Writes the tidy table of samples to a Parquet file, a group of series at a time;
/// nothing is complete until [`TidyWriter::close`].
#[pyclass(module = "dcbsim._core")]
pub struct TidyWriter {
    path: String,
    writer: Option<SerializedFileWriter<File>>,
}

#[pymethods]
impl TidyWriter {
    /// Creates (or truncates) `path` for a table compressed with `compression`
    /// (`zstd`, `lz4`, `snappy` or `none`).
    #[new]
    fn new(path: String, compression: &str) -> PyResult<TidyWriter> {
        let codec = self::compression(compression)?;
        let schema = Arc::new(parse_message_type(SCHEMA).map_err(|e| io_error(&path, e))?);
        let props = properties(codec);
        let file = File::create(&path).map_err(|e| io_error(&path, e))?;
        let writer = SerializedFileWriter::new(file, schema, Arc::new(props)).map_err(|e| io_error(&path, e))?;
        Ok(TidyWriter { path, writer: Some(writer) })
    }

    /// Appends series: `metrics[i]` and `entities[i]` name series `i`, whose values
    /// are the next `len(time_s)` float64s of `values` (little-endian buffers, one
    /// per series or any split of them: the one array of a group), each at the time
    /// of the same position in `time_s`; every row has `seed`.
    fn write(
        &mut self,
        py: Python<'_>,
        time_s: &Bound<'_, PyAny>,
        metrics: Vec<Bound<'_, PyString>>,
        entities: Vec<Bound<'_, PyString>>,
        values: Vec<Bound<'_, PyAny>>,
        seed: u64,
    ) -> PyResult<()> {
        let group = Group {
            times: floats(std::slice::from_ref(time_s))?,
            metrics: names(&metrics)?,
            entities: names(&entities)?,
            values: floats(&values)?,
            seed,
        };
        if group.metrics.len() != group.entities.len() || group.values.len() != group.rows() {
            return Err(PyValueError::new_err(format!(
                "TidyWriter.write: {} metrics, {} entities and {} values for {} samples a series",
                group.metrics.len(),
                group.entities.len(),
                group.values.len(),
                group.times.len()
            )));
        }
        let writer = self.writer.as_mut().ok_or_else(|| PyValueError::new_err("TidyWriter.write: the table is closed"))?;
        py.detach(|| write_group(writer, &group)).map_err(|e| io_error(&self.path, e))
    }

    /// Writes the file's footer: the table is complete.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(writer) = self.writer.take() {
            // The footer, and the writer's buffer flushed (a failure told, not dropped).
            py.detach(|| writer.into_inner()).map_err(|e| io_error(&self.path, e))?;
        }
        Ok(())
    }
}

/// The float64s of little-endian buffers (`bytes`, or anything with a byte buffer),
/// one after another.
fn floats(parts: &[Bound<'_, PyAny>]) -> PyResult<Vec<f64>> {
    let mut out = Vec::new();
    for part in parts {
        if let Ok(b) = part.cast::<PyBytes>() {
            push_le(&mut out, b.as_bytes())?;
        } else {
            // Its bytes whatever its items (a numpy array's are float64s).
            let bytes = PyMemoryView::from(part)?.call_method1("cast", ("B",))?;
            let buffer = pyo3::buffer::PyBuffer::<u8>::get(&bytes)?;
            push_le(&mut out, &buffer.to_vec(part.py())?)?;
        }
    }
    Ok(out)
}

fn push_le(out: &mut Vec<f64>, bytes: &[u8]) -> PyResult<()> {
    if bytes.len() % 8 != 0 {
        return Err(PyValueError::new_err("TidyWriter.write: a buffer of float64s has a length not a multiple of 8"));
    }
    out.extend(bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))));
    Ok(())
}

/// Each name as the bytes of its UTF-8 text, made once (a row's copy is a reference).
fn names(strings: &[Bound<'_, PyString>]) -> PyResult<Vec<ByteArray>> {
    strings.iter().map(|s| Ok(ByteArray::from(s.to_str()?))).collect()
}

/// Writes `group` as row groups of at most [`ROW_GROUP_ROWS`] rows.
fn write_group(writer: &mut SerializedFileWriter<File>, group: &Group) -> Result<(), ParquetError> {
    let rows = group.rows();
    for start in (0..rows).step_by(ROW_GROUP_ROWS) {
        let end = rows.min(start + ROW_GROUP_ROWS);
        let mut row_group = writer.next_row_group()?;
        let mut column = 0;
        while let Some(mut chunk) = row_group.next_column()? {
            for a in (start..end).step_by(BATCH_ROWS) {
                let b = end.min(a + BATCH_ROWS);
                match column {
                    0 => chunk.typed::<DoubleType>().write_batch(&cycle(&group.times, a, b), None, None)?,
                    1 => chunk.typed::<ByteArrayType>().write_batch(&runs(&group.metrics, group.times.len(), a, b), None, None)?,
                    2 => chunk.typed::<ByteArrayType>().write_batch(&runs(&group.entities, group.times.len(), a, b), None, None)?,
                    3 => chunk.typed::<DoubleType>().write_batch(&group.values[a..b], None, None)?,
                    // The seed's bits as Parquet's INT64 holds an unsigned 64-bit integer.
                    _ => chunk.typed::<Int64Type>().write_batch(&vec![group.seed as i64; b - a], None, None)?,
                };
            }
            chunk.close()?;
            column += 1;
        }
        row_group.close()?;
    }
    Ok(())
}

/// Rows `a..b` of a column holding `period` over and over.
fn cycle(period: &[f64], a: usize, b: usize) -> Vec<f64> {
    (a..b).map(|r| period[r % period.len()]).collect()
}

/// Rows `a..b` of a column holding each of `names` for `run` rows in turn.
fn runs(names: &[ByteArray], run: usize, a: usize, b: usize) -> Vec<ByteArray> {
    (a..b).map(|r| names[r / run].clone()).collect()
}
