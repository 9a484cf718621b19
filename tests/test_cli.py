"""The dcbsim command: outputs, validation, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from conftest import SCENARIOS

BAD = {
    "malformed": ('kind = "dumbbell"', 'kind = "dumbbell'),
    "negative rate": ("rate_gbps = 4.0", "rate_gbps = -4.0"),
    "unknown node": ('dst = "r0"', 'dst = "r7"'),
    "zero capacity": ("rate_gbps = 10.0", "rate_gbps = 0.0"),
    "tiny buffer": ("buffer_kb = 64.0", "buffer_kb = 0.5"),
    "unknown key": ("senders = 3", "senders = 3\nsenderz = 1"),
    "unknown scheme": ("[[flows]]", '[scheme]\nname = "magic"\n\n[[flows]]'),
    "timeline after the end": ("[[flows]]", '[[timeline]]\nat_ms = 99.0\nport = "sw0:r0"\nrate_gbps = 1.0\n\n[[flows]]'),
    "unknown transport": ('kind = "constant"', 'kind = "constant"\ntransport = "reno"'),
    "constant flow over tcp": ('kind = "constant"', 'kind = "constant"\ntransport = "tcp"'),
    "bad transport parameter": ("[[flows]]", '[transport]\ng = 2.0\n\n[[flows]]'),
    "incast without servers": ("[[flows]]", '[incast]\nclient = "r0"\nservers = "x*"\nsru_kb = 64.0\ntransport = "tcp"\n\n[[flows]]'),
}


def dcbsim_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcbsim.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_run_writes_results_summary_manifest_and_plots(tmp_path, quickstart):
    out = tmp_path / "run"
    done = dcbsim_cli("run", str(quickstart), "--out", str(out), "--set", "run.duration_ms=20", "--seed", "4")
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "manifest.json", "queue.png", "queue_cdf.png", "rates.png", "results.parquet", "summary.json", "summary.txt",
        "utilization.png",
    ]
    assert (out / "summary.txt").read_text().startswith("port ")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 4 and "duration_ms = 20" in manifest["scenario"]
    assert manifest["dcbsim_version"]
    # The process's peak memory, recorded and printed (a process of this size: tens of MiB).
    assert 5 < manifest["peak_memory_mib"] < 2000
    assert "MiB)" in done.stdout.splitlines()[-1]
    text = (out / "summary.json").read_text()
    summary = json.loads(text)
    assert summary["seed"] == 4
    # The outer levels indented, one line per port and per flow.
    lines = text.splitlines()
    assert lines[:2] == ["{", '  "scenario": "quickstart",']
    for name in list(summary["ports"]) + list(summary["flows"]):
        assert sum(line.startswith(f'    "{name}": {{') and line.endswith(("},", "}")) for line in lines) == 1, name
    table = pl.read_parquet(out / "results.parquet")
    assert table.columns == ["time_s", "metric", "entity", "value", "seed"]
    assert "sw0:r0" in done.stdout and "delivered" in done.stdout
    assert not list(tmp_path.glob(".*tmp*")), "no staging directory is left behind"
    # The documented pandas install reads the outputs.
    pd = pytest.importorskip("pandas")
    assert pd.read_parquet(out / "results.parquet").shape[0] == table.height


def test_validate_and_version(quickstart):
    done = dcbsim_cli("validate", str(quickstart))
    assert done.returncode == 0 and done.stdout.startswith("ok: quickstart")
    done = dcbsim_cli("--version")
    assert done.returncode == 0 and done.stdout.startswith("dcbsim ")
    # `python -m dcbsim` is the same command.
    done = subprocess.run([sys.executable, "-m", "dcbsim", "validate", str(quickstart)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("ok: quickstart")


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_gives_one_line_exit_2_and_writes_nothing(case, tmp_path, small_text):
    before, after = BAD[case]
    assert before in small_text
    path = tmp_path / "bad.toml"
    path.write_text(small_text.replace(before, after, 1))
    out = tmp_path / "out"
    done = dcbsim_cli("run", str(path), "--out", str(out))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"dcbsim: error: {path}"), lines[0]
    assert "Traceback" not in done.stderr and "panicked" not in done.stderr
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]


@pytest.mark.parametrize(
    "args",
    [
        ["run", "missing.toml", "--out", "o"],
        ["run", "{q}", "--out", "o", "--seed", "-1"],
        ["run", "{q}", "--out", "o", "--seed", "x"],
        ["run", "{q}", "--out", "o", "--set", "novalue"],
        ["run", "{q}", "--out", "o", "--set", "flows[9].src=s0"],
        ["validate"],
    ],
)
def test_bad_command_lines(args, tmp_path, quickstart):
    args = [a.replace("{q}", str(quickstart)) for a in args]
    done = dcbsim_cli(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "o").exists()


def test_every_shipped_scenario_validates():
    files = sorted(f for f in SCENARIOS.rglob("*.toml") if f.parent.name != "sweeps")
    assert len(files) >= 5
    for f in files:
        done = dcbsim_cli("validate", str(f))
        assert done.returncode == 0, done.stderr


def test_repro_help_lists_every_paper():
    from dcbsim.papers import registry

    done = dcbsim_cli("repro", "--help")
    assert done.returncode == 0
    for paper in registry():
        assert paper in done.stdout, paper


def _run_code(code: str, scenario, out):
    """Runs Python ``code`` in a process of its own with the scenario and output
    directory as its arguments; it must succeed. Returns ``out``."""
    done = subprocess.run([sys.executable, "-c", code, str(scenario), str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def test_the_peak_memory_is_the_runs_own_not_its_parents(tmp_path, quickstart):
    # A parent of about 600 MiB starts the run: the run's peak is its own (a small run:
    # under 400 MiB), which the maximum that getrusage keeps across exec is not.
    code = (
        "import subprocess, sys\n"
        "ballast = bytearray(600 * 2**20)\n"
        "ballast[::4096] = b'x' * len(ballast[::4096])\n"
        "sys.exit(subprocess.run([sys.executable, '-m', 'dcbsim.cli', 'run', sys.argv[1], '--out', sys.argv[2],"
        " '--no-plots', '--set', 'run.duration_ms=5']).returncode)\n"
    )
    out = _run_code(code, quickstart, tmp_path / "run")
    assert json.loads((out / "manifest.json").read_text())["peak_memory_mib"] < 400


def test_a_run_with_plots_leaves_its_result_to_be_freed_at_once(tmp_path, quickstart):
    # With the collector off throughout, nothing but reference counts frees the result
    # (and the plots of a run without finite flows need no polars):
    # importing the plots' modules under the frames that held it once kept it alive in
    # the cycles matplotlib's import leaves (then freed only by a pass over it all).
    code = (
        "import gc, sys\n"
        "gc.disable()\n"
        "from dcbsim import cli\n"
        "from dcbsim.results import Result\n"
        "status = cli.main(['run', sys.argv[1], '--out', sys.argv[2], '--set', 'run.duration_ms=5'])\n"
        "assert status == 0, status\n"
        "alive = [o for o in gc.get_objects() if isinstance(o, Result)]\n"
        "assert not alive, 'the result outlived the run'\n"
        "assert 'matplotlib' in sys.modules\n"
        "assert 'polars' not in sys.modules, 'polars imported for a run without finite flows'\n"
    )
    out = _run_code(code, quickstart, tmp_path / "run")
    assert (out / "queue.png").exists()


def test_on_a_terminal_the_outputs_being_written_are_named_then_erased(tmp_path, quickstart):
    # stderr a terminal (a pseudo-terminal here): after the run's bar, one line names
    # each output as it is written, and is blanked before the summary is printed.
    import pty

    main, side = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "dcbsim", "run", str(quickstart), "--out", str(tmp_path / "o")],
                          stdout=subprocess.PIPE, stderr=side, text=True)
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    terminal = b"".join(chunks).decode()
    assert done.returncode == 0
    for what in ("the summary", "results.parquet", "summary.json", "summary.txt", "queue.png"):
        assert f"writing {what}..." in terminal, terminal
    assert terminal.rstrip(" ").endswith("\r"), repr(terminal[-80:])
    assert "writing" not in done.stdout
