"""Fairness of a run: Jain's index, the min/max ratio and the deviation from fair shares.

Every measure compares each flow's delivered throughput with its weighted max-min fair
share at the same sample (computed by the engine from the ports' capacities and the
flows' demands at that time), so weights, flows that want less than their share and
flows that come and go are all accounted for. A sample counts when at least two flows
have a share; a flow counts at the samples where it has one.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np


def jain_index(x: Sequence[float] | np.ndarray) -> float:
    """Jain's index ``(Σx)² / (n·Σx²)``: 1 when all equal, 1/n when one has everything."""
    x = np.asarray(x, dtype=float)
    denominator = x.size * float(np.sum(x * x))
    return float(np.sum(x)) ** 2 / denominator if denominator > 0 else 1.0


def _per_sample(throughput: np.ndarray, fair: np.ndarray) -> tuple[list[float], list[float]]:
    """Jain's index and the min/max ratio of ``throughput / fair share`` at each sample
    (column) with at least two flows sharing."""
    has_share = fair > 0
    normalized = np.divide(throughput, fair, out=np.zeros_like(throughput), where=has_share)
    jain, min_max = [], []
    for k in np.flatnonzero(has_share.sum(axis=0) >= 2):
        x = normalized[has_share[:, k], k]
        jain.append(jain_index(x))
        min_max.append(float(x.min() / x.max()) if x.max() > 0 else 0.0)
    return jain, min_max


def _flow_rms(throughput: np.ndarray, fair: np.ndarray) -> tuple[float | None, float | None]:
    """One flow's root-mean-square deviation from its share over the samples where it
    has one (bits/s), and relative to its mean share."""
    on = fair > 0
    if not on.any():
        return None, None
    deviation = float(np.sqrt(np.mean((throughput[on] - fair[on]) ** 2)))
    return deviation, deviation / float(fair[on].mean())


def _flows_rms(throughput: np.ndarray, fair: np.ndarray) -> tuple[list, list]:
    """:func:`_flow_rms` of each row. The rows with a share at every sample (the usual
    case) are taken together, with the same sums as one by one; the others in turn."""
    full = np.all(fair > 0, axis=1) if fair.shape[1] else np.zeros(fair.shape[0], dtype=bool)
    rms: list = [None] * fair.shape[0]
    relative: list = [None] * fair.shape[0]
    rows = np.flatnonzero(full)
    if rows.size:
        t, f = throughput[rows], fair[rows]
        deviation = np.sqrt(np.mean((t - f) ** 2, axis=1))
        for i, d, r in zip(rows.tolist(), deviation.tolist(), (deviation / np.mean(f, axis=1)).tolist()):
            rms[i], relative[i] = d, r
    for i in np.flatnonzero(~full).tolist():
        rms[i], relative[i] = _flow_rms(throughput[i], fair[i])
    return rms, relative


def _measures(jain: list[float], min_max: list[float], rms: list, relative: list, pooled: float | None,
              mean_share: float) -> dict[str, object]:
    return {
        "jain": float(np.mean(jain)) if jain else None,
        "min_max": float(np.mean(min_max)) if min_max else None,
        "share_rms_bps": pooled,
        "share_rms_rel": pooled / mean_share if pooled is not None and mean_share > 0 else None,
        "per_flow_rms_bps": rms,
        "per_flow_rms_rel": relative,
    }


def fairness(throughput: np.ndarray, fair: np.ndarray) -> dict[str, object]:
    """Fairness measures from two (flows × samples) arrays of bits/s.

    Returns Jain's index and the min/max ratio of ``throughput / fair share``, each
    averaged over the samples with at least two flows sharing; per flow, the
    root-mean-square deviation of its throughput from its share (bits/s, and relative
    to its mean share); and the same deviation pooled over every (flow, sample) with a
    share, in bits/s and relative to the mean share.
    """
    throughput = np.atleast_2d(np.asarray(throughput, dtype=float))
    fair = np.atleast_2d(np.asarray(fair, dtype=float))
    has_share = fair > 0
    jain, min_max = _per_sample(throughput, fair)
    rms, relative = _flows_rms(throughput, fair)
    pooled = float(np.sqrt(np.mean((throughput[has_share] - fair[has_share]) ** 2))) if has_share.any() else None
    mean_share = float(fair[has_share].mean()) if has_share.any() else 0.0
    return _measures(jain, min_max, rms, relative, pooled, mean_share)


def fairness_in_blocks(flows: int, samples: int, block: int, rows: Callable[[int, int], tuple[np.ndarray, np.ndarray]],
                       flow: Callable[[int], tuple[np.ndarray, np.ndarray]]) -> dict[str, object]:
    """:func:`fairness` of series too large to hold at once: ``rows(a, b)`` gives the
    (flows × samples) throughput and fair shares of samples ``a..b`` (taken ``block``
    samples at a time), ``flow(i)`` flow ``i``'s whole series. The per-sample and
    per-flow measures are those of :func:`fairness`; the pooled deviation sums flow by
    flow, so it may differ from it in the last digits."""
    jain: list[float] = []
    min_max: list[float] = []
    for a in range(0, samples, max(1, block)):
        j, m = _per_sample(*rows(a, min(samples, a + max(1, block))))
        jain += j
        min_max += m
    rms, relative = [], []
    squares = shares = 0.0
    count = 0
    for i in range(flows):
        throughput, fair = flow(i)
        r, rel = _flow_rms(throughput, fair)
        rms.append(r)
        relative.append(rel)
        on = fair > 0
        squares += float(np.sum((throughput[on] - fair[on]) ** 2))
        shares += float(np.sum(fair[on]))
        count += int(on.sum())
    pooled = math.sqrt(squares / count) if count else None
    return _measures(jain, min_max, rms, relative, pooled, shares / count if count else 0.0)
