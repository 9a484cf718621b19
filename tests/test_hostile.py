"""A generated battery of hostile inputs (issue 45): scenario keys set to values of the
wrong type or at the extremes, sweep files with hostile constraints and ranges, model
and command-line arguments out of range. Each must end, in one line on stderr, with
exit status 0 (accepted), 2 (refused) or 1 (the environment), never a traceback, an
"unexpected" error or a hang.

Seeded and fast by default (``HOSTILE_CASES``, 240 cases per family); raise it to run
longer. ``HOSTILE_REPORT=1`` prints the counts (the README's reliability section
quotes them)."""

from __future__ import annotations

import collections
import os
import random

import pytest

from dcbsim import cli
from test_reliability import QUICK

CASES = int(os.environ.get("HOSTILE_CASES", "240"))
COUNTS: collections.Counter = collections.Counter()

#: Values of every type and at the extremes, as TOML.
VALUES = [
    "0", "-1", "1", "0.5", "1e-300", "-1e-300", "1e308", "-1e308", "inf", "-inf", "nan", "9223372036854775807",
    "9223372036854775808", "-9223372036854775809", "18446744073709551616", "true", "false", '""', '"x"',
    '"' + "x" * 10_000 + '"', '"s*"', '"sw0:r0"', '"\\u0000"', "[]", "[1]", "[1, 2, 3]", '["a", 1]', "{}",
    "{ a = 1 }", "1979-05-27", "[[1]]", "100000", "1e9", "0.001", "65536", "-0.0",
]

#: Keys of the quickstart and of the tables it may take.
KEYS = [
    "run.duration_ms", "run.seed", "run.sample_interval_us", "run.frame_bytes", "run.notification_bytes",
    "run.notification_latency_us", "run.name", "run.departure_timing", "topology.kind", "topology.senders",
    "topology.receivers", "topology.rate_gbps", "topology.delay_us", "topology.buffer_kb", "topology.priorities",
    "topology.frame_service_us", "topology.ecmp", "topology.ecmp_seed", "topology.bottleneck_gbps",
    "topology.feedback_loop_delay_us", "scheme.name", "scheme.q_eq_kb", "scheme.w", "scheme.gd", "scheme.timer_ms",
    "scheme.congestion_points", "monitor.ports", "flows[0].src", "flows[0].dst", "flows[0].kind", "flows[0].rate_gbps",
    "flows[0].weight", "flows[0].priority", "flows[0].start_ms", "flows[0].stop_ms", "flows[0].transport",
    "flows[0].pairing", "flows[0].jitter", "flows[0].size_kb", "flows[1].rate_gbps", "flows[1].stop_ms",
    "flows[5].rate_gbps", "transport.rto_min_ms", "transport.initial_window", "transport.ecn_k_kb", "pfc.priorities",
    "pfc.xoff_kb", "pfc.quanta", "ets.weights", "output.sample_memory_mb", "output.max_output_gb", "incast.client",
    "arrivals[0].load_gbps", "timeline[0].at_ms", "nosuch.key", "run", "flows", "a.b.c.d", "flows[-1].src",
]

MODELS = [
    ["qcn", "--rates-mbps"], ["qcn", "--capacity-gbps"], ["qcn", "--r-ai-mbps"], ["qcn", "--epsilon"],
    ["qcn", "--variant", "qcn_timer", "--timer-ms"], ["dsm", "--capacity-gbps", "10", "--loop-us"],
    ["dsm", "--loop-us", "10", "--capacity-gbps"], ["dsm", "--capacity-gbps", "10", "--loop-us", "10", "--p"],
    ["dsm", "--capacity-gbps", "10", "--loop-us", "10", "--frame-bytes"], ["theorem2", "--cycle-ms"], ["theorem2", "--w"],
    ["theorem2", "--p"], ["theorem2", "--gd"], ["theorem2", "--flows"], ["theorem2", "--x0-frames"],
    ["theorem2", "--target-gbps"], ["theorem2", "--frame-bytes"], ["dcc", "--aimd"], ["dcc", "--aimd", "1,0.5", "--capacity"],
    ["dcc", "--aimd", "1,0.5", "--frame-bytes"], ["maxmin", "--flow", "f=a", "--link"], ["maxmin", "--link", "a=1", "--flow"],
]
ARGS = ["0", "-1", "1", "nan", "inf", "-inf", "1e-300", "1e308", "", "x", "1,2", "0,0", "1,nan", "2", "1e9",
        "a=1", "f=a:0", "f=a:-1:2", "f=:1", "1,0.5,0", "1,0.5,-3", "1e9,0.999999", "0.999999999"]

CONSTRAINTS = [
    "ms > 1", "ms" + " + ms" * 300, "-" * 200 + "ms", "(" * 150 + "ms" + ")" * 150, "'a' * 10**9 == ''",
    "(1,) * 10**8", "round(ms, -10**8)", "round(ms, 10**8)", "'%0*d' % (10**9, 1)", "9**9**9", "2**4097",
    "ms ** ms ** ms", "math.factorial(10**6)", "math.exp(1e308)", "math.log(0)", "ms / 0", "ms // 0.0",
    "__import__('os')", "ms.__class__", "[x for x in (1, 2)]", "lambda: 1", "min()", "max(ms)", "abs('a')",
    "ms in 'abc'", "'ab' * ms", "'' if ms else 0", "not " * 100 + "ms", "inf > ms", "pi < ms < inf", "",
    "ms <", "ms == ms == ms", "math.inf * 0 > 1", "round(inf)", "math.isqrt(-1)", "math.sqrt(-1)", "1e308 * 10 > ms",
]


def run(args: list[str], capsys: pytest.CaptureFixture) -> int:
    try:
        status = cli.main(args)
    except SystemExit as e:  # argparse's own exit (its errors are one line too)
        status = e.code if isinstance(e.code, int) else 2
    err = capsys.readouterr().err.strip().splitlines()
    assert status in (0, 1, 2), (args, status, err)
    assert "Traceback" not in "\n".join(err) and not any("unexpected" in line for line in err), (args, err)
    if status:
        assert len(err) == 1 and err[0].startswith("dcbsim: error: "), (args, err)
    COUNTS["accepted" if status == 0 else "refused"] += 1
    return status


def test_scenario_keys_set_to_hostile_values(capsys):
    rng = random.Random(45)
    for _ in range(CASES):
        sets = [f"{rng.choice(KEYS)}={rng.choice(VALUES)}" for _ in range(rng.choice((1, 1, 2, 3)))]
        run(["validate", QUICK, *[a for s in sets for a in ("--set", s)]], capsys)


def test_model_arguments_out_of_range(capsys, tmp_path):
    rng = random.Random(46)
    for _ in range(CASES):
        base = rng.choice(MODELS)
        run(["model", *base, rng.choice(ARGS)], capsys)


def test_sweep_files_with_hostile_constraints_and_ranges(capsys, tmp_path):
    rng = random.Random(47)
    path = tmp_path / "sweep.toml"
    for _ in range(CASES):
        constraint = rng.choice(CONSTRAINTS).replace("\\", "\\\\").replace('"', '\\"')
        start, stop, step = (rng.choice(["0", "1", "-1", "1e300", "inf", "nan", "0.5", "1e-300", "true", '"a"'])
                             for _ in range(3))
        values = rng.choice([f"range = {{ start = {start}, stop = {stop}, step = {step} }}", "values = [2.0, 3.0]",
                             "values = []", f"values = [{start}]"])
        name = rng.choice(["ms", "ms", "True", "__import__", "len", "seed", "1x", "ms"])
        path.write_text(f'[sweep]\nscenario = "{QUICK}"\nconstraint = "{constraint}"\n'
                        f'[[sweep.var]]\nname = "{name}"\nset = "run.duration_ms"\n{values}\n')
        run(["sweep", str(path), "--list"], capsys)


def test_command_line_flags_out_of_range(capsys, tmp_path):
    rng = random.Random(48)
    flags = [["--seed"], ["--max-memory-gb"], ["--pcap-snaplen"], ["--set"], ["--out"]]
    for i in range(CASES // 4):
        flag = rng.choice(flags)
        value = rng.choice(ARGS + ["18446744073709551616", "-0", "run.duration_ms", "=", "run.duration_ms=1e-300"])
        # An --out under the test's own folder (or empty): nothing is written elsewhere.
        out = str(tmp_path / f"o{i}") if flag != ["--out"] else (value and str(tmp_path / f"{i}{value}"))
        args = ["run", QUICK, "--no-plots", "--set", "run.duration_ms=1", *(flag + [value] if flag != ["--out"] else []),
                "--out", out]
        run(args, capsys)


def teardown_module() -> None:
    if os.environ.get("HOSTILE_REPORT"):
        print(f"\nhostile inputs: {sum(COUNTS.values())} cases, {COUNTS['accepted']} accepted, {COUNTS['refused']} refused")
