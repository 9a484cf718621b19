"""The DSM page's measures on hand-made results (no simulation)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from dcbsim.papers import dsm


def _result(throughput_bps: np.ndarray, time_s: np.ndarray):
    flow = SimpleNamespace(throughput_bps=throughput_bps)
    port = SimpleNamespace(stats={"capacity_bps": 10e9})
    return SimpleNamespace(time_s=time_s, flows={"a": flow}, ports={"sw0:r0": port})


def test_departure_utilization_counts_the_refill_right_after_a_departure():
    # 1 ms samples; the link is full except for the 10 ms after each departure, when it
    # runs at half: the 100 ms after each departure average 95 %.
    t = np.arange(1, 501) / 1000.0
    thr = np.full(t.shape, 10e9)
    for d in (0.3, 0.4):
        thr[(t > d) & (t <= d + 0.010001)] = 5e9
    util = dsm.departure_utilization(_result(thr, t))
    assert np.allclose(util, [0.95, 0.95])
