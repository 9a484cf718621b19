"""QCN variants against closed-form expectations at more than one link rate, and the
QCN-T page's measure of convergence on rates whose answer is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dcbsim

AIMD_ALONE = """
[run]
name = "aimd-alone"
duration_ms = {duration_ms}
frame_bytes = 1500
sample_interval_us = 1000.0

[topology]
kind = "dumbbell"
senders = 1
receivers = 1
rate_gbps = {gbps}
delay_us = 5.0
buffer_kb = 512.0

[scheme]
name = "qcn_aimd"
congestion_points = ["sw0:r0"]
q_eq_kb = 64.0

[[flows]]
name = "rp"
src = "s0"
dst = "r0"
rate_mbps = {start_mbps}
"""


@pytest.mark.parametrize("gbps, duration_ms", [(1, 2000.0), (10, 200.0)])
def test_qcn_aimd_alone_adds_r_ai_per_150_kb_sent(gbps, duration_ms):
    """Without congestion, QCN-AIMD adds R_AI each 150 KB (x U(0.85, 1.15)), so
    dR/dt = R_AI·R / (8·150 KB): R(t) = R0·exp(R_AI·t·E[1/U] / 1.2 Mb), at 1 and 10 Gb/s
    (R_AI = 0.5 and 5 Mb/s). Halving the cycle after five increases would double the
    exponent: 530 instead of 231 Mb/s at 1 Gb/s."""
    start_mbps = 100.0 * gbps
    text = AIMD_ALONE.format(duration_ms=duration_ms, gbps=gbps, start_mbps=start_mbps)
    result = dcbsim.run(dcbsim.loads(text), seed=1)
    r_ai = 0.5e6 * gbps
    jitter = math.log(1.15 / 0.85) / 0.3
    t = duration_ms / 1e3
    expected = start_mbps * 1e6 * math.exp(r_ai * t * jitter / (8 * 150_000))
    rate = result.flows["rp"].rate_bps
    assert rate[-1] == pytest.approx(expected, rel=0.03)
    assert np.all(np.diff(rate) >= 0)


class _Flow:
    def __init__(self, rate_bps):
        self.rate_bps = rate_bps


class _Rates:
    """Just what time_to_fairness reads of a result."""

    def __init__(self, time_s, *rates):
        self.time_s = time_s
        self.flows = {str(i): _Flow(r) for i, r in enumerate(rates)}


def test_time_to_fairness_follows_the_trend_not_the_swing():
    from dcbsim.papers.qcnt import time_to_fairness

    t = np.arange(1, 20001) / 1000.0
    # Trend: from (900, 100) to (500, 500) at 10 s, then equal; on top, ±100 Mb/s
    # alternating every 1 ms, which averages out over 1 s.
    trend = np.clip(100e6 + 40e6 * t, None, 500e6)
    swing = np.where(np.arange(t.size) % 2 == 0, 100e6, -100e6)
    slow, fast = trend + swing, 1e9 - trend - swing
    # min/max ≥ 0.9 of the 1 s averages: slow ≥ 0.9·(1000 − slow), slow ≥ 473.7 Mb/s,
    # reached by the trend at 9.34 s and seen by a trailing 1 s mean 0.5 s later.
    assert time_to_fairness(_Rates(t, slow, fast)) == pytest.approx(9.84, abs=0.02)
    # Never fair: None. And the first full window is the earliest answer.
    assert time_to_fairness(_Rates(t, np.full(t.size, 1e8), np.full(t.size, 9e8))) is None
    assert time_to_fairness(_Rates(t, np.full(t.size, 5e8), np.full(t.size, 5e8))) == pytest.approx(1.0)
