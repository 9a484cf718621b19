#!/usr/bin/env python3
"""Runs two or more builds of ``dcbsim-bench`` in turn on one benchmark, round after
round, and prints each build's best and median wall time and ns per event.

On a shared machine, single runs minutes apart can differ by more than a change is
worth; runs that alternate see the same load, so their best and their medians compare.

    cp target/release/dcbsim-bench bench-before          # built on the old commit
    cargo build --release -p dcbsim-bench                 # on the new one
    python3 benches/alternate.py --rounds 8 ./bench-before target/release/dcbsim-bench \\
        -- python/dcbsim/scenarios/bench/dumbbell_10g.toml --repeat 5
"""

import argparse
import re
import statistics
import subprocess
import sys


def run(binary: str, args: list[str]) -> tuple[float, float]:
    """One run of `binary` with `args`: (best wall seconds, ns per event)."""
    out = subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout
    wall = re.search(r"best: ([\d.]+) s wall", out)
    ns = re.search(r"([\d.]+) ns per event", out)
    if not wall or not ns:
        raise SystemExit(f"alternate.py: no timing in the output of {binary}")
    return float(wall.group(1)), float(ns.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="rounds (each runs every build once)")
    parser.add_argument("builds", nargs="+", help="dcbsim-bench binaries, the first the reference")
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("give the benchmark's arguments after --")
    cut = argv.index("--")
    opts, bench_args = parser.parse_args(argv[:cut]), argv[cut + 1 :]
    times: dict[str, list[tuple[float, float]]] = {b: [] for b in opts.builds}
    for _ in range(opts.rounds):
        for build in opts.builds:
            times[build].append(run(build, bench_args))
    first = opts.builds[0]
    for build, runs in times.items():
        walls, ns = [w for w, _ in runs], [n for _, n in runs]
        ratios = [w / r for (w, _), (r, _) in zip(runs, times[first])]
        print(f"{build}: wall best {min(walls):.4f} s, median {statistics.median(walls):.4f} s; "
              f"ns per event best {min(ns):.1f}, median {statistics.median(ns):.1f}; "
              f"against {first}: median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
