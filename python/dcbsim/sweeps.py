"""Running sweeps: many runs on a local process pool, a Dask cluster, or any
:class:`concurrent.futures.Executor`, resumable and tolerant of failing runs.

Each run is keyed by a hash of (scenario as run, seed). Its table goes to
``OUT/runs/<key>.parquet`` (the tidy table with ``run_id``, ``seed`` and every swept
variable as columns), or its error to ``OUT/runs/<key>.error.json``. A re-run skips the
keys already complete, so an interrupted sweep resumes where it stopped. The combined
table is ``OUT/results.parquet``; ``OUT/runs.parquet`` has one row per run (its
variables, seed, status, error and headline numbers); ``OUT/manifest.json`` says how
the sweep was made.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import polars as pl

import dcbsim
from dcbsim import outputs
from dcbsim.sweepfile import RunSpec, Sweep, load, run_key


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


def execute(task: Task) -> tuple[str, pl.DataFrame | None, dict[str, Any]]:
    """Runs one task (in a worker): its tidy table and a summary row, or the error."""
    started = time.perf_counter()
    row: dict[str, Any] = {"run_id": task.key, "index": task.index, "seed": task.seed, **task.values}
    if task.error is not None:
        row.update(status="failed", error=task.error, wall_s=0.0)
        return task.key, None, row
    try:
        result = dcbsim.run(dcbsim.load(task.scenario, list(task.overrides)), seed=task.seed)
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the sweep goes on
        row.update(status="failed", error=f"{type(e).__name__}: {e}", wall_s=time.perf_counter() - started)
        return task.key, None, row
    table = result.to_polars().drop("seed").with_columns(
        pl.lit(task.key).alias("run_id"),
        pl.lit(task.seed, dtype=pl.UInt64).alias("seed"),
        *[pl.lit(v).alias(k) for k, v in task.values.items()],
    )
    s = result.summary
    row.update(status="ok", error=None, wall_s=time.perf_counter() - started, events=s["events"], **s["totals"])
    for name, port in s["ports"].items():
        if port["monitored"]:
            row[f"{name} mean_bytes"] = port["mean_bytes"]
            row[f"{name} utilization"] = port["utilization"]
    return task.key, table, row


def tasks(sweep: Sweep) -> list[Task]:
    """The sweep's runs as tasks, keyed by (scenario as run, seed). A combination that
    makes a bad scenario becomes a task that fails with the scenario's error."""
    dcbsim.load(sweep.scenario)  # the scenario itself must be sound
    out = []
    for run in sweep.runs():
        try:
            key, error = run_key(dcbsim.load(sweep.scenario, list(run.overrides)).toml, run.seed), None
        except dcbsim.ScenarioError as e:
            key, error = run_key("\n".join(run.overrides), run.seed), str(e)
        out.append(Task(key, run.index, run.seed, sweep.scenario, run.overrides, run.values, error))
    return out


def _done(outdir: str, key: str) -> bool:
    return os.path.exists(os.path.join(outdir, "runs", f"{key}.parquet"))


def _store(outdir: str, key: str, table: pl.DataFrame | None, row: dict[str, Any]) -> None:
    runs = os.path.join(outdir, "runs")
    os.makedirs(runs, exist_ok=True)
    error_path = os.path.join(runs, f"{key}.error.json")
    if table is None:
        outputs.write_json(error_path, row)
        return
    # The run's row first, then its table: the table's presence marks the run done, so a
    # sweep killed between the two redoes the run instead of finding half of it.
    outputs.write_json(os.path.join(runs, f"{key}.json"), row)
    tmp = os.path.join(runs, f".{key}.tmp")
    table.write_parquet(tmp)
    os.replace(tmp, os.path.join(runs, f"{key}.parquet"))
    if os.path.exists(error_path):
        os.remove(error_path)


def _combine(outdir: str, all_tasks: list[Task]) -> pl.DataFrame:
    """Writes results.parquet and runs.parquet from the stored runs; returns the runs."""
    rows, tables = [], []
    for t in all_tasks:
        base = os.path.join(outdir, "runs", t.key)
        path = base + ".json" if _done(outdir, t.key) else base + ".error.json"
        with open(path, encoding="utf-8") as f:
            rows.append(json.load(f))
        if _done(outdir, t.key):
            tables.append(pl.read_parquet(base + ".parquet"))
    if tables:
        pl.concat(tables, how="diagonal_relaxed").write_parquet(os.path.join(outdir, "results.parquet"))
    summary = pl.DataFrame(rows, infer_schema_length=None)
    summary.write_parquet(os.path.join(outdir, "runs.parquet"))
    return summary


def run_sweep(
    sweep: Sweep | str | os.PathLike[str],
    outdir: str,
    executor: Executor | None = None,
    jobs: int | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> pl.DataFrame:
    """Runs every run of ``sweep`` not yet complete in ``outdir`` and returns the combined
    tidy table (``results.parquet``: one row per sample, with ``run_id``, ``seed`` and the
    swept variables). ``executor`` defaults to a local process pool of ``jobs`` workers
    (all cores); any :class:`concurrent.futures.Executor` works, a Dask client's too.
    ``progress(done, total)`` is called as runs complete. Failed runs are in
    ``runs.parquet`` with their error."""
    if not isinstance(sweep, Sweep):
        sweep = load(sweep)
    all_tasks = tasks(sweep)
    todo = [t for t in all_tasks if not _done(outdir, t.key)]
    os.makedirs(outdir, exist_ok=True)
    own = executor is None
    pool = executor or local_pool(jobs)
    started = time.perf_counter()
    done = len(all_tasks) - len(todo)
    if progress:
        progress(done, len(all_tasks))
    try:
        futures: list[Future] = [pool.submit(execute, t) for t in todo]
        for future in as_completed(futures):
            key, table, row = future.result()
            _store(outdir, key, table, row)
            done += 1
            if progress:
                progress(done, len(all_tasks))
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
    _combine(outdir, all_tasks)
    outputs.write_json(os.path.join(outdir, "manifest.json"), _manifest(sweep, all_tasks, len(todo), time.perf_counter() - started))
    results = os.path.join(outdir, "results.parquet")
    return pl.read_parquet(results) if os.path.exists(results) else pl.DataFrame()


def _manifest(sweep: Sweep, all_tasks: list[Task], ran: int, wall_s: float) -> dict[str, Any]:
    return {
        "dcbsim_version": dcbsim.__version__,
        "sweep_file": sweep.file,
        "scenario_file": sweep.scenario,
        "base_seed": sweep.seed,
        "repeat": sweep.repeat,
        "constraint": sweep.constraint,
        "variables": {v.name: {"set": v.path, "values": list(v.values), "group": v.group} for v in sweep.vars},
        "runs": len(all_tasks),
        "ran_now": ran,
        "wall_s": wall_s,
        "git_commit": outputs.git_commit(os.path.dirname(os.path.abspath(sweep.scenario))),
        "command": sys.argv,
    }


def describe(runs: Iterable[RunSpec]) -> str:
    """The expanded runs, one line each (``dcbsim sweep --list``)."""
    lines = []
    for r in runs:
        values = ", ".join(f"{k}={v!r}" for k, v in r.values.items())
        lines.append(f"{r.index:5d}  combination {r.combination}  rep {r.repetition}  seed {r.seed}  {values}")
    return "\n".join(lines)


def local_pool(jobs: int | None = None) -> ProcessPoolExecutor:
    """A pool of ``jobs`` worker processes (default: all cores), started by spawning:
    forking a process whose libraries run threads (polars does) can deadlock."""
    return ProcessPoolExecutor(max_workers=jobs or os.cpu_count() or 1, mp_context=multiprocessing.get_context("spawn"))


def dask_executor(address: str) -> tuple[Any, Executor]:
    """A Dask client for ``address`` and its executor (needs the ``dask`` extra)."""
    try:
        from distributed import Client
    except ImportError:
        raise RuntimeError("the Dask scheduler needs dask.distributed: pip install 'dcbsim[dask]'") from None
    client = Client(address)
    return client, client.get_executor()
