"""The DSM paper's figures as we reproduce them: each DSM claim's runs, drawn for DSM with
the paper's gains, DSM with c bounded by eq. 30, QCN and SMCC."""

from __future__ import annotations

import os

import numpy as np

from dcbsim.analysis import dsm as model
from dcbsim.papers import Runs
from dcbsim.papers.dsm import (
    CAPACITIES,
    DELAYS_US,
    EQ30_DSM,
    FIG9_BOTTLENECKS,
    LOOPS_100G_US,
    LOOPS_US,
    PAPER_DSM,
    SHORT_RATES,
    _fig6,
    mixed_measures,
    random_delay_means,
    random_delay_runs,
    run,
    run_100g,
    selecting,
    utilization,
)
from dcbsim.plot import Figure

#: The schemes drawn, their legend labels and colours (the same in every figure).
SCHEMES = (PAPER_DSM, EQ30_DSM, "qcn", "smcc")
LABELS = {PAPER_DSM: "DSM (paper's c)", EQ30_DSM: "DSM (c by eq. 30)", "qcn": "QCN", "smcc": "SMCC"}
COLORS = {PAPER_DSM: "#8c8c8c", EQ30_DSM: "#1f77b4", "qcn": "#ff7f0e", "smcc": "#2ca02c"}


def draw(runs: Runs, outdir: str) -> list[str]:
    """Figs. 5a, 5b, 6–10 for both DSM variants beside QCN and SMCC, and the stability
    map, written into ``outdir``; returns their paths."""
    drawers = (_fig5a, _fig5b, _fig6_7, _fig8, _fig9, _fig10, _stability)
    return [drawer(runs, outdir) for drawer in drawers]


def _queue(ax, time_s, queue_bytes, scheme: str) -> None:
    ax.plot(time_s, queue_bytes / 1024, lw=0.6, color=COLORS[scheme], label=LABELS[scheme])


def _panels(count: int, height: float = 3.6):
    fig = Figure(figsize=(11, height), layout="constrained")
    axes = fig.subplots(1, count, sharey=True)
    return fig, axes


def _save(fig, outdir: str, name: str) -> str:
    path = os.path.join(outdir, name)
    fig.savefig(path, dpi=110)
    return path


def _finish_queues(axes, xlabel: str = "time (s)") -> None:
    for ax in axes:
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("queue (KB)")
    axes[0].legend(fontsize=7)


def _by_loop_delay(runs: Runs, outdir: str, name: str, title: str, loops, run_of) -> str:
    """One panel per loop delay: the bottleneck queue under each scheme."""
    fig, axes = _panels(len(loops))
    for ax, loop in zip(axes, loops):
        for scheme in SCHEMES:
            r = run_of(runs, scheme, loop)
            _queue(ax, r.time_s, r.ports["sw0:r0"].queue_bytes, scheme)
        ax.set_title(f"{title}, loop delay {loop} µs", fontsize=9)
    _finish_queues(axes)
    return _save(fig, outdir, name)


def _fig5a(runs: Runs, outdir: str) -> str:
    return _by_loop_delay(runs, outdir, "dsm_fig05a.png", "Fig. 5a: 10 Gb/s", LOOPS_US, run)


def _fig5b(runs: Runs, outdir: str) -> str:
    return _by_loop_delay(runs, outdir, "dsm_fig05b.png", "Fig. 5b: 100 Gb/s", LOOPS_100G_US, run_100g)


def _fig6_7(runs: Runs, outdir: str) -> str:
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1.2, 1])
    for scheme in SCHEMES:
        r = _fig6(runs, scheme)
        _queue(left, r.time_s, r.ports["sw0:r0"].queue_bytes, scheme)
    left.set_title("Fig. 6: queue as flows arrive (0.1, 0.2 s) and leave (0.3, 0.4 s)", fontsize=9)
    _finish_queues([left])
    x = np.arange(len(CAPACITIES))
    width = 0.8 / len(SCHEMES)
    for i, scheme in enumerate(SCHEMES):
        values = [100 * np.mean([utilization(runs, scheme, c, d) for d in DELAYS_US]) for c in CAPACITIES]
        right.bar(x + (i - (len(SCHEMES) - 1) / 2) * width, values, width * 0.95, color=COLORS[scheme], label=LABELS[scheme])
    right.set_xticks(x, [f"{c} Gb/s" for c in CAPACITIES])
    right.set_ylabel("utilization (%), mean over 80/160/320 µs")
    right.set_ylim(0, 122)
    right.set_title("Fig. 7: utilization by capacity", fontsize=9)
    right.grid(alpha=0.3, axis="y")
    right.legend(fontsize=7, loc="upper center", ncol=2)
    return _save(fig, outdir, "dsm_fig06_07.png")


def _fig8(runs: Runs, outdir: str) -> str:
    """Fig. 8a (the queue's CDF pooled over the runs) and 8b (mean utilization and drops),
    over the seeds the Fig. 8 claims ran (100, or 2 when quick)."""
    seeds = runs.seeds(100)
    fig = Figure(figsize=(11, 3.4), layout="constrained")
    cdf, util_ax, drop_ax = fig.subplots(1, 3, width_ratios=[1.4, 1, 1])
    for scheme in SCHEMES:
        results = random_delay_runs(runs, scheme)
        queue_kb = np.sort(np.concatenate([r.ports["sw0:r0"].queue_bytes for r in results])) / 1024
        cdf.step(queue_kb, np.arange(1, len(queue_kb) + 1) / len(queue_kb), where="post", lw=1.0,
                 color=COLORS[scheme], label=LABELS[scheme])
    util, drops, _ = (100 * np.array(m) for m in zip(*(random_delay_means(runs, s) for s in SCHEMES)))
    cdf.set_title(f"Fig. 8a: queue CDF, loop delays U[400, 800] µs ({len(seeds)} runs of 5 s)", fontsize=9)
    cdf.set_xlabel("queue (KB)")
    cdf.set_ylabel("fraction of samples")
    cdf.legend(fontsize=7, loc="lower right")
    cdf.grid(alpha=0.3)
    for ax, values, name in ((util_ax, util, "utilization (%)"), (drop_ax, drops, "frames dropped (%)")):
        ax.bar(range(len(SCHEMES)), values, color=[COLORS[s] for s in SCHEMES])
        ax.set_xticks(range(len(SCHEMES)), [LABELS[s].replace(" (", "\n(") for s in SCHEMES], fontsize=7)
        ax.set_title(f"Fig. 8b: {name}", fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    return _save(fig, outdir, "dsm_fig08.png")


def _fig9(runs: Runs, outdir: str) -> str:
    fig = Figure(figsize=(11, 5.2), layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    for ax, port in zip(axes, FIG9_BOTTLENECKS):
        for scheme in SCHEMES:
            r = runs.get("fig09_parking_lot", selecting(scheme), 1)
            _queue(ax, r.time_s, r.ports[port].queue_bytes, scheme)
        ax.set_title(f"Fig. 9: parking lot, queue at {port}", fontsize=9)
        ax.set_ylabel("queue (KB)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=4)
    axes[1].set_xlabel("time (s)")
    return _save(fig, outdir, "dsm_fig09.png")


def _fig10(runs: Runs, outdir: str) -> str:
    """Fig. 10a (queue mean and std at the worse bottleneck) and 10b (utilization, drops)
    against the short-flow rate."""
    fig = Figure(figsize=(11, 3.4), layout="constrained")
    queue_ax, util_ax, drop_ax = fig.subplots(1, 3)
    rates = np.array(SHORT_RATES)
    for k, scheme in enumerate(SCHEMES):
        mean, std, util, drops = np.array([mixed_measures(runs, scheme, r) for r in SHORT_RATES]).T
        style = {"color": COLORS[scheme], "label": LABELS[scheme], "marker": "o", "ms": 3}
        queue_ax.errorbar(rates + (k - 1.5) * 2.5, mean, yerr=std, capsize=2, lw=1, **style)
        util_ax.plot(rates, 100 * util, **style)
        drop_ax.plot(rates, 100 * drops, **style)
    for ax, name in ((queue_ax, "10a: queue mean ± std (KB)"), (util_ax, "10b: utilization (%)"), (drop_ax, "10b: frames dropped (%)")):
        ax.set_title(f"Fig. {name}", fontsize=9)
        ax.set_xlabel("short flows per second per bottleneck")
        ax.grid(alpha=0.3)
    queue_ax.legend(fontsize=7)
    return _save(fig, outdir, "dsm_fig10.png")


def _stability(runs: Runs, outdir: str) -> str:
    del runs  # the paper's fluid model, no simulation runs
    path = os.path.join(outdir, "dsm_stability_map.png")
    model.plot_stability_map(path)
    return path
