"""Leaf-spine and fat-tree scenarios through the Python API: paths, ECMP and pairings."""

from pathlib import Path

import dcbsim

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "python" / "dcbsim" / "scenarios" / "examples" / "leaf_spine_spreading.toml"


def test_path_table_shows_where_ecmp_sent_each_flow():
    r = dcbsim.run(dcbsim.load(EXAMPLE, ["run.duration_ms=2", "scheme.name=none"]), seed=1)
    t = r.path_table()
    assert t.height == len(r.flows) == 8
    assert t["hops"].to_list() == [4] * 8, "host, leaf up, spine down, leaf to host"
    assert set(t["uplink"].to_list()) <= {f"leaf{i}:spine{j}" for i in (1, 2) for j in (0, 1)}
    innocent = t.filter(t["flow"] == "innocent0").row(0, named=True)
    assert innocent["path"].startswith("h1_0:leaf1 leaf1:spine") and innocent["path"].endswith("leaf2:h2_0")
    assert innocent["throughput_bps"] > 1e9


def test_ecmp_off_puts_every_flow_on_spine0():
    r = dcbsim.run(dcbsim.load(EXAMPLE, ["run.duration_ms=1", "topology.ecmp=false"]), seed=1)
    assert {u.split(":")[1] for u in r.path_table()["uplink"].to_list()} == {"spine0"}


def test_all_to_all_on_a_fat_tree():
    text = """
[run]
duration_ms = 0.5
sample_interval_us = 100
[topology]
kind = "fat_tree"
k = 4
[[flows]]
src = "h*"
dst = "h*"
pairing = "all_to_all"
"""
    r = dcbsim.run(dcbsim.loads(text), seed=1)
    t = r.path_table()
    assert t.height == 16 * 15
    assert sorted(set(t["hops"].to_list())) == [2, 4, 6], "same edge, same pod, other pod"
    assert all(f.stats["delivered_frames"] > 0 for f in r.flows.values())
