//! Prints a digest of each scenario's full report (wall time and event count left
//! out), to check that a change to the engine leaves every result bit-identical.
//!
//! ```text
//! cargo run --release -p dcbsim-bench --example digest -- $(find python/dcbsim/scenarios -name '*.toml')
//! cargo run --release -p dcbsim-bench --example digest -- python/dcbsim/scenarios/bench/incast_jitter.toml \
//!     --set topology.servers=4096 --set 'flows[0].rate_gbps=0.0030517578125'
//! cargo run --release -p dcbsim-bench --example digest -- --check tests/golden/digests.txt
//! cargo run --release -p dcbsim-bench --example digest -- --write tests/golden/digests.txt
//! ```
//!
//! Each `--set key=value` applies to the file named before it. `--check FILE` runs
//! every scenario the golden file lists and fails (status 1) if a digest differs or a
//! shipped scenario under `python/dcbsim/scenarios/` is missing from it; `--write FILE` writes the
//! golden file anew from every shipped scenario.

use std::path::Path;
use std::process::ExitCode;

/// FNV-1a, 64 bits, over the report's debug text.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// One run: a scenario file and the overrides applied to it.
type Run = (String, Vec<String>);

/// The runs named by `args`: files, each with the overrides that follow it.
fn runs(args: impl Iterator<Item = String>) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut args = args;
    while let Some(arg) = args.next() {
        match (arg.as_str(), runs.last_mut()) {
            ("--set", Some((_, overrides))) => overrides.extend(args.next()),
            _ => runs.push((arg, Vec::new())),
        }
    }
    runs
}

/// The run's name as a golden line starts: the file, then ` --set k=v` per override.
fn name(run: &Run) -> String {
    std::iter::once(run.0.clone()).chain(run.1.iter().cloned()).collect::<Vec<_>>().join(" --set ")
}

/// The digest of the run's report and its event count, or why there is none.
fn digest(run: &Run) -> Result<(u64, u64), String> {
    let scenario = dcbsim_scenario::load_file(Path::new(&run.0), &run.1).map_err(|err| format!("not loaded: {err}"))?;
    let sim = scenario.build(scenario.seed).map_err(|_| "not built".to_string())?;
    let mut report = sim.run();
    let events = std::mem::take(&mut report.events);
    report.wall_seconds = 0.0;
    Ok((fnv1a(&format!("{report:?}")), events))
}

/// The line a run gets in the output and in the golden file.
fn line(run: &Run) -> String {
    match digest(run) {
        Ok((d, events)) => format!("{}: {d:016x} ({events} events)", name(run)),
        Err(why) => format!("{}: {why}", name(run)),
    }
}

/// Where the shipped scenarios live, from the repository root.
const SCENARIOS: &str = "python/dcbsim/scenarios";

/// Every shipped scenario file, sorted (sweep files are not scenarios).
fn shipped() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("sweeps") {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new(SCENARIOS), &mut files);
    files.sort();
    files
}

/// The golden lines of `file`: each run's name and its expected digest text.
fn golden(file: &str) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let mut lines = Vec::new();
    for l in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (name, rest) = l.rsplit_once(": ").ok_or_else(|| format!("{file}: a line without \": \": {l}"))?;
        lines.push((name.to_string(), rest.split(" (").next().unwrap_or(rest).to_string()));
    }
    Ok(lines)
}

/// Runs every golden line and compares; true when all agree and nothing shipped is
/// missing.
fn check(file: &str) -> Result<bool, String> {
    let expected = golden(file)?;
    let mut ok = true;
    for (name, want) in &expected {
        let run = runs(name.split(" --set ").enumerate().flat_map(|(i, part)| {
            let set = (i > 0).then(|| "--set".to_string());
            set.into_iter().chain(std::iter::once(part.to_string()))
        }))
        .remove(0);
        let got = line(&run);
        let got = got.rsplit_once(": ").map_or(got.clone(), |(_, rest)| rest.split(" (").next().unwrap_or(rest).to_string());
        if &got != want {
            println!("changed: {name}: {want} -> {got}");
            ok = false;
        }
    }
    for file in shipped() {
        if !expected.iter().any(|(name, _)| name == &file) {
            println!("missing: {file} has no golden digest");
            ok = false;
        }
    }
    println!("{} runs checked against {file}: {}", expected.len(), if ok { "all identical" } else { "DIFFERENCES" });
    Ok(ok)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    let outcome = match first.as_deref() {
        Some("--check") => args.next().ok_or("--check needs a file".to_string()).and_then(|f| check(&f)),
        Some("--write") => args.next().ok_or("--write needs a file".to_string()).and_then(|f| {
            let body: String = shipped().into_iter().map(|s| line(&(s, Vec::new())) + "\n").collect();
            let header = "# Digests of every shipped scenario's report (benches/examples/digest.rs); a change that\n\
                          # alters one says which and why. Rewrite: cargo run --release -p dcbsim-bench --example digest -- --write FILE\n";
            std::fs::write(&f, format!("{header}{body}")).map(|_| true).map_err(|e| format!("{f}: {e}"))
        }),
        _ => {
            for run in runs(first.into_iter().chain(args)) {
                println!("{}", line(&run));
            }
            Ok(true)
        }
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(why) => {
            eprintln!("digest: {why}");
            ExitCode::from(2)
        }
    }
}
