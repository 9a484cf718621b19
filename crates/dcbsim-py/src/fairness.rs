//! `dcbsim._core.FairnessSums`: the engine's fairness sums over series given as
//! little-endian float64 byte strings (a report's own, or `numpy` arrays' bytes).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyDict;

/// Sums over a run's samples from which its fairness follows: Jain's index and the
/// min/max ratio of throughput over fair share per sample, each flow's deviation from
/// its share, its mean share and the samples at which it was sending (see
/// `dcbsim.fairness`). Samples are added a block at a time, every flow's in each.
#[pyclass(module = "dcbsim._core")]
pub struct FairnessSums {
    inner: dcbsim_core::fairness::FairnessSums,
    /// The current flow's series, decoded (reused from flow to flow).
    decoded: [Vec<f64>; 3],
    /// Samples in the block begun by `begin_block` and not yet ended.
    block: Option<usize>,
}

/// `raw`'s float64 values into `out`: `samples` of them, or none from an empty string.
fn decode(raw: &[u8], samples: usize, what: &str, flow: usize, out: &mut Vec<f64>) -> PyResult<bool> {
    out.clear();
    if raw.is_empty() {
        return Ok(false);
    }
    if raw.len() != 8 * samples {
        return Err(PyValueError::new_err(format!("{what} of flow {flow}: {} bytes, not {samples} float64 values (or none)", raw.len())));
    }
    out.extend(raw.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))));
    Ok(true)
}

#[pymethods]
impl FairnessSums {
    /// Sums over no samples yet of `flows` flows.
    #[new]
    fn new(flows: usize) -> FairnessSums {
        FairnessSums { inner: dcbsim_core::fairness::FairnessSums::new(flows), decoded: Default::default(), block: None }
    }

    /// Adds the next `samples` samples: per flow, its throughput and fair share
    /// (bits/s) and optionally its rate, each `samples` little-endian float64 values
    /// or empty (no values: the flow adds nothing, or its sending is not recorded).
    #[pyo3(signature = (samples, throughput, share, rate=None))]
    fn add_block(
        &mut self,
        samples: usize,
        throughput: Vec<PyBackedBytes>,
        share: Vec<PyBackedBytes>,
        rate: Option<Vec<PyBackedBytes>>,
    ) -> PyResult<()> {
        let flows = self.inner.flow_count();
        let counts_match = |n: usize| n == flows;
        if !counts_match(throughput.len()) || !counts_match(share.len()) || !rate.as_ref().is_none_or(|r| counts_match(r.len())) {
            return Err(PyValueError::new_err(format!("a block gives each of the {flows} flows' series")));
        }
        self.begin_block(samples)?;
        for flow in 0..flows {
            self.add_flow(flow, &throughput[flow][..], &share[flow][..], rate.as_ref().map(|r| &r[flow][..]))?;
        }
        self.end_block()
    }

    /// Begins the next block of `samples` samples, to which `add_flow` adds each
    /// flow's series once, flow by flow (so that only one flow's need be read at a
    /// time), and `end_block` ends.
    fn begin_block(&mut self, samples: usize) -> PyResult<()> {
        if self.block.is_some() {
            return Err(PyValueError::new_err("a block is open: end it first"));
        }
        self.inner.begin_block(samples);
        self.block = Some(samples);
        Ok(())
    }

    /// Adds flow `flow`'s throughput, fair share and optionally rate over the open
    /// block (as `add_block` takes them: little-endian float64 values or empty).
    #[pyo3(signature = (flow, throughput, share, rate=None))]
    fn add_flow(&mut self, flow: usize, throughput: &[u8], share: &[u8], rate: Option<&[u8]>) -> PyResult<()> {
        let Some(samples) = self.block else {
            return Err(PyValueError::new_err("no block is open: begin one first"));
        };
        let flows = self.inner.flow_count();
        if flow >= flows {
            return Err(PyValueError::new_err(format!("flow {flow}: the sums are of {flows} flows")));
        }
        let [t, f, r] = &mut self.decoded;
        let has_series = decode(throughput, samples, "throughput", flow, t)? & decode(share, samples, "share", flow, f)?;
        let has_rate = match rate {
            Some(rate) => decode(rate, samples, "rate", flow, r)?,
            None => false,
        };
        let (t, f) = if has_series { (&t[..], &f[..]) } else { (&[][..], &[][..]) };
        self.inner.add_flow(flow, t, f, has_rate.then_some(&r[..]));
        Ok(())
    }

    /// Ends the open block: its samples count towards the run's measures.
    fn end_block(&mut self) -> PyResult<()> {
        if self.block.take().is_none() {
            return Err(PyValueError::new_err("no block is open"));
        }
        self.inner.end_block();
        Ok(())
    }

    /// The measures so far: `jain`, `min_max`, `share_rms_bps`, `share_rms_rel` (each
    /// `None` without a sample to count), and per flow `per_flow_rms_bps`,
    /// `per_flow_rms_rel`, `mean_share_bps` and `sending_span_s` (from its first to its
    /// last sample sending, plus one sample interval; the sample times are `times`,
    /// little-endian float64, and `None` where it sent at none).
    fn fairness<'py>(&self, py: Python<'py>, times: &[u8]) -> PyResult<Bound<'py, PyDict>> {
        let f = self.inner.fairness();
        let time = |k: u64| times.get(8 * k as usize..8 * k as usize + 8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")));
        let step = match (time(0), time(1)) {
            (Some(a), Some(b)) => b - a,
            (a, _) => a.unwrap_or(0.0),
        };
        let span = |sending: Option<(u64, u64)>| {
            let (first, last) = sending?;
            Some(time(last)? - time(first)? + step)
        };
        let d = PyDict::new(py);
        d.set_item("jain", f.jain)?;
        d.set_item("min_max", f.min_max)?;
        d.set_item("share_rms_bps", f.share_rms_bps)?;
        d.set_item("share_rms_rel", f.share_rms_rel)?;
        d.set_item("per_flow_rms_bps", f.flows.iter().map(|f| f.rms_bps).collect::<Vec<_>>())?;
        d.set_item("per_flow_rms_rel", f.flows.iter().map(|f| f.rms_rel).collect::<Vec<_>>())?;
        d.set_item("mean_share_bps", f.flows.iter().map(|f| f.mean_share_bps).collect::<Vec<_>>())?;
        d.set_item("sending_span_s", f.flows.iter().map(|f| span(f.sending)).collect::<Vec<_>>())?;
        Ok(d)
    }
}
