#!/usr/bin/env python3
"""Measures the engine's speed goals on one build and prints each against its target.

On a shared machine single runs minutes apart differ by more than a goal's margin, so
the runs a goal compares alternate within each round and the ratios are taken round
by round: each ratio goal gives the ratio of the best runs and the median of the
paired ratios.

    cargo build --release -p dcbsim-bench
    python3 benches/goals.py --rounds 8                  # about three minutes
    python3 benches/goals.py --bench ./other-build --rounds 4

The goals: the dumbbell at 15 simulated seconds per wall second or more; its jittered
twin and QCN controlling greedy senders within 1.2x of it; 4,096 incast senders
within 2x of 8 per event (samples every 1 ms, the scenario's, and every 100 ms); set-up
under 0.1 s at 4,096 senders; 100,000 hosts set up and run (1 ms), with their peak
memory; 64 senders whose samples stream to disk within a 1 MB budget, the same peak
memory for 10 s as for 1 s; `dcbsim run` of the quickstart without plots spending
under 0.2 s of wall time beyond the engine's own (Python's start, imports and outputs;
with `--cli`, the installed command, `.venv/bin/dcbsim` by default); and one run on
two threads: the k = 16 and k = 8 DCTCP fabrics (k = 8 for 20 ms of its 100) at least
1.7 times as fast on two threads as on one, with less than 20 % more peak memory, and
k = 16 on one thread at 100 ns per event or less.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "python", "dcbsim", "scenarios", "bench")

DUMBBELL = [os.path.join(BENCH, "dumbbell_10g.toml")]
JITTERED = DUMBBELL + ["--set", "flows[0].jitter=0.1"]
QCN = [os.path.join(BENCH, "dumbbell_10g_cc.toml")]


def incast(servers: int, *extra: str) -> list[str]:
    """The incast benchmark at ``servers`` senders offering 12.5 Gb/s in all."""
    rate = 12.5 / servers
    return [os.path.join(BENCH, "incast_jitter.toml"), "--set", f"topology.servers={servers}",
            "--set", f"flows[0].rate_gbps={rate!r}", *extra]


HUNDRED_MS = ("--set", "run.sample_interval_us=100000")

K16 = [os.path.join(BENCH, "fat_tree_k16_dctcp.toml")]
K8 = [os.path.join(BENCH, "fat_tree_k8_dctcp.toml"), "--set", "run.duration_ms=20"]


def threads(args: list[str], n: int) -> list[str]:
    """``args`` on ``n`` threads."""
    return [*args, "--set", f"run.threads={n}"]


def measure(bench: str, args: list[str], repeat: int) -> dict[str, float]:
    """One invocation of the bench binary: best wall seconds, simulated seconds per
    wall second, ns per event, set-up seconds and peak MiB."""
    done = subprocess.run([bench, *args, "--repeat", str(repeat)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"goals.py: {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    out = done.stdout
    patterns = {
        "wall": r"best: ([\d.]+) s wall",
        "speed": r"([\d.]+) simulated seconds per wall second",
        "ns": r"([\d.]+) ns per event",
        "setup": r"set-up ([\d.]+) s",
        "peak": r"peak memory: ([\d.]+) MiB",
    }
    values = {}
    for key, pattern in patterns.items():
        found = re.search(pattern, out)
        if found is None:
            raise SystemExit(f"goals.py: no {key} in the output of {' '.join(args)}")
        values[key] = float(found.group(1))
    return values


def paired(rounds: list[dict[str, dict[str, float]]], num: str, den: str, key: str) -> tuple[float, float]:
    """Ratio of the best ``key`` of run ``num`` to that of ``den``, and the median of
    their ratios round by round."""
    a = [r[num][key] for r in rounds]
    b = [r[den][key] for r in rounds]
    return min(a) / min(b), statistics.median(x / y for x, y in zip(a, b))


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def cli_overhead(cli: str, repeat: int) -> float | None:
    """The least wall time, s, that ``dcbsim run`` of the quickstart (no plots) spends
    beyond the engine's own run (which it prints), over ``repeat`` runs; ``None``
    without the command."""
    if not os.access(cli, os.X_OK):
        return None
    quickstart = os.path.join(ROOT, "python", "dcbsim", "scenarios", "examples", "quickstart.toml")
    best = float("inf")
    with tempfile.TemporaryDirectory() as out:
        for _ in range(repeat):
            started = time.perf_counter()
            done = subprocess.run([cli, "run", quickstart, "--out", out, "--overwrite", "--no-plots"],
                                  capture_output=True, text=True, check=True)
            wall = time.perf_counter() - started
            engine = re.search(r"simulated in ([\d.]+) s", done.stdout)
            if not engine:
                raise SystemExit("goals.py: no engine time in the output of dcbsim run")
            best = min(best, wall - float(engine.group(1)))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=os.path.join(ROOT, "target", "release", "dcbsim-bench"),
                        help="the dcbsim-bench binary (default: the release build)")
    parser.add_argument("--rounds", type=int, default=8, help="rounds of the compared runs (default 8)")
    parser.add_argument("--cli", default=os.path.join(ROOT, ".venv", "bin", "dcbsim"),
                        help="the dcbsim command (default: the repository's venv; `make install` makes it)")
    opts = parser.parse_args()
    if not os.access(opts.bench, os.X_OK):
        raise SystemExit(f"goals.py: {opts.bench}: not found; build it with cargo build --release -p dcbsim-bench")
    runs = {
        "plain": (DUMBBELL, 3),
        "jittered": (JITTERED, 3),
        "qcn": (QCN, 3),
        "8": (incast(8), 3),
        "4096": (incast(4096), 3),
        "8 slow samples": (incast(8, *HUNDRED_MS), 3),
        "4096 slow samples": (incast(4096, *HUNDRED_MS), 3),
        "k16 one": (threads(K16, 1), 1),
        "k16 two": (threads(K16, 2), 1),
        "k8 one": (threads(K8, 1), 1),
        "k8 two": (threads(K8, 2), 1),
    }
    rounds = []
    for k in range(max(1, opts.rounds)):
        rounds.append({name: measure(opts.bench, args, repeat) for name, (args, repeat) in runs.items()})
        print(f"round {k + 1} of {opts.rounds}: dumbbell {rounds[-1]['plain']['wall']:.3f} s", file=sys.stderr)
    huge = measure(opts.bench, incast(100_000, "--set", "flows[0].rate_gbps=0.0001", "--set", "run.duration_ms=1"), 1)
    streamed = [os.path.join(BENCH, "long_run.toml"), "--set", "output.sample_memory_mb=1"]
    short_run = measure(opts.bench, streamed + ["--set", "run.duration_ms=1000"], 1)
    long_run = measure(opts.bench, streamed, 1)

    speed = max(r["plain"]["speed"] for r in rounds)
    rows = [("dumbbell_10g, simulated s per wall s (best)", f"{speed:.1f}", ">= 15", verdict(speed >= 15))]
    for name in ("jittered", "qcn"):
        best, median = paired(rounds, name, "plain", "wall")
        rows.append((f"{name} / plain, wall (best; median of rounds)", f"{best:.2f}; {median:.2f}", "<= 1.2",
                     verdict(max(best, median) <= 1.2)))
    for label, big, small in (("1 ms samples", "4096", "8"), ("100 ms samples", "4096 slow samples", "8 slow samples")):
        best, median = paired(rounds, big, small, "ns")
        rows.append((f"4,096 / 8 senders per event, {label} (best; median)", f"{best:.2f}; {median:.2f}", "<= 2",
                     verdict(max(best, median) <= 2)))
    setup = min(r["4096"]["setup"] for r in rounds)
    rows.append(("set-up at 4,096 senders, s", f"{setup:.3f}", "< 0.1", verdict(setup < 0.1)))
    rows.append(("100,000 hosts, 1 ms: set-up s, peak MiB", f"{huge['setup']:.2f}, {huge['peak']:.0f}", "set up and run",
                 "met"))
    rows.append(("64 senders, samples streamed within 1 MB: peak MiB, 1 s and 10 s",
                 f"{short_run['peak']:.1f}, {long_run['peak']:.1f}", "not growing",
                 verdict(long_run["peak"] <= short_run["peak"] + 2)))
    for label, fabric in (("k = 16 DCTCP", "k16"), ("k = 8 DCTCP, 20 ms", "k8")):
        best, median = paired(rounds, f"{fabric} one", f"{fabric} two", "wall")
        rows.append((f"{label}: one thread / two, wall (best; median)", f"{best:.2f}; {median:.2f}", ">= 1.7",
                     verdict(min(best, median) >= 1.7)))
        growth = max(r[f"{fabric} two"]["peak"] / r[f"{fabric} one"]["peak"] for r in rounds)
        rows.append((f"{label}: peak memory, two threads / one (most)", f"{growth:.2f}", "< 1.2", verdict(growth < 1.2)))
    ns = min(r["k16 one"]["ns"] for r in rounds)
    rows.append(("k = 16 DCTCP on one thread, ns per event (best)", f"{ns:.1f}", "<= 100", verdict(ns <= 100)))
    overhead = cli_overhead(opts.cli, max(3, opts.rounds))
    rows.append(("dcbsim run, quickstart, no plots: wall beyond the engine, s (best)",
                 "-" if overhead is None else f"{overhead:.3f}", "< 0.2",
                 "no command" if overhead is None else verdict(overhead < 0.2)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    print(f"engine: {os.path.relpath(opts.bench, ROOT)}; {opts.rounds} rounds")
    print("  ".join(h.ljust(w) for h, w in zip(("goal", "measured", "target", ""), widths)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


if __name__ == "__main__":
    main()
