//! What a window barrier costs on this machine, for the speed-up model of
//! `--example parts`: `threads` threads meet `rounds` times at a `std::sync::Barrier`
//! (which sleeps) and at the parallel engine's own, which spins on an atomic counter
//! (or, with more threads than cores, yields: its patience is printed).
//!
//! ```text
//! cargo run --release -p dcbsim-bench --example barrier -- [threads] [rounds]
//! ```

use dcbsim_core::sim::parallel::Barrier as Spinning;
use std::sync::Barrier;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().expect("a number"));
    let threads = args.next().unwrap_or(2);
    let rounds = args.next().unwrap_or(100_000);
    let sleeping = Barrier::new(threads);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                for _ in 0..rounds {
                    sleeping.wait();
                }
            });
        }
    });
    let sleep_ns = started.elapsed().as_secs_f64() * 1e9 / rounds as f64;
    let spin = Spinning::new(threads);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| (0..rounds).for_each(|r| spin.wait(r)));
        }
    });
    let spin_ns = started.elapsed().as_secs_f64() * 1e9 / rounds as f64;
    let patience = spin.patience();
    println!(
        "{threads} threads, {rounds} rounds: std::sync::Barrier {sleep_ns:.0} ns per round, the engine's {spin_ns:.0} ns ({patience:?})"
    );
}
