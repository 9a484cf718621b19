"""Flows whose frames are acknowledged one by one (HPCC, TIMELY): their window and RTT
series reach the results, the tidy table and the plots."""

from __future__ import annotations

import math

import numpy as np

import dcbsim
from dcbsim import plot


def test_hpcc_flows_report_window_and_rtt_and_get_an_rtt_plot(tmp_path):
    r = dcbsim.run(dcbsim.load("hpcc", ["run.duration_ms=1", "flows[1].start_ms=0.5"]))
    h0 = r.flows["h0"]
    assert h0.stats["acked"] is True
    rtt = h0.rtt_us[np.isfinite(h0.rtt_us)]
    # Four 1 us links out and back, and the frames' and ACKs' serialization: 4.2 us.
    assert rtt.size and 4.0 < rtt.min() < 5.0
    assert np.isfinite(h0.window_bytes).all() and h0.window_bytes.max() <= 53_000
    table = r.to_polars()
    assert {"window_bytes", "rtt_us"} <= set(table["metric"].unique().to_list())
    paths = plot.save_all(r, str(tmp_path))
    assert str(tmp_path / "rtt.png") in paths and (tmp_path / "rtt.png").stat().st_size > 10_000


def test_timely_keeps_no_window_and_a_plain_run_draws_no_rtt_plot(tmp_path):
    r = dcbsim.run(dcbsim.load("timely", ["run.duration_ms=5"]))
    t0 = r.flows["t0"]
    assert t0.stats["acked"] is True and np.isnan(t0.window_bytes).all()
    assert any(math.isfinite(x) for x in t0.rtt_us)
    plain = dcbsim.run(dcbsim.load("quickstart", ["run.duration_ms=5"]))
    assert not any(f.stats["acked"] for f in plain.flows.values())
    assert all(len(f.rtt_us) == 0 for f in plain.flows.values())
    paths = plot.save_all(plain, str(tmp_path))
    assert not any(p.endswith("rtt.png") for p in paths)
