"""The QCN-T convergence model run as a random process (dcbsim.analysis.qcn_montecarlo)."""

from __future__ import annotations

import numpy as np
import pytest

from dcbsim.analysis.qcn_convergence import VARIANTS
from dcbsim.analysis.qcn_montecarlo import Feedback, hazard_counts, simulate

TIMER = VARIANTS["QCN-Timer, T = 10 ms"]
START = [900e6, 100e6]
#: Bins of the time since an RP's previous CNM: under one timer period, over six.
EDGES = np.array([0.0, 1.0, 6.0, 1e6]) * TIMER.timer_s


def run(hold_target: bool, feedback: str = "independent", seconds: float = 6.0):
    return simulate(TIMER, START, seconds, replicas=100, seed=3, hold_target=hold_target, feedback=Feedback(feedback))


def test_the_model_s_own_assumptions_give_the_model_s_time():
    # Independent feedback and TR <- CR on every CNM (eq. 13): eq. 26's time to 0.5.
    model = TIMER.convergence_time(START, 0.5)
    assert model == pytest.approx(4.14, abs=0.05)
    runs = run(hold_target=False)
    assert runs.mean_time_to(0.5) == pytest.approx(model, rel=0.08)
    assert runs.rates[-1].sum(axis=1).mean() == pytest.approx(1e9, rel=0.01)


def test_the_standard_s_target_rule_and_a_queue_each_slow_convergence():
    base = run(hold_target=False).mean_time_to(0.5)
    # The standard keeps TR on a CNM before any increase since the previous one.
    assert run(hold_target=True).mean_time_to(0.5) > 1.1 * base
    assert run(hold_target=False, feedback="queue").mean_time_to(0.5) > 1.08 * base


def test_a_queue_s_feedback_depends_on_the_time_since_the_last_cnm():
    independent = run(hold_target=False).hazard(EDGES, start_s=1.0)
    assert independent == pytest.approx(np.ones(3), abs=0.15)
    queue = run(hold_target=False, feedback="queue").hazard(EDGES, start_s=1.0)
    assert queue[0] < 0.3 and queue[2] > 1.2


def test_hazard_counts_of_evenly_spaced_cnms():
    # One RP, a CNM every 10 ms (0.1 per 1 ms sample): every gap falls in the 5-15 ms bin,
    # while half of the time is spent in each bin, so each expects half of the CNMs.
    t = np.arange(0.0, 2.0, 0.001)
    cnms = [np.arange(0.005, 2.0, 0.010)]
    seen, expected = hazard_counts(cnms, t, np.ones((1, t.size)), [0.0, 0.005, 0.015], start_s=0.5, window_s=0.1)
    assert seen[0] == 0 and seen[1] == pytest.approx(150, abs=1)
    assert expected == pytest.approx([75, 75], rel=0.05)


def test_unknown_feedback_is_refused():
    with pytest.raises(ValueError, match="independent"):
        simulate(TIMER, START, 0.1, replicas=2, feedback=Feedback("coin"))
