"""The fairness and transport schemes against their theory on variants no paper
publishes: other numbers of senders, capacities, delays, buffers and weights.

Each check names the theory it asserts and its tolerance. The scenarios are built in
code (`theory_scenarios.py`); the numbers they give are in the models' pages, under
"Checked against theory". A broader grid runs with ``-m slow``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dcbsim.analysis import dcc as dcc_model
from dcbsim.analysis.maxmin import weighted_max_min
from theory_scenarios import FRAME, after, dcc_classes, dumbbell, incast, jain, mean_throughputs, parking_lot, run, share_ratios

# ---------------------------------------------------------------- FQCN, AF-QCN


def _fqcn(n, gbps, weights=None, scheme="fqcn", seed=1, duration_ms=None):
    duration_ms = duration_ms or (1600.0 if gbps <= 1 else 400.0)
    r = run(dumbbell(n, gbps, scheme=scheme, weights=weights, duration_ms=duration_ms), seed)
    return r, duration_ms / 2e3


@pytest.mark.parametrize("n, gbps", [(2, 1), (8, 10), (16, 40)])
def test_fqcn_equal_weights_get_equal_shares(n, gbps):
    """FQCN (Zhang and Ansari, eqs. 7–9): the congestion point notifies only the flows
    above their fair share, so N equal flows converge to C/N each, at any N and C.
    Tolerance: every flow within 3 % of C/N over the second half of the run."""
    r, warm = _fqcn(n, gbps)
    ratios = share_ratios(r, warm)
    assert all(abs(x - 1) <= 0.03 for x in ratios.values()), ratios
    for f in r.flows.values():
        assert f.fair_share_bps[after(r, warm)].mean() == pytest.approx(gbps * 1e9 / n, rel=1e-3)


@pytest.mark.parametrize("n, gbps, weights", [(2, 40, (3, 1)), (3, 1, (1, 2, 5)), (3, 100, (1, 2, 5))])
def test_fqcn_weighted_shares(n, gbps, weights):
    """FQCN's weighted shares M_i = W_i/ΣW·ΣB: each flow gets W_i/ΣW of the port.
    Tolerance: the heaviest flows within 3 %; the weight-1 flow beside heavier ones
    within 6 % (it is often the only culprit of a short sampling interval and takes the
    whole Ψ: docs/models/fqcn.md, Validation)."""
    r, warm = _fqcn(n, gbps, weights)
    ratios = list(share_ratios(r, warm).values())
    lightest = int(np.argmin(weights))
    for i, x in enumerate(ratios):
        assert abs(x - 1) <= (0.06 if i == lightest else 0.03), ratios


@pytest.mark.parametrize("gbps", [1, 40, 100])
def test_fqcn_holds_the_queue_at_qeq_with_full_use(gbps):
    """FQCN keeps QCN's congestion point: the queue settles at Qeq (33 KB) and the port
    stays busy, whatever its capacity (up to 100 Gb/s). Tolerance: mean queue within
    10 % of Qeq, utilization ≥ 99.5 % after the warm-up."""
    r, warm = _fqcn(3, gbps, (1, 2, 5), duration_ms=1600.0 if gbps <= 1 else 200.0)
    q = r.ports["sw0:r0"].queue_bytes[after(r, warm)]
    assert q.mean() == pytest.approx(33 * 1024, rel=0.10)
    assert sum(mean_throughputs(r, warm).values()) >= 0.995 * gbps * 1e9


PARKING_LOTS = [
    (10, 4, {"L": (1, 1), "A": (1,), "B": (1,)}),
    (40, 10, {"L": (1,), "A": (1, 2), "B": (3, 1)}),
]


@pytest.mark.parametrize("c1, c2, groups", PARKING_LOTS)
def test_fqcn_parking_lot_reaches_weighted_max_min(c1, c2, groups):
    """FQCN on two bottlenecks of different capacity (10/4 and 40/10 Gb/s), flows
    crossing one or both, weights 1, 2, 3: each flow gets its weighted max-min share
    (water-filling, `analysis.maxmin`), which the engine's per-sample fair share
    matches. Tolerance: within 3 % of the share."""
    text, paths, weights = parking_lot("fqcn", c1, c2, groups)
    r = run(text)
    shares = weighted_max_min({"t1": c1 * 1e9, "t2": c2 * 1e9}, paths, weights)
    got = mean_throughputs(r, 0.2)
    m = after(r, 0.2)
    for name, share in shares.items():
        assert r.flows[name].fair_share_bps[m].mean() == pytest.approx(share, rel=1e-3)
        assert got[name] == pytest.approx(share, rel=0.03), (name, got[name], share)


def _share_rms(r, warm):
    ratios = np.array(list(share_ratios(r, warm).values()))
    return float(np.sqrt(np.mean((ratios - 1) ** 2)))


@pytest.mark.parametrize("n, gbps, weights", [(16, 10, None), (3, 10, (1, 2, 5)), (2, 40, (3, 1))])
def test_afqcn_lies_between_qcn_and_fqcn(n, gbps, weights):
    """The FQCN paper's comparison (§II, §VI): AF-QCN's flow-dependent feedback makes
    QCN fairer, and FQCN's notification of every overrated flow fairer still. Measure:
    the root-mean-square relative deviation of the flows' throughputs from their
    (weighted) shares. Tolerance: strict order QCN > AF-QCN > FQCN, AF-QCN within 20 %
    of the shares."""
    rms = {s: _share_rms(*_fqcn(n, gbps, weights, scheme=s)) for s in ("qcn", "afqcn", "fqcn")}
    assert rms["qcn"] > rms["afqcn"] > rms["fqcn"], rms
    assert rms["afqcn"] < 0.20, rms


# ---------------------------------------------------------------- DCC


DCC_CASES = [
    (1, 1, 1, (1.5, 0.8), (1.0, 0.5)),
    (1, 2, 2, (1.5, 0.8), (1.0, 0.5)),
    (1, 1, 1, (1.0, 0.8), (1.0, 0.5)),
    (1, 1, 1, (3.0, 0.5), (1.0, 0.5)),
    (10, 4, 4, (1.5, 0.8), (1.0, 0.5)),
]


def _dcc_ratio(r, warm=0.3):
    got = mean_throughputs(r, warm)
    a = np.mean([v for k, v in got.items() if k.startswith("a")])
    b = np.mean([v for k, v in got.items() if k.startswith("b")])
    return float(a / b)


@pytest.mark.parametrize("gbps, n1, n2, aimd1, aimd2", DCC_CASES)
def test_dcc_bandwidth_ratio(gbps, n1, n2, aimd1, aimd2):
    """DCC (Fang, Foh and Aung, eq. 6): classes share as sqrt(a_i/(1 − b_i)); under
    independent marks the exact stationary mean window (`random_marking_ratios`)
    corrects it where b is small. On a plain 1 or 10 Gb/s port (no frame-rate limit),
    1–4 sources per class. Tolerance: per-source ratio within 10 % of the exact mean
    (equal to eq. 6 when the b's are equal)."""
    r = run(dcc_classes(gbps, n1, n2, aimd1, aimd2))
    exact = dcc_model.random_marking_ratios([dcc_model.Aimd(*aimd2), dcc_model.Aimd(*aimd1)])[1]
    assert _dcc_ratio(r) == pytest.approx(exact, rel=0.10)


def test_dcc_fills_a_1_gbps_port():
    """DCC eq. 7: the marking probability settles where the classes' windows fill C, so
    a port whose feedback loop holds about one sample (1 Gb/s, 20 µs) is fully used
    without loss. Tolerance: utilization ≥ 99 % after the warm-up, no drop."""
    r = run(dcc_classes(1, 2, 2, (1.5, 0.8), (1.0, 0.5)))
    assert sum(mean_throughputs(r, 0.3).values()) >= 0.99e9
    assert r.ports["sw0:r0"].stats["dropped_frames"] == 0


@pytest.mark.xfail(strict=True, reason=(
    "DCC §IV: the CP sends a decrease at every sample (each 2700 B) while q ≥ T_eq and each cuts W at once, with no "
    "once-per-round-trip limit; at 10 Gb/s a 20 µs loop carries about 9 samples, so one crossing of T_eq compounds "
    "b^k cuts and the queue empties (utilization 0.75). Eq. 7 assumes independent marks; the paper runs 1 Gb/s "
    "links and a 240 Mb/s core, where the loop holds about one sample."))
def test_dcc_fills_a_10_gbps_port():
    """DCC eq. 7 at 10 Gb/s, one source per class: full use expected (≥ 99 %)."""
    r = run(dcc_classes(10, 1, 1, (1.5, 0.8), (1.0, 0.5)))
    assert sum(mean_throughputs(r, 0.3).values()) >= 0.99 * 10e9


def test_dcc_utilization_loss_follows_the_samples_per_loop():
    """The cause of the 10 Gb/s shortfall above, shown by varying one thing: a loop ten
    times shorter (0.5 µs links) or samples ten times sparser (27,000 B) restores most
    of the port (≥ 90 %), the 5 µs links at 2700 B leave it near 75 %."""
    base = sum(mean_throughputs(run(dcc_classes(10, 1, 1, (1.5, 0.8), (1.0, 0.5))), 0.3).values()) / 10e9
    short = sum(mean_throughputs(run(dcc_classes(10, 1, 1, (1.5, 0.8), (1.0, 0.5), delay_us=0.5)), 0.3).values()) / 10e9
    sparse = run(dcc_classes(10, 1, 1, (1.5, 0.8), (1.0, 0.5), scheme_keys="sample_bytes = 27000"))
    sparse = sum(mean_throughputs(sparse, 0.3).values()) / 10e9
    assert base < 0.85 and short > 0.90 and sparse > 0.90, (base, short, sparse)


# ---------------------------------------------------------------- DCTCP


def _dctcp(n, gbps, delay_us, k_frames, duration_ms):
    tables = f"[transport]\necn_k_kb = {k_frames * FRAME / 1024}\n"
    text = dumbbell(n, gbps, delay_us=delay_us, buffer_kb=8192.0, duration_ms=duration_ms, sample_us=100.0,
                    flow_keys='transport = "dctcp"', tables=tables)
    return run(text)


DCTCP_CASES = [
    # N, C (Gb/s), link delay (µs; RTT = 4 × delay), K (frames), run (ms)
    (2, 40, 25, 65, 150),
    (8, 10, 25, 65, 150),
    (16, 10, 10, 65, 150),
    (40, 40, 25, 48, 100),  # K = C·RTT/7: the analysis' bound for full use
    (3, 1, 25, 20, 300),
]


@pytest.mark.parametrize("n, gbps, delay_us, k, duration_ms", DCTCP_CASES)
def test_dctcp_follows_the_sawtooth_analysis(n, gbps, delay_us, k, duration_ms):
    """DCTCP (Alizadeh et al., SIGCOMM 2010, §3.3): with N synchronized flows the queue
    swings between K + N − A and K + N frames, A = ½·sqrt(2N(C·RTT + K)); α ≈ sqrt(2/W*)
    with W* = (C·RTT + K)/N; the port stays fully used when K ≥ C·RTT/7; flows share
    fairly; no loss. Tolerances: the 1st–99th percentile of the queue within 5 frames
    of the band, its std within 35 % of the sawtooth's A/sqrt(12), α within 20 % where
    W* ≥ 10 (the approximation's domain), utilization ≥ 99.5 %, Jain ≥ 0.98."""
    r = _dctcp(n, gbps, delay_us, k, duration_ms)
    m = after(r, duration_ms / 3e3)
    q = r.ports["sw0:r0"].queue_bytes[m] / FRAME
    c_rtt = gbps * 1e9 * 4 * delay_us * 1e-6 / 8 / FRAME
    a = 0.5 * math.sqrt(2 * n * (c_rtt + k))
    assert np.quantile(q, 0.01) >= k + n - a - 5 and np.quantile(q, 0.99) <= k + n + 5, (q.min(), q.max(), k + n - a)
    assert q.std() == pytest.approx(a / math.sqrt(12), rel=0.35)
    w_star = (c_rtt + k) / n
    if w_star >= 10:
        alpha = np.mean([f.alpha[m].mean() for f in r.flows.values()])
        assert alpha == pytest.approx(math.sqrt(2 / w_star), rel=0.20)
    thr = mean_throughputs(r, duration_ms / 3e3)
    assert sum(thr.values()) >= 0.995 * gbps * 1e9
    assert jain(thr.values()) >= 0.98
    assert r.ports["sw0:r0"].stats["dropped_frames"] == 0


def test_dctcp_fills_a_long_fat_path():
    """The analysis at 100 Gb/s over a 200 µs round trip (C·RTT = 1667 frames), two
    flows, K = 65: Qmin = K + N − A = 25 > 0, so the port is fully used once the windows
    have grown (one segment per round trip: about 150 ms). The default receive window
    grows with the path (twice its bandwidth-delay product): a fixed 1 MiB held the two
    flows to 84 % of the port (2 × 1 MiB per round trip). Tolerance: ≥ 99.5 % over the last 0.3 s."""
    r = _dctcp(2, 100, 50, 65, 600)
    assert sum(mean_throughputs(r, 0.3).values()) >= 0.995 * 100e9


# ---------------------------------------------------------------- TCP incast


def _timeout_share(r):
    s = r.incast.summary()
    return 1.0 if s["blocks"] == 0 else s["blocks_with_timeouts"] / s["blocks"]


def _onset(gbps, buffer_kb, servers, delay_us, jitter_us=20.0):
    """The fewest servers from which on (over ``servers``) at least half the blocks
    suffer a retransmission timeout; and the goodput (share of C) at each n. The
    servers answer within ``jitter_us`` of the request."""
    shares, goodput = [], []
    for n in servers:
        r = run(incast(n, gbps, buffer_kb, delay_us=delay_us, jitter_us=jitter_us))
        shares.append(_timeout_share(r))
        goodput.append(r.incast.goodput_bps / (gbps * 1e9))
    collapsed = [all(s >= 0.5 for s in shares[i:]) for i in range(len(servers))]
    return next((n for n, c in zip(servers, collapsed) if c), None), dict(zip(servers, goodput))


SERVERS = (4, 6, 8, 12, 16, 24, 32, 48)


def predicted_onset(gbps: float, buffer_kb: float, rtt_us: float, dupack_threshold: int = 3) -> float:
    """Servers from which a synchronized block overflows the buffer so far that each
    server's share of the buffer and the pipe, (B + C·RTT)/n, is below the
    ``dupack_threshold`` + 1 segments a loss needs to be repaired by fast retransmit:
    it then waits for a timeout (Phanishayee et al., FAST 2008; Vasudevan et al.,
    SIGCOMM 2009)."""
    return (buffer_kb * 1024 + gbps * 1e9 * rtt_us * 1e-6 / 8) / ((dupack_threshold + 1) * FRAME)


def test_tcp_incast_onset_scales_with_the_buffer():
    """TCP incast: goodput collapses once the servers' synchronized windows overflow the
    buffer so far that most blocks end in a timeout; the onset grows with the buffer as
    (B + C·RTT)/(4 segments) (:func:`predicted_onset`). At 1 Gb/s, RTT 100 µs, 64 KB
    SRUs, RTO_min 200 ms, buffers 32 and 128 KB (predicted 7.5 and 23.9 servers).
    Tolerance: each onset within 35 % of the prediction (the grid of n is coarse), the
    ratio of the two between 2 and 4.5; beyond the onset goodput below 10 % of C."""
    small, goodput_small = _onset(1, 32, SERVERS, 25.0)
    large, goodput_large = _onset(1, 128, SERVERS, 25.0)
    assert small is not None and large is not None, (goodput_small, goodput_large)
    assert small == pytest.approx(predicted_onset(1, 32, 100), rel=0.35)
    assert large == pytest.approx(predicted_onset(1, 128, 100), rel=0.35)
    assert 2.0 <= large / small <= 4.5, (small, large)
    assert all(g < 0.10 for n, g in goodput_large.items() if n >= large), goodput_large


def test_tcp_incast_onset_at_10_gbps_follows_the_formula_with_synchronized_answers():
    """At 10 Gb/s (RTT 20 µs, C·RTT = 25 KB) the onset follows (B + C·RTT)/(4 segments)
    as at 1 Gb/s when the answers are as synchronized relative to a frame's time: spread
    over 2 µs, 1.7 frames at 10 Gb/s as 20 µs are at 1 Gb/s (the formula assumes the
    servers' windows arrive together). Buffers 32 and 128 KB (predicted 9.6 and 26.0
    servers). Tolerance as at 1 Gb/s: within 35 %, ratio between 2 and 4.5."""
    small, _ = _onset(10, 32, SERVERS, 5.0, jitter_us=2.0)
    large, _ = _onset(10, 128, SERVERS, 5.0, jitter_us=2.0)
    assert small is not None and large is not None
    assert small == pytest.approx(predicted_onset(10, 32, 20), rel=0.35)
    assert large == pytest.approx(predicted_onset(10, 128, 20), rel=0.35)
    assert 2.0 <= large / small <= 4.5, (small, large)


@pytest.mark.xfail(strict=True, reason="answers spread over 20 µs are 17 frame times at 10 Gb/s: the first servers "
                   "fill the buffer and the last find it full and time out (the formula assumes synchronized "
                   "windows); onset 16 servers against 26")
def test_tcp_incast_onset_at_10_gbps_with_answers_spread_over_20_us():
    """With answers spread over 20 µs (17 frames at 10 Gb/s) the onset at a 128 KB
    buffer would follow the formula within 25 % if the spread did not matter."""
    large, _ = _onset(10, 128, SERVERS, 5.0, jitter_us=20.0)
    assert large is not None
    assert large == pytest.approx(predicted_onset(10, 128, 20), rel=0.25)


# ---------------------------------------------------------------- DCQCN, PFC


def _dcqcn(n, gbps, delay_us, duration_ms=100.0):
    tables = "[pfc]\npriorities = [3]\nxoff_kb = 200.0\n"
    text = dumbbell(n, gbps, scheme="dcqcn", delay_us=delay_us, buffer_kb=1024.0, duration_ms=duration_ms,
                    sample_us=100.0, flow_keys="priority = 3", tables=tables, frame=1000)
    return run(text)


@pytest.mark.parametrize("n, gbps, delay_us", [(2, 40, 1), (8, 40, 1), (3, 100, 1), (16, 10, 1)])
def test_dcqcn_fair_shares_and_queue_in_the_red_band(n, gbps, delay_us):
    """DCQCN (Zhu et al., SIGCOMM 2015, §4 fluid model): at the fixed point every flow
    has the same rate and the marking probability lies in (0, P_max), so the queue sits
    between K_min (5 KB) and K_max (200 KB); over PFC nothing is lost. Tolerance: Jain
    ≥ 0.99 over the second half, mean queue within (K_min, K_max), no drop."""
    r = _dcqcn(n, gbps, delay_us)
    m = after(r, 0.05)
    assert jain(mean_throughputs(r, 0.05).values()) >= 0.99
    assert 5 * 1024 < r.ports["sw0:r0"].queue_bytes[m].mean() < 200 * 1024
    assert sum(f.stats["dropped_frames"] for f in r.flows.values()) == 0


PFC_CASES = [
    (40, 10, 5, {}),
    (16, 40, 50, {}),
    (40, 100, 2, {"frame": 9000}),
    (16, 1, 50, {}),
    (8, 40, 1, {"alpha": 0.125}),
]


@pytest.mark.parametrize("n, gbps, delay_us, extra", PFC_CASES)
def test_pfc_loses_nothing(n, gbps, delay_us, extra):
    """802.1Qbb with Annex N's headroom: a lossless priority never drops, whatever the
    fan-in (up to 40), capacity (1–100 Gb/s), delay (up to 50 µs), frame (to 9000 B)
    or threshold (static or dynamic). Every frame sent is delivered or still in the
    network, and the port stays busy (≥ 99.9 %)."""
    threshold = f"alpha = {extra['alpha']}" if "alpha" in extra else "xoff_kb = 40.0"
    text = dumbbell(n, gbps, delay_us=delay_us, buffer_kb=64.0, duration_ms=20.0, sample_us=100.0,
                    flow_keys="priority = 3", tables=f"[pfc]\npriorities = [3]\n{threshold}\n", frame=extra.get("frame", FRAME))
    r = run(text)
    flows = r.flows.values()
    assert sum(f.stats["dropped_frames"] for f in flows) == 0
    assert sum(p["headroom_drops"] for p in r.pfc.values()) == 0
    assert sum(f.stats["sent_frames"] for f in flows) == sum(f.stats["delivered_frames"] + f.stats["in_network_frames"] for f in flows)
    assert sum(mean_throughputs(r, 0.01).values()) >= 0.999 * gbps * 1e9


# ---------------------------------------------------------------- the broader grid


@pytest.mark.slow
@pytest.mark.parametrize("gbps", [1, 10, 40])
@pytest.mark.parametrize("n, weights", [(2, (3, 1)), (3, (1, 2, 5)), (8, None), (16, None), (8, (1, 2, 5, 1, 2, 5, 1, 2))])
def test_fqcn_grid(n, weights, gbps):
    """FQCN's (weighted) shares over the whole grid, two seeds. Tolerance: equal weights
    within 3 %; the weight-1 flows beside heavier ones ≥ 0.88 of their share (the
    documented bias), the others within 4 %."""
    for seed in (1, 2):
        r, warm = _fqcn(n, gbps, weights, seed=seed)
        ratios = list(share_ratios(r, warm).values())
        w = weights or (1,) * n
        for x, wi in zip(ratios, w):
            low = 0.88 if wi == min(w) and max(w) > wi else 0.97
            assert low <= x <= 1.04, (seed, ratios)


