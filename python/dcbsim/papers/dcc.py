"""Claims of the DCC paper (Fang, Foh, Aung, "Differentiated Congestion Management of
Data Traffic for Data Center Ethernet"), Exp. 1 (Table III): the Ethernet, ECM
and DCTCP columns. DCC comes with its own scheme."""

from __future__ import annotations

import os

import numpy as np

from dcbsim.papers import Claim, Outcome, Runs
from dcbsim.plot import Figure

SEEDS = 5
MB = 1e6


def delivered_mb(runs: Runs, scenario: str) -> dict[str, float]:
    """Median over seeds of each source's delivered MB, the total and the drops."""
    rows = []
    for seed in runs.seeds(SEEDS):
        s = runs.get(scenario, (), seed).summary
        sr1, sr2 = (s["flows"][n]["delivered_bytes"] / MB for n in ("sr1", "sr2"))
        dropped = s["ports"]["cs:es"]["dropped_bytes"] / MB
        rows.append((sr1, sr2, sr1 + sr2, dropped))
    sr1, sr2, total, dropped = np.median(np.array(rows), axis=0)
    return {"sr1": sr1, "sr2": sr2, "total": total, "dropped": dropped}


def _ethernet_total(runs: Runs) -> Outcome:
    d = delivered_mb(runs, "exp1_ethernet")
    return Outcome(f"{d['total']:.1f} MB ({d['sr1']:.1f} + {d['sr2']:.1f})",
                   abs(d["total"] - 29.8) <= 1.5 and abs(d["sr1"] - d["sr2"]) <= 0.1 * d["total"])


def _ethernet_drops(runs: Runs) -> Outcome:
    d = delivered_mb(runs, "exp1_ethernet")
    return Outcome(f"{d['dropped']:.1f} MB", abs(d["dropped"] - 22.2) <= 2.2)


def _ecm_lossless(runs: Runs) -> Outcome:
    d = delivered_mb(runs, "exp1_ecm")
    return Outcome(f"{d['dropped']:.2f} MB dropped", d["dropped"] == 0)


def _ecm_throughput(runs: Runs) -> Outcome:
    d = delivered_mb(runs, "exp1_ecm")
    return Outcome(f"{d['total']:.1f} MB ({d['sr1']:.1f} + {d['sr2']:.1f})",
                   abs(d["total"] - 29.6) <= 1.5 and abs(d["sr1"] - d["sr2"]) <= 0.1 * d["total"])


def _dctcp_column(runs: Runs) -> Outcome:
    d = delivered_mb(runs, "exp1_dctcp")
    return Outcome(f"{d['total']:.1f} MB ({d['sr1']:.1f} + {d['sr2']:.1f}), {d['dropped']:.2f} MB dropped",
                   abs(d["total"] - 29.2) <= 1.5 and abs(d["sr1"] - d["sr2"]) <= 0.1 * d["total"] and d["dropped"] == 0)


CLAIMS = [
    Claim("dcc", "exp1-ethernet-total", "Table III", "Ethernet: the two sources share the 240 Mb/s core evenly, "
          "29.8 MB in 1 s", "14.9 + 14.9 = 29.8 MB", "total ± 1.5 MB, split within 10 %", _ethernet_total),
    Claim("dcc", "exp1-ethernet-drops", "Table III", "Ethernet: about 22 MB is dropped at the core switch",
          "22.2 MB", "± 2.2 MB", _ethernet_drops, holds_here=False,
          note="Two sources offering 240 Mb/s each for 1 s send 60 MB; with 30 MB delivered, conservation "
               "leaves 30 MB to drop (ours 29.7 MB). The paper's 22.2 MB implies about 52 MB sent, so its "
               "sources must have offered less or started later than its text says."),
    Claim("dcc", "exp1-ecm-lossless", "Table III", "ECM: nothing is dropped", "0 MB", "exactly 0", _ecm_lossless),
    Claim("dcc", "exp1-ecm-throughput", "Table III", "ECM: the sources share the core evenly, 29.6 MB in all",
          "14.9 + 14.7 = 29.6 MB", "total ± 1.5 MB, split within 10 %", _ecm_throughput),
    Claim("dcc", "exp1-dctcp", "Table III", "DCTCP: the sources share the core evenly, 29.2 MB in all, nothing dropped",
          "14.6 + 14.6 = 29.2 MB, 0 dropped", "total ± 1.5 MB, split within 10 %, no drop", _dctcp_column),
]


def figures(runs: Runs, outdir: str) -> list[str]:
    """Table III as bars: delivered MB per source and dropped MB, Ethernet vs ECM."""
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.add_subplot()
    labels = ["SR1", "SR2", "total", "dropped"]
    x = np.arange(len(labels))
    paper = {"Ethernet": [14.9, 14.9, 29.8, 22.2], "ECM": [14.9, 14.7, 29.6, 0.0]}
    for i, (name, scenario) in enumerate([("Ethernet", "exp1_ethernet"), ("ECM", "exp1_ecm")]):
        d = delivered_mb(runs, scenario)
        ours = [d["sr1"], d["sr2"], d["total"], d["dropped"]]
        ax.bar(x + (i - 0.5) * 0.38, ours, 0.36, label=f"{name} (dcbsim)", color=["#4c72b0", "#dd8452"][i])
        ax.scatter(x + (i - 0.5) * 0.38, paper[name], marker="_", s=300, color="black", zorder=3,
                   label="paper" if i == 0 else None)
    ax.set_xticks(x, labels)
    ax.set_ylabel("MB in 1 s")
    ax.set_title("DCC paper, Table III (Ethernet, ECM): median of seeds; bars ours, dashes paper", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    path = os.path.join(outdir, "dcc_table3.png")
    fig.savefig(path, dpi=110)
    return [path]
