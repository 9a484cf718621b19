//! Prints a digest of each scenario's full report (wall time and event count left
//! out), to check that a change to the engine leaves every result bit-identical.
//!
//! ```text
//! cargo run --release -p dcbsim-bench --example digest -- $(find scenarios -name '*.toml')
//! ```

/// FNV-1a, 64 bits, over the report's debug text.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fn main() {
    for file in std::env::args().skip(1) {
        let scenario = match dcbsim_scenario::load_file(std::path::Path::new(&file), &[]) {
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
        println!("{file}: {:016x} ({events} events)", fnv1a(&format!("{report:?}")));
    }
}
