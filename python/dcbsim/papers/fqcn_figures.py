"""The FQCN paper's figures, drawn from our runs: per-flow throughput against time under
QCN, AF-QCN and FQCN, each flow's weighted max-min fair share dashed, and the queue."""

from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure

from dcbsim.papers import Runs

SCHEMES = (("qcn", "QCN"), ("afqcn", "AF-QCN"), ("fqcn", "FQCN"))


def _smooth(x: np.ndarray, samples: int = 20) -> np.ndarray:
    """Moving average over ``samples`` samples (20 ms at 1 ms sampling)."""
    if x.size < samples:
        return x
    return np.convolve(x, np.ones(samples) / samples, mode="same")


def _rates(runs: Runs, scenario: str, title: str, path: str, schemes=SCHEMES, queue_port: str | None = None) -> str:
    """One panel per scheme (and a queue panel): throughput (solid) and fair share (dashed)."""
    panels = len(schemes) + (1 if queue_port else 0)
    fig = Figure(figsize=(4.2 * panels, 3.4), layout="constrained")
    axes = fig.subplots(1, panels, sharey=False)
    axes = np.atleast_1d(axes)
    for ax, (scheme, label) in zip(axes, schemes):
        r = runs.get(scenario, (f"scheme.name={scheme}",), 1)
        for f in r.flows.values():
            (line,) = ax.plot(r.time_s, _smooth(f.throughput_bps) / 1e9, lw=1.0, label=f.name)
            ax.plot(r.time_s, f.fair_share_bps / 1e9, lw=0.9, ls="--", color=line.get_color())
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("throughput, 20 ms mean (Gb/s)")
    axes[0].legend(fontsize=7, ncols=2)
    if queue_port:
        ax = axes[-1]
        for scheme, label in schemes:
            r = runs.get(scenario, (f"scheme.name={scheme}",), 1)
            ax.plot(r.time_s, r.ports[queue_port].queue_bytes / 1024, lw=0.6, label=label)
        ax.axhline(33, color="black", lw=0.8, ls=":", label="Qeq")
        ax.set_title(f"queue at {queue_port}", fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("KB")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.savefig(path, dpi=110)
    return path


def _fig07(runs: Runs, path: str) -> str:
    """Fig. 7: incast goodput against the number of servers, one line per scheme."""
    from dcbsim.papers.fqcn import FIG7_SERVERS, incast_goodput

    fig = Figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.add_subplot()
    for scheme, label in (("none", "no CC"), *SCHEMES):
        ax.plot(FIG7_SERVERS, [incast_goodput(runs, scheme, n) / 1e6 for n in FIG7_SERVERS], marker="o", ms=3, label=label)
    ax.scatter([16, 16, 16], [500, 550, 900], marker="_", s=300, color="black", zorder=3, label="paper at 16 (QCN, AF-QCN, FQCN)")
    ax.set_xlabel("servers")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_ylim(0, 1000)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("FQCN paper, Fig. 7: TCP incast, 1 Gb/s, SRU 256 KB, 64 KB buffer (2 s of blocks)", fontsize=9)
    fig.savefig(path, dpi=110)
    return path


def figures(runs: Runs, outdir: str) -> list[str]:
    """Figs. 4, 5, 6a, 6b, 7 and 8 like the paper's (seed 1)."""
    out = [
        _rates(runs, "fig04", "FQCN paper, Fig. 4: four static flows, bottleneck 10 → 1 → 10 Gb/s (dashed: fair share)",
               os.path.join(outdir, "fqcn_fig04.png"), queue_port="sw0:r0"),
        _rates(runs, "fig05_parking_lot", "FQCN paper, Fig. 5: parking lot, flows started 1 s apart (dashed: max-min share)",
               os.path.join(outdir, "fqcn_fig05.png")),
        _rates(runs, "fig06a_on_off", "FQCN paper, Fig. 6a: three static flows, ON-OFF sources of 1 and 5 Gb/s from 1 s (dashed: max-min share)",
               os.path.join(outdir, "fqcn_fig06a.png"), queue_port="sw0:r0"),
        _rates(runs, "fig06b_poisson", "FQCN paper, Fig. 6b: four static flows, Poisson-fed sources of 2, 1, 0.5, 0.25 Gb/s (dashed: max-min share)",
               os.path.join(outdir, "fqcn_fig06b.png"), queue_port="sw0:r0"),
        _rates(runs, "fig08_weights", "FQCN paper, Fig. 8: weights 4, 3, 2, 1; f0 capped at 1 Gb/s at 3 s (dashed: weighted share)",
               os.path.join(outdir, "fqcn_fig08.png")),
        _fig07(runs, os.path.join(outdir, "fqcn_fig07.png")),
    ]
    return out
