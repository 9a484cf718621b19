"""The summary table printed at the end of a run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dcbsim._core import flow_table


def _table(headers: Sequence[str], rows: list[Sequence[str]]) -> str:
    """The rows under their headers, the first column left-aligned and the others
    right-aligned, each as wide as its widest cell (one format string for every row:
    a summary.txt of 100,000 flows has as many)."""
    columns = list(zip(*rows)) if rows else [()] * len(headers)
    widths = [max(len(h), max(map(len, cells), default=0)) for h, cells in zip(headers, columns)]
    row = "  ".join(f"{{:{'<' if i == 0 else '>'}{w}}}" for i, w in enumerate(widths))
    line = row.format(*headers)
    return "\n".join([line, "-" * len(line), *(row.format(*r) for r in rows)])


def _fairness_line(f: dict[str, Any]) -> str:
    """One line on how fairly the flows shared (against their weighted max-min shares)."""
    rel = "" if f["share_rms_rel"] is None else f" ({100 * f['share_rms_rel']:.1f} %)"
    return (
        f"fairness (throughput / weighted max-min share, mean over samples): Jain {f['jain']:.3f}, "
        f"min/max {f['min_max']:.3f}; rms from the share {f['share_rms_bps'] / 1e9:.3f} Gb/s{rel}"
    )


def _transport_lines(summary: dict[str, Any]) -> list[str]:
    """Lines on flow completion times, slowdowns and the incast application, when the
    run has them."""
    out = []
    fct = summary.get("fct") or {}
    if fct.get("completed"):
        ms = lambda x: "-" if x is None else f"{1e3 * x:.3f}"
        out.append(
            f"FCT of {fct['completed']}/{fct['flows']} finite flows: mean {ms(fct['fct_mean_s'])} ms, "
            f"median {ms(fct['fct_p50_s'])} ms, p99 {ms(fct['fct_p99_s'])} ms"
        )
        rows = [
            [name, str(b["completed"]), ms(b["fct_mean_s"]), ms(b["fct_p99_s"]),
             "-" if b["slowdown_mean"] is None else f"{b['slowdown_mean']:.2f}",
             "-" if b["slowdown_p99"] is None else f"{b['slowdown_p99']:.2f}"]
            for name, b in fct["buckets"].items() if b["completed"]
        ]
        out += [_table(["size", "flows", "FCT mean (ms)", "FCT p99 (ms)", "slowdown mean", "slowdown p99"], rows), ""]
    incast = summary.get("incast")
    if incast:
        out += [
            (f"incast: {incast['servers']} servers x {incast['sru_bytes'] / 1024:g} KB, {incast['blocks']} blocks, "
             f"goodput {incast['goodput_bps'] / 1e6:.1f} Mb/s, {incast['timeouts']} timeouts "
             f"({incast['blocks_with_timeouts']} blocks with one)"),
            "",
        ]
    return out


def _busiest_first(ports: dict[str, Any]) -> list[tuple[str, Any]]:
    """The ports that carried or dropped anything, busiest (then most drops) first; the
    rest keep their order."""
    active = [(name, p) for name, p in ports.items() if p["tx_frames"] or p["dropped_frames"]]
    return sorted(active, key=lambda item: (-item[1]["utilization"], -item[1]["dropped_frames"]))


def _more(shown: int, total: int, what: str) -> list[str]:
    """A line saying how many rows a table left out, if any."""
    if total <= shown:
        return []
    return [f"... and {total - shown} more {what} (the whole table: summary.txt in the output folder)"]


def _speed(per_s: float) -> str:
    """Simulated seconds per wall second: one decimal from 1 up, two significant digits
    below (a large fabric's run simulates a hundredth of a second per second, which one
    decimal showed as 0.0)."""
    return f"{per_s:.1f}" if per_s >= 1 else f"{per_s:.2g}"


def summary_table(summary: dict[str, Any], max_rows: int | None = 20) -> str:
    """Ports (queue, emptiness, utilization, drops; busiest first), flows (throughput,
    counts), and the 802.1p priorities when the flows have more than one. At most
    ``max_rows`` ports, flows and arrival sources each (``None``: all), saying how many
    were left out."""
    all_ports = _busiest_first(summary["ports"])
    ports = all_ports[:max_rows]
    port_rows = [
        [
            name,
            f"{p['mean_bytes'] / 1024:.1f}",
            f"{p['std_bytes'] / 1024:.1f}",
            f"{100 * p['p_empty']:.1f}",
            f"{100 * p['utilization']:.2f}",
            str(p["dropped_frames"]),
            str(p["notifications"]),
            str(p.get("ecn_marks", 0)),
        ]
        for name, p in ports
    ]
    all_flows = list(summary["flows"].items())
    flows = all_flows[:max_rows]
    totals = summary["totals"]
    all_arrivals = list(summary.get("arrivals", {}).items())
    arrivals = all_arrivals[:max_rows]
    ms = lambda x: "" if x is None else f"{1e3 * x:.3f}"
    arrival_rows = [
        [name, str(a["flows"]), str(a["completed"]), str(a["dropped_frames"]), ms(a["fct_mean_s"]), ms(a["fct_p50_s"]), ms(a["fct_p99_s"])]
        for name, a in arrivals
    ]
    classes = summary.get("classes", {})
    class_rows = [
        [p, *(str(c[k]) for k in ("flows", "sent_frames", "delivered_frames", "dropped_frames")), f"{c['throughput_bps'] / 1e6:.2f}"]
        for p, c in classes.items()
    ]
    pfc_rows = [
        [name, str(p["pause_sent"]), str(p["pause_received"]), f"{1e3 * p['paused_s']:.3f}", f"{100 * p['paused_fraction']:.1f}",
         str(p["headroom_drops"])]
        for name, p in list(summary.get("pfc", {}).items())[:max_rows]
    ]
    parts = [
        _table(["port", "mean q (KB)", "std q (KB)", "P(q=0) %", "util %", "drops", "notifications", "ECN marks"], port_rows),
        *_more(len(ports), len(all_ports), "ports"),
        "",
        # Throughput, active throughput, offered load and fair share (Gb/s), weight,
        # delivered, dropped, notifications, retransmissions/timeouts, FCT (ms):
        # formatted by the engine (a million flows' rows took 8 s here).
        flow_table(flows),
        *_more(len(flows), len(all_flows), "flows"),
        *([_fairness_line(summary["fairness"]), ""] if summary.get("fairness", {}).get("jain") is not None else []),
        "",
        *(
            [_table(["802.1p priority", "flows", "sent", "delivered", "dropped", "Mb/s"], class_rows), ""]
            if len(class_rows) > 1
            else []
        ),
        *(
            [_table(["PFC port", "PAUSE sent", "PAUSE received", "paused (ms)", "paused %", "headroom drops"], pfc_rows), ""]
            if pfc_rows
            else []
        ),
        *(
            [_table(["arrivals", "flows", "completed", "dropped", "FCT mean (ms)", "p50", "p99"], arrival_rows),
             *_more(len(arrivals), len(all_arrivals), "arrival sources"), ""]
            if arrival_rows
            else []
        ),
        *_transport_lines(summary),
        (
            f"{summary['scenario']} ({summary['scheme']}, seed {summary['seed']}): "
            f"sent {totals['sent_frames']}, delivered {totals['delivered_frames']}, dropped {totals['dropped_frames']} frames; "
            f"{summary['events']} events, {summary['simulated_s']:.3f} s simulated in {summary['wall_s']:.3f} s "
            f"({_speed(summary['sim_speed'])} simulated s per s"
            + (f", on {summary['parts']} threads)" if summary.get("parts", 1) > 1 else ")")
        ),
    ]
    return "\n".join(parts)
