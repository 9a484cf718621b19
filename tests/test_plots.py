"""Single-run plots: the time-weighted queue CDF, and legends naming each reaction
point on the reproduction figures."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

import dcbsim
from conftest import SCENARIOS
from dcbsim.plot import queue_cdf, time_weighted_cdf


def test_the_cdf_weighs_each_sample_by_its_interval():
    q, cdf = time_weighted_cdf(np.array([10.0, 0.0]), np.array([9.0, 10.0]))
    # 0 held for the last 1 s of 10, 10 for the first 9 s.
    assert list(q) == [0.0, 10.0] and list(cdf) == pytest.approx([0.1, 1.0])
    # Periodic samples: the plain empirical CDF.
    values = np.array([3.0, 1.0, 2.0, 2.0])
    q, cdf = time_weighted_cdf(values, np.arange(1, 5) * 0.5)
    assert list(q) == [1.0, 2.0, 2.0, 3.0] and list(cdf) == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert time_weighted_cdf(np.zeros(0), np.zeros(0))[0].size == 0


def test_the_queue_cdf_plot_marks_the_exact_time_empty(small_text):
    result = dcbsim.run(dcbsim.loads(small_text.replace("buffer_kb = 64.0", "buffer_kb = 64.0\n[monitor]\nports = [\"sw0:r0\"]")))
    ax = queue_cdf(result).axes[0]
    step, marker = ax.lines[0], ax.lines[1]
    _, cdf = time_weighted_cdf(result.ports["sw0:r0"].queue_bytes / 1024, result.time_s)
    assert list(step.get_ydata()) == pytest.approx(list(cdf))
    assert marker.get_xdata()[0] == 0.0 and marker.get_ydata()[0] == result.ports["sw0:r0"].stats["p_empty"]
    assert "over time" in " ".join(ax.get_title().split()) and ax.get_legend().get_texts()[0].get_text() == "sw0:r0"


class OneRun:
    """Stands in for a paper's runs: every run is the same small result."""

    def __init__(self, result):
        self.result = result

    def get(self, *args, **kwargs):
        return self.result


def test_the_qcnt_rate_panels_say_which_colour_is_which_reaction_point(small_text):
    from dcbsim.papers import qcnt_figures

    result = dcbsim.run(dcbsim.loads(small_text))
    ax = Figure().add_subplot()
    qcnt_figures._rates_panel(OneRun(result), ax, "any", (), "title")
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == [f"RP of {name}" for name in result.flows]
    colours = [line.get_color() for line in ax.lines]
    assert len(set(colours)) == len(result.flows)


def test_a_quick_page_says_how_many_seeds_it_ran():
    from dcbsim.papers import Runs

    quick = Runs("qcnt", quick=True)
    assert list(quick.seeds(20)) == [1, 2] and list(quick.seeds(1)) == [1]
    (note, _) = quick.quick_note()
    assert "ran 1 or 2 seed(s) instead of 1, 20" in note
    assert Runs("qcnt").quick_note() == []
    assert "one seed" in Runs("qcnt", quick=True).quick_note()[0]


def test_a_long_series_is_drawn_by_each_stretchs_lowest_and_highest_sample():
    from dcbsim.plot import _STRETCHES, _thin

    rng = np.random.default_rng(1)
    n = 50 * _STRETCHES + 7
    t, y = np.arange(n) * 1e-6, rng.normal(size=n)
    y[12345] = 40.0  # a spike
    tt, yy = _thin(t, y)
    assert tt.size <= 2 * _STRETCHES + 2 and np.all(np.diff(tt) >= 0)
    assert (tt[0], tt[-1]) == (t[0], t[-1]) and yy.max() == 40.0 and yy.min() == y.min()
    # Every kept point is a sample; each stretch's extremes are kept.
    k = -(-n // _STRETCHES)
    assert np.array_equal(yy, y[np.rint(tt * 1e6).astype(int)])
    for start in range(0, n, k * 97):
        stretch = y[start:start + k]
        kept = yy[(tt >= t[start]) & (tt <= t[min(start + k, n) - 1])]
        assert stretch.max() in kept and stretch.min() in kept
    short = np.arange(10.0)
    assert _thin(short, short)[1] is short


def test_a_long_band_and_cdf_keep_their_shape():
    from dcbsim.plot import _STRETCHES, _thin_band, _thin_cdf

    n = 9 * _STRETCHES
    t = np.arange(n, dtype=float)
    low, high = -np.abs(np.sin(t)), np.abs(np.cos(t))
    tb, lb, hb = _thin_band(t, low, high)
    assert tb.size <= 2 * _STRETCHES + 2 and (tb[0], tb[-1]) == (0.0, n - 1.0)
    assert lb.min() == low.min() and hb.max() == high.max()
    values = np.sort(np.round(np.random.default_rng(2).exponential(size=n), 2))
    q, cdf = time_weighted_cdf(values, t + 1)
    qs, cs = _thin_cdf(q, cdf)
    assert qs.size <= 2 * _STRETCHES and cs[-1] == 1.0 and qs[-1] == q[-1]
    # The step drawn moves by less than one level anywhere.
    at = np.searchsorted(qs, q, side="right") - 1
    drawn = np.where(at >= 0, cs[np.maximum(at, 0)], 0.0)
    exact = cdf[np.searchsorted(q, q, side="right") - 1]
    assert np.abs(drawn - exact).max() <= 1.0 / (2 * _STRETCHES) + 1e-12


def test_a_long_runs_plots_draw_a_bounded_number_of_points(small_text):
    from dcbsim.plot import _STRETCHES, queue, rates

    result = dcbsim.run(dcbsim.loads(small_text, overrides=["run.sample_interval_us=0.5"]))
    assert result.time_s.size > 2 * _STRETCHES
    for fig in (queue(result), rates(result)):
        sizes = [len(line.get_xdata()) for line in fig.axes[0].get_lines()]
        assert max(sizes) > 2 and max(sizes) <= 2 * _STRETCHES + 2


def test_the_rates_of_many_flows_are_their_band_mean_and_mean_share(monkeypatch):
    from dcbsim import plot

    r = dcbsim.run(dcbsim.load(SCENARIOS / "bench" / "dumbbell_10g_cc.toml", ["run.duration_ms=5", "topology.senders=30"]))
    # Blocks of 7 flows, so that the blocks' partial results are combined too.
    monkeypatch.setattr(plot, "_BLOCK_VALUES", 7 * r.time_s.size)
    ax = plot.rates(r).axes[0]
    thr = np.array([f.throughput_bps for f in r.flows.values()]) / 1e9
    fair = np.array([f.fair_share_bps for f in r.flows.values()]) / 1e9
    mean, share = ax.get_lines()[0], ax.get_lines()[1]
    assert np.allclose(mean.get_ydata(), thr.mean(axis=0)) and np.allclose(share.get_ydata(), fair.mean(axis=0))
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert np.isclose(band.min(), thr.min()) and np.isclose(band.max(), thr.max())


def test_the_queue_plot_reads_no_series_of_a_port_that_never_queued(small_text, monkeypatch):
    from dcbsim import plot
    from dcbsim.results import PortResult

    result = dcbsim.run(dcbsim.loads(small_text))
    read = []
    series = PortResult.queue_bytes.fget
    monkeypatch.setattr(PortResult, "queue_bytes", property(lambda p: read.append(p.name) or series(p)))
    ports, note = plot._queued_ports(result)
    empty = {p.name for p in result.monitored_ports if p.stats["max_bytes"] == 0}
    assert empty and not empty & set(read)
    # The same ports as reading every series would find.
    assert [p.name for p in ports] == [p.name for p in sorted(
        (p for p in result.monitored_ports if series(p).size and series(p).max() > 0),
        key=lambda p: -float(series(p).mean()))]
    assert f"{len(empty)} always-empty" in note
