"""The QCN-T paper's convergence model (eqs. 6-28) run as a random process instead of
its expected value, with our reaction point's rules, to find out which of the model's
assumptions a packet-level run departs from.

Each replica runs rounds of one sampling period ``T_s`` (150 KB at C). An RP raises its
rate every ``K`` rounds (``QcnModel.rounds_per_increase``: C/R with the byte counter,
T_t/T_s with a timer) as our ``QcnRp`` does: CR ← (CR + TR)/2, TR += R_AI from the
sixth cycle on, which is half as long (the model starts the first halved cycle after
the fifth, eq. 19); QCN-AIMD adds R_AI to CR. A CNM cuts CR by G_d·Ψ, sets TR ← CR
(with ``hold_target``, not while no increase has come since the previous CNM, as the
standard and our RP do) and restarts the cycles. The feedback comes either

- ``"independent"`` (the model: eq. 8, assumption 5): each round each RP gets a CNM
  with Ψ = 1 with probability ``p_fb · R / C``, independently of everything else;
  ``p_fb`` starts at the model's balance and follows the replica's total rate slowly
  (``p_fb += kappa · (ΣR/C − 1)`` per round), standing in for Σ E[ΔR] = 0; or
- ``"queue"``: a fluid queue integrates ΣR − C and is sampled once a round as a QCN
  congestion point does (``Fb = −(Qoff + w·Qδ)``, Ψ quantized to 6 bits); a CNM goes to
  RP i with probability R_i / ΣR (the sampled frame's source).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dcbsim.analysis.qcn_convergence import QcnModel

#: Fast Recovery cycles (CT).
FAST_RECOVERY_CYCLES = 5


@dataclass(frozen=True)
class Feedback:
    """How the congestion point's notifications come (see the module's text)."""

    kind: str = "independent"
    kappa: float = 0.002
    """Independent feedback: how fast p_fb follows ΣR/C, per round."""
    q_eq_bytes: float = 65536.0
    w: float = 2.0
    buffer_bytes: float = 512e3


@dataclass
class Runs:
    """Rates of every replica, round after round, and the CNMs they got."""

    times: np.ndarray
    """Start of each round, s."""
    rates: np.ndarray
    """(rounds, replicas, RPs) current rates, b/s."""
    cnms: np.ndarray
    """One row per CNM: round, replica, RP."""

    def mean_time_to(self, epsilon: float) -> float | None:
        """First time (s) at which the replicas' mean rates have min/max ≥ ``epsilon``."""
        mean = self.rates.mean(axis=1)
        ok = np.flatnonzero(mean.min(axis=1) >= epsilon * mean.max(axis=1))
        return float(self.times[ok[0]]) if ok.size else None

    def mean_times(self, epsilons: Sequence[float] = (0.5, 0.8, 0.9)) -> list[float | None]:
        """:meth:`mean_time_to` for each of ``epsilons``."""
        return [self.mean_time_to(e) for e in epsilons]

    def hazard(self, edges_s: Sequence[float], start_s: float = 2.0) -> np.ndarray:
        """:func:`hazard_counts` pooled over the replicas: seen over expected per bin."""
        seen = expected = 0.0
        offset = self.times[1] / 2  # a CNM comes within its round
        for replica in range(self.rates.shape[1]):
            mine = self.cnms[self.cnms[:, 1] == replica]
            times = [self.times[mine[mine[:, 2] == rp, 0]] + offset for rp in range(self.rates.shape[2])]
            s, e = hazard_counts(times, self.times, self.rates[:, replica, :].T, edges_s, start_s)
            seen, expected = seen + s, expected + e
        return seen / np.maximum(expected, 1e-12)

    def p_fb(self) -> float:
        """CNMs per round and replica: the probability of a non-zero feedback."""
        return self.cnms.shape[0] / (self.rates.shape[0] * self.rates.shape[1])


class _Rps:
    """The reaction points of all replicas as arrays (replicas × RPs)."""

    def __init__(self, model: QcnModel, initial: np.ndarray, hold_target: bool, rng: np.random.Generator) -> None:
        self.model, self.hold, self.rng = model, hold_target, rng
        self.jitter = model.variant != "qcn_timer"  # byte cycles × U(0.85, 1.15), as bc_jitter; timers exact
        self.cr, self.tr = initial.copy(), initial.copy()
        self.stage = np.zeros(initial.shape, dtype=np.int64)
        self.left = np.ones(initial.shape)  # cycles (of K rounds) before the next increase

    def notify(self, cnm: np.ndarray, psi: np.ndarray | float) -> None:
        """Applies CNMs (a mask) carrying ``psi``."""
        reset = cnm & ~(self.hold & (self.stage == 0))
        self.tr = np.where(reset, self.cr, self.tr)
        factor = np.maximum(0.5, 1 - self.model.gd_fb * psi)
        self.cr = np.where(cnm, self.cr * factor, self.cr)
        self.stage = np.where(cnm, 0, self.stage)
        self.left = np.where(cnm, self._cycle(1.0), self.left)

    def advance(self) -> None:
        """One round: the increases whose cycles end within it."""
        if self.model.variant == "qcn_timer":
            budget = np.full(self.cr.shape, 1.0 / self.model.rounds_per_increase(0.0))
        else:  # the byte counter: K = C / R rounds
            budget = self.cr / self.model.capacity_bps
        while True:
            due = self.left <= budget
            if not due.any():
                self.left = self.left - budget
                return
            budget = np.where(due, budget - self.left, budget)
            self._increase(due)

    def _increase(self, due: np.ndarray) -> None:
        self.stage = np.where(due, self.stage + 1, self.stage)
        past_fr = self.stage > FAST_RECOVERY_CYCLES
        if self.model.variant == "qcn_aimd":
            self.cr = np.where(due, np.minimum(self.cr + self.model.r_ai_bps, self.model.capacity_bps), self.cr)
            self.left = np.where(due, self._cycle(1.0), self.left)
            return
        self.tr = np.where(due & past_fr, self.tr + self.model.r_ai_bps, self.tr)
        self.cr = np.where(due, np.minimum((self.cr + self.tr) / 2, self.model.capacity_bps), self.cr)
        self.left = np.where(due, self._cycle(np.where(past_fr, self.model.ai_fraction, 1.0)), self.left)

    def _cycle(self, cycles: np.ndarray | float) -> np.ndarray:
        """Lengths of new cycles (in K rounds), jittered for a byte counter."""
        if not self.jitter:
            return np.broadcast_to(cycles, self.cr.shape)
        return cycles * self.rng.uniform(0.85, 1.15, self.cr.shape)


def simulate(model: QcnModel, initial: Sequence[float], duration_s: float, replicas: int = 100, seed: int = 1,
             hold_target: bool = False, feedback: Feedback = Feedback()) -> Runs:
    """Runs ``replicas`` independent copies from ``initial`` rates for ``duration_s``."""
    if feedback.kind not in ("independent", "queue"):
        raise ValueError(f"feedback must be 'independent' or 'queue' (got {feedback.kind!r})")
    rng = np.random.default_rng(seed)
    c = model.capacity_bps
    start = np.tile(np.asarray(initial, dtype=float), (replicas, 1))
    rps = _Rps(model, start, hold_target, rng)
    steps = int(duration_s / model.round_s)
    rates = np.empty((steps,) + start.shape)
    p_fb = np.full(replicas, model.solve_p_fb(list(initial)) or 0.1)
    queue = np.full(replicas, feedback.q_eq_bytes)
    events = []
    for n in range(steps):
        rates[n] = rps.cr
        total = rps.cr.sum(axis=1)
        if feedback.kind == "independent":
            p_fb = np.clip(p_fb + feedback.kappa * (total / c - 1), 0.0, 1.0)
            cnm, psi = rng.random(start.shape) < p_fb[:, None] * rps.cr / c, 1.0
        else:
            old = queue
            queue = np.clip(queue + (total - c) * model.round_s / 8, 0.0, feedback.buffer_bytes)
            fb = -((queue - feedback.q_eq_bytes) + feedback.w * (queue - old))
            psi = np.minimum(63.0, np.floor(np.maximum(0.0, -fb) / ((2 * feedback.w + 1) * feedback.q_eq_bytes) * 64))
            bounds = np.cumsum(rps.cr, axis=1)[:, :-1] / total[:, None]
            sampled = (rng.random(replicas)[:, None] >= bounds).sum(axis=1)
            cnm = (psi > 0)[:, None] & (np.arange(start.shape[1]) == sampled[:, None])
            psi = psi[:, None]
        if cnm.any():
            replica, rp = np.nonzero(cnm)
            events.append(np.column_stack([np.full(replica.size, n), replica, rp]))
            rps.notify(cnm, psi)
        rps.advance()
    cnms = np.concatenate(events) if events else np.zeros((0, 3), dtype=np.int64)
    return Runs(np.arange(steps) * model.round_s, rates, cnms)


def hazard_counts(cnm_times: Sequence[np.ndarray], time_s: np.ndarray, rates: np.ndarray, edges: Sequence[float],
                  start_s: float = 0.0, window_s: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """CNMs an RP got against the time since its previous one (bins ``edges``, s), and
    how many its share of all CNMs would give: all CNMs over ``window_s`` around the time
    times R_i / ΣR. Seen over expected is 1 in every bin when the feedback is independent
    of the RP's history. ``rates``: (RPs, samples) at ``time_s``; CNMs before ``start_s``
    only open gaps. Returns (seen, expected), one value per bin."""
    step = float(time_s[1] - time_s[0])
    every = np.sort(np.concatenate(cnm_times))
    width = max(1, round(window_s / step))
    per_sample = np.histogram(every, np.append(time_s, time_s[-1] + step))[0]
    total = np.convolve(per_sample, np.ones(width) / width, "same")
    share = rates / rates.sum(axis=0)
    edges = np.asarray(edges, dtype=float)
    bins = len(edges) - 1
    seen, expected = np.zeros(bins), np.zeros(bins)
    counted = time_s >= start_s
    for i, unsorted in enumerate(cnm_times):
        times = np.sort(unsorted)
        last = np.searchsorted(times, time_s, side="right") - 1
        since = time_s - np.where(last >= 0, times[np.maximum(last, 0)], 0.0)
        b = np.digitize(since, edges) - 1
        keep = counted & (b >= 0) & (b < bins)
        expected += np.bincount(b[keep], (total * share[i])[keep], bins)
        later = np.flatnonzero(times >= start_s)
        gaps = times[later] - np.where(later > 0, times[np.maximum(later - 1, 0)], 0.0)
        g = np.digitize(gaps, edges) - 1
        seen += np.bincount(g[(g >= 0) & (g < bins)], minlength=bins)[:bins]
    return seen, expected
