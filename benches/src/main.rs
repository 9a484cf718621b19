//! Whole-run benchmark: runs a scenario file and prints simulated seconds per wall
//! second, events per second and peak memory. A run whose samples exceed
//! `output.sample_memory_mb` streams them to a temporary file, as `dcbsim run` does.
//!
//! ```text
//! cargo run --release -p dcbsim-bench -- python/dcbsim/scenarios/bench/dumbbell_10g.toml [--repeat N] [--set key=value ...]
//! ```

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints a line; a closed pipe (`| head`) is not an error worth a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        let _ = writeln!(std::io::stdout(), $($arg)*);
    };
}

/// What the command line asked for.
struct Args {
    file: PathBuf,
    repeat: usize,
    overrides: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut repeat = 3;
    let mut overrides = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => {
                let n = args.next().ok_or("--repeat needs a number")?;
                repeat = n.parse().map_err(|_| format!("--repeat: not a number: {n}"))?;
            }
            "--set" => overrides.push(args.next().ok_or("--set needs key=value")?),
            _ if file.is_none() => file = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument: {arg}")),
        }
    }
    let file = file.ok_or("usage: dcbsim-bench FILE [--repeat N] [--set key=value ...]")?;
    Ok(Args { file, repeat: repeat.max(1), overrides })
}

/// Peak resident memory of this process, in KiB (Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// When the scenario's samples exceed its budget, streams them to a temporary file:
/// its path and the writer's status.
fn stream_samples(
    scenario: &dcbsim_scenario::Scenario,
    sim: &mut dcbsim_core::sim::Simulation,
) -> Result<Option<(PathBuf, dcbsim_scenario::SpillStatus)>, String> {
    if !scenario.streams_samples() {
        return Ok(None);
    }
    let path = std::env::temp_dir().join(format!("dcbsim-bench-samples-{}.bin", std::process::id()));
    let (spill, status) = dcbsim_scenario::SpillFile::create(&path, sim.sample_layout().0.columns())?;
    sim.stream_samples(Box::new(spill), scenario.sample_memory_bytes as usize);
    Ok(Some((path, status)))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("dcbsim-bench: {msg}");
            return ExitCode::from(2);
        }
    };
    let scenario = match dcbsim_scenario::load_file(&args.file, &args.overrides) {
        Ok(s) => s,
        Err(err) => {
            eprintln!("dcbsim-bench: {err}");
            return ExitCode::from(2);
        }
    };
    let (mut best, mut events, mut frames, mut setup) = (f64::INFINITY, 0, 0, f64::INFINITY);
    for run in 0..args.repeat {
        let started = std::time::Instant::now();
        let mut sim = scenario.build(scenario.seed).expect("validated at load");
        let spill = match stream_samples(&scenario, &mut sim) {
            Ok(spill) => spill,
            Err(msg) => {
                eprintln!("dcbsim-bench: {msg}");
                return ExitCode::from(1);
            }
        };
        setup = setup.min(started.elapsed().as_secs_f64());
        let report = match dcbsim_core::sim::parallel::split_for(&sim) {
            Some(split) => {
                let ran = dcbsim_core::sim::parallel::run_with_stats(sim, split);
                let (report, stats) = (ran.report, ran.stats);
                let per_window = report.events as f64 / stats.windows.max(1) as f64;
                say!("run {run}: split into {} parts, {} windows, {per_window:.0} events per window", stats.parts, stats.windows);
                report
            }
            None => sim.run(),
        };
        if let Some((path, status)) = spill {
            let size = std::fs::metadata(&path).map_or(0, |m| m.len());
            let _ = std::fs::remove_file(&path);
            if let Err(msg) = status.check() {
                eprintln!("dcbsim-bench: {msg}");
                return ExitCode::from(1);
            }
            say!("samples streamed to disk: {:.1} MB", size as f64 / 1e6);
        }
        if report.wall_seconds < best {
            (best, events, frames) = (report.wall_seconds, report.events, report.delivered_frames());
        }
        say!(
            "run {run}: simulated {:.3} s in {:.3} s wall = {:.4} sim-s/s, {:.1} M events/s ({} events), delivered {} frames, dropped {}",
            report.simulated.as_secs_f64(),
            report.wall_seconds,
            report.speed(),
            report.events as f64 / report.wall_seconds / 1e6,
            report.events,
            report.delivered_frames(),
            report.dropped_frames(),
        );
    }
    let simulated = scenario.config.duration.as_secs_f64();
    say!("best: {:.3} s wall, {:.4} simulated seconds per wall second", best, simulated / best);
    say!(
        "{:.1} ns per event, {:.2} events per delivered frame, set-up {:.3} s",
        best * 1e9 / events.max(1) as f64,
        events as f64 / frames.max(1) as f64,
        setup
    );
    if let Some(kib) = peak_rss_kib() {
        say!("peak memory: {:.1} MiB", kib as f64 / 1024.0);
    }
    ExitCode::SUCCESS
}
