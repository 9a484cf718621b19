"""The QCN convergence model of the QCN-T paper (eqs. 6-28): the expected change of each
reaction point's rate per sampling period, with the probability of a non-zero feedback
``p[Fb>0]`` solved so that the changes sum to zero, iterated from initial rates.

One round is one sampling period of the congestion point, ``T_s`` = the time to send
150 KB at the link rate C (1.2 ms at 1 Gb/s). A reaction point at rate R is sampled with
probability ``p = p[Fb>0] · R / C`` per round (eq. 8). Between its rate increases it sees
``K`` rounds: ``K = C / R`` with the byte counter (eq. 17), ``K = T_t / T_s`` with a timer
(QCN-Timer, eq. 26); the interval halves in Active Increase. Eq. 25 (QCN and QCN-Timer)
and eq. 28 (QCN-AIMD) give the expected change.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class QcnModel:
    """The model's parameters (defaults: the paper's, 1 Gb/s and two RPs)."""

    capacity_bps: float = 1e9
    gd_fb: float = 1 / 128
    r_ai_bps: float = 0.5e6
    byte_counter_bytes: float = 150_000
    variant: str = "qcn"
    timer_s: float | None = None
    ai_fraction: float = 0.5
    """An Active-Increase cycle as a fraction of a Fast-Recovery cycle (T_AI / 150 KB;
    the standard halves it)."""

    @property
    def round_s(self) -> float:
        """The sampling period T_s, seconds."""
        return self.byte_counter_bytes * 8 / self.capacity_bps

    def rounds_per_increase(self, rate: float) -> float:
        """K: sampling rounds per Fast-Recovery increase interval."""
        if self.variant == "qcn_timer":
            if not self.timer_s:
                raise ValueError("QCN-Timer needs timer_s")
            return self.timer_s / self.round_s
        return self.capacity_bps / rate

    def expected_change(self, rate: float, p_fb: float) -> float:
        """E[ΔR] over one round for a reaction point at ``rate`` (eqs. 25, 26, 28)."""
        p = min(1.0, p_fb * rate / self.capacity_bps)
        k = self.rounds_per_increase(rate)
        q = 1 - p
        g = self.gd_fb
        decrease = -g * rate * p
        if self.variant == "qcn_aimd":
            stay = q**k
            return decrease + self.r_ai_bps * p * stay / (1 - stay) if stay < 1 else decrease
        fast_recovery = 0.5 * g * rate * p * q**k / (1 - 0.5 * q**k)
        f = self.ai_fraction
        active = q ** ((5 + f) * k)
        half = q ** (f * k)
        ai = self.r_ai_bps * p * active / (1 - half) - 0.5 * self.r_ai_bps * p * active / (1 - 0.5 * half)
        return decrease + fast_recovery + ai

    def solve_p_fb(self, rates: Sequence[float], guess: float | None = None) -> float | None:
        """The p[Fb>0] in (0, 1] at which the expected changes sum to zero, if any;
        ``guess`` (the previous round's) speeds the search up."""
        total = lambda p_fb: sum(self.expected_change(r, p_fb) for r in rates)
        if guess is not None:
            found = _secant(total, guess)
            if found is not None:
                return found
        low, high = 1e-6, 1.0
        if total(low) * total(high) > 0:
            return None
        f_low = total(low)
        for _ in range(100):  # bisection: the sum changes sign once in (0, 1]
            mid = (low + high) / 2
            f_mid = total(mid)
            if f_mid * f_low > 0:
                low, f_low = mid, f_mid
            else:
                high = mid
            if high - low < 1e-12:
                break
        return (low + high) / 2

    def rounds(self, initial: Sequence[float]) -> Iterator[list[float]]:
        """The rates round after round, from ``initial``; ends when no p[Fb>0] balances
        the expected changes."""
        rates = [float(r) for r in initial]
        p_fb = None
        while True:
            yield rates
            p_fb = self.solve_p_fb(rates, p_fb)
            if p_fb is None:
                return
            rates = [max(1.0, r + self.expected_change(r, p_fb)) for r in rates]

    def evolve(self, initial: Sequence[float], duration_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Times and rates (one row per round) from ``initial`` for ``duration_s``; if the
        model has no balance any more, the last rates are held."""
        steps = int(duration_s / self.round_s) + 1
        rows = list(itertools.islice(self.rounds(initial), steps))
        rows += [rows[-1]] * (steps - len(rows))
        return np.arange(steps) * self.round_s, np.array(rows)

    def convergence_time(self, initial: Sequence[float], epsilon: float = 0.9, horizon_s: float = 60.0) -> float | None:
        """The first time at which min/max rate ≥ ``epsilon`` (the model's rates move
        monotonically, so it then stays), or None within ``horizon_s``."""
        steps = int(horizon_s / self.round_s)
        for n, rates in enumerate(itertools.islice(self.rounds(initial), steps)):
            if min(rates) >= epsilon * max(rates):
                return n * self.round_s
        return None


def _secant(f, x0: float, iterations: int = 20) -> float | None:
    """A root of ``f`` near ``x0`` by the secant method, if it converges inside (0, 1]."""
    x1 = x0 * 1.001
    f0, f1 = f(x0), f(x1)
    for _ in range(iterations):
        if f1 == f0:
            return None
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
        if not 0 < x1 <= 1:
            return None
        if abs(x1 - x0) < 1e-13:
            return x1
        f0, f1 = f1, f(x1)
    return None


#: The variants of Figs. 10-11 and the parameter studies, as model settings.
VARIANTS = {
    "QCN": QcnModel(),
    "QCN, R_AI = 5": QcnModel(r_ai_bps=5e6),
    "QCN-Timer, T = 15 ms": QcnModel(variant="qcn_timer", timer_s=0.015),
    "QCN-Timer, T = 10 ms": QcnModel(variant="qcn_timer", timer_s=0.010),
    "QCN-Timer, T = 2.4 ms": QcnModel(variant="qcn_timer", timer_s=0.0024),
    "QCN-AIMD, R_AI = 0.5": QcnModel(variant="qcn_aimd"),
    "QCN-AIMD, R_AI = 5": QcnModel(variant="qcn_aimd", r_ai_bps=5e6),
}


#: The parameter studies of Figs. 7-11: (figure, [(label, model)]).
STUDIES = [
    ("Fig. 7: G_d", [(f"G_d = 1/{d}", QcnModel(gd_fb=1 / d)) for d in (16, 64, 128, 256)]),
    ("Fig. 8: R_AI", [(f"R_AI = {r} Mb/s", QcnModel(r_ai_bps=r * 1e6)) for r in (0.5, 1, 5)]),
    ("Fig. 9: T_AI", [(f"T_AI = {t} KB", QcnModel(ai_fraction=t / 150)) for t in (37.5, 75, 150)]),
    ("Fig. 10: QCN-Timer", [(n, VARIANTS[n]) for n in ("QCN", "QCN-Timer, T = 15 ms", "QCN-Timer, T = 10 ms", "QCN-Timer, T = 2.4 ms")]),
    ("Fig. 11: QCN-AIMD", [(n, VARIANTS[n]) for n in ("QCN", "QCN-AIMD, R_AI = 0.5", "QCN-AIMD, R_AI = 5")]),
]


def plot_parameter_studies(path: str, duration_s: float = 25.0) -> None:
    """Figs. 7-11: the slower RP's expected rate from (900, 100) Mb/s for each setting."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 3.4), layout="constrained")
    axes = fig.subplots(1, len(STUDIES), sharey=True)
    for ax, (title, cases) in zip(axes, STUDIES):
        for label, model in cases:
            times, rates = model.evolve([900e6, 100e6], duration_s)
            ax.plot(times, rates[:, 1] / 1e6, lw=1, label=label)
        ax.axhline(1e3 * 0.9 / 1.9, color="grey", ls=":", lw=0.8)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    axes[0].set_ylabel("slower RP's rate (Mb/s); dotted: ε = 0.9")
    fig.savefig(path, dpi=110)


def plot_convergence_times(path: str, high_rates_mbps: Sequence[float] = tuple(range(550, 1000, 50))) -> None:
    """Fig. 4: convergence time vs the higher initial rate (two RPs at 1 Gb/s)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.add_subplot()
    for name in ("QCN", "QCN-Timer, T = 2.4 ms", "QCN-AIMD, R_AI = 0.5"):
        model = VARIANTS[name]
        times = [model.convergence_time([r * 1e6, 1e9 - r * 1e6]) for r in high_rates_mbps]
        ax.plot(high_rates_mbps, [np.nan if t is None else t for t in times], marker="o", ms=3, label=name)
    ax.set_xlabel("initial rate of the faster RP (Mb/s); the other has the rest of 1 Gb/s")
    ax.set_ylabel("time to min/max ≥ 0.9 (s)")
    ax.set_title("QCN-T model (eqs. 25-28): convergence time, as Fig. 4", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
