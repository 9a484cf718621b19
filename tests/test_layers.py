"""The library stands without the research harness: no module of dcbsim imports the
papers' reproductions (``dcbsim.papers``) or the variant grids
(``dcbsim.analysis.variants*``), save the command line's ``repro`` command, which is
how users reach them. The harness is installed with the library and may use all of it."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "python" / "dcbsim"

#: The research harness: reproduction code that sits on top of the library.
HARNESS = ("dcbsim.papers", "dcbsim.analysis.variants", "dcbsim.analysis.variants_grid")

#: The one door from the library into the harness: ``dcbsim repro``.
ALLOWED = {("dcbsim.cli", "dcbsim.papers")}


def _module(path: Path) -> str:
    """The dotted name of a module file of the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST) -> set[str]:
    """Every module a file imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _in_harness(name: str) -> bool:
    return any(name == h or name.startswith(h + ".") for h in HARNESS)


def test_no_library_module_imports_the_harness():
    library = [p for p in PACKAGE.rglob("*.py") if not _in_harness(_module(p))]
    assert len(library) > 20
    wrong = sorted(
        (module, name)
        for path in library
        for module in [_module(path)]
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")))
        if _in_harness(name) and (module, name) not in ALLOWED
    )
    assert wrong == []
