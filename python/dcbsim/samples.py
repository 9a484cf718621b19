"""Samples streamed to disk: a run whose samples would take more memory than
``output.sample_memory_mb`` hands them, a chunk of rows at a time, to a spill file
(see the engine's ``SpillFile``: chunks one after another, each column-major). At the
end the spill is turned, a group of series that fits the budget at a time, into the
run's tidy table as a Parquet file (compressed, a row group per group) and into a file
of the series one after another (``series.f64``, little-endian float64s), which
replaces the spill: the result reads each series back from there, in one read, when
asked for.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

from dcbsim._core import TidyWriter
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
    """A streamed run's samples: its series one after another in a file of float64s,
    read at each call, and its tidy table (``time_s, metric, entity, value, seed``) as
    a Parquet file (:attr:`path`)."""

    def __init__(self, series: str, path: str, time_s: np.ndarray, names: Sequence[tuple[str, str]], seed: int) -> None:
        self.series_path = series
        #: The tidy table's Parquet file.
        self.path = path
        self.time_s = np.asarray(time_s, dtype="<f8")
        self.samples = len(self.time_s)
        #: ``(metric, entity)`` of each series, in the table's order.
        self.names = list(names)
        self.seed = seed
        self._column = {name: k for k, name in enumerate(self.names)}
        self._fd = os.open(series, os.O_RDONLY)
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
        self._read_into(memoryview(out).cast("B"), k * n + start)
        return out

    def column(self, metric: str, entity: str) -> int | None:
        """The position of that series in the table's order (``None``: not there)."""
        return self._column.get((metric, entity))

    def values(self, first: int, last: int) -> bytes:
        """The value column's rows ``first..last`` as little-endian float64 bytes: a
        series' samples ``a..b`` are rows ``k * samples + a`` on, ``k`` its
        :meth:`column`; a flow's series lie side by side."""
        out = bytearray(8 * max(0, last - first))
        self._read_into(memoryview(out), first)
        return bytes(out)

    def _read_into(self, out: memoryview, first: int) -> None:
        """Reads ``len(out)`` bytes of values from row ``first`` on, in one read."""
        if len(out) and os.preadv(self._fd, [out], 8 * first) != len(out):
            raise OSError(f"{self.series_path}: the sample file ends early")

    def write_parquet(self, path: str, compression: str, budget_bytes: float) -> None:
        """Writes the tidy table anew to ``path``, compressed with ``compression``, a
        row group per group of series that fits ``budget_bytes`` (see :func:`to_parquet`)."""
        writer = TidyWriter(path, compression)
        per_group = _per_group(budget_bytes, self.samples)
        for a in range(0, len(self.names) if self.samples else 0, per_group):
            group = self.names[a:a + per_group]
            values = self.values(a * self.samples, (a + len(group)) * self.samples)
            writer.write(self.time_s.tobytes(), [m for m, _ in group], [e for _, e in group], [values], self.seed)
        writer.close()


def _per_group(budget_bytes: float, samples: int) -> int:
    """Series in a group: as many as fit the budget at 16 bytes a value (the values
    read, and the writer's copy of them)."""
    return max(1, int(budget_bytes // max(1, 16 * samples)))


def _chunks(samples: int, chunk_rows: int, columns: int) -> list[tuple[int, int, int]]:
    """``(first sample, rows, file offset)`` of each chunk of a spill file."""
    out, offset = [], 0
    for start in range(0, samples, chunk_rows):
        rows = min(chunk_rows, samples - start)
        out.append((start, rows, offset))
        offset += 8 * rows * columns
    return out


def _groups(spill: str, n: int, columns: int, chunk_rows: int, per_group: int) -> Iterator[tuple[int, np.ndarray]]:
    """The spill's series ``per_group`` at a time (the first's position, then their
    values a row each), read with one read per chunk and group."""
    chunks = _chunks(n, chunk_rows, columns)
    with open(spill, "rb") as f:
        for a in range(0, columns if n else 0, per_group):
            count = min(per_group, columns - a)
            values = np.empty((count, n), dtype="<f8")
            for start, rows, offset in chunks:
                f.seek(offset + 8 * a * rows)
                block = np.fromfile(f, dtype="<f8", count=count * rows)
                if block.size != count * rows:
                    raise OSError(f"{spill}: the sample file ends early")
                values[:, start:start + rows] = block.reshape(count, rows)
            yield a, values


def to_parquet(spill: str, path: str, time_s: np.ndarray, names: Sequence[tuple[str, str]], chunk_rows: int, seed: int,
               budget_bytes: float, compression: str) -> SampleFile:
    """Writes the tidy table of a spill file to ``path``, compressed with
    ``compression``, in row groups of as many series as fit ``budget_bytes`` (see
    :func:`_per_group`), and the series one after another to ``series.f64`` beside it;
    removes the spill."""
    time_s = np.asarray(time_s, dtype="<f8")
    series = os.path.join(os.path.dirname(path), "series.f64")
    writer, times = TidyWriter(path, compression), time_s.tobytes()
    with open(series, "wb") as out:
        for a, values in _groups(spill, len(time_s), len(names), chunk_rows, _per_group(budget_bytes, len(time_s))):
            group = names[a:a + len(values)]
            data = memoryview(values.reshape(-1)).cast("B")
            writer.write(times, [m for m, _ in group], [e for _, e in group], [data], seed)
            out.write(data)
    writer.close()
    os.remove(spill)
    return SampleFile(series, path, time_s, names, seed)
