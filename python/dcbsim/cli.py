"""The ``dcbsim`` command: run, sweep, plot, repro, model, validate."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence

import dcbsim
from dcbsim import outputs, scenarios_cli, traces
from dcbsim._core import DEFAULT_MAX_MEMORY_GB
from dcbsim.bulk import collector_paused
from dcbsim.table import summary_table


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"dcbsim: error: {message}\n")


def _seed(text: str) -> int:
    """``--seed``: an integer in 0..=2**64-1."""
    try:
        return dcbsim.check_seed(int(text))
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be an integer in 0..={dcbsim.MAX_SEED} (got {text!r})") from None


def _threads(text: str) -> int:
    """``--threads``: an integer in 0..=1024."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 1024:
        raise argparse.ArgumentTypeError(f"must be an integer in 0..=1024 (got {text!r})")
    return n


def _memory_gb(text: str) -> float:
    """``--max-memory-gb``: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of GB > 0 (got {text!r})")
    return value


def _snaplen(text: str) -> int:
    """``--pcap-snaplen``: an integer number of bytes (its range is checked with the ports)."""
    try:
        return traces.check_snaplen(int(text))
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be an integer number of bytes, 18..=262144 (got {text!r})") from None


def _jobs(text: str) -> int:
    """``--jobs``: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1 (got {text!r})")
    return value


def _memory_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-memory-gb", type=_memory_gb, metavar="GB",
                   help=f"refuse runs estimated to need more memory (default {DEFAULT_MAX_MEMORY_GB:g})")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dcbsim", description="Simulate congestion management in Data Center Bridging Ethernet.")
    p.add_argument("--version", action="version", version=f"dcbsim {dcbsim.__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = sub.add_parser("run", help="run a scenario and write results, a manifest and plots")
    run.add_argument("file", help="scenario file (TOML), or a shipped scenario's name (see 'dcbsim scenarios')")
    run.add_argument("--out", required=True, help="output directory (must be empty or new, unless --overwrite)")
    run.add_argument("--overwrite", action="store_true", help="replace the contents of a non-empty --out")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a scenario key")
    run.add_argument("--seed", type=_seed, help="seed (default: the scenario's)")
    run.add_argument("--threads", type=_threads, metavar="N",
                     help="threads for one run (run.threads; 0: every core): a fabric splits into parts, with the same results")
    run.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    run.add_argument("--pcap", action="append", default=[], metavar="PORT[,PORT...]",
                     help="write a packet trace (pcap) of the frames each port node:peer sends, as OUT/node-peer.pcap")
    run.add_argument("--pcap-snaplen", type=_snaplen, default=traces.DEFAULT_SNAPLEN, metavar="BYTES",
                     help=f"bytes kept of each traced frame (default {traces.DEFAULT_SNAPLEN})")
    _memory_option(run)
    sweep = sub.add_parser("sweep", help="run a parameter sweep (resumable) into one Parquet dataset")
    sweep.add_argument("file", help="sweep file, or a scenario with a [sweep] table, or a shipped sweep's name")
    sweep.add_argument("--out", help="output directory (required unless --list)")
    sweep.add_argument("--list", action="store_true", help="print the expanded runs and stop")
    sweep.add_argument("--jobs", type=_jobs, help="local worker processes (default: all cores)")
    _memory_option(sweep)
    sweep.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler")
    repro = sub.add_parser("repro", help="reproduce a paper's claims: table and figures")
    from dcbsim.paper_titles import TITLES

    repro.add_argument("paper", help=f"{', '.join(TITLES)} or all")
    repro.add_argument("--out", default="out/repro", help="output directory (default out/repro)")
    repro.add_argument("--quick", action="store_true", help="fewer seeds, for a smoke check")
    from dcbsim import models_cli

    models_cli.add_parsers(sub, _Parser)
    from dcbsim import sweep_plot

    sweep_plot.add_parser(sub)
    scenarios_cli.add_parser(sub, _Parser)
    check = sub.add_parser("validate", help="check a scenario without running it")
    check.add_argument("file", help="scenario file (TOML), or a shipped scenario's name")
    check.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a scenario key")
    _memory_option(check)
    return p


def _fail(message: str, status: int = 2) -> int:
    print(f"dcbsim: error: {message}", file=sys.stderr)
    return status


def _progress_bar(scenario: dcbsim.Scenario):
    """A tqdm bar over simulated time when stderr is a terminal, else nothing. The run
    calls back about ten times a second of wall time, so the bar and its clock move
    however long the simulated slices."""
    if not sys.stderr.isatty():
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=1000, desc=scenario.name[:40], unit="‰", bar_format="{l_bar}{bar}| {elapsed}<{remaining}", leave=False)

    def update(fraction: float) -> None:
        bar.update(round(1000 * fraction) - bar.n)
        bar.refresh()

    return bar, update


def _import_meanwhile(module: str) -> threading.Thread:
    """Starts importing ``module`` in a thread of its own, to be joined before its
    first use: the plots' modules (matplotlib, a second or more) load while the
    scenario is built and run with the GIL released. Imported here, under the frames
    that hold the result, the exceptions matplotlib's parser raises on the way kept
    those frames in reference cycles, and the result's million objects alive until the
    collector passed over them all (0.7 s at 100,000 flows). A failed import is left to
    the caller's own import, which raises it."""

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(module)

    thread = threading.Thread(target=load, name=f"import {module}", daemon=True)
    thread.start()
    return thread


def _run(args: argparse.Namespace) -> int:
    plots = None if args.no_plots else _import_meanwhile("dcbsim.plot")
    sets = args.set + ([] if args.threads is None else [f"run.threads={args.threads}"])
    scenario = dcbsim.load(args.file, sets, args.max_memory_gb, keep_built=True)
    ports = [p for text in args.pcap for p in traces.split_ports(text)]
    # The space first: check_out makes --out's parent, which a refusal should not leave.
    outputs.check_space(args.out, scenario.output_bytes)
    outputs.check_out(args.out, args.overwrite)
    outputs.remove_stale_stages(args.out)
    with outputs.side_stage(args.out, "pcap") as pcap_dir, outputs.side_stage(args.out, "samples") as samples_dir, collector_paused():
        return _run_into(args, scenario, ports, pcap_dir, samples_dir, plots)


def _run_into(args: argparse.Namespace, scenario: dcbsim.Scenario, ports: list[str], pcap_dir: str,
              samples_dir: str, plots: threading.Thread | None) -> int:
    """Runs ``scenario``, its packet traces written into ``pcap_dir`` (moved into
    ``--out`` with the other results) and its samples, if streamed, into
    ``samples_dir``, and writes the results, the plots too unless ``plots`` (the
    thread importing their module) is ``None``."""
    seed = scenario.seed if args.seed is None else args.seed
    bar, update = _progress_bar(scenario)
    started = time.perf_counter()
    try:
        result = dcbsim.run(scenario, seed=seed, progress=update, pcap=ports, pcap_dir=pcap_dir,
                            pcap_snaplen=args.pcap_snaplen, samples_dir=samples_dir)
    except KeyboardInterrupt as e:
        return _fail("interrupted; no output written", _signal_status(e))
    finally:
        if bar is not None:
            bar.close()
    status = _Status(sys.stderr.isatty())
    try:
        status("the summary")
        summary = result.summary
        _write_run(args, scenario, seed, result, summary, started, pcap_dir, status, plots)
    except (OSError, MemoryError, pl_errors()) as e:
        status.close()
        return _fail(f"--out {args.out}: cannot write the results: {_reason(e)}; nothing written", 1)
    finally:
        status.close()
    print(summary_table(summary))
    peak = outputs.peak_memory_mib()
    print(f"results in {args.out}" + ("" if peak is None else f" (peak memory {peak:.0f} MiB)"))
    return 0


def pl_errors() -> type[Exception]:
    """The base class of polars' own errors (raised when a write fails)."""
    import polars as pl

    return pl.exceptions.PolarsError


def _reason(e: BaseException) -> str:
    text = getattr(e, "strerror", None) or str(e) or type(e).__name__
    return " ".join(str(text).split())


class _Status:
    """One line on stderr, when it is a terminal, naming the output being written
    after the run's bar has gone (a run of many flows spends most of its time there);
    erased when the outputs are done or fail."""

    def __init__(self, shown: bool) -> None:
        self.shown = shown
        self.width = 0

    def __call__(self, what: str) -> None:
        if self.shown:
            text = f"writing {what}..."
            sys.stderr.write("\r" + text.ljust(self.width))
            sys.stderr.flush()
            self.width = len(text)

    def close(self) -> None:
        if self.shown and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()
            self.width = 0


def _write_run(args: argparse.Namespace, scenario: dcbsim.Scenario, seed: int, result: dcbsim.Result,
               summary: dict, started: float, extra_dir: str, status: _Status, plots: threading.Thread | None) -> None:
    with outputs.staged(args.out, args.overwrite) as stage:
        for name in sorted(os.listdir(extra_dir)):
            os.replace(os.path.join(extra_dir, name), os.path.join(stage, name))
        status("results.parquet")
        result.write_parquet(os.path.join(stage, "results.parquet"))
        status("summary.json")
        outputs.write_json(os.path.join(stage, "summary.json"), summary)
        status("summary.txt")
        with open(os.path.join(stage, "summary.txt"), "w", encoding="utf-8") as f:
            f.write(summary_table(summary, max_rows=None) + "\n")
        if result.has_fct_rows():
            status("fct.parquet")
            compression = outputs.polars_compression(scenario.compression)
            result.fct_table().write_parquet(os.path.join(stage, "fct.parquet"), compression=compression)
        if plots is not None:
            plots.join()
            from dcbsim import plot

            plot.save_all(result, stage, status)
        wall = time.perf_counter() - started
        outputs.write_json(os.path.join(stage, "manifest.json"), outputs.manifest(scenario, seed, wall, sys.argv))


def _validate(args: argparse.Namespace) -> int:
    scenario = dcbsim.load(args.file, args.set, args.max_memory_gb)
    nodes, links, flows = scenario.size
    memory, events = scenario.estimate
    streamed = ", samples streamed to disk" if scenario.streams_samples else ""
    print(f"ok: {scenario.name} ({nodes} nodes, {links} links, {flows} flows, scheme {scenario.scheme}; "
          f"about {memory / 1e9:.3g} GB of memory{streamed}, at most {events:.3g} events)")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from dcbsim import sweepfile, sweeps

    spec = sweepfile.load(args.file)
    if args.list:
        for line in sweeps.describe_lines(spec.iter_runs()):
            print(line)
        return 0
    if not args.out:
        return _fail("sweep: --out is required (or --list)")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        return _fail(f"--out {args.out}: exists and is not a directory")
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
        sweeps.run_sweep(spec, args.out, executor, args.jobs, progress, args.max_memory_gb)
    except pl_errors() as e:
        # Polars' own error when a table cannot be written (a full disk) or read.
        return _fail(f"--out {args.out}: cannot write the sweep's tables: {_reason(e)}; the runs finished so far are kept "
                     "(free space and run the sweep again to resume)", 1)
    except KeyboardInterrupt as e:
        return _fail(f"interrupted; the runs finished so far are kept in {args.out} (run the sweep again to resume)", _signal_status(e))
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
    import polars as pl

    runs = pl.read_parquet(f"{args.out}/runs.parquet")
    failed = runs.filter(pl.col("status") == "failed")
    print(f"{runs.height} runs, {runs.height - failed.height} ok, {failed.height} failed; results in {args.out}")
    _say_threads_capped(args.out)
    for row in failed.iter_rows(named=True):
        print(f"  run {row['index']} (seed {row['seed']}): {row['error']}")
    if failed.height and failed.height == runs.height:
        return _fail(f"sweep: every run failed ({failed.height} of {runs.height}); see the errors above", 1)
    if failed.height:
        print(f"dcbsim: warning: {failed.height} of {runs.height} runs failed", file=sys.stderr)
    return 0


def _say_threads_capped(out: str) -> None:
    """One line when the sweep ran some runs on fewer threads than their scenario asked
    (the manifest's ``threads_capped``), so that ``parts`` in runs.parquet surprises no one."""
    with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
        capped = json.load(f).get("threads_capped")
    if capped:
        print(f"run.threads capped at {capped['threads']} in {capped['runs']} runs: {capped['workers']} workers "
              f"share {capped['cores']} cores (the results are the same)")


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


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: workers stopped, finished work kept, one line."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


def _signal_status(e: BaseException) -> int:
    """128 + the signal: 143 for SIGTERM, 130 for Ctrl-C."""
    return 143 if isinstance(e, Terminated) else 130


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dcbsim`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    try:
        from dcbsim import models_cli, sweep_plot

        commands = {"run": _run, "sweep": _sweep, "repro": _repro, "validate": _validate, "model": models_cli.run,
                    "plot": sweep_plot.run, "scenarios": scenarios_cli.run}
        return commands[args.command](args)
    except (dcbsim.ScenarioError, ValueError) as e:
        return _fail(str(e))
    except RuntimeError as e:
        return _fail(str(e), 1)
    except outputs.OutError as e:
        return _fail(str(e), e.status)
    except TypeError as e:
        return _fail(str(e))
    except KeyboardInterrupt as e:
        return _fail("interrupted", _signal_status(e))
    except (OSError, MemoryError) as e:
        return _fail(_reason(e) if isinstance(e, MemoryError) else str(e), 1)
    except Exception as e:
        return _fail(f"unexpected {type(e).__name__}: {_reason(e)}", 1)


if __name__ == "__main__":
    sys.exit(main())
