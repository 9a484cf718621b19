"""The scenarios shipped inside the package: what the package data holds, their names,
and the commands that take a name where a file would do."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

import dcbsim
from conftest import ROOT, SCENARIOS
from dcbsim import cli, shipped
from dcbsim.paper_titles import TITLES


def _tracked_scenarios() -> list[str]:
    """The scenario files git tracks under the shipped folder, as catalog names."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z", "--", str(SCENARIOS)], cwd=ROOT, capture_output=True, text=True, check=True)
    files = [Path(f) for f in listed.stdout.split("\0") if f.endswith(".toml")]
    return sorted((ROOT / f).relative_to(SCENARIOS).with_suffix("").as_posix() for f in files)


def test_the_package_data_is_the_scenarios_folder():
    # importlib.resources finds exactly the files a clone has: none untracked (they
    # would ship from one checkout and not from another), none missing.
    assert shipped.folder().resolve() == SCENARIOS.resolve()
    assert [s.name for s in shipped.catalog()] == _tracked_scenarios()


def test_the_wheel_build_takes_the_whole_package_folder():
    # maturin packs every file under python-source/<package>; an include or exclude
    # list would have to name the scenarios, and none does.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["maturin"]
    package = ROOT / config["python-source"] / config["module-name"].split(".")[0]
    assert SCENARIOS.is_relative_to(package)
    assert not any("scenario" in json.dumps(config.get(key, [])) for key in ("include", "exclude"))


def test_every_paper_has_its_scenarios_shipped():
    groups = {s.group for s in shipped.catalog()}
    for paper in TITLES:
        assert f"papers/{paper}" in groups, paper
    assert {"examples", "sweeps", "bench"} <= groups


def test_names_are_unique_described_and_found():
    for s in shipped.catalog():
        assert shipped.find(s.short) == s and shipped.find(s.name) == s and shipped.find(s.name + ".toml") == s
        assert s.description, s.name
        assert len(s.description) <= shipped.DESCRIPTION_CHARS


def test_a_description_is_the_opening_comments_first_sentence(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text("# DCC paper, Exp. 1 (Table III): two sources;\n# 1 s. Claims: more.\n[run]\n# not this\n", encoding="utf-8")
    assert shipped.describe(path) == "DCC paper, Exp. 1 (Table III): two sources; 1 s"
    path.write_text("[run]\n", encoding="utf-8")
    assert shipped.describe(path) == ""


def test_an_ambiguous_or_unknown_name_says_so():
    with pytest.raises(shipped.UnknownScenario, match="dcqcn/incast or dctcp/incast"):
        shipped.find("incast")
    with pytest.raises(dcbsim.ScenarioError, match="no shipped scenario has this name"):
        dcbsim.load("no_such_scenario")


def test_a_file_wins_over_a_name(tmp_path, monkeypatch, small_text):
    monkeypatch.chdir(tmp_path)
    assert dcbsim.load("quickstart").name == "quickstart"
    Path("quickstart").write_text(small_text, encoding="utf-8")
    assert dcbsim.load("quickstart").name == "small"
    # What can only be a path is never taken for a name.
    assert shipped.resolve("./examples/quickstart.toml") == "./examples/quickstart.toml"


def test_scenarios_lists_each_with_its_description(capsys):
    assert cli.main(["scenarios"]) == 0
    out = capsys.readouterr().out
    for s in shipped.catalog():
        assert f"{s.short}  " in out and s.description in out, s.name


def test_scenarios_show_prints_the_file(capsys):
    assert cli.main(["scenarios", "show", "qcnt/fig01_qcn"]) == 0
    assert capsys.readouterr().out == (SCENARIOS / "papers" / "qcnt" / "fig01_qcn.toml").read_text(encoding="utf-8")
    assert cli.main(["scenarios", "show", "incast"]) == 2
    assert "more than one" in capsys.readouterr().err


def test_run_and_validate_take_a_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["validate", "quickstart"]) == 0
    assert cli.main(["run", "quickstart", "--out", "q", "--set", "run.duration_ms=5", "--no-plots"]) == 0
    manifest = json.loads((tmp_path / "q" / "manifest.json").read_text())
    assert Path(manifest["scenario_file"]) == SCENARIOS / "examples" / "quickstart.toml"
    assert cli.main(["run", "quickstrat", "--out", "q2"]) == 2
    assert "`dcbsim scenarios` lists them" in capsys.readouterr().err
    assert not (tmp_path / "q2").exists()


def test_a_copied_shipped_sweep_still_finds_its_scenario(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["sweep", "quickstart_qeq", "--list"]) == 0
    by_name = capsys.readouterr().out
    assert cli.main(["scenarios", "show", "quickstart_qeq"]) == 0
    Path("mine.toml").write_text(capsys.readouterr().out, encoding="utf-8")
    assert cli.main(["sweep", "mine.toml", "--list"]) == 0
    assert capsys.readouterr().out == by_name
