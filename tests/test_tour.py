"""The tour notebook (docs/tour.ipynb) runs from a clean kernel without an error in any
cell, draws its plots, and is committed with its outputs cleared."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT

TOUR = ROOT / "docs" / "tour.ipynb"


def test_the_tour_is_committed_without_outputs() -> None:
    notebook = nbformat.read(TOUR, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def test_the_tour_runs_every_cell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MPLBACKEND", raising=False)
    # The tour works in a folder of the system's temporary directory: the kernel's is
    # this test's own, removed with it, so that no dcbsim-tour-* folder is left behind.
    monkeypatch.setenv("TMPDIR", os.fspath(tmp_path))
    notebook = nbformat.read(TOUR, as_version=4)
    client = NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": os.fspath(TOUR.parent)}})
    client.execute()  # raises CellExecutionError naming the cell if any cell fails
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 3, "the run's, the model's and the sweep's plots"
