"""Samples streamed to disk: the same tables as in memory, and nothing left behind."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim import cli

TINY = ["output.sample_memory_mb=0.001"]
SAMPLED = ("rate_bps", "throughput_bps", "send_bps", "fair_share_bps", "cwnd_segments", "alpha")


def _summary(result: dcbsim.Result) -> str:
    summary = result.summary
    for key in ("wall_s", "sim_speed"):
        summary.pop(key)
    return json.dumps(summary, sort_keys=True, default=str)


@pytest.mark.parametrize(("name", "extra"), [
    ("quickstart.toml", []),
    ("dctcp_incast.toml", []),
    # Samples every 20 us: several full chunks of rows in the spill file, then the rest.
    ("quickstart.toml", ["run.sample_interval_us=20"]),
])
def test_a_tiny_budget_gives_the_tables_of_a_run_in_memory(tmp_path: Path, name: str, extra: list[str]) -> None:
    path = SCENARIOS / "examples" / name
    memory = dcbsim.run(dcbsim.load(path, extra))
    streamed = dcbsim.run(dcbsim.load(path, TINY + extra), samples_dir=tmp_path)
    assert not memory.streamed and streamed.streamed
    assert streamed.to_polars().equals(memory.to_polars())
    assert streamed.to_pandas().equals(memory.to_pandas())
    assert _summary(streamed) == _summary(memory)
    for name, flow in memory.flows.items():
        for metric in SAMPLED:
            assert np.array_equal(getattr(streamed.flows[name], metric), getattr(flow, metric)), (name, metric)
    for name, port in memory.ports.items():
        assert port.monitored == streamed.ports[name].monitored
        assert np.array_equal(streamed.ports[name].queue_bytes, port.queue_bytes)
    memory.write_parquet(str(tmp_path / "memory.parquet"))
    streamed.write_parquet(str(tmp_path / "streamed.parquet"))
    assert pq.ParquetFile(tmp_path / "streamed.parquet").metadata.num_row_groups > 1
    assert pq.read_table(tmp_path / "streamed.parquet").equals(pq.read_table(tmp_path / "memory.parquet"))


def test_a_budget_that_holds_every_samples_sums_reads_each_flow_in_one_piece(tmp_path: Path) -> None:
    # 50 kB: the 500 samples stream to disk, but the per-sample fairness sums of all
    # of them fit, so the summary reads each flow's series side by side at once.
    path = SCENARIOS / "examples" / "quickstart.toml"
    memory = dcbsim.run(dcbsim.load(path))
    streamed = dcbsim.run(dcbsim.load(path, ["output.sample_memory_mb=0.05"]), samples_dir=tmp_path)
    assert streamed.streamed and streamed.sample_count * 64 <= streamed.scenario.sample_memory_bytes
    assert _summary(streamed) == _summary(memory)
    names = list(memory.flows)[1:4]
    assert streamed.fairness(names, 0.002, 0.004) == memory.fairness(names, 0.002, 0.004)


def test_a_streamed_result_keeps_its_folder_while_it_lives(tmp_path: Path) -> None:
    result = dcbsim.run(dcbsim.load(SCENARIOS / "examples" / "quickstart.toml", TINY), samples_dir=tmp_path)
    (folder,) = os.listdir(tmp_path)
    # The spill is gone once converted: the table, and the series one after another.
    assert sorted(os.listdir(tmp_path / folder)) == ["results.parquet", "series.f64"]
    assert result.flows
    del result
    gc.collect()
    assert os.listdir(tmp_path) == []


def test_an_interrupted_streamed_run_leaves_nothing(tmp_path: Path) -> None:
    def stop(fraction: float) -> None:
        if fraction > 0.3:
            raise KeyboardInterrupt

    scenario = dcbsim.load(SCENARIOS / "examples" / "quickstart.toml", TINY + ["run.sample_interval_us=10"])
    with pytest.raises(KeyboardInterrupt):
        dcbsim.run(scenario, progress=stop, samples_dir=tmp_path)
    assert os.listdir(tmp_path) == []


def test_a_killed_streaming_run_leaves_no_results_and_the_next_run_cleans_up(tmp_path: Path, small_text: str) -> None:
    scenario = tmp_path / "small.toml"
    scenario.write_text(small_text)
    out = tmp_path / "out"
    long_run = ["--set", "run.duration_ms=1e5", "--set", "run.sample_interval_us=10", "--set", TINY[0]]
    proc = subprocess.Popen([sys.executable, "-m", "dcbsim.cli", "run", str(scenario), "--out", str(out), *long_run],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    spilled: list[Path] = []
    while not spilled and time.monotonic() < deadline:
        time.sleep(0.1)
        spilled = [p for p in tmp_path.rglob("samples.spill") if p.stat().st_size > 100_000]
    proc.kill()
    proc.communicate(timeout=30)
    assert spilled, "the samples stream to a file while the run goes"
    assert not out.exists() and not list(tmp_path.rglob("results.parquet"))
    assert cli.main(["run", str(scenario), "--out", str(out), "--no-plots", "--set", TINY[0]]) == 0
    assert pl.read_parquet(out / "results.parquet").height > 0
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")], "the killed run's stage is removed"


def test_the_budget_must_be_a_positive_number(tmp_path: Path) -> None:
    path = SCENARIOS / "examples" / "quickstart.toml"
    with pytest.raises(dcbsim.ScenarioError, match=r"output\.sample_memory_mb"):
        dcbsim.load(path, ["output.sample_memory_mb=0"])
    with pytest.raises(dcbsim.ScenarioError, match=r"output\.sample_memory"):
        dcbsim.load(path, ["output.sample_memory=1"])
    done = subprocess.run([sys.executable, "-m", "dcbsim.cli", "validate", str(path), "--set", "output.sample_memory_mb=-1"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_streamed_run_counts_its_budget_not_its_samples_in_the_estimate() -> None:
    path = SCENARIOS / "examples" / "quickstart.toml"
    long = ["run.duration_ms=20000", "run.sample_interval_us=1"]
    with pytest.raises(dcbsim.ScenarioError, match="samples"):
        dcbsim.load(path, long + ["output.sample_memory_mb=1e6"], max_memory_gb=2)
    scenario = dcbsim.load(path, long, max_memory_gb=2)
    # 4.6 GB of samples (18 GB with the results' copies); the estimate holds the 64 MB
    # budget and the 0.16 GB of sample times, with the results' copies of both, and the
    # interpreter's share.
    assert scenario.streams_samples and scenario.estimate[0] < 1.2e9


def test_import_dcbsim_loads_no_numpy() -> None:
    code = "import sys, dcbsim; dcbsim.load(sys.argv[1]); print([m for m in sys.modules if m.startswith('numpy.')])"
    done = subprocess.run([sys.executable, "-c", code, str(SCENARIOS / "examples" / "quickstart.toml")],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


def test_a_full_disk_while_streaming_is_one_line_and_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    from dcbsim import samples

    class Full:
        """A table writer on a disk that fills at its first group."""

        def __init__(self, *args) -> None:
            pass

        def write(self, *args) -> None:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(samples, "TidyWriter", Full)
    out = tmp_path / "out"
    quickstart = str(SCENARIOS / "examples" / "quickstart.toml")
    assert cli.main(["run", quickstart, "--out", str(out), "--set", TINY[0], "--no-plots"]) == 1
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_many_flows_read_side_by_side_from_a_streamed_run(tmp_path: Path) -> None:
    # 20 flows: the rates plot sums them a block at a time, and a streamed run reads
    # each block's series in one piece; the values and the plot's lines are those of
    # the run in memory.
    from dcbsim import plot

    path = SCENARIOS / "bench" / "incast_jitter.toml"
    extra = ["topology.servers=20", "flows[0].rate_gbps=0.625", "run.duration_ms=5", "run.sample_interval_us=50"]
    memory = dcbsim.run(dcbsim.load(path, extra))
    streamed = dcbsim.run(dcbsim.load(path, extra + ["output.sample_memory_mb=0.01"]), samples_dir=tmp_path)
    assert streamed.streamed and not memory.streamed
    names = list(memory.flows)[3:17]
    metrics = ("throughput_bps", "fair_share_bps", "cwnd_segments", "rate_bps")
    assert streamed._flow_columns(names, metrics) == memory._flow_columns(names, metrics)
    lines = [[(line.get_label(), list(line.get_ydata())) for line in plot.rates(r).axes[0].get_lines()] for r in (memory, streamed)]
    assert lines[0] == lines[1] and any(label == "mean throughput" for label, _ in lines[0])
    assert _summary(streamed) == _summary(memory)


def test_a_streamed_table_written_with_another_compression_is_written_anew(tmp_path: Path) -> None:
    path = SCENARIOS / "examples" / "quickstart.toml"
    memory = dcbsim.run(dcbsim.load(path))
    streamed = dcbsim.run(dcbsim.load(path, TINY), samples_dir=tmp_path)
    streamed.write_parquet(str(tmp_path / "zstd.parquet"))
    streamed.write_parquet(str(tmp_path / "none.parquet"), "none")
    assert os.path.samefile(tmp_path / "zstd.parquet", streamed.samples.path)
    meta = pq.ParquetFile(tmp_path / "none.parquet").metadata
    assert meta.num_row_groups > 1 and meta.row_group(0).column(3).compression == "UNCOMPRESSED"
    for name in ("zstd.parquet", "none.parquet"):
        assert pq.read_table(tmp_path / name).equals(pq.read_table(tmp_path / "zstd.parquet"))
        assert pl.read_parquet(tmp_path / name).equals(memory.to_polars())
