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


def _reference(thr, fair):
    """Each flow's deviation from its share and mean share, and the per-sample Jain
    mean, worked out directly with numpy (the engine's sums must agree)."""
    rms, shares = [], []
    for t, f in zip(thr, fair):
        on = f > 0
        rms.append(float(np.sqrt(np.mean((t[on] - f[on]) ** 2))) if on.any() else None)
        shares.append(float(f[on].mean()) if on.any() else None)
    jain = [jain_index(thr[fair[:, k] > 0, k] / fair[fair[:, k] > 0, k]) for k in range(thr.shape[1])
            if (fair[:, k] > 0).sum() >= 2]
    return rms, shares, float(np.mean(jain)) if jain else None


def _close(got, want):
    """Equal lists of floats (to 1e-12) and ``None``s."""
    return len(got) == len(want) and all(
        g is None if w is None else g is not None and g == pytest.approx(w, rel=1e-12) for g, w in zip(got, want))


@pytest.mark.parametrize("text", [MIXED, WEIGHTED])
def test_summary_measures_agree_with_a_direct_computation(text):
    # Flows that start late, finish, never start, and shares that move.
    r = dcbsim.run(dcbsim.loads(text), seed=3)
    flows = list(r.flows.values())
    thr = np.array([f.throughput_bps for f in flows])
    fair = np.array([f.fair_share_bps for f in flows])
    rms, shares, jain = _reference(thr, fair)
    s = r.summary
    assert _close([s["flows"][f.name]["share_rms_bps"] for f in flows], rms)
    assert _close([s["flows"][f.name]["fair_share_bps"] for f in flows], shares)
    assert s["fairness"]["jain"] == pytest.approx(jain, rel=1e-12)
    assert [s["flows"][f.name]["active_s"] for f in flows] == [f.active_s(r.time_s) for f in flows]
    step = r.time_s[1] - r.time_s[0]
    for f in flows:
        sending = np.flatnonzero(f.rate_bps > 0)
        if f.stats.get("completion_time_s") is None and sending.size:
            assert f.active_s(r.time_s) == pytest.approx(r.time_s[sending[-1]] - r.time_s[sending[0]] + step)
    if text is MIXED:
        # Each case is met: the idle flow has neither a share nor an active time,
        # the late one a share at some samples only, the others at every one.
        assert (s["flows"]["idle"]["fair_share_bps"], s["flows"]["idle"]["active_s"]) == (None, None)
        assert 0 < (fair[1] > 0).sum() < fair.shape[1] and (fair[0] > 0).all()


def test_fairness_over_a_window_takes_its_samples_only():
    r = dcbsim.run(dcbsim.loads(WEIGHTED), seed=1)
    window = (r.time_s > 0.005) & (r.time_s <= 0.02)
    names = list(r.flows)
    thr = np.array([r.flows[n].throughput_bps[window] for n in names])
    fair = np.array([r.flows[n].fair_share_bps[window] for n in names])
    assert r.fairness(start_s=0.005, end_s=0.02) == fairness(thr, fair)
    assert r.fairness(start_s=0.005, end_s=0.02)["jain"] != r.fairness()["jain"]


def test_fairness_rejects_arrays_of_different_shapes():
    with pytest.raises(ValueError, match="differ in shape"):
        fairness(np.ones((2, 3)), np.ones((2, 4)))


def test_sums_added_flow_by_flow_equal_sums_added_as_a_block():
    from dcbsim._core import FairnessSums

    rng = np.random.default_rng(7)
    thr, fair = rng.uniform(0, 1e9, (3, 40)), rng.uniform(1e8, 1e9, (3, 40))
    rate = np.where(np.arange(40) % 7 == 0, 0.0, 1e9) * np.ones((3, 1))
    times = (np.arange(40) * 1e-3).tobytes()
    whole = FairnessSums(3)
    whole.add_block(40, [t.tobytes() for t in thr], [f.tobytes() for f in fair], [r.tobytes() for r in rate])
    by_flow = FairnessSums(3)
    for a, b in ((0, 25), (25, 40)):
        by_flow.begin_block(b - a)
        for i in range(3):
            by_flow.add_flow(i, thr[i, a:b].tobytes(), fair[i, a:b].tobytes(), rate[i, a:b].tobytes())
        by_flow.end_block()
    assert by_flow.fairness(times) == whole.fairness(times)


def test_sums_refuse_a_flow_outside_a_block_or_of_the_wrong_length():
    from dcbsim._core import FairnessSums

    sums = FairnessSums(2)
    with pytest.raises(ValueError, match="no block is open"):
        sums.add_flow(0, b"", b"")
    with pytest.raises(ValueError, match="no block is open"):
        sums.end_block()
    sums.begin_block(2)
    with pytest.raises(ValueError, match="a block is open"):
        sums.begin_block(2)
    with pytest.raises(ValueError, match="flow 2"):
        sums.add_flow(2, b"", b"")
    with pytest.raises(ValueError, match="8 bytes, not 2 float64"):
        sums.add_flow(0, b"\0" * 8, b"\0" * 16)
