"""DSM's parameter calculator (DSM paper, eq. 31 and §V-A) and its predictor (eqs. 13–14).

The sampling period is ``T = L·8 / (p·C)``; the horizon ``m = ⌈worst loop delay / T⌉``;
the gains stay below their bounds by the factor ``h_fraction`` of ``2/T``:
``a = H/(m²+4m+2)``, ``b = H/(2m+3)``, ``c = H/2`` with ``H = h_fraction · 2/T``;
``ω = 5``. The engine computes the same when a scenario sets ``auto = true``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class DsmSettings:
    """DSM's parameters and the bounds they come from."""

    period_s: float
    m: int
    a_hz: float
    b_hz: float
    c_hz: float
    omega: float
    bound_hz: float

    def rows(self) -> list[tuple[str, str, str]]:
        """(name, value, where it comes from), for a table."""
        return [
            ("T", f"{1e6 * self.period_s:.2f} µs", "L·8 / (p·C)"),
            ("m", str(self.m), "⌈worst loop delay / T⌉"),
            ("a", f"{self.a_hz:.1f} Hz", f"H/(m²+4m+2) < {self.bound_hz / (self.m**2 + 4 * self.m + 2):.1f}"),
            ("b", f"{self.b_hz:.1f} Hz", f"H/(2m+3) < {self.bound_hz / (2 * self.m + 3):.1f}"),
            ("c", f"{self.c_hz:.1f} Hz", f"H/2 < {self.bound_hz / 2:.1f}"),
            ("ω", f"{self.omega:g}", "> m + p·max(Qv) − 1 (§V-A: 5)"),
            ("2/T", f"{self.bound_hz:.1f} Hz", "stability bound of H"),
        ]


def calculate(
    capacity_gbps: float,
    loop_delay_us: float,
    p: float = 0.01,
    frame_bytes: float = 1000.0,
    h_fraction: float = 0.8,
    omega: float = 5.0,
) -> DsmSettings:
    """DSM's parameters for a bottleneck of ``capacity_gbps`` and a worst feedback loop of
    ``loop_delay_us``."""
    if capacity_gbps <= 0 or loop_delay_us < 0 or not 0 < p <= 1 or frame_bytes <= 0 or not 0 < h_fraction < 1:
        raise ValueError("need capacity > 0, loop delay >= 0, 0 < p <= 1, frame > 0, 0 < h_fraction < 1")
    period = frame_bytes * 8 / (p * capacity_gbps * 1e9)
    m = max(1, math.ceil(loop_delay_us * 1e-6 / period - 1e-9))
    bound = 2 / period
    h = h_fraction * bound
    return DsmSettings(period, m, h / (m * m + 4 * m + 2), h / (2 * m + 3), h / 2, omega, bound)


def predict(q_f: float, q_v: float, sent: list[float], m: int, period_s: float) -> tuple[float, float]:
    """DSM's predictor (eq. 14) by its direct sums: with ``u(k−i)`` the last ``m``
    feedback values sent (``sent``, oldest first; missing ones are 0),
    ``Q̂f = Qf + m·Qv + T·Σ i·u(k−i)`` and ``Q̂v = Qv + T·Σ u(k−i)``, i = 1..m."""
    recent = list(reversed(sent[-m:])) if m else []
    s1 = sum(recent)
    s2 = sum((i + 1) * u for i, u in enumerate(recent))
    return q_f + m * q_v + period_s * s2, q_v + period_s * s1


def discrete_model(q_f0: float, q_v0: float, feedback: list[float], m: int, period_s: float) -> tuple[list[float], list[float]]:
    """The paper's discrete queue model with constant delays (eq. 10, ξ = 0):
    ``Qv(n+1) = Qv(n) + T·u(n−m)`` and ``Qf(n+1) = Qf(n) + Qv(n+1)``."""
    q_f, q_v = [q_f0], [q_v0]
    for n in range(len(feedback) + m):
        applied = feedback[n - m] if n >= m else 0.0
        q_v.append(q_v[n] + period_s * applied)
        q_f.append(q_f[n] + q_v[n + 1])
    return q_f, q_v
