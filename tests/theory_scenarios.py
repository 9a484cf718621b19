"""Small scenarios built in code for the theory checks on variants no paper publishes
(`tests/test_theory_fair.py`): a dumbbell of N senders, a two-bottleneck parking lot,
an incast and DCC's two AIMD classes, each at any capacity, delay, buffer and weights."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import dcbsim

FRAME = 1500


def dumbbell(n: int, gbps: float, *, scheme: str | None = None, scheme_keys: str = "", delay_us: float = 5.0,
             buffer_kb: float = 150.0, duration_ms: float = 200.0, sample_us: float = 1000.0,
             weights: Sequence[float] | None = None, flow_keys: str = "", tables: str = "", frame: int = FRAME,
             late_ms: float | None = None) -> str:
    """N greedy senders to one receiver through ``sw0:r0``; every link ``gbps``. With
    ``late_ms`` the last sender (flow ``late``) starts then, the others at 0."""
    scheme_table = f'[scheme]\nname = "{scheme}"\ncongestion_points = ["sw0:r0"]\n{scheme_keys}\n' if scheme else ""
    weight = f"weight = {list(weights)}" if weights else ""
    return f"""
[run]
name = "dumbbell"
duration_ms = {duration_ms}
frame_bytes = {frame}
sample_interval_us = {sample_us}
[topology]
kind = "dumbbell"
senders = {n}
rate_gbps = {gbps}
delay_us = {delay_us}
buffer_kb = {buffer_kb}
{scheme_table}
[monitor]
ports = ["sw0:r0"]
{tables}
[[flows]]
name = "f"
src = {'"s*"' if late_ms is None else [f"s{i}" for i in range(n - 1)]}
dst = "r0"
{weight}
{flow_keys}
{_late_flow(n, late_ms, flow_keys)}
"""


def _late_flow(n: int, late_ms: float | None, flow_keys: str) -> str:
    """The flow ``late`` from the last sender, starting at ``late_ms`` (none if None)."""
    if late_ms is None:
        return ""
    return f'[[flows]]\nname = "late"\nsrc = "s{n - 1}"\ndst = "r0"\nstart_ms = {late_ms}\n{flow_keys}\n'


def _link(a: str, b: str, gbps: float, delay_us: float, buffer_kb: float) -> str:
    return f'[[topology.links]]\na = "{a}"\nb = "{b}"\nrate_gbps = {gbps}\ndelay_us = {delay_us}\nbuffer_kb = {buffer_kb}\n'


def parking_lot(scheme: str, c1: float, c2: float, groups: dict[str, Sequence[float]], *, duration_ms: float = 400.0,
                delay_us: float = 5.0, buffer_kb: float = 150.0) -> tuple[str, dict[str, list[str]], dict[str, float]]:
    """Trunks ``sw1 → sw2`` (``c1`` Gb/s, link ``t1``) and ``sw2 → sw3`` (``c2``, ``t2``);
    ``groups`` gives the weights of the flows crossing both (``"L"``), only the first
    (``"A"``) and only the second (``"B"``). Returns the scenario, each flow's links and
    its weight."""
    spans = {"L": ("sw1", "sw3", ["t1", "t2"]), "A": ("sw1", "sw2", ["t1"]), "B": ("sw2", "sw3", ["t2"])}
    host = max(c1, c2)
    hosts, links, flows = [], [_link("sw1", "sw2", c1, delay_us, buffer_kb), _link("sw2", "sw3", c2, delay_us, buffer_kb)], []
    paths, weights = {}, {}
    for group, ws in groups.items():
        first, last, crossed = spans[group]
        for i, w in enumerate(ws):
            name = f"{group}{i}"
            hosts += [f"s{name}", f"r{name}"]
            links += [_link(f"s{name}", first, host, delay_us, buffer_kb), _link(f"r{name}", last, host, delay_us, buffer_kb)]
            flows.append(f'[[flows]]\nname = "{name}"\nsrc = "s{name}"\ndst = "r{name}"\nweight = {w}\n')
            paths[name], weights[name] = crossed, float(w)
    text = f"""
[run]
name = "parking-lot"
duration_ms = {duration_ms}
frame_bytes = {FRAME}
sample_interval_us = 1000.0
[topology]
kind = "generic"
hosts = {hosts}
switches = ["sw1", "sw2", "sw3"]
{''.join(links)}
[scheme]
name = "{scheme}"
congestion_points = ["sw1:sw2", "sw2:sw3"]
[monitor]
ports = ["sw1:sw2", "sw2:sw3"]
{''.join(flows)}
"""
    return text, paths, weights


def incast(servers: int, gbps: float, buffer_kb: float, *, sru_kb: float = 64.0, duration_ms: float = 2000.0,
           delay_us: float = 25.0, rto_min_ms: float = 200.0, jitter_us: float = 20.0, transport: str = "tcp") -> str:
    """A client asking ``servers`` servers for one SRU each per block (a barrier)."""
    return f"""
[run]
name = "incast"
duration_ms = {duration_ms}
frame_bytes = {FRAME}
sample_interval_us = 1000.0
[topology]
kind = "incast"
servers = {servers}
rate_gbps = {gbps}
delay_us = {delay_us}
buffer_kb = {buffer_kb}
[transport]
rto_min_ms = {rto_min_ms}
rto_initial_ms = {rto_min_ms}
[incast]
client = "client"
servers = "srv*"
sru_kb = {sru_kb}
transport = "{transport}"
response_jitter_us = {jitter_us}
"""


def dcc_classes(gbps: float, n1: int, n2: int, aimd1: tuple[float, float], aimd2: tuple[float, float], *,
                delay_us: float = 5.0, duration_ms: float = 1000.0, scheme_keys: str = "") -> str:
    """Two classes of DCC sources, ``n1`` with AIMD ``aimd1`` (flows ``a…``) and ``n2``
    with ``aimd2`` (flows ``b…``), through one port of ``gbps``; 300 KB buffers."""
    n = n1 + n2
    def cls(name: str, hosts: list[str], aimd: tuple[float, float]) -> str:
        return (f'[[flows]]\nname = "{name}"\nsrc = {hosts}\ndst = "r0"\nrate_mbps = 40.0\njitter = 0.1\n'
                f"aimd = {{ a = {aimd[0]}, b = {aimd[1]} }}\n")
    flows = cls("a", [f"s{i}" for i in range(n1)], aimd1) + cls("b", [f"s{i}" for i in range(n1, n)], aimd2)
    return dumbbell(n, gbps, scheme="dcc", scheme_keys=scheme_keys, delay_us=delay_us, buffer_kb=300.0,
                    duration_ms=duration_ms).split("[[flows]]")[0] + flows


def run(text: str, seed: int = 1) -> dcbsim.Result:
    """Runs a scenario given as text."""
    return dcbsim.run(dcbsim.loads(text), seed=seed)


def after(r: dcbsim.Result, warm_s: float) -> np.ndarray:
    """The samples after the warm-up."""
    return r.time_s > warm_s


def mean_throughputs(r: dcbsim.Result, warm_s: float) -> dict[str, float]:
    """Each flow's mean delivered throughput after the warm-up, bits/s."""
    m = after(r, warm_s)
    return {name: float(f.throughput_bps[m].mean()) for name, f in r.flows.items()}


def share_ratios(r: dcbsim.Result, warm_s: float) -> dict[str, float]:
    """Each flow's throughput over its (weighted max-min) fair share, after the warm-up."""
    m = after(r, warm_s)
    return {name: float(f.throughput_bps[m].mean() / f.fair_share_bps[m].mean()) for name, f in r.flows.items()}


def jain(values) -> float:
    """Jain's index of a set of rates."""
    x = np.asarray(list(values), dtype=float)
    return float(x.sum() ** 2 / (x.size * (x * x).sum()))
