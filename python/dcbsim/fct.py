"""Flow completion times: mean, median, 99th percentile, and slowdown by size bucket.

The slowdown of a flow is its completion time over the ideal one: its size at the
slowest link of its path plus the path's propagation (reported by the engine).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Size buckets (bytes, upper bounds inclusive): the DCTCP paper's query/short
#: messages, medium flows, and background bulk.
BUCKETS: tuple[tuple[str, float], ...] = (
    ("<=100KB", 100 * 1024),
    ("100KB-10MB", 10 * 1024 * 1024),
    (">10MB", float("inf")),
)


def _stats(values: np.ndarray) -> dict[str, float | None]:
    if values.size == 0:
        return {"mean": None, "p50": None, "p99": None}
    return {
        "mean": float(values.mean()),
        "p50": float(np.quantile(values, 0.5)),
        "p99": float(np.quantile(values, 0.99)),
    }


def fct_summary(fct_s: np.ndarray, size_bytes: np.ndarray, ideal_s: np.ndarray, flows: int) -> dict[str, Any]:
    """Completion-time summary of ``flows`` finite flows, of which the completed ones
    have completion times ``fct_s``, sizes ``size_bytes`` and ideal times ``ideal_s``."""
    fct = np.asarray(fct_s, dtype=float)
    size = np.asarray(size_bytes, dtype=float)
    ideal = np.asarray(ideal_s, dtype=float)
    slowdown = np.where(ideal > 0, fct / np.where(ideal > 0, ideal, 1.0), np.nan)
    stats = _stats(fct)
    out: dict[str, Any] = {
        "flows": int(flows),
        "completed": int(fct.size),
        "fct_mean_s": stats["mean"],
        "fct_p50_s": stats["p50"],
        "fct_p99_s": stats["p99"],
        "buckets": {},
    }
    low = 0.0
    for name, high in BUCKETS:
        pick = (size > low) & (size <= high)
        s = _stats(slowdown[pick & ~np.isnan(slowdown)])
        f = _stats(fct[pick])
        out["buckets"][name] = {
            "completed": int(pick.sum()),
            "fct_mean_s": f["mean"],
            "fct_p99_s": f["p99"],
            "slowdown_mean": s["mean"],
            "slowdown_p50": s["p50"],
            "slowdown_p99": s["p99"],
        }
        low = high
    return out
