"""Installed as users install it: the wheel built, pip-installed into a fresh virtual
environment, and run from an empty directory, far from the source tree.

Slow (a release build and the dependencies' install): ``make test-wheel``, or
``pytest -m slow tests/test_wheel.py``."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from dcbsim import shipped

pytestmark = pytest.mark.slow

#: A release build of the extension, on a busy 2-core machine, and pip's installs.
TIMEOUT_S = 3600


def _env() -> dict[str, str]:
    """The environment without anything that points Python at this checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


def _run(args: list[str | Path], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from this checkout."""
    maturin = Path(sys.executable).parent / "maturin"
    if not maturin.exists():
        pytest.skip("maturin is not installed (it comes with the test extra)")
    dist = tmp_path_factory.mktemp("dist")
    _run([maturin, "build", "--quiet", "--out", dist], ROOT)
    (built,) = dist.glob("dcbsim-*.whl")
    print(f"\n{built.name}: {built.stat().st_size / 2**20:.1f} MiB")
    return built


def test_the_wheel_is_abi3_for_cpython_311_and_carries_every_scenario(wheel):
    assert "-cp311-abi3-" in wheel.name, wheel.name
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    for s in shipped.catalog():
        assert f"dcbsim/scenarios/{s.name}.toml" in names, s.name
    assert not any(n.startswith(("tests/", "benches/", "crates/", "docs/")) for n in names)


def test_installed_wheel_runs_and_reproduces_from_an_empty_directory(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], tmp_path)
    _run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel], tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    where = _run([venv / "bin" / "python", "-c", "import dcbsim; print(dcbsim.__file__)"], empty).stdout.strip()
    assert Path(where).is_relative_to(venv), where
    _run([venv / "bin" / "dcbsim", "run", "quickstart", "--out", "q"], empty)
    assert (empty / "q" / "summary.json").is_file() and (empty / "q" / "queue.png").is_file()
    _run([venv / "bin" / "dcbsim", "repro", "qcnt", "--quick"], empty)
    page = (empty / "out" / "repro" / "qcnt.md").read_text(encoding="utf-8")
    assert "| verdict |" in page and "**Quick run**" in page
