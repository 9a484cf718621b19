"""The variants each model page's "Checked against theory" table measures: numbers of
senders, capacities, loop delays and buffers that no paper publishes.
``python -m dcbsim.analysis.variants_grid SCHEME`` prints one scheme's table."""

from __future__ import annotations

import sys

from dcbsim.analysis.variants import Case


def _dsm(senders: int, gbps: float, loop_us: float, c_rule: str) -> Case:
    """DSM with its gains from eq. 31 for this loop (1000 B frames, the paper's)."""
    params = (("loop_delay_us", float(loop_us)), ("c_rule", c_rule))
    return Case("dsm", senders, gbps, loop_us, 128.0, params, frame_bytes=1000)


def _smcc(senders: int, gbps: float, loop_us: float) -> Case:
    """SMCC with the paper's q0 = 64 KB, B = 128 KB and 1 KB frames."""
    return Case("smcc", senders, gbps, loop_us, 128.0, frame_bytes=1024)


QCN = [
    Case("qcn", 2, 1, 200),
    Case("qcn", 3, 10, 50),
    Case("qcn", 8, 40, 25),
    Case("qcn", 16, 10, 5),
    Case("qcn", 16, 1, 5),
    Case("qcn", 50, 10, 50),
    Case("qcn", 2, 10, 400),
    Case("qcn", 2, 40, 200),
    Case("qcn_aimd", 8, 1, 5, duration_s=20.0),
    Case("qcn_aimd", 8, 10, 50, duration_s=6.0),
    Case("qcn_aimd", 2, 10, 200, duration_s=6.0),
    Case("qcn_timer", 3, 1, 50),
    Case("qcn_timer", 3, 10, 50),
    Case("qcn_t", 2, 10, 5),
    Case("qcn_t", 2, 40, 5),
    Case("qcn_t", 16, 40, 50),
    Case("qcn", 4, 100, 10, duration_s=0.3),
    Case("qcn", 3, 100, 5, frame_bytes=9000, duration_s=0.3),
    Case("qcn", 3, 100, 5, 600.0, (("q_eq_kb", 198.0),), frame_bytes=9000, duration_s=0.3),
    Case("qcn_t", 2, 100, 5, duration_s=0.3),
    Case("qcn", 3, 10, 5, 66.0, duration_s=0.4),
    Case("qcn", 3, 10, 5, 16.5, duration_s=0.4),
]

SMCC = [
    _smcc(2, 1, 5),
    _smcc(3, 10, 50),
    _smcc(8, 40, 5),
    _smcc(16, 10, 5),
    _smcc(50, 10, 5),
    Case("smcc", 50, 10, 5, 128.0, (("r_min_mbps", 1.0),), frame_bytes=1024),
    _smcc(8, 10, 200),
    _smcc(8, 40, 50),
    Case("smcc", 50, 10, 5, 128.0, (("floor_memory", True),), frame_bytes=1024),
    Case("smcc", 50, 10, 5, 128.0, (("r_min_mbps", 100.0),), frame_bytes=1024),
    Case("smcc", 3, 100, 5, 128.0, frame_bytes=1024, duration_s=0.3),
    Case("smcc", 3, 100, 5, 128.0, frame_bytes=9000, duration_s=0.3),
    Case("smcc", 3, 10, 5, 32.0, frame_bytes=1024, duration_s=0.4),
]

DSM = [
    _dsm(2, 1, 50, "eq30"),
    _dsm(3, 40, 100, "eq30"),
    _dsm(8, 40, 200, "eq30"),
    _dsm(16, 10, 200, "eq30"),
    _dsm(50, 10, 100, "eq30"),
    _dsm(8, 10, 50, "fast"),
    _dsm(2, 1, 50, "fast"),
    _dsm(8, 10, 100, "fast"),
    _dsm(8, 40, 50, "fast"),
    Case("dsm", 3, 100, 20, 128.0, (("loop_delay_us", 20.0), ("c_rule", "eq30")), frame_bytes=1000, duration_s=0.3),
    Case("dsm", 3, 100, 20, 128.0, (("loop_delay_us", 20.0), ("c_rule", "eq30")), frame_bytes=9000, duration_s=0.3),
    Case("dsm", 3, 10, 20, 32.0, (("loop_delay_us", 20.0), ("c_rule", "eq30")), frame_bytes=1000, duration_s=0.4),
]

ECM = [
    Case("ecm", 2, 1, 5),
    Case("ecm", 2, 10, 5),
    Case("ecm", 2, 40, 5),
    Case("ecm", 8, 10, 50),
    Case("ecm", 16, 1, 5),
    Case("ecm", 16, 1, 5, params=(("self_increase_mbps", 0.0),)),
    Case("ecm", 16, 40, 5),
    Case("ecm", 2, 10, 200),
    Case("ecm", 2, 100, 5, params=(("self_increase_mbps", 0.0),), duration_s=0.3),
    Case("ecm", 4, 100, 5, duration_s=0.3),
    Case("ecm", 2, 100, 5, frame_bytes=9000, duration_s=0.3),
    Case("ecm", 3, 10, 5, 97.7, (("self_increase_mbps", 0.0),), duration_s=0.4),
    Case("ecm", 3, 10, 5, 24.4, (("self_increase_mbps", 0.0),), duration_s=0.4),
]

#: Each scheme's grid.
GRIDS = {"qcn": QCN, "smcc": SMCC, "dsm": DSM, "ecm": ECM}


HEADER = (
    "| scheme | N | C (Gb/s) | loop (µs) | buffer (KB) | settings | queue | utilization | empty | drops | Jain |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def main(argv: list[str]) -> None:
    """Print the table of one scheme's grid (``qcn``, ``smcc``, ``dsm``, ``ecm``), seed 1."""
    if len(argv) != 1 or argv[0] not in GRIDS:
        print(f"usage: python -m dcbsim.analysis.variants_grid {{{','.join(GRIDS)}}}", file=sys.stderr)
        raise SystemExit(2)
    print(HEADER)
    for case in GRIDS[argv[0]]:
        print(f"| {case.label()} | {case.measure().row()} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
