//! Prints a digest of each scenario's full report (wall time and event count left
//! out), to check that a change to the engine leaves every result bit-identical.
//!
//! ```text
//! cargo run --release -p dcbsim-bench --example digest -- $(find python/dcbsim/scenarios -name '*.toml')
//! cargo run --release -p dcbsim-bench --example digest -- python/dcbsim/scenarios/bench/incast_jitter.toml \
//!     --set topology.servers=4096 --set 'flows[0].rate_gbps=0.0030517578125'
//! ```
//!
//! Each `--set key=value` applies to the file named before it.

/// FNV-1a, 64 bits, over the report's debug text.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The files named on the command line, each with the overrides that follow it.
fn runs() -> Vec<(String, Vec<String>)> {
    let mut runs: Vec<(String, Vec<String>)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), runs.last_mut()) {
            ("--set", Some((_, overrides))) => overrides.extend(args.next()),
            _ => runs.push((arg, Vec::new())),
        }
    }
    runs
}

fn main() {
    for (file, overrides) in runs() {
        let scenario = match dcbsim_scenario::load_file(std::path::Path::new(&file), &overrides) {
            Ok(s) => s,
            Err(err) => {
                println!("{file}: not loaded: {err}");
                continue;
            }
        };
        let Ok(sim) = scenario.build(scenario.seed) else {
            println!("{file}: not built");
            continue;
        };
        let mut report = sim.run();
        let events = std::mem::take(&mut report.events);
        report.wall_seconds = 0.0;
        let name = std::iter::once(file).chain(overrides).collect::<Vec<_>>().join(" --set ");
        println!("{name}: {:016x} ({events} events)", fnv1a(&format!("{report:?}")));
    }
}
