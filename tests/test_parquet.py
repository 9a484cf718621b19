"""The Parquet writer of the tidy table: polars reads back what its own writer gives,
and ``dcbsim run`` writes its results without importing polars."""

import os
import subprocess
import sys
from itertools import pairwise

import numpy as np
import polars as pl
import pytest

import dcbsim
from dcbsim import parquet

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICKSTART = os.path.join(ROOT, "python", "dcbsim", "scenarios", "examples", "quickstart.toml")


def test_the_tidy_table_reads_back_as_polars_writes_it(tmp_path):
    result = dcbsim.run(dcbsim.load(QUICKSTART, ["run.duration_ms=10"]), seed=2**64 - 1)
    result.to_polars().write_parquet(tmp_path / "polars.parquet")
    result.write_parquet(str(tmp_path / "ours.parquet"))
    theirs, ours = pl.read_parquet(tmp_path / "polars.parquet"), pl.read_parquet(tmp_path / "ours.parquet")
    assert ours.schema == theirs.schema
    assert ours.height > 0 and ours.equals(theirs)
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    assert pandas.read_parquet(tmp_path / "ours.parquet").equals(pandas.read_parquet(tmp_path / "polars.parquet"))


def test_pages_split_runs_and_values(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet, "PAGE_ROWS", 7)
    values = np.arange(40, dtype=float) / 3
    strings, runs = ["b", "a", "b", "cé", "a"], [3, 12, 1, 9, 15]
    parquet.write(str(tmp_path / "t.parquet"), 40, [
        parquet.Doubles("x", values),
        parquet.StringRuns("s", strings, runs),
        parquet.Unsigned("seed", 7),
    ])
    table = pl.read_parquet(tmp_path / "t.parquet")
    assert table["x"].to_list() == values.tolist()
    assert table["s"].to_list() == [s for s, n in zip(strings, runs) for _ in range(n)]
    assert table["seed"].dtype == pl.UInt64 and table["seed"].to_list() == [7] * 40


@pytest.mark.parametrize("sizes", [[40], [7, 7, 26], [3, 0, 11, 5, 14, 7], [1] * 40])
def test_doubles_given_in_parts_read_back_as_one_column(tmp_path, monkeypatch, sizes):
    # Parts shorter than a page, as long as one, spanning two, and empty; pages of 7.
    monkeypatch.setattr(parquet, "PAGE_ROWS", 7)
    values = np.arange(40, dtype="<f8") / 3
    parts, at = [], 0
    for n in sizes:
        parts.append(values[at:at + n].tobytes())
        at += n
    index = parquet.write(str(tmp_path / "p.parquet"), 40, [parquet.Doubles("x", parts)])
    assert pl.read_parquet(tmp_path / "p.parquet")["x"].to_list() == values.tolist()
    assert [rows for _, rows, _ in index["x"]] == [7, 7, 7, 7, 7, 5]


@pytest.mark.parametrize("kind", ["bytes", "arrays"])
def test_double_pages_are_the_parts_joined_and_cut(monkeypatch, kind):
    # Random part sizes, empty ones among them, given as bytes or as numpy arrays: each
    # page is the next PAGE_ROWS values of the parts joined.
    monkeypatch.setattr(parquet, "PAGE_ROWS", 5)
    rng = np.random.default_rng(3)
    for _ in range(50):
        sizes = rng.integers(0, 13, rng.integers(1, 9)).tolist()
        values = rng.random(sum(sizes))
        bounds = np.cumsum([0] + sizes)
        parts = [values[a:b] for a, b in pairwise(bounds)]
        parts = [p.tobytes() for p in parts] if kind == "bytes" else parts
        pages = list(parquet._double_pages(parts))
        joined = values.tobytes()
        assert [bytes(page) for _, page in pages] == [joined[at:at + 40] for at in range(0, len(joined), 40)]
        assert [rows for rows, _ in pages] == [len(bytes(page)) // 8 for _, page in pages]


def test_a_repeating_column_reads_back_as_its_values_repeated(tmp_path, monkeypatch):
    # Pages of 7 rows start anywhere in a cycle of 5 and end part-way through one.
    monkeypatch.setattr(parquet, "PAGE_ROWS", 7)
    times = np.arange(5, dtype=float) * 0.001 + 0.001
    parquet.write(str(tmp_path / "c.parquet"), 20, [parquet.Cycle("t", times, 4), parquet.Unsigned("seed", 1)])
    assert pl.read_parquet(tmp_path / "c.parquet")["t"].to_list() == np.tile(times, 4).tolist()
    pq = pytest.importorskip("pyarrow.parquet")
    assert pq.read_table(tmp_path / "c.parquet")["t"].to_pylist() == np.tile(times, 4).tolist()


def test_a_long_repeating_column_takes_four_byte_indices(tmp_path):
    times = np.arange(70_000, dtype=float) / 7
    parquet.write(str(tmp_path / "l.parquet"), 140_000, [parquet.Cycle("t", times, 2)])
    assert np.array_equal(pl.read_parquet(tmp_path / "l.parquet")["t"].to_numpy(), np.tile(times, 2))


def test_an_empty_table_keeps_its_schema(tmp_path):
    parquet.write(str(tmp_path / "e.parquet"), 0, [parquet.Doubles("x", np.zeros(0)), parquet.StringRuns("s", [], [])])
    table = pl.read_parquet(tmp_path / "e.parquet")
    assert table.height == 0 and table.schema == pl.Schema({"x": pl.Float64, "s": pl.String})


def test_a_column_of_the_wrong_length_is_refused(tmp_path):
    with pytest.raises(ValueError, match="column s"):
        parquet.write(str(tmp_path / "w.parquet"), 3, [parquet.StringRuns("s", ["a"], [2])])
    with pytest.raises(ValueError, match="column t"):
        parquet.write(str(tmp_path / "w.parquet"), 3, [parquet.Cycle("t", np.zeros(2), 2)])


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


def _reference_dictionary_page(strings):
    """The dictionary page as the writer made it in Python: the distinct strings
    sorted by code point, each its length then its UTF-8 bytes."""
    dictionary = sorted(set(strings))
    plain = b"".join(len(b).to_bytes(4, "little") + b for b in (s.encode() for s in dictionary))
    return parquet._dictionary_page(len(dictionary), plain)


def _reference_string_pages(strings, runs, rows):
    """The string pages run by run, as the writer made them one run at a time."""
    dictionary = sorted(set(strings))
    index = {s: i for i, s in enumerate(dictionary)}
    width = max(1, (len(dictionary) - 1).bit_length())
    kept = [(index[s], n) for s, n in zip(strings, runs) if n > 0]
    r, left, bodies = 0, kept[0][1] if kept else 0, []
    for a in range(0, rows, parquet.PAGE_ROWS):
        n, body = min(parquet.PAGE_ROWS, rows - a), bytearray([width])
        while n:
            take = min(n, left)
            body += parquet._varint(take << 1) + kept[r][0].to_bytes((width + 7) // 8, "little")
            n, left = n - take, left - take
            if left == 0 and r + 1 < len(kept):
                r, left = r + 1, kept[r + 1][1]
        bodies.append(bytes(body))
    return bodies


@pytest.mark.parametrize("page_rows, distinct, longest", [(7, 5, 20), (1000, 300, 5000), (1 << 20, 70_000, 3)])
def test_string_runs_are_encoded_as_run_by_run(monkeypatch, page_rows, distinct, longest):
    # Runs cut at page ends, empty runs, counts whose varints take one to three bytes,
    # and indices of one to three bytes.
    monkeypatch.setattr(parquet, "PAGE_ROWS", page_rows)
    rng = np.random.default_rng(distinct)
    # Names beyond ASCII too: code-point order is UTF-8 byte order.
    alphabet = ["e", "E", "é", "流", "😀", "z", "_"]
    strings = [f"{alphabet[i % 7]}{i}" for i in rng.integers(0, distinct, 3 * distinct)]
    runs = rng.integers(0, longest + 1, len(strings)).tolist()
    rows = sum(runs)
    column = parquet.StringRuns("s", strings, runs)
    pages = parquet._string_pages(column, rows, range(0, rows, page_rows))
    expected = _reference_string_pages(strings, runs, rows)
    assert len(pages) == 1 + len(expected)
    assert pages[0] == _reference_dictionary_page(strings)
    for page, body in zip(pages[1:], expected):
        assert b"".join(page).endswith(body)
