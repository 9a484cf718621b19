"""Running sweeps: many runs on a local process pool, a Dask cluster, or any
:class:`concurrent.futures.Executor`, resumable and tolerant of failing runs.

Each run is keyed by a hash of (scenario as run, seed) and kept in one file,
``OUT/runs/<key>.parquet``, written whole or not at all (a temporary file renamed): the
run's samples (``run_id``, ``seed`` and every swept variable as columns) with, in the
file's metadata, its row of ``runs`` (variables, seed, status, error, every scalar of the
summary) and its rows of the other tables (ports, flows, arrivals, classes, FCTs: see
:mod:`dcbsim.sweeptables`). A failed run's file has no samples and the error. A re-run skips the runs whose file
is complete and says ``ok``; a missing, damaged or failed one is run again, so an
interrupted or killed sweep resumes where it stopped. A worker process that dies (killed,
out of memory) fails its run, and the sweep goes on with a fresh pool; workers exit when
the sweep's process dies. The combined tables are ``OUT/results.parquet`` (the samples),
``OUT/runs.parquet``, ``OUT/ports.parquet``, ``OUT/flows.parquet``,
``OUT/arrivals.parquet``, ``OUT/classes.parquet`` and ``OUT/fcts.parquet``, each with
the same key columns and dtypes, compressed as the swept scenario's
``output.compression`` says (zstd by default); ``OUT/manifest.json`` says how the
sweep was made. A local pool of several workers caps each run's ``run.threads`` at its
share of the cores (see :func:`capped_threads`).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import polars as pl

import dcbsim
from dcbsim import outputs, sweeptables
from dcbsim._core import DEFAULT_MAX_MEMORY_GB
from dcbsim.pool import LocalPool, dispatch, local_pool
from dcbsim.sweepfile import RunSpec, Sweep, load, run_key

__all__ = ["Task", "dask_executor", "describe", "describe_lines", "execute", "local_pool", "run_sweep", "tasks"]

ROW_KEY = "dcbsim_run"
#: The metadata key (and the key of a worker's row) of a run's tables.
TABLES_KEY = "dcbsim_tables"
#: Dtype names a task carries for its variables (picklable plain strings).
_DTYPES = {"bool": pl.Boolean, "i64": pl.Int64, "f64": pl.Float64, "str": pl.Utf8}
#: A memory limit no run reaches, GB: loading a scenario only for its text.
_UNLIMITED_GB = 1e9


@dataclass(frozen=True)
class Task:
    """What a worker needs for one run: plain data, picklable."""

    key: str
    index: int
    seed: int
    scenario: str
    overrides: tuple[str, ...]
    values: dict[str, Any]
    error: str | None = None
    max_memory_gb: float | None = None
    #: Each variable's dtype name for the whole sweep (``i64``, ``f64``, ``bool``, ``str``).
    types: tuple[tuple[str, str], ...] = ()
    #: The threads the run is capped at (see :func:`capped_threads`); ``None``: as the
    #: scenario says.
    threads: int | None = None

    @property
    def variables(self) -> dict[str, pl.DataType]:
        """The swept variables' dtypes, by name."""
        return {name: _DTYPES[t] for name, t in self.types}

    def run_overrides(self) -> list[str]:
        """The overrides the run is loaded with: the point's, then the cap on its threads."""
        return [*self.overrides, *_threads_override(self.threads)]


def failed_row(task: Task, error: str, wall_s: float = 0.0) -> dict[str, Any]:
    """The summary row of a run that failed with ``error``."""
    return {"run_id": task.key, "index": task.index, "seed": task.seed, **task.values, "status": "failed", "error": error, "wall_s": wall_s}


def _failed_result(task: Task, error: str) -> tuple[str, None, dict[str, Any]]:
    return task.key, None, failed_row(task, error)


def execute(task: Task) -> tuple[str, pl.DataFrame | None, dict[str, Any]]:
    """Runs one task (in a worker): its tidy table and a summary row, or the error."""
    started = time.perf_counter()
    if task.error is not None:
        return task.key, None, failed_row(task, task.error)
    try:
        scenario = dcbsim.load(task.scenario, task.run_overrides(), task.max_memory_gb)
        result = dcbsim.run(scenario, seed=task.seed)
    except Exception as e:
        return task.key, None, failed_row(task, f"{type(e).__name__}: {e}", time.perf_counter() - started)
    variables = task.variables or {k: sweeptables.value_dtype([v]) for k, v in task.values.items()}
    table = sweeptables.keyed(result.to_polars(), task.key, task.seed, task.values, variables)
    row: dict[str, Any] = {"run_id": task.key, "index": task.index, "seed": task.seed, **task.values}
    row.update(status="ok", error=None, **sweeptables.run_row(result.summary))
    row["wall_s"] = time.perf_counter() - started
    row[TABLES_KEY] = sweeptables.encode(sweeptables.run_tables(result))
    return task.key, table, row


def iter_tasks(sweep: Sweep, max_memory_gb: float | None = None,
               explain: Callable[[str], str] | None = None, workers: int = 1) -> Iterator[Task]:
    """The sweep's runs as tasks, lazily, keyed by (scenario as run, seed). A combination
    that makes a bad scenario becomes a task that fails with the scenario's error (which
    ``explain``, if given, may add to). With ``workers`` runs going on at once, each run's
    threads are capped at their share of the cores (:func:`capped_threads`; the key is
    the uncapped scenario's, see :func:`_checked_key`)."""
    base = load_base(sweep)
    types = tuple((name, _dtype_name(t)) for name, t in variable_types(sweep).items())
    threads = _scenario_threads(base.toml) if workers > 1 else 1
    cores = os.cpu_count() or 1
    for run in sweep.iter_runs():
        cap = _cap(_asked_threads(sweep, run, threads), workers, cores)
        try:
            key, error = _checked_key(sweep.scenario, run, cap, max_memory_gb), None
        except dcbsim.ScenarioError as e:
            key, error = run_key("\n".join(run.overrides), run.seed), str(e)
            if explain is not None:
                error = explain(error)
        yield Task(key, run.index, run.seed, sweep.scenario, run.overrides, run.values, error, max_memory_gb, types, cap)


def load_base(sweep: Sweep) -> dcbsim.Scenario:
    """The sweep's scenario as written, which must be sound. It is never run itself, so
    its size is not held to a memory limit: each run is checked as it will run."""
    return dcbsim.load(sweep.scenario, max_memory_gb=_UNLIMITED_GB)


def capped_threads(threads: int, workers: int, cores: int) -> int:
    """The threads a run asking for ``threads`` (``run.threads``; 0: every core) goes on
    when ``workers`` runs share ``cores`` cores: at most its share, ``max(1, cores //
    workers)``. A split run's threads meet at a barrier every few microseconds of
    simulated time, and on cores the other runs keep busy they wait there far longer
    than one thread would take (docs/speed.md); the results do not depend on the
    threads. A run asking for no more than its share, or the only worker's, keeps
    ``threads`` as it is."""
    share = max(1, cores // workers)
    asked = cores if threads == 0 else threads
    return share if workers > 1 and asked > share else threads


def _cap(asked: Any, workers: int, cores: int) -> int | None:
    """The threads a run asking for ``asked`` is capped at, or ``None`` when it keeps them
    (a value that is not an integer is left to the scenario's checks to refuse)."""
    if not isinstance(asked, int) or isinstance(asked, bool):
        return None
    threads = capped_threads(asked, workers, cores)
    return None if threads == asked else threads


def _scenario_threads(toml: str) -> Any:
    """``run.threads`` of a scenario, from its text (1 when it does not say)."""
    return tomllib.loads(toml).get("run", {}).get("threads", 1)


def _asked_threads(sweep: Sweep, run: RunSpec, threads: Any) -> Any:
    """The ``run.threads`` a run asks for: the last variable that sets it, else the
    scenario's ``threads``."""
    swept = [v.name for v in sweep.vars if v.path == "run.threads"]
    return run.values[swept[-1]] if swept else threads


def _threads_override(threads: int | None) -> list[str]:
    """The override that caps a run at ``threads`` (none for ``None``)."""
    return [] if threads is None else [f"run.threads={threads}"]


def _checked_key(scenario: str, run: RunSpec, cap: int | None, max_memory_gb: float | None) -> str:
    """The key of ``run``, after checking the scenario as it will run: capped at ``cap``
    threads, if any, which its memory is estimated with. The key is that of the
    scenario as the sweep asks for it whatever the cap, so a sweep resumed with other
    ``--jobs`` finds the runs it did (their results do not depend on the threads); the
    capped scenario's only where the one asked for is more than this machine holds."""
    overrides = list(run.overrides)
    toml = dcbsim.load(scenario, overrides + _threads_override(cap), max_memory_gb).toml
    if cap is not None:
        with contextlib.suppress(dcbsim.ScenarioError):
            toml = dcbsim.load(scenario, overrides, _UNLIMITED_GB).toml
    return run_key(toml, run.seed)


def variable_types(sweep: Sweep) -> dict[str, pl.DataType]:
    """Each swept variable's dtype, from every value it takes."""
    return {v.name: sweeptables.value_dtype(v.values) for v in sweep.vars}


def _dtype_name(dtype: pl.DataType) -> str:
    return next(name for name, t in _DTYPES.items() if t == dtype)


def tasks(sweep: Sweep, max_memory_gb: float | None = None) -> list[Task]:
    """Every task of the sweep as a list (see :func:`iter_tasks`)."""
    return list(iter_tasks(sweep, max_memory_gb))


def _path(outdir: str, key: str) -> str:
    return os.path.join(outdir, "runs", f"{key}.parquet")


def stored_row(outdir: str, key: str) -> dict[str, Any] | None:
    """The summary row of a stored run, or ``None`` when its file is missing or damaged
    (a damaged file is removed, so the run is simply done again). The row of a run that
    completed carries its tables' text under :data:`TABLES_KEY`."""
    path = _path(outdir, key)
    if not os.path.exists(path):
        return None
    try:
        meta = pl.read_parquet_metadata(path)
        row = json.loads(meta[ROW_KEY])
        if row.get("status") == "ok":
            row[TABLES_KEY] = meta[TABLES_KEY]
        return row
    except Exception:
        with contextlib.suppress(OSError):
            os.remove(path)
        return None


def _done(outdir: str, key: str) -> bool:
    row = stored_row(outdir, key)
    return row is not None and row.get("status") == "ok"


def store(outdir: str, key: str, table: pl.DataFrame | None, row: dict[str, Any], compression: str = "zstd") -> None:
    """Writes one run's file atomically (a temporary file, then a rename), compressed
    with ``compression`` (polars' name)."""
    runs = os.path.join(outdir, "runs")
    os.makedirs(runs, exist_ok=True)
    tmp = os.path.join(runs, f".{key}.{os.getpid()}.tmp")
    data = table if table is not None else pl.DataFrame()
    row = dict(row)
    metadata = {TABLES_KEY: row.pop(TABLES_KEY)} if TABLES_KEY in row else {}
    metadata[ROW_KEY] = json.dumps(row, default=str)
    try:
        data.write_parquet(tmp, metadata=metadata, compression=compression)
        os.replace(tmp, _path(outdir, key))
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _combine(outdir: str, keys: Iterable[str], variables: dict[str, pl.DataType], compression: str = "zstd") -> pl.DataFrame:
    """Writes the sweep's tables (results.parquet, runs.parquet and the tables of
    :data:`dcbsim.sweeptables.TABLES`) from the stored runs, compressed with
    ``compression`` (polars' name); returns the runs."""
    rows, samples = [], []
    parts: dict[str, list[pl.DataFrame]] = {name: [] for name in sweeptables.TABLES}
    for key in keys:
        row = stored_row(outdir, key)
        if row is None:
            continue
        tables = row.pop(TABLES_KEY, None)
        rows.append(row)
        if row.get("status") != "ok":
            continue
        samples.append(pl.read_parquet(_path(outdir, key)))
        values = {k: row.get(k) for k in variables}
        for name, table in sweeptables.decode(tables or "{}").items():
            parts[name].append(sweeptables.keyed(table, row["run_id"], row["seed"], values, variables))
    keys_schema = sweeptables.keys_schema(variables)
    if samples:
        table = pl.concat(samples, how="diagonal_relaxed")
        table = table.cast({k: t for k, t in keys_schema.items() if k in table.columns})
        table.write_parquet(os.path.join(outdir, "results.parquet"), compression=compression)
    for name, frames in parts.items():
        table = pl.concat(frames) if frames else sweeptables.empty(name, variables)
        table.write_parquet(os.path.join(outdir, f"{name}.parquet"), compression=compression)
    schema = {**keys_schema, **sweeptables.RUNS}
    for row in rows:
        row.update({k: sweeptables.cast_value(row.get(k), t) for k, t in variables.items()})
    summary = pl.DataFrame({k: [r.get(k) for r in rows] for k in schema}, schema=schema, strict=False)
    summary.write_parquet(os.path.join(outdir, "runs.parquet"), compression=compression)
    return summary


def run_sweep(
    sweep: Sweep | str | os.PathLike[str],
    outdir: str,
    executor: Executor | None = None,
    jobs: int | None = None,
    progress: Callable[[int, int], Any] | None = None,
    max_memory_gb: float | None = None,
    work: Callable[[Task], tuple[str, pl.DataFrame | None, dict[str, Any]]] = execute,
) -> pl.DataFrame:
    """Runs every run of ``sweep`` not yet complete in ``outdir`` and returns the combined
    tidy table (``results.parquet``: one row per sample, with ``run_id``, ``seed`` and the
    swept variables). ``executor`` defaults to a local process pool of ``jobs`` workers
    (all cores); any :class:`concurrent.futures.Executor` works, a Dask client's too.
    ``progress(done, total)`` is called as runs complete (``total`` is the grid's size
    before the constraint). Failed runs are in ``runs.parquet`` with their error; a run
    whose worker process died is one of them. ``work`` runs one task (a picklable
    top-level function; :func:`execute` by default). A local pool of several workers
    caps each run's threads (:func:`capped_threads`); the manifest says how many runs
    it capped, and ``runs.parquet``'s ``parts`` the threads each run went on."""
    if not isinstance(sweep, Sweep):
        sweep = load(sweep)
    os.makedirs(outdir, exist_ok=True)
    started, keys, ran = time.perf_counter(), [], 0
    counts: collections.Counter[str] = collections.Counter()
    compression = outputs.polars_compression(load_base(sweep).compression)
    total = sweep.size()
    pool = executor or LocalPool(jobs)
    workers = 1 if executor is not None else pool.jobs
    limit, note = per_run_limit(max_memory_gb, workers, machine_memory_gb())
    todo = _pending(sweep, outdir, limit, keys, counts, note, workers)
    try:
        if progress:
            progress(0, total)
        for key, table, row in dispatch(pool, work, todo, _failed_result):
            store(outdir, key, table, row, compression)
            ran += 1
            if progress:
                progress(ran + counts["skipped"], total)
    except BaseException:
        if executor is None:
            pool.kill()
        raise
    if executor is None:
        pool.shutdown()
    _combine(outdir, keys, variable_types(sweep), compression)
    manifest = _manifest(sweep, len(keys), ran, time.perf_counter() - started, _threads_capped(counts["capped"], workers))
    outputs.write_json(os.path.join(outdir, "manifest.json"), manifest)
    results = os.path.join(outdir, "results.parquet")
    return pl.read_parquet(results) if os.path.exists(results) else pl.DataFrame()


def machine_memory_gb() -> float | None:
    """This machine's physical memory, GB (``None`` where the platform does not tell)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (AttributeError, ValueError, OSError):
        return None


def per_run_limit(max_memory_gb: float | None, workers: int,
                  machine_gb: float | None) -> tuple[float | None, Callable[[str], str]]:
    """The memory limit of each run of a local sweep, GB, and what a refusal adds: the
    runs' own limit (``max_memory_gb``, default 4), but no more than this machine's
    memory (``machine_gb``) shared by the ``workers`` runs that go on at once."""
    limit = DEFAULT_MAX_MEMORY_GB if max_memory_gb is None else max_memory_gb
    if workers == 1 or machine_gb is None or machine_gb / workers >= limit:
        return max_memory_gb, lambda error: error
    share = machine_gb / workers

    def explain(error: str) -> str:
        if "GB of memory" not in error:
            return error
        return (f"{error} (the sweep's {workers} parallel runs share this machine's {machine_gb:.3g} GB, "
                f"{share:.3g} GB each; fewer --jobs give each more)")

    return share, explain


def _pending(sweep: Sweep, outdir: str, max_memory_gb: float | None, keys: list[str], counts: collections.Counter[str],
             explain: Callable[[str], str], workers: int) -> Iterator[Task]:
    """The tasks not yet done, lazily; every task's key is appended to ``keys``, the
    runs already done are counted in ``counts["skipped"]`` and those to run with their
    threads capped in ``counts["capped"]``."""
    for task in iter_tasks(sweep, max_memory_gb, explain, workers):
        keys.append(task.key)
        if _done(outdir, task.key):
            counts["skipped"] += 1
        else:
            counts["capped"] += int(task.threads is not None and task.error is None)
            yield task


def _threads_capped(runs: int, workers: int) -> dict[str, int] | None:
    """The manifest's record of the cap on threads: the ``runs`` run now with their
    threads capped, at how many, and why (``workers`` sharing ``cores``); ``None``
    when there were none."""
    if not runs:
        return None
    cores = os.cpu_count() or 1
    return {"runs": runs, "threads": max(1, cores // workers), "workers": workers, "cores": cores}


def _manifest(sweep: Sweep, runs: int, ran: int, wall_s: float, threads_capped: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "dcbsim_version": dcbsim.__version__,
        "sweep_file": sweep.file,
        "scenario_file": sweep.scenario,
        "base_seed": sweep.seed,
        "repeat": sweep.repeat,
        "constraint": sweep.constraint,
        "variables": {v.name: {"set": v.path, "values": list(v.values), "group": v.group} for v in sweep.vars},
        "runs": runs,
        "ran_now": ran,
        "threads_capped": threads_capped,
        "wall_s": wall_s,
        "git_commit": outputs.git_commit(os.path.dirname(os.path.abspath(sweep.scenario))),
        "command": sys.argv,
    }


def describe_lines(runs: Iterable[RunSpec]) -> Iterator[str]:
    """The expanded runs, one line each, lazily (``dcbsim sweep --list``)."""
    for r in runs:
        values = ", ".join(f"{k}={v!r}" for k, v in r.values.items())
        yield f"{r.index:5d}  combination {r.combination}  rep {r.repetition}  seed {r.seed}  {values}"


def describe(runs: Iterable[RunSpec]) -> str:
    """The expanded runs, one line each."""
    return "\n".join(describe_lines(runs))


def dask_executor(address: str) -> tuple[Any, Executor]:
    """A Dask client for ``address`` and its executor (needs the ``dask`` extra)."""
    try:
        from distributed import Client
    except ImportError:
        raise RuntimeError("the Dask scheduler needs dask.distributed: pip install 'dcbsim[dask]'") from None
    client = Client(address)
    return client, client.get_executor()
