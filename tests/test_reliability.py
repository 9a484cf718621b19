"""Regressions of issue 15 (Python and CLI side): no traceback, abort or hang on bad
input; one-line errors with exit 2 (bad input) or 1 (environment); crash-safe runs
and sweeps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim import results, sweepfile
from dcbsim.sweeps import run_sweep

QUICK = (SCENARIOS / "examples" / "quickstart.toml").as_posix()


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcbsim.cli", *args], capture_output=True, text=True, timeout=timeout)


def one_line_error(done: subprocess.CompletedProcess, status: int, words: str) -> None:
    assert done.returncode == status, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dcbsim: error: "), done.stderr
    assert words in lines[0], lines[0]


def write_sweep(tmp_path: Path, body: str, scenario: str = QUICK) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(f'[sweep]\nscenario = "{scenario}"\n{body}')
    return path


# --- aborts and tracebacks -------------------------------------------------------


def test_a_seed_beyond_64_bits_is_one_line(tmp_path):
    done = cli("run", QUICK, "--out", str(tmp_path / "o"), "--seed", "18446744073709551616")
    one_line_error(done, 2, "--seed")
    assert "0..=18446744073709551615" in done.stderr


def test_validate_refuses_a_huge_duration_with_the_memory_figure_and_the_limit_can_be_raised():
    done = cli("validate", QUICK, "--set", "run.duration_ms=1e9")
    one_line_error(done, 2, "GB of memory")
    assert "run.duration_ms" in done.stderr and "--max-memory-gb" in done.stderr
    # About 0.18 GB of samples kept in memory, 0.9 GB with the results made of them:
    # refused under 0.6 GB, accepted under 1.5 GB.
    in_memory = ["--set", "run.duration_ms=2e5", "--set", "output.sample_memory_mb=1000"]
    one_line_error(cli("validate", QUICK, *in_memory, "--max-memory-gb", "0.6"), 2, "limit of 0.6 GB")
    done = cli("validate", QUICK, *in_memory, "--max-memory-gb", "1.5")
    assert done.returncode == 0, done.stderr
    assert "GB of memory" in done.stdout
    # Streamed (above the default 64 MB budget) they count as the budget and the times.
    done = cli("validate", QUICK, "--set", "run.duration_ms=2e5", "--max-memory-gb", "0.6")
    assert done.returncode == 0, done.stderr
    assert "samples streamed to disk" in done.stdout


def test_an_all_to_all_fabric_beyond_memory_is_refused_at_once_even_with_a_raised_limit():
    """67 million flows (a k = 32 fat-tree, all to all): refused while read, before
    any flow is made; with the limit raised past the machine's memory, at that memory
    (made, the flows took 57 s and aborted on a 5.9 GB allocation, or drew the
    out-of-memory killer)."""
    fabric = (SCENARIOS / "bench" / "fat_tree_k8.toml").as_posix()
    started = time.monotonic()
    done = cli("validate", fabric, "--set", "topology.k=32")
    one_line_error(done, 2, "flows[0].pairing: the run's 67100672 flows alone would need about")
    assert "--max-memory-gb" in done.stderr
    if sys.platform.startswith("linux"):
        done = cli("validate", fabric, "--set", "topology.k=32", "--max-memory-gb", "1e9")
        one_line_error(done, 2, "above this machine's")
    assert time.monotonic() - started < 30


def test_the_memory_estimate_covers_the_whole_commands_peak(tmp_path):
    """The estimate a run is refused by is the peak of the whole ``dcbsim run``, results
    and plots included (they outgrow the engine with many flows or samples): checked on
    14,400 flows sampled every 10 us for 1 ms (46 MB of samples)."""
    path = tmp_path / "a2a.toml"
    path.write_text('[run]\nduration_ms = 1.0\nsample_interval_us = 10.0\n'
                    '[topology]\nkind = "dumbbell"\nsenders = 120\nreceivers = 120\n'
                    '[[flows]]\nsrc = "s*"\ndst = "r*"\npairing = "all_to_all"\nkind = "constant"\nrate_gbps = 0.01\n')
    assert_peak_within_the_estimate(path, tmp_path / "out")


def test_the_memory_estimate_covers_the_flows_arrival_sources_make(tmp_path):
    """About 73,000 flows of 1 KB arrive in 150 ms; each is counted."""
    path = tmp_path / "arrivals.toml"
    path.write_text('[run]\nduration_ms = 150.0\n[topology]\nkind = "dumbbell"\nsenders = 2\n'
                    '[[arrivals]]\nname = "short"\nsrc = "s0"\ndst = "r0"\nload_gbps = 4.0\nsize_kb = 1.0\n')
    assert_peak_within_the_estimate(path, tmp_path / "out", fewest=0.3)


def assert_peak_within_the_estimate(path: Path, out: Path, fewest: float = 0.5) -> None:
    """Runs ``path`` into ``out``: its peak memory must be within its estimate, and at
    least ``fewest`` of it (so that runs which fit are not refused)."""
    estimate_gb = dcbsim.load(path).estimate[0] / 1e9
    done = cli("run", str(path), "--out", str(out))
    assert done.returncode == 0, done.stderr
    peak_gb = json.loads((out / "manifest.json").read_text())["peak_memory_mib"] * 2**20 / 1e9
    assert fewest * estimate_gb < peak_gb <= estimate_gb, (peak_gb, estimate_gb)


def test_a_local_sweeps_parallel_runs_share_the_machines_memory(tmp_path, monkeypatch):
    # The quickstart for 5 ms needs about 0.2 GB: on a machine of 0.3 GB it runs alone,
    # not two at a time; on a large machine each run keeps the whole limit.
    from dcbsim import sweeps

    monkeypatch.setattr(sweeps, "machine_memory_gb", lambda: 0.3)
    path = write_sweep(tmp_path, '[[sweep.var]]\nname = "ms"\nset = "run.duration_ms"\nvalues = [5.0]\n')
    assert run_sweep(path, str(tmp_path / "alone"), jobs=1).height > 0
    run_sweep(path, str(tmp_path / "two"), jobs=2)
    runs = pl.read_parquet(tmp_path / "two" / "runs.parquet")
    assert runs["status"].to_list() == ["failed"]
    assert "2 parallel runs share this machine's 0.3 GB, 0.15 GB each; fewer --jobs" in runs["error"][0]
    assert sweeps.per_run_limit(None, 64, 256.0)[0] is None
    assert sweeps.per_run_limit(2.5, 8, 16.0)[0] == 2.0


def test_a_sweep_value_too_big_for_memory_fails_that_run_only(tmp_path):
    path = write_sweep(tmp_path, '[[sweep.var]]\nname = "ms"\nset = "run.duration_ms"\nvalues = [5.0, 1e9]\n')
    done = cli("sweep", str(path), "--out", str(tmp_path / "out"), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    runs = pl.read_parquet(tmp_path / "out" / "runs.parquet").sort("index")
    assert runs["status"].to_list() == ["ok", "failed"]
    assert "GB of memory" in runs["error"][1]


def test_an_incast_of_the_documented_maximum_validates(tmp_path):
    path = tmp_path / "incast.toml"
    path.write_text('[run]\nduration_ms = 1.0\n[topology]\nkind = "incast"\nservers = 100000\n'
                    '[[flows]]\nsrc = "srv*"\ndst = "client"\nkind = "finite"\nsize_kb = 1\n')
    started = time.monotonic()
    done = cli("validate", str(path))
    assert done.returncode == 0, done.stderr
    assert "100002 nodes" in done.stdout
    assert time.monotonic() - started < 60


def test_sweep_list_over_a_huge_grid_streams(tmp_path):
    var = '[[sweep.var]]\nname = "v{}"\nset = "scheme.q_eq_kb"\nrange = {{ start = 1, stop = 100, step = 1 }}\n'
    body = "".join(var.format(i) for i in range(5))
    path = write_sweep(tmp_path, body)
    proc = subprocess.Popen([sys.executable, "-m", "dcbsim.cli", "sweep", str(path), "--list"], stdout=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        assert all("combination" in line for line in lines), lines
    finally:
        proc.kill()
        proc.wait()
    assert sweepfile.load(path).size() == 10**10


def test_a_full_disk_under_out_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, quickstart):
    from dcbsim import _core
    from dcbsim import cli as cli_module

    class Full:
        """A table writer on a disk that fills at its first group."""

        def __init__(self, *args) -> None:
            pass

        def write(self, *args) -> None:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(_core, "TidyWriter", Full)
    out = tmp_path / "out"
    status = cli_module.main(["run", str(quickstart), "--out", str(out), "--set", "run.duration_ms=5", "--no-plots"])
    assert status == 1
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_a_damaged_run_file_is_run_again(tmp_path):
    path = write_sweep(tmp_path, 'repeat = 2\n[[sweep.var]]\nname = "ms"\nset = "run.duration_ms"\nvalues = [5.0]\n')
    out = tmp_path / "out"
    first = run_sweep(path, str(out), jobs=1)
    files = sorted((out / "runs").glob("*.parquet"))
    assert len(files) == 2
    files[0].write_bytes(b"PAR1 damaged")
    again = run_sweep(path, str(out), jobs=1)
    assert again.sort(["run_id", "metric", "entity", "time_s"]).equals(first.sort(["run_id", "metric", "entity", "time_s"]))


def test_the_qcn_model_refuses_zero_rates():
    one_line_error(cli("model", "qcn", "--rates-mbps", "0,0"), 2, "--rates-mbps")


# --- hangs -----------------------------------------------------------------------


def test_an_explosive_constraint_is_refused_quickly(tmp_path):
    path = write_sweep(tmp_path, 'constraint = "9**9**9 > 0"\n[[sweep.var]]\nname = "a"\nset = "scheme.q_eq_kb"\nvalues = [10]\n')
    started = time.monotonic()
    done = cli("sweep", str(path), "--list", timeout=60)
    one_line_error(done, 2, "sweep.constraint")
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("text, words", [
    ("__import__('os').system('true')", "calls only"),
    ("a.__class__", "not allowed"),
    ("[x for x in range(10**9)]", "not allowed"),
    ("b > 1", "unknown name"),
])
def test_constraints_outside_the_safe_subset_are_refused(tmp_path, text, words):
    path = write_sweep(tmp_path, f'constraint = "{text}"\n[[sweep.var]]\nname = "a"\nset = "scheme.q_eq_kb"\nvalues = [10]\n')
    with pytest.raises(sweepfile.SweepError, match=words):
        sweepfile.load(path)


def test_a_safe_constraint_still_filters(tmp_path):
    path = write_sweep(tmp_path, 'constraint = "a in (10, 30) and math.log(a) < 3.2 and 2**a > 0"\n'
                       '[[sweep.var]]\nname = "a"\nset = "scheme.q_eq_kb"\nvalues = [10, 20, 30]\n')
    assert [c["a"] for c in sweepfile.load(path).combinations()] == [10]


# One thread, and a fabric split over two (its parts stop together at a barrier).
@pytest.mark.parametrize("run", [[QUICK], [(SCENARIOS / "bench" / "fat_tree_k8_dctcp.toml").as_posix(), "--threads", "2"]],
                         ids=["one-thread", "split"])
def test_ctrl_c_stops_a_long_run_within_seconds(tmp_path, run):
    proc = subprocess.Popen(
        [sys.executable, "-m", "dcbsim.cli", "run", *run, "--out", str(tmp_path / "o"), "--set", "run.duration_ms=1e9",
         "--set", "run.sample_interval_us=1e9"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 5, err
    assert proc.returncode == 130, err
    assert "interrupted; no output written" in err
    assert not (tmp_path / "o").exists()


# --- faults ----------------------------------------------------------------------


def test_out_is_checked_before_the_run(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    started = time.monotonic()
    done = cli("run", QUICK, "--out", str(blocker / "out"), "--set", "run.duration_ms=1e6", "--set", "run.sample_interval_us=1e6")
    one_line_error(done, 1, "--out")
    assert time.monotonic() - started < 30


def test_a_non_empty_out_needs_overwrite_which_clears_it(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old_plot.png").write_text("old")
    one_line_error(cli("run", QUICK, "--out", str(out), "--set", "run.duration_ms=5", "--no-plots"), 2, "--overwrite")
    done = cli("run", QUICK, "--out", str(out), "--set", "run.duration_ms=5", "--no-plots", "--overwrite")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "results.parquet", "summary.json", "summary.txt"]


def test_stale_temporary_folders_of_killed_runs_are_removed(tmp_path):
    stale = tmp_path / ".out.tmp-999999999-abc"
    legacy = tmp_path / ".out.tmp-xyz"
    stale.mkdir()
    legacy.mkdir()
    done = cli("run", QUICK, "--out", str(tmp_path / "out"), "--set", "run.duration_ms=5", "--no-plots")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def long_sweep(tmp_path: Path) -> Path:
    bench = (SCENARIOS / "bench" / "dumbbell_10g.toml").as_posix()
    return write_sweep(tmp_path, 'repeat = 4\n[[sweep.var]]\nname = "ms"\nset = "run.duration_ms"\nvalues = [100000.0]\n', scenario=bench)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_sweep_workers_die_with_the_sweep(tmp_path, sig):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "dcbsim.cli", "sweep", str(long_sweep(tmp_path)), "--out", str(out), "--jobs", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 3:  # two workers and the resource tracker
        time.sleep(0.2)
        workers = children_of(proc.pid)
    assert len(workers) >= 2, workers
    time.sleep(1.0)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(alive(w) for w in workers), [w for w in workers if alive(w)]
    if sig != signal.SIGKILL:
        assert proc.returncode == (143 if sig == signal.SIGTERM else 130), err
        assert "kept in" in err and "Traceback" not in err


def test_a_dead_worker_fails_its_run_and_the_sweep_goes_on(tmp_path):
    import sweep_helpers

    path = write_sweep(tmp_path, 'repeat = 3\n[[sweep.var]]\nname = "ms"\nset = "run.duration_ms"\nvalues = [5.0]\n')
    run_sweep(path, str(tmp_path / "out"), jobs=2, work=sweep_helpers.crash_on_index_1)
    runs = pl.read_parquet(tmp_path / "out" / "runs.parquet").sort("index")
    assert runs["status"].to_list() == ["ok", "failed", "ok"]
    assert "worker process" in runs["error"][1]


# --- Python API ------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1.7, "5", True, -1, 2**64])
def test_run_refuses_seeds_that_are_not_64_bit_integers(small_text, seed):
    with pytest.raises((TypeError, ValueError), match="seed must be an integer"):
        dcbsim.run(dcbsim.loads(small_text), seed=seed)


def test_run_takes_the_largest_seed(small_text):
    dcbsim.run(dcbsim.loads(small_text.replace("duration_ms = 5.0", "duration_ms = 1.0")), seed=2**64 - 1)


def test_sweep_refuses_zero_jobs(tmp_path):
    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        dcbsim.sweep(write_sweep(tmp_path, ""), tmp_path / "out", jobs=0)


def test_convergence_time_refuses_a_negative_epsilon():
    import numpy as np

    with pytest.raises(ValueError, match="epsilon"):
        results.convergence_time(np.arange(3.0), [np.ones(3), np.ones(3)], epsilon=-1)


def test_load_refuses_a_lone_override_string(quickstart):
    with pytest.raises(TypeError, match="not a string"):
        dcbsim.load(quickstart, "run.duration_ms=5")


def test_load_refuses_a_bad_memory_limit(quickstart):
    with pytest.raises(ValueError, match="max_memory_gb"):
        dcbsim.load(quickstart, max_memory_gb=0)


def test_the_flow_table_reads_as_python_formats_it():
    # The engine formats the summary's flow table: the same text as Python's own
    # formatting for weights of any size, missing and None fields, NaN, big
    # counters and names that are not ASCII.
    import random

    from dcbsim._core import flow_table
    from dcbsim.table import _table

    rng = random.Random(11)

    def entry(i):
        f = {"throughput_bps": rng.random() * 10 ** rng.randint(0, 12), "delivered_frames": rng.randint(0, 2**70),
             "dropped_frames": i, "notifications": rng.randint(0, 9), "completion_time_s": rng.choice([None, rng.random()])}
        for key in ("throughput_active_bps", "offered_bps", "fair_share_bps"):
            if rng.random() < 0.8:
                f[key] = rng.choice([None, float("nan"), rng.random() * 1e10])
        if rng.random() < 0.7:
            f["weight"] = rng.choice([1.0, 2, 0.5, rng.random() * 10 ** rng.randint(-7, 8)])
        if rng.random() < 0.5:
            f["retransmits"], f["timeouts"] = rng.randint(0, 99), rng.randint(0, 9)
        return (rng.choice(["f", "flöw", "流"]) + str(i), f)

    flows = [entry(i) for i in range(3000)]
    rows = [[name, f"{f['throughput_bps'] / 1e9:.3f}",
             "" if f.get("throughput_active_bps") is None else f"{f['throughput_active_bps'] / 1e9:.3f}",
             "" if f.get("offered_bps") is None else f"{f['offered_bps'] / 1e9:.3f}",
             "" if f.get("fair_share_bps") is None else f"{f['fair_share_bps'] / 1e9:.3f}",
             f"{f.get('weight', 1.0):g}", str(f["delivered_frames"]), str(f["dropped_frames"]), str(f["notifications"]),
             f"{f.get('retransmits', 0)}/{f.get('timeouts', 0)}",
             "" if f["completion_time_s"] is None else f"{1e3 * f['completion_time_s']:.3f}"] for name, f in flows]
    headers = ["flow", "Gb/s", "active Gb/s", "offered", "fair Gb/s", "weight", "delivered", "dropped", "notifications",
               "rtx/RTO", "FCT (ms)"]
    assert flow_table(flows) == _table(headers, rows)
    assert flow_table([]) == _table(headers, [])
    with pytest.raises(KeyError, match="throughput_bps"):
        flow_table([("f", {})])
