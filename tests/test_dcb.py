"""PFC and DCQCN through the Python face: counters, summary, table and plot."""

from __future__ import annotations

from pathlib import Path

import dcbsim
from dcbsim.table import summary_table

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "python" / "dcbsim" / "scenarios" / "examples" / "pfc_congestion_spreading.toml"


def test_pfc_counters_reach_the_summary_table_and_plot(tmp_path):
    r = dcbsim.run(dcbsim.load(EXAMPLE, ["scheme.name=none", "run.duration_ms=5"]), seed=1)
    trunk = r.pfc["left:right"]
    assert len(trunk["pause_received"]) == 8 and trunk["pause_received"][3] > 0
    assert r.pfc["right:left"]["pause_sent"][3] == trunk["pause_received"][3] or r.pfc["right:left"]["pause_sent"][3] > 0
    s = r.summary["pfc"]
    assert s["left:right"]["paused_fraction"] > 0.5
    assert all(p["headroom_drops"] == 0 for p in s.values())
    assert sum(f["dropped_frames"] for f in r.summary["flows"].values()) == 0
    assert "PFC port" in summary_table(r.summary)
    r.plot_paused(str(tmp_path / "paused.png"))
    assert (tmp_path / "paused.png").stat().st_size > 0


def test_without_pfc_there_are_no_pfc_counters():
    r = dcbsim.run(dcbsim.load(ROOT / "python" / "dcbsim" / "scenarios" / "examples" / "quickstart.toml", ["run.duration_ms=2"]), seed=1)
    assert r.pfc == {} and r.summary["pfc"] == {}


def test_dcqcn_is_a_scheme_with_its_parameters():
    sc = dcbsim.load(EXAMPLE, ["scheme.dcqcn.k_max_kb=80", "run.duration_ms=2"])
    assert sc.scheme == "dcqcn"
    r = dcbsim.run(sc, seed=1)
    assert r.summary["totals"]["notifications"] > 0
