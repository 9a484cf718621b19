"""The Python API: load, run, results, tables."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim.table import summary_table


def test_load_and_properties(quickstart):
    s = dcbsim.load(quickstart)
    assert s.name == "quickstart"
    assert s.scheme == "qcn"
    assert s.seed == 1
    assert s.duration_s == pytest.approx(0.1)
    assert s.size == (7, 6, 5)
    assert s.flow_names[:2] == ["qcn0", "qcn1"]


def test_overrides_change_the_scenario_as_run(quickstart):
    s = dcbsim.load(quickstart, ["run.duration_ms=10", "flows[1].rate_gbps=3"])
    assert s.duration_s == pytest.approx(0.01)
    assert "duration_ms = 10" in s.toml


def test_run_returns_arrays_of_the_right_shape(small_text):
    r = dcbsim.run(dcbsim.loads(small_text), seed=3)
    assert r.seed == 3
    assert r.time_s.shape == (10,)
    assert np.allclose(r.time_s, np.arange(1, 11) * 5e-4)
    port = r.ports["sw0:r0"]
    assert port.monitored and port.queue_bytes.shape == (10,)
    for f in r.flows.values():
        assert f.rate_bps.shape == f.throughput_bps.shape == f.send_bps.shape == (10,)
        assert np.all(f.rate_bps == 4e9)


def test_summary_has_ports_flows_and_totals(small_text):
    s = dcbsim.run(dcbsim.loads(small_text)).summary
    assert set(s) >= {"scenario", "scheme", "seed", "ports", "flows", "totals", "events", "wall_s", "sim_speed"}
    assert set(s["ports"]["sw0:r0"]) >= {"mean_bytes", "std_bytes", "p_empty", "utilization", "dropped_frames"}
    assert s["totals"]["sent_frames"] == sum(f["sent_frames"] for f in s["flows"].values())
    assert s["events"] > 0


def test_packets_are_conserved(small_text):
    r = dcbsim.run(dcbsim.loads(small_text))
    for f in r.flows.values():
        st = f.stats
        assert st["sent_frames"] == st["delivered_frames"] + st["dropped_frames"] + st["in_network_frames"]
    # 12 Gb/s offered into 10 Gb/s: drops, and the bottleneck is busy nearly all the time.
    assert r.summary["totals"]["dropped_frames"] > 0
    assert r.ports["sw0:r0"].stats["utilization"] > 0.99


def test_same_seed_same_results_bit_for_bit(quickstart):
    a = dcbsim.run(quickstart, seed=5)
    b = dcbsim.run(quickstart, seed=5)
    assert a.to_polars().equals(b.to_polars())
    strip = lambda s: {k: v for k, v in s.items() if k not in ("wall_s", "sim_speed")}
    assert strip(a.summary) == strip(b.summary)


def test_a_run_reports_the_same_events_however_finely_it_is_sliced(quickstart):
    # The engine runs in slices for progress and Ctrl-C; hosts send early across a
    # slice's end, so the slices change neither the results nor the event count.
    scenario = dcbsim.load(quickstart)
    coarse = scenario.run(3, None, steps=1)
    fine = scenario.run(3, lambda done: None, steps=2000)
    assert coarse["events"] == fine["events"] > 0
    assert [p[1] for p in coarse["ports"]] == [p[1] for p in fine["ports"]]
    assert [f[1] for f in coarse["flows"]] == [f[1] for f in fine["flows"]]


def test_different_seeds_differ_where_randomness_matters(quickstart):
    a = dcbsim.run(quickstart, seed=1)
    b = dcbsim.run(quickstart, seed=2)
    assert not a.to_polars().equals(b.to_polars())


def test_tidy_tables(small_text):
    r = dcbsim.run(dcbsim.loads(small_text), seed=2)
    pl_frame = r.to_polars()
    assert pl_frame.columns == ["time_s", "metric", "entity", "value", "seed"]
    # every switch port's queue (4 ports, none listed in [monitor]) + 4 series per
    # flow, 10 samples each.
    assert pl_frame.height == (4 + 3 * 4) * 10
    assert set(pl_frame["metric"].unique()) == {"queue_bytes", "rate_bps", "throughput_bps", "send_bps", "fair_share_bps"}
    pd_frame = r.to_pandas()
    assert list(pd_frame.columns) == ["time_s", "metric", "entity", "value", "seed"]
    assert len(pd_frame) == pl_frame.height
    assert pd_frame["value"].sum() == pytest.approx(pl_frame["value"].sum())


def test_the_tidy_table_holds_each_full_series_in_order():
    # TCP flows: their cwnd series is full, their alpha empty; the engine's pick of the
    # series equals one made flow by flow, metric by metric.
    from dcbsim.results import SAMPLED

    r = dcbsim.run(dcbsim.load(str(SCENARIOS / "examples" / "tcp_fct.toml"), ["run.duration_ms=5"]))
    n = r.sample_count
    want = [("queue_bytes", p.name, p.queue_bytes.tobytes()) for p in r.ports.values() if p.monitored]
    want += [(m, f.name, f.series(m).tobytes()) for f in r.flows.values() for m in SAMPLED if f.series(m).size == n]
    _, metrics, entities, values = r._tidy_parts()
    assert list(zip(metrics, entities, values)) == want
    assert {m for m, _, _ in want} >= {"queue_bytes", "cwnd_segments"} and "alpha" not in metrics


def test_the_summary_entry_of_a_flow_is_its_counters_then_its_means():
    r = dcbsim.run(dcbsim.load(str(SCENARIOS / "papers" / "fqcn" / "fig06b_poisson.toml"), ["run.duration_ms=20"]))
    summary, fair = r.summary, r.fairness()
    duration = r.run_stats["simulated_s"]
    assert list(summary["flows"]) == list(r.flows)
    for k, (name, f) in enumerate(r.flows.items()):
        active = f.active_s(r.time_s)
        want = dict(
            f.stats,
            throughput_bps=f.stats["delivered_bytes"] * 8 / duration,
            active_s=active,
            throughput_active_bps=f.stats["delivered_bytes"] * 8 / active if active else None,
            fair_share_bps=summary["flows"][name]["fair_share_bps"],
            share_rms_bps=fair["per_flow_rms_bps"][k],
            **f.transfer_summary(),
        )
        assert list(summary["flows"][name].items()) == list(want.items())
    assert summary["ports"] == {name: p.stats for name, p in r.ports.items()}
    assert all(summary["ports"][name] is not p.stats for name, p in r.ports.items())


def test_the_monitored_ports_are_picked_once_and_handed_out_as_a_new_list(small_text):
    r = dcbsim.run(dcbsim.loads(small_text), seed=2)
    first = r.monitored_ports
    first.clear()
    assert r.monitored_ports == [p for p in r.ports.values() if p.monitored] != []


def test_progress_is_reported_and_exceptions_propagate(small_text):
    s = dcbsim.loads(small_text)
    seen = []
    dcbsim.run(s, progress=seen.append)
    # Slices follow wall time, and none is longer than 1 % of the run.
    assert len(seen) >= 100 and seen[-1] == pytest.approx(1.0)
    assert seen == sorted(seen) and max(b - a for a, b in zip([0.0, *seen], seen)) <= 0.0100001

    def boom(fraction):
        if fraction > 0.3:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        dcbsim.run(s, progress=boom)


def test_a_run_and_its_summary_pause_the_collector_and_leave_it_as_they_found_it(small_text, monkeypatch):
    # Their objects are made with the cyclic collector paused (not the engine's run,
    # which makes none: other threads' garbage is collected meanwhile), and it is
    # resumed only if it ran, even when the run fails.
    import gc

    calls: list[str] = []
    for name in ("disable", "enable"):
        monkeypatch.setattr(gc, name, lambda real=getattr(gc, name), name=name: (calls.append(name), real())[1])  # noqa: B008 - the real one, bound before the patch
    seen: list[bool] = []
    result = dcbsim.run(dcbsim.loads(small_text), progress=lambda f: seen.append(gc.isenabled()))
    assert seen and all(seen) and gc.isenabled()
    assert calls == ["disable", "enable"] * 2  # the report, then the result made from it
    calls.clear()
    assert result.summary["totals"]["delivered_frames"] > 0 and gc.isenabled()
    assert calls == ["disable", "enable"]

    def fail(fraction: float) -> None:
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        dcbsim.run(dcbsim.loads(small_text), progress=fail)
    assert gc.isenabled()
    gc.disable()
    try:
        calls.clear()
        _ = dcbsim.run(dcbsim.loads(small_text)).summary
        assert not gc.isenabled() and calls == []
    finally:
        gc.enable()


def test_each_port_reports_its_own_statistics_in_one_key_order():
    # Ports' stats dicts start as copies of the first port's, and only what differs
    # from it is set: senders at different rates must still show their own counts.
    text = """
[run]
duration_ms = 2.0
frame_bytes = 1000
[topology]
kind = "dumbbell"
senders = 3
receivers = 3
rate_gbps = 10.0
[[flows]]
name = "a"
src = "s0"
dst = "r0"
kind = "constant"
rate_gbps = 1.0
[[flows]]
name = "b"
src = "s1"
dst = "r1"
kind = "constant"
rate_gbps = 2.0
[[flows]]
name = "c"
src = "s2"
dst = "r2"
kind = "constant"
rate_gbps = 3.0
"""
    r = dcbsim.run(dcbsim.loads(text))
    stats = [p.stats for p in r.ports.values()]
    assert len({tuple(s) for s in stats}) == 1 and len({id(s) for s in stats}) == len(stats)
    delivered = {f.stats["dst"]: f.stats["delivered_frames"] for f in r.flows.values()}
    assert len(set(delivered.values())) == 3 and min(delivered.values()) > 0
    for receiver, frames in delivered.items():
        port = r.ports[f"sw1:{receiver}"].stats
        # (a frame or two may still be on the wire at the end)
        assert frames <= port["tx_frames"] <= frames + 2 and port["tx_bytes"] == 1000 * port["tx_frames"]
    utilization = sorted(r.ports[f"sw1:r{i}"].stats["utilization"] for i in range(3))
    assert utilization == pytest.approx([0.1, 0.2, 0.3], abs=0.01)
    idle = [p for p in r.ports.values() if p.stats["tx_frames"] == 0]
    assert idle and all(p.stats["utilization"] == 0.0 and p.stats["p_empty"] == 1.0 for p in idle)


def test_convergence_time():
    from dcbsim.results import convergence_time

    t = np.array([1.0, 2.0, 3.0, 4.0])
    assert convergence_time(t, [np.array([9, 5, 9, 5.0]), np.array([1, 4.9, 2, 4.8])]) == 4.0
    assert convergence_time(t, [np.array([5, 5, 5, 5.0]), np.array([5, 5, 5, 5.0])]) == 1.0
    assert convergence_time(t, [np.array([5, 5, 5, 9.0]), np.array([5, 5, 5, 1.0])]) is None
    # Holding for 2 samples only: fair at 1 and 2, so 1.0 although unfair at the end.
    assert convergence_time(t, [np.array([5, 5, 5, 9.0]), np.array([5, 5, 5, 1.0])], hold_s=2.0) == 1.0
    # Smoothing over 2 samples: rates 9, 1 then 1, 9 average to 5 and 5.
    a, b = np.array([9, 1, 9, 1.0]), np.array([1, 9, 1, 9.0])
    assert convergence_time(t, [a, b]) is None
    assert convergence_time(t, [a, b], window_s=2.0) == 2.0


def test_plots_are_drawn(small_text, tmp_path):
    from dcbsim import plot

    r = dcbsim.run(dcbsim.loads(small_text))
    paths = plot.save_all(r, tmp_path)
    assert len(paths) == 4
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_a_timeline_parameter_change_reaches_the_reaction_points():
    from conftest import SCENARIOS

    path = SCENARIOS / "papers" / "smcc" / "fig05_qcn.toml"
    std_after = {}
    # The standard's QCN rules (the scenario runs the SMCC paper's NetFPGA QCN, whose every
    # CNM resets the target rate, so the byte counter's effect on the queue differs).
    standard = ["scheme.hold_target=true", "scheme.hyper_active=true", "scheme.target_reduction=true"]
    for bc in (150000, 30000):
        r = dcbsim.run(dcbsim.load(path, ["run.duration_ms=5000", f"timeline[0].value={bc}", *standard]), seed=1)
        after = r.time_s > 4.1
        std_after[bc] = r.ports["sw0:r0"].queue_bytes[after].std()
    # The byte counter at 30 KB makes every RP raise its rate five times as often.
    assert std_after[30000] > 2 * std_after[150000], std_after


def test_poisson_arrivals_are_reported_per_source(small_text):
    text = small_text + """
[[arrivals]]
name = "short"
src = "s0"
dst = "r0"
rate_per_s = 2000.0
size_kb = 10.0
"""
    r = dcbsim.run(dcbsim.loads(text.replace("rate_gbps = 4.0", "rate_gbps = 1.0")), seed=2)
    a = r.arrivals["short"]
    assert 0 < a.stats["flows"] < 40
    assert a.completion_s.size == a.completed_bytes.size
    assert np.all(a.completed_bytes == 10240)
    s = r.summary["arrivals"]["short"]
    assert s["completed"] == a.completion_s.size and s["fct_p50_s"] > 0
    assert a.stats["sent_frames"] == a.stats["delivered_frames"] + a.stats["dropped_frames"] + a.stats["in_network_frames"]


def test_per_priority_counters_add_up_and_the_drop_policy_spares_the_san():
    """A misbehaving LAN source (DCC paper, Exp. 2) for 0.2 s: the summary's classes."""
    r = dcbsim.run(dcbsim.load(SCENARIOS / "papers" / "dcc" / "exp2_misbehaving.toml", ["run.duration_ms=200"]), seed=1)
    classes = r.summary["classes"]
    assert sorted(classes) == ["1", "2", "3"]
    for p, c in classes.items():
        flows = [f for f in r.flows.values() if f.stats["priority"] == int(p)]
        assert c["flows"] == len(flows)
        assert c["sent_frames"] == sum(f.stats["sent_frames"] for f in flows)
        assert c["delivered_bytes"] * 8 / 0.2 == pytest.approx(c["throughput_bps"])
    assert classes["3"]["dropped_frames"] == 0 and classes["2"]["dropped_frames"] == 0
    assert classes["1"]["dropped_frames"] == r.summary["ports"]["cs:es5"]["dropped_frames"] > 0
    assert "802.1p priority" in summary_table(r.summary)


def test_dynamic_sources_report_what_they_offered(small_text):
    text = small_text.replace('src = "s*"', 'src = "s0"') + """
[[flows]]
name = "onoff"
src = "s1"
dst = "r0"
kind = "on_off"
load_gbps = 2.0

[[flows]]
name = "dyn"
src = "s2"
dst = "r0"
kind = "poisson"
load_gbps = 1.0
size_kb = { exponential = 10 }
"""
    r = dcbsim.run(dcbsim.loads(text), seed=1)
    flows = r.summary["flows"]
    assert flows["cbr"]["offered_bps"] == 4e9 and flows["cbr"]["transfers"] is None
    assert flows["onoff"]["offered_bps"] == 2e9
    assert flows["onoff"]["offered_bytes"] == flows["onoff"]["transfers"] * 10240
    dyn = r.flows["dyn"]
    assert flows["dyn"]["offered_bps"] == pytest.approx(1e9)
    assert 0 < dyn.stats["transfers_completed"] <= dyn.stats["transfers"]
    assert dyn.transfer_completion_s.size == dyn.transfer_bytes.size == dyn.stats["transfers_completed"]
    assert flows["dyn"]["transfer_time_mean_s"] > 0


def test_a_higher_802_1p_priority_is_served_first(small_text):
    """Three 4 Gb/s sources into 10 Gb/s for 5 ms, a buffer that holds the excess, two
    strict-priority classes: the priority-3 source's frames pass at once, the backlog is
    all priority 0."""
    text = small_text.replace("buffer_kb = 64.0", "buffer_kb = 4096.0\npriorities = 2").replace('src = "s*"', 'src = ["s0", "s1"]')
    text += '\n[[flows]]\nname = "high"\nsrc = "s2"\ndst = "r0"\nkind = "constant"\nrate_gbps = 4.0\npriority = 3\n'
    for classes, high_waits in ((2, False), (1, True)):
        r = dcbsim.run(dcbsim.loads(text.replace("priorities = 2", f"priorities = {classes}")), seed=1)
        high = r.flows["high"].stats
        assert high["dropped_frames"] == 0
        assert (high["in_network_frames"] > 20) == high_waits, (classes, high)


def test_the_summary_table_shows_the_busiest_ports_first_and_says_what_it_left_out():
    from conftest import SCENARIOS

    # QCN's notifications make the reverse ports busy too, a little.
    path = SCENARIOS / "bench" / "dumbbell_10g_cc.toml"
    r = dcbsim.run(dcbsim.load(path, ["run.duration_ms=5", "topology.senders=30"]), seed=1)
    table = summary_table(r.summary, max_rows=5)
    port_rows = table.split("\n\n")[0].splitlines()[2:]
    assert port_rows[0].startswith("sw0:r0"), port_rows
    utilization = [float(row.split()[4]) for row in port_rows if not row.startswith("...")]
    assert utilization == sorted(utilization, reverse=True) and len(utilization) == 5
    assert "... and 25 more flows" in table and "more ports" in table
    whole = summary_table(r.summary, max_rows=None)
    assert "more flows" not in whole and sum(bool(re.match(r"f\d+ ", line)) for line in whole.splitlines()) == 30


def test_the_summary_line_gives_a_slow_runs_speed_in_significant_digits():
    from dcbsim.table import _speed

    # A large fabric simulates a hundredth of a second per second: not "0.0".
    assert [_speed(x) for x in (0.0184, 0.00081, 0.5, 3.44, 12.09)] == ["0.018", "0.00081", "0.5", "3.4", "12.1"]


def test_plots_of_many_flows_summarize_them_and_skip_empty_queues():
    from dcbsim import plot

    r = dcbsim.run(dcbsim.load(SCENARIOS / "bench" / "dumbbell_10g_cc.toml", ["run.duration_ms=5", "topology.senders=30"]), seed=1)
    fig = plot.rates(r)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["lowest to highest", "mean throughput", "mean fair share"]
    assert "30 flows" in " ".join(fig.axes[0].get_title().split())
    fig = plot.queue(r)
    assert fig.axes[0].get_legend_handles_labels()[1] == ["sw0:r0"]
    assert "always-empty ports not drawn" in " ".join(fig.axes[0].get_title().split())


def test_plots_mark_the_timeline():
    from dcbsim import plot

    r = dcbsim.run(dcbsim.load(SCENARIOS / "examples" / "capacity_drop.toml", ["timeline[0].at_ms=15"]), seed=1)
    ax = plot.queue(r).axes[0]
    marks = sorted(line.get_xdata()[0] for line in ax.lines if line.get_linestyle() not in ("-", ":"))
    assert marks == [15.0, 40.0]


def test_runs_in_threads_at_once_in_a_new_process(quickstart):
    # The engine runs without holding the interpreter, so threads make a pool; the
    # first of them to make a result must not let the others see numpy half
    # imported (a fresh process: here numpy is loaded already).
    import subprocess
    import sys

    script = (
        "import concurrent.futures as cf, dcbsim\n"
        f"sc = dcbsim.load({str(quickstart)!r}, ['run.duration_ms=5'])\n"
        "with cf.ThreadPoolExecutor(4) as ex:\n"
        "    sent = list(ex.map(lambda s: dcbsim.run(sc, seed=s).summary['totals']['sent_frames'], range(4)))\n"
        "assert sent == [dcbsim.run(sc, seed=s).summary['totals']['sent_frames'] for s in range(4)], sent\n"
    )
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]


def test_a_module_another_thread_is_still_importing_is_waited_for():
    # A module in sys.modules while another thread runs it (``__spec__._initializing``)
    # is not handed out half made: a stand-in imports it (waits for it) on first use.
    import sys
    import types

    from dcbsim.lazy import lazy_import

    half = types.ModuleType("dcbsim_half_made")
    half.__spec__ = types.SimpleNamespace(_initializing=True)
    sys.modules["dcbsim_half_made"] = half
    try:
        assert lazy_import("dcbsim_half_made") is not half
        half.__spec__._initializing = False
        assert lazy_import("dcbsim_half_made") is half
    finally:
        del sys.modules["dcbsim_half_made"]


def test_a_module_loaded_on_first_use():
    import subprocess
    import sys

    from dcbsim.lazy import lazy_import

    with pytest.raises(ModuleNotFoundError):
        lazy_import("dcbsim_no_such_module")
    # In a new process: not imported until read, then whole in every thread at once.
    script = (
        "import sys, threading\n"
        "from dcbsim.lazy import lazy_import\n"
        "m = lazy_import('fractions')\n"
        "assert 'fractions' not in sys.modules\n"
        "seen = []\n"
        "ts = [threading.Thread(target=lambda: seen.append(m.Fraction(1, 3) + m.Fraction(1, 6))) for _ in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "assert seen == [m.Fraction(1, 2)] * 8 and 'fractions' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_kept_build_runs_as_a_fresh_one(quickstart):
    # The build that validating made, kept for the first run with the scenario's own
    # seed: that run's result is the one a fresh build gives; a second run, or one
    # with another seed, builds its own.
    def digest(r):
        return json.dumps({k: v for k, v in r.summary.items() if k not in ("wall_s", "sim_speed")}, sort_keys=True, default=str)

    fresh = dcbsim.run(dcbsim.load(quickstart))
    kept = dcbsim.load(quickstart, keep_built=True)
    assert digest(dcbsim.run(kept)) == digest(fresh)
    assert digest(dcbsim.run(kept)) == digest(fresh)
    other = dcbsim.load(quickstart, keep_built=True)
    assert digest(dcbsim.run(other, seed=5)) == digest(dcbsim.run(dcbsim.load(quickstart), seed=5))
    assert digest(dcbsim.run(other)) == digest(fresh)
