"""Results of one run: numpy arrays, a summary, tidy tables and plots."""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from dcbsim._core import FairnessSums, full_series
from dcbsim.bulk import collector_paused
from dcbsim.fairness import RUN_MEASURES
from dcbsim.lazy import lazy_import

np = lazy_import("numpy")

if TYPE_CHECKING:
    import pandas
    import polars
    from matplotlib.figure import Figure

    from dcbsim._core import Scenario
    from dcbsim.samples import SampleFile

#: The metrics of the tidy table, and their units.
METRICS = {
    "queue_bytes": "bytes",
    "rate_bps": "bits/s",
    "throughput_bps": "bits/s",
    "send_bps": "bits/s",
    "fair_share_bps": "bits/s",
    "cwnd_segments": "segments",
    "alpha": "fraction",
    "window_bytes": "bytes",
    "rtt_us": "us",
}


def _array(raw: bytes) -> np.ndarray:
    """The little-endian f64 values of ``raw`` as a (writable) array."""
    return np.frombuffer(raw, dtype="<f8").copy() if raw else np.zeros(0)


def _sample_step(time_s: np.ndarray) -> float:
    """The sampling interval, from the sample times (at least one)."""
    return float(time_s[1] - time_s[0]) if len(time_s) > 1 else float(time_s[0])


#: Rows of a row group of the tidy table at most (the extension's TidyWriter cuts there).
_ROW_GROUP_ROWS = 1 << 20

#: A sampled series by metric: from memory, or read from a streamed run's file.
Series = Callable[[str], "np.ndarray"]

#: A flow's sampled metrics, in the tidy table's order.
SAMPLED = ("rate_bps", "throughput_bps", "send_bps", "fair_share_bps", "cwnd_segments", "alpha", "window_bytes", "rtt_us")


class _InMemory:
    """An entity's series held in memory, by metric (an empty array for a metric it
    lacks). Each is made an array when first asked for: made up front, they took
    0.6 s of the 4.6 s of making the result of a run with 100,000 flows."""

    # Slots, and the arrays' dict made at the first array: a k = 64 fat-tree's result
    # makes one per port (393,216).
    __slots__ = ("arrays", "raw")

    def __init__(self, raw: dict[str, bytes]) -> None:
        self.raw = raw
        self.arrays: dict[str, np.ndarray] | None = None

    def __call__(self, metric: str) -> np.ndarray:
        if self.arrays is None:
            self.arrays = {}
        array = self.arrays.get(metric)
        if array is None:
            raw = self.raw.get(metric)
            array = self.arrays[metric] = _array(raw) if raw is not None else np.zeros(0)
        return array

    def encoded(self, metric: str, start: int, stop: int) -> bytes:
        """Samples ``start..stop`` of a series as little-endian float64 bytes (empty
        when the entity lacks it), without making an array."""
        raw = self.raw.get(metric, b"")
        return raw if start == 0 and 8 * stop >= len(raw) else raw[8 * start:8 * stop]


class _FromFile:
    """An entity's series read from a streamed run's file at each access."""

    def __init__(self, samples: SampleFile, entity: str) -> None:
        self.samples = samples
        self.entity = entity

    def __call__(self, metric: str) -> np.ndarray:
        return self.samples.series(metric, self.entity)

    def encoded(self, metric: str, start: int, stop: int) -> bytes:
        """Samples ``start..stop`` of a series as little-endian float64 bytes (empty
        when the entity lacks it)."""
        k, n = self.samples.column(metric, self.entity), self.samples.samples
        stop = min(stop, n)
        return b"" if k is None else self.samples.values(k * n + start, k * n + max(start, stop))


def _encoded(series: list[Any], metric: str, start: int, stop: int) -> list[bytes]:
    """Samples ``start..stop`` of each entity's series ``metric`` (``series`` their
    :class:`_InMemory` or :class:`_FromFile`), as their ``encoded`` gives them; in
    memory, without a call per entity (a run of 100,000 flows has as many)."""
    if not all(type(s) is _InMemory for s in series):
        return [s.encoded(metric, start, stop) for s in series]
    raws = [s.raw.get(metric, b"") for s in series]
    if start == 0:
        return [raw if len(raw) <= 8 * stop else raw[:8 * stop] for raw in raws]
    return [raw[8 * start:8 * stop] for raw in raws]


#: The most bytes of series a streamed run's summary reads at once: a group of flows'
#: series that stays in the caches (at 4,096 flows of 1,001 samples, groups filling half
#: the 64 MB budget made the summary 0.15 s, against 0.09 s read flow by flow).
_GROUP_BYTES = 2 << 20

#: The transfers of a flow without a dynamic source (one mapping shared by them all).
_NO_TRANSFERS: Mapping[str, bytes] = MappingProxyType({})


@dataclass(frozen=True)
class PortResult:
    """One switch egress port: its sampled queue and exact statistics."""

    name: str
    stats: dict[str, Any]
    #: Its sampled series by metric (``queue_bytes``).
    series: Series = field(repr=False, compare=False)

    @property
    def queue_bytes(self) -> np.ndarray:
        """Queue length at each sample, bytes (empty when the port is not monitored)."""
        return self.series("queue_bytes")

    @property
    def monitored(self) -> bool:
        """Whether the queue was sampled."""
        return bool(self.stats["monitored"])


@dataclass(frozen=True)
class FlowResult:
    """One flow: its per-interval series and counters.

    For a ``poisson`` flow, ``transfer_completion_s`` holds each completed transfer's
    time from its arrival until its last byte left the source's NIC, and
    ``transfer_bytes`` its size (both empty for other kinds).
    """

    name: str
    stats: dict[str, Any]
    #: Its sampled series by metric (``rate_bps``, ``throughput_bps``, ...); a streamed
    #: run's are read from its file at each access.
    series: Series = field(repr=False, compare=False)
    #: A ``poisson`` flow's transfers as little-endian float64 bytes, by name
    #: (``transfer_completion_s``, ``transfer_bytes``).
    transfers: Mapping[str, bytes] = field(default_factory=dict, repr=False, compare=False)

    @property
    def transfer_completion_s(self) -> np.ndarray:
        """Each completed transfer's time from arrival to its last byte leaving, s."""
        return _array(self.transfers.get("transfer_completion_s", b""))

    @property
    def transfer_bytes(self) -> np.ndarray:
        """Each completed transfer's size, bytes."""
        return _array(self.transfers.get("transfer_bytes", b""))

    @property
    def rate_bps(self) -> np.ndarray:
        """Reaction-point rate at each sample, bits/s."""
        return self.series("rate_bps")

    @property
    def throughput_bps(self) -> np.ndarray:
        """Delivered throughput over each sample interval, bits/s."""
        return self.series("throughput_bps")

    @property
    def send_bps(self) -> np.ndarray:
        """Sending throughput over each sample interval, bits/s."""
        return self.series("send_bps")

    @property
    def fair_share_bps(self) -> np.ndarray:
        """Weighted max-min fair share, mean over each sample interval, bits/s."""
        return self.series("fair_share_bps")

    @property
    def cwnd_segments(self) -> np.ndarray:
        """The transport's congestion window at each sample, segments (empty without one)."""
        return self.series("cwnd_segments")

    @property
    def alpha(self) -> np.ndarray:
        """DCTCP's alpha at each sample (empty unless the flow runs DCTCP)."""
        return self.series("alpha")

    @property
    def window_bytes(self) -> np.ndarray:
        """The reaction point's window at each sample, bytes (HPCC; NaN for a scheme
        without one; empty unless the flow's frames are acknowledged)."""
        return self.series("window_bytes")

    @property
    def rtt_us(self) -> np.ndarray:
        """The last RTT the reaction point measured, at each sample, µs (HPCC,
        TIMELY; NaN before the first; empty unless the flow's frames are acknowledged)."""
        return self.series("rtt_us")

    def active_s(self, time_s: np.ndarray) -> float | None:
        """How long the flow was active: a finite flow that completed, its completion
        time; any other, from the first to the last sample at which it was sending,
        plus one sample interval (so within an interval of the truth). ``None`` if no
        sample saw it sending (a finite flow that sent everything within one interval
        and never completed, say)."""
        if self.stats.get("completion_time_s") is not None:
            return self.active_from(None)
        n = len(time_s)
        rate = np.ascontiguousarray(self.rate_bps, dtype="<f8").tobytes() if self.rate_bps.size == n else b""
        sums = FairnessSums(1)
        sums.add_block(n, [b""], [b""], [rate])
        return self.active_from(sums.fairness(np.ascontiguousarray(time_s, dtype="<f8").tobytes())["sending_span_s"][0])

    def active_from(self, sending_span_s: float | None) -> float | None:
        """:meth:`active_s` given the span of samples the flow was sending at (from
        :class:`dcbsim._core.FairnessSums`): its completion time if it completed."""
        done = self.stats.get("completion_time_s")
        return float(done) if done is not None else sending_span_s

    def transfer_summary(self) -> dict[str, float | None]:
        """Mean and 99th percentile of the transfer times of a ``poisson`` flow (s);
        empty for flows without a dynamic source."""
        if self.stats.get("transfers") is None:
            return {}
        t = self.transfer_completion_s
        return {
            "transfer_time_mean_s": float(t.mean()) if t.size else None,
            "transfer_time_p99_s": float(np.quantile(t, 0.99)) if t.size else None,
        }


@dataclass(frozen=True)
class IncastResult:
    """The incast application: one entry per completed block."""

    servers: int
    sru_bytes: int
    block_start_s: np.ndarray
    block_time_s: np.ndarray
    block_bytes: np.ndarray
    block_timeouts: np.ndarray

    @property
    def block_goodput_bps(self) -> np.ndarray:
        """Goodput of each block: its bytes over its time, bits/s."""
        return self.block_bytes * 8 / np.where(self.block_time_s > 0, self.block_time_s, np.inf)

    @property
    def goodput_bps(self) -> float:
        """Goodput over all completed blocks: their bytes over their time, bits/s."""
        time = float(self.block_time_s.sum())
        return float(self.block_bytes.sum()) * 8 / time if time > 0 else 0.0

    @property
    def timeouts(self) -> int:
        """Retransmission timeouts of the servers over the completed blocks."""
        return int(self.block_timeouts.sum())

    def summary(self) -> dict[str, Any]:
        """Servers, SRU, blocks, goodput (overall, mean and min per block), timeouts."""
        per_block = self.block_goodput_bps
        return {
            "servers": self.servers,
            "sru_bytes": self.sru_bytes,
            "blocks": int(self.block_time_s.size),
            "goodput_bps": self.goodput_bps,
            "block_goodput_mean_bps": float(per_block.mean()) if per_block.size else None,
            "block_goodput_min_bps": float(per_block.min()) if per_block.size else None,
            "timeouts": self.timeouts,
            "blocks_with_timeouts": int((self.block_timeouts > 0).sum()),
        }


@dataclass(frozen=True)
class ArrivalResult:
    """One Poisson arrival source: its flows' counters and completion times."""

    name: str
    completion_s: np.ndarray
    completed_bytes: np.ndarray
    stats: dict[str, Any]
    #: The ideal completion time of each completed flow, seconds.
    ideal_s: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: Every flow that arrived, completed or not, in arrival order: ``start_s``,
    #: ``bytes``, ``delivered_bytes``, ``completion_s`` (NaN if not completed), ``ideal_s``.
    each: dict[str, np.ndarray] = field(default_factory=dict)

    def fct_summary(self) -> dict[str, float | int | None]:
        """Flows, completed flows, and the mean, median and 99th percentile FCT (s)."""
        fct = self.completion_s
        pick = (lambda q: float(np.quantile(fct, q))) if fct.size else (lambda q: None)
        return {
            "flows": self.stats["flows"],
            "completed": int(fct.size),
            "fct_mean_s": float(fct.mean()) if fct.size else None,
            "fct_p50_s": pick(0.5),
            "fct_p99_s": pick(0.99),
        }


#: The columns of :meth:`Result.fct_table`.
_FCT_COLUMNS = ("flow", "source", "size_bytes", "start_s", "end_s", "fct_s", "ideal_s", "slowdown", "completed",
                "delivered_bytes")
_FCT_SCHEMA = {
    "flow": "str", "source": "str", "size_bytes": "i64", "start_s": "f64", "end_s": "f64", "fct_s": "f64",
    "ideal_s": "f64", "slowdown": "f64", "completed": "bool", "delivered_bytes": "i64",
}


def moving_average(values: np.ndarray, samples: int) -> np.ndarray:
    """Mean over the last ``samples`` samples (fewer at the start)."""
    if samples <= 1 or values.size == 0:
        return values
    sums = np.cumsum(np.insert(values.astype(float), 0, 0.0))
    index = np.arange(values.size)
    low = np.maximum(0, index - samples + 1)
    return (sums[index + 1] - sums[low]) / (index + 1 - low)


def convergence_time(
    time_s: np.ndarray,
    rates: Iterable[np.ndarray],
    epsilon: float = 0.9,
    window_s: float | None = None,
    hold_s: float | None = None,
) -> float | None:
    """Convergence to fairness: the first sample time from which
    ``min rate / max rate >= epsilon`` holds at every later sample (the QCN-T paper's
    measure, epsilon = 0.9), or ``None`` if it does not hold at the end.

    ``window_s`` first smooths each rate with a moving average over that long;
    ``hold_s`` asks the ratio to hold for that long only, rather than to the end.
    """
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon <= 1):
        raise ValueError(f"epsilon must be in (0, 1] (got {epsilon!r})")
    for name, value in (("window_s", window_s), ("hold_s", hold_s)):
        if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0 (got {value!r})")
    series = list(rates)
    if not series or len(time_s) == 0:
        return None
    step = _sample_step(time_s)
    if window_s:
        series = [moving_average(r, max(1, round(window_s / step))) for r in series]
    stack = np.vstack(series)
    hi = stack.max(axis=0)
    fair = (hi > 0) & (stack.min(axis=0) >= epsilon * hi)
    if hold_s is None:
        if not fair[-1]:
            return None
        unfair = np.flatnonzero(~fair)
        return float(time_s[0 if unfair.size == 0 else unfair[-1] + 1])
    need = max(1, round(hold_s / step))
    run = 0
    for i, ok in enumerate(fair):
        run = run + 1 if ok else 0
        if run >= need:
            return float(time_s[i - need + 1])
    return None


class Result:
    """The outcome of :func:`dcbsim.run`.

    ``time_s`` holds the sample times; each interval series value covers the interval
    ending there. ``ports`` and ``flows`` map names to :class:`PortResult` and
    :class:`FlowResult`.

    A run that streamed its samples (``samples``, see :mod:`dcbsim.samples`) reads
    each series from its file when asked for; ``streamed`` tells.
    """

    def __init__(self, raw: dict[str, Any], scenario: Scenario, seed: int, samples: SampleFile | None = None) -> None:
        self.scenario = scenario
        self.seed = seed
        #: The sample times, little-endian float64 (``time_s`` is made from them when
        #: first read: a run that only writes its outputs needs no numpy).
        self.encoded_times: bytes = raw["time_s"]
        self._time_s: np.ndarray | None = None
        #: The streamed run's tidy table on disk, or ``None`` when the series are in memory.
        self.samples = samples
        # The report gives each port as (name, stats, queue samples) and each flow as
        # (name, stats, series, transfers): its dicts become the result's as they are
        # (taking names and series out of one dict per flow took a third of making
        # the result of 100,000 flows).
        streamed = samples is not None
        self.ports: dict[str, PortResult] = {}
        for name, stats, queue in raw["ports"]:
            series = _FromFile(samples, name) if streamed else _InMemory({"queue_bytes": queue})
            self.ports[name] = PortResult(name, stats, series)
        self.flows: dict[str, FlowResult] = {}
        for name, stats, sampled, transfers in raw["flows"]:
            series = _FromFile(samples, name) if streamed else _InMemory(sampled)
            self.flows[name] = FlowResult(name, stats, series, _NO_TRANSFERS if transfers is None else transfers)
        self.arrivals: dict[str, ArrivalResult] = {}
        for a in raw.get("arrivals", []):
            each = {k.removeprefix("each_"): _array(v) for k, v in a.items() if k.startswith("each_")}
            arrays = ("name", "completion_s", "completed_bytes", "ideal_s")
            stats = {k: v for k, v in a.items() if k not in arrays and not k.startswith("each_")}
            ideal = _array(a["ideal_s"]) if "ideal_s" in a else np.zeros(0)
            self.arrivals[a["name"]] = ArrivalResult(
                a["name"], _array(a["completion_s"]), _array(a["completed_bytes"]), stats, ideal, each
            )
        inc = raw.get("incast")
        self.incast: IncastResult | None = None
        if inc is not None:
            blocks = {k: _array(inc[k]) for k in ("block_start_s", "block_time_s", "block_bytes", "block_timeouts")}
            self.incast = IncastResult(int(inc["servers"]), int(inc["sru_bytes"]), **blocks)
        #: Counters per 802.1p priority (every flow, arrival flows included), by priority.
        self.classes: dict[int, dict[str, Any]] = {int(c["priority"]): dict(c) for c in raw.get("classes", [])}
        #: PFC counters by port name, hosts' NICs included (empty without PFC): PAUSE
        #: frames sent and received and paused time, each a list over priorities 0..7.
        self.pfc: dict[str, dict[str, Any]] = {p["name"]: {k: v for k, v in p.items() if k != "name"} for p in raw.get("pfc", [])}
        self.run_stats = {k: raw[k] for k in ("simulated_s", "events", "wall_s", "sim_speed")}
        # The threads the run went on (a split run's parts; 1 when it was not split).
        self.run_stats["parts"] = raw.get("parts", 1)
        self._monitored: list[PortResult] | None = None

    @property
    def time_s(self) -> np.ndarray:
        """The sample times, seconds."""
        if self._time_s is None:
            self._time_s = _array(self.encoded_times)
        return self._time_s

    @property
    def sample_count(self) -> int:
        """Number of samples."""
        return len(self.encoded_times) // 8

    @property
    def streamed(self) -> bool:
        """Whether the samples were streamed to disk (read back from the file)."""
        return self.samples is not None

    @property
    def monitored_ports(self) -> list[PortResult]:
        """Ports whose queue was sampled (picked once: the summary, the tidy table and
        the plots each ask, and a run of 100,000 hosts has as many ports)."""
        if self._monitored is None:
            self._monitored = [p for p in self.ports.values() if p.monitored]
        return list(self._monitored)

    def convergence_time(
        self,
        flows: Iterable[str] | None = None,
        epsilon: float = 0.9,
        window_s: float | None = None,
        hold_s: float | None = None,
    ) -> float | None:
        """Convergence to fairness of ``flows`` (default: all) from their reaction-point
        rates; see :func:`convergence_time`."""
        names = list(flows) if flows is not None else list(self.flows)
        return convergence_time(self.time_s, (self.flows[n].rate_bps for n in names), epsilon, window_s, hold_s)

    def fairness(self, flows: Iterable[str] | None = None, start_s: float = 0.0, end_s: float | None = None) -> dict[str, Any]:
        """Jain's index, min/max ratio and deviation from the weighted max-min fair share
        of ``flows`` (default: all) over the samples in ``(start_s, end_s]``; see
        :func:`dcbsim.fairness.fairness`."""
        names = list(flows) if flows is not None else list(self.flows)
        end = float("inf") if end_s is None else end_s
        start, stop = (int(i) for i in np.searchsorted(self.time_s, [start_s, end], side="right"))
        measures = self._fairness_sums(names, start, stop)
        return {k: measures[k] for k in RUN_MEASURES}

    def _fairness_sums(self, names: list[str], start: int, stop: int) -> dict[str, Any]:
        """The engine's fairness sums (:class:`dcbsim._core.FairnessSums`) of flows
        ``names`` over samples ``start..stop``: a streamed run's read flow by flow, a
        run's in memory all at once."""
        sums = FairnessSums(len(names))
        if self.samples is not None:
            self._add_streamed(sums, names, start, stop)
        elif stop > start:
            series = [self.flows[n].series for n in names]
            encoded = lambda metric: _encoded(series, metric, start, stop)
            sums.add_block(stop - start, encoded("throughput_bps"), encoded("fair_share_bps"), encoded("rate_bps"))
        return sums.fairness(self.encoded_times[8 * start:8 * stop])

    def _add_streamed(self, sums: FairnessSums, names: list[str], start: int, stop: int) -> None:
        """Adds a streamed run's samples ``start..stop`` of flows ``names`` to ``sums``,
        in blocks of samples whose per-sample sums fit the sample budget, each read a
        group of flows at a time (:meth:`_flow_columns`) whose series fit in half of
        it and in :data:`_GROUP_BYTES`."""
        budget = self.scenario.sample_memory_bytes
        block = max(1, int(budget // 64))
        for a in range(start, stop, block):
            b = min(stop, a + block)
            group = max(1, int(min(budget / 2, _GROUP_BYTES) // (48 * max(b - a, 1))))
            sums.begin_block(b - a)
            for at in range(0, len(names), group):
                columns = self._flow_columns(names[at:at + group], ("throughput_bps", "fair_share_bps", "rate_bps"), a, b)
                for i, (thr, share, rate) in enumerate(zip(*columns)):
                    sums.add_flow(at + i, thr, share, rate)
            sums.end_block()

    def _flow_columns(self, names: list[str], metrics: Sequence[str], start: int = 0,
                      stop: int | None = None) -> list[list[bytes]]:
        """Per metric, samples ``start..stop`` (all by default) of each of flows
        ``names`` as little-endian float64 bytes (empty where the flow lacks the
        metric). A streamed run's whole series are read in one piece when they lie
        side by side in the file, as consecutive flows' do (the caller takes groups of
        flows that fit in memory); parts of series, series by series."""
        n, samples = self.sample_count, self.samples
        stop = n if stop is None else min(stop, n)
        if samples is None:
            return [[self.flows[name].series.encoded(m, start, stop) for name in names] for m in metrics]
        wanted = [[samples.column(m, name) for name in names] for m in metrics]
        known = [k for row in wanted for k in row if k is not None]
        if (start, stop) != (0, n) or not known or max(known) - min(known) + 1 > 3 * len(known) + 8:
            read = lambda k: samples.values(k * n + start, k * n + stop) if k is not None else b""
            return [[read(k) for k in row] for row in wanted]
        first = min(known)
        block = samples.values(first * n, (max(known) + 1) * n)
        at = lambda k: block[8 * n * (k - first):8 * n * (k - first + 1)] if k is not None else b""
        return [[at(k) for k in row] for row in wanted]

    def fct(self) -> dict[str, Any]:
        """Completion times of every finite flow (configured and arrived): mean,
        median, p99 and slowdown by size bucket; see :func:`dcbsim.fct.fct_summary`."""
        from dcbsim.fct import fct_summary

        finite = [f for f in self.flows.values() if f.stats.get("ideal_completion_time_s") is not None]
        done = [f for f in finite if f.stats["completion_time_s"] is not None]
        fct = [f.stats["completion_time_s"] for f in done]
        size = [f.stats["delivered_bytes"] for f in done]
        ideal = [f.stats["ideal_completion_time_s"] for f in done]
        flows = len(finite)
        for a in self.arrivals.values():
            fct.extend(a.completion_s.tolist())
            size.extend(a.completed_bytes.tolist())
            ideal.extend(a.ideal_s.tolist() if a.ideal_s.size == a.completion_s.size else [0.0] * a.completion_s.size)
            flows += int(a.stats["flows"])
        return fct_summary(fct, size, ideal, flows)

    def has_fct_rows(self) -> bool:
        """Whether :meth:`fct_table` has a row (a finite flow), known without polars."""
        return any(f.stats.get("size_bytes") is not None for f in self.flows.values()) or any(
            len(a.each.get("start_s", ())) for a in self.arrivals.values()
        )

    def fct_table(self) -> polars.DataFrame:
        """One row per finite flow, configured (``source`` "flows") or arrived (``source``
        its arrival source; ``flow`` "<source>#<k>"): size, start, end, FCT, the ideal
        FCT and the slowdown (FCT over ideal), whether it completed, bytes delivered.
        Times in seconds; end, FCT and slowdown are null for a flow that did not
        complete."""
        import polars as pl

        rows: dict[str, list] = {k: [] for k in _FCT_COLUMNS}

        def add(flow, source, size, start, fct, ideal, delivered):
            done = fct is not None and not np.isnan(fct)
            for key, value in zip(_FCT_COLUMNS, (
                flow, source, int(size), float(start), float(start + fct) if done else None, float(fct) if done else None,
                float(ideal), float(fct / ideal) if done and ideal > 0 else None, done, int(delivered),
            )):
                rows[key].append(value)

        for f in self.flows.values():
            st = f.stats
            if st.get("size_bytes") is not None:
                add(f.name, "flows", st["size_bytes"], st["start_s"], st["completion_time_s"],
                    st["ideal_completion_time_s"] or 0.0, st["delivered_bytes"])
        for a in self.arrivals.values():
            e = a.each
            for k in range(len(e.get("start_s", ()))):
                add(f"{a.name}#{k}", a.name, e["bytes"][k], e["start_s"][k], e["completion_s"][k], e["ideal_s"][k],
                    e["delivered_bytes"][k])
        types = {"str": pl.Utf8, "i64": pl.Int64, "f64": pl.Float64, "bool": pl.Boolean}
        return pl.DataFrame(rows, schema={k: types[t] for k, t in _FCT_SCHEMA.items()})

    def path_table(self) -> polars.DataFrame:
        """One row per configured flow: its source and destination, its path (the port
        names ``node:peer`` it crosses, space-separated, from its source's NIC on; with
        ECMP the one its hash picked), hop count, the switch port it leaves its first
        switch by, and its mean throughput over the run (bits/s). Group by ``uplink``
        to see how ECMP split the load."""
        import polars as pl

        duration = self.run_stats["simulated_s"] or 1.0
        rows = [
            (name, f.stats["src"], f.stats["dst"], " ".join(f.stats["path"]), len(f.stats["path"]),
             f.stats["path"][1] if len(f.stats["path"]) > 1 else None, f.stats["delivered_bytes"] * 8 / duration)
            for name, f in self.flows.items()
        ]
        schema = {"flow": pl.Utf8, "src": pl.Utf8, "dst": pl.Utf8, "path": pl.Utf8, "hops": pl.Int64,
                  "uplink": pl.Utf8, "throughput_bps": pl.Float64}
        return pl.DataFrame(rows, schema=schema, orient="row")

    @property
    def summary(self) -> dict[str, Any]:
        """Per port statistics, per flow counters, mean throughput (over the run, and
        over the time the flow was active: :meth:`FlowResult.active_s`) and fair share,
        the run's fairness, and totals."""
        with collector_paused():
            return self._summary()

    def _summary(self) -> dict[str, Any]:
        """:attr:`summary`, made with the collector paused."""
        fair = self._fairness_sums(list(self.flows), 0, self.sample_count)
        stats = [f.stats for f in self.flows.values()]
        totals = {
            key: sum(map(itemgetter(key), stats))
            for key in ("sent_frames", "delivered_frames", "dropped_frames", "in_network_frames", "notifications")
        }
        for key in ("sent_frames", "delivered_frames", "dropped_frames", "in_network_frames"):
            totals[key] += sum(a.stats[key] for a in self.arrivals.values())
        return {
            "scenario": self.scenario.name,
            "scheme": self.scenario.scheme,
            "seed": self.seed,
            "ports": {name: p.stats.copy() for name, p in self.ports.items()},
            "flows": self._flow_summaries(fair),
            "arrivals": {name: dict(a.stats, **a.fct_summary()) for name, a in self.arrivals.items()},
            "fairness": {k: fair[k] for k in RUN_MEASURES if not k.startswith("per_flow")},
            "fct": self.fct(),
            "incast": self.incast.summary() if self.incast is not None else None,
            "classes": {str(p): c for p, c in self.classes.items()},
            "pfc": self.pfc_summary(),
            "totals": totals,
            **self.run_stats,
        }

    def _flow_summaries(self, fair: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Each flow's entry of :attr:`summary`: its counters, then its mean throughput
        over the run and over its active time, its mean fair share and its deviation
        from it (from the fairness sums ``fair``), and a ``poisson`` flow's transfer
        times. One step per flow, none of it a call (a run of 100,000 flows has as many
        entries)."""
        duration = self.run_stats["simulated_s"] or 1.0
        flows = {}
        for f, span, share, rms in zip(self.flows.values(), fair["sending_span_s"], fair["mean_share_bps"],
                                       fair["per_flow_rms_bps"]):
            entry = f.stats.copy()
            bits = entry["delivered_bytes"] * 8
            done = entry.get("completion_time_s")
            active = float(done) if done is not None else span
            entry["throughput_bps"] = bits / duration
            entry["active_s"] = active
            entry["throughput_active_bps"] = bits / active if active else None
            entry["fair_share_bps"] = share
            entry["share_rms_bps"] = rms
            if entry.get("transfers") is not None:
                entry.update(f.transfer_summary())
            flows[f.name] = entry
        return flows

    def pfc_summary(self) -> dict[str, dict[str, Any]]:
        """Per port that sent, received or was paused by PFC: PAUSE frames sent and
        received (all priorities) and the longest paused time of any priority."""
        out = {}
        for name, p in self.pfc.items():
            sent, received = int(sum(p["pause_sent"])), int(sum(p["pause_received"]))
            if sent or received or p["headroom_drops"]:
                out[name] = {
                    "pause_sent": sent,
                    "pause_received": received,
                    "paused_s": p["paused_s"],
                    "paused_fraction": p["paused_s"] / (self.run_stats["simulated_s"] or 1.0),
                    "headroom_drops": p["headroom_drops"],
                }
        return out

    def _tidy_parts(self) -> tuple[int, list[str], list[str], list[bytes]]:
        """The tidy table's series: the number of samples, and the metric, entity and
        values (little-endian float64 bytes) of each series that covers every sample:
        the monitored ports' queues, then each flow's series in :data:`SAMPLED` order."""
        n = self.sample_count
        ports = self.monitored_ports
        metrics = ["queue_bytes"] * len(ports)
        entities = [p.name for p in ports]
        values = _encoded([p.series for p in ports], "queue_bytes", 0, n)
        flows = list(self.flows.values())
        if all(type(f.series) is _InMemory for f in flows):
            # The report's own bytes, picked by the engine (a run of 100,000 flows has
            # 600,000 series to look at).
            more = full_series([f.name for f in flows], [f.series.raw for f in flows], list(SAMPLED), n)
        else:
            more = ([], [], [])
            for f in flows:
                for metric in SAMPLED:
                    series = f.series.encoded(metric, 0, n)
                    if len(series) == 8 * n:
                        for column, item in zip(more, (metric, f.name, series)):
                            column.append(item)
        return n, metrics + more[0], entities + more[1], values + more[2]

    def _columns(self) -> dict[str, np.ndarray]:
        """The tidy table's columns: one row per (sample, metric, entity)."""
        n, metrics, entities, values = self._tidy_parts()
        if not values:
            empty = np.array([], dtype=object)
            return {"time_s": np.array([], dtype=float), "metric": empty, "entity": empty, "value": np.array([], dtype=float)}
        return {
            "time_s": np.tile(self.time_s, len(values)),
            "metric": np.repeat(np.array(metrics, dtype=object), n),
            "entity": np.repeat(np.array(entities, dtype=object), n),
            "value": np.frombuffer(b"".join(values), dtype="<f8"),
        }

    def write_parquet(self, path: str, compression: str | None = None) -> None:
        """Writes the tidy table (:meth:`to_polars`) to a Parquet file without polars,
        compressed with ``compression`` (``zstd``, ``lz4``, ``snappy`` or ``none``; by
        default the scenario's ``output.compression``). A streamed run's own file is
        linked or copied when it has that compression, else written anew."""
        from dcbsim._core import TidyWriter

        compression = self.scenario.compression if compression is None else compression
        if self.samples is not None:
            if compression != self.scenario.compression:
                self.samples.write_parquet(path, compression, self.scenario.sample_memory_bytes)
                return
            try:
                os.link(self.samples.path, path)
            except OSError:
                shutil.copyfile(self.samples.path, path)
            return
        n, metrics, entities, values = self._tidy_parts()
        writer = TidyWriter(path, compression)
        # About a row group's worth of series at a time: the writer's copy of the
        # values stays a few megabytes however large the table.
        per_group = max(1, _ROW_GROUP_ROWS // max(1, n))
        for a in range(0, len(values), per_group):
            b = a + per_group
            writer.write(self.encoded_times, metrics[a:b], entities[a:b], values[a:b], self.seed)
        writer.close()

    def to_polars(self) -> polars.DataFrame:
        """The tidy table: columns ``time_s, metric, entity, value, seed``."""
        import polars as pl

        if self.samples is not None:
            return pl.read_parquet(self.samples.path)
        cols = self._columns()
        return pl.DataFrame(
            {
                "time_s": pl.Series(cols["time_s"], dtype=pl.Float64),
                "metric": pl.Series(cols["metric"].tolist(), dtype=pl.Utf8),
                "entity": pl.Series(cols["entity"].tolist(), dtype=pl.Utf8),
                "value": pl.Series(cols["value"], dtype=pl.Float64),
            }
        ).with_columns(pl.lit(self.seed, dtype=pl.UInt64).alias("seed"))

    def to_pandas(self) -> pandas.DataFrame:
        """The tidy table as a pandas DataFrame (needs the ``pandas`` extra)."""
        import pandas as pd

        frame = pd.DataFrame(self._columns())
        frame["seed"] = self.seed
        return frame

    def plot_queue(self, path: str | None = None) -> Figure:
        """Queue length vs time at each monitored port."""
        from dcbsim import plot

        return plot.queue(self, path)

    def plot_queue_cdf(self, path: str | None = None) -> Figure:
        """Time-weighted CDF of the sampled queue length at each monitored port."""
        from dcbsim import plot

        return plot.queue_cdf(self, path)

    def plot_rates(self, path: str | None = None) -> Figure:
        """Per-flow rate-limiter rate and delivered throughput vs time."""
        from dcbsim import plot

        return plot.rates(self, path)

    def plot_rtt(self, path: str | None = None) -> Figure:
        """RTT and window of the flows whose frames are acknowledged (HPCC, TIMELY) vs time."""
        from dcbsim import plot

        return plot.rtt(self, path)

    def plot_utilization(self, path: str | None = None) -> Figure:
        """Utilization of each switch port."""
        from dcbsim import plot

        return plot.utilization(self, path)

    def plot_paused(self, path: str | None = None) -> Figure:
        """Time each port was paused by PFC."""
        from dcbsim import plot

        return plot.paused(self, path)

    def __repr__(self) -> str:
        counts = f"{len(self.ports)} ports, {len(self.flows)} flows, {self.sample_count} samples"
        return f"<Result {self.scenario.name!r} seed={self.seed}: {counts}>"
