//! Every scenario shipped under `python/dcbsim/scenarios/` loads, and overrides round-trip.

use dcbsim_scenario::{load_file, load_str};
use std::path::{Path, PathBuf};

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && path.file_name().is_some_and(|n| n != "sweeps") {
            scenario_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_shipped_scenario_loads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/dcbsim/scenarios");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        if let Err(e) = load_file(&file, &[]) {
            panic!("{e}");
        }
    }
}

#[test]
fn the_effective_scenario_reloads_to_the_same_config() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/dcbsim/scenarios/examples/quickstart.toml");
    let overrides = vec!["run.duration_ms=20".to_string(), "flows[1].rate_gbps=3".to_string()];
    let first = load_file(&root, &overrides).unwrap();
    assert!(first.toml.contains("duration_ms = 20"), "{}", first.toml);
    let again = load_str(&first.toml, "again.toml", &[]).unwrap();
    assert_eq!(first.config, again.config);
}

#[test]
fn a_missing_file_is_an_error_not_a_panic() {
    let e = load_file(Path::new("no/such/file.toml"), &[]).unwrap_err();
    assert!(e.to_string().starts_with("no/such/file.toml: cannot read the scenario"), "{e}");
}
