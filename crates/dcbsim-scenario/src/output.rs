//! `[output]`: what a run may keep in memory and write to disk, and how its tables
//! are compressed.

use crate::error::ScenarioError;
use crate::estimate::DEFAULT_MAX_OUTPUT_GB;
use crate::reader::Table;
use crate::samples::DEFAULT_SAMPLE_MEMORY_MB;

/// How a run's Parquet tables are compressed (`output.compression`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compression {
    /// Zstandard (level 1): the smallest files, at little cost; the default.
    #[default]
    Zstd,
    /// LZ4 (Parquet's LZ4_RAW): faster to read and write, larger.
    Lz4,
    /// Snappy: what older readers expect everywhere.
    Snappy,
    /// Uncompressed.
    None,
}

impl Compression {
    /// Every name `output.compression` takes, in the order errors list them.
    pub const NAMES: [&'static str; 4] = ["zstd", "lz4", "snappy", "none"];

    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Zstd => "zstd",
            Compression::Lz4 => "lz4",
            Compression::Snappy => "snappy",
            Compression::None => "none",
        }
    }

    fn from_name(name: &str) -> Compression {
        match name {
            "lz4" => Compression::Lz4,
            "snappy" => Compression::Snappy,
            "none" => Compression::None,
            _ => Compression::Zstd,
        }
    }
}

/// `[output]` as read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Output {
    /// `sample_memory_mb` (> 0, default [`DEFAULT_SAMPLE_MEMORY_MB`]) in bytes.
    pub sample_memory_bytes: f64,
    /// `max_output_gb` (> 0, default [`DEFAULT_MAX_OUTPUT_GB`]) in bytes.
    pub max_output_bytes: f64,
    /// `compression`, one of [`Compression::NAMES`] (default `zstd`).
    pub compression: Compression,
}

/// Reads `[output]` (absent: every default).
pub(crate) fn read_output(output: Option<&Table>) -> Result<Output, ScenarioError> {
    let Some(t) = output else {
        return Ok(Output {
            sample_memory_bytes: DEFAULT_SAMPLE_MEMORY_MB * 1e6,
            max_output_bytes: DEFAULT_MAX_OUTPUT_GB * 1e9,
            compression: Compression::Zstd,
        });
    };
    let mb = t.positive("sample_memory_mb")?.unwrap_or(DEFAULT_SAMPLE_MEMORY_MB);
    let gb = t.positive("max_output_gb")?.unwrap_or(DEFAULT_MAX_OUTPUT_GB);
    let compression = t.choice("compression", &Compression::NAMES)?.map_or(Compression::Zstd, Compression::from_name);
    t.finish(&["sample_memory_mb", "max_output_gb", "compression"])?;
    Ok(Output { sample_memory_bytes: mb * 1e6, max_output_bytes: gb * 1e9, compression })
}

#[cfg(test)]
mod tests {
    use super::Compression;

    #[test]
    fn each_name_reads_back_as_its_compression() {
        for name in Compression::NAMES {
            assert_eq!(Compression::from_name(name).name(), name);
        }
    }
}
