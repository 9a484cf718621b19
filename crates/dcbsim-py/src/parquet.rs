//! `dcbsim._core.string_pages`: the dictionary and data pages of `dcbsim.parquet`'s
//! string columns, whose distinct strings and runs number in the hundreds of
//! thousands for a table of many flows.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// `n` as a ULEB128 varint onto `out`.
fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A dictionary-encoded string column's parts, the column given as runs (`runs[i]`
/// rows of `strings[i]`): its distinct strings sorted (by code point, as Python sorts
/// them) and PLAIN-encoded (each a little-endian u32 length, then its UTF-8 bytes),
/// their number, and the data pages' bodies, `page_rows` rows a page: the indices'
/// bit width in a byte, then the page's runs in Parquet's RLE encoding (the count
/// shifted left once as a varint, then the index in as many little-endian bytes as
/// the width needs), a run cut where a page ends. At a million flows the column has
/// a million distinct strings: sorting, indexing and encoding them in Python took
/// seconds.
#[pyfunction]
pub fn string_pages<'py>(
    py: Python<'py>,
    strings: Vec<Bound<'py, PyString>>,
    runs: Vec<u64>,
    page_rows: u64,
) -> PyResult<(Bound<'py, PyBytes>, usize, Vec<Bound<'py, PyBytes>>)> {
    if strings.len() != runs.len() || page_rows == 0 || strings.len() > u32::MAX as usize {
        return Err(PyValueError::new_err("string_pages: one run per string, page_rows > 0"));
    }
    let text: Vec<&str> = strings.iter().map(|s| s.to_str()).collect::<PyResult<_>>()?;
    let (plain, distinct, index) = dictionary(&text);
    let width = (usize::BITS - distinct.saturating_sub(1).leading_zeros()).max(1) as u8;
    let value_bytes = (width as usize).div_ceil(8);
    let bodies = rle_bodies(index.iter().zip(&runs).map(|(&i, &n)| (i as u64, n)), width, value_bytes, page_rows);
    Ok((PyBytes::new(py, &plain), distinct, bodies.iter().map(|b| PyBytes::new(py, b)).collect()))
}

/// The distinct strings of `text` sorted, PLAIN-encoded, their number, and each
/// string's index among them. Each distinct string is found first (a string equal to
/// the one before it without a lookup) and only those are sorted: a table's column
/// repeats a few metrics, or each entity's name over its series (sorting all 500,000
/// strings of 100,000 flows' table took most of the column's time).
fn dictionary(text: &[&str]) -> (Vec<u8>, usize, Vec<u32>) {
    let mut slots: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let mut distinct: Vec<&str> = Vec::new();
    let mut slot_of = Vec::with_capacity(text.len());
    let mut last: Option<(&str, u32)> = None;
    for &s in text {
        let slot = match last {
            Some((before, slot)) if before == s => slot,
            _ => *slots.entry(s).or_insert_with(|| {
                distinct.push(s);
                (distinct.len() - 1) as u32
            }),
        };
        last = Some((s, slot));
        slot_of.push(slot);
    }
    let mut order: Vec<u32> = (0..distinct.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| distinct[a as usize].cmp(distinct[b as usize]));
    let mut rank = vec![0u32; distinct.len()];
    let mut plain = Vec::new();
    for (r, &slot) in order.iter().enumerate() {
        let s = distinct[slot as usize];
        plain.extend_from_slice(&(s.len() as u32).to_le_bytes());
        plain.extend_from_slice(s.as_bytes());
        rank[slot as usize] = r as u32;
    }
    let index = slot_of.iter().map(|&slot| rank[slot as usize]).collect();
    (plain, distinct.len(), index)
}

/// The data pages' bodies of runs of dictionary indices (`(index, rows)`), each
/// starting with the indices' bit width `width`.
fn rle_bodies(runs: impl Iterator<Item = (u64, u64)>, width: u8, value_bytes: usize, page_rows: u64) -> Vec<Vec<u8>> {
    let mut pages = Vec::new();
    let mut body = vec![width];
    let mut room = page_rows;
    for (value, count) in runs {
        let mut left = count;
        while left > 0 {
            let take = left.min(room);
            varint(take << 1, &mut body);
            body.extend_from_slice(&value.to_le_bytes()[..value_bytes]);
            left -= take;
            room -= take;
            if room == 0 {
                pages.push(std::mem::replace(&mut body, vec![width]));
                room = page_rows;
            }
        }
    }
    if room < page_rows {
        pages.push(body);
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_is_sorted_by_code_point_and_indexes_each_string() {
        let (plain, distinct, index) = dictionary(&["b", "é", "a", "b", "Z"]);
        assert_eq!(distinct, 4);
        assert_eq!(index, vec![2, 3, 1, 2, 0]);
        let mut expected = Vec::new();
        for s in ["Z", "a", "b", "é"] {
            expected.extend_from_slice(&(s.len() as u32).to_le_bytes());
            expected.extend_from_slice(s.as_bytes());
        }
        assert_eq!(plain, expected);
        // Runs of one string, and a string again after others.
        let (_, distinct, index) = dictionary(&["m", "m", "a", "m", "a", "a", "z"]);
        assert_eq!(distinct, 3);
        assert_eq!(index, vec![1, 1, 0, 1, 0, 0, 2]);
    }

    #[test]
    fn runs_are_cut_where_a_page_ends() {
        let pages = rle_bodies([(1, 3), (2, 4)].into_iter(), 2, 1, 5);
        // Page 1: 3 rows of 1, 2 rows of 2; page 2: 2 rows of 2.
        assert_eq!(pages, vec![vec![2, 6, 1, 4, 2], vec![2, 4, 2]]);
        let wide = rle_bodies([(300, 1)].into_iter(), 9, 2, 8);
        assert_eq!(wide, vec![vec![9, 2, 44, 1]]);
    }
}
