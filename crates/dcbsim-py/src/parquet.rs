//! `dcbsim._core.rle_pages`: the per-run loop of `dcbsim.parquet`'s string columns,
//! whose runs number in the hundreds of thousands for a table of many flows.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// `n` as a ULEB128 varint onto `out`.
fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The data pages' bodies of a dictionary-encoded column given as runs (`counts[i]`
/// rows of dictionary index `values[i]`), `page_rows` rows a page: each page's runs in
/// Parquet's RLE encoding (the count shifted left once as a varint, then the index in
/// `value_bytes` little-endian bytes), a run cut where a page ends.
#[pyfunction]
pub fn rle_pages<'py>(
    py: Python<'py>,
    values: Vec<u64>,
    counts: Vec<u64>,
    value_bytes: usize,
    page_rows: u64,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    if values.len() != counts.len() || page_rows == 0 || value_bytes > 8 {
        return Err(PyValueError::new_err("rle_pages: one count per value, page_rows > 0, value_bytes <= 8"));
    }
    let mut pages = Vec::new();
    let mut body = Vec::new();
    let mut room = page_rows;
    for (&value, &count) in values.iter().zip(&counts) {
        let mut left = count;
        while left > 0 {
            let take = left.min(room);
            varint(take << 1, &mut body);
            body.extend_from_slice(&value.to_le_bytes()[..value_bytes]);
            left -= take;
            room -= take;
            if room == 0 {
                pages.push(PyBytes::new(py, &body));
                body.clear();
                room = page_rows;
            }
        }
    }
    if room < page_rows {
        pages.push(PyBytes::new(py, &body));
    }
    Ok(pages)
}
