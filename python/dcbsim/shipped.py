"""The scenarios shipped inside the package: examples, the papers' set-ups, sweeps and
benchmarks, under ``dcbsim/scenarios/``.

They are package data, found through :mod:`importlib.resources`, so an installed wheel
has them wherever it is installed, as a source checkout does. Each has a name: its
path under that folder without ``.toml`` (``examples/quickstart``,
``papers/qcnt/fig01_qcn``), and any tail of that path that no other scenario shares
names it too (``quickstart``, ``qcnt/fig01_qcn``). Wherever a scenario file is asked
for (``dcbsim run``, ``validate``, ``sweep``, :func:`dcbsim.load`), a file that exists
wins over a name.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from dcbsim._core import ScenarioError

#: The folder of the package that holds the shipped scenarios.
FOLDER = "scenarios"

#: A description is cut to this many characters (a terminal line beside the names).
DESCRIPTION_CHARS = 90

#: The end of a description's first sentence: a full stop before a capital or an
#: opening bracket, so that "Exp. 1" and "Fig. 5a" do not end it.
_SENTENCE_END = re.compile(r"\.\s+(?=[A-Z(])")


class UnknownScenario(ScenarioError):
    """A name that is neither a file nor the name of one shipped scenario."""


@dataclass(frozen=True)
class Shipped:
    """One shipped scenario."""

    #: Its path under the scenarios folder, without ``.toml``: ``papers/qcnt/fig01_qcn``.
    name: str
    #: The shortest tail of ``name`` that names it alone: ``fig01_qcn``.
    short: str
    #: The first sentence of the file's opening comment.
    description: str
    #: The file.
    path: Path

    @property
    def group(self) -> str:
        """The folder it is in: ``examples``, ``papers/qcnt``, ``sweeps``, ``bench``."""
        return self.name.rpartition("/")[0]


def folder() -> Path:
    """The folder of the shipped scenarios, as a path on disk (a compiled extension
    cannot be imported from a zip file, so an installed dcbsim is always files)."""
    found = resources.files("dcbsim") / FOLDER
    return Path(os.fspath(found))  # type: ignore[arg-type]


@cache
def catalog() -> tuple[Shipped, ...]:
    """Every shipped scenario, in the order of their names."""
    root = folder()
    names = sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.toml"))
    return tuple(Shipped(n, _shortest_tail(n, names), describe(root / f"{n}.toml"), root / f"{n}.toml") for n in names)


def _tails(name: str) -> list[str]:
    """The tails of a name, shortest first: ``fig01_qcn``, ``qcnt/fig01_qcn``, ..."""
    parts = name.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts) - 1, -1, -1)]


def _matches(wanted: str, name: str) -> bool:
    """Whether ``wanted`` is ``name`` or a tail of it (whole folder names only)."""
    return name == wanted or name.endswith("/" + wanted)


def _shortest_tail(name: str, names: list[str]) -> str:
    """The shortest tail of ``name`` that no other name in ``names`` ends with."""
    for tail in _tails(name):
        if sum(_matches(tail, other) for other in names) == 1:
            return tail
    return name


def describe(path: Path) -> str:
    """The first sentence of a scenario file's opening comment, cut to
    :data:`DESCRIPTION_CHARS`; empty when the file opens with no comment."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    text = " ".join(s for s in lines if s)
    text = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(text) > DESCRIPTION_CHARS:
        text = text[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return text


def find(name: str, what: str = "scenario") -> Shipped:
    """The shipped scenario named ``name`` (with or without ``.toml``); raises
    :class:`UnknownScenario` naming the candidates when there is none or more than one
    (``what`` the file was wanted as: a scenario, a sweep)."""
    wanted = name.removesuffix(".toml").strip("/")
    found = [s for s in catalog() if _matches(wanted, s.name)]
    if len(found) == 1:
        return found[0]
    if found:
        options = " or ".join(s.short for s in found)
        raise UnknownScenario(f"{name}: more than one shipped scenario has this name: {options}")
    raise UnknownScenario(f"{name}: cannot read the {what}: no such file, and no shipped scenario has this name "
                          f"(`dcbsim scenarios` lists them)")


def resolve(path_or_name: str | os.PathLike[str], what: str = "scenario") -> str:
    """The file to read for ``path_or_name``: itself when it exists (a path wins) or
    when it can only be a path (absolute, or starting with ``.`` or ``~``), else the
    shipped scenario it names (see :func:`find`)."""
    path = os.fspath(path_or_name)
    if os.path.exists(path) or os.path.isabs(path) or path.startswith((".", "~")):
        return path
    return str(find(path, what).path)


def path(name: str) -> Path:
    """The file of the shipped scenario ``name``, e.g. ``path("quickstart")``."""
    return find(name).path
