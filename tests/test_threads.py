"""One run on several threads (``run.threads``, ``--threads``): the same outputs, byte for
byte, as on one; clear refusals of bad thread counts."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest

import dcbsim

FABRIC = """
[run]
duration_ms = 3.0
sample_interval_us = 100.0

[topology]
kind = "fat_tree"
k = 4
rate_gbps = 10.0
delay_us = 1.0
buffer_kb = 128.0

[[flows]]
name = "perm"
src = "h*"
dst = "h*"
pairing = "permutation"
transport = "dctcp"
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dcbsim.cli", *args], capture_output=True, text=True, timeout=300)


def without_wall_time(summary: dict) -> dict:
    """The summary less what depends on the machine's speed."""
    return {k: v for k, v in summary.items() if k not in ("wall_s", "sim_speed", "parts")}


@pytest.mark.parametrize("sets", [[], ["--set", "output.sample_memory_mb=0.001"]], ids=["in-memory", "streamed"])
def test_a_fabric_run_on_two_and_three_threads_writes_what_one_writes(tmp_path, sets):
    scenario = tmp_path / "fabric.toml"
    scenario.write_text(FABRIC)
    outs = {}
    for threads in (1, 2, 3):
        out = tmp_path / f"t{threads}"
        done = cli("run", str(scenario), "--out", str(out), "--threads", str(threads), "--no-plots", *sets)
        assert done.returncode == 0, done.stderr
        outs[threads] = out
    one = json.loads((outs[1] / "summary.json").read_text())
    table = pl.read_parquet(outs[1] / "results.parquet")
    assert table.height > 0 and one["parts"] == 1
    for threads in (2, 3):
        # The k = 4 fat-tree splits by pods: the run did go on that many threads.
        assert json.loads((outs[threads] / "summary.json").read_text())["parts"] == threads
        assert without_wall_time(json.loads((outs[threads] / "summary.json").read_text())) == without_wall_time(one)
        assert pl.read_parquet(outs[threads] / "results.parquet").equals(table)


def test_packet_traces_of_a_split_run_are_those_of_one_thread(tmp_path):
    scenario = tmp_path / "fabric.toml"
    scenario.write_text(FABRIC)
    # A port inside a pod, one from a pod to a core (between parts on two threads),
    # and a NIC.
    ports = "edge0_0:agg0_0,agg1_0:core0,agg2_1:core3,h1_0_0:edge1_0"
    traces = {}
    for threads in (1, 2):
        out = tmp_path / f"t{threads}"
        done = cli("run", str(scenario), "--out", str(out), "--threads", str(threads), "--no-plots", "--pcap", ports)
        assert done.returncode == 0, done.stderr
        assert json.loads((out / "summary.json").read_text())["parts"] == threads
        traces[threads] = {p.name: p.read_bytes() for p in sorted(out.glob("*.pcap"))}
    assert len(traces[1]) == 4 and all(len(b) > 1000 for b in traces[1].values())
    assert traces[2] == traces[1]


def test_the_api_takes_threads_as_a_scenario_key():
    one = dcbsim.run(dcbsim.loads(FABRIC))
    two = dcbsim.run(dcbsim.loads(FABRIC, overrides=["run.threads=2"]))
    assert one.run_stats["events"] == two.run_stats["events"]
    assert one.to_polars().equals(two.to_polars())
    for name, flow in one.flows.items():
        assert flow.stats == two.flows[name].stats


@pytest.mark.parametrize("value", ["-1", "x", "2000"])
def test_bad_thread_counts_are_refused_in_one_line(tmp_path, value):
    scenario = tmp_path / "fabric.toml"
    scenario.write_text(FABRIC)
    done = cli("run", str(scenario), "--out", str(tmp_path / "o"), "--threads", value)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "threads" in done.stderr
    assert not (tmp_path / "o").exists()


def test_a_bad_threads_key_names_it(tmp_path):
    scenario = tmp_path / "fabric.toml"
    scenario.write_text(FABRIC.replace("duration_ms = 3.0", "duration_ms = 3.0\nthreads = 5000"))
    done = cli("validate", str(scenario))
    assert done.returncode == 2
    assert "run.threads" in done.stderr and "1024" in done.stderr


def test_flows_that_arrive_under_hpcc_and_pfc_complete_alike_on_two_threads(tmp_path):
    # HPCC's fabric comparison: web-search flows arriving between every pair of hosts,
    # over a lossless priority; their probes and pauses cross between the parts.
    outs = {}
    for threads in (1, 2):
        out = tmp_path / f"t{threads}"
        done = cli("run", "hpcc/fabric_fct", "--out", str(out), "--threads", str(threads), "--no-plots",
                   "--set", "run.duration_ms=4", "--set", "arrivals[0].stop_ms=3")
        assert done.returncode == 0, done.stderr
        outs[threads] = json.loads((out / "summary.json").read_text())
    assert outs[2]["parts"] == 2
    assert without_wall_time(outs[2]) == without_wall_time(outs[1])
    assert outs[1]["fct"]["completed"] >= 20, outs[1]["fct"]


def test_a_split_run_moves_its_progress_bar_as_it_goes_and_stops_when_the_callback_raises():
    long = dcbsim.loads(FABRIC, overrides=["run.threads=2", "run.duration_ms=40"])
    fractions = []
    result = dcbsim.run(long, progress=fractions.append)
    assert result.run_stats["parts"] == 2
    # Watched every 100 ms while it runs (how often depends on the machine), then 1
    # at the end.
    assert fractions[-1] == 1.0 and fractions == sorted(fractions) and fractions[0] >= 0, fractions

    class Stop(Exception):
        pass

    def stop(_fraction):
        raise Stop

    with pytest.raises(Stop):
        dcbsim.run(long, progress=stop)

