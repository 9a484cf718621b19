"""The SMCC page's phase-plane helpers and SMCC's settings, without long runs."""

from __future__ import annotations

import numpy as np
import pytest

import dcbsim
from dcbsim.papers import SCENARIO_DIR
from dcbsim.papers import smcc_phase as phase


def test_theorem2_holds_after_6_s_and_fails_with_the_long_cycle_and_the_background():
    # T = 30 KB at 500 Mb/s is 0.48 ms, so 2T < w/(pC) = 1.64 ms: (24) holds for any x0 > 0.
    assert all(c.holds for c in phase.SLIDES.theorem2(9.0))
    assert all(c.holds for c in phase.SLIDES.theorem2(60.0))
    # T = 150 KB at 250 Mb/s is 4.8 ms: (24) fails at every x0 > 0 with R(0) at the fair share.
    assert not phase.FAILS.theorem2(9.0)[0].holds
    assert not phase.SLIDES.theorem2(-1.0)[2].holds


def test_settle_time_is_when_the_trajectory_enters_the_band_for_good():
    t = np.linspace(0, 1, 11)
    x = np.array([40, 30, 10, 20, 5, 3, 1, 0, 0, 0, 0], dtype=float)
    assert phase.settle_time(np.column_stack([t, x, 0 * t])) == pytest.approx(0.4)
    assert phase.settle_time(np.column_stack([t, 0 * t + 30, 0 * t])) == float("inf")
    assert phase.settle_time(np.column_stack([t, 0 * t, 0 * t])) == 0.0


def test_the_fluid_model_from_a_simulated_start_slides_to_the_equilibrium():
    start = phase.Reach(6.1, 9.0, -7000.0, 0.8, -9.0, 0.05 * phase.CAPACITY)
    tr = phase.fluid_from(start, phase.SLIDES)
    assert abs(tr[-1, 1]) < 1.0 and abs(tr[-1, 2]) < 1e-3 * phase.CAPACITY
    assert np.abs(phase.qcn_feedback(tr[-100:, 1], tr[-100:, 2])).max() < 1.0, "ends on the switching line"


def test_the_zero_rule_is_checked_and_changes_the_run():
    path = SCENARIO_DIR / "smcc" / "fig15.toml"
    with pytest.raises(dcbsim.ScenarioError, match="zero_rule"):
        dcbsim.run(dcbsim.load(path, ["scheme.smcc.zero_rule=upward"]))
    short = ["run.duration_ms=100", "scheme.smcc.r_a_mbps=64"]
    a = dcbsim.run(dcbsim.load(path, short), seed=1).ports["sw0:r0"].queue_bytes
    b = dcbsim.run(dcbsim.load(path, short + ["scheme.smcc.zero_rule=sign_bit"]), seed=1).ports["sw0:r0"].queue_bytes
    assert not np.array_equal(a, b)


def test_fig22_runs_the_two_stage_a_with_the_captions_r_b_of_32():
    # Fig. 22's caption: T1 = 8 KB, R_large = 256, R_small = 128 and R_b = 32 (Fig. 19 keeps 64).
    from dcbsim.papers import smcc

    assert "scheme.smcc.r_b_mbps=32" in smcc.FIG22
    assert set(smcc.TWO_STAGE) <= set(smcc.FIG22)
    assert not any("r_b" in o for o in smcc.TWO_STAGE), "Fig. 19's two-stage run keeps R_b = 64"
