"""``dcbsim model NAME ...``: the analytic models from the command line."""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the models are imported when a model command runs, not by every command
    from dcbsim.analysis import dcc


def _number(low: float, high: float, *, low_open: bool = True, high_open: bool = False, integer: bool = False):
    """An argument type: a finite number (an integer with ``integer``) in the interval
    from ``low`` to ``high`` (each end open or closed as asked); anything else is an
    argument error (one line, exit status 2)."""
    span = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    kind = "an integer" if integer else "a number"

    def parse(text: str) -> float:
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            value = math.nan
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        if not (math.isfinite(value) and above and below):
            raise argparse.ArgumentTypeError(f"must be {kind} in {span} (got {text!r})")
        return value

    return parse


#: The arguments' ranges: rates from 1 kb/s to 10 Tb/s, frames of 1 byte to 1 MB,
#: probabilities from 10^-9, times up to an hour.
_GBPS = _number(1e-6, 1e4, low_open=False)
_FRAME = _number(1, 1e6, low_open=False)
_FRACTION = _number(0, 1)
_PROBABILITY = _number(1e-9, 1, low_open=False)
_FLOWS = _number(1, 100_000, low_open=False, integer=True)


def add_parsers(sub: argparse._SubParsersAction, parser_class: type) -> None:
    """Adds ``dcbsim model dcc`` and ``dcbsim model dsm``."""
    model = sub.add_parser("model", help="analytic models: dcc, dsm, qcn, theorem2, phase, maxmin")
    models = model.add_subparsers(dest="model", required=True, parser_class=parser_class)
    d = models.add_parser("dcc", help="differentiated AIMD: ratios and marking probability (DCC eqs. 5-7)")
    d.add_argument("--aimd", action="append", required=True, metavar="A,B[,COUNT]",
                   help="a class: AIMD(a, b) and how many sources (default 1); repeat per class")
    d.add_argument("--capacity", type=_number(1e-9, 1e12, low_open=False),
                   help="capacity in rate steps u (e.g. 5.52): gives p and the sampling")
    d.add_argument("--frame-bytes", type=_FRAME, default=1500.0)
    d.add_argument("--plot", metavar="PNG", help="draw the ratio to the first class vs a and b (Fig. 9)")
    q = models.add_parser("qcn", help="QCN convergence model (QCN-T paper eqs. 6-28): time to fairness")
    q.add_argument("--rates-mbps", default="900,100", help="initial rates, comma separated (default 900,100)")
    q.add_argument("--capacity-gbps", type=_GBPS, default=1.0)
    q.add_argument("--r-ai-mbps", type=_number(1e-6, 1e7, low_open=False), default=0.5)
    q.add_argument("--variant", choices=["qcn", "qcn_timer", "qcn_aimd"], default="qcn")
    q.add_argument("--timer-ms", type=_number(1e-3, 1e4, low_open=False), help="QCN-Timer's period, 0.001 to 10000 ms")
    q.add_argument("--epsilon", type=_FRACTION, default=0.9, help="fairness reached: min/max rate, in (0, 1]")
    q.add_argument("--plot", metavar="PNG", help="draw the rates over time")
    t2 = models.add_parser("theorem2", help="does QCN enter the sliding mode from (x0, y0)? (SMCC Theorem 2)")
    for name, kind, default in [("cycle-ms", _number(1e-6, 3.6e6, low_open=False), 1.2),
                                ("w", _number(1e-6, 1e6, low_open=False), 2.0), ("p", _PROBABILITY, 0.01),
                                ("gd", _number(1e-9, 1, low_open=False, high_open=True), 1 / 128), ("capacity-gbps", _GBPS, 1.0),
                                ("flows", _FLOWS, 2), ("x0-frames", _number(-1e12, 1e12, low_open=False), 10.0),
                                ("target-gbps", _GBPS, 0.6), ("frame-bytes", _FRAME, 1024.0)]:
        t2.add_argument(f"--{name}", type=kind, default=default)
    ph = models.add_parser("phase", help="QCN's (and SMCC's) fluid-model phase plane")
    ph.add_argument("--capacity-gbps", type=_GBPS, default=1.0)
    ph.add_argument("--flows", type=_number(1, 1000, low_open=False, integer=True), default=2)
    ph.add_argument("--smcc", metavar="A,B", help="also SMCC's plane with gains a, b (1/s)")
    ph.add_argument("--plot", metavar="PNG", required=True)
    mm = models.add_parser("maxmin", help="weighted max-min fair shares (water-filling)")
    mm.add_argument("--link", action="append", required=True, metavar="NAME=CAPACITY", help="a link and its capacity")
    mm.add_argument("--flow", action="append", required=True, metavar="NAME=L1+L2[:WEIGHT[:DEMAND]]",
                    help="a flow, the links it crosses, its weight (1) and largest rate")
    s = models.add_parser("dsm", help="DSM's parameters from capacity and loop delay (eq. 31)")
    s.add_argument("--capacity-gbps", type=_GBPS, required=True)
    s.add_argument("--loop-us", type=_number(0, 1e9, low_open=False), required=True, help="worst feedback-loop delay, up to 10^9 us")
    s.add_argument("--p", type=_PROBABILITY, default=0.01)
    s.add_argument("--frame-bytes", type=_FRAME, default=1000.0)
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
        try:
            count = int(parts[2]) if len(parts) == 3 else 1
            a, b = float(parts[0]), float(parts[1])
        except ValueError:
            raise ValueError(f"--aimd {spec}: expected numbers A,B and an integer COUNT") from None
        if not (math.isfinite(a) and 0 < a <= 1e9 and 0 <= b < 1 and 1 <= count <= 1_000_000):
            raise ValueError(f"--aimd {spec}: need 0 < A <= 1e9, 0 <= B < 1 and 1 <= COUNT <= 1000000")
        out.append((count, dcc.Aimd(a, b)))
    return out


def _print(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def run(args: argparse.Namespace) -> int:
    """Prints the model's table (and draws its plot); inputs within their ranges whose
    arithmetic still overflows or divides by zero are refused in one line."""
    try:
        return _run(args)
    except ArithmeticError as e:
        raise ValueError(f"model {args.model}: these inputs take the model out of range ({e}); use values nearer its defaults") from None


def _run(args: argparse.Namespace) -> int:
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
        smcc = _pair("--smcc", args.smcc) if args.smcc else None
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


def _pair(option: str, text: str) -> tuple[float, float]:
    """``A,B``: two finite numbers > 0."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 2 or not all(1e-9 <= v <= 1e12 for v in values):
        raise ValueError(f"{option}: takes A,B, two numbers in [1e-9, 1e12] (got {text!r})")
    return values  # type: ignore[return-value]


def _value(option: str, spec: str, text: str, low: float, what: str) -> float:
    """A number of a ``--link``/``--flow`` spec: finite and at least ``low``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= low):
        raise ValueError(f"{option} {spec}: {what} must be a finite number >= {low:g} (got {text!r})")
    return value


def _maxmin(args: argparse.Namespace) -> int:
    from dcbsim.analysis import maxmin
    capacities = {}
    for spec in args.link:
        name, _, value = spec.partition("=")
        capacities[name] = _value("--link", spec, value, 0, "the capacity")
    paths, weights, demands = {}, {}, {}
    for spec in args.flow:
        name, _, rest = spec.partition("=")
        parts = rest.split(":")
        paths[name] = [link for link in parts[0].split("+") if link]
        if len(parts) > 1 and parts[1]:
            weights[name] = _value("--flow", spec, parts[1], 1e-12, "the weight")
        if len(parts) > 2 and parts[2]:
            demands[name] = _value("--flow", spec, parts[2], 0, "the demand")
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
