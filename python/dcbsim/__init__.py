"""dcbsim: a fast, faithful simulator of congestion management in Data Center Bridging
Ethernet (IEEE 802.1Qau QCN and the schemes that followed it).

>>> import dcbsim
>>> scenario = dcbsim.load("scenarios/examples/quickstart.toml")   # doctest: +SKIP
>>> result = dcbsim.run(scenario, seed=1)                           # doctest: +SKIP
>>> result.summary["ports"]["sw0:r0"]["mean_bytes"]                 # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from dcbsim._core import Scenario, ScenarioError, __version__
from dcbsim.results import Result

ScenarioError.__module__ = "dcbsim"

__all__ = ["Scenario", "ScenarioError", "Result", "load", "loads", "run", "sweep", "__version__"]


def load(path: str | os.PathLike[str], overrides: Sequence[str] | None = None) -> Scenario:
    """Reads and validates a scenario file; ``overrides`` are ``"key.path=value"`` strings.

    Raises :class:`ScenarioError` with a one-line message naming the file, line,
    column and key.
    """
    return Scenario.load(os.fspath(path), list(overrides or []))


def loads(text: str, file: str = "<string>", overrides: Sequence[str] | None = None) -> Scenario:
    """Reads and validates a scenario given as TOML text."""
    return Scenario.loads(text, file, list(overrides or []))


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    progress: Callable[[float], Any] | None = None,
) -> Result:
    """Runs a scenario (or a scenario file) and returns its :class:`Result`.

    ``seed`` defaults to the scenario's own. ``progress`` is called with the fraction
    done as the run advances; the GIL is released while the engine runs.
    """
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    seed = scenario.seed if seed is None else int(seed)
    if seed < 0:
        raise ValueError(f"seed must be >= 0 (got {seed})")
    raw = scenario.run(seed, progress)
    return Result(raw, scenario, seed)


def sweep(
    sweep_file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    executor: Any = None,
    jobs: int | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> Any:
    """Runs a parameter sweep (see :mod:`dcbsim.sweepfile`) into ``out`` and returns the
    combined tidy table as a polars DataFrame. ``executor`` may be any
    :class:`concurrent.futures.Executor` (default: a process pool of ``jobs`` workers).
    Runs already complete in ``out`` are not run again."""
    from dcbsim.sweeps import run_sweep

    return run_sweep(sweep_file, os.fspath(out), executor, jobs, progress)
