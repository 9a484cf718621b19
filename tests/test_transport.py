"""TCP and DCTCP through the Python API: series, FCT summaries, incast, the table."""

from __future__ import annotations

import numpy as np

import dcbsim
from dcbsim.fct import fct_summary
from dcbsim.table import summary_table

FCT = """
[run]
duration_ms = 20.0
sample_interval_us = 500.0

[topology]
kind = "dumbbell"
senders = 2
rate_gbps = 10.0
bottleneck_gbps = 5.0
delay_us = 5.0
buffer_kb = 1024.0

[[flows]]
name = "bulk"
src = "s0"
dst = "r0"
transport = "dctcp"

[[flows]]
name = "short"
src = "s1"
dst = "r0"
kind = "finite"
size_kb = 50.0
transport = "tcp"
start_ms = 5.0
"""

INCAST = """
[run]
duration_ms = 50.0

[topology]
kind = "incast"
servers = 8
rate_gbps = 1.0
delay_us = 25.0
buffer_kb = 64.0

[transport]
rto_min_ms = 10.0
rto_initial_ms = 10.0

[incast]
client = "client"
servers = "srv*"
sru_kb = 32.0
transport = "tcp"
"""


def test_cwnd_alpha_series_and_fct():
    r = dcbsim.run(dcbsim.loads(FCT))
    bulk, short = r.flows["bulk"], r.flows["short"]
    assert bulk.cwnd_segments.shape == bulk.alpha.shape == r.time_s.shape
    assert short.alpha.size == 0 and short.cwnd_segments.shape == r.time_s.shape
    assert short.stats["transport"] == "tcp" and short.stats["delivered_bytes"] == 50 * 1024
    assert r.ports["sw0:r0"].stats["ecn_marks"] > 0
    fct = r.summary["fct"]
    assert (fct["flows"], fct["completed"]) == (1, 1)
    bucket = fct["buckets"]["<=100KB"]
    assert bucket["completed"] == 1 and bucket["slowdown_mean"] > 1.0
    frame = r.to_polars()
    assert {"cwnd_segments", "alpha"} <= set(frame["metric"].unique().to_list())


def test_incast_blocks_goodput_and_table():
    r = dcbsim.run(dcbsim.loads(INCAST))
    inc = r.incast
    assert inc is not None and inc.servers == 8 and inc.block_time_s.size > 5
    assert np.all(inc.block_bytes == 8 * 32 * 1024)
    assert 0 < inc.goodput_bps < 1e9
    s = r.summary["incast"]
    assert s["blocks"] == inc.block_time_s.size and s["timeouts"] == inc.timeouts
    assert "incast: 8 servers" in summary_table(r.summary)


def test_fct_summary_buckets_by_size():
    s = fct_summary(np.array([1.0, 2.0, 4.0]), np.array([1e3, 2e5, 2e7]), np.array([0.5, 1.0, 1.0]), flows=4)
    assert (s["flows"], s["completed"]) == (4, 3)
    assert s["buckets"]["<=100KB"]["slowdown_mean"] == 2.0
    assert s["buckets"]["100KB-10MB"]["slowdown_mean"] == 2.0
    assert s["buckets"][">10MB"]["slowdown_p99"] == 4.0


def test_the_fct_table_has_every_finite_flow_and_no_flow_beats_its_ideal():
    from conftest import SCENARIOS

    r = dcbsim.run(dcbsim.load(SCENARIOS / "examples" / "tcp_fct.toml", ["run.duration_ms=50"]), seed=1)
    t = r.fct_table()
    arrived = sum(int(a.stats["flows"]) for a in r.arrivals.values())
    named = sum(f.stats["size_bytes"] is not None for f in r.flows.values())
    assert t.height == arrived + named > 0
    done = t.filter(completed=True)
    assert done.height == sum(a.completion_s.size for a in r.arrivals.values()) + sum(
        f.stats["completion_time_s"] is not None for f in r.flows.values() if f.stats["size_bytes"] is not None)
    assert (done["end_s"] - done["start_s"] - done["fct_s"]).abs().max() < 1e-12
    assert done["slowdown"].min() >= 1.0
    assert (done["delivered_bytes"] == done["size_bytes"]).all()
    assert t.filter(completed=False)["fct_s"].null_count() == t.height - done.height
