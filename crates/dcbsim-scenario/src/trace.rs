//! Packet-trace files: a port's frames as a pcap file, written whole or not at all.
//!
//! Each file is written under a temporary name beside its final one
//! (`.NAME.tmp-PID`) while the run goes and renamed into place only by
//! [`TraceFiles::commit`]; dropped without a commit (a failed or interrupted run),
//! the temporary files are removed.

use crate::pcap::{MAX_SNAPLEN, MIN_SNAPLEN, PcapWriter};
use crate::{Origin, Scenario, ScenarioError};
use dcbsim_core::sim::Simulation;
use std::fmt;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// One trace to write: the port (`node:peer`, the frames `node` sends to `peer`) and
/// the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapRequest {
    /// The port's name.
    pub port: String,
    /// Where the file goes.
    pub path: PathBuf,
}

/// Why traces cannot be set up.
#[derive(Debug)]
pub enum TraceError {
    /// A port or snap length that the scenario does not allow.
    Input(ScenarioError),
    /// A file that cannot be created or written.
    Io(String),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Input(e) => e.fmt(f),
            TraceError::Io(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for TraceError {}

/// The trace files of a run, under their temporary names until committed.
#[derive(Debug, Default)]
pub struct TraceFiles {
    /// (temporary, final) paths.
    files: Vec<(PathBuf, PathBuf)>,
}

impl TraceFiles {
    /// Ends the run's traces and moves each file to its final name. On any error
    /// no file is left under a final name.
    pub fn commit(self, sim: &mut Simulation) -> Result<(), TraceError> {
        self.commit_ended(sim.finish_traces())
    }

    /// [`TraceFiles::commit`] of traces already ended, as `ended` says (a split run
    /// ends its parts' traces itself).
    pub fn commit_ended(mut self, ended: std::io::Result<Vec<(u32, u64)>>) -> Result<(), TraceError> {
        ended.map_err(|e| TraceError::Io(format!("cannot write a packet trace: {e}")))?;
        for (i, (tmp, path)) in self.files.iter().enumerate() {
            if let Err(e) = std::fs::rename(tmp, path) {
                for (_, done) in &self.files[..i] {
                    let _ = std::fs::remove_file(done);
                }
                return Err(TraceError::Io(format!("{}: cannot write the packet trace: {e}", path.display())));
            }
        }
        self.files.clear();
        Ok(())
    }
}

impl Drop for TraceFiles {
    fn drop(&mut self) {
        for (tmp, _) in &self.files {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The temporary name beside `path`.
fn temporary(path: &Path) -> PathBuf {
    let name = path.file_name().map_or("trace.pcap".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// "did you mean …?" for a port name that names no port: the reversed name, else
/// the nearest name.
fn port_hint(name: &str, names: &[String]) -> String {
    let reversed = name.split_once(':').map(|(a, b)| format!("{b}:{a}"));
    if let Some(r) = reversed.filter(|r| names.contains(r)) {
        return format!("; did you mean \"{r}\" (the frames {} sends)?", r.split(':').next().unwrap_or(""));
    }
    let nearest = names.iter().map(|n| (crate::reader::edit_distance(n, name), n)).min();
    match nearest {
        Some((d, n)) if d <= 3 => format!("; did you mean \"{n}\"?"),
        _ => String::new(),
    }
}

impl Scenario {
    /// Builds the simulation with `seed` and starts a packet trace for each request,
    /// keeping `snaplen` bytes of each frame.
    pub fn build_traced(&self, seed: u64, requests: &[PcapRequest], snaplen: u32) -> Result<(Simulation, TraceFiles), TraceError> {
        self.build_traced_from(None, seed, requests, snaplen)
    }

    /// [`Scenario::build_traced`], starting from `built` if given: a simulation of this
    /// scenario built with `seed` and not run (the one its loading built).
    pub fn build_traced_from(
        &self,
        built: Option<Simulation>,
        seed: u64,
        requests: &[PcapRequest],
        snaplen: u32,
    ) -> Result<(Simulation, TraceFiles), TraceError> {
        let input = |key: &str, msg: String| TraceError::Input(ScenarioError::new(&self.file, &Origin::Nowhere, key, msg));
        if !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&snaplen) {
            return Err(input("pcap_snaplen", format!("must be {MIN_SNAPLEN}..={MAX_SNAPLEN} bytes (got {snaplen})")));
        }
        let mut sim = match built {
            Some(sim) => sim,
            None => self.build(seed).map_err(TraceError::Input)?,
        };
        let mut ports = Vec::with_capacity(requests.len());
        for (i, r) in requests.iter().enumerate() {
            let Some(port) = sim.port_index(&r.port) else {
                let hint = port_hint(&r.port, sim.port_names());
                return Err(input("pcap", format!("no port \"{}\" (ports are node:peer){hint}", r.port)));
            };
            if requests[..i].iter().any(|o| o.port == r.port) {
                return Err(input("pcap", format!("port \"{}\" is listed twice", r.port)));
            }
            if requests[..i].iter().any(|o| o.path == r.path) {
                return Err(input("pcap", format!("two ports write to {}", r.path.display())));
            }
            ports.push(port);
        }
        let mut files = TraceFiles::default();
        for (r, port) in requests.iter().zip(ports) {
            let tmp = temporary(&r.path);
            let io = |e: std::io::Error| TraceError::Io(format!("{}: cannot write the packet trace: {e}", r.path.display()));
            let file = File::create(&tmp).map_err(io)?;
            files.files.push((tmp, r.path.clone()));
            let writer = PcapWriter::new(BufWriter::with_capacity(1 << 16, file), snaplen).map_err(io)?;
            sim.trace_port(port, Box::new(writer)).map_err(io)?;
        }
        Ok((sim, files))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_the_reversed_port_first() {
        let names: Vec<String> = ["sw0:r0", "r0:sw0", "sw0:s1", "s1:sw0"].iter().map(|s| s.to_string()).collect();
        assert!(port_hint("r0:sw9", &names).contains("\"r0:sw0\""));
        assert!(port_hint("s1:sw0x", &names).contains("\"s1:sw0\""));
        assert_eq!(port_hint("zzzzzz:qqqq", &names), "");
        let only_one_way: Vec<String> = vec!["sw0:r0".into()];
        assert!(port_hint("r0:sw0", &only_one_way).contains("did you mean \"sw0:r0\" (the frames sw0 sends)"));
    }
}
