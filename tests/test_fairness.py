"""Fairness measures and the engine's weighted max-min shares."""

from __future__ import annotations

import numpy as np
import pytest

import dcbsim
from dcbsim.fairness import fairness, jain_index

WEIGHTED = """
[run]
duration_ms = 40.0
frame_bytes = 1500

[topology]
kind = "dumbbell"
senders = 3
rate_gbps = 10.0

[scheme]
name = "none"

[[flows]]
name = "f"
src = "s*"
dst = "r0"
weight = [3, 2, 1]

[[timeline]]
at_ms = 20.0
port = "sw0:r0"
rate_gbps = 1.2
"""


def test_jain_index_by_hand():
    assert jain_index([1, 1, 1, 1]) == pytest.approx(1.0)
    assert jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    # (1 + 3)^2 / (2 * (1 + 9)) = 0.8
    assert jain_index([1, 3]) == pytest.approx(0.8)


def test_fairness_against_shares():
    fair = np.array([[2.0, 2.0, 0.0], [1.0, 1.0, 3.0]])
    thr = np.array([[2.0, 1.0, 5.0], [1.0, 1.0, 3.0]])
    f = fairness(thr, fair)
    # Sample 0: normalized [1, 1] → Jain 1, min/max 1; sample 1: [0.5, 1] → 0.9, 0.5;
    # sample 2 has one flow with a share and does not count.
    assert f["jain"] == pytest.approx((1.0 + 0.9) / 2)
    assert f["min_max"] == pytest.approx(0.75)
    # Flow 0 deviates by 0 and 1 over its two samples; flow 1 never.
    assert f["per_flow_rms_bps"][0] == pytest.approx(np.sqrt(0.5))
    assert f["per_flow_rms_bps"][1] == pytest.approx(0.0)
    assert f["share_rms_bps"] == pytest.approx(np.sqrt(1 / 5))


def test_engine_shares_follow_weights_and_capacity():
    r = dcbsim.run(dcbsim.loads(WEIGHTED), seed=1)
    shares = np.array([f.fair_share_bps for f in r.flows.values()]) / 1e9
    t = r.time_s
    before, after = t <= 0.02, t > 0.02
    # Greedy at line rate, weights 3:2:1 on 10 Gb/s, then 1.2 Gb/s.
    assert shares[:, before].mean(axis=1) == pytest.approx([5.0, 10 / 3, 5 / 3])
    assert shares[:, after].mean(axis=1) == pytest.approx([0.6, 0.4, 0.2])
    s = r.summary
    assert s["flows"]["f0"]["weight"] == 3.0
    assert s["fairness"]["jain"] is not None


MIXED = """
[run]
duration_ms = 6.0
frame_bytes = 1500
sample_interval_us = 500.0

[topology]
kind = "dumbbell"
senders = 4
rate_gbps = 10.0

[scheme]
name = "qcn"

[[flows]]
name = "greedy"
src = "s0"
dst = "r0"

[[flows]]
name = "late"
src = "s1"
dst = "r0"
start_ms = 2.0

[[flows]]
name = "short"
src = "s2"
dst = "r0"
kind = "finite"
size_kb = 200.0

[[flows]]
name = "idle"
src = "s3"
dst = "r0"
start_ms = 50.0
"""


@pytest.mark.parametrize("text", [MIXED, WEIGHTED])
def test_summary_takes_all_flows_at_once_with_the_sums_of_flow_by_flow(text):
    # Flows that start late, finish, never start, and shares that move: the summary's
    # all-flows path must give exactly what the flow-by-flow path gives.
    from dcbsim.fairness import _flow_rms, _flows_rms

    r = dcbsim.run(dcbsim.loads(text), seed=3)
    flows = list(r.flows.values())
    assert r._shares_and_active_times() == r._shares_and_active_times_by_flow(flows)
    thr = np.array([f.throughput_bps for f in flows])
    fair = np.array([f.fair_share_bps for f in flows])
    one_by_one = [_flow_rms(thr[i], fair[i]) for i in range(len(flows))]
    assert _flows_rms(thr, fair) == ([a for a, _ in one_by_one], [b for _, b in one_by_one])
    if text is MIXED:
        # Each path is taken: the idle flow has neither a share nor an active time,
        # the late one a share at some samples only, the others at every one.
        shares, actives = r._shares_and_active_times()
        assert (shares[3], actives[3]) == (None, None)
        assert 0 < (fair[1] > 0).sum() < fair.shape[1] and (fair[0] > 0).all()
