"""Prints, as Markdown, the tables of the models' "Checked against theory" sections:
the variants of `test_theory_fair.py` and what each gives, seed 1.

    .venv/bin/python tests/theory_tables.py fqcn|afqcn|dcc|dctcp|tcp|dcqcn|pfc
"""

from __future__ import annotations

import math
import sys

import numpy as np

from dcbsim.analysis import dcc as dcc_model
from dcbsim.analysis.maxmin import weighted_max_min
from test_theory_fair import (
    DCC_CASES,
    DCTCP_CASES,
    PARKING_LOTS,
    PFC_CASES,
    SERVERS,
    _dcc_ratio,
    _dcqcn,
    _dctcp,
    _fqcn,
    _onset,
    _share_rms,
    predicted_onset,
)
from theory_scenarios import FRAME, after, dcc_classes, dumbbell, jain, mean_throughputs, parking_lot, run, share_ratios


def _row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def fqcn() -> None:
    """FQCN on dumbbells (share ratios, queue, use) and parking lots (max-min)."""
    print(_row("N", "C (Gb/s)", "weights", "throughput / share (min–max)", "queue mean ± std (KB)", "use"))
    print(_row(*["---"] * 6))
    for gbps in (1, 10, 40, 100):
        for n, w in ((2, (3, 1)), (3, (1, 2, 5)), (8, None), (16, None)):
            if gbps == 100 and n > 3:
                continue
            r, warm = _fqcn(n, gbps, w)
            x = list(share_ratios(r, warm).values())
            q = r.ports["sw0:r0"].queue_bytes[after(r, warm)] / 1024
            use = sum(mean_throughputs(r, warm).values()) / (gbps * 1e9)
            print(_row(n, gbps, w or "equal", f"{min(x):.3f}–{max(x):.3f}", f"{q.mean():.1f} ± {q.std():.1f}", f"{use:.4f}"))
    print()
    print(_row("trunks (Gb/s)", "weights (both, first, second trunk)", "throughput / weighted max-min share"))
    print(_row(*["---"] * 3))
    for c1, c2, groups in PARKING_LOTS:
        text, paths, weights = parking_lot("fqcn", c1, c2, groups)
        r = run(text)
        shares = weighted_max_min({"t1": c1 * 1e9, "t2": c2 * 1e9}, paths, weights)
        got = mean_throughputs(r, 0.2)
        cells = ", ".join(f"{k} {got[k] / 1e9:.2f}/{s / 1e9:.2f}" for k, s in shares.items())
        print(_row(f"{c1}/{c2}", " ".join(f"{g}{list(w)}" for g, w in groups.items()), cells))


def afqcn() -> None:
    """RMS relative deviation from the shares: QCN, AF-QCN, FQCN."""
    print(_row("N", "C (Gb/s)", "weights", "QCN", "AF-QCN", "FQCN"))
    print(_row(*["---"] * 6))
    for n, gbps, w in ((16, 10, None), (3, 10, (1, 2, 5)), (2, 40, (3, 1)), (8, 1, None), (16, 1, None), (16, 40, None)):
        rms = [_share_rms(*_fqcn(n, gbps, w, scheme=s)) for s in ("qcn", "afqcn", "fqcn")]
        print(_row(n, gbps, w or "equal", *(f"{x:.3f}" for x in rms)))


def dcc() -> None:
    """Bandwidth ratios against eq. 6 and the exact random-marking mean; use."""
    print(_row("C (Gb/s)", "sources", "AIMD(a, b) vs AIMD(a, b)", "ratio", "eq. 6", "exact", "use"))
    print(_row(*["---"] * 7))
    for gbps, n1, n2, s1, s2 in DCC_CASES + [(10, 1, 1, (1.5, 0.8), (1.0, 0.5))]:
        r = run(dcc_classes(gbps, n1, n2, s1, s2))
        pair = [dcc_model.Aimd(*s2), dcc_model.Aimd(*s1)]
        use = sum(mean_throughputs(r, 0.3).values()) / (gbps * 1e9)
        print(_row(gbps, f"{n1} + {n2}", f"{s1} vs {s2}", f"{_dcc_ratio(r):.3f}", f"{dcc_model.ratios(pair)[1]:.3f}",
                   f"{dcc_model.random_marking_ratios(pair)[1]:.3f}", f"{use:.3f}"))


def dctcp() -> None:
    """Queue band, std, α and use against the sawtooth analysis."""
    print(_row("N", "C (Gb/s)", "RTT (µs)", "K", "queue p1–p99 (band)", "std (A/√12)", "α (sqrt(2/W*))", "use", "Jain"))
    print(_row(*["---"] * 9))
    for n, gbps, delay_us, k, duration_ms in DCTCP_CASES + [(2, 100, 50, 65, 600)]:
        r = _dctcp(n, gbps, delay_us, k, duration_ms)
        warm = 0.3 if gbps == 100 else duration_ms / 3e3
        m = after(r, warm)
        q = r.ports["sw0:r0"].queue_bytes[m] / FRAME
        c_rtt = gbps * 1e9 * 4 * delay_us * 1e-6 / 8 / FRAME
        a = 0.5 * math.sqrt(2 * n * (c_rtt + k))
        alpha = np.mean([f.alpha[m].mean() for f in r.flows.values()])
        thr = mean_throughputs(r, warm)
        print(_row(n, gbps, 4 * delay_us, k, f"{np.quantile(q, 0.01):.0f}–{np.quantile(q, 0.99):.0f} ({k + n - a:.0f}–{k + n})",
                   f"{q.std():.1f} ({a / math.sqrt(12):.1f})", f"{alpha:.3f} ({math.sqrt(2 * n / (c_rtt + k)):.3f})",
                   f"{sum(thr.values()) / (gbps * 1e9):.4f}", f"{jain(thr.values()):.4f}"))


def tcp() -> None:
    """Incast goodput (share of C) against servers, per buffer and answer spread; the onset."""
    for gbps, delay_us, jitter_us in ((1, 25.0, 20.0), (10, 5.0, 20.0), (10, 5.0, 2.0)):
        print(_row("C (Gb/s)", "answers within (µs)", "buffer (KB)", "onset (predicted)", *(f"n = {n}" for n in SERVERS)))
        print(_row(*["---"] * (4 + len(SERVERS))))
        for buffer_kb in (32, 64, 128, 256):
            onset, goodput = _onset(gbps, buffer_kb, SERVERS, delay_us, jitter_us)
            predicted = predicted_onset(gbps, buffer_kb, 4 * delay_us)
            print(_row(gbps, jitter_us, buffer_kb, f"{onset} ({predicted:.1f})", *(f"{goodput[n]:.2f}" for n in SERVERS)))
        print()


def dcqcn() -> None:
    """Shares and queue against the fixed point."""
    print(_row("N", "C (Gb/s)", "link delay (µs)", "Jain", "min/max", "queue mean (KB)", "queue p5–p95 (KB)", "use"))
    print(_row(*["---"] * 8))
    for n, gbps, delay_us in ((2, 40, 1), (3, 40, 2), (8, 40, 1), (16, 40, 1), (3, 100, 1), (2, 10, 1), (8, 10, 5), (16, 10, 1)):
        r = _dcqcn(n, gbps, delay_us)
        m = after(r, 0.05)
        thr = np.array(list(mean_throughputs(r, 0.05).values()))
        q = r.ports["sw0:r0"].queue_bytes[m] / 1024
        print(_row(n, gbps, delay_us, f"{jain(thr):.4f}", f"{thr.min() / thr.max():.3f}", f"{q.mean():.1f}",
                   f"{np.quantile(q, 0.05):.0f}–{np.quantile(q, 0.95):.0f}", f"{thr.sum() / (gbps * 1e9):.4f}"))


def pfc() -> None:
    """Losses and use of lossless incasts."""
    print(_row("senders", "C (Gb/s)", "link delay (µs)", "other", "drops", "headroom drops", "use", "largest queue (KB)"))
    print(_row(*["---"] * 8))
    for n, gbps, delay_us, extra in PFC_CASES:
        threshold = f"alpha = {extra['alpha']}" if "alpha" in extra else "xoff_kb = 40.0"
        text = dumbbell(n, gbps, delay_us=delay_us, buffer_kb=64.0, duration_ms=20.0, sample_us=100.0,
                        flow_keys="priority = 3", tables=f"[pfc]\npriorities = [3]\n{threshold}\n", frame=extra.get("frame", FRAME))
        r = run(text)
        drops = sum(f.stats["dropped_frames"] for f in r.flows.values())
        headroom = sum(p["headroom_drops"] for p in r.pfc.values())
        use = sum(mean_throughputs(r, 0.01).values()) / (gbps * 1e9)
        other = ", ".join(f"{k} {v}" for k, v in extra.items()) or "—"
        print(_row(n, gbps, delay_us, other, drops, headroom, f"{use:.4f}", f"{r.ports['sw0:r0'].stats['max_bytes'] / 1024:.0f}"))


if __name__ == "__main__":
    {"fqcn": fqcn, "afqcn": afqcn, "dcc": dcc, "dctcp": dctcp, "tcp": tcp, "dcqcn": dcqcn, "pfc": pfc}[sys.argv[1]]()
