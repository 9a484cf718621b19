"""The tidy table as the extension writes it (the ``parquet`` crate): polars, pyarrow and
DuckDB read the same schema and values as the result holds in memory, under every
compression ``output.compression`` names, and ``dcbsim run`` writes its results
without importing polars."""

import os
import subprocess
import sys

import duckdb
import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

import dcbsim
from dcbsim import cli
from dcbsim._core import TidyWriter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICKSTART = os.path.join(ROOT, "python", "dcbsim", "scenarios", "examples", "quickstart.toml")
TCP_FCT = os.path.join(ROOT, "python", "dcbsim", "scenarios", "examples", "tcp_fct.toml")
# pyarrow names the LZ4_RAW codec "LZ4".
COMPRESSIONS = {"zstd": "ZSTD", "lz4": "LZ4", "snappy": "SNAPPY", "none": "UNCOMPRESSED"}
SCHEMA = pl.Schema({"time_s": pl.Float64, "metric": pl.String, "entity": pl.String, "value": pl.Float64, "seed": pl.UInt64})


def _codecs(path) -> set[str]:
    """The compression codecs of every column chunk of a Parquet file."""
    meta = pq.ParquetFile(path).metadata
    return {meta.row_group(g).column(c).compression for g in range(meta.num_row_groups) for c in range(meta.num_columns)}


@pytest.fixture(scope="module")
def quick() -> dcbsim.Result:
    # The largest seed: the seed column holds all 64 bits.
    return dcbsim.run(dcbsim.load(QUICKSTART, ["run.duration_ms=10"]), seed=2**64 - 1)


@pytest.mark.parametrize("compression", list(COMPRESSIONS))
def test_each_compression_reads_back_as_the_table_in_memory(tmp_path, quick, compression):
    path = tmp_path / f"{compression}.parquet"
    quick.write_parquet(str(path), compression)
    assert _codecs(path) == {COMPRESSIONS[compression]}
    expected = quick.to_polars()
    ours = pl.read_parquet(path)
    assert ours.schema == SCHEMA and ours.height > 0 and ours.equals(expected)
    arrow = pq.read_table(path)
    assert [str(t) for t in arrow.schema.types] == ["double", "string", "string", "double", "uint64"]
    assert pl.from_arrow(arrow).equals(expected)
    ducked = duckdb.sql(f"SELECT * FROM read_parquet('{path}')")
    assert ducked.types == ["DOUBLE", "VARCHAR", "VARCHAR", "DOUBLE", "UBIGINT"]
    assert ducked.pl().equals(expected)


def test_the_default_is_the_scenarios_compression_zstd_unless_it_says_otherwise(tmp_path, quick):
    quick.write_parquet(str(tmp_path / "default.parquet"))
    assert quick.scenario.compression == "zstd" and _codecs(tmp_path / "default.parquet") == {"ZSTD"}
    lz4 = dcbsim.run(dcbsim.load(QUICKSTART, ["run.duration_ms=10", "output.compression=lz4"]))
    lz4.write_parquet(str(tmp_path / "lz4.parquet"))
    assert _codecs(tmp_path / "lz4.parquet") == {"LZ4"}


def test_the_library_keeps_statistics_and_dictionary_encodes_the_names(tmp_path, quick):
    # Minimum and maximum of the numbers (not of the names: see parquet.rs).
    quick.write_parquet(str(tmp_path / "t.parquet"))
    meta = pq.ParquetFile(tmp_path / "t.parquet").metadata
    table = quick.to_polars()
    for c, name in enumerate(SCHEMA):
        stats = meta.row_group(0).column(c).statistics
        if name in ("metric", "entity"):
            assert meta.row_group(0).column(c).has_dictionary_page and not (stats and stats.has_min_max), name
        else:
            assert stats.has_min_max and (stats.min, stats.max) == (table[name].min(), table[name].max()), name


def test_the_compressed_table_is_much_smaller_than_the_uncompressed(tmp_path):
    # 1,000 samples of 21 series: the data, not the footer, makes the size.
    result = dcbsim.run(dcbsim.load(QUICKSTART, ["run.duration_ms=10", "run.sample_interval_us=10"]))
    result.write_parquet(str(tmp_path / "z.parquet"), "zstd")
    result.write_parquet(str(tmp_path / "n.parquet"), "none")
    assert os.path.getsize(tmp_path / "z.parquet") * 3 < os.path.getsize(tmp_path / "n.parquet")


def test_a_table_beyond_a_row_group_is_cut_into_row_groups(tmp_path):
    # 2^20 rows a row group: three series of 400,000 samples make two groups.
    n = 400_000
    times = np.arange(n, dtype="<f8") * 1e-6
    values = [np.full(n, k, dtype="<f8").tobytes() for k in range(3)]
    writer = TidyWriter(str(tmp_path / "big.parquet"), "zstd")
    writer.write(times.tobytes(), ["a", "b", "a"], ["x", "x", "y"], values, 5)
    writer.close()
    assert pq.ParquetFile(tmp_path / "big.parquet").metadata.num_row_groups == 2
    table = pl.read_parquet(tmp_path / "big.parquet")
    assert table.height == 3 * n and table["time_s"].to_numpy().tolist() == np.tile(times, 3).tolist()
    assert table["metric"].to_list() == ["a"] * n + ["b"] * n + ["a"] * n
    assert table["value"].to_list() == [0.0] * n + [1.0] * n + [2.0] * n and table["seed"].unique().to_list() == [5]


def test_groups_written_in_turn_are_one_table_and_values_may_come_in_any_split(tmp_path):
    times = np.array([0.5, 1.0, 1.5])
    values = np.arange(12, dtype="<f8")
    writer = TidyWriter(str(tmp_path / "g.parquet"), "snappy")
    # Two series as one array, then two as pieces that cut across series.
    writer.write(times.tobytes(), ["m", "m"], ["é", "流"], [memoryview(values[:6]).cast("B")], 2**64 - 1)
    writer.write(times, ["n", "n"], ["a", "b"], [values[6:7].tobytes(), values[7:12].tobytes()], 2**64 - 1)
    writer.close()
    table = pl.read_parquet(tmp_path / "g.parquet")
    assert pq.ParquetFile(tmp_path / "g.parquet").metadata.num_row_groups == 2
    assert table["value"].to_list() == values.tolist() and table["time_s"].to_list() == np.tile(times, 4).tolist()
    assert table["entity"].to_list() == [e for e in ["é", "流", "a", "b"] for _ in range(3)]
    assert table["seed"].to_list() == [2**64 - 1] * 12


def test_an_empty_table_keeps_its_schema(tmp_path):
    TidyWriter(str(tmp_path / "e.parquet"), "zstd").close()
    table = pl.read_parquet(tmp_path / "e.parquet")
    assert table.height == 0 and table.schema == SCHEMA


def test_a_bad_table_or_compression_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown compression \"gzip\"; allowed: zstd, lz4, snappy, none"):
        TidyWriter(str(tmp_path / "w.parquet"), "gzip")
    writer = TidyWriter(str(tmp_path / "w.parquet"), "zstd")
    with pytest.raises(ValueError, match="2 metrics, 2 entities and 3 values for 2 samples a series"):
        writer.write(np.zeros(2).tobytes(), ["a", "b"], ["x", "y"], [np.zeros(3).tobytes()], 1)
    with pytest.raises(ValueError, match="not a multiple of 8"):
        writer.write(np.zeros(2).tobytes(), ["a"], ["x"], [b"\0" * 15], 1)
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.write(b"", [], [], [], 1)
    with pytest.raises(OSError, match="cannot write the table"):
        TidyWriter(str(tmp_path / "missing" / "w.parquet"), "zstd")


def test_run_writes_its_tables_compressed_as_the_scenario_says(tmp_path):
    # A run of finite TCP flows: results.parquet from the extension, fct.parquet from polars.
    for compression in ("zstd", "none"):
        out = tmp_path / compression
        args = ["run", TCP_FCT, "--out", str(out), "--no-plots", "--set", f"output.compression={compression}"]
        assert cli.main(args) == 0
        for name in ("results.parquet", "fct.parquet"):
            assert _codecs(out / name) == {COMPRESSIONS[compression]}, name
        assert pl.read_parquet(out / "results.parquet").schema == SCHEMA


def test_run_refuses_an_unknown_compression_with_the_allowed_names(tmp_path, capsys):
    assert cli.main(["run", QUICKSTART, "--out", str(tmp_path / "o"), "--set", "output.compression=brotli"]) == 2
    err = capsys.readouterr().err
    assert "output.compression" in err and "unknown \"brotli\"; allowed: zstd, lz4, snappy, none" in err
    assert not (tmp_path / "o").exists()


def test_run_writes_results_without_loading_numpy_polars_or_matplotlib(tmp_path):
    # The summary's sums are the engine's and the table is written from the report's
    # bytes: a small run's command pays for none of these imports.
    out = tmp_path / "o"
    code = (
        "import sys, dcbsim.cli\n"
        f"status = dcbsim.cli.main(['run', {QUICKSTART!r}, '--out', {str(out)!r}, '--no-plots', '--set', 'run.duration_ms=5'])\n"
        "loaded = [m for m in sys.modules if m.startswith(('numpy', 'polars.', '_polars', 'matplotlib.'))]\n"
        "print(status, bool(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-2:] == ["0", "False"]
    assert pl.read_parquet(out / "results.parquet").height > 0


def test_a_large_table_in_memory_is_written_a_row_group_of_series_at_a_time(tmp_path):
    # 50,000 samples of 21 series: 20 series (a million rows) fit a row group of 2^20
    # rows, the last makes the second.
    result = dcbsim.run(dcbsim.load(QUICKSTART, ["run.duration_ms=50", "run.sample_interval_us=1"]))
    result.write_parquet(str(tmp_path / "large.parquet"))
    meta = pq.ParquetFile(tmp_path / "large.parquet").metadata
    assert [meta.row_group(g).num_rows for g in range(meta.num_row_groups)] == [20 * result.sample_count, result.sample_count]
    assert pl.read_parquet(tmp_path / "large.parquet").equals(result.to_polars())
