"""The runs behind the QCN-T page's Fig. 10 note: why our QCN-Timer at 10 ms reaches
fairness from (900, 100) Mb/s later than the paper's model (eq. 26).

``python -m dcbsim.papers.qcnt_lag`` prints the time (s) at which the mean rates reach
min/max ≥ 0.5, 0.8 and 0.9 (the model's own measure: its rates are expected values) and
the share of samples with a non-zero feedback (p[Fb>0], over the 20 s) for

- the model, eq. 26 (``dcbsim.analysis.qcn_convergence``);
- the model's assumptions run as a random process with our RP's rules
  (``dcbsim.analysis.qcn_montecarlo``, 200 replicas): the model's TR rule (TR ← CR on
  every CNM, its eq. 13) or the standard's (``hold_target``), and the model's feedback
  (an independent coin per sampling round) or a queue's;
- our simulator (24 seeds) with either TR rule;

then how often an RP gets a CNM against the time since its previous one, relative to
its share of all CNMs (1 for independent feedback), in timer periods K: the simulator
(4 seeds) against the two feedbacks of the random process.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

import dcbsim
from dcbsim.analysis import qcn_convergence, qcn_montecarlo
from dcbsim.papers import SCENARIO_DIR, qcnt

SEEDS = 24
HAZARD_SEEDS = 4
REPLICAS = 200
EPSILONS = (0.5, 0.8, 0.9)
START = (900e6, 100e6)
MODEL = qcn_convergence.VARIANTS["QCN-Timer, T = 10 ms"]
TIMER = qcnt.VARIANTS["QCN-Timer, T = 10 ms"]
MODEL_TR = ("scheme.hold_target=false",)
#: Bins of the time since an RP's previous CNM, in timer periods.
HAZARD_BINS = (0, 1, 2, 4, 6, 8, np.inf)


def _path():
    return SCENARIO_DIR / "qcnt" / f"{qcnt.BASE}.toml"


def sim_mean_times(overrides: Sequence[str], seeds: int = SEEDS, scheme: Sequence[str] = TIMER) -> tuple[list[float | None], float]:
    """Times at which the seeds' mean rates reach each ε, and p[Fb>0] (CNMs per 150 KB),
    for ``scheme`` (overrides of the Fig. 5 scenario; QCN-Timer at 10 ms) and ``overrides``."""
    rates, p_fb = [], []
    for seed in range(1, seeds + 1):
        r = dcbsim.run(dcbsim.load(_path(), [*scheme, *overrides]), seed=seed)
        rates.append([f.rate_bps for f in r.flows.values()])
        stats = r.ports["sw0:r0"].stats
        p_fb.append(stats["notifications"] / (stats["tx_bytes"] / 150_000))
    mean = np.mean(rates, axis=0)
    times = []
    for epsilon in EPSILONS:
        ok = np.flatnonzero(mean.min(axis=0) >= epsilon * mean.max(axis=0))
        times.append(float(r.time_s[ok[0]]) if ok.size else None)
    return times, float(np.mean(p_fb))


def sim_hazard(overrides: Sequence[str], seeds: int = HAZARD_SEEDS) -> np.ndarray:
    """Seen over expected CNMs per bin of :data:`HAZARD_BINS` (after 2 s), pooled over seeds."""
    edges = np.array(HAZARD_BINS) * MODEL.timer_s
    seen = expected = 0.0
    for seed in range(1, seeds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            ports = {port: os.path.join(tmp, f"{n}.pcap") for n, port in enumerate(("sw0:s0", "sw0:s1"))}
            r = dcbsim.run(dcbsim.load(_path(), [*TIMER, *overrides]), seed=seed, pcap=ports)
            times = [qcnt.cnm_log(p)[:, 0] for p in ports.values()]
        rates = np.array([f.rate_bps for f in r.flows.values()])
        s, e = qcn_montecarlo.hazard_counts(times, r.time_s, rates, edges, start_s=2.0)
        seen, expected = seen + s, expected + e
    return seen / np.maximum(expected, 1e-12)


def random_process(hold_target: bool, feedback: str) -> qcn_montecarlo.Runs:
    """The model's assumptions as a random process, with our RP's rules."""
    return qcn_montecarlo.simulate(MODEL, START, 20.0, REPLICAS, hold_target=hold_target,
                                   feedback=qcn_montecarlo.Feedback(feedback))


def _row(label: str, times: Sequence[float | None], p_fb: float | None) -> str:
    shown = ", ".join("> 20" if t is None else f"{t:.2f}" for t in times)
    return f"{label:58s} {shown:20s} {'' if p_fb is None else f'{p_fb:.3f}'}"


def main() -> None:
    """Prints the comparison (about a minute)."""
    print(f"{'QCN-Timer 10 ms from (900, 100) Mb/s: time to min/max eps':58s} {'0.5, 0.8, 0.9 (s)':20s} p[Fb>0]")
    model = [MODEL.convergence_time(list(START), e) for e in EPSILONS]
    _, rows = MODEL.evolve(list(START), 20.0)
    p_model = float(np.mean([MODEL.solve_p_fb(list(r)) for r in rows[::100]]))
    print(_row("model, eq. 26", model, p_model))
    hazards = {}
    for feedback in ("independent", "queue"):
        for hold in (False, True):
            runs = random_process(hold, feedback)
            rule = "standard's TR rule" if hold else "TR <- CR"
            print(_row(f"random process, {feedback} feedback, {rule}", runs.mean_times(EPSILONS), runs.p_fb()))
            if not hold:
                hazards[f"random process, {feedback} feedback"] = runs.hazard(np.array(HAZARD_BINS) * MODEL.timer_s)
    for label, overrides in (("simulator, TR <- CR (hold_target = false)", MODEL_TR), ("simulator (standard)", ())):
        print(_row(label, *sim_mean_times(overrides)))
        hazards[label] = sim_hazard(overrides)
    print()
    print(f"{'CNM hazard relative to share; since previous CNM (K)':58s}",
          " ".join(f"{a:g}-{b:g}" for a, b in pairwise(HAZARD_BINS)))
    for label, h in hazards.items():
        print(f"{label:58s}", " ".join(f"{x:4.2f}" for x in h))


if __name__ == "__main__":
    main()
