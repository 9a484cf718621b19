"""``dcbsim plot SWEEP_DIR``: a metric of a sweep against a swept variable, the mean
over seeds with its spread (± one standard deviation, and each seed as a dot), one line
per port or flow and per value of the other swept variables. Sized for a paper column.

Metrics are the numeric columns of the sweep's tables (docs/sweeps.md): a column of
``runs.parquet`` by its name (``jain``, ``fct_p99_s``), of another table as
``TABLE.COLUMN`` (``ports.mean_bytes``, ``flows.throughput_active_bps``).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

from dcbsim.lazy import lazy_import

if TYPE_CHECKING:
    import numpy as np
    import polars as pl
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from dcbsim import sweeptables
else:
    # Loaded on first use: every command builds this one's parser, `dcbsim run` too.
    np = lazy_import("numpy")
    pl = lazy_import("polars")
    sweeptables = lazy_import("dcbsim.sweeptables")

#: The tables with one row per entity, and the column naming it.
ENTITY = {"ports": "port", "flows": "flow", "arrivals": "arrivals", "classes": "priority"}
#: Most lines drawn: beyond, a flow metric draws the flows' mean per run.
MAX_LINES = 8
#: Axis labels of the common metrics (others: the column's name).
LABELS = {
    "mean_bytes": "mean queue", "std_bytes": "queue s.d.", "max_bytes": "largest queue", "p_empty": "P(queue empty)",
    "throughput_bps": "throughput", "throughput_active_bps": "throughput while active", "fair_share_bps": "fair share",
    "fct_p99_s": "p99 FCT", "fct_p50_s": "median FCT", "fct_mean_s": "mean FCT", "jain": "Jain's index",
    "dropped_frames": "dropped frames", "utilization": "utilization", "paused_fraction": "paused fraction",
}
#: Fractions (drawn as they are) among the metrics.
FRACTIONS = {"utilization", "p_empty", "jain", "min_max", "share_rms_rel", "paused_fraction"}
_NOT_METRICS = {"index", "run_id", "seed", "priority"}


class PlotError(ValueError):
    """A sweep plot that cannot be drawn: the message says why and what is allowed."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Adds ``dcbsim plot``."""
    p = sub.add_parser("plot", help="plot a sweep: a metric against a swept variable, spread over seeds")
    p.add_argument("sweep_dir", help="a sweep's output directory (dcbsim sweep --out)")
    p.add_argument("--metric", help="what to draw (default: the monitored ports' mean queue, else p99 FCT, else "
                   "throughput); a wrong name lists them")
    p.add_argument("--x", help="the swept variable on the x axis (default: the first that takes several values)")
    p.add_argument("--entity", action="append", default=[], metavar="NAME",
                   help="for a port, flow, arrival or class metric: which ones (repeatable; default: the monitored "
                   "ports where the metric is ever above 0, else the busiest port; "
                   f"flows if at most {MAX_LINES} lines, else their mean)")
    p.add_argument("--out", help="PNG file (default SWEEP_DIR/plots/METRIC_vs_X.png)")


def run(args: argparse.Namespace) -> int:
    """Draws the plot ``args`` asks for; prints where it went. A sweep's table that
    cannot be read (damaged, cut short) is refused in one line."""
    try:
        path = plot_sweep(args.sweep_dir, args.metric, args.x, args.entity, args.out)
    except pl.exceptions.PolarsError as e:
        reason = " ".join(str(e).split())[:300]
        raise PlotError(f"plot: {args.sweep_dir}: cannot read the sweep's tables ({reason}); run the sweep again to rebuild them") from None
    print(f"plot in {path}")
    return 0


def _read(outdir: str, name: str) -> pl.DataFrame:
    path = os.path.join(outdir, f"{name}.parquet")
    if not os.path.exists(path):
        raise PlotError(f"plot: {outdir}: no {name}.parquet; give the --out directory of a finished dcbsim sweep")
    return pl.read_parquet(path)


def variables(outdir: str, runs: pl.DataFrame) -> list[str]:
    """The swept variables' names, in the sweep file's order."""
    try:
        with open(os.path.join(outdir, "manifest.json"), encoding="utf-8") as f:
            return list(json.load(f)["variables"])
    except (OSError, ValueError, KeyError):
        return runs.columns[2 : runs.columns.index("index")]


def metrics(outdir: str, runs: pl.DataFrame) -> list[str]:
    """Every metric the sweep's tables hold a value of."""
    def has_data(frame: pl.DataFrame, c: str, t: pl.DataType) -> bool:
        return t.is_numeric() and c not in _NOT_METRICS and frame[c].null_count() < frame.height

    out = [c for c, t in sweeptables.RUNS.items() if c not in ("wall_s", "sim_speed", "parts") and has_data(runs, c, t)]
    for table in ENTITY:
        if os.path.exists(os.path.join(outdir, f"{table}.parquet")):
            frame = pl.read_parquet(os.path.join(outdir, f"{table}.parquet"))
            out += [f"{table}.{c}" for c, t in sweeptables.TABLES[table].items() if has_data(frame, c, t)]
    return out


def default_metric(outdir: str, runs: pl.DataFrame) -> str:
    """The monitored ports' mean queue, else the p99 FCT, else the flows' throughput."""
    ports = _read(outdir, "ports")
    if ports.height and ports["monitored"].any():
        return "ports.mean_bytes"
    if runs["fct_completed"].fill_null(0).sum() > 0:
        return "fct_p99_s"
    return "flows.throughput_bps"


def scale(metric: str) -> tuple[float, str]:
    """The factor and unit a metric is drawn in."""
    column = metric.split(".")[-1]
    if column in FRACTIONS:
        return 1.0, ""
    for suffix, factor, unit in (("_bps", 1e-9, "Gb/s"), ("_bytes", 1 / 1024, "KB"), ("_s", 1e3, "ms")):
        if column.endswith(suffix):
            return factor, unit
    return 1.0, ""


def metric_frame(outdir: str, metric: str, runs: pl.DataFrame, names: list[str], entities: list[str],
                 room: int = MAX_LINES) -> pl.DataFrame:
    """The metric's values with the swept variables, ``seed`` and ``entity`` (the port,
    flow, ... or "" for a run-wide metric); ok runs only. Flows beyond ``room`` lines are
    drawn as their mean."""
    keys = ["run_id", "seed", *names]
    table, _, column = metric.rpartition(".")
    if not table:
        ok = runs.filter(pl.col("status") == "ok")
        return ok.select(*keys, pl.lit("").alias("entity"), pl.col(column).cast(pl.Float64).alias("value"))
    frame = _read(outdir, table).select(*keys, pl.col(ENTITY[table]).cast(pl.Utf8).alias("entity"),
                                        pl.col(column).cast(pl.Float64).alias("value"), *(["monitored"] if table == "ports" else []))
    return _pick_entities(frame, table, entities, room).select(*keys, "entity", "value")


def _pick_entities(frame: pl.DataFrame, table: str, entities: list[str], room: int) -> pl.DataFrame:
    known = frame["entity"].unique(maintain_order=True).to_list()
    unknown = [e for e in entities if e not in known]
    if unknown:
        raise PlotError(f"plot: --entity {unknown[0]!r}: no such {ENTITY[table]}; the sweep has: {', '.join(known[:20])}")
    if entities:
        return frame.filter(pl.col("entity").is_in(entities))
    if table == "ports":
        queued = frame.filter(pl.col("monitored")).filter((pl.col("value") > 0).any().over("entity"))
        return queued if queued.height else frame.filter(pl.col("entity") == _busiest(frame))
    if table == "flows" and len(known) > room:
        keys = [c for c in frame.columns if c not in ("entity", "value")]
        return frame.group_by(keys, maintain_order=True).agg(pl.col("value").mean()).with_columns(
            pl.lit(f"mean of {len(known)} flows").alias("entity"))
    return frame


def _busiest(frame: pl.DataFrame) -> str:
    means = frame.group_by("entity").agg(pl.col("value").mean()).sort("value", descending=True)
    return str(means["entity"][0])


def pick_x(runs: pl.DataFrame, names: list[str], x: str | None) -> str:
    """The variable on the x axis: ``x``, else the first swept variable with several values."""
    varying = [n for n in names if runs[n].n_unique() > 1]
    if x is not None:
        if x not in names:
            raise PlotError(f"plot: --x {x!r}: not a swept variable; the sweep's are: {', '.join(names) or 'none'}")
        return x
    if not varying:
        raise PlotError("plot: no swept variable takes more than one value; there is nothing to draw against")
    return varying[0]


def plot_sweep(outdir: str, metric: str | None = None, x: str | None = None, entities: list[str] | None = None,
               path: str | None = None) -> str:
    """Draws ``metric`` against swept variable ``x`` for the sweep in ``outdir``;
    returns the PNG's path."""
    runs = _read(outdir, "runs")
    if not runs.filter(pl.col("status") == "ok").height:
        raise PlotError(f"plot: {outdir}: no run of the sweep completed; nothing to draw")
    names = variables(outdir, runs)
    metric = metric or default_metric(outdir, runs)
    available = metrics(outdir, runs)
    if metric not in available:
        raise PlotError(f"plot: unknown metric {metric!r}; available: {', '.join(available)}")
    x = pick_x(runs, names, x)
    others = [n for n in names if n != x and runs[n].n_unique() > 1]
    combos = runs.select(others).n_unique() if others else 1
    frame = metric_frame(outdir, metric, runs, names, entities or [], max(1, MAX_LINES // combos))
    fig = draw(frame, metric, x, others)
    if path is None:
        os.makedirs(os.path.join(outdir, "plots"), exist_ok=True)
        path = os.path.join(outdir, "plots", f"{metric.replace('.', '_')}_vs_{x}.png")
    fig.savefig(path, dpi=300)
    return path


def _categories(values: list[Any]) -> list[str] | None:
    """None for numeric x values; else the category labels, in order of appearance."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    return list(dict.fromkeys(str(v) for v in values))


def _xs(values: list[Any], labels: list[str] | None) -> np.ndarray:
    return np.array(values if labels is None else [labels.index(str(v)) for v in values], dtype=float)


def draw(frame: pl.DataFrame, metric: str, x: str, others: list[str]) -> Figure:
    """The figure: per series (entity and the other varying variables), the mean over
    seeds at each x with ± one standard deviation, and each seed as a faint dot; the
    means joined by lines when x is a number, not when it names categories."""
    factor, unit = scale(metric)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3.5, 2.6), layout="constrained")
    ax = fig.add_subplot()
    series = ["entity", *others]
    labels = _categories(frame[x].to_list())
    for k, (key, points) in enumerate(frame.group_by(series, maintain_order=True)):
        colour = f"C{k % 10}"
        stats = (points.group_by(x).agg(pl.col("value").mean().alias("mean"), pl.col("value").std().alias("std"),
                                        pl.len().alias("n")).sort(x))
        err = np.nan_to_num(stats["std"].to_numpy().astype(float)) * factor
        ax.errorbar(_xs(stats[x].to_list(), labels), stats["mean"].to_numpy() * factor,
                    yerr=err if stats["n"].max() > 1 else None, color=colour, marker="o", ms=3, lw=1.2, capsize=2,
                    ls="-" if labels is None else "none",
                    label=_label(dict(zip(series, key)), others))
        ax.scatter(_xs(points[x].to_list(), labels), points["value"].to_numpy() * factor, s=6, color=colour,
                   alpha=0.5, linewidths=0)
    _axes(ax, frame, metric, x, unit, labels)
    return fig


def _label(key: dict[str, Any], others: list[str]) -> str:
    parts = [str(key["entity"])] if key["entity"] else []
    parts += [f"{n}={key[n]}" for n in others]
    return ", ".join(parts) or "all runs"


def _axes(ax: Axes, frame: pl.DataFrame, metric: str, x: str, unit: str, labels: list[str] | None) -> None:
    seeds = frame.group_by([c for c in frame.columns if c not in ("run_id", "seed", "value")]).len()["len"]
    n = int(seeds.max()) if seeds.len() else 0
    column = metric.split(".")[-1]
    label = LABELS.get(column, column)
    ax.set_xlabel(x, fontsize=8)
    ax.set_ylabel(f"{label} ({unit})" if unit else label, fontsize=8)
    if labels is not None:
        ax.set_xticks(range(len(labels)), labels)
        ax.set_xlim(-0.5, len(labels) - 0.5)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3, lw=0.5)
    ax.set_title(f"mean ± s.d. over {n} seeds; dots: each seed" if n > 1 else "one seed per point", fontsize=7)
    handles, names = ax.get_legend_handles_labels()
    if len(handles) > 4:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    elif len(handles) > 1 or (names and names[0] != "all runs"):
        ax.legend(fontsize=6, loc="best", frameon=False)
