"""A flow's throughput over the time it was active, beside its throughput over the run."""

from __future__ import annotations

import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim.table import summary_table


def test_a_flow_active_for_part_of_the_run_reports_its_rate_while_active():
    result = dcbsim.run(dcbsim.load(SCENARIOS / "examples" / "quickstart.toml"))
    background = result.summary["flows"]["background"]  # 2 Gb/s from 20 to 60 ms of 100
    step = float(result.time_s[1] - result.time_s[0])
    assert background["active_s"] == pytest.approx(0.040, abs=step)
    assert background["throughput_active_bps"] == pytest.approx(2e9, rel=0.02)
    assert background["throughput_bps"] == pytest.approx(0.8e9, rel=0.02)
    greedy = result.summary["flows"]["qcn0"]
    assert greedy["active_s"] == pytest.approx(0.1, abs=step)
    assert "active Gb/s" in summary_table(result.summary)


def test_a_finite_flow_is_active_until_it_completes(small_text):
    text = small_text.replace('src = "s*"', 'src = "s0"').replace('kind = "constant"\nrate_gbps = 4.0', 'kind = "finite"\nsize_kb = 100.0')
    (f,) = dcbsim.run(dcbsim.loads(text)).summary["flows"].values()
    assert f["completion_time_s"] is not None and f["active_s"] == f["completion_time_s"]
    assert f["throughput_active_bps"] == pytest.approx(f["delivered_bytes"] * 8 / f["completion_time_s"])
    # Three of them into one port drop frames and, without a transport, never complete:
    # sent within the first sample interval, no sample saw them active.
    text = small_text.replace('kind = "constant"\nrate_gbps = 4.0', 'kind = "finite"\nsize_kb = 100.0')
    flows = dcbsim.run(dcbsim.loads(text)).summary["flows"].values()
    assert any(f["completion_time_s"] is None for f in flows)
    assert all(f["active_s"] is None and f["throughput_active_bps"] is None for f in flows if f["completion_time_s"] is None)
