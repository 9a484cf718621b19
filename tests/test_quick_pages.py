"""A quick reproduction page says which rows its shorter runs give another verdict than
the full run (the one the README counts)."""

from dcbsim.papers import Claim, Outcome, Runs, verdict


def claim(holds_here: bool, kind: str = "") -> Claim:
    return Claim("p", "fig1", "Fig. 1", "a claim", "1", "± 1", lambda runs: Outcome("1", True), holds_here=holds_here, kind=kind)


def test_a_quick_row_whose_verdict_is_not_the_full_runs_says_so():
    assert verdict(claim(True), Outcome("1", False), quick=True) == "**differs**; the full run: holds"
    assert verdict(claim(False, "open"), Outcome("1", True), quick=True) == "holds; the full run: differs"
    assert verdict(claim(True), Outcome("1", True), quick=True) == "holds"
    assert verdict(claim(True), Outcome("1", False), quick=False) == "**differs**"
    assert verdict(claim(False, "open"), Outcome("1", False), quick=False) == "**differs** (cause not yet shown)"


def test_the_quick_note_lists_the_changed_rows_or_says_there_are_none():
    runs = Runs("p", quick=True)
    runs.seeds(12)
    note = runs.quick_note(["Fig. 6 (fig06)"])[0]
    assert "2 seed(s) instead of 12" in note and "not the full run's" in note and "Fig. 6 (fig06)" in note
    assert "Every row's verdict is the full run's." in runs.quick_note([])[0]
    assert Runs("p").quick_note(["Fig. 6"]) == []
