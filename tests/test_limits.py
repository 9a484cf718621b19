"""Regressions of issue 45 on the Python and CLI side: frames conserved under TCP and
DCTCP, long names drawn quickly, the results' size estimated and refused beyond the
limit or the free space, a run whose streamed samples cannot be written stopped at
once, and ``--out ""`` refused before the run."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import dcbsim
from conftest import SCENARIOS
from test_reliability import QUICK, cli, one_line_error

TCP_FCT = SCENARIOS / "examples" / "tcp_fct.toml"


def conserved(stats: dict) -> bool:
    return stats["sent_frames"] == stats["delivered_frames"] + stats["dropped_frames"] + stats["in_network_frames"]


@pytest.mark.parametrize("transport", ["tcp", "dctcp"])
def test_frames_are_conserved_under_tcp_and_dctcp_with_losses(transport):
    # Seed 11 once left 257 frames counted nowhere: duplicate segments, not counted
    # as delivered.
    sets = ["run.duration_ms=200", "arrivals[0].stop_ms=150", f'flows[0].transport="{transport}"',
            f'arrivals[0].transport="{transport}"']
    if transport == "dctcp":
        sets += ["topology.buffer_kb=48", "transport.ecn_k_kb=40"]
    r = dcbsim.run(dcbsim.load(TCP_FCT, sets), seed=11)
    totals = r.summary["totals"]
    assert totals["dropped_frames"] > 0
    assert conserved(totals), totals
    assert all(conserved(f.stats) for f in r.flows.values())
    assert all(conserved(a.stats) for a in r.arrivals.values())


def test_a_long_run_name_is_drawn_quickly_and_kept_whole(tmp_path):
    # A 100,000-character name with plots took 27 s, its title wrapped over a
    # thousand lines; plots now show its first 60 characters.
    name = "x" * 100_000
    done = cli("run", QUICK, "--out", str(tmp_path / "o"), "--set", f'run.name="{name}"', "--set", "run.duration_ms=5",
               timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "o" / "queue.png").exists()
    import json

    assert json.loads((tmp_path / "o" / "summary.json").read_text())["scenario"] == name


def test_results_above_the_output_limit_are_refused_before_the_run(tmp_path):
    # 100 ms sampled every nanosecond: about 48 GB of results (42 GB once written).
    done = cli("run", QUICK, "--out", str(tmp_path / "o"), "--set", "run.sample_interval_us=0.001", timeout=60)
    one_line_error(done, 2, "run.sample_interval_us: the run would write about")
    assert "output.max_output_gb" in done.stderr
    assert not (tmp_path / "o").exists()
    s = dcbsim.load(QUICK, ["run.sample_interval_us=0.001", "output.max_output_gb=100"])
    assert 30e9 < s.output_bytes < 60e9


def test_results_above_the_free_space_are_refused_before_the_run(tmp_path, monkeypatch):
    from dcbsim import cli as cli_module
    from dcbsim import outputs

    monkeypatch.setattr(outputs, "free_bytes", lambda outdir: 1000)
    status = cli_module.main(["run", QUICK, "--out", str(tmp_path / "new" / "o"), "--set", "run.duration_ms=5"])
    assert status == 2
    assert not (tmp_path / "new").exists(), "nothing made, not even the parent of --out"


def test_the_free_space_message_names_the_figures(tmp_path, monkeypatch, capsys):
    from dcbsim import cli as cli_module
    from dcbsim import outputs

    monkeypatch.setattr(outputs, "free_bytes", lambda outdir: 10_000_000)
    status = cli_module.main(["run", QUICK, "--out", str(tmp_path / "o"), "--set", "run.sample_interval_us=1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert "the run would write about 0.030 GB" in err[0] and "above the 0.010 GB free there" in err[0], err


def test_an_empty_out_is_refused_before_the_run():
    one_line_error(cli("run", QUICK, "--out", "", timeout=60), 2, "--out: must name a directory")


def test_a_run_whose_samples_cannot_be_written_stops_at_once(tmp_path):
    # The file size limit stands for a full disk: the first write past 1 MB fails
    # (Python ignores SIGXFSZ, so the write returns EFBIG). The run is 10 s long,
    # sampled every microsecond, its samples streamed: it must stop long before.
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))\n"
        "from dcbsim.cli import main\n"
        f"sys.exit(main(['run', {QUICK!r}, '--out', {str(tmp_path / 'o')!r}, '--no-plots',"
        " '--set', 'run.duration_ms=10000', '--set', 'run.sample_interval_us=1', '--set', 'output.sample_memory_mb=1',"
        " '--set', 'output.max_output_gb=1000', '--max-memory-gb', '20']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    one_line_error(done, 1, "cannot write the samples")
    stopped = float(done.stderr.split("the run stopped at ")[1].split(" ms")[0])
    assert stopped < 1000, done.stderr
    assert not (tmp_path / "o").exists()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".o.tmp")]
