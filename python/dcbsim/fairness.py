"""Fairness of a run: Jain's index, the min/max ratio and the deviation from fair shares.

Every measure compares each flow's delivered throughput with its weighted max-min fair
share at the same sample (computed by the engine from the ports' capacities and the
flows' demands at that time), so weights, flows that want less than their share and
flows that come and go are all accounted for. A sample counts when at least two flows
have a share; a flow counts at the samples where it has one.

The sums are the engine's (:class:`dcbsim._core.FairnessSums`, one pass over the
samples, a block at a time), so that a run's summary needs no numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

from dcbsim._core import FairnessSums
from dcbsim.lazy import lazy_import

np = lazy_import("numpy")

#: The measures :func:`fairness` returns.
RUN_MEASURES = ("jain", "min_max", "share_rms_bps", "share_rms_rel", "per_flow_rms_bps", "per_flow_rms_rel")


def jain_index(x: Sequence[float]) -> float:
    """Jain's index ``(Σx)² / (n·Σx²)``: 1 when all equal, 1/n when one has everything."""
    values = [float(v) for v in x]
    denominator = len(values) * sum(v * v for v in values)
    return sum(values) ** 2 / denominator if denominator > 0 else 1.0


def fairness(throughput: np.ndarray, fair: np.ndarray) -> dict[str, object]:
    """Fairness measures from two (flows × samples) arrays of bits/s.

    Returns Jain's index and the min/max ratio of ``throughput / fair share``
    (``jain``, ``min_max``), each averaged over the samples with at least two flows
    sharing; per flow, the root-mean-square deviation of its throughput from its share
    (``per_flow_rms_bps``, and relative to its mean share, ``per_flow_rms_rel``); and
    the same deviation pooled over every (flow, sample) with a share, in bits/s and
    relative to the mean share (``share_rms_bps``, ``share_rms_rel``). A measure
    without a sample to count is ``None``.
    """
    throughput = np.atleast_2d(np.asarray(throughput, dtype="<f8"))
    fair = np.atleast_2d(np.asarray(fair, dtype="<f8"))
    if throughput.shape != fair.shape:
        raise ValueError(f"throughput {throughput.shape} and fair shares {fair.shape} differ in shape")
    flows, samples = throughput.shape
    sums = FairnessSums(flows)
    sums.add_block(samples, [row.tobytes() for row in throughput], [row.tobytes() for row in fair])
    measures = sums.fairness(b"")
    return {k: measures[k] for k in RUN_MEASURES}
