#!/usr/bin/env python3
"""Runs ``dcbsim run`` on a set of scenarios and keeps or compares every file each run
writes, to show that a change to the command's output path leaves the outputs the
same: byte for byte, or for the Parquet tables and the JSON files, the same values.

    # on the build before the change (its Python package first on the path):
    PYTHONPATH=/path/to/old/python .venv/bin/python benches/same_outputs.py --python .venv/bin/python --save before
    # on the build after it:
    .venv/bin/python benches/same_outputs.py --python .venv/bin/python --save after --against before

Fields that differ from run to run of one build are set aside before comparing: the
engine's and the command's wall times and speeds (``wall_s``, ``sim_speed`` in
``summary.json`` and the last line of ``summary.txt``; ``wall_s``, ``command``,
``peak_memory_mib`` and ``git_commit`` in ``manifest.json``). A Parquet table is the
same when pyarrow reads the same schema and values from it (its compression and
encodings may differ); a JSON file when it reads back as the same values, a NaN
(which JSON has no number for) the same as ``null``. Every other byte, plots
included, must be equal. The comparison needs pyarrow: run it with the venv's Python.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys

#: (label, scenario file, extra arguments) of each run compared.
RUNS = [
    ("quickstart", "python/dcbsim/scenarios/examples/quickstart.toml", []),
    ("quickstart-noplots", "python/dcbsim/scenarios/examples/quickstart.toml", ["--no-plots"]),
    ("tcp_fct", "python/dcbsim/scenarios/examples/tcp_fct.toml", []),
    ("pfc_spreading", "python/dcbsim/scenarios/examples/pfc_congestion_spreading.toml", []),
    ("leaf_spine", "python/dcbsim/scenarios/examples/leaf_spine_spreading.toml", []),
    ("dctcp_incast", "python/dcbsim/scenarios/papers/dctcp/incast.toml", []),
    ("fqcn_poisson", "python/dcbsim/scenarios/papers/fqcn/fig06b_poisson.toml", []),
    ("fqcn_weights", "python/dcbsim/scenarios/papers/fqcn/fig08_weights.toml", []),
    ("smcc_fig15", "python/dcbsim/scenarios/papers/smcc/fig15.toml", []),
    ("dcc_exp1", "python/dcbsim/scenarios/papers/dcc/exp1_dcc1.toml", []),
    ("dcqcn_incast", "python/dcbsim/scenarios/papers/dcqcn/incast.toml", []),
    ("streamed", "python/dcbsim/scenarios/bench/incast_jitter.toml",
     ["--set", "topology.servers=512", "--set", "flows[0].rate_gbps=0.0244140625", "--set", "run.duration_ms=50",
      "--set", "output.sample_memory_mb=1"]),
    ("incast100k", "python/dcbsim/scenarios/bench/incast_jitter.toml",
     ["--set", "topology.servers=100000", "--set", "flows[0].rate_gbps=0.0001", "--set", "run.duration_ms=2"]),
    ("incast100k-noplots", "python/dcbsim/scenarios/bench/incast_jitter.toml",
     ["--set", "topology.servers=100000", "--set", "flows[0].rate_gbps=0.0001", "--set", "run.duration_ms=2",
      "--no-plots"]),
]

#: The manifest's fields that differ from run to run.
MANIFEST_VARYING = ("wall_s", "command", "peak_memory_mib", "git_commit")


def _nan_as_null(value):
    """``value`` read from JSON with every NaN (written by older builds) as ``None``."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_as_null(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_as_null(v) for v in value]
    return value


def normalized(name: str, data: bytes) -> bytes:
    """``data`` of file ``name`` with the run-to-run fields blanked (a JSON file as
    its values, written anew in one layout)."""
    if name.endswith(".json"):
        value = _nan_as_null(json.loads(data))
        for key in MANIFEST_VARYING if name == "manifest.json" else ("wall_s", "sim_speed"):
            value.pop(key, None)
        return json.dumps(value, indent=1, sort_keys=True).encode()
    if name == "summary.txt":
        return re.sub(rb"simulated in [\d.]+ s wall \([\d.]+ simulated s per s\)",
                      b"simulated in - s (-)", re.sub(rb"simulated in [\d.]+ s \([\d.]+ simulated s per s\)",
                                                     b"simulated in - s (-)", data))
    return data


def run_all(python: str, into: str, only: set[str]) -> None:
    """Runs every selected run into ``into/LABEL``."""
    for label, scenario, extra in RUNS:
        if only and label not in only:
            continue
        out = os.path.join(into, label)
        cmd = [python, "-m", "dcbsim", "run", scenario, "--out", out, "--overwrite", *extra]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"same_outputs.py: {label} failed ({done.returncode}): {done.stderr.strip()}")
        print(f"ran {label}", flush=True)


def _same(name: str, a: str, b: str) -> bool:
    """Whether files ``a`` and ``b`` (both named ``name``) hold the same outputs."""
    if name.endswith(".parquet"):
        import pyarrow.parquet as pq

        return pq.read_table(a).equals(pq.read_table(b))
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return normalized(name, fa.read()) == normalized(name, fb.read())


def compare(after: str, before: str, only: set[str]) -> int:
    """Compares each run's files; returns the number of differences."""
    differences = 0
    for label, _, _ in RUNS:
        if only and label not in only:
            continue
        a, b = os.path.join(after, label), os.path.join(before, label)
        names_a, names_b = sorted(os.listdir(a)), sorted(os.listdir(b))
        if names_a != names_b:
            print(f"DIFFER {label}: files {names_a} vs {names_b}")
            differences += 1
            continue
        for name in names_a:
            same = _same(name, os.path.join(a, name), os.path.join(b, name))
            if not same:
                print(f"DIFFER {label}/{name}")
                differences += 1
        print(f"{'same' if not differences else 'checked'} {label}: {len(names_a)} files")
    return differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the Python that runs dcbsim")
    parser.add_argument("--save", required=True, help="folder to write the runs' outputs into")
    parser.add_argument("--against", help="folder of earlier outputs to compare with")
    parser.add_argument("--only", action="append", default=[], help="a run's label (repeatable)")
    opts = parser.parse_args()
    only = set(opts.only)
    if os.path.isdir(opts.save):
        shutil.rmtree(opts.save)
    run_all(opts.python, opts.save, only)
    if opts.against:
        differences = compare(opts.save, opts.against, only)
        print(f"{differences} differences")
        sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
