"""Differentiated AIMD (DCC paper, §V): steady-state windows, bandwidth ratios and the
marking probability that fills a given capacity.

With AIMD(a, b) and marking probability p, the steady-state window is
``W = sqrt(a / ((1 - b) p))`` (eq. 5), so the classes share the bandwidth as
``sqrt(a_i / (1 - b_i))`` (eq. 6), and the marking probability that fills capacity C
(in units of the rate step u) solves ``sum_i N_i sqrt(a_i / (p (1 - b_i))) = C`` (eq. 7).

Eq. 5 is a mean-field balance: it sets ``E[W]^2`` for ``E[W^2]``. For the process the
scheme runs (``a`` added per slot, each frame marked independently with probability
``p``, a mark multiplying the window by ``b``), the stationary mean window is known
exactly (Ott, Kemperman and Mathis 1996; Dumas, Guillemin and Robert 2002):
``E[W] = sqrt(2a / (pi p)) * prod_{n>=1} (1 - b^(2n)) / (1 - b^(2n-1))``, whose ratios
(:func:`random_marking_ratios`) differ from eq. 6 where ``b`` is small.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Aimd:
    """An AIMD(a, b) setting: add ``a`` per slot, multiply by ``b`` on a decrease."""

    a: float
    b: float

    def __post_init__(self) -> None:
        if not (self.a > 0 and 0 <= self.b < 1):
            raise ValueError(f"AIMD({self.a}, {self.b}): need a > 0 and 0 <= b < 1")

    @property
    def weight(self) -> float:
        """``sqrt(a / (1 - b))``: the class's share, up to a common factor (eq. 6)."""
        return math.sqrt(self.a / (1 - self.b))


def steady_window(setting: Aimd, p: float) -> float:
    """The steady-state window in rate steps (eq. 5)."""
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1] (got {p})")
    return math.sqrt(setting.a / ((1 - setting.b) * p))


def _sawtooth_factor(b: float) -> float:
    """``prod_{n>=1} (1 - b^(2n)) / (1 - b^(2n-1))``: 1 at ``b = 0``, growing with ``b``."""
    factor, n = 1.0, 1
    while b ** (2 * n - 1) > 1e-15:
        factor *= (1 - b ** (2 * n)) / (1 - b ** (2 * n - 1))
        n += 1
    return factor


def random_marking_window(setting: Aimd, p: float) -> float:
    """The exact stationary mean window when each frame is marked independently with
    probability ``p``: ``sqrt(2a / (pi p))`` times the sawtooth factor of ``b``."""
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1] (got {p})")
    return math.sqrt(2 * setting.a / (math.pi * p)) * _sawtooth_factor(setting.b)


def random_marking_ratios(settings: Sequence[Aimd]) -> list[float]:
    """The bandwidth ratios of the classes, the first one as 1, from the exact mean
    windows under independent per-frame marks (the ratio does not depend on ``p``)."""
    first = random_marking_window(settings[0], 1.0)
    return [random_marking_window(s, 1.0) / first for s in settings]


def ratios(settings: Sequence[Aimd]) -> list[float]:
    """The bandwidth ratios of the classes, the first one as 1 (eq. 6)."""
    first = settings[0].weight
    return [s.weight / first for s in settings]


def marking_probability(classes: Iterable[tuple[int, Aimd]], capacity: float) -> float:
    """The p at which ``count`` sources of each setting fill ``capacity`` (in rate steps),
    from eq. 7 with equality: ``p = (sum N_i sqrt(a_i/(1-b_i)) / C)^2``."""
    total = sum(n * s.weight for n, s in classes)
    if capacity <= 0:
        raise ValueError("capacity must be > 0")
    return min(1.0, (total / capacity) ** 2)


def sampling_bytes(p: float, frame_bytes: float = 1500.0) -> float:
    """Bytes between samples for a marking probability: ``E[L] / p``."""
    return frame_bytes / p


def propose(
    targets: Sequence[float],
    reference: Aimd = Aimd(1.0, 0.5),
    step: float = 0.1,
    tolerance: float = 0.02,
) -> list[Aimd]:
    """AIMD settings giving the target ratios (first class = ``reference``), found as
    DCC Exp. 5 does: for each next class, the smallest a ≥ the previous a (on a grid of
    ``step``) for which some b ≥ the previous b, rounded to ``step``, gives the target
    within ``tolerance``; failing that, the closest such setting."""
    out = [reference]
    for target in targets[1:]:
        want = target / targets[0] * reference.weight
        prev = out[-1]
        candidates = []
        for k in range(round(5 / step) + 1):
            a = round(prev.a + k * step, 6)
            b = round(round((1 - a / want**2) / step) * step, 6)
            if prev.b <= b < 1:
                setting = Aimd(a, b)
                candidates.append((abs(setting.weight - want) / want, setting))
        if not candidates:
            raise ValueError(f"no AIMD setting reaches ratio {target}")
        close = [c for c in candidates if c[0] <= tolerance]
        out.append(close[0][1] if close else min(candidates, key=lambda c: c[0])[1])
    return out


def plot_figures(outdir: str) -> list[str]:
    """The DCC paper's Figs. 8-10 from the model: the ratio of AIMD(1, 0.5) to AIMD(a, b)
    for gentler LAN settings (Fig. 8), of AIMD(a, b) to AIMD(1, 0.5) for more aggressive
    SAN settings (Fig. 9), and the marking probability that fills a capacity (Fig. 10)."""
    import os

    import numpy as np
    from matplotlib.figure import Figure

    reference = Aimd(1.0, 0.5)
    paths = []
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    left, middle, right = fig.subplots(1, 3)
    for b in (0.1, 0.2, 0.3, 0.4, 0.5):
        a_values = np.linspace(0.1, 1.0, 46)
        left.plot(a_values, [reference.weight / Aimd(a, b).weight for a in a_values], label=f"LAN b = {b}")
    left.set_xlabel("LAN a")
    left.set_ylabel("SAN AIMD(1, 0.5) : LAN AIMD(a, b)")
    left.set_title("Fig. 8 (model)", fontsize=9)
    for b in (0.5, 0.6, 0.7, 0.8, 0.9):
        a_values = np.linspace(1.0, 2.0, 51)
        middle.plot(a_values, [Aimd(a, b).weight / reference.weight for a in a_values], label=f"SAN b = {b}")
    middle.set_xlabel("SAN a")
    middle.set_ylabel("SAN AIMD(a, b) : LAN AIMD(1, 0.5)")
    middle.set_title("Fig. 9 (model)", fontsize=9)
    capacities = np.linspace(2, 20, 91)
    for san in (Aimd(1.0, 0.5), Aimd(1.5, 0.8), Aimd(1.0, 0.8), Aimd(2.0, 0.9)):
        p = [marking_probability([(1, san), (1, reference)], c) for c in capacities]
        right.plot(capacities, p, label=f"SAN AIMD({san.a:g}, {san.b:g})")
    right.set_xlabel("capacity (rate steps u)")
    right.set_ylabel("marking probability")
    right.set_title("Fig. 10 (model): one SAN and one LAN source", fontsize=9)
    for ax in (left, middle, right):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    path = os.path.join(outdir, "dcc_model_figs8_10.png")
    fig.savefig(path, dpi=110)
    paths.append(path)
    return paths
