"""The papers' claims, each defined once: the reproduction checks (``tests/``) and the
reproduction reports (``docs/reproduction/``) both read them from here.

A :class:`Claim` states what a paper says, the paper's number, the tolerance we hold
our number to, and how to measure ours from runs of the scenarios in
``python/dcbsim/scenarios/papers/<paper>/``. Where our number differs from the paper's, the claim
says so (``holds_here=False``) and why; the check then expects the difference, so a
change that makes the claim hold is noticed too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

import dcbsim
from dcbsim import shipped
from dcbsim.paper_titles import TITLES
from dcbsim.results import Result

#: Where the paper scenarios live: package data, wherever dcbsim is installed.
SCENARIO_DIR = shipped.folder() / "papers"


@dataclass(frozen=True)
class Outcome:
    """Our measurement of one claim."""

    ours: str
    holds: bool


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, and how we check it."""

    paper: str
    key: str
    figure: str
    statement: str
    paper_value: str
    tolerance: str
    measure: Callable[[Runs], Outcome]
    holds_here: bool = True
    note: str = ""
    slow: bool = False
    #: For a claim that differs here: which of :data:`KINDS` the difference is.
    kind: str = ""


#: The classes of a difference, as the pages name them.
KINDS = {
    "departure": "our departure",
    "unstated": "unstated value",
    "paper": "paper inconsistent (shown)",
    "open": "cause not yet shown",
}


@dataclass
class Runs:
    """Runs of paper scenarios, each made once and shared by the claims that use it."""

    paper: str
    quick: bool = False
    cache: dict[tuple[str, tuple[str, ...], int], Result] = field(default_factory=dict)
    #: The seed counts the repeated experiments asked for (before ``quick`` cut them).
    asked: set[int] = field(default_factory=set)

    def get(self, scenario: str, overrides: Sequence[str] = (), seed: int = 1) -> Result:
        """The result of ``python/dcbsim/scenarios/papers/<paper>/<scenario>.toml`` with ``overrides``."""
        key = (scenario, tuple(overrides), seed)
        if key not in self.cache:
            path = SCENARIO_DIR / self.paper / f"{scenario}.toml"
            self.cache[key] = dcbsim.run(dcbsim.load(path, list(overrides)), seed=seed)
        return self.cache[key]

    def seeds(self, full: int) -> range:
        """The seeds of a repeated experiment (at most 2 when quick)."""
        self.asked.add(full)
        return range(1, (min(2, full) if self.quick else full) + 1)

    def quick_note(self, changed: Sequence[str] = ()) -> list[str]:
        """The lines a quick page opens with: how many seeds its experiments ran, and
        the rows (``changed``) whose verdict is not the full run's."""
        if not self.quick:
            return []
        full = sorted(self.asked)
        ran = sorted({min(2, n) for n in full})
        if not full:
            lines = ["**Quick run** (`--quick`): every experiment ran one seed, as the full run does."]
        else:
            lines = [(f"**Quick run** (`--quick`): each repeated experiment ran {' or '.join(map(str, ran))} seed(s) instead of "
                      f"{', '.join(map(str, full))}; {len(self.cache)} runs in all. The numbers are rougher than the full page's.")]
        if changed:
            lines.append(f"Rows whose verdict here is not the full run's (the README counts the full run's): {'; '.join(changed)}.")
        else:
            lines.append("Every row's verdict is the full run's.")
        return [" ".join(lines), ""]


def verdict(claim: Claim, outcome: Outcome, quick: bool) -> str:
    """A row's verdict cell: holds or differs, the class of a difference, and on a quick
    page whether the full run's verdict is the other one."""
    text = "holds" if outcome.holds else "**differs**"
    if not outcome.holds and claim.kind:
        text += f" ({KINDS[claim.kind]})"
    if quick and outcome.holds != claim.holds_here:
        text += f"; the full run: {'holds' if claim.holds_here else 'differs'}"
    return text


def median(values: Sequence[float | None], missing: float) -> float:
    """Median, counting ``None`` (not converged) as ``missing``."""
    return float(np.median([missing if v is None else v for v in values]))


def registry() -> dict[str, list[Claim]]:
    """Every paper's claims, by paper name."""
    from dataclasses import replace

    from dcbsim.papers import dcc, dcc_text, dcqcn, dctcp, dsm, fqcn, fqcn_text, hpcc, qcnt, smcc, timely

    claims = {"qcnt": qcnt.CLAIMS, "smcc": smcc.CLAIMS, "dsm": dsm.CLAIMS, "fqcn": fqcn.CLAIMS + fqcn_text.CLAIMS,
              "dcc": dcc.CLAIMS + dcc_text.CLAIMS,
              "dctcp": dctcp.CLAIMS, "dcqcn": dcqcn.CLAIMS, "hpcc": hpcc.CLAIMS, "timely": timely.CLAIMS}
    # Each paper's classes of its differences (``DIFFERENCES`` in the module named after it).
    modules = {"qcnt": qcnt, "smcc": smcc, "dsm": dsm, "fqcn": fqcn, "dcc": dcc, "dctcp": dctcp, "dcqcn": dcqcn,
               "hpcc": hpcc, "timely": timely}
    return {paper: [replace(c, kind=getattr(modules[paper], "DIFFERENCES", {}).get(c.key, c.kind)) for c in cs]
            for paper, cs in claims.items()}


def figures(paper: str) -> Callable[[Runs, str], list[str]]:
    """The function drawing a paper's figures into a directory."""
    from dcbsim.papers import dcc_figures, dcqcn, dctcp, dsm_figures, fqcn_figures, hpcc, qcnt_figures, smcc_figures, timely

    figures = {"qcnt": qcnt_figures.figures, "smcc": smcc_figures.figures, "dsm": dsm_figures.draw, "fqcn": fqcn_figures.figures, "dcc": dcc_figures.figures,
               "dctcp": dctcp.figures, "dcqcn": dcqcn.figures, "hpcc": hpcc.figures, "timely": timely.figures}
    return figures[paper]


def uncounted(paper: str) -> list[str]:
    """The page's lines for the paper's statements checked by tests but not counted as
    claims (``UNCOUNTED`` in the module named after the paper): none could fail."""
    import importlib

    items = getattr(importlib.import_module(f"dcbsim.papers.{paper}"), "UNCOUNTED", [])
    if not items:
        return []
    intro = ("These statements hold here but are not among the claims: no run could make them fail. Tests still "
             "check them.")
    return ["", "## Checked, not counted", "", intro, ""] + [f"- {item}" for item in items]


def report(paper: str, outdir: str, quick: bool = False, figure_dir: str | None = None) -> str:
    """Checks every claim of ``paper``, draws its figures and returns the Markdown
    reproduction page (also written to ``outdir/<paper>.md``)."""
    runs = Runs(paper, quick)
    figure_dir = figure_dir or outdir
    os.makedirs(figure_dir, exist_ok=True)
    lines = [
        f"# Reproduction: {TITLES[paper]}",
        "",
        f"Scenarios: `python/dcbsim/scenarios/papers/{paper}/`. Claims and checks: `python/dcbsim/papers/{paper}.py`, run by",
        f"`pytest tests/test_reproduction.py -k {paper}`. This page is made by `python -m dcbsim.papers {paper}`.",
        "",
        "| figure | claim | paper | ours | tolerance | verdict |",
        "|---|---|---|---|---|---|",
    ]
    notes: list[str] = []
    first_with: dict[str, str] = {}  # note -> the figure it was first given for
    differs = False
    changed: list[str] = []  # on a quick page, the rows whose verdict is not the full run's
    for claim in registry()[paper]:
        outcome = claim.measure(runs)
        differs = differs or not outcome.holds
        if quick and outcome.holds != claim.holds_here:
            changed.append(f"{claim.figure} ({claim.key})")
        lines.append(f"| {claim.figure} | {claim.statement} | {claim.paper_value} | {outcome.ours} | {claim.tolerance} | "
                     f"{verdict(claim, outcome, quick)} |")
        if claim.note:
            label = f"{claim.figure}, {claim.statement}"
            text = claim.note if claim.note not in first_with else f"The same reason as for {first_with[claim.note]} (above)."
            first_with.setdefault(claim.note, claim.figure)
            notes.append(f"- **{label}.** {text}")
    if notes:
        legend = [("Each differing row names its class: *our departure* (our model departs from the paper's), "
                   "*unstated value* (a value the paper does not give decides the row), *paper inconsistent "
                   "(shown)* (the paper's own model, numbers or text do not support the claim, shown by runs or "
                   "analysis) or *cause not yet shown*."), ""] if differs else []
        lines += ["", "## Where we differ, and why", ""] + legend + notes
    lines += uncounted(paper)
    lines += ["", "## Figures", ""]
    for path in figures(paper)(runs, figure_dir):
        rel = os.path.relpath(path, outdir)
        lines.append(f"![{os.path.basename(path)}]({rel})")
        lines.append("")
    lines[2:2] = runs.quick_note(changed)
    text = "\n".join(lines).rstrip() + "\n"
    with open(os.path.join(outdir, f"{paper}.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return text
