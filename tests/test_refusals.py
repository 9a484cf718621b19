"""Regressions of issue 45, items 6 and 7: inputs that ended in "unexpected ..." (exit 1)
or were accepted as nonsense are refused in one line with exit status 2 (or 1 for a
full disk), naming the option or key and what is allowed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dcbsim import sweepfile
from test_reliability import QUICK, cli, one_line_error, write_sweep


@pytest.mark.parametrize("args, words", [
    (["qcn", "--variant", "qcn_timer", "--timer-ms", "1e-300"], "--timer-ms: must be a number in [0.001, 10000]"),
    (["qcn", "--epsilon", "2"], "--epsilon: must be a number in (0, 1]"),
    (["qcn", "--capacity-gbps", "nan"], "--capacity-gbps: must be a number"),
    (["dsm", "--capacity-gbps", "10", "--loop-us", "1e308"], "--loop-us: must be a number in [0, 1e+09]"),
    (["dsm", "--capacity-gbps", "-1", "--loop-us", "10"], "--capacity-gbps"),
    (["phase", "--flows", "0", "--plot", "x.png"], "--flows: must be an integer in [1, 1000]"),
    (["phase", "--smcc", "1,nan", "--plot", "x.png"], "--smcc: takes A,B"),
    (["dcc", "--aimd", "1,0.5", "--frame-bytes", "0"], "--frame-bytes: must be a number in [1, 1e+06]"),
    (["dcc", "--aimd", "1,0.5,0"], "--aimd 1,0.5,0: need"),
    (["theorem2", "--x0-frames", "nan"], "--x0-frames: must be a number"),
    (["theorem2", "--target-gbps", "0"], "--target-gbps: must be a number in [1e-06, 10000]"),
    (["maxmin", "--link", "a=nan", "--flow", "f=a"], "--link a=nan: the capacity must be a finite number >= 0"),
    (["maxmin", "--link", "a=-1", "--flow", "f=a"], "--link a=-1: the capacity"),
    (["maxmin", "--link", "a=1", "--flow", "f=a:0"], "the weight must be"),
])
def test_model_inputs_out_of_range_are_refused(args, words):
    one_line_error(cli("model", *args, timeout=60), 2, words)


def test_model_inputs_at_the_ends_of_their_ranges_do_not_fail_unexpectedly():
    for args in (["dsm", "--capacity-gbps", "1e-6", "--loop-us", "1e9", "--p", "1e-9"],
                 ["theorem2", "--capacity-gbps", "10000", "--w", "1e6", "--p", "1e-9", "--gd", "0.999"],
                 ["dcc", "--aimd", "1e9,0.999999", "--capacity", "1e-9"]):
        done = cli("model", *args, timeout=120)
        assert done.returncode in (0, 2) and "unexpected" not in done.stderr, (args, done.stderr)


VAR = '[[sweep.var]]\nname = "{name}"\nset = "run.duration_ms"\n{values}\n'


@pytest.mark.parametrize("name", ["__import__", "math", "True", "len", "inf", "round", "lambda"])
def test_sweep_variables_named_like_the_language_or_python_are_refused(tmp_path, name):
    path = write_sweep(tmp_path, VAR.format(name=name, values="values = [2.0]"))
    with pytest.raises(sweepfile.SweepError, match="is a name of the constraint language or of Python"):
        sweepfile.load(path)


@pytest.mark.parametrize("body, words", [
    ('constraint = ""\n' + VAR.format(name="ms", values="values = [2.0]"), "sweep.constraint: must be an expression"),
    ('constraint = "  "\n' + VAR.format(name="ms", values="values = [2.0]"), "sweep.constraint: must be an expression"),
    (VAR.format(name="ms", values="range = { start = 1.0, stop = inf, step = 1.0 }"), "must be finite numbers"),
    (VAR.format(name="ms", values="range = { start = 1.0, stop = nan, step = 1.0 }"), "must be finite numbers"),
    (VAR.format(name="ms", values="range = { start = 0, stop = 1e300, step = 1e-300 }"), "more than 100000 values"),
])
def test_sweep_files_with_nonsense_are_refused_in_one_line(tmp_path, body, words):
    path = write_sweep(tmp_path, body)
    one_line_error(cli("sweep", str(path), "--list", timeout=60), 2, words)


def test_plotting_a_sweep_with_a_damaged_table_is_refused(tmp_path):
    path = write_sweep(tmp_path, VAR.format(name="ms", values="values = [2.0, 3.0]"))
    out = tmp_path / "out"
    assert cli("sweep", str(path), "--out", str(out), "--jobs", "1").returncode == 0
    (out / "runs.parquet").write_bytes(b"PAR1 damaged")
    one_line_error(cli("plot", str(out), timeout=60), 2, "cannot read the sweep's tables")


def test_a_sweep_whose_tables_cannot_be_written_says_so(tmp_path):
    # The file size limit stands for a nearly full disk: the runs' own files fit, the
    # sweep's tables do not.
    path = write_sweep(tmp_path, VAR.format(name="ms", values="values = [2.0, 3.0]"))
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))\n"
        "from dcbsim.cli import main\n"
        f"sys.exit(main(['sweep', {str(path)!r}, '--out', {str(tmp_path / 'out')!r}, '--jobs', '1']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    one_line_error(done, 1, "cannot write the sweep's tables")
    assert "unexpected" not in done.stderr


def test_pfc_priorities_as_a_scalar_are_refused():
    one_line_error(cli("validate", QUICK, "--set", "pfc.priorities=7", timeout=60), 2, "write [7] for one")


def test_an_endless_sweep_or_scenario_file_is_read_no_further_than_the_cap():
    # /dev/zero was read to 4 GB before failing.
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    one_line_error(cli("sweep", "/dev/zero", "--list", timeout=120), 2, "larger than 256 MiB")
    one_line_error(cli("validate", "/dev/zero", timeout=120), 2, "larger than 256 MiB")
