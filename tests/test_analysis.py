"""Analytic models against numbers worked by hand or printed in the papers."""

from __future__ import annotations

import numpy as np
import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim.analysis import dcc, dsm, maxmin


def test_dcc_ratios_of_table_vi():
    lan = dcc.Aimd(1.0, 0.5)
    # Table VI prints 1:1.96 for AIMD(1.5, 0.8); eq. 6 gives sqrt(7.5)/sqrt(2) = 1.936.
    assert dcc.ratios([lan, dcc.Aimd(1.5, 0.8)])[1] == pytest.approx(1.936, abs=0.001)
    assert dcc.ratios([lan, dcc.Aimd(1.0, 0.8)])[1] == pytest.approx(1.58, abs=0.005)


def test_dcc_random_marking_window_matches_known_constants():
    # b = 0: the window restarts from 0 at each mark, E[W] = sqrt(2a / (pi p)).
    assert dcc.random_marking_window(dcc.Aimd(1.0, 0.0), 0.01) == pytest.approx(7.979, abs=0.001)
    # TCP's AIMD(1, 0.5): E[W] = 1.3098 / sqrt(p) (Ott, Kemperman and Mathis), against
    # eq. 5's sqrt(2 / p) = 1.414 / sqrt(p).
    assert dcc.random_marking_window(dcc.Aimd(1.0, 0.5), 0.01) == pytest.approx(13.098, abs=0.01)
    # A Monte Carlo of the marked sawtooth (400,000 marks, p = 0.05) gives 3.334 for
    # AIMD(0.6, 0.2) and 11.924 for AIMD(1.5, 0.8).
    assert dcc.random_marking_window(dcc.Aimd(0.6, 0.2), 0.05) == pytest.approx(3.334, rel=0.003)
    assert dcc.random_marking_window(dcc.Aimd(1.5, 0.8), 0.05) == pytest.approx(11.924, rel=0.003)
    # The ratios leave eq. 6 where b is small: Table VI's case 1 is 2.035 (eq. 6: 1.936),
    # SAN AIMD(1, 0.5) : LAN AIMD(0.6, 0.2) 1.75 (eq. 6: 1.63).
    lan = dcc.Aimd(1.0, 0.5)
    assert dcc.random_marking_ratios([lan, dcc.Aimd(1.5, 0.8)])[1] == pytest.approx(2.035, abs=0.001)
    assert dcc.random_marking_ratios([dcc.Aimd(0.6, 0.2), lan])[1] == pytest.approx(1.754, abs=0.001)


def test_dcc_marking_probability_of_exp_4():
    # Exp. 4: C = 5.52 rate steps for the two SRs, AIMD(1.5, 0.8) and AIMD(1, 0.5): p = 0.56, 2700 B.
    p = dcc.marking_probability([(1, dcc.Aimd(1.5, 0.8)), (1, dcc.Aimd(1.0, 0.5))], 5.52)
    assert p == pytest.approx(0.566, abs=0.002)
    assert dcc.sampling_bytes(p) == pytest.approx(2650, abs=50)
    # At that p both windows together fill C exactly (eq. 7 with equality).
    total = dcc.steady_window(dcc.Aimd(1.5, 0.8), p) + dcc.steady_window(dcc.Aimd(1.0, 0.5), p)
    assert total == pytest.approx(5.52)


def test_dcc_propose_reaches_the_targets_of_exp_5():
    settings = dcc.propose([1.0, 1.4, 1.8])
    assert settings[0] == dcc.Aimd(1.0, 0.5)
    got = dcc.ratios(settings)
    assert got[1] == pytest.approx(1.4, rel=0.05) and got[2] == pytest.approx(1.8, rel=0.05)
    assert settings[1].a <= settings[2].a and settings[1].b <= settings[2].b
    with pytest.raises(ValueError):
        dcc.Aimd(1.0, 1.0)


def test_dsm_defaults_at_10_gbps_and_300_us():
    s = dsm.calculate(10.0, 300.0)
    assert s.period_s == pytest.approx(80e-6)
    assert s.m == 4
    assert s.c_hz * 2 == pytest.approx(20e3)
    assert s.a_hz == pytest.approx(20e3 / 34) and s.b_hz == pytest.approx(20e3 / 11)
    assert dsm.calculate(100.0, 160.0).m == 20


def test_dsm_eq30_rule_bounds_c_like_a():
    s = dsm.calculate(10.0, 500.0, c_rule="eq30")
    assert s.m == 7 and s.c_hz == s.a_hz == pytest.approx(20e3 / 79)
    assert "eq. 30" in {r[0]: r[2] for r in s.rows()}["c"]
    with pytest.raises(ValueError):
        dsm.calculate(10.0, 300.0, c_rule="slow")


def test_dsm_closed_loop_settles_when_the_delay_is_the_design_one():
    s = dsm.calculate(10.0, 320.0)  # m = 4, T = 80 us: the true delay is exactly m*T
    loop = dsm.closed_loop(s, 10e9, 4 * s.period_s)
    assert loop.settles()
    assert abs(loop.queue_bits[-1]) < 1.0 and loop.rate_bps[-1] == pytest.approx(10e9, rel=1e-6)


def test_dsm_paper_gains_do_not_tolerate_a_shorter_loop_but_eq30_does():
    # Section IV-C: an m above the true delay "can always keep stable". With c = H/2
    # the fluid model of the paper's own equations keeps oscillating at 0.8 m*T.
    fast, eq30 = dsm.calculate(10.0, 300.0), dsm.calculate(10.0, 300.0, c_rule="eq30")
    short = 0.8 * fast.m * fast.period_s
    assert not dsm.closed_loop(fast, 10e9, short).settles()
    assert dsm.closed_loop(eq30, 10e9, short).settles()
    # Fig. 8's random loop delays, 400-800 us (m = 10).
    rng = np.random.default_rng(1)
    delays = rng.uniform(400e-6, 800e-6, 3000)
    assert not dsm.closed_loop(dsm.calculate(10.0, 800.0), 10e9, delays, samples=3000).settles()
    assert dsm.closed_loop(dsm.calculate(10.0, 800.0, c_rule="eq30"), 10e9, delays, samples=3000).settles()


def test_dsm_closed_loop_keeps_the_queue_in_its_buffer():
    s = dsm.calculate(10.0, 300.0)
    q0, buffer = 64 * 1024 * 8, 128 * 1024 * 8
    loop = dsm.closed_loop(s, 10e9, 0.8 * 4 * s.period_s, start_rate_bps=50e9, buffer_bits=buffer)
    assert min(loop.queue_bits) >= -q0 - 1e-6 and max(loop.queue_bits) <= buffer - q0 + 1e-6
    assert max(loop.queue_bits) == pytest.approx(buffer - q0)
    with pytest.raises(ValueError):
        dsm.closed_loop(s, 10e9, [-1e-6])


def test_max_min_on_a_parking_lot():
    caps = {"c1c2": 10.0, "c2c3": 10.0}
    paths = {"f1": ["c1c2", "c2c3"], "f2": ["c1c2", "c2c3"], "f3": ["c1c2"], "f4": ["c2c3"]}
    rates = maxmin.weighted_max_min(caps, paths)
    assert rates == pytest.approx({"f1": 10 / 3, "f2": 10 / 3, "f3": 10 / 3, "f4": 10 / 3})
    # Without f4 the second link has room, but f1 and f2 are held by the first.
    del paths["f4"]
    assert maxmin.weighted_max_min(caps, paths)["f1"] == pytest.approx(10 / 3)


def test_weighted_max_min_follows_weights_and_demands():
    caps = {"l": 10.0}
    paths = {f: ["l"] for f in "abcd"}
    rates = maxmin.weighted_max_min(caps, paths, weights={"a": 4, "b": 3, "c": 2, "d": 1})
    assert rates == pytest.approx({"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0})
    # FQCN Fig. 8: flow a capped at 1 -> the rest share 9 by weight 3:2:1.
    rates = maxmin.weighted_max_min(caps, paths, weights={"a": 4, "b": 3, "c": 2, "d": 1}, demands={"a": 1.0})
    assert rates == pytest.approx({"a": 1.0, "b": 4.5, "c": 3.0, "d": 1.5})


def test_the_model_command(tmp_path):
    import subprocess
    import sys

    run = lambda *a: subprocess.run([sys.executable, "-m", "dcbsim.cli", "model", *a], capture_output=True, text=True, timeout=120)
    done = run("dcc", "--aimd", "1,0.5", "--aimd", "1.5,0.8", "--capacity", "5.52", "--plot", str(tmp_path / "r.png"))
    assert done.returncode == 0, done.stderr
    assert "1.936" in done.stdout and "0.566" in done.stdout and (tmp_path / "r.png").exists()
    done = run("dsm", "--capacity-gbps", "10", "--loop-us", "300")
    assert done.returncode == 0 and "m  " in done.stdout and "10000.0 Hz" in done.stdout
    done = run("dsm", "--capacity-gbps", "10", "--loop-us", "300", "--c-rule", "eq30")
    assert done.returncode == 0 and "588.2 Hz" in done.stdout and "10000.0 Hz" not in done.stdout
    done = run("dcc", "--aimd", "1,1")
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_qcn_convergence_model_matches_the_paper_and_the_simulator():
    from dcbsim.analysis.qcn_convergence import VARIANTS, QcnModel
    from dcbsim.papers import Runs, qcnt

    model = QcnModel()
    # §V: p[Fb>0] is about 0.2 whatever the rates.
    assert model.solve_p_fb([900e6, 100e6]) == pytest.approx(0.2, abs=0.04)
    assert model.solve_p_fb([500e6, 500e6]) == pytest.approx(0.2, abs=0.04)
    # Fig. 5: about 12 s from (900, 100) Mb/s; the model gives 13.5 s.
    t_model = model.convergence_time([900e6, 100e6])
    assert t_model == pytest.approx(12.0, rel=0.2)
    # Fig. 10: the timer at 2.4 ms converges several times faster.
    assert VARIANTS["QCN-Timer, T = 2.4 ms"].convergence_time([900e6, 100e6]) < t_model / 3
    # Agreement with our simulator's QCN from (900, 100) (median of 12 seeds): within 30 %.
    t_sim = qcnt.convergence(Runs("qcnt"), qcnt.BASE)
    assert t_sim == pytest.approx(t_model, rel=0.3)
    # The model's rates conserve the capacity and move towards each other.
    _, rates = model.evolve([900e6, 100e6], 5.0)
    assert rates.sum(axis=1) == pytest.approx(1e9, rel=1e-3)
    assert rates[-1, 0] < 900e6 and rates[-1, 1] > 100e6


def test_theorem_2_conditions_worked_by_hand():
    from dcbsim.analysis import fluid

    c = fluid.frames_per_s(1.0)  # 122070.3 frames/s of 1 KB
    # (2) √(Gd/4C)·w/p = √(1/128/488281)·200 = 0.0253.
    conditions = fluid.theorem2(0.0012, 2.0, 0.01, 1 / 128, c, 2, 10.0, 0.6 * c)
    assert [x.holds for x in conditions] == [True, True, True]
    assert "0.0253" in conditions[1].detail
    # (1) fails when the target rate is below the fair share: N·R(0) − C < 0 < (2T − w/(pC))·x0.
    assert not fluid.theorem2(0.0012, 2.0, 0.01, 1 / 128, c, 2, 10.0, 0.4 * c)[0].holds
    # (3) needs x0 > 0; (2) fails for a tiny p.
    assert not fluid.theorem2(0.0012, 2.0, 0.01, 1 / 128, c, 2, -1.0, 0.6 * c)[2].holds
    assert not fluid.theorem2(0.0012, 2.0, 1e-5, 1 / 128, c, 2, 10.0, 0.6 * c)[1].holds


def test_smcc_fluid_model_reaches_the_sliding_line_and_theorem_3():
    from dcbsim.analysis import fluid

    c = fluid.frames_per_s(1.0)
    assert all(x.holds for x in fluid.theorem3(2 * 2000.0, 0.0))
    assert not fluid.theorem3(0.0, 0.0)[0].holds and not fluid.theorem3(1.0, 0.5)[1].holds
    model = fluid.SmccFluid(c, 2, a=2000.0, b=500.0)
    tr = model.trajectory(20.0, 0.01 * c, 0.1)
    # From State A the trajectory bends down to y = 0 (the sliding regime) and stays near it.
    assert abs(tr[-1, 2]) < 1e-3 * c
    assert tr[:, 2].min() > -1e-3 * c


def test_qcn_fluid_model_decreases_above_the_switching_line():
    from dcbsim.analysis import fluid

    c = fluid.frames_per_s(1.0)
    model = fluid.QcnFluid(c, 2)
    tr = model.trajectory(20.0, 0.01 * c, 0.01)
    assert model.feedback(20.0, 0.01 * c) < 0
    assert tr[-1, 2] < tr[0, 2], "the rate excess falls while Fb < 0"


def test_dsm_predictor_equals_the_model_and_the_engine():
    import random

    from dcbsim import _core
    from dcbsim.analysis import dsm as model

    rng = random.Random(3)
    m, period = 4, 80e-6
    feedback = [rng.randint(-10**9, 10**9) for _ in range(200)]
    q_f, q_v = model.discrete_model(5000.0, -300.0, feedback, m, period)
    for k in range(len(feedback)):
        sent = feedback[:k]
        mine = model.predict(q_f[k], q_v[k], sent, m, period)
        # Eq. 14 vs eq. 13 with ξ = 0: the prediction is the queue m samples ahead.
        assert mine[0] == pytest.approx(q_f[k + m], rel=1e-9, abs=1e-6)
        assert mine[1] == pytest.approx(q_v[k + m], rel=1e-9, abs=1e-6)
        # The engine's congestion point (O(1) sums) predicts the same.
        engine = _core.dsm_predict(m, period, sent, q_f[k], q_v[k])
        assert engine == pytest.approx(mine, rel=1e-12, abs=1e-6)


def test_qcn_model_parameter_studies_match_the_papers_text():
    from dcbsim.analysis.qcn_convergence import QcnModel

    t = lambda **kw: QcnModel(**kw).convergence_time([900e6, 100e6])
    base = t()
    # Fig. 7: larger G_d is faster, but "even G_d = 1/16 only halves" the time.
    assert t(gd_fb=1 / 256) > base > t(gd_fb=1 / 64) > t(gd_fb=1 / 16)
    assert 0.35 < t(gd_fb=1 / 16) / base < 0.65
    # Fig. 8: a larger R_AI is dramatically faster; Fig. 9: a longer T_AI is slower.
    assert t(r_ai_bps=5e6) < base / 3
    assert t(ai_fraction=37.5 / 150) < base < t(ai_fraction=1.0)


@pytest.mark.parametrize("sampling", ["arriving", "admitted"])
def test_dsm_start_losses_of_the_fluid_model_match_the_engine(sampling):
    # Fig. 5a with c bounded by eq. 30 at 300 us: five line-rate sources into 128 KB.
    # Every drop falls in the first ~20 ms, while State A pulls the aggregate down.
    s = dsm.calculate(10.0, 300.0, c_rule="eq30")
    model = dsm.start_losses(s, 10e9, 300e-6, 50e9, duration_s=0.1, sampling=sampling)
    scenario = dcbsim.load(SCENARIOS / "papers/dsm/fig05a.toml", [
        "scheme.dsm.c_rule=eq30", f"scheme.dsm.sampling={sampling}", "run.duration_ms=100"])
    totals = dcbsim.run(scenario, seed=1).summary["totals"]
    engine = totals["dropped_frames"] / totals["sent_frames"]
    assert engine == pytest.approx(model, rel=0.1)
    assert 0.05 < model < 0.5


def test_dsm_start_losses_fall_when_dropped_frames_are_sampled():
    s = dsm.calculate(10.0, 500.0, c_rule="eq30")
    lost = {m: dsm.start_losses(s, 10e9, 500e-6, 50e9, duration_s=0.1, sampling=m) for m in ("arriving", "admitted")}
    assert lost["arriving"] < 0.5 * lost["admitted"]
    with pytest.raises(ValueError):
        dsm.start_losses(s, 10e9, 500e-6, 50e9, sampling="all")
