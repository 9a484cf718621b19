//! Samples streamed to disk: a run whose samples would take more memory than
//! `output.sample_memory_mb` hands each chunk of sample rows to a [`SpillFile`], which
//! appends it to a file, so that the run holds one chunk whatever its length.
//!
//! The file is the chunks one after another, each column-major: a chunk of `r` rows
//! of `c` columns is `c` runs of `r` little-endian f64 values, column 0's first. Every
//! chunk holds the run's rows per chunk ([`dcbsim_core::sim::Simulation::sample_layout`])
//! but the last, which holds the rest. Column-major chunks let the tidy table (one
//! series after another) be written from the file with one read per chunk and group
//! of series.

use dcbsim_core::samples::SampleSink;
use dcbsim_core::units::Time;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The default of `output.sample_memory_mb`: samples up to this size stay in memory.
pub const DEFAULT_SAMPLE_MEMORY_MB: f64 = 64.0;

/// The first write error of a [`SpillFile`], shared with whoever reads the file.
#[derive(Clone, Debug, Default)]
pub struct SpillStatus(Arc<Mutex<Option<String>>>);

impl SpillStatus {
    /// `Err` with the message of the first failed write, if one failed.
    pub fn check(&self) -> Result<(), String> {
        match self.0.lock().map(|e| e.clone()) {
            Ok(None) => Ok(()),
            Ok(Some(msg)) => Err(msg),
            Err(_) => Err("the sample file's writer failed".to_string()),
        }
    }

    fn fail(&self, msg: String) {
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert(msg);
        }
    }
}

/// A sink writing each chunk of sample rows to a file, column-major (see the module).
/// After a failed write it drops the later chunks; [`SpillStatus::check`] tells.
pub struct SpillFile {
    file: File,
    columns: usize,
    /// The chunk being written, column-major, as bytes (its buffer is reused).
    bytes: Vec<u8>,
    /// Bytes written so far.
    written: u64,
    status: SpillStatus,
    name: String,
}

impl SpillFile {
    /// Creates (or truncates) the file at `path` for rows of `columns` values.
    pub fn create(path: &Path, columns: usize) -> Result<(SpillFile, SpillStatus), String> {
        let name = path.display().to_string();
        let file = File::create(path).map_err(|e| format!("{name}: cannot write the samples: {e}"))?;
        let status = SpillStatus::default();
        let spill = SpillFile { file, columns, bytes: Vec::new(), written: 0, status: status.clone(), name };
        Ok((spill, status))
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }
}

impl SampleSink for SpillFile {
    fn take(&mut self, _first: u64, times: &[Time], values: &[f64]) {
        let rows = times.len();
        if rows == 0 || self.status.check().is_err() {
            return;
        }
        self.bytes.resize(values.len() * 8, 0);
        for (c, column) in self.bytes.chunks_exact_mut(8 * rows).enumerate() {
            for (out, v) in column.chunks_exact_mut(8).zip(values[c..].iter().step_by(self.columns)) {
                out.copy_from_slice(&v.to_le_bytes());
            }
        }
        match self.file.write_all(&self.bytes) {
            Ok(()) => self.written += self.bytes.len() as u64,
            Err(e) => self.status.fail(format!("{}: cannot write the samples: {e}", self.name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_written_column_major() {
        let dir = std::env::temp_dir().join(format!("dcbsim-spill-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.bin");
        let (mut spill, status) = SpillFile::create(&path, 3).unwrap();
        spill.take(0, &[Time(1), Time(2)], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        spill.take(2, &[Time(3)], &[7.0, 8.0, 9.0]);
        assert_eq!(spill.written(), 72);
        drop(spill);
        status.check().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let values: Vec<f64> = bytes.chunks(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect();
        assert_eq!(values, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0, 7.0, 8.0, 9.0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_is_reported() {
        let Ok(file) = File::open("/dev/full").and(File::options().write(true).open("/dev/full")) else { return };
        let status = SpillStatus::default();
        let mut spill = SpillFile { file, columns: 1, bytes: Vec::new(), written: 0, status: status.clone(), name: "full".into() };
        spill.take(0, &[Time(1)], &[1.0]);
        assert!(status.check().unwrap_err().contains("cannot write the samples"));
    }
}
