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
sweep was made.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
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

    @property
    def variables(self) -> dict[str, pl.DataType]:
        """The swept variables' dtypes, by name."""
        return {name: _DTYPES[t] for name, t in self.types}


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
        scenario = dcbsim.load(task.scenario, list(task.overrides), task.max_memory_gb)
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
               explain: Callable[[str], str] | None = None) -> Iterator[Task]:
    """The sweep's runs as tasks, lazily, keyed by (scenario as run, seed). A combination
    that makes a bad scenario becomes a task that fails with the scenario's error (which
    ``explain``, if given, may add to)."""
    dcbsim.load(sweep.scenario)  # the scenario itself must be sound
    types = tuple((name, _dtype_name(t)) for name, t in variable_types(sweep).items())
    for run in sweep.iter_runs():
        try:
            toml = dcbsim.load(sweep.scenario, list(run.overrides), max_memory_gb).toml
            key, error = run_key(toml, run.seed), None
        except dcbsim.ScenarioError as e:
            key, error = run_key("\n".join(run.overrides), run.seed), str(e)
            if explain is not None:
                error = explain(error)
        yield Task(key, run.index, run.seed, sweep.scenario, run.overrides, run.values, error, max_memory_gb, types)


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
    top-level function; :func:`execute` by default)."""
    if not isinstance(sweep, Sweep):
        sweep = load(sweep)
    os.makedirs(outdir, exist_ok=True)
    started, keys, ran, skipped = time.perf_counter(), [], 0, [0]
    compression = outputs.polars_compression(dcbsim.load(sweep.scenario).compression)
    total = sweep.size()
    pool = executor or LocalPool(jobs)
    workers = 1 if executor is not None else pool.jobs
    limit, note = per_run_limit(max_memory_gb, workers, machine_memory_gb())
    todo = _pending(sweep, outdir, limit, keys, skipped, note)
    try:
        if progress:
            progress(0, total)
        for key, table, row in dispatch(pool, work, todo, _failed_result):
            store(outdir, key, table, row, compression)
            ran += 1
            if progress:
                progress(ran + skipped[0], total)
    except BaseException:
        if executor is None:
            pool.kill()
        raise
    if executor is None:
        pool.shutdown()
    _combine(outdir, keys, variable_types(sweep), compression)
    outputs.write_json(os.path.join(outdir, "manifest.json"), _manifest(sweep, len(keys), ran, time.perf_counter() - started))
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


def _pending(sweep: Sweep, outdir: str, max_memory_gb: float | None, keys: list[str], skipped: list[int],
             explain: Callable[[str], str]) -> Iterator[Task]:
    """The tasks not yet done, lazily; every task's key is appended to ``keys`` and the
    runs already done are counted in ``skipped[0]``."""
    for task in iter_tasks(sweep, max_memory_gb, explain):
        keys.append(task.key)
        if _done(outdir, task.key):
            skipped[0] += 1
        else:
            yield task


def _manifest(sweep: Sweep, runs: int, ran: int, wall_s: float) -> dict[str, Any]:
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
