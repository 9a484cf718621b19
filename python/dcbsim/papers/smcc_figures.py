"""Figures of the SMCC paper's reproduction page: Fig. 5 (QCN), Scenario I (Figs. 15,
16, 18), the parking lot (Figs. 20-21), many-to-one (Fig. 23) and the phase plane
(§3.2 and §4.3: Figs. 4, 6 and 7 beside our trajectories)."""

from __future__ import annotations

import os

import numpy as np

from dcbsim.analysis.fluid import smcc_from_run
from dcbsim.papers import Runs
from dcbsim.papers import smcc_phase as phase
from dcbsim.papers.smcc import FINITE, M2O, M2O_PORT, PAIRS, SEEDS, pair
from dcbsim.plot import Figure


def _scenario_one_figure(runs: Runs, outdir: str) -> str:
    """Figs. 15, 16 and 18 of our runs."""
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    left, middle, right = fig.subplots(1, 3)
    for ra, rb in PAIRS:
        r = runs.get("fig15", pair(ra, rb), 1)
        left.plot(r.time_s, r.ports["sw0:r0"].queue_bytes / 1024, lw=0.6, label=f"R_a={ra}, R_b={rb}")
    left.set_title("Fig. 15: SMCC queue, 3 sources", fontsize=9)
    left.set_xlabel("time (s)")
    left.set_ylabel("queue (KB)")
    for scheme in ("smcc", "qcn"):
        q = np.sort(np.concatenate([runs.get("fig15", (f"scheme.name={scheme}",), s).ports["sw0:r0"].queue_bytes for s in runs.seeds(10)])) / 1024
        middle.step(q, np.arange(1, q.size + 1) / q.size, where="post", label=scheme.upper())
    middle.set_title("Fig. 16: queue CDF, 10 runs", fontsize=9)
    middle.set_xlabel("queue (KB)")
    for g in (500, 750, 875):
        r = runs.get("fig18", (f"flows[1].rate_mbps={g}",), 1)
        right.plot(r.time_s, r.ports["sw0:r0"].queue_bytes / 1024, lw=0.5, label=f"G = {g}")
    right.set_title("Fig. 18: SMCC queue, background G from 2 s", fontsize=9)
    right.set_xlabel("time (s)")
    for ax in (left, middle, right):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    path = os.path.join(outdir, "smcc_scenario1.png")
    fig.savefig(path, dpi=110)
    return path


def _parking_figure(runs: Runs, outdir: str) -> str:
    """Figs. 20-21: both bottleneck queues under SMCC and QCN, pattern I, seed 1."""
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, scheme in zip(axes, ("smcc", "qcn")):
        r = runs.get("fig20_parking_lot", (f"scheme.name={scheme}",), 1)
        for port in ("c1:c2", "c2:c3"):
            ax.plot(r.time_s, r.ports[port].queue_bytes / 1024, lw=0.5, label=port)
        ax.set_title(f"Figs. 20-21, pattern I: {scheme.upper()}", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("queue (KB)")
    path = os.path.join(outdir, "smcc_parking_lot.png")
    fig.savefig(path, dpi=110)
    return path


def _m2o_figure(runs: Runs, outdir: str) -> str:
    """Fig. 23: the bottleneck queue (tor0 towards h0_0), long-lived and finite flows, seed 1."""
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (label, extra) in zip(axes, [("long-lived flows", ()), ("sizes U[10 kb, 500 Mb]", FINITE)]):
        for scheme in ("smcc", "qcn"):
            r = runs.get(M2O, extra + (f"scheme.name={scheme}",), 1)
            ax.plot(r.time_s, r.ports[M2O_PORT].queue_bytes / 1024, lw=0.5, label=scheme.upper())
        ax.set_title(f"Fig. 23, many-to-one: {label}", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel(f"queue {M2O_PORT} (KB)")
    path = os.path.join(outdir, "smcc_many_to_one.png")
    fig.savefig(path, dpi=110)
    return path


def figures(runs: Runs, outdir: str) -> list[str]:
    """Fig. 5a (queue vs time) and 5b (queue CDF over the seeds), then Figs. 15-18."""
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[2.2, 1])
    r = runs.get("fig05_qcn", (), 1)
    left.plot(r.time_s, r.ports["sw0:r0"].queue_bytes / 1024, lw=0.5)
    for x in (2, 4, 6):
        left.axvline(x, color="grey", ls=":", lw=0.8)
    left.set_xlabel("time (s)")
    left.set_ylabel("queue (KB)")
    left.set_title("Fig. 5a: QCN queue, seed 1 (background 2–6 s, BC 30 KB from 4 s)", fontsize=9)
    q = np.sort(np.concatenate([runs.get("fig05_qcn", (), s).ports["sw0:r0"].queue_bytes for s in runs.seeds(SEEDS)])) / 1024
    right.step(q, np.arange(1, q.size + 1) / q.size, where="post")
    right.set_xlabel("queue (KB)")
    right.set_ylabel("CDF")
    right.set_title("Fig. 5b: queue CDF, all seeds", fontsize=9)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    path = os.path.join(outdir, "smcc_fig05.png")
    fig.savefig(path, dpi=110)
    return [path, _scenario_one_figure(runs, outdir), _phase_plane_figure(runs, outdir), _parking_figure(runs, outdir),
            _m2o_figure(runs, outdir)]


def _qcn_panel(ax, runs: Runs) -> None:
    """QCN after 6 s of Fig. 5a (seed 1): the simulated trajectory, the switching line
    Fb = 0 and the fluid model from where the trajectory first reaches it."""
    t, x, y = phase.plane(runs.get("fig05_qcn", (), 1))
    start = phase.reach(runs.get("fig05_qcn", (), 1), phase.SLIDES)
    inside = (t >= 6.0) & (t <= 6.6)
    ax.plot(x[inside], y[inside] / phase.CAPACITY, lw=0.6, alpha=0.8, label="simulated, 6.0–6.6 s (1 ms samples)")
    model = phase.fluid_from(start, phase.SLIDES)
    ax.plot(model[:, 1], model[:, 2] / phase.CAPACITY, "k", lw=1.2, label="fluid model (from the first Fb < 0 after it)")
    ax.plot([start.x0], [start.y0 / phase.CAPACITY], "ro", ms=4, label=f"first reach, {start.time_s:.3f} s")
    xs = np.array([-64.0, 64.0])
    ax.plot(xs, -phase.P * xs / phase.W, "g--", lw=1, label="switching line Fb = 0")
    ax.set_title("QCN, Fig. 5a after 6 s (T = 30 KB): Theorem 2 holds", fontsize=9)


def _smcc_panel(ax, runs: Runs) -> None:
    """SMCC in Fig. 15 with (R_a, R_b) = (256, 64), seed 1: the simulated trajectory,
    the sliding regime y = 0 and the fluid model from the simulated state at 20 ms."""
    r = runs.get("fig15", pair(256, 64), 1)
    t, x, y = phase.plane(r)
    inside = (t >= 0.02) & (t <= 0.3)
    ax.plot(x[inside], y[inside] / phase.CAPACITY, lw=0.6, alpha=0.8, label="simulated, 0.02–0.3 s")
    first = int(np.flatnonzero(inside)[0])
    model = smcc_from_run(phase.CAPACITY, 3, phase.P, 1024.0).trajectory(float(x[first]), float(y[first]), 0.28)
    ax.plot(model[:, 1], model[:, 2] / phase.CAPACITY, "k", lw=1.2, label="fluid model from 20 ms")
    ax.axhline(0, color="g", ls="--", lw=1, label="sliding regime y = 0")
    ax.set_title("SMCC, Fig. 15, (R_a, R_b) = (256, 64)", fontsize=9)


def _phase_plane_figure(runs: Runs, outdir: str) -> str:
    """§3.2 and §4.3: simulated (q − q0, dq/dt) beside the fluid models and the lines."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    _qcn_panel(left, runs)
    _smcc_panel(right, runs)
    for ax in (left, right):
        ax.axvline(0, color="grey", lw=0.6)
        ax.set_xlabel("x = q − q0 (frames of 1 KB)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    left.set_ylabel("y / C = (dq/dt) / C")
    path = os.path.join(outdir, "smcc_phase_plane.png")
    fig.savefig(path, dpi=110)
    return path
