#!/usr/bin/env python3
"""Runs one scenario on one thread and on N, in turn, and prints the speed-up.

On a shared machine runs minutes apart differ by more than a speed-up's margin, so the
two alternate within each round and the ratio is taken round by round (as
`goals.py` does): the ratio of the best runs and the median of the paired ratios,
beside the split's windows and events per window and the peak memory of each.

    cargo build --release -p dcbsim-bench
    python3 benches/threads.py python/dcbsim/scenarios/bench/fat_tree_k16_dctcp.toml --rounds 3
    python3 benches/threads.py FILE --threads 4 --set run.duration_ms=20
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

from goals import ROOT, measure, paired


def split_of(bench: str, args: list[str]) -> str:
    """The bench's line on how the run split (parts, windows, events per window)."""
    done = subprocess.run([bench, *args, "--repeat", "1"], capture_output=True, text=True, check=True)
    found = re.search(r"split into .*", done.stdout)
    return found.group(0) if found else "not split (runs on one thread)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="the scenario")
    parser.add_argument("--threads", type=int, default=2, help="the threads to compare with one (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one run each (default 3)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a scenario override")
    parser.add_argument("--bench", default=os.path.join(ROOT, "target", "release", "dcbsim-bench"),
                        help="the dcbsim-bench binary (default: the release build)")
    opts = parser.parse_args()
    if not os.access(opts.bench, os.X_OK):
        raise SystemExit(f"threads.py: {opts.bench}: not found; build it with cargo build --release -p dcbsim-bench")
    base = [opts.file] + [a for s in opts.set for a in ("--set", s)]
    runs = {n: base + ["--set", f"run.threads={n}"] for n in (1, opts.threads)}
    rounds = []
    for k in range(max(1, opts.rounds)):
        rounds.append({str(n): measure(opts.bench, args, 1) for n, args in runs.items()})
        print(f"round {k + 1} of {opts.rounds}: " + ", ".join(f"{n} {r['wall']:.3f} s" for n, r in rounds[-1].items()),
              file=sys.stderr)
    best, median = paired(rounds, "1", str(opts.threads), "wall")
    one, many = (min(r[str(n)]["wall"] for r in rounds) for n in (1, opts.threads))
    growth = max(r[str(opts.threads)]["peak"] / r["1"]["peak"] for r in rounds)
    print(f"{os.path.basename(opts.file)}: {split_of(opts.bench, runs[opts.threads])}")
    print(f"best {one:.3f} s on 1 thread, {many:.3f} s on {opts.threads}; speed-up {best:.2f} (best), "
          f"{median:.2f} (median of {len(rounds)} rounds); peak memory {growth - 1:+.0%} at most")


if __name__ == "__main__":
    main()
