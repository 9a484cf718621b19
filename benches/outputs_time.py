#!/usr/bin/env python3
"""Times ``dcbsim run`` of 100,000 flows (the run of ``same_outputs.py`` whose outputs
take most of its time) under two or more builds of the Python package, round after
round, and prints each build's best and median wall time of the whole command and of
all of it but the engine's run (loading, the summary and the outputs: the engine's
part is the same in every build).

    cp -r python before-python                  # with its _core built, on the old commit
    python3 benches/outputs_time.py --rounds 8 --python .venv/bin/python before-python python

On a shared machine, runs minutes apart can differ by more than a change is worth;
runs that alternate see the same load, so their best and their medians compare.
"""

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

SCENARIO = "python/dcbsim/scenarios/bench/incast_jitter.toml"
ARGS = ["--set", "topology.servers=100000", "--set", "flows[0].rate_gbps=0.0001", "--set", "run.duration_ms=2"]


def run(python: str, package: str, out: str, plots: bool) -> tuple[float, float]:
    """One ``dcbsim run`` with ``package`` first on the path: (command wall seconds,
    those seconds less the engine's run, as the summary line gives it)."""
    cmd = [python, "-m", "dcbsim", "run", SCENARIO, "--out", out, "--overwrite", *ARGS, *([] if plots else ["--no-plots"])]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(package)}
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - started
    engine = re.search(r"simulated in ([\d.]+) s", done.stdout)
    if not engine:
        raise SystemExit(f"outputs_time.py: no run time in the output of {package}")
    return wall, wall - float(engine.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="rounds (each runs every build once)")
    parser.add_argument("--python", default=".venv/bin/python", help="the Python that runs dcbsim")
    parser.add_argument("--no-plots", action="store_true", help="pass --no-plots to dcbsim run")
    parser.add_argument("packages", nargs="+", help="folders holding the dcbsim package, the first the reference")
    opts = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {p: [] for p in opts.packages}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(opts.rounds):
            for package in opts.packages:
                times[package].append(run(opts.python, package, os.path.join(scratch, "out"), not opts.no_plots))
    for package, runs in times.items():
        walls, outs = [w for w, _ in runs], [o for _, o in runs]
        print(f"{package}: command best {min(walls):.3f} s, median {statistics.median(walls):.3f} s; "
              f"but the run best {min(outs):.3f} s, median {statistics.median(outs):.3f} s")


if __name__ == "__main__":
    main()
