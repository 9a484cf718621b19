"""Plots of a run (matplotlib, Agg; no global state is changed)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from matplotlib.figure import Figure

if TYPE_CHECKING:
    import polars
    from matplotlib.axes import Axes


class PlottedRun(Protocol):
    """What the plots read of a run: a :class:`dcbsim.Result` is one. Spelled out here
    rather than imported, so that this module stays below :mod:`dcbsim.results`,
    whose ``Result.plot_*`` methods call it."""

    scenario: Any
    ports: Mapping[str, Any]
    flows: Mapping[str, Any]
    pfc: Mapping[str, Any]

    @property
    def time_s(self) -> np.ndarray:
        """The sample times, s."""

    @property
    def monitored_ports(self) -> list[Any]:
        """The ports whose queues were sampled."""

    def has_fct_rows(self) -> bool:
        """Whether the run had finite flows."""

    def fct_table(self) -> polars.DataFrame:
        """One row per finite flow."""

    def pfc_summary(self) -> dict[str, dict[str, Any]]:
        """Pause statistics per port."""

    def _flow_columns(self, names: list[str], metrics: Sequence[str], start: int = 0,
                      stop: int | None = None) -> list[list[bytes]]:
        """Per metric, each flow's samples as little-endian float64 bytes."""


_MAX_LINES = 12

#: A series longer than twice this is drawn by the lowest and the highest sample of
#: each of this many stretches, in time order: two points or more per pixel column
#: of the plots (960 pixels wide), so every spike stays in view, and a long run's plot
#: costs what a short one's does (a 250,000-sample run's plots took 300 MB).
_STRETCHES = 2048


#: Values of a block of flows' series that a plot reduces at once (32 MB of floats).
_BLOCK_VALUES = 1 << 22


def _stretch(n: int) -> int | None:
    """Samples per stretch of a series of ``n`` drawn thinned; ``None``: drawn whole."""
    return None if n <= 2 * _STRETCHES else -(-n // _STRETCHES)


def _thin(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The samples of ``y`` (at times ``t``) that draw it at the plots' resolution: all
    of a short series; of a long one, each stretch's lowest and highest (see
    ``_STRETCHES``), its first and last samples included."""
    n, k = y.size, _stretch(y.size)
    if k is None:
        return t, y
    rows = -(-n // k)
    block = np.concatenate([y, np.full(rows * k - n, y[-1])]).reshape(rows, k)
    base = np.arange(rows) * k
    lo = np.minimum(base + block.argmin(axis=1), n - 1)
    hi = np.minimum(base + block.argmax(axis=1), n - 1)
    keep = np.concatenate([[0], np.stack([np.minimum(lo, hi), np.maximum(lo, hi)], axis=1).ravel(), [n - 1]])
    return t[keep], y[keep]


def _thin_band(t: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A band between ``low`` and ``high`` at the plots' resolution: a long one becomes,
    over each stretch, the stretch's lowest ``low`` to its highest ``high``, from its
    first sample's time to its last's."""
    n, k = t.size, _stretch(t.size)
    if k is None:
        return t, low, high
    starts = np.arange(0, n, k)
    ends = np.append(starts[1:], n) - 1
    times = np.stack([t[starts], t[ends]], axis=1).ravel()
    return times, np.repeat(np.minimum.reduceat(low, starts), 2), np.repeat(np.maximum.reduceat(high, starts), 2)


def _thin_cdf(values: np.ndarray, cdf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A long step CDF at the plots' resolution: the last point of each value (the step
    drawn is the same), and of those, the first to reach each of ``2 * _STRETCHES``
    levels (the curve moves by less than a pixel)."""
    if _stretch(values.size) is None:
        return values, cdf
    last = np.append(values[1:] != values[:-1], True)
    values, cdf = values[last], cdf[last]
    if values.size > 2 * _STRETCHES:
        levels = np.linspace(0.0, 1.0, 2 * _STRETCHES + 1)[1:]
        keep = np.unique(np.minimum(np.searchsorted(cdf, levels), values.size - 1))
        values, cdf = values[keep], cdf[keep]
    return values, cdf


def _figure(width: float = 8.0, height: float = 4.0) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


#: The most characters of a name a plot shows (a title, a legend, a bar's label): a
#: longer one is cut with an ellipsis, since drawing a 100,000-character title took
#: 27 s, wrapped over a thousand lines.
NAME_CHARS = 60


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"


def _finish(fig: Figure, ax: Axes, result: PlottedRun, title: str, path: str | os.PathLike[str] | None) -> Figure:
    import textwrap

    # About 12 characters of the title's size to an inch: a longer title takes two lines.
    width = int(fig.get_figwidth() * 12)
    ax.set_title(textwrap.fill(f"{_short(result.scenario.name)}: {title}", width), fontsize=11)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best", ncols=2 if len(ax.get_lines()) > 6 else 1)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def _time_axis(result: PlottedRun) -> tuple[np.ndarray, str]:
    t = result.time_s
    if len(t) and t[-1] <= 0.5:
        return t * 1e3, "time (ms)"
    return t, "time (s)"


def _timeline_times_s(result: PlottedRun) -> list[float]:
    """When the scenario's timeline entries apply (the scenario as run), seconds."""
    import tomllib

    try:
        entries = tomllib.loads(result.scenario.toml).get("timeline", [])
    except (tomllib.TOMLDecodeError, AttributeError):
        return []
    return sorted({float(e["at_ms"]) / 1e3 for e in entries if isinstance(e, dict) and "at_ms" in e})


def _rate_axes(ax: Axes, result: PlottedRun, label: str) -> None:
    """Labels a rate-against-time plot (Gb/s from 0) and marks the timeline."""
    _mark_timeline(ax, result, label)
    ax.set_xlabel(label)
    ax.set_ylabel("Gb/s")
    ax.set_ylim(bottom=0)


def _percent_bars(result: PlottedRun, names: list[str], percents: list[float], color: str, ylabel: str, title: str,
                  path: str | os.PathLike[str] | None) -> Figure:
    """One labelled bar per name, 0–100 %."""
    fig, ax = _figure(max(4.0, 0.5 * len(names) + 2), 4.0)
    bars = ax.bar(range(len(names)), percents, color=color)
    ax.set_xticks(range(len(names)), [_short(n) for n in names])
    ax.bar_label(bars, fmt="%.1f", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 105)
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    return _finish(fig, ax, result, title, path)


def _mark_timeline(ax: Axes, result: PlottedRun, label: str) -> None:
    """Dotted vertical lines where the timeline changes something."""
    scale = 1e3 if label == "time (ms)" else 1.0
    for at in _timeline_times_s(result):
        ax.axvline(at * scale, color="black", ls=(0, (1, 3)), lw=0.8, alpha=0.7)


def _queued_ports(result: PlottedRun) -> tuple[list, str]:
    """The monitored ports whose queue was ever non-empty, fullest on average first, at
    most ``_MAX_LINES``; and a note on what was left out."""
    # A queue sampled above zero had an exact maximum above zero: that statistic rules
    # out the always-empty ports without reading their series (at 100,000 hosts, reading
    # every port's series took a second per plot).
    ever = [p for p in result.monitored_ports if p.stats.get("max_bytes", 1) > 0]
    busy = [p for p in ever if p.queue_bytes.size and p.queue_bytes.max() > 0]
    busy.sort(key=lambda p: -float(p.queue_bytes.mean()))
    quiet = len(result.monitored_ports) - len(busy)
    notes = []
    if len(busy) > _MAX_LINES:
        notes.append(f"{len(busy) - _MAX_LINES} more queues not drawn")
    if quiet:
        notes.append(f"{quiet} always-empty ports not drawn")
    return busy[:_MAX_LINES], f" ({'; '.join(notes)})" if notes else ""


def queue(result: PlottedRun, path: str | os.PathLike[str] | None = None) -> Figure:
    """Queue length (KB) vs time at each monitored port that ever queued anything
    (fullest first, at most 12)."""
    fig, ax = _figure()
    t, label = _time_axis(result)
    ports, note = _queued_ports(result)
    for p in ports:
        (line,) = ax.plot(*_thin(t, p.queue_bytes / 1024), lw=0.9, label=_short(p.name))
        ax.axhline(p.stats["buffer_bytes"] / 1024, color=line.get_color(), ls=":", lw=0.8)
    _mark_timeline(ax, result, label)
    ax.set_xlabel(label)
    ax.set_ylabel("queue (KB)")
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, result, f"queue length (dotted: buffer; vertical: timeline){note}", path)


def time_weighted_cdf(values: np.ndarray, time_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CDF of a sampled quantity over time: each sample stands for the interval
    since the previous one (the first, since 0), so ``P(x)`` is the fraction of the
    sampled time it was at most ``x``. With periodic samples (the engine's sampler takes
    one every ``sample_interval_us``) every weight is equal; a shorter or longer interval
    weighs less or more. Returns the sorted values and the CDF at each."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return values, values
    weights = np.diff(np.asarray(time_s, dtype=float), prepend=0.0)
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    return values[order], cumulative / cumulative[-1]


def queue_cdf(result: PlottedRun, path: str | os.PathLike[str] | None = None) -> Figure:
    """Time-weighted CDF of the sampled queue length (see :func:`time_weighted_cdf`) at
    each port that ever queued anything, with the engine's exact time-weighted P(queue
    empty) as a marker at 0."""
    fig, ax = _figure(6.0, 4.0)
    ports, note = _queued_ports(result)
    for p in ports:
        q, cdf = _thin_cdf(*time_weighted_cdf(p.queue_bytes / 1024, result.time_s))
        if q.size:
            (line,) = ax.step(q, cdf, where="post", label=_short(p.name))
            ax.plot([0.0], [p.stats["p_empty"]], marker="o", ms=4, mfc="none", color=line.get_color())
    ax.set_xlabel("queue (KB)")
    ax.set_ylabel("fraction of time queue ≤ x")
    ax.set_ylim(0, 1.02)
    return _finish(fig, ax, result, f"queue CDF over time (samples; circle: exact time empty){note}", path)


def rates(result: PlottedRun, path: str | os.PathLike[str] | None = None) -> Figure:
    """Each flow's rate-limiter rate (solid), delivered throughput (faint) and weighted
    max-min fair share (dashed), Gb/s. With more than 12 flows: their mean throughput,
    the band between the lowest and highest, and the mean fair share instead."""
    fig, ax = _figure()
    t, label = _time_axis(result)
    flows = list(result.flows.values())
    if len(flows) > _MAX_LINES:
        return _many_rates(fig, ax, result, flows, t, label, path)
    for f in flows:
        (line,) = ax.plot(*_thin(t, f.rate_bps / 1e9), lw=1.1, label=_short(f.name))
        ax.plot(*_thin(t, f.throughput_bps / 1e9), lw=0.6, alpha=0.35, color=line.get_color())
        ax.plot(*_thin(t, f.fair_share_bps / 1e9), lw=0.9, ls="--", color=line.get_color())
    _rate_axes(ax, result, label)
    return _finish(fig, ax, result, "rate (solid), throughput (faint), fair share (dashed) per flow", path)


def _many_rates(fig: Figure, ax: Axes, result: PlottedRun, flows: list, t: np.ndarray, label: str, path) -> Figure:
    """Throughput of many flows summarized: mean, min-max band, mean fair share (taken
    a block of flows at a time, so that a streamed run's series are not all held at
    once, and each block's are reduced together rather than flow by flow)."""
    n = t.size
    low, high = np.full(n, np.inf), np.full(n, -np.inf)
    total, fair = np.zeros(n), np.zeros(n)
    # A streamed run's block is read with the flows' other series beside (up to
    # six per flow): a quarter of the values a block holds.
    per_block = max(1, _BLOCK_VALUES // (4 * max(n, 1)))
    for at in range(0, len(flows), per_block):
        block = [f.name for f in flows[at:at + per_block]]
        thr, share = (np.frombuffer(b"".join(series), dtype="<f8").reshape(len(block), n)
                      for series in result._flow_columns(block, ("throughput_bps", "fair_share_bps")))
        thr = thr / 1e9
        np.minimum(low, thr.min(axis=0), out=low)
        np.maximum(high, thr.max(axis=0), out=high)
        total += thr.sum(axis=0)
        fair += share.sum(axis=0) / 1e9
    ax.fill_between(*_thin_band(t, low, high), color="#4c72b0", alpha=0.25, lw=0, label="lowest to highest")
    ax.plot(*_thin(t, total / len(flows)), color="#4c72b0", lw=1.1, label="mean throughput")
    ax.plot(*_thin(t, fair / len(flows)), color="black", lw=0.9, ls="--", label="mean fair share")
    _rate_axes(ax, result, label)
    return _finish(fig, ax, result, f"throughput of the {len(flows)} flows", path)


def utilization(result: PlottedRun, path: str | os.PathLike[str] | None = None) -> Figure:
    """Utilization of each switch egress port that carried traffic."""
    ports = [p for p in result.ports.values() if p.stats["tx_frames"] > 0][:24]
    percents = [100 * p.stats["utilization"] for p in ports]
    return _percent_bars(result, [p.name for p in ports], percents, "#4c72b0", "utilization (%)", "port utilization", path)


def paused(result: PlottedRun, path: str | os.PathLike[str] | None = None) -> Figure:
    """Fraction of the run each port's transmitter was paused by PFC (its most paused
    priority), for every port that PFC paused."""
    rows = [(name, p["paused_fraction"]) for name, p in result.pfc_summary().items() if p["paused_s"] > 0][:32]
    names, percents = [n for n, _ in rows], [100 * f for _, f in rows]
    return _percent_bars(result, names, percents, "#c44e52", "time paused (% of run)", "PFC: time paused per port", path)


def fct(result: PlottedRun, path: str | os.PathLike[str] | None = None) -> Figure:
    """Flow completion times of the finite flows that completed: against size (log-log,
    with the ideal time as a line) and their CDF, one colour per source."""
    table = result.fct_table().filter(completed=True)
    fig = Figure(figsize=(10.0, 4.0), layout="constrained")
    left, right = fig.subplots(1, 2)
    for source in table["source"].unique(maintain_order=True).to_list():
        rows = table.filter(source=source)
        size, fct_ms = rows["size_bytes"].to_numpy(), rows["fct_s"].to_numpy() * 1e3
        left.scatter(size, fct_ms, s=8, alpha=0.6, label=_short(source))
        ordered = np.sort(fct_ms)
        right.step(ordered, np.arange(1, ordered.size + 1) / ordered.size, where="post", label=_short(source))
    if table.height:
        order = np.argsort(table["size_bytes"].to_numpy())
        left.plot(table["size_bytes"].to_numpy()[order], table["ideal_s"].to_numpy()[order] * 1e3,
                  color="black", lw=0.8, label="ideal")
        left.set_xscale("log")
        left.set_yscale("log")
        right.set_xscale("log")
    left.set_xlabel("size (bytes)")
    left.set_ylabel("FCT (ms)")
    right.set_xlabel("FCT (ms)")
    right.set_ylabel("P(FCT ≤ x)")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(f"{_short(result.scenario.name)}: completion times of {table.height} finite flows", fontsize=11)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


#: The plots ``save_all`` writes, by file name (``paused.png`` only for runs with PFC).
def acked_flows(result: PlottedRun) -> list:
    """The flows whose frames were acknowledged one by one (HPCC, TIMELY), at most
    :data:`_MAX_LINES` of them."""
    return [f for f in result.flows.values() if f.stats.get("acked")][:_MAX_LINES]


def rtt(result: PlottedRun, path: str | os.PathLike[str] | None = None) -> Figure:
    """The RTT each acknowledged flow measured last at each sample (µs, solid) and, for a
    scheme with a window (HPCC), the window (KB, dashed, right axis)."""
    fig, ax = _figure()
    t, label = _time_axis(result)
    windows = ax.twinx()
    drew_window = False
    for f in acked_flows(result):
        # Before its start a flow's window is its initial one, never used yet: not drawn.
        started = result.time_s >= f.stats["start_s"]
        window = np.where(started, f.window_bytes, np.nan)
        (line,) = ax.plot(*_thin(t, f.rtt_us), lw=1.0, label=_short(f.name))
        if np.isfinite(window).any():
            windows.plot(*_thin(t, window / 1e3), lw=0.8, ls="--", color=line.get_color())
            drew_window = True
    ax.set_xlabel(label)
    ax.set_ylabel("RTT (µs)")
    ax.set_ylim(bottom=0)
    if drew_window:
        windows.set_ylabel("window (KB, dashed)")
        windows.set_ylim(bottom=0)
    else:
        windows.set_axis_off()
    ax.legend(fontsize=7, loc="upper right")
    return _finish(fig, ax, result, "RTT per flow (solid), window (dashed)", path)


PLOTS: dict[str, Callable[..., Figure]] = {
    "queue.png": queue,
    "queue_cdf.png": queue_cdf,
    "rates.png": rates,
    "utilization.png": utilization,
    "paused.png": paused,
}


def save_all(result: PlottedRun, outdir: str | os.PathLike[str], progress: Callable[[str], Any] | None = None) -> list[str]:
    """Writes every plot as PNG into ``outdir`` (and ``fct.png`` when finite flows
    completed, ``rtt.png`` when flows measured RTTs), calling ``progress`` with each file's name before drawing it;
    returns the file paths."""
    paths = []
    plots = dict(PLOTS)
    if not result.pfc:
        del plots["paused.png"]
    if result.has_fct_rows() and result.fct_table()["completed"].any():
        plots["fct.png"] = fct
    if acked_flows(result):
        plots["rtt.png"] = rtt
    for name, draw in plots.items():
        if progress is not None:
            progress(name)
        path = os.path.join(outdir, name)
        draw(result, path)
        paths.append(path)
    return paths
