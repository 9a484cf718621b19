"""Fluid models of QCN and SMCC at one bottleneck (SMCC paper §3.2 and §4.3), their
phase planes, and the checkers of Theorems 2 and 3.

State: ``x = q − q0`` (queue offset) and ``y = N·r − C`` (rate excess), queue in frames
and rates in frames/s (``frames_per_s`` converts). A sample comes every ``1/(p·C)``
seconds, so the feedback is ``Fb = −(x + w·y/(p·C))`` (eq. 14).

QCN (eqs. 15, 17, 18): where ``Fb < 0`` the rate decreases, ``ẏ = −Gd·(x + w·y/(pC))·(y + C)``;
where ``Fb ≥ 0`` it recovers towards the target rate R(0) (the rate when the last
decrease began): Fast Recovery ``ẏ = (N·R(0) − C)/(2T) − y/(2T)`` for five cycles of T,
then Active Increase ``ṙ = −r/T + R(0)/T + 2·R_AI·t/T²`` (t since AI began).

SMCC (eqs. 25–27 with a1 = N·a, a2 = 0, b1 = 0, b2 = N·b/(p·C)): where x and y have the
same sign (State A) ``ẏ = −a1·x``; otherwise (State B) ``ẏ = −b2·y``.

The integrator is a fixed-step fourth-order Runge–Kutta (the right-hand sides switch at
the lines, so a fixed small step, default 10 µs, keeps the switching honest).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


def frames_per_s(gbps: float, frame_bytes: float = 1024.0) -> float:
    """A rate in Gb/s as frames per second."""
    return gbps * 1e9 / (frame_bytes * 8)


def _rk4(f: Callable[[float, np.ndarray], np.ndarray], t: float, s: np.ndarray, h: float) -> np.ndarray:
    k1 = f(t, s)
    k2 = f(t + h / 2, s + h / 2 * k1)
    k3 = f(t + h / 2, s + h / 2 * k2)
    k4 = f(t + h, s + h * k3)
    return s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


@dataclass
class QcnFluid:
    """QCN's fluid model (SMCC paper eqs. 12–18); rates in frames/s, queue in frames."""

    capacity: float
    flows: int
    w: float = 2.0
    p: float = 0.01
    gd: float = 1 / 128
    cycle_s: float = 0.0012
    r_ai: float = 0.0
    fast_recovery_cycles: int = 5
    _target: float = field(default=0.0, init=False)
    _increase_since: float | None = field(default=None, init=False)

    def feedback(self, x: float, y: float) -> float:
        """``Fb = −(x + w·y/(p·C))`` (eq. 14)."""
        return -(x + self.w * y / (self.p * self.capacity))

    def _derivative(self, t: float, s: np.ndarray) -> np.ndarray:
        x, y = s
        c, n, cycle = self.capacity, self.flows, self.cycle_s
        if self.feedback(x, y) < 0:
            dy = -self.gd * (x + self.w * y / (self.p * c)) * (y + c)
        elif t - (self._increase_since or t) < self.fast_recovery_cycles * cycle:
            dy = (n * self._target - c) / (2 * cycle) - y / (2 * cycle)
        else:
            ai_t = t - self._increase_since - self.fast_recovery_cycles * cycle
            rate = (y + c) / n
            dy = n * (-rate / cycle + self._target / cycle + 2 * self.r_ai * ai_t / cycle**2)
        return np.array([y, dy])

    def trajectory(self, x0: float, y0: float, duration_s: float, step_s: float = 1e-5) -> np.ndarray:
        """(t, x, y) rows from (x0, y0); the queue cannot go below empty (x ≥ −q0 is
        not enforced: the model is the paper's, unbounded)."""
        self._target = (y0 + self.capacity) / self.flows
        self._increase_since = None if self.feedback(x0, y0) < 0 else 0.0
        s, t = np.array([x0, y0], dtype=float), 0.0
        rows = [(t, s[0], s[1])]
        decreasing = self.feedback(x0, y0) < 0
        for _ in range(int(duration_s / step_s)):
            s = _rk4(self._derivative, t, s, step_s)
            t += step_s
            now_decreasing = self.feedback(s[0], s[1]) < 0
            if now_decreasing and not decreasing:
                self._target = (s[1] + self.capacity) / self.flows
                self._increase_since = None
            elif decreasing and not now_decreasing:
                self._increase_since = t
            decreasing = now_decreasing
            rows.append((t, s[0], s[1]))
        return np.array(rows)


@dataclass(frozen=True)
class Condition:
    """One condition of a theorem: whether it holds, and the numbers behind it."""

    name: str
    holds: bool
    detail: str


def theorem2(cycle_s: float, w: float, p: float, gd: float, capacity: float, flows: int, x0: float, target_rate: float) -> list[Condition]:
    """Theorem 2 (SMCC paper): QCN enters the sliding mode from (x0, y0) on the switching
    line if (1) ``(2T − w/(pC))·x0 ≤ w²/(p²C²)·(N·R(0) − C)`` (ineq. 24),
    (2) ``√(Gd/(4C))·w/p < 1`` and (3) ``x0 > 0``. Rates in frames/s, x0 in frames."""
    lhs = (2 * cycle_s - w / (p * capacity)) * x0
    rhs = w**2 / (p**2 * capacity**2) * (flows * target_rate - capacity)
    spiral = math.sqrt(gd / (4 * capacity)) * w / p
    return [
        Condition("(1) inequality (24)", lhs <= rhs,
                  f"(2T − w/(pC))·x0 = {lhs:.4g} {'≤' if lhs <= rhs else '>'} w²/(p²C²)·(N·R(0) − C) = {rhs:.4g}"),
        Condition("(2) √(Gd/4C)·w/p < 1", spiral < 1, f"√(Gd/4C)·w/p = {spiral:.4g}"),
        Condition("(3) x0 > 0", x0 > 0, f"x0 = {x0:.4g} frames"),
    ]


@dataclass
class SmccFluid:
    """SMCC's fluid model: State A ``ẏ = −N·a·x``, State B ``ẏ = −(N·b/(pC))·y``."""

    capacity: float
    flows: int
    a: float
    b: float
    p: float = 0.01

    def _derivative(self, t: float, s: np.ndarray) -> np.ndarray:
        x, y = s
        if x * y > 0:
            return np.array([y, -self.flows * self.a * x])
        return np.array([y, -self.flows * self.b / (self.p * self.capacity) * y])

    def trajectory(self, x0: float, y0: float, duration_s: float, step_s: float = 1e-5) -> np.ndarray:
        """(t, x, y) rows from (x0, y0)."""
        s, t = np.array([x0, y0], dtype=float), 0.0
        rows = [(t, s[0], s[1])]
        for _ in range(int(duration_s / step_s)):
            s = _rk4(self._derivative, t, s, step_s)
            t += step_s
            rows.append((t, s[0], s[1]))
        return np.array(rows)


def theorem3(a1_min: float, b1_max: float) -> list[Condition]:
    """Theorem 3 (SMCC paper): the general two-state system (26)–(27) enters the sliding
    mode under any conditions when ``min a1 > 0`` and ``max b1 ≤ 0`` (ineq. 30)."""
    return [
        Condition("min a1 > 0", a1_min > 0, f"min a1 = {a1_min:.4g}"),
        Condition("max b1 ≤ 0", b1_max <= 0, f"max b1 = {b1_max:.4g}"),
    ]


def plot_phase_plane(path: str, capacity: float, flows: int, w: float = 2.0, p: float = 0.01,
                     smcc: tuple[float, float] | None = None, duration_s: float = 0.05) -> None:
    """QCN's (and optionally SMCC's, with (a, b)) trajectories in the (x, y) plane from a
    few starts, with QCN's switching line ``Fb = 0``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10 if smcc else 5.5, 4.2), layout="constrained")
    axes = fig.subplots(1, 2 if smcc else 1, squeeze=False)[0]
    starts = [(20.0, 0.01 * capacity), (-20.0, -0.01 * capacity), (30.0, -0.005 * capacity), (-30.0, 0.008 * capacity)]
    qcn = QcnFluid(capacity, flows, w, p, r_ai=frames_per_s(0.0005))
    reach = 0.0
    for x0, y0 in starts:
        tr = qcn.trajectory(x0, y0, duration_s)
        axes[0].plot(tr[:, 1], tr[:, 2] / capacity, lw=0.8)
        reach = max(reach, float(np.abs(tr[:, 2]).max()) / capacity)
    slope = -p * capacity / w / capacity
    xs = np.array([-1.2 * reach / abs(slope), 1.2 * reach / abs(slope)])
    axes[0].plot(xs, slope * xs, "k--", lw=1, label="switching line Fb = 0")
    # Theorem 2 region: the points (x0 > 0) of the switching line from which QCN enters
    # the sliding mode, for a target rate 5 % above the fair share.
    x_line = np.linspace(1e-3, xs[1], 200)
    ok = [all(c.holds for c in theorem2(qcn.cycle_s, w, p, qcn.gd, capacity, flows, x0, 1.05 * capacity / flows)) for x0 in x_line]
    x_ok = x_line[np.array(ok, dtype=bool)]
    if x_ok.size:
        axes[0].plot(x_ok, slope * x_ok, color="green", lw=4, alpha=0.5, label="Theorem 2 holds (R(0) = 1.05 C/N)")
    axes[0].set_ylim(-1.3 * reach, 1.3 * reach)
    axes[0].set_title(f"QCN fluid model, N = {flows}", fontsize=9)
    if smcc:
        model = SmccFluid(capacity, flows, smcc[0], smcc[1], p)
        for x0, y0 in starts:
            tr = model.trajectory(x0, y0, duration_s)
            axes[1].plot(tr[:, 1], tr[:, 2] / capacity, lw=0.8)
        axes[1].set_title(f"SMCC fluid model, a = {smcc[0]:g}, b = {smcc[1]:g}", fontsize=9)
    for ax in axes:
        ax.axhline(0, color="grey", lw=0.6)
        ax.axvline(0, color="grey", lw=0.6)
        ax.set_xlabel("x = q − q0 (frames)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("y / C = (N·r − C) / C")
    axes[0].legend(fontsize=7)
    fig.savefig(path, dpi=110)


def smcc_from_run(capacity: float, flows: int, p: float, frame_bytes: float, r_a_mbps: float = 256.0,
                  r_b_mbps: float = 64.0, span_kb: float = 64.0, delta_span_kb: float = 128.0) -> SmccFluid:
    """SMCC's fluid model for the engine's SMCC: a source moves by ``R_a/span`` per frame
    of offset (``span = max(q0, B − q0)``) and by ``R_b/delta_span`` per frame of queue
    change (``delta_span = B``) at each of its samples (``p·C/N`` per second), so
    ``a = (R_a/span)·p·C/N`` and ``b = (R_b/delta_span)·p·C/N``; rates in frames/s."""
    to_frames = 1e6 / (frame_bytes * 8)
    span = span_kb * 1024 / frame_bytes
    delta_span = delta_span_kb * 1024 / frame_bytes
    per_sample = p * capacity / flows
    return SmccFluid(capacity, flows, r_a_mbps * to_frames / span * per_sample, r_b_mbps * to_frames / delta_span * per_sample, p)


def plot_beside_simulation(path: str, result, port: str, q0_bytes: float, frame_bytes: float = 1024.0,
                           start_s: float = 0.5, duration_s: float = 0.2, r_ai_mbps: float = 1.0, p: float = 0.01,
                           byte_counter: float = 150_000) -> None:
    """A simulated run's (x, y) = (q − q0, Σ rates − C) over ``duration_s`` from
    ``start_s``, beside the QCN fluid model started from the same point (its cycle T is
    the byte counter at the fair share, its R_AI and p the run's)."""
    from matplotlib.figure import Figure

    t = result.time_s
    inside = (t >= start_s) & (t <= start_s + duration_s)
    capacity = result.ports[port].stats["capacity_bps"] / (frame_bytes * 8)
    x = (result.ports[port].queue_bytes[inside] - q0_bytes) / frame_bytes
    y = sum(f.rate_bps for f in result.flows.values())[inside] / (frame_bytes * 8) - capacity
    n = len(result.flows)
    if result.scenario.scheme == "smcc":
        model = smcc_from_run(capacity, n, p, frame_bytes)
    else:
        cycle = byte_counter / (frame_bytes * capacity / n)
        model = QcnFluid(capacity, n, p=p, cycle_s=cycle, r_ai=r_ai_mbps * 1e6 / (frame_bytes * 8))
    tr = model.trajectory(float(x[0]), float(y[0]), duration_s)
    fig = Figure(figsize=(5.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(x, y / capacity, lw=0.6, alpha=0.7, label="simulated (1 ms samples)")
    ax.plot(tr[:, 1], tr[:, 2] / capacity, "k", lw=1.2, label="fluid model from the same start")
    ax.axhline(0, color="grey", lw=0.6)
    ax.axvline(0, color="grey", lw=0.6)
    ax.set_xlabel("x = q − q0 (frames)")
    ax.set_ylabel("y / C")
    ax.set_title(f"{result.scenario.name}: phase plane, simulation and model", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.savefig(path, dpi=110)
