"""Claims of the DCQCN paper (Y. Zhu et al., "Congestion Control for Large-Scale RDMA
Deployments", SIGCOMM 2015): fairness and queue of 2 to 8 flows at 40 Gb/s over PFC,
PFC's unfairness without DCQCN, and PFC's congestion spreading.

The paper's figures are not among our sources here: its numbers below are the
qualitative results of its §2 and §6 as we recall them, and each is marked so.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import dcbsim
from dcbsim import shipped
from dcbsim.papers import Claim, Outcome, Runs
from dcbsim.results import Result

WARMUP_S = 0.01
LINE_GBPS = 40.0
K_MAX_KB = 200.0
FLOWS = (2, 4, 8)
EXAMPLES = shipped.folder() / "examples"
SPREADING = EXAMPLES / "pfc_congestion_spreading.toml"
LEAF_SPINE = EXAMPLES / "leaf_spine_spreading.toml"
#: The uplinks of the leaves that do not host the incast's receiver.
UPLINKS = ["leaf1:spine0", "leaf1:spine1", "leaf2:spine0", "leaf2:spine1"]
RECALLED = "(recalled from the paper, not checked against it here)"

START_NOTE = (
    "Every flow starts at line rate at t = 0, so the first microseconds overload the port, the queue passes "
    "K_max (every frame marked) and, with α = 1, CNPs every 50 µs cut the flows towards r_min; they then "
    "recover through fast recovery and hyper increase, in step, for 8 (N = 8) to 21 ms (N = 2) — the ramps "
    "in the figure. The totals are measured after 10 ms, so N = 2 includes part of its ramp (38.2 Gb/s)."
)


def incast(runs: Runs, n: int) -> Result:
    """N DCQCN flows at 40 Gb/s into one port, over PFC."""
    return runs.get("incast", (f"topology.senders={n}",))


def gbps(r: Result, name: str) -> float:
    """A flow's mean throughput after the warm-up, Gb/s."""
    f = r.flows[name]
    return float(f.throughput_bps[r.time_s > WARMUP_S].mean() / 1e9)


def jain(x: list[float]) -> float:
    """Jain's fairness index."""
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def _fair(runs: Runs) -> Outcome:
    parts, ok = [], True
    for n in FLOWS:
        t = [gbps(incast(runs, n), k) for k in incast(runs, n).flows]
        parts.append(f"N={n}: {min(t):.1f}–{max(t):.1f} Gb/s, Jain {jain(t):.3f}")
        ok &= jain(t) >= 0.95
    return Outcome("; ".join(parts), ok)


def _utilization(runs: Runs) -> Outcome:
    sums = {n: sum(gbps(incast(runs, n), k) for k in incast(runs, n).flows) for n in FLOWS}
    return Outcome(", ".join(f"N={n}: {s:.1f} Gb/s" for n, s in sums.items()), all(s >= 0.95 * LINE_GBPS for s in sums.values()))


def queue_kb(r: Result) -> np.ndarray:
    """The bottleneck's sampled queue after the warm-up, KB."""
    return r.ports["sw0:r0"].queue_bytes[r.time_s > WARMUP_S] / 1024


def _queue(runs: Runs) -> Outcome:
    means = {n: float(queue_kb(incast(runs, n)).mean()) for n in FLOWS}
    drops = sum(incast(runs, n).ports["sw0:r0"].stats["dropped_frames"] for n in FLOWS)
    ok = all(m <= K_MAX_KB / 2 for m in means.values()) and drops == 0
    return Outcome(", ".join(f"N={n}: {m:.0f} KB" for n, m in means.items()) + f"; {drops} drops", ok)


def unfairness(runs: Runs, scheme: str) -> dict[str, float]:
    """Throughput of H1–H4 in the unfairness scenario, Gb/s."""
    r = runs.get("unfairness", (f"scheme.name={scheme}",))
    return {k: gbps(r, k) for k in r.flows}


def _pfc_unfair(runs: Runs) -> Outcome:
    t = unfairness(runs, "none")
    ok = abs(t["h4"] / LINE_GBPS - 0.5) <= 0.05 and all(abs(t[h] / LINE_GBPS - 1 / 6) <= 0.025 for h in ("h1", "h2", "h3"))
    return Outcome(", ".join(f"{k} {v:.1f}" for k, v in t.items()) + " Gb/s", ok)


def _dcqcn_fair(runs: Runs) -> Outcome:
    t = unfairness(runs, "dcqcn")
    ok = all(abs(v / (LINE_GBPS / 4) - 1) <= 0.2 for v in t.values()) and jain(list(t.values())) >= 0.98
    return Outcome(", ".join(f"{k} {v:.1f}" for k, v in t.items()) + f" Gb/s, Jain {jain(list(t.values())):.3f}", ok)


def spreading(runs: Runs, scheme: str, example: Path = SPREADING) -> Result:
    """The congestion-spreading example under ``scheme`` (cached with the paper's runs)."""
    key = (f"example:{example.stem}", (scheme,), 1)
    if key not in runs.cache:
        runs.cache[key] = dcbsim.run(dcbsim.load(example, [f"scheme.name={scheme}"]), seed=1)
    return runs.cache[key]


def uplinks_paused(r: Result) -> float:
    """The largest fraction of the run any uplink of leaves 1 and 2 was paused."""
    s = r.pfc_summary()
    return max(s.get(p, {}).get("paused_fraction", 0.0) for p in UPLINKS)


def _leaf_spine(runs: Runs) -> Outcome:
    pfc, dcqcn = spreading(runs, "none", LEAF_SPINE), spreading(runs, "dcqcn", LEAF_SPINE)
    slowest = [min(gbps(r, k) for k in r.flows if k.startswith("innocent")) for r in (pfc, dcqcn)]
    paused = (uplinks_paused(pfc), uplinks_paused(dcqcn))
    ok = paused[0] >= 0.5 and paused[1] <= paused[0] / 10 and slowest[0] <= 5.0 and slowest[1] >= 9.0
    return Outcome(f"uplink paused {100 * paused[0]:.0f} % → {100 * paused[1]:.1f} %; slowest innocent flow "
                   f"{slowest[0]:.2f} → {slowest[1]:.2f} Gb/s", ok)


def trunk_paused(r: Result) -> float:
    """Fraction of the run the trunk left→right was paused."""
    return r.pfc_summary().get("left:right", {}).get("paused_fraction", 0.0)


def _spreading(runs: Runs) -> Outcome:
    pfc, dcqcn = spreading(runs, "none"), spreading(runs, "dcqcn")
    innocent = (gbps(pfc, "innocent"), gbps(dcqcn, "innocent"))
    paused = (trunk_paused(pfc), trunk_paused(dcqcn))
    ok = paused[0] >= 0.5 and paused[1] <= paused[0] / 10 and innocent[1] >= 2 * innocent[0]
    return Outcome(f"trunk paused {100 * paused[0]:.0f} % → {100 * paused[1]:.1f} %; innocent flow {innocent[0]:.2f} → {innocent[1]:.2f} Gb/s", ok)


CLAIMS = [
    Claim("dcqcn", "fair", "§6 testbed", "DCQCN flows into one 40 Gb/s port share it fairly (N = 2, 4, 8)",
          f"equal shares {RECALLED}", "Jain's index ≥ 0.95 over 10–60 ms", _fair),
    Claim("dcqcn", "utilization", "§6 testbed", "… and keep it busy",
          f"line rate {RECALLED}", "total ≥ 95 % of 40 Gb/s after 10 ms", _utilization, note=START_NOTE),
    Claim("dcqcn", "queue", "§5–6", "The queue stays short (marking from K_min = 5 KB, P_max = 1 % at K_max = 200 KB), with no loss",
          f"well below K_max {RECALLED}", "mean queue ≤ K_max/2 = 100 KB, no drop", _queue),
    Claim("dcqcn", "pfc-unfair", "§2, unfairness", "PFC alone pauses ports, not flows: H4, alone on its ingress port, "
          "gets half the bottleneck, H1–H3 behind one upstream switch a sixth each",
          f"H4 ≈ 20, H1–H3 ≈ 6.7 Gb/s {RECALLED}", "H4 within 5 % of line rate of 1/2; H1–H3 within 2.5 % of 1/6", _pfc_unfair),
    Claim("dcqcn", "dcqcn-fair", "§2, §6", "With DCQCN the four flows get a quarter each",
          f"≈ 10 Gb/s each {RECALLED}", "each within 20 % of 10 Gb/s, Jain ≥ 0.98", _dcqcn_fair),
    Claim("dcqcn", "spreading", "§2, congestion spreading", "An incast makes PFC pause an upstream trunk and the innocent flow "
          "sharing it; with DCQCN the pauses fall", f"pauses spread upstream; DCQCN removes most {RECALLED}",
          "trunk paused ≥ 50 % of the run with PFC alone, ≥ 10× less with DCQCN; innocent flow ≥ 2× faster", _spreading),
    Claim("dcqcn", "leaf-spine", "§2, congestion spreading in a Clos fabric", "On a leaf-spine (3 leaves, 2 spines, ECMP), a 6:1 "
          "incast under leaf 0 makes PFC pause the spines, and the spines the uplinks of leaves 1 and 2: a flow between "
          "leaves 1 and 2, which never crosses leaf 0, is slowed; with DCQCN the pauses fall",
          f"pauses spread across the fabric; DCQCN removes most {RECALLED}",
          "an uplink of leaf 1 or 2 paused ≥ 50 % with PFC alone, ≥ 10× less with DCQCN; the slowest innocent flow "
          "≤ 5 Gb/s with PFC alone, ≥ 9 Gb/s with DCQCN", _leaf_spine),
]


def figures(runs: Runs, outdir: str) -> list[str]:
    """Throughput of N = 2 and 8 flows over time, H1–H4 under PFC alone and DCQCN, and
    the congestion-spreading example (paused time per port under none, QCN, DCQCN)."""
    fig = Figure(figsize=(13, 3.6), layout="constrained")
    axes = fig.subplots(1, 3)
    for n, ls in ((2, "-"), (8, ":")):
        r = incast(runs, n)
        for i, (k, f) in enumerate(list(r.flows.items())[:n]):
            axes[0].plot(r.time_s * 1e3, f.throughput_bps / 1e9, lw=0.8, ls=ls, color=f"C{i}", label=f"N={n}: {k}")
    axes[0].set_title("DCQCN, N flows into one 40 Gb/s port", fontsize=10)
    axes[0].set_xlabel("time (ms)")
    axes[0].set_ylabel("throughput (Gb/s, 100 µs samples)")
    axes[0].legend(fontsize=6, ncols=2, title="flow (solid N=2, dotted N=8)", title_fontsize=6)
    ax = axes[1]
    hosts = ["h1", "h2", "h3", "h4"]
    for i, scheme in enumerate(("none", "dcqcn")):
        t = unfairness(runs, scheme)
        ax.bar(np.arange(4) + 0.4 * i - 0.2, [t[h] for h in hosts], 0.4, label="PFC alone" if scheme == "none" else "PFC + DCQCN")
    ax.set_xticks(range(4), hosts)
    ax.set_ylabel("Gb/s")
    ax.set_title("unfairness: H1–H3 behind T1, H4 on T2", fontsize=10)
    ax.legend(fontsize=8)
    ax = axes[2]
    schemes = ("none", "qcn", "dcqcn")
    ports = ["a0:left", "left:right", "b1:right"]
    for i, scheme in enumerate(schemes):
        s = spreading(runs, scheme).pfc_summary()
        ax.bar(np.arange(len(ports)) + 0.27 * (i - 1), [100 * s.get(p, {}).get("paused_fraction", 0.0) for p in ports], 0.27,
               label=f"{'PFC alone' if scheme == 'none' else scheme.upper()}: innocent {gbps(spreading(runs, scheme), 'innocent'):.1f} Gb/s")
    ax.set_xticks(range(len(ports)), ports)
    ax.set_ylabel("time paused (% of run)")
    ax.set_title("congestion spreading (example scenario)", fontsize=10)
    ax.legend(fontsize=7)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.suptitle("DCQCN paper (SIGCOMM 2015) §2 and §6: dcbsim", fontsize=10)
    path = os.path.join(outdir, "dcqcn.png")
    fig.savefig(path, dpi=110)
    return [path, spreading_figure(runs, os.path.join(outdir, "dcqcn_spreading.png")),
            leaf_spine_figure(runs, os.path.join(outdir, "dcqcn_leaf_spine.png"))]


def spreading_figure(runs: Runs, path: str) -> str:
    """The congestion-spreading example: the innocent flow's throughput over time under
    PFC alone, QCN and DCQCN (also the figure of ``python/dcbsim/scenarios/examples/``)."""
    fig = Figure(figsize=(7, 3.4), layout="constrained")
    ax = fig.add_subplot()
    for scheme in ("none", "qcn", "dcqcn"):
        r = spreading(runs, scheme)
        label = f"{'PFC alone' if scheme == 'none' else 'PFC + ' + scheme.upper()} (trunk paused {100 * trunk_paused(r):.0f} %)"
        ax.plot(r.time_s * 1e3, r.flows["innocent"].throughput_bps / 1e9, lw=0.9, label=label)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("innocent flow (Gb/s)")
    ax.set_title("PFC congestion spreading: an 8:1 incast and an innocent flow sharing the trunk", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    return path


def leaf_spine_figure(runs: Runs, path: str) -> str:
    """The leaf-spine example: time each uplink of leaves 1 and 2 was paused, and the
    innocent flows' throughput, under PFC alone, QCN and DCQCN (also the figure of
    ``python/dcbsim/scenarios/examples/``)."""
    fig = Figure(figsize=(11, 3.4), layout="constrained")
    bars, lines = fig.subplots(1, 2)
    for i, scheme in enumerate(("none", "qcn", "dcqcn")):
        r = spreading(runs, scheme, LEAF_SPINE)
        s = r.pfc_summary()
        name = "PFC alone" if scheme == "none" else "PFC + " + scheme.upper()
        paused = [100 * s.get(p, {}).get("paused_fraction", 0.0) for p in UPLINKS]
        bars.bar(np.arange(len(UPLINKS)) + 0.27 * (i - 1), paused, 0.27, label=name)
        for k, ls in (("innocent0", "-"), ("innocent1", ":")):
            f = r.flows[k]
            lines.plot(r.time_s * 1e3, f.throughput_bps / 1e9, lw=0.9, ls=ls, color=f"C{i}",
                       label=f"{name}, {f.stats['src']}→{f.stats['dst']}")
    bars.set_xticks(range(len(UPLINKS)), UPLINKS)
    bars.set_ylabel("time paused (% of run)")
    bars.set_title("uplinks of the leaves without the incast", fontsize=10)
    bars.legend(fontsize=8)
    lines.set_xlabel("time (ms)")
    lines.set_ylabel("innocent flows (Gb/s)")
    lines.set_title("flows between leaves 1 and 2 (never through leaf 0)", fontsize=10)
    lines.legend(fontsize=7, ncol=2)
    for ax in (bars, lines):
        ax.grid(alpha=0.3)
    fig.suptitle("PFC congestion spreading on a leaf-spine: a 6:1 incast under leaf 0", fontsize=10)
    fig.savefig(path, dpi=110)
    return path
