"""Statements of the DCC paper checked but not counted as claims
(``dcbsim.papers.dcc.UNCOUNTED``): they hold by construction or by arithmetic, so they
are kept as tests rather than as reproduction claims."""

from __future__ import annotations

from dcbsim.analysis import dcc as model
from dcbsim.papers import Runs
from dcbsim.papers.dcc_runs import exp2_counts
from dcbsim.papers.dcc_text import EXP4_CAPACITY, EXP4_SETTINGS


def test_exp2_no_san_frame_is_lost():
    """Table V: with a misbehaving LAN source no SAN frame is lost (the drop policy
    drops only LAN frames and the queue stays far below the buffer)."""
    c = exp2_counts(Runs("dcc"))
    assert c["san_dropped"] == 0, c


def test_exp4_eq7_arithmetic():
    """§VI.D: eq. 7 with C = 5.52 gives p_s = 0.56 ± 0.01, sampling every 2700 ± 100 B."""
    p = model.marking_probability([(1, s) for s in EXP4_SETTINGS], EXP4_CAPACITY)
    assert abs(p - 0.56) <= 0.01
    assert abs(model.sampling_bytes(p) - 2700) <= 100
