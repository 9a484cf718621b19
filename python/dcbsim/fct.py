"""Flow completion times: mean, median, 99th percentile, and slowdown by size bucket.

The slowdown of a flow is its completion time over the ideal one: its size at the
slowest link of its path plus the path's propagation (reported by the engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dcbsim.lazy import lazy_import

np = lazy_import("numpy")

#: Size buckets (bytes, upper bounds inclusive): the DCTCP paper's query/short
#: messages, medium flows, and background bulk.
BUCKETS: tuple[tuple[str, float], ...] = (
    ("<=100KB", 100 * 1024),
    ("100KB-10MB", 10 * 1024 * 1024),
    (">10MB", float("inf")),
)


def _stats(values: np.ndarray) -> dict[str, float | None]:
    if values.size == 0:
        return _NONE
    return {
        "mean": float(values.mean()),
        "p50": float(np.quantile(values, 0.5)),
        "p99": float(np.quantile(values, 0.99)),
    }


#: The statistics of no values.
_NONE: dict[str, float | None] = {"mean": None, "p50": None, "p99": None}


def _summary(flows: int, completed: int, fct: dict, buckets: dict[str, tuple[int, dict, dict]]) -> dict[str, Any]:
    """The summary from the statistics of all completion times, and per bucket its
    completed flows and the statistics of their completion times and slowdowns."""
    return {
        "flows": int(flows),
        "completed": int(completed),
        "fct_mean_s": fct["mean"],
        "fct_p50_s": fct["p50"],
        "fct_p99_s": fct["p99"],
        "buckets": {
            name: {
                "completed": int(count),
                "fct_mean_s": f["mean"],
                "fct_p99_s": f["p99"],
                "slowdown_mean": s["mean"],
                "slowdown_p50": s["p50"],
                "slowdown_p99": s["p99"],
            }
            for name, (count, f, s) in buckets.items()
        },
    }


def fct_summary(fct_s: Sequence[float], size_bytes: Sequence[float], ideal_s: Sequence[float], flows: int) -> dict[str, Any]:
    """Completion-time summary of ``flows`` finite flows, of which the completed ones
    have completion times ``fct_s``, sizes ``size_bytes`` and ideal times ``ideal_s``."""
    if len(fct_s) == 0:
        return _summary(flows, 0, _NONE, {name: (0, _NONE, _NONE) for name, _ in BUCKETS})
    fct = np.asarray(fct_s, dtype=float)
    size = np.asarray(size_bytes, dtype=float)
    ideal = np.asarray(ideal_s, dtype=float)
    slowdown = np.where(ideal > 0, fct / np.where(ideal > 0, ideal, 1.0), np.nan)
    buckets = {}
    low = 0.0
    for name, high in BUCKETS:
        pick = (size > low) & (size <= high)
        buckets[name] = (int(pick.sum()), _stats(fct[pick]), _stats(slowdown[pick & ~np.isnan(slowdown)]))
        low = high
    return _summary(flows, fct.size, _stats(fct), buckets)
