//! Packet traces: one record per frame a port sends, whole files or none.

use dcbsim_scenario::{PcapRequest, TraceError, load_str};
use std::path::{Path, PathBuf};

const QCN: &str = r#"
[run]
duration_ms = 5.0
frame_bytes = 1500
[topology]
kind = "dumbbell"
senders = 3
rate_gbps = 10.0
buffer_kb = 150.0
[scheme]
name = "qcn"
congestion_points = ["sw0:r0"]
[[flows]]
src = "s*"
dst = "r0"
"#;

/// A fresh folder in the system's temporary directory, removed when dropped (the
/// test's end, passed or failed).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dir(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("dcbsim-trace-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// (captured length, original length) of each record.
fn records(path: &Path) -> Vec<(u32, u32)> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
    let mut at = 24;
    let mut out = Vec::new();
    while at < bytes.len() {
        let word = |o: usize| u32::from_le_bytes(bytes[at + o..at + o + 4].try_into().unwrap());
        out.push((word(8), word(12)));
        at += 16 + word(8) as usize;
    }
    assert_eq!(at, bytes.len(), "records end with the file");
    out
}

fn request(port: &str, dir: &Path) -> PcapRequest {
    PcapRequest { port: port.into(), path: dir.join(format!("{}.pcap", port.replace(':', "-"))) }
}

#[test]
fn a_trace_holds_every_frame_the_port_sent() {
    let scenario = load_str(QCN, "qcn.toml", &[]).unwrap();
    let d = dir("count");
    let asked = [request("sw0:r0", &d), request("sw0:s0", &d)];
    let (mut sim, files) = scenario.build_traced(1, &asked, 96).unwrap();
    sim.run_until(scenario.config.duration);
    files.commit(&mut sim).unwrap();
    let report = sim.finish();
    let port = |name: &str| report.ports.iter().find(|p| p.name == name).unwrap();
    let data = records(&asked[0].path);
    assert_eq!(data.len() as u64, port("sw0:r0").tx_frames);
    assert!(data.iter().all(|&(cap, len)| cap == 96 && len == 1500));
    let notes = records(&asked[1].path);
    assert!(port("sw0:r0").notifications > 10);
    assert_eq!(notes.len() as u64, port("sw0:s0").tx_frames, "the notifications towards s0");
    assert!(notes.iter().all(|&(cap, len)| cap == 64 && len == 64));
    let untraced = scenario.build(1).unwrap().run();
    assert_eq!(untraced.ports, report.ports, "tracing does not change the run");
    let leftovers: Vec<_> = std::fs::read_dir(&*d).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}

#[test]
fn an_uncommitted_run_leaves_no_file() {
    let scenario = load_str(QCN, "qcn.toml", &[]).unwrap();
    let d = dir("abandon");
    let (mut sim, files) = scenario.build_traced(1, &[request("sw0:r0", &d)], 128).unwrap();
    sim.run_until(dcbsim_core::units::Time::from_ms(1));
    drop(files);
    assert_eq!(std::fs::read_dir(&*d).unwrap().count(), 0);
}

#[test]
fn bad_ports_and_snap_lengths_are_one_line_errors() {
    let scenario = load_str(QCN, "qcn.toml", &[]).unwrap();
    let d = dir("bad");
    let err = |asked: &[PcapRequest], snaplen| match scenario.build_traced(1, asked, snaplen) {
        Err(TraceError::Input(e)) => e.to_string(),
        other => panic!("expected an input error, got {:?}", other.map(|_| ())),
    };
    assert_eq!(err(&[request("r0:sw1", &d)], 128), "qcn.toml: pcap: no port \"r0:sw1\" (ports are node:peer); did you mean \"r0:sw0\"?");
    assert!(err(&[request("sw0:r0", &d), request("sw0:r0", &d)], 128).contains("listed twice"));
    assert!(err(&[request("sw0:r0", &d)], 4).starts_with("qcn.toml: pcap_snaplen: must be 18..=262144 bytes"));
    assert_eq!(std::fs::read_dir(&*d).unwrap().count(), 0);
}
