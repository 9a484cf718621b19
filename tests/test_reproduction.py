"""Reproduction checks: each paper claim, held to its stated tolerance.

A claim whose number differs here from the paper's is expected to fail (strictly:
if it starts to hold, the check fails so the claim and its page get updated); the
reason is in the claim's note and in docs/reproduction/<paper>.md.
"""

from __future__ import annotations

import pytest

from dcbsim.papers import Runs, registry


def _params():
    for paper, claims in registry().items():
        for claim in claims:
            marks = [] if claim.holds_here else [pytest.mark.xfail(strict=True, reason=claim.note)]
            if claim.slow:
                marks.append(pytest.mark.slow)
            yield pytest.param(claim, id=f"{paper}-{claim.key}", marks=marks)


@pytest.fixture(scope="module")
def runs():
    """One shared set of runs per paper."""
    return {paper: Runs(paper) for paper in registry()}


@pytest.mark.parametrize("claim", list(_params()))
def test_claim(claim, runs):
    outcome = claim.measure(runs[claim.paper])
    assert outcome.holds, (f"{claim.figure}: {claim.statement}: paper {claim.paper_value}, ours {outcome.ours} "
                           f"(tolerance: {claim.tolerance})")


def test_every_difference_names_its_class():
    """A claim that differs here says which kind of difference it is (docs/reproduction)."""
    from dcbsim.papers import KINDS

    unnamed = [f"{p}-{c.key}" for p, cs in registry().items() for c in cs if not c.holds_here and c.kind not in KINDS]
    assert not unnamed, unnamed
