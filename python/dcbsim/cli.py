"""The ``dcbsim`` command: run, sweep, repro, model, validate."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Sequence

import dcbsim
from dcbsim import outputs
from dcbsim.table import summary_table


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"dcbsim: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dcbsim", description="Simulate congestion management in Data Center Bridging Ethernet.")
    p.add_argument("--version", action="version", version=f"dcbsim {dcbsim.__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="run a scenario and write results, a manifest and plots")
    run.add_argument("file", help="scenario file (TOML)")
    run.add_argument("--out", required=True, help="output directory")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a scenario key")
    run.add_argument("--seed", type=int, help="seed (default: the scenario's)")
    run.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    sweep = sub.add_parser("sweep", help="run a parameter sweep (resumable) into one Parquet dataset")
    sweep.add_argument("file", help="sweep file, or a scenario with a [sweep] table")
    sweep.add_argument("--out", help="output directory (required unless --list)")
    sweep.add_argument("--list", action="store_true", help="print the expanded runs and stop")
    sweep.add_argument("--jobs", type=int, help="local worker processes (default: all cores)")
    sweep.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler")
    repro = sub.add_parser("repro", help="reproduce a paper's claims: table and figures")
    from dcbsim.papers import TITLES

    repro.add_argument("paper", help=f"{', '.join(TITLES)} or all")
    repro.add_argument("--out", default="out/repro", help="output directory (default out/repro)")
    repro.add_argument("--quick", action="store_true", help="fewer seeds, for a smoke check")
    from dcbsim import models_cli

    models_cli.add_parsers(sub, _Parser)
    check = sub.add_parser("validate", help="check a scenario without running it")
    check.add_argument("file", help="scenario file (TOML)")
    check.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a scenario key")
    return p


def _fail(message: str, status: int = 2) -> int:
    print(f"dcbsim: error: {message}", file=sys.stderr)
    return status


def _progress_bar(scenario: dcbsim.Scenario):
    """A tqdm bar over simulated time when stderr is a terminal, else nothing."""
    if not sys.stderr.isatty():
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=100, desc=scenario.name, unit="%", bar_format="{l_bar}{bar}| {elapsed}<{remaining}", leave=False)

    def update(fraction: float) -> None:
        bar.update(round(100 * fraction) - bar.n)

    return bar, update


def _run(args: argparse.Namespace) -> int:
    if args.seed is not None and args.seed < 0:
        return _fail(f"--seed must be >= 0 (got {args.seed})")
    scenario = dcbsim.load(args.file, args.set)
    seed = scenario.seed if args.seed is None else args.seed
    bar, update = _progress_bar(scenario)
    started = time.perf_counter()
    try:
        result = dcbsim.run(scenario, seed=seed, progress=update)
    finally:
        if bar is not None:
            bar.close()
    summary = result.summary
    with outputs.staged(args.out) as stage:
        result.to_polars().write_parquet(os.path.join(stage, "results.parquet"))
        outputs.write_json(os.path.join(stage, "summary.json"), summary)
        with open(os.path.join(stage, "summary.txt"), "w", encoding="utf-8") as f:
            f.write(summary_table(summary, max_rows=None) + "\n")
        fct = result.fct_table()
        if fct.height:
            fct.write_parquet(os.path.join(stage, "fct.parquet"))
        if not args.no_plots:
            from dcbsim import plot

            plot.save_all(result, stage)
        wall = time.perf_counter() - started
        outputs.write_json(os.path.join(stage, "manifest.json"), outputs.manifest(scenario, seed, wall, sys.argv))
    print(summary_table(summary))
    print(f"results in {args.out}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    scenario = dcbsim.load(args.file, args.set)
    nodes, links, flows = scenario.size
    print(f"ok: {scenario.name} ({nodes} nodes, {links} links, {flows} flows, scheme {scenario.scheme})")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from dcbsim import sweepfile, sweeps

    spec = sweepfile.load(args.file)
    if args.list:
        print(sweeps.describe(spec.runs()))
        return 0
    if not args.out:
        return _fail("sweep: --out is required (or --list)")
    if args.jobs is not None and args.jobs < 1:
        return _fail(f"--jobs must be >= 1 (got {args.jobs})")
    client, executor = sweeps.dask_executor(args.scheduler) if args.scheduler else (None, None)
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(desc="sweep", unit="run", leave=False)

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.update(done - bar.n)

    try:
        sweeps.run_sweep(spec, args.out, executor, args.jobs, progress)
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    import polars as pl

    runs = pl.read_parquet(f"{args.out}/runs.parquet")
    failed = runs.filter(pl.col("status") == "failed")
    print(f"{runs.height} runs, {runs.height - failed.height} ok, {failed.height} failed; results in {args.out}")
    for row in failed.iter_rows(named=True):
        print(f"  run {row['index']} (seed {row['seed']}): {row['error']}")
    return 0


def _repro(args: argparse.Namespace) -> int:
    from dcbsim import papers

    names = list(papers.registry()) if args.paper == "all" else [args.paper]
    unknown = [n for n in names if n not in papers.registry()]
    if unknown:
        return _fail(f"repro: unknown paper {unknown[0]!r}; allowed: {', '.join(papers.registry())}, all")
    for name in names:
        print(papers.report(name, args.out, args.quick))
    print(f"pages and figures in {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dcbsim`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        from dcbsim import models_cli

        commands = {"run": _run, "sweep": _sweep, "repro": _repro, "validate": _validate, "model": models_cli.run}
        return commands[args.command](args)
    except (dcbsim.ScenarioError, ValueError) as e:
        return _fail(str(e))
    except RuntimeError as e:
        return _fail(str(e), 1)
    except KeyboardInterrupt:
        return _fail("interrupted; no output written", 130)
    except OSError as e:
        return _fail(str(e), 1)


if __name__ == "__main__":
    sys.exit(main())
