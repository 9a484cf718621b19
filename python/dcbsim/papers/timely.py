"""Claims of the TIMELY paper (R. Mittal et al., "TIMELY: RTT-based Congestion Control
for the Datacenter", SIGCOMM 2015), with the later analysis of its fixed points (Y. Zhu
et al., "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY", CoNEXT 2016):
the RTT held between T_low and T_high with the link busy, and rates that need not
settle equal.

Neither paper is among our sources here: the statements below are what their text says
as we recall it, each marked unverified; the tolerances are ours, from the algorithm
(below T_low the rate only grows, so the RTT climbs to T_low; above T_high it only
falls).
"""

from __future__ import annotations

import os

import numpy as np
from matplotlib.figure import Figure

from dcbsim.papers import Claim, Outcome, Runs
from dcbsim.results import Result

UNVERIFIED = "(unverified: the paper's text, its section numbers too, is not among our sources)"
LINE_GBPS = 10.0
T_LOW_US = 50.0
T_HIGH_US = 500.0
WARMUP_S = 0.030
SENDERS = (2, 4, 8)


def share(runs: Runs, n: int) -> Result:
    """N TIMELY senders into one 10 Gb/s port, each starting at its fair share."""
    return runs.get("share", (f"topology.senders={n}", f"flows[0].rate_gbps={LINE_GBPS / n}"))


def rtts(r: Result) -> np.ndarray:
    """Every flow's sampled RTT after the warm-up, µs."""
    k = r.time_s > WARMUP_S
    values = np.concatenate([f.rtt_us[k] for f in r.flows.values()])
    return values[np.isfinite(values)]


def carried_gbps(r: Result) -> float:
    """The flows' payload throughput after the warm-up, Gb/s."""
    k = r.time_s > WARMUP_S
    return float(sum(f.throughput_bps[k].mean() for f in r.flows.values()) / 1e9)


def _rtt(runs: Runs) -> Outcome:
    parts, ok = [], True
    for n in SENDERS:
        x = rtts(share(runs, n))
        peak, mean = float(x.max()), float(x.mean())
        parts.append(f"N={n}: mean {mean:.0f} µs, peak {peak:.0f} µs")
        ok &= T_LOW_US <= peak <= 1.25 * T_LOW_US and mean < T_LOW_US
    return Outcome("; ".join(parts), ok)


def _busy(runs: Runs) -> Outcome:
    totals = {n: carried_gbps(share(runs, n)) for n in SENDERS}
    return Outcome(", ".join(f"N={n}: {t:.2f} Gb/s" for n, t in totals.items()), all(t >= 0.9 * LINE_GBPS for t in totals.values()))


def _unequal(runs: Runs) -> Outcome:
    r = runs.get("unequal")
    k = r.time_s > 0.040
    fast, slow = (float(r.flows[n].throughput_bps[k].mean() / 1e9) for n in ("fast", "slow"))
    return Outcome(f"fast {fast:.2f}, slow {slow:.2f} Gb/s over 40–60 ms (ratio {fast / slow:.2f})", fast >= 1.5 * slow)


CLAIMS = [
    Claim("timely", "rtt", "§4 (Algorithm 1), §6", "N flows into one 10 Gb/s port (N = 2, 4, 8): the RTT stays far below "
          "T_high = 500 µs; the queue builds only until the RTT crosses T_low = 50 µs, where the gradient turns the rates down",
          f"low RTT, below T_high; T_low the level above which the gradient rules {UNVERIFIED}",
          "after 30 ms the sampled RTT peaks within [T_low, 1.25·T_low] and averages below T_low", _rtt),
    Claim("timely", "busy", "§6", "… with the link kept busy", f"near line rate {UNVERIFIED}",
          "the flows carry ≥ 90 % of 10 Gb/s after 30 ms", _busy),
    Claim("timely", "unequal", "Zhu et al. (CoNEXT 2016) §4", "TIMELY has no unique fixed point: two flows started at 7 and "
          "3 Gb/s keep unequal rates", f"rates stay unequal {UNVERIFIED}",
          "the faster flow ≥ 1.5× the slower over 40–60 ms", _unequal),
]


def figures(runs: Runs, outdir: str) -> list[str]:
    """RTT and throughput over time for N = 2 and 8, and the two unequal flows."""
    fig = Figure(figsize=(13, 3.4), layout="constrained")
    rtt_ax, rate_ax, unequal_ax = fig.subplots(1, 3)
    for n, ls in ((2, "-"), (8, ":")):
        r = share(runs, n)
        first = next(iter(r.flows.values()))
        rtt_ax.plot(r.time_s * 1e3, first.rtt_us, lw=0.7, ls=ls, label=f"N={n}, one flow")
        total = sum(f.throughput_bps for f in r.flows.values())
        rate_ax.plot(r.time_s * 1e3, total / 1e9, lw=0.7, ls=ls, label=f"N={n}, all flows")
    for y in (T_LOW_US, T_HIGH_US):
        rtt_ax.axhline(y, color="grey", lw=0.6, ls="--")
    rtt_ax.set_yscale("log")
    rtt_ax.set_ylabel("RTT per 16 KB completion (µs)")
    rtt_ax.set_title("RTT (T_low, T_high dashed)", fontsize=10)
    rate_ax.set_ylabel("throughput (Gb/s)")
    rate_ax.set_title("carried load", fontsize=10)
    r = runs.get("unequal")
    for name, f in r.flows.items():
        unequal_ax.plot(r.time_s * 1e3, f.throughput_bps / 1e9, lw=0.7, label=name)
    unequal_ax.set_ylabel("throughput (Gb/s)")
    unequal_ax.set_title("two flows started at 7 and 3 Gb/s", fontsize=10)
    for ax in (rtt_ax, rate_ax, unequal_ax):
        ax.set_xlabel("time (ms)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("TIMELY (SIGCOMM 2015): dcbsim", fontsize=10)
    path = os.path.join(outdir, "timely.png")
    fig.savefig(path, dpi=110)
    return [path]
