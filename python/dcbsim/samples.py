"""Samples streamed to disk: a run whose samples would take more memory than
``output.sample_memory_mb`` hands them, a chunk of rows at a time, to a spill file
(see the engine's ``SpillFile``: chunks one after another, each column-major), which
is turned at the end into the run's tidy table as a Parquet file, a row group per
group of series that fits the budget. The result's series are then read back from
that file when asked for.
"""

from __future__ import annotations

import bisect
import os
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

from dcbsim import parquet
from dcbsim.lazy import lazy_import

np = lazy_import("numpy")

#: A flow's series in every sample, in column order (then its window over a
#: transport, DCTCP's alpha, and the window and RTT of a flow whose frames are
#: acknowledged one by one).
FLOW_METRICS = ("rate_bps", "throughput_bps", "send_bps", "fair_share_bps")


def sample_times(raw: dict[str, Any]) -> np.ndarray:
    """The sample times of a raw report, seconds."""
    return np.frombuffer(raw["time_s"], dtype="<f8")


def columns(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """``(metric, entity)`` of each column of a sample row, in the engine's order (the
    tidy table's): the monitored ports' queues, then each flow's series."""
    names = [("queue_bytes", name) for name, stats, _ in raw["ports"] if stats["monitored"]]
    for name, stats, _, _ in raw["flows"]:
        names += [(metric, name) for metric in FLOW_METRICS]
        if stats["transport"] != "none":
            names.append(("cwnd_segments", name))
        if stats["transport"] == "dctcp":
            names.append(("alpha", name))
        if stats["acked"]:
            names += [("window_bytes", name), ("rtt_us", name)]
    if len(names) != raw["sample_columns"]:
        raise RuntimeError(f"the samples have {raw['sample_columns']} columns, the report names {len(names)}")
    return names


class SampleFile:
    """A streamed run's tidy table (``time_s, metric, entity, value, seed``) as a
    Parquet file, and where each series' values lie in it."""

    def __init__(self, path: str, samples: int, names: Sequence[tuple[str, str]], pages: list[tuple[int, int, int]]):
        self.path = path
        self.samples = samples
        #: ``(metric, entity)`` of each series, in the table's order.
        self.names = list(names)
        self._pages = pages
        self._firsts = [first for first, _, _ in pages]
        self._column = {name: k for k, name in enumerate(self.names)}
        self._fd = os.open(path, os.O_RDONLY)
        weakref.finalize(self, os.close, self._fd)

    def has(self, metric: str, entity: str) -> bool:
        """Whether the table has that series."""
        return (metric, entity) in self._column

    def series(self, metric: str, entity: str, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The values of one series at samples ``start..stop`` (all by default; an
        empty array if the table does not have it), read from the file at each call."""
        k = self._column.get((metric, entity))
        if k is None:
            return np.zeros(0)
        n = self.samples
        stop = n if stop is None else min(stop, n)
        out = np.empty(max(0, stop - start), dtype="<f8")
        self._read_into(memoryview(out).cast("B"), k * n + start, k * n + max(start, stop))
        return out

    def column(self, metric: str, entity: str) -> int | None:
        """The position of that series in the table's order (``None``: not there)."""
        return self._column.get((metric, entity))

    def values(self, first: int, last: int) -> bytes:
        """The value column's rows ``first..last`` as little-endian float64 bytes: a
        series' samples ``a..b`` are rows ``k * samples + a`` on, ``k`` its
        :meth:`column`; a flow's series lie side by side."""
        out = bytearray(8 * max(0, last - first))
        self._read_into(memoryview(out), first, last)
        return bytes(out)

    def _read_into(self, out: memoryview, lo: int, hi: int) -> None:
        """Reads the value column's rows ``lo..hi`` into ``out`` (``8 * (hi - lo)``
        bytes), one read per page they span."""
        for first, rows, offset in self._pages[max(0, bisect.bisect_right(self._firsts, lo) - 1):]:
            if first >= hi:
                break
            a, b = max(lo, first), min(hi, first + rows)
            if a < b and os.preadv(self._fd, [out[8 * (a - lo):8 * (b - lo)]], offset + 8 * (a - first)) != 8 * (b - a):
                raise OSError(f"{self.path}: the sample file ends early")


def _chunks(samples: int, chunk_rows: int, columns: int) -> list[tuple[int, int, int]]:
    """``(first sample, rows, file offset)`` of each chunk of a spill file."""
    out, offset = [], 0
    for start in range(0, samples, chunk_rows):
        rows = min(chunk_rows, samples - start)
        out.append((start, rows, offset))
        offset += 8 * rows * columns
    return out


def _groups(spill: str, time_s: np.ndarray, names: Sequence[tuple[str, str]], chunk_rows: int, seed: int,
            per_group: int) -> Iterator[parquet.RowGroup]:
    """The tidy table's row groups, ``per_group`` series each, read from the spill file
    with one read per chunk and group."""
    n = len(time_s)
    chunks = _chunks(n, chunk_rows, len(names))
    with open(spill, "rb") as f:
        for a in range(0, len(names), per_group):
            group = names[a:a + per_group]
            values = np.empty((len(group), n), dtype="<f8")
            for start, rows, offset in chunks:
                f.seek(offset + 8 * a * rows)
                block = np.fromfile(f, dtype="<f8", count=len(group) * rows)
                if block.size != len(group) * rows:
                    raise OSError(f"{spill}: the sample file ends early")
                values[:, start:start + rows] = block.reshape(len(group), rows)
            runs = [n] * len(group)
            yield n * len(group), [
                parquet.Cycle("time_s", time_s, len(group)),
                parquet.StringRuns("metric", [m for m, _ in group], runs),
                parquet.StringRuns("entity", [e for _, e in group], runs),
                parquet.Doubles("value", values.reshape(-1)),
                parquet.Unsigned("seed", seed),
            ]


def to_parquet(spill: str, path: str, time_s: np.ndarray, names: Sequence[tuple[str, str]], chunk_rows: int, seed: int,
               budget_bytes: float) -> SampleFile:
    """Writes the tidy table of a spill file to ``path`` (row groups of as many series
    as fit ``budget_bytes`` at 16 bytes a row, which leaves room beside the values)
    and removes the spill."""
    n = len(time_s)
    per_group = max(1, int(budget_bytes // max(1, 16 * n)))
    schema = [parquet.Cycle("time_s", np.zeros(0), 0), parquet.StringRuns("metric", [], []),
              parquet.StringRuns("entity", [], []), parquet.Doubles("value", np.zeros(0)), parquet.Unsigned("seed", seed)]
    groups = _groups(spill, np.asarray(time_s, dtype="<f8"), names, chunk_rows, seed, per_group) if n else iter(())
    index = parquet.write_groups(path, schema, groups)
    os.remove(spill)
    return SampleFile(path, n, names, index["value"])
