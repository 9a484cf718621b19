//! `dcbsim._core.full_series`: which of many entities' sampled series go into the
//! tidy table (a run of 100,000 flows has 600,000 series to look at; looked at in
//! Python they took a third of writing `results.parquet`).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

/// The three lists of a tidy table's series, one item per series: metric, entity, values.
type Series<'py> = (Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>);

/// The series of the entities `names` (`series[i]` the series of `names[i]` by
/// metric, each little-endian float64 bytes) that hold exactly `samples` values: for
/// each entity in turn, each of `metrics` in order, as three lists (metric names,
/// entity names, values) of one item per series. A missing metric, or a value that
/// is not `bytes`, is left out as a series of another length is.
#[pyfunction]
pub fn full_series<'py>(
    py: Python<'py>,
    names: &Bound<'py, PyList>,
    series: &Bound<'py, PyList>,
    metrics: Vec<Bound<'py, PyString>>,
    samples: usize,
) -> PyResult<Series<'py>> {
    let (metric_names, entity_names, values) = (PyList::empty(py), PyList::empty(py), PyList::empty(py));
    let size = 8 * samples;
    for (name, by_metric) in names.iter().zip(series.iter()) {
        let by_metric = by_metric.cast::<PyDict>()?;
        for metric in &metrics {
            let Some(value) = by_metric.get_item(metric)? else { continue };
            let Ok(bytes) = value.cast::<PyBytes>() else { continue };
            if bytes.as_bytes().len() == size {
                metric_names.append(metric)?;
                entity_names.append(&name)?;
                values.append(bytes)?;
            }
        }
    }
    Ok((metric_names, entity_names, values))
}
