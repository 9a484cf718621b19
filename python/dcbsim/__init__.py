"""dcbsim: a fast, faithful simulator of congestion management in Data Center Bridging
Ethernet (IEEE 802.1Qau QCN and the schemes that followed it).

>>> import dcbsim
>>> scenario = dcbsim.load("quickstart")          # a file, or a shipped scenario's name   # doctest: +SKIP
>>> result = dcbsim.run(scenario, seed=1)                                                 # doctest: +SKIP
>>> result.summary["ports"]["sw0:r0"]["mean_bytes"]                                       # doctest: +SKIP
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Sequence
from typing import Any

from dcbsim import shipped, traces
from dcbsim._core import Scenario, ScenarioError, __version__
from dcbsim.bulk import collector_paused
from dcbsim.results import Result

ScenarioError.__module__ = "dcbsim"

__all__ = ["Result", "Scenario", "ScenarioError", "__version__", "load", "loads", "run", "sweep"]


MAX_SEED = (1 << 64) - 1


def _overrides(overrides: Sequence[str] | None) -> list[str]:
    """The overrides as a list of strings; a lone string is refused (it would be read
    character by character)."""
    if overrides is None:
        return []
    if isinstance(overrides, (str, bytes)):
        raise TypeError(f"overrides must be a list of \"key.path=value\" strings, not a string (got {overrides!r}); wrap it in a list")
    items = list(overrides)
    bad = [o for o in items if not isinstance(o, str)]
    if bad:
        raise TypeError(f"overrides must be strings \"key.path=value\" (got {bad[0]!r})")
    return items


def check_seed(seed: Any) -> int:
    """``seed`` as an int in 0..=2**64-1, or a ValueError/TypeError saying what is allowed
    (a bool, float or string is refused rather than converted)."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"seed must be an integer in 0..={MAX_SEED} (got {seed!r})")
    value = operator.index(seed)
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"seed must be an integer in 0..={MAX_SEED} (got {value})")
    return value


def load(
    path: str | os.PathLike[str],
    overrides: Sequence[str] | None = None,
    max_memory_gb: float | None = None,
    *,
    keep_built: bool = False,
) -> Scenario:
    """Reads and validates a scenario file; ``overrides`` are ``"key.path=value"`` strings.

    ``path`` is a file or, when no such file exists, the name of a shipped scenario
    (``"quickstart"``, ``"qcnt/fig01_qcn"``: see :mod:`dcbsim.shipped`).

    Raises :class:`ScenarioError` with a one-line message naming the file, line,
    column and key. A run estimated to need more than ``max_memory_gb`` (default 4)
    is refused with the figure.

    Validating builds the network; with ``keep_built`` that build is kept for the
    first run with the scenario's own seed, which then need not build it again (at
    100,000 hosts a third of a second), and holds its memory until then: for a
    scenario loaded to be run at once, as ``dcbsim run`` does.
    """
    return Scenario.load(shipped.resolve(path), _overrides(overrides), max_memory_gb, keep_built)


def loads(
    text: str,
    file: str = "<string>",
    overrides: Sequence[str] | None = None,
    max_memory_gb: float | None = None,
) -> Scenario:
    """Reads and validates a scenario given as TOML text."""
    return Scenario.loads(text, file, _overrides(overrides), max_memory_gb)


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    progress: Callable[[float], Any] | None = None,
    pcap: traces.PcapSpec | None = None,
    pcap_dir: str | os.PathLike[str] | None = None,
    pcap_snaplen: int = traces.DEFAULT_SNAPLEN,
    samples_dir: str | os.PathLike[str] | None = None,
) -> Result:
    """Runs a scenario (or a scenario file) and returns its :class:`Result`.

    ``seed`` defaults to the scenario's own. ``progress`` is called with the fraction
    done as the run advances; the GIL is released while the engine runs.

    ``pcap`` asks for packet traces of the frames ports send: a port name
    (``"sw0:r0"``), a list of them, each written to ``pcap_dir`` (default: the current
    directory; made if missing) as :func:`dcbsim.traces.pcap_file_name` names it
    (``sw0-r0.pcap``), or a mapping of port name to file path. Each frame keeps
    ``pcap_snaplen`` bytes. The files appear when the run ends and not at all if it
    fails or is interrupted; see ``docs/traces.md`` for the frames' layout.

    A run whose samples would take more memory than the scenario's
    ``output.sample_memory_mb`` streams them to disk as it goes, into a temporary
    folder in ``samples_dir`` (default: the system's) that lives as long as the
    result, which reads its series from there (see :mod:`dcbsim.samples`).
    """
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    seed = scenario.seed if seed is None else check_seed(seed)
    wanted = traces.requests(pcap, pcap_dir)
    snaplen = traces.check_snaplen(pcap_snaplen)
    if wanted and pcap_dir is not None and all(port in scenario.port_names for port, _ in wanted):
        os.makedirs(pcap_dir, exist_ok=True)
    traced = {"pcap": wanted, "snaplen": snaplen} if wanted else {}
    if scenario.streams_samples:
        return _run_streamed(scenario, seed, progress, None if samples_dir is None else os.fspath(samples_dir), **traced)
    # The report is made with the collector paused (by the engine), and so is the
    # result from it (see dcbsim.bulk).
    raw = scenario.run(seed, progress, **traced)
    with collector_paused():
        return Result(raw, scenario, seed)


def _run_streamed(scenario: Scenario, seed: int, progress: Callable[[float], Any] | None, directory: str | None,
                  **traced: Any) -> Result:
    """Runs ``scenario`` streaming its samples into a new folder in ``directory`` (the
    system's temporary folder by default), turns them into the tidy table there, and
    returns the :class:`Result` reading from it; the folder goes with the result (or
    at once if the run fails)."""
    import shutil
    import tempfile
    import weakref

    from dcbsim import samples

    folder = tempfile.mkdtemp(prefix="dcbsim-samples-", dir=directory)
    try:
        spill = os.path.join(folder, "samples.spill")
        raw = scenario.run(seed, progress, samples=spill, **traced)
        table = samples.to_parquet(spill, os.path.join(folder, "results.parquet"), samples.sample_times(raw),
                                   samples.columns(raw), raw["sample_chunk_rows"], seed, scenario.sample_memory_bytes,
                                   scenario.compression)
        with collector_paused():
            result = Result(raw, scenario, seed, table)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    weakref.finalize(result, shutil.rmtree, folder, True)
    return result


def sweep(
    sweep_file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    executor: Any = None,
    jobs: int | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> Any:
    """Runs a parameter sweep (see :mod:`dcbsim.sweepfile`) into ``out`` and returns the
    combined tidy table of samples as a polars DataFrame; ``out`` also gets the tables
    keyed by run (``runs``, ``ports``, ``flows``, ``arrivals``, ``classes``, ``fcts``:
    see :mod:`dcbsim.sweeptables`). ``executor`` may be any
    :class:`concurrent.futures.Executor` (default: a process pool of ``jobs`` workers).
    Runs already complete in ``out`` are not run again."""
    from dcbsim.sweeps import run_sweep

    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be an integer >= 1 (got {jobs!r})")
    return run_sweep(sweep_file, os.fspath(out), executor, jobs, progress)
