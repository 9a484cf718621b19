"""Claims of the QCN-T paper (Shu, Zhang, Ren, Lin, "Analysing Convergence of Quantized
Congestion Notification in Data Center Ethernet").

Convergence to fairness is the paper's: the first time at which ε = min/max of the
reaction points' rates reaches 0.9. The paper reads it off its model's expected rates
(Figs. 4, 7-11), which move monotonically, and off its testbed's rate curves (Figs. 1,
5, 6, 12). Our rates are single runs, and each RP's rate swings by 20-60 Mb/s (std of
the 1 ms samples) around its trend, so we take the first time at which the rates
averaged over the preceding second reach ε ≥ 0.9, per seed, and report the median of
12 seeds (a run that does not get there counts as 20 s). Asking ε ≥ 0.9 to hold on
100 ms averages for a whole second instead measures the swing, not the trend: a larger
R_AI or G_d then looks slower, though the trend gets to fairness 2-4 times sooner (see
docs/models/qcn.md, "Convergence time").
"""

from __future__ import annotations

import math
import os
import struct
import tempfile

import numpy as np

import dcbsim
from dcbsim.papers import SCENARIO_DIR, Claim, Outcome, Runs, median
from dcbsim.results import Result, moving_average

SEEDS = 12
HORIZON_S = 20.0
EPSILON = 0.9
#: The rates are averaged over this long before ε is taken.
WINDOW_S = 1.0
BASE = "fig05_qcn_900_100"
FROM_700_300 = ("flows[0].rate_mbps=700", "flows[1].rate_mbps=300")

#: Variants of Figs. 10-11 and 12, as overrides of the Fig. 5 scenario.
VARIANTS = {
    "QCN": (),
    "QCN-T, t = 2.4 ms": ("scheme.name=qcn_t", "scheme.timer_ms=2.4"),
    "QCN-Timer, T = 15 ms": ("scheme.name=qcn_timer",),
    "QCN-Timer, T = 10 ms": ("scheme.name=qcn_timer", "scheme.timer_ms=10"),
    "QCN-Timer, T = 2.4 ms": ("scheme.name=qcn_timer", "scheme.timer_ms=2.4"),
    "QCN-AIMD, R_AI = 0.5": ("scheme.name=qcn_aimd",),
    "QCN-AIMD, R_AI = 5": ("scheme.name=qcn_aimd", "scheme.r_ai_mbps=5"),
    "QCN, R_AI = 5": ("scheme.r_ai_mbps=5",),
}


def time_to_fairness(result: Result, epsilon: float = EPSILON, window_s: float = WINDOW_S) -> float | None:
    """The first time (s), once a whole window has passed, at which the reaction points'
    rates averaged over the preceding ``window_s`` have min/max ≥ ``epsilon``; None if never."""
    step = float(result.time_s[1] - result.time_s[0])
    rates = np.vstack([moving_average(f.rate_bps, max(1, round(window_s / step))) for f in result.flows.values()])
    fair = (rates.min(axis=0) >= epsilon * rates.max(axis=0)) & (result.time_s >= window_s - step / 2)
    first = np.flatnonzero(fair)
    return float(result.time_s[first[0]]) if first.size else None


def convergence(runs: Runs, scenario: str, overrides=()) -> float:
    """Median time to fairness (s) over the seeds."""
    times = [time_to_fairness(runs.get(scenario, overrides, seed)) for seed in runs.seeds(SEEDS)]
    return median(times, HORIZON_S)


def queue_settle_time(runs: Runs, scenario: str) -> float:
    """Median time (s) after which the sampled queue stays within 50 % of Qeq (64 KB)."""
    times = []
    for seed in runs.seeds(SEEDS):
        r = runs.get(scenario, (), seed)
        q = r.ports["sw0:r0"].queue_bytes
        off = np.flatnonzero(np.abs(q - 65536) > 32768)
        times.append(float(r.time_s[off[-1] + 1]) if off.size and off[-1] + 1 < q.size else float(r.time_s[0]))
    return float(np.median(times))


def _queue_stable(runs: Runs) -> Outcome:
    t = queue_settle_time(runs, "fig01_qcn")
    return Outcome(f"{1e3 * t:.0f} ms", t <= 0.1)


def _slow_fairness(runs: Runs) -> Outcome:
    t = convergence(runs, "fig01_qcn")
    # A run that never converges counts as the 20 s horizon: a median there means most seeds
    # never converged, which is not the paper's "after about 10 s".
    return Outcome(f"{t:.1f} s", 5.0 <= t < HORIZON_S)


def cnm_log(pcap_path: str) -> np.ndarray:
    """Every 802.1Qau CNM in a pcap trace (nanosecond timestamps): rows of time (s) and
    quantized feedback (QntzFb)."""
    with open(pcap_path, "rb") as f:
        data = f.read()
    rows, offset = [], 24
    while offset + 16 <= len(data):
        seconds, nanos, included = struct.unpack_from("<III", data, offset)
        frame = data[offset + 16 : offset + 16 + included]
        offset += 16 + included
        at = frame.find(b"\x22\xe7", 12)
        if at >= 0:
            rows.append((seconds + nanos * 1e-9, struct.unpack_from(">H", frame, at + 2)[0] & 0x3F))
    return np.array(rows, dtype=float).reshape(-1, 2)


def cnm_feedback(pcap_path: str) -> list[int]:
    """The quantized feedback (QntzFb) of every 802.1Qau CNM in a pcap trace."""
    return [int(v) for v in cnm_log(pcap_path)[:, 1]]


def _table1(runs: Runs) -> Outcome:
    """Table I: the feedback the CP sends in the Fig. 5 run (seed 1), both RPs' CNMs."""
    path = SCENARIO_DIR / "qcnt" / f"{BASE}.toml"
    with tempfile.TemporaryDirectory() as tmp:
        ports = {port: os.path.join(tmp, f"{n}.pcap") for n, port in enumerate(("sw0:s0", "sw0:s1"))}
        result = dcbsim.run(dcbsim.load(path), seed=1, pcap=ports)
        psi = np.array([v for p in ports.values() for v in cnm_feedback(p)])
    samples = result.ports["sw0:r0"].stats["tx_bytes"] / 150_000
    ones, nonzero = float(np.mean(psi == 1)), psi.size / samples
    return Outcome(f"F_b = 1 in {100 * ones:.1f} % of {psi.size} CNMs; non-zero in {100 * nonzero:.0f} % of samples",
                   ones >= 0.9 and 0.15 <= nonzero <= 0.45)


def _fig5(runs: Runs) -> Outcome:
    t = convergence(runs, BASE)
    return Outcome(f"{t:.1f} s", 6.0 <= t < HORIZON_S)


def _rank_sum_p(faster: list[float], slower: list[float]) -> float:
    """One-sided p-value of the Mann-Whitney rank-sum test that ``faster`` tends to be
    smaller than ``slower`` (normal approximation with ties averaged)."""
    values = np.array(faster + slower)
    ranks = np.empty(values.size)
    order = np.argsort(values, kind="mergesort")
    ranks[order] = np.arange(1, values.size + 1)
    for v in np.unique(values):
        tied = values == v
        ranks[tied] = ranks[tied].mean()
    n1, n2 = len(faster), len(slower)
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    mean, sd = n1 * n2 / 2, np.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return float(0.5 * (1 + math.erf((u + 0.5 - mean) / sd / math.sqrt(2))))


def _fig6(runs: Runs) -> Outcome:
    per_seed = lambda o: [time_to_fairness(runs.get(BASE, o, s)) for s in runs.seeds(SEEDS)]
    slow_t = [HORIZON_S if t is None else t for t in per_seed(())]
    fast_t = [HORIZON_S if t is None else t for t in per_seed(FROM_700_300)]
    slow, fast = float(np.median(slow_t)), float(np.median(fast_t))
    p = _rank_sum_p(fast_t, slow_t)
    return Outcome(f"{fast:.1f} s vs {slow:.1f} s ({slow / fast:.2f}x; rank-sum p = {p:.3f})", fast < slow and p < 0.05)


def _fig12(runs: Runs) -> Outcome:
    qcn = convergence(runs, BASE)
    qcnt = convergence(runs, BASE, VARIANTS["QCN-T, t = 2.4 ms"])
    std = lambda o: np.median([runs.get(BASE, o, s).ports["sw0:r0"].stats["std_bytes"] for s in runs.seeds(SEEDS)])
    q_qcn, q_qcnt = std(()), std(VARIANTS["QCN-T, t = 2.4 ms"])
    ours = f"{qcnt:.1f} s vs {qcn:.1f} s ({qcn / qcnt:.1f}x); queue std {q_qcnt / 1024:.1f} vs {q_qcn / 1024:.1f} KB"
    return Outcome(ours, qcn / qcnt >= 2.0 and q_qcnt <= 1.5 * q_qcn)


def _fig10_fast_timer(runs: Runs) -> Outcome:
    qcn = convergence(runs, BASE)
    timer = convergence(runs, BASE, VARIANTS["QCN-Timer, T = 2.4 ms"])
    return Outcome(f"{timer:.1f} s vs {qcn:.1f} s ({qcn / timer:.1f}x)", qcn / timer >= 2.0)


def _fig10_standard_timer(runs: Runs) -> Outcome:
    qcn = convergence(runs, BASE)
    t10 = convergence(runs, BASE, VARIANTS["QCN-Timer, T = 10 ms"])
    return Outcome(f"T = 10 ms: {t10:.1f} s, QCN: {qcn:.1f} s", t10 < qcn)


def _fig11_aimd(runs: Runs) -> Outcome:
    qcn = convergence(runs, BASE)
    aimd = convergence(runs, BASE, VARIANTS["QCN-AIMD, R_AI = 0.5"])
    return Outcome(f"{aimd:.1f} s vs {qcn:.1f} s", aimd < qcn)


def _fig11_larger_step(runs: Runs) -> Outcome:
    aimd = convergence(runs, BASE, VARIANTS["QCN-AIMD, R_AI = 0.5"])
    aimd5 = convergence(runs, BASE, VARIANTS["QCN-AIMD, R_AI = 5"])
    return Outcome(f"R_AI = 5: {aimd5:.1f} s vs R_AI = 0.5: {aimd:.1f} s", aimd5 <= aimd / 2)


MEASURE = "median of 12 seeds; first time min/max ≥ 0.9 of the rates averaged over the preceding 1 s"

def _fig7_gd(runs: Runs) -> Outcome:
    qcn = convergence(runs, BASE)
    gd16 = convergence(runs, BASE, ("scheme.gd=0.0625",))
    return Outcome(f"G_d = 1/16: {gd16:.1f} s vs 1/128: {qcn:.1f} s ({gd16 / qcn:.2f}x)", 0.3 <= gd16 / qcn <= 0.8)


def _fig8_rai(runs: Runs) -> Outcome:
    times = {rai: convergence(runs, BASE, () if rai == 0.5 else (f"scheme.r_ai_mbps={rai}",)) for rai in (0.5, 1, 5)}
    ours = ", ".join(f"R_AI = {rai}: {t:.1f} s" for rai, t in times.items())
    return Outcome(ours, times[1] <= times[0.5] and times[5] <= times[0.5] / 2)


#: Fig. 9: the byte-counter cycle past Fast Recovery (T_AI), KB, as overrides.
T_AI = {37.5: ("scheme.bc_limit_ai_bytes=37500",), 75: (), 150: ("scheme.bc_limit_ai_bytes=150000",)}


def _fig9_tai(runs: Runs) -> Outcome:
    times = {kb: convergence(runs, BASE, overrides) for kb, overrides in T_AI.items()}
    ours = ", ".join(f"T_AI = {kb:g} KB: {t:.1f} s" for kb, t in times.items())
    return Outcome(ours, times[37.5] < times[75] < times[150])


#: §V-B.3: Fig. 5 at ten times the link rate, R_AI scaled as the standard's 5 Mb/s at 10 Gb/s.
TEN_GBPS = ("topology.rate_gbps=10", "flows[0].rate_mbps=9000", "flows[1].rate_mbps=1000", "scheme.r_ai_mbps=5",
            "run.duration_ms=4000")


def _link_rate(runs: Runs) -> Outcome:
    slow = convergence(runs, BASE)
    times = [time_to_fairness(runs.get(BASE, TEN_GBPS, seed), window_s=WINDOW_S / 10) for seed in runs.seeds(SEEDS)]
    fast = median(times, HORIZON_S / 10)
    return Outcome(f"{fast:.2f} s at 10 Gb/s vs {slow:.1f} s at 1 Gb/s ({slow / fast:.1f}x)", 7.0 <= slow / fast <= 13.0)


CLAIMS = [
    Claim("qcnt", "fig01-queue", "Fig. 1", "2 QCN RPs from line rate: the queue is stable within about 50 ms",
          "≈ 50 ms", "queue within Qeq ± 50 % from ≤ 100 ms on", _queue_stable),
    Claim("qcnt", "fig01-fairness", "Fig. 1", "the rates reach fairness only after about 10 s",
          "> 10 s", f"5 s to below the 20 s horizon, where a run that never converges is counted ({MEASURE})", _slow_fairness, holds_here=False,
          note="The difference lies in the first two of the paper's three stages (§III). Stage 3 matches: from the "
               "(900, 100) Mb/s at which the paper says its testbed leaves stage 2 (§V-B), ours takes 13.9 s (Fig. 5 "
               "row; paper about 12). But with CNMs acted on at once our first congestion episode is mild: the queue "
               "peaks at 170 KB of the 512 KB buffer at 3 ms and never empties, both RPs stay above 250 Mb/s, the "
               "rates at 50 ms are 564/427, 541/457, 460/536 Mb/s (seeds 1-3) and the rates averaged over 0.2-0.5 s "
               "have min/max 0.89 (median of 12 seeds), so little is left to converge: 2.9 s, one seed of 12 above "
               "10 s. What splits the testbed's RPs is a delay between a CP's sample and the RP's cut, which a "
               "NetFPGA switch feeding Dell servers may add and the paper does not give: with a CNM latency near "
               "1 ms the queue overfills (250-265 KB at 3 ms), the cuts in flight take both RPs down, the queue "
               "empties, and stage 1 ends with one RP above and one below TR/10 = 100 Mb/s (TR is still the line "
               "rate: the standard keeps it through a burst of CNMs). The RP above recovers toward 1 Gb/s in Fast "
               "Recovery, (CR + TR)/2 per 150 KB, and takes the link within about 3 ms; the one below has its TR "
               "cut to 125 Mb/s (target-rate reduction) and stays there: seed 1 with an exponential latency of mean "
               "1 ms (`--set 'run.notification_latency_us={exponential=1000}'`) ends stage 1 at 92 and 146 Mb/s, "
               "is at (124, 870) Mb/s at 50 ms, (146, 856) at 200 ms, and takes 16.2 s. Over seeds 1-12 with a "
               "fixed 1 ms and with that exponential latency, the 11 of 24 runs whose stage 1 ends straddling "
               "100 Mb/s end with min/max 0.13-0.32 over 0.2-0.5 s and all take over 10 s (median 14.9 s); the "
               "other 13 have 0.56-0.99 (median time 4.7 s). This is the paper's "
               "picture (its §VI names the threshold about 80 Mb/s and credits the jump to HAI, which in our runs "
               "comes only 90 ms after the last CNM). Times over 12 seeds (median, seeds above 10 s, min/max over "
               "0.2-0.5 s): fixed latency 0.5 ms 3.8 s, 0, 0.75; 0.75 ms 4.5 s, 1, 0.72; 1 ms 13.2 s, 8, 0.22; "
               "1.25 ms 2.3 s, 4, 0.89; 1.5 ms 3.0 s, 2, 0.86; 2 ms (both RPs fall to R_min, below the threshold, "
               "and climb back together) 5.2 s, 3, 0.80; exponential latency of mean 0.5, 1, 2 ms 7.2, 9.3, 10.4 s "
               "(3, 6, 6 seeds above 10 s; min/max 0.75, 0.61, 0.70); uniform on [0, 2] ms 7.7 s, 4. With 1 ms and "
               "no target-rate reduction the split mostly goes (6.7 s, min/max 0.67). A varying latency brings the "
               "paper's 10 s at any mean from 1 to 2 ms, a fixed one only near 1 ms. A latency would be the "
               "testbed's, so it was tried on the testbed figures together (1, 5, 6, 12; never the model's 7-11): "
               "it acts on every start, and what it gives Fig. 1 it mostly takes from Fig. 6 (exponential, mean "
               "1 ms: Fig. 1 9.3 s, but Fig. 6 11.7 vs 16.0 s, rank-sum p = 0.063; uniform on [0.5, 1.5] ms: "
               "Fig. 6 17.8 s, slower than Fig. 5). Of ten latencies only a fixed 1 ms keeps all five testbed rows, "
               "in a resonance 0.25 ms wide (docs/models/qcn.md, \"One latency for the testbed figure set\"); a "
               "value chosen by the claims alone is a fit, so the scenarios keep none, as the paper gives none. "
               "Nothing else the paper or the standard leaves open splits stage 1 (seeds "
               "1-3, 200 ms, rates at 50 ms near 500/500 Mb/s, queue never empty unless said): `hold_target = "
               "false` (queue empties, both RPs reach HAI; 4.1 s over 12 seeds), `target_reduction = false` "
               "(identical: it never acts), a per-frame coin `sampling = \"fixed\"` (peak up to 468 KB; 5.4 s), "
               "`sample_jitter = false`, `bc_jitter = false`, `fb_bits = 16`, the second RP starting 0.5, 2 or 5 ms "
               "later. From a start that near fairness the time is fragile: without the byte counter's ±15 % "
               "jitter 1.0 s, without the sampler's 5.6 s, but with that strictly periodic sampler the "
               "rates stall from (900, 100): no seed of 12 reaches fairness in 20 s (seed 1 is at (761, 241) Mb/s "
               "at 19 s)."),
    Claim("qcnt", "table1", "Table I", "the feedback is small in the steady state: almost every CNM carries F_b = 1",
          "F_b = 1 in 2005 of 2075 CNMs (97 %); non-zero in 30 % of samples (the model solves p[F_b > 0] ≈ 0.2)",
          "F_b = 1 in ≥ 90 % of CNMs; non-zero in 15–45 % of samples (samples = bytes / 150 KB; Fig. 5 run, seed 1)",
          _table1),
    Claim("qcnt", "fig05", "Fig. 5", "from (900, 100) Mb/s the RPs converge in about 12 s",
          "≈ 12 s", f"6 s to below the 20 s horizon (was 6–24 s, whose upper bound a median capped at 20 s could not "
          f"reach) ({MEASURE})", _fig5),
    Claim("qcnt", "fig06", "Fig. 6", "from (700, 300) Mb/s the convergence time is much smaller than from (900, 100)",
          "much smaller (no number given; the paper's model, eq. 25 as we solve it, gives 8.2 vs 13.5 s)",
          f"smaller, by more than the seeds' spread: median lower and a one-sided rank-sum test over the 12 seeds "
          f"of each at p < 0.05 ({MEASURE})", _fig6,
          note="The paper gives no number for Fig. 6, only that the time is \"much smaller\" than Fig. 5's; the "
               "check used to ask for at least 1.5x, a figure we took from our own solution of the paper's model "
               "(eq. 25: 8.2 vs 13.5 s, 1.6x), not from the paper. It now asks that the (700, 300) start be faster "
               "beyond the seed-to-seed spread. Ours is 1.43x (9.7 vs 13.9 s; 1.42x over 24 seeds, 1.40x over 48), "
               "short of the model's 1.6x because the model ignores QCN's timer (its assumption 3): our RPs keep "
               "it, and from (900, 100) it lifts the 100 Mb/s RP early (min/max reaches 0.5 at 4.2 s; 7.8 s with "
               "timer = false; model 6.1 s), while the (700, 300) start gains little from it. With timer = false "
               "the ratio is the model's, 1.6x (15.0 vs 9.4 s; 12 seeds)."),
    Claim("qcnt", "fig12", "Fig. 12", "QCN-T (t = 2.4 ms) converges many times faster than QCN, with a stable queue",
          "many times faster", "≥ 2x faster and queue std ≤ 1.5x QCN's", _fig12),
    Claim("qcnt", "fig10-fast", "Fig. 10", "QCN-Timer with T = 2.4 ms cuts the convergence time several times",
          "several times", "≥ 2x faster than QCN", _fig10_fast_timer),
    Claim("qcnt", "fig10-standard", "Fig. 10 (model)", "even the standard timer (in the model 10 ms: the paper finds no "
          "balance at 15 ms and uses the earlier 10 ms instead) converges faster than QCN",
          "faster (model only)", "QCN-Timer with T = 10 ms faster than QCN", _fig10_standard_timer, holds_here=False,
          note="The paper shows this from its model only (its Fig. 10 is the model's, not the testbed's), and the model supports it only narrowly: eq. 26 as "
               "dcbsim.analysis.qcn_convergence solves it gives 12.4 s at 10 ms against 13.5 s for QCN (and 18.5 s "
               "at the 15 ms the paper sets aside). Our QCN-Timer at 10 ms is slower still, and two of the "
               "model's assumptions make it so, each alone (python -m dcbsim.papers.qcnt_lag; times to min/max 0.5, "
               "0.8, 0.9 of the mean rates, the model's measure). Run as a random process with our RP's rules, the "
               "model's assumptions give its own times (4.3, 9.1, 12.4 s; eq. 26: 4.1, 9.1, 12.4 s). The standard's "
               "TR rule (TR kept on a CNM that comes before any increase since the last one; the model's eq. 13 sets "
               "TR <- CR every time) gives 5.1, 11.4, 15.5 s; feedback from a queue instead of an independent coin "
               "per sample gives 4.9, 11.6, 16.4 s; our simulator 4.8, 11.7, 16.4 s (24 seeds). A queue "
               "notifies an RP less often within two timer periods of its last CNM (0.5-0.8 of its share in our runs) "
               "and an RP quiet for over eight periods, in Active Increase, 1.5-1.8 times its share: the long "
               "quiet stretches that lift the slower RP are cut short. So hold_target = false helps our runs little "
               "(4.5, 10.0, 14.4 s). "
               "The 15 ms timer is not part of the claim: the paper rejects it (\"the so slow rate increase interval could not guarantee the stability of QCN\"); our rates at 15 ms do not reach fairness within 20 s either."),
    Claim("qcnt", "fig07-gd", "Fig. 7", "a larger G_d shortens convergence, but slightly: even G_d = 1/16 only halves it",
          "about half", "G_d = 1/16 takes 0.3–0.8x the time of 1/128", _fig7_gd),
    Claim("qcnt", "fig08-rai", "Fig. 8", "a larger R_AI (0.5, 1, 5 Mb/s) shortens convergence dramatically",
          "dramatically shorter", "1 Mb/s no slower than 0.5; 5 Mb/s at least 2x faster", _fig8_rai),
    Claim("qcnt", "fig09-tai", "Fig. 9", "a shorter Active-Increase cycle T_AI (37.5, 75, 150 KB) shortens convergence",
          "shorter T_AI, shorter time (model: 8.3, 13.5, 22.9 s)", "37.5 KB faster than 75 KB, 75 KB faster than 150 KB",
          _fig9_tai),
    Claim("qcnt", "link-rate", "§V-B.3", "at m times the link rate (same byte counter) convergence takes 1/m of the time",
          "1/m (here m = 10)", "7–13x shorter at 10 Gb/s from (9000, 1000) Mb/s, R_AI = 5 Mb/s, rates averaged over 0.1 s",
          _link_rate, slow=True),
    Claim("qcnt", "fig11-aimd", "Fig. 11", "QCN-AIMD (no Fast Recovery) speeds up convergence",
          "faster", "QCN-AIMD faster than QCN (R_AI = 0.5)", _fig11_aimd),
    Claim("qcnt", "fig11-step", "Fig. 11", "a larger R_AI (5 Mb/s) speeds convergence much more than AIMD alone",
          "much faster", "R_AI = 5 at least 2x faster than R_AI = 0.5", _fig11_larger_step),
]

#: The class of each difference (:data:`dcbsim.papers.KINDS`).
DIFFERENCES = {"fig01-fairness": "unstated", "fig10-standard": "paper"}
