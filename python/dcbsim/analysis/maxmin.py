"""Weighted max-min fair shares by water-filling, for any topology and flow set.

Each flow crosses a set of links; every unfrozen flow's rate grows in proportion to its
weight until a link fills (its flows freeze) or the flow reaches its own cap (demand).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence


def weighted_max_min(
    capacities: Mapping[Hashable, float],
    paths: Mapping[Hashable, Sequence[Hashable]],
    weights: Mapping[Hashable, float] | None = None,
    demands: Mapping[Hashable, float] | None = None,
) -> dict[Hashable, float]:
    """The weighted max-min fair rate of every flow.

    ``capacities``: link → capacity; ``paths``: flow → the links it crosses;
    ``weights``: flow → weight (default 1); ``demands``: flow → largest rate it wants.
    """
    weights = {f: (weights or {}).get(f, 1.0) for f in paths}
    demands = {f: (demands or {}).get(f, float("inf")) for f in paths}
    for f, w in weights.items():
        if w <= 0:
            raise ValueError(f"flow {f!r}: weight must be > 0")
        for link in paths[f]:
            if link not in capacities:
                raise ValueError(f"flow {f!r} crosses unknown link {link!r}")
    rate = dict.fromkeys(paths, 0.0)
    active = {f for f in paths if demands[f] > 0}
    left = dict(capacities)
    while active:
        # The largest common "level" every active flow can rise by, per unit weight.
        steps = []
        for link, cap in left.items():
            users = [f for f in active if link in paths[f]]
            if users:
                steps.append(cap / sum(weights[f] for f in users))
        steps += [(demands[f] - rate[f]) / weights[f] for f in active]
        step = max(0.0, min(steps)) if steps else 0.0
        for f in active:
            rate[f] += step * weights[f]
            for link in paths[f]:
                left[link] -= step * weights[f]
        saturated = {link for link, cap in left.items() if cap <= 1e-9 * max(1.0, capacities[link])}
        frozen = {f for f in active if rate[f] >= demands[f] - 1e-12 or any(link in saturated for link in paths[f])}
        if not frozen:
            break
        active -= frozen
    return rate
