"""Claims the DCC paper makes in its text around Table III, Fig. 7, Table V, Fig. 8, Exp. 4
and Fig. 11 (the tables' and figures' own numbers are in :mod:`dcbsim.papers.dcc`).

Every measure reuses the runs of :mod:`dcbsim.papers.dcc`; none adds a run.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from dcbsim.analysis import dcc as model
from dcbsim.papers import Claim, Outcome, Runs
from dcbsim.papers.dcc_runs import CORE, EXP4_BYTES, FIG8_GRID, T_EQ, T_SC, delivered_mb, exp2_counts, exp4_std_kb, ratio

#: Exp. 4: the core's capacity left to the two sources, in rate steps of u = 40 Mb/s.
EXP4_CAPACITY = 5.52
#: Exp. 4 (Table VII): SAN AIMD(1.5, 0.8), LAN AIMD(1, 0.5).
EXP4_SETTINGS = (model.Aimd(1.5, 0.8), model.Aimd(1.0, 0.5))
#: Exp. 2's queue swings between T_eq and T_sc within milliseconds: its timing claims are
#: read from a run sampled every 50 µs.
FINE_SAMPLES = ("run.sample_interval_us=50",)


def _ethernet_half(runs: Runs) -> Outcome:
    d = delivered_mb(runs, "exp1_ethernet")
    share = d["dropped"] / (d["dropped"] + d["total"])
    return Outcome(f"{100 * share:.1f} % of the arriving bytes dropped", 0.40 <= share <= 0.50)


def exp2_queue_events(runs: Runs) -> tuple[float, float]:
    """Exp. 2 (seed 1): the first time the core's queue reaches T_sc, and how long it then
    takes to fall back to T_eq, both in seconds (the run sampled every 50 µs)."""
    r = runs.get("exp2_misbehaving", FINE_SAMPLES)
    q, t = r.ports[CORE].queue_bytes, r.time_s
    first = int(np.argmax(q >= T_SC))
    back = first + int(np.argmax(q[first:] <= T_EQ))
    return float(t[first]), float(t[back] - t[first])


def _exp2_first_t_sc(runs: Runs) -> Outcome:
    first, _ = exp2_queue_events(runs)
    return Outcome(f"{1e3 * first:.0f} ms", abs(first - 0.33) <= 0.05)


def _exp2_drain(runs: Runs) -> Outcome:
    _, drain = exp2_queue_events(runs)
    return Outcome(f"{1e3 * drain:.0f} ms", abs(drain - 0.03) <= 0.01)


def _exp2_dr2(runs: Runs) -> Outcome:
    c = exp2_counts(runs)
    return Outcome(f"received at DR2 {c['lan_delivered']}, dropped at CS {c['cs_dropped']}",
                   abs(c["lan_delivered"] - 4371) <= 500 and abs(c["cs_dropped"] - 580) <= 200)


def fig8_ratios(runs: Runs) -> dict[tuple[float, float], float]:
    """Fig. 8's simulated SAN : LAN ratios by the LAN's (a, b), SAN AIMD(1, 0.5)."""
    san = model.Aimd(1.0, 0.5)
    return {(lan.a, lan.b): ratio(runs, san, lan) for lan in FIG8_GRID}


def _fig8_monotone(runs: Runs) -> Outcome:
    r = fig8_ratios(runs)
    a_s, b_s = sorted({a for a, _ in r}), sorted({b for _, b in r})
    rows = [[r[(a, b)] for a in a_s] for b in b_s]
    cols = [[r[(a, b)] for b in b_s] for a in a_s]
    breaks = sum(x < y for seq in rows + cols for x, y in pairwise(seq))
    pairs = sum(len(seq) - 1 for seq in rows + cols)
    return Outcome(f"the ratio rises as a or b decreases in {pairs - breaks} of {pairs} grid steps",
                   breaks == 0)


def _fig8_peak(runs: Runs) -> Outcome:
    r = fig8_ratios(runs)
    (a, b), peak = max(r.items(), key=lambda kv: kv[1])
    return Outcome(f"{peak:.2f}, at LAN AIMD({a:g}, {b:g})", abs(peak - 3.5) <= 0.35)


def _fig8_extreme(runs: Runs) -> Outcome:
    sim = fig8_ratios(runs)[(0.2, 0.2)]
    lan, san = model.Aimd(0.2, 0.2), model.Aimd(1.0, 0.5)
    eq6 = model.ratios([lan, san])[1]
    return Outcome(f"simulated {sim:.2f}, eq. 6 {eq6:.2f} ({100 * (sim / eq6 - 1):+.0f} %)", abs(sim / eq6 - 1) <= 0.10)


def _fig11_no_gain(runs: Runs) -> Outcome:
    s2200, s2700 = (exp4_std_kb(runs, b) for b in EXP4_BYTES[:2])
    return Outcome(f"queue std {s2200:.1f} KB at 2200 B, {s2700:.1f} KB at 2700 B", s2200 >= 0.75 * s2700)


FIG7_TIMING_NOTE = (
    "Our queue swings between T_eq and T_sc within milliseconds from the start (50 µs samples). The LAN "
    "source ignores decreases and grows by u = 40 Mb/s a slot to its 240 Mb/s offer; with the four "
    "background flows' 19.2 Mb/s it alone exceeds the core's 240 Mb/s, so the queue reaches T_sc a few "
    "slots after the start: at 16 ms (seeds 1-3: 16, 5, 9 ms). Even with no SAN at all (`--set "
    "flows[0].start_ms=499`) the LAN at its offer takes the queue to T_sc at 45, 64 and 65 ms (seeds 1-3): "
    "while the LAN runs at the offer the paper gives it, no behaviour of the SAN can put T_sc off to "
    "0.33 s. What sets the time is how fast the LAN climbs back to its offer after each halt, i.e. the "
    "slot, which the paper does not give (ours 300 µs). Runs with one change each (`--set "
    "scheme.slot_us=...`, seeds 1-3): slots of 3 ms first reach T_sc at 17, 20, 18 ms; 10 ms at 231, "
    "118, 112 ms; 15 ms at 74, 82, 76 ms; 30 ms at 307, 158, 475 ms. T_halt 10 ms (seed 1) at 20 ms; "
    "the LAN offering 200 or 220 Mb/s (`--set flows[1].max_rate_mbps=...`) at 11 and 6 ms; sampling "
    "(not given for Exp. 2) every 1500, 6000 or 15,000 B (`--set scheme.sample_bytes=...`, seeds 1-3) at "
    "6-35, 4-5 and 4 ms. So only a slot 30 to 100 times ours comes near the paper's 0.33 s, and not "
    "steadily. The fall back to T_eq takes 2-3 ms in nearly all of those runs (11 and 14 ms with seed 3 "
    "at our slot and at 10 ms): once T_sc is hit the LAN's frames are dropped and the sources halted, so the queue drains at the core's 240 Mb/s less the background's 19.2, 50,000 B in 1.8 ms. "
    "A fall of tens of ms comes from eq. 2's slot rule (`--set scheme.increase_every_slot=false`, in "
    "which a slot that saw a decrease adds nothing, so AIMD(1, 1.0) holds its window, x <- 1.0 x, while "
    "the queue is above T_eq): 48, 44 and 4 ms (seeds 1-3), the LAN restarting after its halt and "
    "then held at 80-160 Mb/s while the queue drifts down; there the "
    "first T_sc is at 45, 8 and 7 ms (the start's overshoot). That rule gives the paper's Fig. 11 and "
    "DCC2 split worse than the increase in every slot (docs/models/dcc.md), so we keep the latter. "
    "Neither rule, at the paper's parameters, gives both 0.33 s and 30 ms: the slot and the rule, both "
    "unstated, decide Fig. 7's timing."
)


TABLE5_NOTE = (
    "The run length is not given; Table V implies 0.5 s (DR1 and DR2 receive 9,379 frames through a "
    "core that serves 20,000 frames/s, 1,600 of them background: 0.51 s), which we run. In it our SAN "
    "sends 4,474 frames and our LAN, which ignores decreases and is at its 240 Mb/s offer for 65 % "
    "of its time between halts, 6,817 (4,754 received, 2,027 dropped; in 1 s 8,902 and 13,598). The paper's SAN and LAN "
    "receive 5,008 + 4,371 frames, ours 4,446 + 4,754: nearly the same total, but the paper's LAN sends "
    "fewer frames than its SAN and loses only 580. Runs, one change each (seed 1, SAN / LAN sent, "
    "LAN dropped): eq. 2's slot rule (increase_every_slot = false; AIMD(1, 1.0) then holds its "
    "window in a slot with a decrease) 2,882 / 6,453, 95; slots of 1, 3, "
    "10 ms 3,116 / 6,329, 193; 3,301 / 6,002, 96; 2,548 / 5,732, 47; T_halt 3 or 10 ms 4,196 / 5,545, "
    "525; 2,549 / 3,659, 290; sampling every 1500 B 3,249 / 6,447, 450; restart at W_min = 0.1 4,223 / 6,450, 1,414; departure timing off "
    "unchanged. None brings both near 5,000: a source that never slows sends more than a regulated "
    "one. The paper's Fig. 7, climbing for 0.33 s to T_sc, suggests a LAN source that grows far more "
    "slowly than its text describes (ours reaches T_sc first at 16 ms)."
)


CLAIMS = [
    Claim("dcc", "exp1-ethernet-half", "Table III", "Ethernet: almost half of the arriving traffic is discarded",
          "almost half (its table: 22.2 of 52 MB, 43 %)", "dropped share of the arriving bytes in [40 %, 50 %]",
          _ethernet_half),
    Claim("dcc", "exp2-first-t-sc", "Fig. 7", "The buffer climbs until it hits T_sc at 0.33 s", "0.33 s", "± 50 ms",
          _exp2_first_t_sc, holds_here=False, note=FIG7_TIMING_NOTE),
    Claim("dcc", "exp2-drain", "Fig. 7", "After T_sc the buffer falls back to T_eq in 30 ms (0.33 → 0.36 s)", "30 ms",
          "± 10 ms", _exp2_drain, holds_here=False, note=FIG7_TIMING_NOTE),
    Claim("dcc", "exp2-dr2", "Table V", "Received at DR2 4371 frames, dropped at CS 580", "4371; 580",
          "received ± 500, dropped ± 200 frames", _exp2_dr2, holds_here=False, note=TABLE5_NOTE),
    Claim("dcc", "fig8-monotone", "Fig. 8", "As the LAN's a and b decrease, the SAN : LAN ratio increases",
          "increases", "no step of the grid where the ratio falls as a or b decreases", _fig8_monotone),
    Claim("dcc", "fig8-peak", "Fig. 8", "SAN traffic can use as much as 3.5 times the LAN's", "3.5",
          "largest ratio over the grid ± 10 %", _fig8_peak, holds_here=False,
          note="The paper gives Fig. 8's axes only as a ≤ 1, b ≤ 0.5; our grid (a 0.2-1, b 0.2-0.5, the values "
               "its text names) peaks at LAN AIMD(0.2, 0.2): 3.07 with five seeds (eq. 6 2.83, exact mean under "
               "random marks 3.04). Eq. 6 reaches 3.5 where a/(1 - b) = 0.16, below our grid: runs (five seeds) "
               "at LAN AIMD(0.13, 0.2) give 3.68 (eq. 6 3.51, exact 3.77) and at (0.1, 0.2) 4.01 (eq. 6 4.00). "
               "So our ratios reach 3.5 just past our grid's corner; the paper's grid likely went lower than 0.2."),
    Claim("dcc", "fig8-extreme", "Fig. 8", "At an extreme setting such as LAN AIMD(0.2, 0.2) the analysis agrees "
          "with the simulation", "good agreement", "simulated ratio within 10 % of eq. 6", _fig8_extreme),
    Claim("dcc", "fig11-no-gain", "Fig. 11", "Sampling more often (2200 B) does not much improve on 2700 B",
          "no significant improvement", "queue std at 2200 B ≥ 0.75 × that at 2700 B", _fig11_no_gain),
]
