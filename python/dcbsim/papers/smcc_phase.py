"""The SMCC paper's phase plane against our runs: Theorem 2 (§3.2) for QCN in Fig. 5a's
phases, and the sliding regime of SMCC (§4.3, Fig. 7) with Fig. 15's parameter pairs.

The simulated trajectory is ``(x, y) = (q − q0, dq/dt)`` from the bottleneck queue
sampled every 1 ms (frames and frames/s, 1 KB frames); ``dq/dt`` is the central
difference of the samples. QCN's switching line is ``Fb = −(x + w·y/(pC)) = 0`` (eq. 14);
SMCC's sliding regime is ``y = 0``. The fluid models and Theorem 2 are
``dcbsim.analysis.fluid``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dcbsim.analysis.fluid import Condition, QcnFluid, frames_per_s, theorem2
from dcbsim.papers import Runs

#: Fig. 5a's set-up: 1 Gb/s in frames/s, q0 in frames, QCN's w, p, Gd and R_AI (frames/s).
CAPACITY = frames_per_s(1.0)
Q0 = 64.0
W, P, GD = 2.0, 0.01, 1 / 128
R_AI = 1e6 / (1024 * 8)
#: The band around a switching line counted as on it: a quarter of q0, in frames.
BAND = 16.0
#: SMCC's sliding band: |dq/dt| at most 2 frames per ms (1.6 % of C).
SLIDING_DQ = 2000.0


@dataclass(frozen=True)
class Phase:
    """A phase of Fig. 5a: its time span, byte counter (T's length) and background rate."""

    label: str
    start_s: float
    end_s: float
    bc_bytes: float
    background_bps: float

    def theorem2(self, x0: float) -> list[Condition]:
        """Theorem 2 at ``x0`` (frames) on the line, for the 2 sources' share of what the
        background leaves, with R(0) at that fair share and T the time to send the byte
        counter at it."""
        available = CAPACITY * (1 - self.background_bps / 1e9)
        share = available / 2
        cycle = self.bc_bytes / 1024 / share
        return theorem2(cycle, W, P, GD, available, 2, x0, share)


#: Where Theorem 2 holds for every x0 > 0 (2T < w/(pC)) and where (24) fails.
SLIDES = Phase("[6, 8] s: T = 30 KB, no background", 6.0, 8.0, 30000, 0.0)
FAILS = Phase("[2, 4] s: T = 150 KB, 500 Mb/s background", 2.0, 4.0, 150000, 500e6)


def plane(result, port: str = "sw0:r0") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, x, y)``: time (s), ``q − q0`` (frames) and ``dq/dt`` (frames/s)."""
    t = result.time_s
    q = result.ports[port].queue_bytes / 1024
    return t, q - Q0, np.gradient(q, t)


def qcn_feedback(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """QCN's ``Fb = −(x + w·y/(pC))`` (eq. 14), frames."""
    return -(x + W * y / (P * CAPACITY))


@dataclass(frozen=True)
class Reach:
    """Where a simulated trajectory first reaches QCN's switching line with x > 0, the
    share of the rest of the phase (from 0.1 s later) it spends within BAND of it, and
    the first point from there on in the decrease area (Fb < 0), where the fluid model
    starts: its R(0) is the rate when a decrease begins."""

    time_s: float
    x0: float
    y0: float
    on_line: float
    start_x: float
    start_y: float


def reach(result, phase: Phase) -> Reach:
    """The first crossing of ``Fb = 0`` with ``x > 0`` in ``phase``, and the share after it."""
    t, x, y = plane(result)
    fb = qcn_feedback(x, y)
    inside = (t > phase.start_s) & (t <= phase.end_s)
    crossing = inside & (x > 0) & (np.sign(fb) != np.sign(np.roll(fb, 1)))
    first = int(np.flatnonzero(crossing)[0]) if crossing.any() else int(np.flatnonzero(inside)[0])
    after = (t > t[first] + 0.1) & (t <= phase.end_s)
    decrease = np.flatnonzero((t >= t[first]) & (fb < 0))
    start = int(decrease[0]) if decrease.size else first
    return Reach(float(t[first]), float(x[first]), float(y[first]), float((np.abs(fb[after]) <= BAND).mean()),
                 float(x[start]), float(y[start]))


def fluid_from(start: Reach, phase: Phase, duration_s: float = 0.3) -> np.ndarray:
    """QCN's fluid model (eqs. 17, 18 and AI) from the simulated start: (t, x, y) rows."""
    share = CAPACITY * (1 - phase.background_bps / 1e9) / 2
    model = QcnFluid(2 * share, 2, W, P, GD, cycle_s=phase.bc_bytes / 1024 / share, r_ai=R_AI)
    return model.trajectory(start.start_x, start.start_y, duration_s)


def settle_time(trajectory: np.ndarray) -> float:
    """When a (t, x, y) trajectory enters ``|x| ≤ BAND`` for good (s; inf if never)."""
    outside = np.flatnonzero(np.abs(trajectory[:, 1]) > BAND)
    if outside.size == 0:
        return 0.0
    return float(trajectory[outside[-1] + 1, 0]) if outside[-1] + 1 < len(trajectory) else float("inf")


def theorem2_outcome(runs: Runs) -> tuple[str, bool]:
    """Theorem 2's conditions at the simulated x0 in both phases, the fluid model's
    prediction from the simulated start, and the simulated share on the line."""
    slides = [reach(runs.get("fig05_qcn", (), s), SLIDES) for s in runs.seeds(3)]
    fails = [reach(runs.get("fig05_qcn", (), s), FAILS) for s in runs.seeds(3)]
    x0 = float(np.median([r.x0 for r in slides]))
    holds_where_it_should = all(c.holds for c in SLIDES.theorem2(x0))
    fails_where_it_should = not all(c.holds for c in FAILS.theorem2(float(np.median([r.x0 for r in fails]))))
    predicted = fluid_from(slides[0], SLIDES)
    model, peak = settle_time(predicted), float(np.abs(predicted[:, 1]).max())
    on, off = float(np.median([r.on_line for r in slides])), float(np.median([r.on_line for r in fails]))
    ours = (f"Theorem 2 at x0 = {x0:.0f} frames: {'holds' if holds_where_it_should else 'fails'} with T = 30 KB, "
            f"{'fails' if fails_where_it_should else 'holds'} with T = 150 KB and the background; the fluid model from "
            f"the simulated start (seed 1) swings to |x| = {peak:.0f} frames and settles on the line within ±{BAND:.0f} "
            f"frames in {1e3 * model:.0f} ms; simulated, after reaching "
            f"the line: within {BAND:.0f} frames of it {100 * on:.0f} % of the time (T = 150 KB, background: {100 * off:.0f} %)")
    return ours, holds_where_it_should and fails_where_it_should and on > 0.5 and on >= 2 * off


def sliding_pairs(runs: Runs, pairs, overrides) -> dict[tuple[int, int], tuple[float, float]]:
    """Per (R_a, R_b): the share of 1 ms samples after 0.2 s with ``|dq/dt| ≤ SLIDING_DQ``
    and the share with the queue empty or full (3 seeds pooled)."""
    shares = {}
    for pair in pairs:
        band, edge = [], []
        for seed in runs.seeds(3):
            t, x, y = plane(runs.get("fig15", overrides(*pair), seed))
            after = t > 0.2
            band.append(np.abs(y[after]) <= SLIDING_DQ)
            q = x[after] + Q0
            edge.append((q <= 0) | (q >= 127))
        shares[pair] = (float(np.concatenate(band).mean()), float(np.concatenate(edge).mean()))
    return shares
