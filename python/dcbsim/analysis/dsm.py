"""DSM's parameter calculator (DSM paper, eq. 31 and §V-A) and its predictor (eqs. 13–14).

The sampling period is ``T = L·8 / (p·C)``; the horizon ``m = ⌈worst loop delay / T⌉``;
the gains stay below their bounds by the factor ``h_fraction`` of ``2/T``:
``a = H/(m²+4m+2)``, ``b = H/(2m+3)``, ``c = H/2`` with ``H = h_fraction · 2/T``;
``ω = 5``. The engine computes the same when a scenario sets ``auto = true``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
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
    c_rule: str = "fast"

    def rows(self) -> list[tuple[str, str, str]]:
        """(name, value, where it comes from), for a table."""
        return [
            ("T", f"{1e6 * self.period_s:.2f} µs", "L·8 / (p·C)"),
            ("m", str(self.m), "⌈worst loop delay / T⌉"),
            ("a", f"{self.a_hz:.1f} Hz", f"H/(m²+4m+2) < {self.bound_hz / (self.m**2 + 4 * self.m + 2):.1f}"),
            ("b", f"{self.b_hz:.1f} Hz", f"H/(2m+3) < {self.bound_hz / (2 * self.m + 3):.1f}"),
            ("c", f"{self.c_hz:.1f} Hz", f"H/2 < {self.bound_hz / 2:.1f}" if self.c_rule == "fast" else "H/(m²+4m+2), eq. 30 as a"),
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
    c_rule: str = "fast",
) -> DsmSettings:
    """DSM's parameters for a bottleneck of ``capacity_gbps`` and a worst feedback loop of
    ``loop_delay_us``. ``c_rule`` is ``"fast"`` (``c = H/2``, eq. 31 and §V-A, the paper's
    default) or ``"eq30"`` (``c = H/(m²+4m+2)``: eq. 30's bound with its delay term kept,
    as for ``a``), as the engine's ``scheme.dsm.c_rule``."""
    if capacity_gbps <= 0 or loop_delay_us < 0 or not 0 < p <= 1 or frame_bytes <= 0 or not 0 < h_fraction < 1:
        raise ValueError("need capacity > 0, loop delay >= 0, 0 < p <= 1, frame > 0, 0 < h_fraction < 1")
    if c_rule not in ("fast", "eq30"):
        raise ValueError(f'c_rule must be "fast" or "eq30" (got {c_rule!r})')
    period = frame_bytes * 8 / (p * capacity_gbps * 1e9)
    m = max(1, math.ceil(loop_delay_us * 1e-6 / period - 1e-9))
    bound = 2 / period
    h = h_fraction * bound
    a = h / (m * m + 4 * m + 2)
    return DsmSettings(period, m, a, h / (2 * m + 3), h / 2 if c_rule == "fast" else a, omega, bound, c_rule)


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


@dataclass(frozen=True)
class ClosedLoop:
    """One run of :func:`closed_loop`: per sample, the queue (bits) and the feedback
    sent (bits/s), and the aggregate rate (bits/s) at the sample."""

    queue_bits: list[float]
    feedback_bps: list[float]
    rate_bps: list[float]

    def quarter_ratio(self) -> float:
        """The largest queue offset from ``q0`` in the last quarter of the run over the
        largest in the third: below 1 while the loop settles, about 1 on a limit cycle,
        above 1 when it diverges (0 once the offset is gone)."""
        n = len(self.queue_bits) // 4
        third = max(abs(q) for q in self.queue_bits[2 * n : 3 * n])
        last = max(abs(q) for q in self.queue_bits[3 * n :])
        return last / third if third > 1e-9 else 0.0

    def settles(self) -> bool:
        """Whether the queue's offset from ``q0`` dies out: it has fallen a thousandfold
        from the first quarter of the run, or at least halved and still falls by at least
        10 % a quarter."""
        n = len(self.queue_bits) // 4
        first = max(abs(q) for q in self.queue_bits[:n])
        last = max(abs(q) for q in self.queue_bits[3 * n :])
        return bool(last <= 1e-3 * first or (last < 0.5 * first and self.quarter_ratio() < 0.9))


def closed_loop(
    settings: DsmSettings,
    capacity_bps: float,
    loop_delay_s: float | Sequence[float],
    samples: int = 1500,
    start_rate_bps: float | None = None,
    q0_bits: float = 64 * 1024 * 8,
    buffer_bits: float | None = None,
) -> ClosedLoop:
    """DSM closing the loop on a fluid queue: the paper's model (eqs. 7–9) with the CP
    of eqs. 24–25, but with the loop delay a real number of seconds rather than the
    whole ``m`` samples the gains are designed for.

    The queue is sampled every ``T``; the feedback ``u(k)`` computed at ``kT`` changes
    the aggregate rate at ``kT + τ(k)`` (one aggregate stands for the sources, as in
    eq. 5; no per-source limits). ``loop_delay_s`` is ``τ`` itself, or a sequence of
    delays used in turn (heterogeneous, time-varying delays). Between changes the queue moves linearly at
    ``rate − C``; with ``buffer_bits`` it stays within ``[0, buffer]``. The aggregate
    starts at ``start_rate_bps`` (default ``1.05·C``) with the queue empty. Queues are
    reported as offsets from ``q0_bits``.
    """
    period, m = settings.period_s, settings.m
    rate = 1.05 * capacity_bps if start_rate_bps is None else start_rate_bps
    queue, q_prev = 0.0, 0.0
    delays = [loop_delay_s] if isinstance(loop_delay_s, (int, float)) else list(loop_delay_s)
    if not delays or min(delays) < 0:
        raise ValueError("loop delays must be >= 0")
    sent: list[float] = []  # the feedback sent, oldest first (the last m are used)
    pending: list[tuple[float, float]] = []  # (time, u): a heap of the changes to come
    out_q, out_u, out_r = [], [], []
    for k in range(samples):
        q_f, q_v = queue - q0_bits, queue - q_prev
        pf, pv = predict(q_f, q_v, sent, m, period)
        u = max(-capacity_bps, min(capacity_bps, _feedback(settings, pf, pv)))
        sent = (sent + [u])[-m:]
        heapq.heappush(pending, (k * period + delays[k % len(delays)], u))
        out_q.append(q_f)
        out_u.append(u)
        out_r.append(rate)
        q_prev = queue
        queue, rate, pending = _advance(queue, rate, pending, k * period, period, capacity_bps, buffer_bits)
    return ClosedLoop(out_q, out_u, out_r)


def _feedback(s: DsmSettings, pf: float, pv: float) -> float:
    """Eq. 24 on the predicted state."""
    delta = pf + s.omega * pv
    if pf * pv > 0:
        return -s.c_hz * pf
    if pv * delta < 0:
        return -s.a_hz * pf
    if pf * delta < 0:
        return -s.b_hz * pv
    return 0.0


def _advance(queue, rate, pending, start, period, capacity, buffer):
    """The fluid queue over ``[start, start + period)``, applying the rate changes due in
    it; returns the queue and rate at the end and the changes still to come."""
    end = start + period
    t = start
    while pending and pending[0][0] < end:
        at, u = heapq.heappop(pending)
        queue = _fill(queue, (rate - capacity) * (max(at, t) - t), buffer)
        t = max(at, t)
        rate += u
    queue = _fill(queue, (rate - capacity) * (end - t), buffer)
    return queue, rate, pending


def _fill(queue: float, change: float, buffer: float | None) -> float:
    queue += change
    return queue if buffer is None else min(max(queue, 0.0), buffer)


def stability_map(
    capacity_gbps: float,
    design_delay_us: float,
    h_fractions: Sequence[float],
    delay_ratios: Sequence[float],
    samples: int = 3000,
    c_rule: str = "fast",
) -> list[list[bool]]:
    """:meth:`ClosedLoop.settles` for each gain fraction (rows) and each true loop delay
    (columns, in units of the design's ``m·T``), with ``m`` and the gains from
    :func:`calculate` for ``design_delay_us``. Tests §IV-C's claim that a horizon ``m`` at
    or above the true delay keeps DSM stable."""
    rows = []
    for h in h_fractions:
        settings = calculate(capacity_gbps, design_delay_us, h_fraction=h, c_rule=c_rule)
        horizon = settings.m * settings.period_s
        rows.append([closed_loop(settings, capacity_gbps * 1e9, r * horizon, samples).settles() for r in delay_ratios])
    return rows


def plot_stability_map(
    path: str,
    capacity_gbps: float = 10.0,
    design_delay_us: float = 300.0,
    h_fractions: Sequence[float] = (0.05, 0.1, 0.2, 0.3, 0.4, 0.6, 0.8),
    delay_ratios: Sequence[float] = tuple(x / 32 for x in range(4, 49)),
) -> None:
    """Where DSM's closed loop settles, by gain fraction and true loop delay, for the
    paper's reaching gain (``c = H/2``) and for eq. 30's (``c = a``)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure

    s = calculate(capacity_gbps, design_delay_us)
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    step = delay_ratios[1] - delay_ratios[0]
    extent = (delay_ratios[0] - step / 2, delay_ratios[-1] + step / 2, -0.5, len(h_fractions) - 0.5)
    cmap = ListedColormap(["#4c9a5b", "#c0392b"])
    for ax, (rule, title) in zip(axes, (("fast", "c = H/2 (the paper's §V-A)"), ("eq30", "c = H/(m²+4m+2) (eq. 30, as a)"))):
        grid = stability_map(capacity_gbps, design_delay_us, h_fractions, delay_ratios, c_rule=rule)
        settles = [[0 if ok else 1 for ok in row] for row in grid]
        ax.imshow(settles, cmap=cmap, vmin=0, vmax=1, aspect="auto", origin="lower", extent=extent, interpolation="nearest")
        ax.axvline(1.0, color="black", lw=0.8, ls=":")
        ax.set_title(f"{title}: green settles at q0, red keeps oscillating", fontsize=9)
        ax.set_xlabel(f"true loop delay / (m·T)   (m = {s.m}, T = {1e6 * s.period_s:.0f} µs)")
    axes[0].set_yticks(range(len(h_fractions)), [f"{h:g}" for h in h_fractions])
    axes[0].set_ylabel("H / (2/T)   (paper: 0.8)")
    fig.suptitle(f"DSM on a fluid queue, {capacity_gbps:g} Gb/s, gains designed for {design_delay_us:g} µs", fontsize=10)
    fig.savefig(path, dpi=110)


def start_losses(
    settings: DsmSettings,
    capacity_bps: float,
    loop_delay_s: float,
    start_rate_bps: float,
    buffer_bits: float = 128 * 1024 * 8,
    duration_s: float = 1.0,
    sampling: str = "arriving",
    q0_bits: float = 64 * 1024 * 8,
    frame_bits: float = 8000.0,
    p: float = 0.01,
) -> float:
    """The fraction of the offered bits a full buffer drops while DSM pulls an aggregate
    that starts at ``start_rate_bps`` (the queue empty) down to the capacity: the
    paper's fluid model (eqs. 7–9, CP of eqs. 24–25 with the nominal ``T``) with the
    queue held within ``[0, buffer]``, stepped every ``T/20``.

    A sample falls every ``frame_bits/p`` bits that arrive (``sampling="arriving"``,
    dropped ones included) or that the queue admits (``"admitted"``), as the engine's
    ``scheme.dsm.sampling``. At a full buffer ``Qv = 0`` however large the excess, so
    the predictor (counting the decreases it sent) sees the queue about to fall and
    State A's ``−a·Q̂f`` sets the pace."""
    if sampling not in ("arriving", "admitted"):
        raise ValueError(f'sampling must be "arriving" or "admitted" (got {sampling!r})')
    period, cap = settings.period_s, capacity_bps
    dt, every = period / 20, frame_bits / p
    rate, queue, q_prev, count, lost, offered = start_rate_bps, 0.0, 0.0, 0.0, 0.0, 0.0
    sent: list[float] = []
    pending: list[tuple[float, float]] = []
    for step in range(round(duration_s / dt)):
        now = step * dt
        while pending and pending[0][0] <= now:
            rate = max(0.0, rate + heapq.heappop(pending)[1])
        offered += rate * dt
        queue += (rate - cap) * dt
        over = max(0.0, queue - buffer_bits)
        lost += over
        queue = min(max(queue, 0.0), buffer_bits)
        count += rate * dt - (over if sampling == "admitted" else 0.0)
        if count >= every:
            count -= every
            pf, pv = predict(queue - q0_bits, queue - q_prev, sent, settings.m, period)
            u = max(-cap, min(cap, _feedback(settings, pf, pv)))
            sent, q_prev = (sent + [u])[-settings.m :], queue
            heapq.heappush(pending, (now + loop_delay_s, u))
    return lost / offered if offered > 0 else 0.0
