"""Dumbbell variants off the papers' set-ups: N greedy senders into one bottleneck of
capacity C, a chosen feedback loop delay and buffer, measured after a warm-up.

:func:`dumbbell` writes the scenario, :func:`measure` reads a run into the numbers a
scheme's theory speaks of (queue mean and std, utilization, time the queue is empty,
drops, Jain's index of the rates over windows), and :func:`convergence_s` the time to
fairness from an unfair start. The grids of the model pages' "Checked against theory"
tables are in :mod:`dcbsim.analysis.variants_grid`
(``python -m dcbsim.analysis.variants_grid SCHEME`` prints one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import dcbsim
from dcbsim.fairness import jain_index
from dcbsim.results import convergence_time, moving_average


def dumbbell(
    scheme: str,
    senders: int,
    gbps: float,
    loop_us: float,
    buffer_kb: float,
    duration_ms: float,
    sample_us: float,
    params: dict[str, object] | None = None,
    start_mbps: list[float] | None = None,
    frame_bytes: int = 1500,
    start_ms: list[float] | None = None,
) -> str:
    """A dumbbell scenario: ``senders`` greedy flows ``f0…`` into ``sw0:r0`` at ``gbps``,
    the loop from the congestion point to each source and back ``loop_us`` long (the
    ``sw0–r0`` link 1 µs), ``params`` written in ``[scheme]``; ``start_mbps`` gives each
    flow's initial rate (default: line rate), ``start_ms`` when each starts (default 0)."""
    lines = [
        "[run]",
        f'name = "{scheme}-n{senders}-{gbps:g}g-{loop_us:g}us"',
        f"duration_ms = {duration_ms!r}",
        f"frame_bytes = {frame_bytes}",
        f"sample_interval_us = {sample_us!r}",
        "[topology]",
        'kind = "dumbbell"',
        f"senders = {senders}",
        f"rate_gbps = {gbps!r}",
        "delay_us = 1.0",
        f"feedback_loop_delay_us = {loop_us!r}",
        f"buffer_kb = {buffer_kb!r}",
        "[scheme]",
        f'name = "{scheme}"',
        'congestion_points = ["sw0:r0"]',
    ]
    lines += [f"{key} = {_toml(value)}" for key, value in (params or {}).items()]
    lines += ["[monitor]", 'ports = ["sw0:r0"]']
    for i in range(senders):
        lines += ["[[flows]]", f'name = "f{i}"', f'src = "s{i}"', 'dst = "r0"']
        if start_mbps is not None:
            lines.append(f"rate_mbps = {start_mbps[i]!r}")
        if start_ms is not None and start_ms[i] > 0:
            lines.append(f"start_ms = {start_ms[i]!r}")
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    """A TOML literal of a number, a boolean or a string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


@dataclass(frozen=True)
class Measures:
    """What a run did after its warm-up, at the bottleneck ``sw0:r0``."""

    #: Mean and standard deviation of the sampled queue, KB (1024 bytes).
    queue_kb: float
    queue_std_kb: float
    #: Delivered throughput of all flows over the capacity.
    utilization: float
    #: Fraction of samples at which the queue was empty.
    empty: float
    #: Frames dropped over the whole run, per frame sent.
    drops: float
    #: Mean over windows of Jain's index of the flows' mean rates in each window.
    jain: float

    def row(self) -> str:
        """The measures as a table row's cells."""
        return (
            f"{self.queue_kb:.1f} ± {self.queue_std_kb:.1f} KB | {100 * self.utilization:.1f} % | "
            f"{100 * self.empty:.1f} % | {100 * self.drops:.2f} % | {self.jain:.3f}"
        )


def measure(result: dcbsim.Result, gbps: float, warmup_s: float, window_s: float) -> Measures:
    """The :class:`Measures` of ``result`` over the samples after ``warmup_s``, Jain's
    index over windows of ``window_s``."""
    after = result.time_s > warmup_s
    queue = result.ports["sw0:r0"].queue_bytes[after] / 1024
    delivered = sum(f.throughput_bps[after] for f in result.flows.values())
    stats = [f.stats for f in result.flows.values()]
    sent = sum(s["sent_frames"] for s in stats)
    return Measures(
        queue_kb=float(queue.mean()),
        queue_std_kb=float(queue.std()),
        utilization=float(delivered.mean() / (gbps * 1e9)),
        empty=float((queue == 0).mean()),
        drops=sum(s["dropped_frames"] for s in stats) / max(sent, 1),
        jain=windowed_jain(result, warmup_s, window_s),
    )


def windowed_jain(result: dcbsim.Result, warmup_s: float, window_s: float) -> float:
    """Mean over consecutive windows of ``window_s`` after ``warmup_s`` of Jain's index
    of the flows' delivered throughput averaged over each window."""
    after = result.time_s > warmup_s
    step = float(result.time_s[1] - result.time_s[0])
    per = max(1, round(window_s / step))
    rates = np.array([f.throughput_bps[after] for f in result.flows.values()])
    windows = rates.shape[1] // per
    if windows == 0:
        return float("nan")
    means = rates[:, : windows * per].reshape(rates.shape[0], windows, per).mean(axis=2)
    return float(np.mean([jain_index(means[:, k]) for k in range(windows)]))


def convergence_s(result: dcbsim.Result, window_s: float, epsilon: float = 0.9) -> float | None:
    """The first time from which the min/max of the flows' throughput, each averaged
    over the trailing ``window_s``, stays at or above ``epsilon``."""
    rates = [f.throughput_bps for f in result.flows.values()]
    return convergence_time(result.time_s, rates, epsilon, window_s)


def first_fair_s(result: dcbsim.Result, window_s: float, epsilon: float = 0.8, since_s: float = 0.0) -> float | None:
    """The first time after ``since_s`` (plus one window) at which the min/max of the
    flows' throughput, each averaged over the trailing ``window_s``, reaches ``epsilon``;
    None if never. Unlike :func:`convergence_s` it does not ask the shares to stay."""
    step = float(result.time_s[1] - result.time_s[0])
    per = max(1, round(window_s / step))
    rates = np.vstack([moving_average(f.throughput_bps, per) for f in result.flows.values()])
    fair = (rates.min(axis=0) >= epsilon * rates.max(axis=0)) & (result.time_s >= since_s + window_s - step / 2)
    first = np.flatnonzero(fair)
    return float(result.time_s[first[0]]) if first.size else None


def run(text: str, seed: int = 1) -> dcbsim.Result:
    """Run a scenario written by :func:`dumbbell`."""
    return dcbsim.run(dcbsim.loads(text), seed=seed)


#: Run length (s) by capacity (Gb/s) unless a case says otherwise: the first half is warm-up.
DURATION_S = {1: 4.0, 10: 2.0, 40: 1.0}


@dataclass(frozen=True)
class Case:
    """One variant: ``senders`` flows of ``scheme`` into ``gbps``, a ``loop_us`` feedback
    loop, a ``buffer_kb`` buffer, ``params`` in ``[scheme]``, measured over the second
    half of ``duration_s`` (default :data:`DURATION_S`)."""

    scheme: str
    senders: int
    gbps: float
    loop_us: float
    buffer_kb: float = 300.0
    params: tuple[tuple[str, object], ...] = ()
    frame_bytes: int = 1500
    duration_s: float | None = None

    @property
    def seconds(self) -> float:
        """The run's length, s."""
        return self.duration_s or DURATION_S.get(int(self.gbps), 2.0)

    def scenario(self) -> str:
        """The scenario text, the queue sampled every 100 µs per Gb/s below 10 Gb/s and
        every 20 µs from 10 Gb/s."""
        sample = 20.0 if self.gbps >= 10 else 100.0
        return dumbbell(self.scheme, self.senders, self.gbps, self.loop_us, self.buffer_kb,
                        self.seconds * 1e3, sample, dict(self.params), frame_bytes=self.frame_bytes)

    def measure(self, seed: int = 1) -> Measures:
        """Run it and measure the second half; Jain's index over windows of 0.1 s · (1 Gb/s / C)."""
        return measure(run(self.scenario(), seed), self.gbps, self.seconds / 2, 0.1 / self.gbps)

    def label(self) -> str:
        """The case as a table row's first cells."""
        settings = [f"{k} = {v}" for k, v in self.params if k != "loop_delay_us"]
        if self.frame_bytes > 1500:
            settings.append(f"{self.frame_bytes} B frames")
        extra = ", ".join(settings)
        return f"{self.scheme} | {self.senders} | {self.gbps:g} | {self.loop_us:g} | {self.buffer_kb:g} | {extra}"

