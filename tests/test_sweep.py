"""Sweeps: expansion, seeds, resume after a kill, failing runs, the Dask path."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim import sweepfile
from dcbsim.sweeps import local_pool, run_sweep

QUICK = (SCENARIOS / "examples" / "quickstart.toml").as_posix()


def write_sweep(tmp_path: Path, body: str, scenario: str = QUICK) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(f'[sweep]\nscenario = "{scenario}"\n{body}')
    return path


def test_grid_lockstep_constraint_and_repeat(tmp_path):
    path = write_sweep(tmp_path, """repeat = 2
constraint = "a + b < 35"
[[sweep.var]]
name = "a"
set = "scheme.q_eq_kb"
values = [10, 20, 30]
[[sweep.var]]
name = "b"
set = "scheme.r_ai_mbps"
range = { start = 1, stop = 9, step = 4 }
[[sweep.var]]
name = "c"
set = "run.duration_ms"
values = [5.0, 6.0, 7.0]
group = "g"
[[sweep.var]]
name = "d"
set = "run.sample_interval_us"
values = [100.0, 200.0, 300.0]
group = "g"
""")
    sweep = sweepfile.load(path)
    combos = sweep.combinations()
    # a x b x (c, d) in lock-step = 3 x 3 x 3 = 27, minus (30, 5) and (30, 9) x 3.
    expected = [(a, b, cd) for a in (10, 20, 30) for b in (1, 5, 9) for cd in range(3) if a + b < 35]
    assert len(combos) == len(expected) == 21
    assert all((c["c"], c["d"]) in [(5.0, 100.0), (6.0, 200.0), (7.0, 300.0)] for c in combos)
    runs = sweep.runs()
    assert len(runs) == 42
    assert runs[0].overrides == ("scheme.q_eq_kb=10", "scheme.r_ai_mbps=1", "run.duration_ms=5.0", "run.sample_interval_us=100.0")
    assert [r.repetition for r in runs[:4]] == [0, 1, 0, 1]


def test_seeds_differ_between_runs_and_repeat_for_the_same_run(tmp_path):
    path = write_sweep(tmp_path, "repeat = 50\nseed = 3\n")
    seeds = [r.seed for r in sweepfile.load(path).runs()]
    assert len(set(seeds)) == 50
    assert seeds == [r.seed for r in sweepfile.load(path).runs()]
    other = [r.seed for r in sweepfile.load(write_sweep(tmp_path, "repeat = 50\nseed = 4\n")).runs()]
    assert not set(seeds) & set(other)


@pytest.mark.parametrize(
    "body, words",
    [
        ("repeat = 0", "sweep.repeat"),
        ("[[sweep.var]]\nname = \"x\"\nset = \"run.seed\"", "give values or range"),
        ("[[sweep.var]]\nname = \"x\"\nset = \"run.seed\"\nrange = { start = 1, stop = 2, step = 0 }", "step > 0"),
        ("colour = 1", "sweep.colour: unknown key"),
        ("constraint = \"nope +\"", "cannot evaluate"),
        ("[[sweep.var]]\nname = \"weight\"\nset = \"flows[0].weight\"\nvalues = [1]", "names a column of the sweep's tables"),
    ],
)
def test_bad_sweeps_are_named(tmp_path, body, words):
    with pytest.raises(sweepfile.SweepError, match=words):
        sweepfile.load(write_sweep(tmp_path, body)).runs()


def short_sweep(tmp_path: Path, repeat: int = 2) -> Path:
    return write_sweep(tmp_path, f"""repeat = {repeat}
[[sweep.var]]
name = "qeq"
set = "scheme.q_eq_kb"
values = [16, 33]
[[sweep.var]]
name = "ms"
set = "run.duration_ms"
values = [10.0]
""")


def canonical(table: pl.DataFrame) -> pl.DataFrame:
    return table.sort(["run_id", "metric", "entity", "time_s"])


def test_local_pool_gives_one_table_with_run_columns(tmp_path):
    table = dcbsim.sweep(short_sweep(tmp_path), tmp_path / "out", jobs=2)
    assert {"run_id", "seed", "qeq", "ms", "time_s", "metric", "entity", "value"} <= set(table.columns)
    assert table["run_id"].n_unique() == 4
    runs = pl.read_parquet(tmp_path / "out" / "runs.parquet")
    assert runs.height == 4 and set(runs["status"]) == {"ok"}
    assert (tmp_path / "out" / "manifest.json").exists()


class CountingExecutor(ThreadPoolExecutor):
    """Counts what is submitted."""

    submitted = 0

    def submit(self, fn, *args, **kwargs):
        CountingExecutor.submitted += 1
        return super().submit(fn, *args, **kwargs)


def test_a_failing_run_is_recorded_and_the_others_complete(tmp_path):
    path = write_sweep(tmp_path, """
[[sweep.var]]
name = "rate"
set = "flows[1].rate_gbps"
values = [1.0, -1.0, 2.0]
[[sweep.var]]
name = "ms"
set = "run.duration_ms"
values = [10.0]
""")
    run_sweep(path, str(tmp_path / "out"), ThreadPoolExecutor(2))
    runs = pl.read_parquet(tmp_path / "out" / "runs.parquet").sort("index")
    assert runs["status"].to_list() == ["ok", "failed", "ok"]
    assert "must be > 0 (got -1)" in runs["error"][1]


def test_resume_after_a_kill_runs_only_what_is_missing(tmp_path):
    bench = (SCENARIOS / "bench" / "dumbbell_10g.toml").as_posix()
    path = write_sweep(tmp_path, """repeat = 6
[[sweep.var]]
name = "ms"
set = "run.duration_ms"
values = [400.0]
""", scenario=bench)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "dcbsim.cli", "sweep", str(path), "--out", str(out), "--jobs", "1"],
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / "runs").glob("*.parquet"))) < 2:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(list((out / "runs").glob("*.parquet")))
    assert 2 <= done_before < 6, done_before
    CountingExecutor.submitted = 0
    resumed = canonical(run_sweep(path, str(out), CountingExecutor(2)))
    assert CountingExecutor.submitted == 6 - done_before
    fresh = canonical(run_sweep(path, str(tmp_path / "fresh"), ThreadPoolExecutor(2)))
    assert resumed.equals(fresh)


def test_the_dask_path_gives_the_local_pool_table(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = short_sweep(tmp_path)
    local = canonical(run_sweep(path, str(tmp_path / "local"), local_pool(2)))
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
            remote = canonical(run_sweep(path, str(tmp_path / "dask"), client.get_executor()))
    assert remote.equals(local)


def test_a_scenario_may_carry_its_own_sweep_and_the_cli_takes_a_scheduler(tmp_path):
    distributed = pytest.importorskip("distributed")
    text = (SCENARIOS / "examples" / "quickstart.toml").read_text()
    path = tmp_path / "own.toml"
    path.write_text(text + """
[sweep]
repeat = 2
[[sweep.var]]
name = "ms"
set = "run.duration_ms"
values = [5.0, 10.0]
""")
    assert dcbsim.load(path).name == "quickstart"
    assert len(sweepfile.load(path).runs()) == 4
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        done = subprocess.run(
            [sys.executable, "-m", "dcbsim.cli", "sweep", str(path), "--out", str(tmp_path / "out"),
             "--scheduler", cluster.scheduler_address],
            capture_output=True, text=True, timeout=300,
        )
    assert done.returncode == 0, done.stderr
    assert "4 runs, 4 ok, 0 failed" in done.stdout


@pytest.mark.parametrize(("compression", "codec"), [("zstd", "ZSTD"), ("snappy", "SNAPPY"), ("none", "UNCOMPRESSED")])
def test_a_sweeps_tables_are_compressed_as_its_scenario_says(tmp_path, compression, codec):
    import pyarrow.parquet as pq

    scenario = tmp_path / "quick.toml"
    text = Path(QUICK).read_text()
    if compression != "zstd":
        text += f'\n[output]\ncompression = "{compression}"\n'
    scenario.write_text(text.replace("duration_ms = 100.0", "duration_ms = 5.0"))
    path = write_sweep(tmp_path, '[[sweep.var]]\nname = "q"\nset = "scheme.q_eq_kb"\nvalues = [10, 20]\n', scenario.as_posix())
    table = run_sweep(path, str(tmp_path / "out"), ThreadPoolExecutor(1))
    assert table.height > 0
    files = sorted((tmp_path / "out").glob("*.parquet")) + sorted((tmp_path / "out" / "runs").glob("*.parquet"))
    assert len(files) == 9
    for file in files:
        meta = pq.ParquetFile(file).metadata
        codecs = {meta.row_group(g).column(c).compression for g in range(meta.num_row_groups) for c in range(meta.num_columns)}
        assert codecs <= {codec} and (codecs or meta.num_rows == 0), file.name
