"""``dcbsim model NAME ...``: the analytic models from the command line."""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the models are imported when a model command runs, not by every command
    from dcbsim.analysis import dcc


def add_parsers(sub: argparse._SubParsersAction, parser_class: type) -> None:
    """Adds ``dcbsim model dcc`` and ``dcbsim model dsm``."""
    model = sub.add_parser("model", help="analytic models: dcc, dsm, qcn, theorem2, phase, maxmin")
    models = model.add_subparsers(dest="model", required=True, parser_class=parser_class)
    d = models.add_parser("dcc", help="differentiated AIMD: ratios and marking probability (DCC eqs. 5-7)")
    d.add_argument("--aimd", action="append", required=True, metavar="A,B[,COUNT]",
                   help="a class: AIMD(a, b) and how many sources (default 1); repeat per class")
    d.add_argument("--capacity", type=float, help="capacity in rate steps u (e.g. 5.52): gives p and the sampling")
    d.add_argument("--frame-bytes", type=float, default=1500.0)
    d.add_argument("--plot", metavar="PNG", help="draw the ratio to the first class vs a and b (Fig. 9)")
    q = models.add_parser("qcn", help="QCN convergence model (QCN-T paper eqs. 6-28): time to fairness")
    q.add_argument("--rates-mbps", default="900,100", help="initial rates, comma separated (default 900,100)")
    q.add_argument("--capacity-gbps", type=float, default=1.0)
    q.add_argument("--r-ai-mbps", type=float, default=0.5)
    q.add_argument("--variant", choices=["qcn", "qcn_timer", "qcn_aimd"], default="qcn")
    q.add_argument("--timer-ms", type=float, help="QCN-Timer's period")
    q.add_argument("--epsilon", type=float, default=0.9)
    q.add_argument("--plot", metavar="PNG", help="draw the rates over time")
    t2 = models.add_parser("theorem2", help="does QCN enter the sliding mode from (x0, y0)? (SMCC Theorem 2)")
    for name, default in [("cycle-ms", 1.2), ("w", 2.0), ("p", 0.01), ("gd", 1 / 128), ("capacity-gbps", 1.0),
                          ("flows", 2), ("x0-frames", 10.0), ("target-gbps", 0.6), ("frame-bytes", 1024.0)]:
        t2.add_argument(f"--{name}", type=type(default), default=default)
    ph = models.add_parser("phase", help="QCN's (and SMCC's) fluid-model phase plane")
    ph.add_argument("--capacity-gbps", type=float, default=1.0)
    ph.add_argument("--flows", type=int, default=2)
    ph.add_argument("--smcc", metavar="A,B", help="also SMCC's plane with gains a, b (1/s)")
    ph.add_argument("--plot", metavar="PNG", required=True)
    mm = models.add_parser("maxmin", help="weighted max-min fair shares (water-filling)")
    mm.add_argument("--link", action="append", required=True, metavar="NAME=CAPACITY", help="a link and its capacity")
    mm.add_argument("--flow", action="append", required=True, metavar="NAME=L1+L2[:WEIGHT[:DEMAND]]",
                    help="a flow, the links it crosses, its weight (1) and largest rate")
    s = models.add_parser("dsm", help="DSM's parameters from capacity and loop delay (eq. 31)")
    s.add_argument("--capacity-gbps", type=float, required=True)
    s.add_argument("--loop-us", type=float, required=True, help="worst feedback-loop delay")
    s.add_argument("--p", type=float, default=0.01)
    s.add_argument("--frame-bytes", type=float, default=1000.0)
    s.add_argument("--c-rule", choices=("fast", "eq30"), default="fast",
                   help="reaching gain: c = H/2 (fast, the paper's default) or eq. 30's bound, as a (eq30)")
    s.add_argument("--stability-map", metavar="PNG",
                   help="also plot where the closed loop settles, by gain and true loop delay (fluid model)")


def _classes(specs: list[str]) -> list[tuple[int, dcc.Aimd]]:
    from dcbsim.analysis import dcc
    out = []
    for spec in specs:
        parts = spec.split(",")
        if len(parts) not in (2, 3):
            raise ValueError(f"--aimd {spec}: expected A,B or A,B,COUNT")
        count = int(parts[2]) if len(parts) == 3 else 1
        out.append((count, dcc.Aimd(float(parts[0]), float(parts[1]))))
    return out


def _print(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def run(args: argparse.Namespace) -> int:
    """Prints the model's table (and draws its plot)."""
    from dcbsim.analysis import dcc, dsm, fluid
    if args.model == "qcn":
        return _qcn(args)
    if args.model == "maxmin":
        return _maxmin(args)
    if args.model == "theorem2":
        c = fluid.frames_per_s(args.capacity_gbps, args.frame_bytes)
        target = fluid.frames_per_s(args.target_gbps, args.frame_bytes)
        conditions = fluid.theorem2(args.cycle_ms / 1e3, args.w, args.p, args.gd, c, args.flows, args.x0_frames, target)
        _print([("condition", "holds", "why"), *[(x.name, "yes" if x.holds else "no", x.detail) for x in conditions]])
        print("sliding mode: " + ("yes" if all(x.holds for x in conditions) else "not guaranteed"))
        return 0
    if args.model == "phase":
        smcc = tuple(float(v) for v in args.smcc.split(",")) if args.smcc else None
        if smcc is not None and len(smcc) != 2:
            raise ValueError("--smcc takes A,B")
        fluid.plot_phase_plane(args.plot, fluid.frames_per_s(args.capacity_gbps), args.flows, smcc=smcc)
        print(f"plot in {args.plot}")
        return 0
    if args.model == "dsm":
        result = dsm.calculate(args.capacity_gbps, args.loop_us, args.p, args.frame_bytes, c_rule=args.c_rule)
        _print([("parameter", "value", "from"), *result.rows()])
        if args.stability_map:
            dsm.plot_stability_map(args.stability_map, args.capacity_gbps, args.loop_us)
            print(f"plot in {args.stability_map}")
        return 0
    classes = _classes(args.aimd)
    ratios = dcc.ratios([s for _, s in classes])
    rows = [("class", "AIMD(a, b)", "sources", "ratio")]
    rows += [(str(i), f"({s.a:g}, {s.b:g})", str(n), f"{r:.3f}") for i, ((n, s), r) in enumerate(zip(classes, ratios))]
    _print(rows)
    if args.capacity:
        p = dcc.marking_probability(classes, args.capacity)
        print(f"marking probability {p:.3f}: sample every {dcc.sampling_bytes(p, args.frame_bytes):.0f} bytes")
    if args.plot:
        _plot(classes[0][1], args.plot)
        print(f"plot in {args.plot}")
    return 0


def _maxmin(args: argparse.Namespace) -> int:
    from dcbsim.analysis import maxmin
    capacities = {}
    for spec in args.link:
        name, _, value = spec.partition("=")
        capacities[name] = float(value)
    paths, weights, demands = {}, {}, {}
    for spec in args.flow:
        name, _, rest = spec.partition("=")
        parts = rest.split(":")
        paths[name] = [link for link in parts[0].split("+") if link]
        if len(parts) > 1 and parts[1]:
            weights[name] = float(parts[1])
        if len(parts) > 2 and parts[2]:
            demands[name] = float(parts[2])
    rates = maxmin.weighted_max_min(capacities, paths, weights, demands)
    rows = [(f, "+".join(paths[f]), f"{weights.get(f, 1.0):g}", f"{r:.4g}") for f, r in rates.items()]
    _print([("flow", "links", "weight", "fair share"), *rows])
    return 0


def _qcn(args: argparse.Namespace) -> int:
    from dcbsim.analysis import qcn_convergence
    try:
        rates = [float(x) * 1e6 for x in args.rates_mbps.split(",")]
    except ValueError:
        raise ValueError(f"--rates-mbps: expected numbers separated by commas (got {args.rates_mbps!r})") from None
    if len(rates) < 2 or not all(math.isfinite(r) and r > 0 for r in rates):
        raise ValueError(f"--rates-mbps: needs two or more finite rates > 0 (got {args.rates_mbps!r})")
    for name in ("capacity_gbps", "r_ai_mbps", "epsilon"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"--{name.replace('_', '-')}: must be a finite number > 0 (got {value})")
    timer = args.timer_ms / 1e3 if args.timer_ms else None
    model = qcn_convergence.QcnModel(args.capacity_gbps * 1e9, r_ai_bps=args.r_ai_mbps * 1e6, variant=args.variant, timer_s=timer)
    p_fb = model.solve_p_fb(rates)
    t = model.convergence_time(rates, args.epsilon)
    _print([
        ("quantity", "value"),
        ("sampling period T_s", f"{1e3 * model.round_s:.3f} ms"),
        ("p[Fb>0] at the start", "none" if p_fb is None else f"{p_fb:.4f}"),
        (f"time to min/max ≥ {args.epsilon:g}", "not within 60 s" if t is None else f"{t:.2f} s"),
    ])
    if args.plot:
        from matplotlib.figure import Figure

        times, evolution = model.evolve(rates, max(1.0, 1.5 * (t or 20.0)))
        fig = Figure(figsize=(6, 4), layout="constrained")
        ax = fig.add_subplot()
        for i in range(evolution.shape[1]):
            ax.plot(times, evolution[:, i] / 1e6, label=f"RP {i + 1}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("expected rate (Mb/s)")
        ax.set_title(f"QCN convergence model: {args.variant}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.savefig(args.plot, dpi=110)
        print(f"plot in {args.plot}")
    return 0


def _plot(reference: dcc.Aimd, path: str) -> None:
    import numpy as np
    from matplotlib.figure import Figure

    from dcbsim.analysis import dcc

    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.add_subplot()
    a_values = np.linspace(0.5, 2.0, 61)
    for b in (0.5, 0.6, 0.7, 0.8, 0.9):
        ax.plot(a_values, [dcc.Aimd(a, b).weight / reference.weight for a in a_values], label=f"b = {b}")
    ax.set_xlabel("a")
    ax.set_ylabel(f"ratio to AIMD({reference.a:g}, {reference.b:g})")
    ax.set_title("DCC eq. 6: bandwidth ratio of AIMD(a, b)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
