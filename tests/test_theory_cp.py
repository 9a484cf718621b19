"""Congestion-point schemes (QCN and its variants, SMCC, DSM, ECM) on dumbbells no paper
publishes: other numbers of senders N, capacities C, loop delays and buffers. Each
check asserts what the scheme's theory predicts there, with its tolerance; the cases
are in ``dcbsim.analysis.variants`` (``python -m dcbsim.analysis.variants_grid SCHEME``
prints a model page's table). The broader grid is ``-m slow``."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from dcbsim.analysis import dsm
from dcbsim.analysis.qcn_convergence import QcnModel
from dcbsim.analysis.variants import Case, convergence_s, dumbbell, first_fair_s, run, windowed_jain
from dcbsim.papers.qcnt import time_to_fairness

Q_EQ_QCN_KB = 33.0
Q0_KB = 64.0
Q_EQ_ECM_KB = 50_000 / 1024
Q_MC_ECM_KB = 80_000 / 1024


def _around_q_eq(m, q_eq_kb: float) -> None:
    """QCN's prediction: the queue oscillates around Q_eq without sustained idling."""
    assert 0.8 * q_eq_kb <= m.queue_kb <= 1.3 * q_eq_kb, m
    assert m.empty <= 0.01, m
    assert m.utilization >= 0.99, m


@pytest.mark.parametrize("senders, gbps, loop_us", [(2, 1, 200), (3, 10, 50), (8, 40, 25), (16, 10, 5), (50, 10, 50), (4, 100, 10)])
def test_qcn_queue_oscillates_around_q_eq(senders, gbps, loop_us):
    """802.1Qau's CP drives Fb = −(Qoff + w·Qδ) to zero, so the queue oscillates around
    Q_eq (33 KB) whatever N and C, inside QCN's delay bound (DSM paper §I: under 500 µs
    at 10 Gb/s, shrinking as C grows; 10 µs at 100 Gb/s is 100 µs at 10 Gb/s in C·loop):
    mean within [0.8, 1.3]·Q_eq (many flows at 1 Gb/s lean on the timer and sit higher),
    empty at most 1 % of the time, utilization ≥ 99 %. At 100 Gb/s, three seeds."""
    seconds = {1: 4.0, 100: 0.3}.get(gbps, 1.0)
    for seed in (1, 2, 3) if gbps == 100 else (1,):
        _around_q_eq(Case("qcn", senders, gbps, loop_us, duration_s=seconds).measure(seed), Q_EQ_QCN_KB)


def test_qcn_with_jumbo_frames_holds_q_eq_counted_in_frames():
    """9000 B frames at 100 Gb/s: Q_eq is a byte count, and 33 KB is under four jumbo
    frames, while Qδ moves in 9 KB steps (w·Qδ = 18 KB of noise per sample, of which only
    the negative Fb acts): the queue sits at 16 ± 7.5 KB, 5 % empty (the same at 1 and
    10 Gb/s: the frame, not C, sets it). With Q_eq the same 22 frames as 33 KB is of
    1500 B ones (198 KB, buffer 600 KB) the prediction holds as with 1500 B frames."""
    case = Case("qcn", 3, 100, 5, 600.0, (("q_eq_kb", 198.0),), frame_bytes=9000, duration_s=0.3)
    _around_q_eq(case.measure(), 198.0)


@pytest.mark.xfail(strict=True, reason="beyond QCN's delay bound: 200 µs at 40 Gb/s is 800 µs at 10 Gb/s in "
                   "bandwidth-delay product, where the DSM paper (§I, §V-B) has QCN underflow (bound < 500 µs at 10 Gb/s)")
def test_qcn_beyond_its_delay_bound_underflows():
    """The same prediction past the stated bound: the queue empties."""
    _around_q_eq(Case("qcn", 2, 40, 200, duration_s=1.0).measure(), Q_EQ_QCN_KB)


@pytest.mark.parametrize("gbps, loop_us, fb_bits, floor", [(40, 100, 6, 1 - 63 / 128), (10, 400, 16, 0.5)])
def test_qcn_cut_per_cnm_is_at_most_half(gbps, loop_us, fb_bits, floor):
    """One CNM cuts CR by G_d·Ψ ≤ G_d·|Fb|max = 1/2 (63/128 with six bits), at any C.
    Two senders: CNMs are at least 18.5·0.85 KB of arrivals apart (1.6 µs at 2 × 40 Gb/s),
    so 0.5 µs samples of CR hold one cut at most; the line-rate start saturates Ψ. Three seeds."""
    for seed in (1, 2, 3):
        r = run(dumbbell("qcn", 2, gbps, loop_us, 300.0, 3.0, 0.5, {"fb_bits": fb_bits}), seed)
        ratios = np.concatenate([f.rate_bps[1:] / f.rate_bps[:-1] for f in r.flows.values()])
        assert ratios.min() >= floor - 1e-6
        assert ratios.min() <= floor + 0.02  # the largest cut is reached


@pytest.mark.parametrize("senders, gbps, loop_us", [(3, 10, 50), (8, 40, 25)])
def test_qcn_rates_are_fair_in_the_long_run(senders, gbps, loop_us):
    """QCN's RPs, sampled in proportion to their rates and cut in proportion to them,
    share the link fairly in the long run (QCN-T paper §V): Jain's index of the
    throughputs over 0.1 s·(1 Gb/s / C) windows of the second half ≥ 0.95."""
    assert Case("qcn", senders, gbps, loop_us, duration_s=2.0).measure().jain >= 0.95


def test_qcn_convergence_time_follows_the_model_at_40_gbps():
    """The QCN-T paper's model (eqs. 6–28; time ∝ 1/C) from (0.9, 0.1)·C at 40 Gb/s:
    0.34 s. Engine (time to min/max ≥ 0.9 of 25 ms averages, median of two seeds)
    within [0.7, 2]× of it; at 1 Gb/s the model says 13.5 s."""
    gbps, start = 40, [36e3, 4e3]
    model = QcnModel(capacity_bps=gbps * 1e9, r_ai_bps=0.5e6 * gbps).convergence_time([r * 1e6 for r in start])
    times = []
    for seed in (1, 2):
        text = dumbbell("qcn", 2, gbps, 20.0, 512.0, 1000.0, 25.0, {"q_eq_kb": 64.0}, start)
        times.append(time_to_fairness(run(text, seed), window_s=1.0 / gbps) or 1.0)
    assert 0.7 * model <= np.median(times) <= 2.0 * model, (model, times)


@pytest.mark.parametrize("gbps", [10, 40, 100])
def test_qcn_t_holds_q_eq_at_higher_rates(gbps):
    """QCN-T's timer is the time to send 150 KB at half of C (§VI: 2.4 ms at 1 Gb/s),
    so at 10, 40 and 100 Gb/s it keeps the queue around Q_eq as at 1 Gb/s. A period fixed
    at 2.4 ms left it 17 % empty at 40 Gb/s (11 ± 10 KB). Three seeds."""
    for seed in (1, 2, 3):
        _around_q_eq(Case("qcn_t", 2, gbps, 5, duration_s=0.5 if gbps < 100 else 0.3).measure(seed), Q_EQ_QCN_KB)


def test_qcn_aimd_holds_q_eq_once_recovered():
    """QCN-AIMD adds R_AI per 150 KB (QCN-T eq. 28): slow after the start's cuts (a
    time constant of 2.4 s at 1 Gb/s), then around Q_eq like QCN (8 senders, 1 Gb/s)."""
    _around_q_eq(Case("qcn_aimd", 8, 1, 5, duration_s=20.0).measure(), Q_EQ_QCN_KB)


@pytest.mark.xfail(strict=True, reason="QCN-T eq. 26: with the timer alone an increase comes every T_t/T_s "
                   "sampling rounds, 125 at 10 Gb/s with T_t = 15 ms (12.5 at 1 Gb/s): the rates recover from "
                   "a cut far slower than the queue drains")
def test_qcn_timer_at_10_gbps_keeps_the_queue():
    """QCN-Timer with the standard's 15 ms timer at 10 Gb/s: the queue around Q_eq."""
    _around_q_eq(Case("qcn_timer", 3, 10, 50, duration_s=2.0).measure(), Q_EQ_QCN_KB)


def _smcc(senders: int, gbps: float, loop_us: float, seconds: float) -> Case:
    return Case("smcc", senders, gbps, loop_us, 128.0, frame_bytes=1024, duration_s=seconds)


def _at_q0(m, tolerance_kb: float = 4.0) -> None:
    """SMCC and DSM: the queue settles at q0 (64 KB), the link kept busy."""
    assert abs(m.queue_kb - Q0_KB) <= tolerance_kb, m
    assert m.empty <= 0.01, m
    assert m.utilization >= 0.995, m


@pytest.mark.parametrize("senders, gbps, loop_us", [(2, 1, 5), (3, 10, 25), (8, 40, 5), (16, 10, 5), (3, 100, 5)])
def test_smcc_queue_settles_at_q0_whatever_n_and_c(senders, gbps, loop_us):
    """SMCC paper, Theorem 3 and §4: y = 0 is the sliding regime, reached from any
    state, and it ends at x = 0, the queue at q0, independent of N and C (the model
    neglects delay, §3: loops of at most 25 µs at 10 Gb/s here). Mean within 4 KB of q0.
    (Not with 50 senders, 49 of them at R_min where the clamp eats their cuts: 57 ± 23 KB
    at 10 Gb/s, 62 ± 8 KB with R_min = 1 Mb/s; see docs/models/smcc.md.) Three seeds."""
    for seed in (1, 2, 3):
        _at_q0(_smcc(senders, gbps, loop_us, {1: 2.0, 100: 0.3}.get(gbps, 0.5)).measure(seed))


@pytest.mark.xfail(strict=True, reason="at SMCC's delay edge: on seed 2 of three the queue is empty 1.1 % of the "
                   "time (61.2 ± 15.5 KB; seeds 1 and 3: 62.4 ± 2.3 and ± 1.7 KB)")
def test_smcc_at_50_us_on_three_seeds():
    """Three senders at 10 Gb/s with a 50 µs loop: the queue at q0 on every seed."""
    for seed in (1, 2, 3):
        _at_q0(_smcc(3, 10, 50, 0.5).measure(seed))


@pytest.mark.xfail(strict=True, reason="SMCC's model neglects delay (§3); the DSM paper (§V-B) finds SMCC's "
                   "tolerable loop delay shrinks as C grows, to tens of µs at 100 Gb/s")
def test_smcc_beyond_its_delay_bound_oscillates():
    """SMCC at 40 Gb/s with a 50 µs loop (8 senders): the queue at q0."""
    _at_q0(_smcc(8, 40, 50, 0.5).measure())


@pytest.mark.xfail(strict=True, reason="SMCC eq. 25 moves a sampled source by the same amount whatever its rate, "
                   "so nothing pulls the rates together; §4.2's fairness argument holds for identical sources only")
def test_smcc_rates_are_fair():
    """The paper's Fig. 17 claim at its own N = 3, 1 Gb/s: Jain's index ≥ 0.95."""
    assert _smcc(3, 1, 5, 4.0).measure().jain >= 0.95


def _dsm(senders: int, gbps: float, loop_us: float, c_rule: str, seconds: float) -> Case:
    params = (("loop_delay_us", float(loop_us)), ("c_rule", c_rule))
    return Case("dsm", senders, gbps, loop_us, 128.0, params, frame_bytes=1000, duration_s=seconds)


@pytest.mark.parametrize(
    "senders, gbps, loop_us, std_kb",
    [(2, 1, 50, 4.0), (3, 40, 100, 4.0), (8, 40, 200, 4.0), (16, 10, 200, 4.0), (50, 10, 100, 10.0), (3, 100, 20, 4.0)],
)
def test_dsm_eq30_queue_at_q0(senders, gbps, loop_us, std_kb):
    """DSM with c from eq. 30's bound: its fluid model (analysis.dsm.closed_loop) settles
    for each of these, and the queue holds q0 within 3 KB whatever N and C, its std at
    most 4 KB. With 50 senders the shares' random walk leaves 49 at R_min, where they
    cannot apply the cuts the predictor counts (eq. 25): std up to 10 KB."""
    settings = dsm.calculate(gbps, loop_us, c_rule="eq30")
    assert dsm.closed_loop(settings, gbps * 1e9, loop_us * 1e-6).settles()
    m = _dsm(senders, gbps, loop_us, "eq30", {1: 2.0, 100: 0.3}.get(gbps, 0.5)).measure()
    _at_q0(m, 3.0)
    assert m.queue_std_kb <= std_kb, m


def test_dsm_eq30_with_jumbo_frames_samples_every_hundredth_frame():
    """DSM's sampling period is T = L·8/(p·C) with L the frame: with 9000 B frames at
    100 Gb/s (three senders, 20 µs) its gains follow T and the queue holds q0 within one
    frame, std under one frame, the port busy. With L fixed at 1000 B, the gains nine
    times too high for the samples, the queue sat empty (0.2 ± 1.2 KB, 98 % of samples)."""
    case = Case("dsm", 3, 100, 20, 128.0, (("loop_delay_us", 20.0), ("c_rule", "eq30")), frame_bytes=9000,
                duration_s=0.3)
    m = case.measure()
    _at_q0(m, 9000 / 1024)
    assert m.queue_std_kb <= 9000 / 1024, m


@pytest.mark.parametrize("senders, gbps, loop_us", [(8, 40, 200), (16, 10, 200)])
def test_dsm_start_drops_follow_the_fluid_model(senders, gbps, loop_us):
    """DSM eqs. 7–9 with the CP of eqs. 24–25 (analysis.dsm.start_losses): N line-rate
    senders into a 128 KB buffer lose a fraction of the offered bits the model gives
    within 10 % (the engine's drops per frame sent, over 0.2 s)."""
    settings = dsm.calculate(gbps, loop_us, c_rule="eq30")
    model = dsm.start_losses(settings, gbps * 1e9, loop_us * 1e-6, senders * gbps * 1e9, duration_s=0.2)
    engine = _dsm(senders, gbps, loop_us, "eq30", 0.2).measure().drops
    assert engine == pytest.approx(model, rel=0.1)


@pytest.mark.parametrize("senders, gbps, loop_us", [(8, 10, 50), (2, 1, 50), (8, 10, 100), (8, 40, 50)])
def test_dsm_paper_gains_follow_the_fluid_model(senders, gbps, loop_us):
    """With the paper's c = H/2 the fluid model (N line-rate senders into the buffer)
    settles at 10 Gb/s with a 50 µs loop (m = 1) and not in the others; the engine holds
    q0 (within 4 KB, utilization ≥ 99.5 %) exactly where the model settles."""
    settings = dsm.calculate(gbps, loop_us)
    settles = dsm.closed_loop(settings, gbps * 1e9, loop_us * 1e-6, start_rate_bps=senders * gbps * 1e9,
                              buffer_bits=128 * 8192).settles()
    m = _dsm(senders, gbps, loop_us, "fast", 2.0 if gbps == 1 else 0.5).measure()
    holds = abs(m.queue_kb - Q0_KB) <= 4.0 and m.utilization >= 0.995
    assert holds == settles, (settles, m)


@pytest.mark.parametrize("senders, gbps, loop_us", [(2, 1, 5), (2, 10, 5), (2, 40, 5), (8, 10, 50), (2, 100, 5)])
def test_ecm_equilibrium_at_q_eq(senders, gbps, loop_us):
    """BCN/ECM (SMCC paper eq. 2): Fb = −(Qoff + w·Qδ)/Q_eq vanishes only at Q_eq, so
    without the self-increase the queue sits at Q_eq at any C, within [0.8, 1.1]·Q_eq:
    the noisy samples pull it a little below, additive rises (Gi·fb·Ru) balancing
    multiplicative cuts (Gd·|fb|·R) only when rises are the likelier. (Without the
    self-increase, sources starve at R_min as N grows, and the few left at C/N_active
    pull it lower: 32 KB with 4 senders at 40 Gb/s.) With Ru fixed at 50 Mb/s the queue
    sat at 23 ± 17 KB, 15 % empty, with 2 senders at 40 Gb/s."""
    case = Case("ecm", senders, gbps, loop_us, params=(("self_increase_mbps", 0.0),),
                duration_s={1: 2.0, 100: 0.3}.get(gbps, 0.5))
    m = case.measure()
    assert 0.8 * Q_EQ_ECM_KB <= m.queue_kb <= 1.1 * Q_EQ_ECM_KB, m
    assert m.empty <= 0.01 and m.utilization >= 0.99, m


@pytest.mark.parametrize("senders, gbps", [(2, 40), (16, 1), (16, 40), (4, 100)])
def test_ecm_self_increase_keeps_the_queue_below_q_mc(senders, gbps):
    """With the rate limiter's self-increase (our choice, DCC §III) the N sources' drift
    lifts the queue above Q_eq (most at 1 Gb/s, where 1 ms is short against the loop's
    own pace), but feedback still holds it below Q_mc and the rates fair (Jain ≥ 0.9)."""
    m = Case("ecm", senders, gbps, 5, duration_s={1: 2.0, 100: 0.3}.get(gbps, 0.5)).measure()
    assert 0.8 * Q_EQ_ECM_KB <= m.queue_kb < Q_MC_ECM_KB, m
    assert m.jain >= 0.9, m


# ---------------------------------------------------------------- buffers


def _target_case(scheme: str, target_kb: float, buffer_kb: float) -> Case:
    """Three senders at 10 Gb/s into a ``buffer_kb`` port, 0.4 s (DSM with its eq.-30
    gains for a 20 µs loop and 1000 B frames, SMCC with 1 KB frames)."""
    if scheme == "dsm":
        return Case("dsm", 3, 10, 20, buffer_kb, (("loop_delay_us", 20.0), ("c_rule", "eq30")), 1000, 0.4)
    return Case(scheme, 3, 10, 5, buffer_kb, frame_bytes=1024 if scheme == "smcc" else 1500, duration_s=0.4)


def _late_drops(case: Case, seed: int = 1) -> int:
    """Frames dropped after the first half of the run: the run less its first half (a
    run of half the length, the same seed, is that half)."""
    def dropped(c: Case) -> int:
        return sum(f.stats["dropped_frames"] for f in run(c.scenario(), seed).flows.values())
    return dropped(case) - dropped(dataclasses.replace(case, duration_s=case.seconds / 2))


TARGETS = [("qcn", Q_EQ_QCN_KB), ("smcc", Q0_KB), ("dsm", Q0_KB), ("ecm", Q_EQ_ECM_KB)]


@pytest.mark.parametrize("scheme, target_kb", TARGETS)
def test_the_queue_target_holds_with_room_and_nothing_is_dropped(scheme, target_kb):
    """With a buffer twice the queue target (66 KB for QCN's Q_eq, 128 KB for SMCC's and
    DSM's q0, 98 KB for ECM's Q_eq) the queue holds its target as with a large buffer
    (QCN within [0.8, 1.3]·Q_eq, SMCC and DSM within 4 KB of q0, ECM within [0.8, 1.1]
    of Q_eq without the self-increase), and after the first half nothing is dropped:
    the start's overshoot is the only loss. Three seeds."""
    for seed in (1, 2, 3):
        case = _target_case(scheme, target_kb, 2 * target_kb)
        if scheme == "ecm":
            case = dataclasses.replace(case, params=(("self_increase_mbps", 0.0),))
        m = case.measure(seed)
        if scheme == "qcn":
            _around_q_eq(m, target_kb)
        elif scheme == "ecm":
            assert 0.8 * target_kb <= m.queue_kb <= 1.1 * target_kb and m.utilization >= 0.99, m
        else:
            _at_q0(m)
        assert _late_drops(case, seed) == 0, (seed, m)


@pytest.mark.parametrize("scheme, target_kb", TARGETS)
def test_a_buffer_below_the_target_drops_and_holds_the_queue_below_it(scheme, target_kb):
    """With half the target's room the queue cannot reach the target, so the feedback
    keeps asking for more (QCN's and ECM's Fb > 0, SMCC's and DSM's Qoff < 0) and frames
    are dropped for as long as the run lasts: drops after the first half, the queue below
    the buffer and so below the target."""
    case = _target_case(scheme, target_kb, target_kb / 2)
    m = case.measure()
    assert m.queue_kb <= target_kb / 2, m
    assert _late_drops(case) > 0, m


# ---------------------------------------------------------------- convergence from an unfair start


def _from_unfair(scheme: str, loop_us: float, params: dict, frame_bytes: int, buffer_kb: float, seconds: float,
                 seed: int = 1):
    """Two senders at 10 Gb/s starting at 9 and 1 Gb/s."""
    text = dumbbell(scheme, 2, 10, loop_us, buffer_kb, seconds * 1e3, 100.0, params, [9000.0, 1000.0], frame_bytes)
    return run(text, seed)


def test_ecm_converges_from_an_unfair_start():
    """ECM cuts a sampled source by Gd·|fb|·R and raises it by Gi·fb·Ru: per unit time a
    source hears in proportion to its rate, so its relative change is Gi·Ru·E[fb⁺] −
    Gd·E[|fb⁻|]·R over the sampling interval, lower for the faster source: the rates are
    pulled together (an AIMD). Bound: the time the self-increase alone (0.1 % of C per ms)
    needs to lift the slow source from 0.1·C to C/2, 0.4 s; the feedback only shortens it.
    From (0.9, 0.1)·C at 10 Gb/s (5 µs loop): min/max of 5 ms averages first ≥ 0.8
    within 0.4 s (measured 0.10 s; 0.22 s without the self-increase, by the feedback
    alone), and fair from then on in the mean (Jain's index of
    10 ms windows over the second half of 0.6 s ≥ 0.95): the shares keep wandering, to
    min/max 0.7 over 50 ms at times, so they do not stay above 0.8 for good. The CP
    samples every 150 KB exactly: the run does not depend on the seed."""
    r = _from_unfair("ecm", 5.0, {}, 1500, 300.0, 0.6)
    t = first_fair_s(r, 5e-3, 0.8)
    assert t is not None and t <= 0.4, t
    assert windowed_jain(r, 0.3, 10e-3) >= 0.95


def test_dsm_keeps_the_shares_it_starts_from():
    """DSM adds the same F_b to whichever source the sampled frame came from, and a
    source is sampled in proportion to its rate: in expectation every rate changes by
    the same fraction, so nothing pulls the shares together and the (0.9, 0.1)·C start is
    kept (the paper makes no fairness claim). 10 Gb/s, 20 µs loop, eq.-30 gains: the
    larger source's share of the throughput over the second half of 0.4 s stays within
    0.1 of 0.9 (measured 0.84; it samples every 100th frame, so no seed dependence)."""
    r = _from_unfair("dsm", 20.0, {"loop_delay_us": 20.0, "c_rule": "eq30"}, 1000, 128.0, 0.4)
    after = r.time_s > 0.2
    thr = [f.throughput_bps[after].mean() for f in r.flows.values()]
    assert abs(thr[0] / sum(thr) - 0.9) <= 0.1, thr


@pytest.mark.xfail(strict=True, reason="SMCC eq. 25 moves a sampled source by the same amount whatever its rate, "
                   "so the shares do a random walk from where they start (here to C and R_min); §4.2's fairness "
                   "argument holds for identical sources only")
def test_smcc_converges_from_an_unfair_start():
    """The paper's fairness claim (§4.2, Fig. 17) from (0.9, 0.1)·C at 10 Gb/s: min/max
    of 5 ms averages ≥ 0.8 within 0.4 s, on any of three seeds."""
    times = [convergence_s(_from_unfair("smcc", 5.0, {}, 1024, 128.0, 0.4, seed), 5e-3, 0.8) for seed in (1, 2, 3)]
    assert any(t is not None for t in times), times


GRID = list(itertools.product([2, 3, 8, 16], [1, 10, 40]))


@pytest.mark.slow
@pytest.mark.parametrize("senders, gbps", GRID)
def test_grid_queues_at_their_targets(senders, gbps):
    """Every N in {2, 3, 8, 16} and C in {1, 10, 40} with a 5 µs loop: QCN around Q_eq,
    SMCC and eq.-30 DSM at q0, ECM between 0.8·Q_eq and Q_mc with its fair rates."""
    seconds = 2.0 if gbps == 1 else 0.5
    _around_q_eq(Case("qcn", senders, gbps, 5, duration_s=4.0 if gbps == 1 else 1.0).measure(), Q_EQ_QCN_KB)
    _at_q0(_smcc(senders, gbps, 5, seconds).measure(), 5.0)
    _at_q0(_dsm(senders, gbps, 5, "eq30", seconds).measure(), 2.0)
    ecm = Case("ecm", senders, gbps, 5, duration_s=seconds).measure()
    assert 0.8 * Q_EQ_ECM_KB <= ecm.queue_kb < Q_MC_ECM_KB and ecm.jain >= 0.9, ecm
