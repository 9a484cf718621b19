"""The DCC paper's tables and figures, drawn from our runs: Table III (bars), Fig. 6 and
Fig. 7 (the core's buffer), Fig. 8 (ratios against eq. 6), Fig. 11 (sampling) and
Table VIII (the case study's ratios)."""

from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure

from dcbsim.analysis import dcc as model
from dcbsim.papers import Runs
from dcbsim.papers.dcc_runs import (
    CORE,
    EXP4_BYTES,
    EXP5_SETTINGS,
    EXP5_TARGET,
    FIG8_GRID,
    T_EQ,
    T_SC,
    delivered_mb,
    exp5_ratios,
    ratio,
)

TABLE3 = (("Ethernet", "exp1_ethernet", [14.9, 14.9, 29.8, 22.2]), ("ECM", "exp1_ecm", [14.9, 14.7, 29.6, 0.0]),
          ("DCC1", "exp1_dcc1", [15.0, 14.8, 29.8, 0.0]), ("DCC2", "exp1_dcc2", [20.1, 9.8, 29.9, 0.0]))



def _save_bars(fig: Figure, ax, path: str) -> str:
    """Legend and horizontal grid on a bar chart, then the file."""
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    fig.savefig(path, dpi=110)
    return path

def _thresholds(ax) -> None:
    ax.axhline(T_EQ / 1e3, color="black", lw=0.8, ls=":")
    ax.axhline(T_SC / 1e3, color="black", lw=0.8, ls="--")


def _table3(runs: Runs, path: str) -> str:
    fig = Figure(figsize=(8, 3.8), layout="constrained")
    ax = fig.add_subplot()
    labels = ["SR1", "SR2", "total", "dropped"]
    x = np.arange(len(labels))
    width = 0.8 / len(TABLE3)
    for i, (name, scenario, paper) in enumerate(TABLE3):
        d = delivered_mb(runs, scenario)
        at = x + (i - (len(TABLE3) - 1) / 2) * width
        ax.bar(at, [d["sr1"], d["sr2"], d["total"], d["dropped"]], width * 0.95, label=name)
        ax.scatter(at, paper, marker="_", s=200, color="black", zorder=3, label="paper" if i == 0 else None)
    ax.set_xticks(x, labels)
    ax.set_ylabel("MB in 1 s")
    ax.set_title("DCC paper, Table III: median of seeds; bars ours, dashes the paper's", fontsize=9)
    return _save_bars(fig, ax, path)


def _buffers(runs: Runs, path: str) -> str:
    """Fig. 6 (ECM, DCC1, DCC2) and Fig. 7 (Exp. 2): the core's buffer, seed 1."""
    fig = Figure(figsize=(11, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2)
    for name, scenario, port in (("ECM", "exp1_ecm", "cs:es"), ("DCC1", "exp1_dcc1", CORE), ("DCC2", "exp1_dcc2", CORE)):
        r = runs.get(scenario)
        left.plot(r.time_s, r.ports[port].queue_bytes / 1e3, lw=0.7, label=name)
    left.set_title("Fig. 6: core buffer, Exp. 1", fontsize=10)
    r = runs.get("exp2_misbehaving")
    right.plot(r.time_s, r.ports[CORE].queue_bytes / 1e3, lw=0.7, color="#c44e52")
    right.set_title("Fig. 7: core buffer, misbehaving LAN source (Exp. 2)", fontsize=10)
    for ax in (left, right):
        _thresholds(ax)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue (KB); T_eq dotted, T_sc dashed")
        ax.grid(alpha=0.3)
    left.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    return path


def _fig8(runs: Runs, path: str) -> str:
    fig = Figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.add_subplot()
    san = model.Aimd(1.0, 0.5)
    for b in sorted({s.b for s in FIG8_GRID}):
        lans = [s for s in FIG8_GRID if s.b == b]
        a = [s.a for s in lans]
        (line,) = ax.plot(a, [model.ratios([s, san])[1] for s in lans], lw=1.0, label=f"eq. 6, b = {b:g}")
        ax.plot(a, [ratio(runs, san, s) for s in lans], "o", color=line.get_color(), label=f"dcbsim, b = {b:g}")
    ax.set_xlabel("LAN a (LAN AIMD(a, b); SAN AIMD(1, 0.5))")
    ax.set_ylabel("SAN : LAN bandwidth ratio")
    ax.set_title("DCC paper, Fig. 8: simulated ratios (dots) and eq. 6 (lines)", fontsize=9)
    ax.legend(fontsize=7, ncols=2)
    ax.grid(alpha=0.3)
    fig.savefig(path, dpi=110)
    return path


def _fig11(runs: Runs, path: str) -> str:
    fig = Figure(figsize=(11, 5), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True, sharey=True).ravel()
    for ax, b in zip(axes, EXP4_BYTES):
        r = runs.get("exp4_sampling", (f"scheme.sample_bytes={b}",))
        ax.plot(r.time_s, r.ports[CORE].queue_bytes / 1e3, lw=0.7)
        _thresholds(ax)
        ax.set_title(f"sampling every {b} B (p ≈ {1500 / b:.2f})", fontsize=10)
        ax.grid(alpha=0.3)
    for ax in axes[2:]:
        ax.set_xlabel("time (s)")
    for ax in axes[::2]:
        ax.set_ylabel("core queue (KB)")
    fig.suptitle("DCC paper, Fig. 11: the core's buffer against the sampling rate (seed 1)", fontsize=10)
    fig.savefig(path, dpi=110)
    return path


def _table8(runs: Runs, path: str) -> str:
    fig = Figure(figsize=(7, 3.6), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(EXP5_SETTINGS))
    for j, (name, color) in enumerate((("SAN", "#4c72b0"), ("IPC", "#dd8452"))):
        ours = [exp5_ratios(runs, k)[j + 1] for k in range(len(EXP5_SETTINGS))]
        paper = [s[1][j] for s in EXP5_SETTINGS]
        ax.bar(x + (j - 0.5) * 0.38, ours, 0.36, color=color, label=f"{name} (dcbsim)")
        ax.scatter(x + (j - 0.5) * 0.38, paper, marker="_", s=300, color="black", zorder=3, label="paper" if j == 0 else None)
        ax.axhline(EXP5_TARGET[j + 1], color=color, lw=0.8, ls=":")
    ax.set_xticks(x, [f"setting {k + 1}" for k in x])
    ax.set_ylabel("bandwidth over LAN's")
    ax.set_title("DCC paper, Table VIII: LAN : SAN : IPC (target dotted, 1 : 1.4 : 1.8)", fontsize=9)
    return _save_bars(fig, ax, path)


def figures(runs: Runs, outdir: str) -> list[str]:
    """Table III, Figs. 6-8 and 11, Table VIII."""
    out = os.path.join
    return [
        _table3(runs, out(outdir, "dcc_table3.png")),
        _buffers(runs, out(outdir, "dcc_fig06_fig07.png")),
        _fig8(runs, out(outdir, "dcc_fig08.png")),
        _fig11(runs, out(outdir, "dcc_fig11.png")),
        _table8(runs, out(outdir, "dcc_table8.png")),
    ]
