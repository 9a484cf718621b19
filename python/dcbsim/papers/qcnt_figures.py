"""Figures of the QCN-T paper's reproduction page: rate evolutions (Figs. 1, 5, 6, 12),
times to fairness of every variant and parameter study beside the paper's model
(Figs. 5-12), and the model's rates beside ours."""

from __future__ import annotations

import os

from dcbsim.analysis.qcn_convergence import VARIANTS as MODELS
from dcbsim.analysis.qcn_convergence import QcnModel
from dcbsim.papers import Runs
from dcbsim.papers.qcnt import BASE, FROM_700_300, HORIZON_S, SEEDS, T_AI, VARIANTS, WINDOW_S, convergence
from dcbsim.plot import Figure
from dcbsim.results import moving_average

#: (label, overrides of the Fig. 5 scenario, the paper's model of it or None, start).
STUDIES = [
    ("QCN (Fig. 5)", (), MODELS["QCN"], (900e6, 100e6)),
    ("QCN from (700, 300) (Fig. 6)", FROM_700_300, MODELS["QCN"], (700e6, 300e6)),
    ("G_d = 1/16 (Fig. 7)", ("scheme.gd=0.0625",), QcnModel(gd_fb=1 / 16), (900e6, 100e6)),
    ("G_d = 1/64 (Fig. 7)", ("scheme.gd=0.015625",), QcnModel(gd_fb=1 / 64), (900e6, 100e6)),
    ("G_d = 1/256 (Fig. 7)", ("scheme.gd=0.00390625",), QcnModel(gd_fb=1 / 256), (900e6, 100e6)),
    ("R_AI = 1 (Fig. 8)", ("scheme.r_ai_mbps=1",), QcnModel(r_ai_bps=1e6), (900e6, 100e6)),
    ("R_AI = 5 (Fig. 8)", VARIANTS["QCN, R_AI = 5"], MODELS["QCN, R_AI = 5"], (900e6, 100e6)),
    ("T_AI = 37.5 KB (Fig. 9)", T_AI[37.5], QcnModel(ai_fraction=0.25), (900e6, 100e6)),
    ("T_AI = 150 KB (Fig. 9)", T_AI[150], QcnModel(ai_fraction=1.0), (900e6, 100e6)),
] + [(f"{name} (Fig. {12 if name.startswith('QCN-T,') else 11 if 'AIMD' in name else 10})", VARIANTS[name],
       MODELS.get(name), (900e6, 100e6)) for name in VARIANTS if name not in ("QCN", "QCN, R_AI = 5")]


def _rates_panel(runs: Runs, ax, scenario: str, overrides, title: str) -> None:
    r = runs.get(scenario, overrides, 1)
    for f in r.flows.values():
        ax.plot(r.time_s, f.rate_bps / 1e6, lw=0.8, label=f"RP of {f.name}")
    ax.set_title(title, fontsize=9)
    ax.set_ylabel("rate (Mb/s)")
    ax.set_ylim(0, 1050)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")


def figures(runs: Runs, outdir: str) -> list[str]:
    """Rate evolutions, times to fairness beside the model, and the model's rates."""
    fig = Figure(figsize=(10, 7), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True)
    _rates_panel(runs, axes[0][0], "fig01_qcn", (), "Fig. 1: QCN from line rate")
    _rates_panel(runs, axes[0][1], BASE, (), "Fig. 5: QCN from (900, 100) Mb/s")
    _rates_panel(runs, axes[1][0], BASE, FROM_700_300, "Fig. 6: QCN from (700, 300) Mb/s")
    _rates_panel(runs, axes[1][1], BASE, VARIANTS["QCN-T, t = 2.4 ms"], "Fig. 12: QCN-T from (900, 100) Mb/s")
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.suptitle("QCN-T paper: reaction-point rates, seed 1 (dcbsim)")
    rates = os.path.join(outdir, "qcnt_rates.png")
    fig.savefig(rates, dpi=110)
    return [rates, _studies_figure(runs, outdir), _model_figure(runs, outdir)]


def _studies_figure(runs: Runs, outdir: str) -> str:
    """Time to fairness of each setting: ours (bars) and the paper's model (diamonds)."""
    fig = Figure(figsize=(8.5, 6.6), layout="constrained")
    ax = fig.add_subplot()
    names = [s[0] for s in STUDIES]
    ours = [convergence(runs, BASE, overrides) for _, overrides, _, _ in STUDIES]
    bars = ax.barh(names, ours, color="#4c72b0", label=f"dcbsim (median of {SEEDS} seeds)")
    ax.bar_label(bars, fmt="%.1f s", fontsize=8, padding=8)
    model = [(i, m.convergence_time(list(start), horizon_s=HORIZON_S)) for i, (_, _, m, start) in enumerate(STUDIES) if m]
    ax.scatter([HORIZON_S if t is None else t for _, t in model], [i for i, _ in model], marker="D", color="k", s=18,
               zorder=3, label="the paper's model (eqs. 25-28)")
    ax.axvline(HORIZON_S, color="grey", ls=":", lw=0.8)
    ax.invert_yaxis()
    ax.set_xlabel(f"time to min/max ≥ 0.9 of the rates averaged over {WINDOW_S:g} s (s); 20 = not within 20 s")
    ax.set_title("QCN-T paper, Figs. 5-12: time to fairness by setting", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    path = os.path.join(outdir, "qcnt_convergence.png")
    fig.savefig(path, dpi=110)
    return path


def _model_figure(runs: Runs, outdir: str) -> str:
    """The convergence model (eqs. 25-28) beside our simulated rates, from (900, 100)."""
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    cases = [("QCN", ()), ("QCN-Timer, T = 2.4 ms", VARIANTS["QCN-Timer, T = 2.4 ms"])]
    for ax, (name, overrides) in zip(axes, cases):
        r = runs.get(BASE, overrides, 1)
        step = float(r.time_s[1] - r.time_s[0])
        for f in r.flows.values():
            ax.plot(r.time_s, moving_average(f.rate_bps, round(WINDOW_S / step)) / 1e6, lw=0.8, alpha=0.8,
                    label=f"RP of {f.name} (simulated)")
        times, rates = MODELS[name].evolve([900e6, 100e6], HORIZON_S)
        for j in range(rates.shape[1]):
            ax.plot(times, rates[:, j] / 1e6, "k--", lw=1.2, label="model (eqs. 25-28)" if j == 0 else None)
        ax.legend(fontsize=7, loc="upper right")
        ax.set_title(f"{name}: seed 1, {WINDOW_S:g} s averages; model dashed", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("rate (Mb/s)")
    path = os.path.join(outdir, "qcnt_model_vs_sim.png")
    fig.savefig(path, dpi=110)
    return path
