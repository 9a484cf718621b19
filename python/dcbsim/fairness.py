"""Fairness of a run: Jain's index, the min/max ratio and the deviation from fair shares.

Every measure compares each flow's delivered throughput with its weighted max-min fair
share at the same sample (computed by the engine from the ports' capacities and the
flows' demands at that time), so weights, flows that want less than their share and
flows that come and go are all accounted for. A sample counts when at least two flows
have a share; a flow counts at the samples where it has one.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def jain_index(x: Sequence[float] | np.ndarray) -> float:
    """Jain's index ``(Σx)² / (n·Σx²)``: 1 when all equal, 1/n when one has everything."""
    x = np.asarray(x, dtype=float)
    denominator = x.size * float(np.sum(x * x))
    return float(np.sum(x)) ** 2 / denominator if denominator > 0 else 1.0


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
    normalized = np.divide(throughput, fair, out=np.zeros_like(throughput), where=has_share)
    jain, min_max = [], []
    for k in np.flatnonzero(has_share.sum(axis=0) >= 2):
        x = normalized[has_share[:, k], k]
        jain.append(jain_index(x))
        min_max.append(float(x.min() / x.max()) if x.max() > 0 else 0.0)
    rms, relative = [], []
    for i in range(fair.shape[0]):
        on = has_share[i]
        if not on.any():
            rms.append(None)
            relative.append(None)
            continue
        deviation = float(np.sqrt(np.mean((throughput[i, on] - fair[i, on]) ** 2)))
        rms.append(deviation)
        relative.append(deviation / float(fair[i, on].mean()))
    pooled = float(np.sqrt(np.mean((throughput[has_share] - fair[has_share]) ** 2))) if has_share.any() else None
    mean_share = float(fair[has_share].mean()) if has_share.any() else 0.0
    return {
        "jain": float(np.mean(jain)) if jain else None,
        "min_max": float(np.mean(min_max)) if min_max else None,
        "share_rms_bps": pooled,
        "share_rms_rel": pooled / mean_share if pooled is not None and mean_share > 0 else None,
        "per_flow_rms_bps": rms,
        "per_flow_rms_rel": relative,
    }
