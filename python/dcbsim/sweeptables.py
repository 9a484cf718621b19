"""The tidy tables of a sweep, keyed by run: what a single run's summary has, in
tables of fixed columns and dtypes, so that every run's rows and every output file agree.

=========  ==================================================================
table      one row per
=========  ==================================================================
runs       run: status, error, totals, fairness, FCT summary (and by size
           bucket), incast, events, wall time
ports      (run, port): queue statistics, utilization, drops, notifications,
           ECN marks, and PFC's PAUSE counters
flows      (run, named flow): counters, throughput over the run and over its
           active time, fair share, FCT
arrivals   (run, arrival source): its flows' counters and FCT summary
classes    (run, 802.1p priority): counters and throughput
fcts       (run, finite flow, named or arrived): size, start, end, FCT, slowdown
samples    (run, sample, metric, entity): the time series (``results.parquet``)
=========  ==================================================================

Every table starts with ``run_id`` (str), ``seed`` (u64) and the swept variables (each
with one dtype for the whole sweep: i64, f64, bool or str).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from dcbsim.results import Result

I64, F64, BOOL, STR, U64 = pl.Int64, pl.Float64, pl.Boolean, pl.Utf8, pl.UInt64

#: The size buckets of the FCT summary, as column name parts.
BUCKET_NAMES = {"<=100KB": "le100KB", "100KB-10MB": "100KB_10MB", ">10MB": "gt10MB"}
_BUCKET_STATS = {"completed": I64, "fct_mean_s": F64, "fct_p99_s": F64, "slowdown_mean": F64, "slowdown_p50": F64,
                 "slowdown_p99": F64}

#: Columns of ``runs`` after the keys (``index``, then these).
RUNS: dict[str, pl.DataType] = {
    "index": I64, "status": STR, "error": STR, "wall_s": F64, "events": I64, "simulated_s": F64, "sim_speed": F64, "parts": I64,
    "sent_frames": I64, "delivered_frames": I64, "dropped_frames": I64, "in_network_frames": I64, "notifications": I64,
    "jain": F64, "min_max": F64, "share_rms_bps": F64, "share_rms_rel": F64,
    "fct_flows": I64, "fct_completed": I64, "fct_mean_s": F64, "fct_p50_s": F64, "fct_p99_s": F64,
    **{f"fct_{b}_{k}": t for b in BUCKET_NAMES.values() for k, t in _BUCKET_STATS.items()},
    "incast_servers": I64, "incast_sru_bytes": I64, "incast_blocks": I64, "incast_goodput_bps": F64,
    "incast_block_goodput_mean_bps": F64, "incast_block_goodput_min_bps": F64, "incast_timeouts": I64,
    "incast_blocks_with_timeouts": I64,
}

_PFC = {"pause_sent": I64, "pause_received": I64, "paused_s": F64, "paused_fraction": F64, "headroom_drops": I64}

#: The tables of one run, each with its columns after the keys.
TABLES: dict[str, dict[str, pl.DataType]] = {
    "ports": {
        "port": STR, "capacity_bps": I64, "buffer_bytes": I64, "monitored": BOOL, "mean_bytes": F64, "std_bytes": F64,
        "p_empty": F64, "max_bytes": I64, "utilization": F64, "tx_frames": I64, "tx_bytes": I64, "dropped_frames": I64,
        "dropped_bytes": I64, "notifications": I64, "ecn_marks": I64, "queued_frames": I64, **_PFC,
    },
    "flows": {
        "flow": STR, "src": STR, "dst": STR, "path": pl.List(STR), "transport": STR, "acked": BOOL, "priority": I64, "weight": F64,
        "start_s": F64,
        "sent_frames": I64, "sent_bytes": I64, "delivered_frames": I64, "delivered_bytes": I64, "dropped_frames": I64,
        "dropped_bytes": I64, "in_network_frames": I64, "notifications": I64, "retransmits": I64, "timeouts": I64,
        "throughput_bps": F64, "active_s": F64, "throughput_active_bps": F64, "fair_share_bps": F64,
        "share_rms_bps": F64, "size_bytes": I64, "completion_time_s": F64, "ideal_completion_time_s": F64,
        "offered_bps": F64, "offered_bytes": I64, "transfers": I64, "transfers_completed": I64,
        "transfer_time_mean_s": F64, "transfer_time_p99_s": F64,
    },
    "arrivals": {
        "arrivals": STR, "flows": I64, "completed": I64, "sent_frames": I64, "delivered_frames": I64,
        "delivered_bytes": I64, "dropped_frames": I64, "in_network_frames": I64, "retransmits": I64, "timeouts": I64,
        "fct_mean_s": F64, "fct_p50_s": F64, "fct_p99_s": F64,
    },
    "classes": {
        "priority": I64, "flows": I64, "sent_frames": I64, "sent_bytes": I64, "delivered_frames": I64,
        "delivered_bytes": I64, "dropped_frames": I64, "dropped_bytes": I64, "throughput_bps": F64,
    },
    "fcts": {
        "flow": STR, "source": STR, "size_bytes": I64, "start_s": F64, "end_s": F64, "fct_s": F64, "ideal_s": F64,
        "slowdown": F64, "completed": BOOL, "delivered_bytes": I64,
    },
}


def reserved_names() -> set[str]:
    """The column names a swept variable may not take (its column would clash with one
    of the tables' own)."""
    names = {"run_id", "seed", "time_s", "metric", "entity", "value", *RUNS}
    for columns in TABLES.values():
        names.update(columns)
    return names


def value_dtype(values: Iterable[Any]) -> pl.DataType:
    """One dtype for all the values a swept variable takes: bool, i64, f64 (ints and
    floats mixed), else str."""
    values = list(values)
    if values and all(isinstance(v, bool) for v in values):
        return BOOL
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return I64
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return F64
    return STR


def cast_value(value: Any, dtype: pl.DataType) -> Any:
    """``value`` as a column of ``dtype`` holds it (lists and tables as TOML-ish text)."""
    if value is None:
        return None
    if dtype == F64:
        return float(value)
    if dtype == STR and not isinstance(value, str):
        return json.dumps(value)
    return value


def keys_schema(variables: dict[str, pl.DataType]) -> dict[str, pl.DataType]:
    """The key columns every table starts with."""
    return {"run_id": STR, "seed": U64, **variables}


def _frame(rows: list[dict[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    columns = {name: [row.get(name) for row in rows] for name in schema}
    return pl.DataFrame(columns, schema=schema, strict=False)


def run_row(summary: dict[str, Any]) -> dict[str, Any]:
    """The scalars of a run's summary, flattened to the columns of :data:`RUNS`."""
    row: dict[str, Any] = {k: summary.get(k) for k in ("wall_s", "events", "simulated_s", "sim_speed")}
    row["parts"] = summary.get("parts", 1)  # the threads the run went on
    row.update(summary["totals"])
    row.update(summary.get("fairness") or {})
    fct = summary.get("fct") or {}
    row.update({f"fct_{k}": fct.get(k) for k in ("flows", "completed")})
    row.update({k: fct.get(k) for k in ("fct_mean_s", "fct_p50_s", "fct_p99_s")})
    for bucket, stats in (fct.get("buckets") or {}).items():
        row.update({f"fct_{BUCKET_NAMES[bucket]}_{k}": v for k, v in stats.items()})
    row.update({f"incast_{k}": v for k, v in (summary.get("incast") or {}).items()})
    return row


def run_tables(result: Result) -> dict[str, pl.DataFrame]:
    """The per-run tables of :data:`TABLES` (without the key columns)."""
    s = result.summary
    pfc = s.get("pfc") or {}
    rows = {
        "ports": [{"port": name, **p, **pfc.get(name, {})} for name, p in s["ports"].items()],
        "flows": [{"flow": name, **f} for name, f in s["flows"].items()],
        "arrivals": [{"arrivals": name, **a} for name, a in s.get("arrivals", {}).items()],
        "classes": list(s.get("classes", {}).values()),
    }
    tables = {name: _frame(r, TABLES[name]) for name, r in rows.items()}
    tables["fcts"] = result.fct_table().select(list(TABLES["fcts"])).cast(TABLES["fcts"])
    return tables


def keyed(frame: pl.DataFrame, run_id: str, seed: int, values: dict[str, Any], variables: dict[str, pl.DataType]) -> pl.DataFrame:
    """``frame`` with the key columns in front, in the sweep's dtypes."""
    keys = [pl.lit(run_id, dtype=STR).alias("run_id"), pl.lit(seed, dtype=U64).alias("seed")]
    keys += [pl.lit(cast_value(values.get(k), t), dtype=t).alias(k) for k, t in variables.items()]
    rest = [c for c in frame.columns if c not in ("run_id", "seed", *variables)]
    return frame.select(rest).with_columns(keys).select(["run_id", "seed", *variables, *rest])


def encode(tables: dict[str, pl.DataFrame]) -> str:
    """The tables as JSON text (columns of values), to keep in a run file's metadata."""
    return json.dumps({name: t.to_dict(as_series=False) for name, t in tables.items()}, default=str)


def decode(text: str) -> dict[str, pl.DataFrame]:
    """The tables of :func:`encode`, in their dtypes."""
    data = json.loads(text)
    return {name: pl.DataFrame(data.get(name, {}), schema=schema, strict=False) for name, schema in TABLES.items()}


def empty(name: str, variables: dict[str, pl.DataType]) -> pl.DataFrame:
    """Table ``name`` with no rows (its columns and dtypes only)."""
    schema = RUNS if name == "runs" else TABLES[name]
    return pl.DataFrame(schema={**keys_schema(variables), **schema})
