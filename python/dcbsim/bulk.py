"""Making many Python objects at once without the cyclic collector's pauses."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pauses Python's cyclic garbage collector for the block (and resumes it, if it
    ran, after): for a block that makes many objects at once and leaves no garbage in
    cycles, as a run's result does. Running, the collector passes over the objects
    made so far each time a few hundred more appear, again and again as they grow;
    paused, it passes over them a few times once it resumes, in the caller's next
    allocations. Measured: one run of the command line with 100,000 flows and 200,000
    ports spent about half of making its result in the collector; ``dcbsim.run`` of a
    k = 64 fat-tree (327,680 ports, one flow, 1 ms) took 1.77 s with the collector
    running and 1.11 s with its report and result made paused, and the caller's next
    million objects then 0.79-0.87 s instead of 0.55 (two runs each)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
