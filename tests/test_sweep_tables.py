"""A sweep keeps everything a single run's summary has, in tidy tables keyed by run
with the same dtypes in every file; a sweep whose runs all failed exits non-zero."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim import cli, sweeptables
from dcbsim.sweeps import run_sweep

TCP_FCT = (SCENARIOS / "examples" / "tcp_fct.toml").as_posix()
FILES = ["results", "runs", "ports", "flows", "arrivals", "classes", "fcts"]


def sweep_file(tmp_path: Path, rates: str, scenario: str = TCP_FCT) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(f"""[sweep]
scenario = "{scenario}"
repeat = 2
[[sweep.var]]
name = "k"
set = "transport.rto_min_ms"
values = {rates}
[[sweep.var]]
name = "ms"
set = "run.duration_ms"
values = [30]
[[sweep.var]]
name = "label"
set = "run.name"
values = ["a"]
""")
    return path


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    """A sweep of 3 x 2 runs of the TCP FCT example (arrivals, finite flows), the
    variable taking an integer, a float and a bad value (those runs fail)."""
    tmp = tmp_path_factory.mktemp("tables")
    out = tmp / "out"
    run_sweep(sweep_file(tmp, "[10, 2.5, -1]"), str(out), ThreadPoolExecutor(2))
    return out


def test_every_file_has_the_same_key_columns_and_dtypes(swept):
    keys = {"run_id": pl.Utf8, "seed": pl.UInt64, "k": pl.Float64, "ms": pl.Int64, "label": pl.Utf8}
    for name in FILES:
        schema = pl.read_parquet_schema(swept / f"{name}.parquet")
        assert {k: schema[k] for k in keys} == keys, name
        assert list(schema)[:5] == list(keys), name
    for name, columns in sweeptables.TABLES.items():
        schema = pl.read_parquet_schema(swept / f"{name}.parquet")
        assert dict(schema) == {**keys, **columns}, name
    assert dict(pl.read_parquet_schema(swept / "runs.parquet")) == {**keys, **sweeptables.RUNS}


def test_the_tables_hold_each_runs_flows_ports_and_fcts(swept):
    runs = pl.read_parquet(swept / "runs.parquet").sort("index")
    assert runs["status"].to_list() == ["ok"] * 4 + ["failed"] * 2
    assert runs["fct_completed"][0] > 0 and runs["fct_le100KB_slowdown_p50"][0] >= 1.0
    ok = set(runs.filter(pl.col("status") == "ok")["run_id"])
    flows = pl.read_parquet(swept / "flows.parquet")
    assert set(flows["run_id"]) == ok and flows.height == 4 * 2
    assert flows["throughput_active_bps"].min() > 0
    ports = pl.read_parquet(swept / "ports.parquet")
    assert ports.filter(pl.col("port") == "sw0:r0").height == 4
    fcts = pl.read_parquet(swept / "fcts.parquet")
    assert set(fcts["run_id"]) == ok and set(fcts["source"]) <= {"short0", "short1"}
    arrivals = pl.read_parquet(swept / "arrivals.parquet")
    assert arrivals.group_by("run_id").len()["len"].to_list() == [2] * 4


def test_pandas_reads_every_table(swept):
    pd = pytest.importorskip("pandas")
    for name in FILES:
        frame = pd.read_parquet(swept / f"{name}.parquet")
        assert str(frame["seed"].dtype) == "uint64", name
    assert list(pd.read_parquet(swept / "flows.parquet")["path"][0]) == ["s0:sw0", "sw0:r0"]


def test_a_runs_rows_match_the_single_runs_summary(swept):
    run = pl.read_parquet(swept / "runs.parquet").filter(pl.col("status") == "ok").row(0, named=True)
    scenario = dcbsim.load(TCP_FCT, [f"transport.rto_min_ms={run['k']:g}", "run.duration_ms=30", "run.name=\"a\""])
    summary = dcbsim.run(scenario, seed=run["seed"]).summary
    flows = pl.read_parquet(swept / "flows.parquet").filter(pl.col("run_id") == run["run_id"])
    for row in flows.iter_rows(named=True):
        single = summary["flows"][row["flow"]]
        assert (row["throughput_bps"], row["throughput_active_bps"]) == (single["throughput_bps"], single["throughput_active_bps"])
    fcts = pl.read_parquet(swept / "fcts.parquet").filter(pl.col("run_id") == run["run_id"])
    assert fcts.height == sum(a["flows"] for a in summary["arrivals"].values())
    assert run["dropped_frames"] == summary["totals"]["dropped_frames"]


def test_the_schemas_cover_every_key_of_a_summary():
    runs = [
        ("examples/tcp_fct.toml", ["run.duration_ms=20"]),
        ("examples/dctcp_incast.toml", ["run.duration_ms=20"]),
        ("examples/pfc_congestion_spreading.toml", ["run.duration_ms=5"]),
    ]
    for file, sets in runs:
        result = dcbsim.run(dcbsim.load(SCENARIOS / file, sets))
        s = result.summary
        columns = {name: set(t) for name, t in sweeptables.TABLES.items()}
        for section, table in (("ports", "ports"), ("flows", "flows"), ("arrivals", "arrivals"), ("classes", "classes"), ("pfc", "ports")):
            for entry in s[section].values():
                assert set(entry) <= columns[table], (file, section, set(entry) - columns[table])
        row = sweeptables.run_row(s)
        assert set(row) <= set(sweeptables.RUNS), set(row) - set(sweeptables.RUNS)
        assert set(result.fct_table().columns) == columns["fcts"]


def test_a_sweep_whose_runs_all_fail_exits_non_zero(tmp_path, capsys):
    status = cli.main(["sweep", str(sweep_file(tmp_path, "[-1, -2]")), "--out", str(tmp_path / "out"), "--jobs", "1"])
    captured = capsys.readouterr()
    assert status == 1
    assert "every run failed (4 of 4)" in captured.err
    for name in FILES[1:]:
        assert (tmp_path / "out" / f"{name}.parquet").exists(), name


def test_a_sweep_with_some_failed_runs_says_how_many(tmp_path, capsys):
    status = cli.main(["sweep", str(sweep_file(tmp_path, "[10, -1]")), "--out", str(tmp_path / "out"), "--jobs", "1"])
    captured = capsys.readouterr()
    assert status == 0
    assert "4 runs, 2 ok, 2 failed" in captured.out
    assert "2 of 4 runs failed" in captured.err


def test_plot_draws_the_mean_over_seeds_against_the_swept_variable(swept):
    from dcbsim import sweep_plot

    runs = pl.read_parquet(swept / "runs.parquet")
    frame = sweep_plot.metric_frame(str(swept), "fct_p99_s", runs, ["k", "ms", "label"], [])
    fig = sweep_plot.draw(frame, "fct_p99_s", "k", [])
    (bars,) = fig.axes[0].containers
    line = bars.lines[0]
    ok = runs.filter(pl.col("status") == "ok")
    expected = [ok.filter(pl.col("k") == k)["fct_p99_s"].mean() * 1e3 for k in (2.5, 10.0)]
    assert list(line.get_xdata()) == [2.5, 10.0]
    assert list(line.get_ydata()) == pytest.approx(expected)
    assert "over 2 seeds" in fig.axes[0].get_title()


def test_plot_cli_writes_a_paper_sized_png_and_names_the_metrics(swept, capsys):
    from PIL import Image

    assert cli.main(["plot", str(swept)]) == 0
    png = swept / "plots" / "ports_mean_bytes_vs_k.png"
    assert png.exists() and str(png) in capsys.readouterr().out
    with Image.open(png) as image:
        assert image.size == (1050, 780)
    assert cli.main(["plot", str(swept), "--metric", "flows.throughput_active_bps", "--out", str(swept / "t.png")]) == 0
    assert (swept / "t.png").exists()
    assert cli.main(["plot", str(swept), "--metric", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown metric 'nope'; available: " in err and "flows.throughput_active_bps" in err and "incast_" not in err
    assert cli.main(["plot", str(swept), "--x", "q"]) == 2
    assert "not a swept variable; the sweep's are: k, ms, label" in capsys.readouterr().err
    assert cli.main(["plot", str(swept), "--metric", "ports.mean_bytes", "--entity", "sw9:x"]) == 2
    assert "no such port" in capsys.readouterr().err
