"""Differentiated AIMD (DCC paper, §V): steady-state windows, bandwidth ratios and the
marking probability that fills a given capacity.

With AIMD(a, b) and marking probability p, the steady-state window is
``W = sqrt(a / ((1 - b) p))`` (eq. 5), so the classes share the bandwidth as
``sqrt(a_i / (1 - b_i))`` (eq. 6), and the marking probability that fills capacity C
(in units of the rate step u) solves ``sum_i N_i sqrt(a_i / (p (1 - b_i))) = C`` (eq. 7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence


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
        for k in range(int(round(5 / step)) + 1):
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
