"""Plots of a run (matplotlib, Agg; no global state is changed)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

import numpy as np
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from dcbsim.results import Result

_MAX_LINES = 12


def _figure(width: float = 8.0, height: float = 4.0) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _finish(fig: Figure, ax: Axes, result: Result, title: str, path: str | os.PathLike[str] | None) -> Figure:
    ax.set_title(f"{result.scenario.name}: {title}", fontsize=11)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best", ncols=2 if len(ax.get_lines()) > 6 else 1)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def _time_axis(result: Result) -> tuple[np.ndarray, str]:
    t = result.time_s
    if len(t) and t[-1] <= 0.5:
        return t * 1e3, "time (ms)"
    return t, "time (s)"


def queue(result: Result, path: str | os.PathLike[str] | None = None) -> Figure:
    """Queue length (KB) vs time at each monitored port."""
    fig, ax = _figure()
    t, label = _time_axis(result)
    for p in result.monitored_ports[:_MAX_LINES]:
        ax.plot(t, p.queue_bytes / 1024, lw=0.9, label=p.name)
        ax.axhline(p.stats["buffer_bytes"] / 1024, color="grey", ls=":", lw=0.8)
    ax.set_xlabel(label)
    ax.set_ylabel("queue (KB)")
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, result, "queue length (dotted: buffer)", path)


def queue_cdf(result: Result, path: str | os.PathLike[str] | None = None) -> Figure:
    """Empirical CDF of the sampled queue length at each monitored port."""
    fig, ax = _figure(6.0, 4.0)
    for p in result.monitored_ports[:_MAX_LINES]:
        q = np.sort(p.queue_bytes) / 1024
        if q.size:
            ax.step(q, np.arange(1, q.size + 1) / q.size, where="post", label=p.name)
    ax.set_xlabel("queue (KB)")
    ax.set_ylabel("P(queue ≤ x)")
    ax.set_ylim(0, 1.02)
    return _finish(fig, ax, result, "queue CDF", path)


def rates(result: Result, path: str | os.PathLike[str] | None = None) -> Figure:
    """Each flow's rate-limiter rate (solid), delivered throughput (faint) and weighted
    max-min fair share (dashed), Gb/s."""
    fig, ax = _figure()
    t, label = _time_axis(result)
    for f in list(result.flows.values())[:_MAX_LINES]:
        (line,) = ax.plot(t, f.rate_bps / 1e9, lw=1.1, label=f.name)
        ax.plot(t, f.throughput_bps / 1e9, lw=0.6, alpha=0.35, color=line.get_color())
        ax.plot(t, f.fair_share_bps / 1e9, lw=0.9, ls="--", color=line.get_color())
    ax.set_xlabel(label)
    ax.set_ylabel("Gb/s")
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, result, "rate (solid), throughput (faint), fair share (dashed) per flow", path)


def utilization(result: Result, path: str | os.PathLike[str] | None = None) -> Figure:
    """Utilization of each switch egress port that carried traffic."""
    ports = [p for p in result.ports.values() if p.stats["tx_frames"] > 0][:24]
    fig, ax = _figure(max(4.0, 0.5 * len(ports) + 2), 4.0)
    names = [p.name for p in ports]
    values = [100 * p.stats["utilization"] for p in ports]
    bars = ax.bar(names, values, color="#4c72b0")
    ax.bar_label(bars, fmt="%.1f", fontsize=8)
    ax.set_ylabel("utilization (%)")
    ax.set_ylim(0, 105)
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    return _finish(fig, ax, result, "port utilization", path)


def paused(result: Result, path: str | os.PathLike[str] | None = None) -> Figure:
    """Fraction of the run each port's transmitter was paused by PFC (its most paused
    priority), for every port that PFC paused."""
    rows = [(name, p["paused_fraction"]) for name, p in result.pfc_summary().items() if p["paused_s"] > 0][:32]
    fig, ax = _figure(max(4.0, 0.45 * len(rows) + 2), 4.0)
    bars = ax.bar([n for n, _ in rows], [100 * f for _, f in rows], color="#c44e52")
    ax.bar_label(bars, fmt="%.1f", fontsize=8)
    ax.set_ylabel("time paused (% of run)")
    ax.set_ylim(0, 105)
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    return _finish(fig, ax, result, "PFC: time paused per port", path)


#: The plots ``save_all`` writes, by file name (``paused.png`` only for runs with PFC).
PLOTS: dict[str, Callable[..., Figure]] = {
    "queue.png": queue,
    "queue_cdf.png": queue_cdf,
    "rates.png": rates,
    "utilization.png": utilization,
    "paused.png": paused,
}


def save_all(result: Result, outdir: str | os.PathLike[str]) -> list[str]:
    """Writes every plot as PNG into ``outdir``; returns the file paths."""
    paths = []
    for name, draw in PLOTS.items():
        if name == "paused.png" and not result.pfc:
            continue
        path = os.path.join(outdir, name)
        draw(result, path)
        paths.append(path)
    return paths
