"""A local sweep of several workers caps each run's threads at its share of the cores:
split runs on cores the other workers keep busy wait at their barriers far longer than
one thread takes, and the results do not depend on the threads."""

from __future__ import annotations

import json
import os

import polars as pl
import pytest

import dcbsim
from dcbsim import cli, sweepfile
from dcbsim.sweeps import capped_threads, iter_tasks
from test_threads import FABRIC


@pytest.mark.parametrize(
    "threads, workers, cores, expected",
    [
        (2, 2, 2, 1),  # two split runs on two cores: one thread each
        (0, 2, 2, 1),  # "every core" counts as every core
        (1, 2, 2, 1),
        (2, 1, 2, 2),  # one worker: as the scenario says
        (0, 1, 2, 0),
        (3, 2, 8, 3),  # within its share of four
        (0, 2, 8, 4),
        (8, 3, 8, 2),
        (4, 16, 8, 1),  # more workers than cores: one thread, never none
        (0, 2, 1, 0),  # every core of one is no more than the share
    ],
)
def test_a_run_gets_at_most_its_share_of_the_cores(threads, workers, cores, expected):
    assert capped_threads(threads, workers, cores) == expected


def write_sweep(tmp_path, scenario: str, body: str = "") -> str:
    (tmp_path / "fabric.toml").write_text(scenario)
    path = tmp_path / "sweep.toml"
    path.write_text(f'[sweep]\nscenario = "fabric.toml"\n{body}')
    return str(path)


def test_a_swept_thread_count_is_capped_and_the_keys_stay_those_of_the_scenario_asked_for(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sweep = sweepfile.load(write_sweep(tmp_path, FABRIC, '[[sweep.var]]\nname = "t"\nset = "run.threads"\nvalues = [0, 1, 2]\n'))
    capped = list(iter_tasks(sweep, workers=2))
    assert [t.threads for t in capped] == [1, None, 1]
    assert capped[0].run_overrides() == ["run.threads=0", "run.threads=1"]
    assert all(t.error is None for t in capped)
    # A sweep resumed with other --jobs finds the runs it did.
    assert [t.key for t in capped] == [t.key for t in iter_tasks(sweep, workers=1)]


def test_a_capped_run_is_checked_for_memory_on_the_threads_it_will_go_on(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    one, two = (dcbsim.loads(FABRIC, overrides=[f"run.threads={t}"]).estimate[0] for t in (1, 2))
    between = (one + two) / 2 / 1e9  # enough for one thread, not for two
    sweep = sweepfile.load(write_sweep(tmp_path, FABRIC.replace("duration_ms = 3.0", "duration_ms = 3.0\nthreads = 2")))
    [capped] = iter_tasks(sweep, between, workers=2)
    assert capped.threads == 1 and capped.error is None
    [alone] = iter_tasks(sweep, between, workers=1)
    assert alone.threads is None and "GB of memory" in alone.error


def test_a_sweep_of_two_workers_runs_each_split_run_on_one_thread_of_two_cores(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    scenario = FABRIC.replace("duration_ms = 3.0", "duration_ms = 1.0\nthreads = 2")
    path, out = write_sweep(tmp_path, scenario, "repeat = 2\n"), tmp_path / "out"
    assert cli.main(["sweep", path, "--out", str(out), "--jobs", "2"]) == 0
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs["status"].to_list() == ["ok", "ok"]
    assert runs["parts"].to_list() == [1, 1], "the runs went on more threads than their share"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["threads_capped"] == {"runs": 2, "threads": 1, "workers": 2, "cores": 2}
    printed = capsys.readouterr().out.splitlines()
    assert printed[1] == "run.threads capped at 1 in 2 runs: 2 workers share 2 cores (the results are the same)", printed
    # One worker leaves the threads alone, and finds both runs done.
    assert cli.main(["sweep", path, "--out", str(out), "--jobs", "1"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["ran_now"] == 0 and manifest["threads_capped"] is None
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_the_base_scenario_is_not_held_to_the_default_memory_limit(tmp_path):
    # The base scenario is never run itself: each run is checked as it will run, against
    # --max-memory-gb. A base above the default 4 GB (every pair of a k = 16 fat-tree's
    # hosts, about 5.2 GB) used to stop the sweep before its first run.
    if os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") < 8e9:
        pytest.skip("the base scenario needs more memory than this machine has")
    big = FABRIC.replace("k = 4", "k = 16").replace('pairing = "permutation"', 'pairing = "all_to_all"')
    with pytest.raises(dcbsim.ScenarioError, match="above the limit of 4 GB"):
        dcbsim.loads(big)
    small = '[[sweep.var]]\nname = "k"\nset = "topology.k"\nvalues = [4]\n'
    path, out = write_sweep(tmp_path, big.replace("duration_ms = 3.0", "duration_ms = 0.5"), small), tmp_path / "out"
    assert cli.main(["sweep", path, "--out", str(out), "--jobs", "1"]) == 0
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs["status"].to_list() == ["ok"] and runs["k"].to_list() == [4]
