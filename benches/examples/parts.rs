//! Predicts a split run's speed-up from a one-thread run: counts each event at the
//! node that handles it, window by window (windows of the split's lookahead), then,
//! for each number of parts, the work of the busiest part in each window, the windows
//! with work, and the speed-up on as many cores for a few barrier costs:
//!
//! ```text
//! cargo run --release -p dcbsim-bench --features part-profile --example parts -- \
//!     python/dcbsim/scenarios/bench/fat_tree_k16_dctcp.toml [--parts 2,4,8,16] [--ns-per-event C] [--set k=v]...
//! ```
//!
//! The model: one thread takes `c · E` for `E` events at `c` per event (measured here,
//! the count's own cost included); `P` parts take `c · Σ_w max_p E_wp + b · W` for the
//! `W` windows with work and a barrier of `b`. `--ns-per-event` gives `c` as the
//! one-thread bench measures it (counting makes this run slower). Events every part handles (timeline,
//! samples, sources) count in every part. Not modelled: frames handed over at the
//! barrier, and the caches each part has to itself.

use dcbsim_core::net::partition::partition;
use dcbsim_core::units::Time;
use std::path::Path;
use std::time::Instant;

/// Barrier costs the speed-up is given for, nanoseconds.
const BARRIERS_NS: [f64; 3] = [500.0, 2_000.0, 10_000.0];

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let file = args.next().ok_or("usage: parts FILE [--parts 2,4,8] [--ns-per-event C] [--set k=v]...")?;
    let (mut sets, mut asked, mut given_c) = (Vec::new(), vec![2, 3, 4, 8, 16, 32, 64], None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--set" => sets.push(args.next().ok_or("--set needs key=value")?),
            "--ns-per-event" => {
                let c = args.next().ok_or("--ns-per-event needs a number")?;
                given_c = Some(c.parse::<f64>().map_err(|_| format!("--ns-per-event: not a number: {c}"))?);
            }
            "--parts" => {
                let list = args.next().ok_or("--parts needs a list")?;
                asked = list.split(',').map(|n| n.parse().map_err(|_| format!("--parts: not a number: {n}"))).collect::<Result<_, _>>()?;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let scenario = dcbsim_scenario::load_file(Path::new(&file), &sets).map_err(|e| e.to_string())?;
    let mut sim = scenario.build(scenario.seed).map_err(|e| format!("{e:?}"))?;
    let (is_host, links) = sim.links_to_cut();
    let window = partition(&is_host, &links, 2).lookahead;
    if window == Time::NEVER {
        return Err("nothing to split: the network makes one part".into());
    }
    sim.profile_events(window);
    let started = Instant::now();
    sim.run_until(sim.config().duration);
    let wall = started.elapsed().as_secs_f64();
    let profile = sim.event_profile().expect("profiled").clone();
    let total = sim.events() as f64;
    let measured = wall * 1e9 / total;
    let c = given_c.unwrap_or(measured);
    println!(
        "{file}: {total:.0} events, {measured:.1} ns per event counting them, model at {c:.1}; windows of {:.3} us",
        window.0 as f64 / 1e6
    );
    println!(
        "parts | lookahead us | windows with work | events per window | busiest part / mean | speed-up at barrier {} us",
        BARRIERS_NS.map(|b| format!("{}", b / 1e3)).join(" / ")
    );
    for p in asked {
        let split = partition(&is_host, &links, p);
        if split.parts != p {
            println!("{p} | the network splits into at most {} parts", split.parts);
            continue;
        }
        let (mut critical, mut active, mut sum) = (0.0, 0.0, 0.0);
        let mut load = vec![0u64; p];
        for w in 0..profile.windows() {
            load.iter_mut().for_each(|l| *l = profile.shared[w] as u64);
            let row = &profile.counts[w * profile.nodes..(w + 1) * profile.nodes];
            for (n, &e) in row.iter().enumerate() {
                load[split.part_of[n] as usize] += e as u64;
            }
            let max = *load.iter().max().unwrap_or(&0) as f64;
            if max > 0.0 {
                active += 1.0;
                critical += max;
                sum += load.iter().sum::<u64>() as f64;
            }
        }
        let speedups: Vec<String> = BARRIERS_NS.iter().map(|b| format!("{:.2}", c * total / (c * critical + b * active))).collect();
        println!(
            "{p} | {:.3} | {active:.0} | {:.0} | {:.2} | {}",
            split.lookahead.0 as f64 / 1e6,
            sum / active.max(1.0),
            critical / (sum / p as f64),
            speedups.join(" / ")
        );
    }
    Ok(())
}
