"""Incast onsets that move as theory says, on variants of the DCTCP paper's incast
(python/dcbsim/scenarios/papers/dctcp/incast.toml: 1 MB per query split over n
servers, RTO_min 10 ms, answers within 200 µs).

DCTCP: under heavy marking a cut leaves a window of 2 (Linux's floor), so each server
starts an answer with 2 or 3 segments. The n first windows arrive together and drain
one window's time while they come, so the port of B frames overflows once
(n − 1)·w > B: the onset lies between B/3 + 1 and B/2 + 1 servers, near the upper
end when the windows sit at the floor, whatever the link rate (docs/models/dctcp.md).
TCP: a server times out once its share of buffer
and pipe, (B + C·RTT)/n, leaves too few segments for three duplicate ACKs, so its onset
too grows with the buffer (docs/models/tcp.md).
"""

from __future__ import annotations

import pytest

import dcbsim
from dcbsim.papers import SCENARIO_DIR

FRAME = 1500


def timeout_share(n: int, transport: str, frames: int, gbps: float = 1.0, seed: int = 1) -> float:
    """The share of queries in which some server timed out, over 1 s of queries."""
    overrides = [f"topology.servers={n}", f"incast.sru_kb={1024 / n}", f"incast.transport={transport}",
                 f"topology.buffer_kb={frames * FRAME / 1024}", f"topology.rate_gbps={gbps}", "run.duration_ms=1000"]
    r = dcbsim.run(dcbsim.load(SCENARIO_DIR / "dctcp" / "incast.toml", overrides), seed=seed)
    s = r.incast.summary()
    return s["blocks_with_timeouts"] / max(1, s["blocks"])


def dctcp_onset_range(frames: int) -> tuple[float, float]:
    """Servers from which the first windows, 3 or 2 segments each, overflow ``frames``."""
    return frames / 3 + 1, frames / 2 + 1


@pytest.mark.parametrize(("frames", "gbps"), [(100, 1.0), (200, 1.0), (100, 10.0)])
def test_dctcp_onset_follows_the_first_windows(frames, gbps):
    """Tolerance: just below B/3 + 1 at most 5 % of queries time out; at 1.3 × (B/2 + 1)
    at least 90 % (the full runs, 3 seeds and 2 s, 1 Gb/s: rises from 44 and 112
    servers for 100 and 200 frames; at 10 Gb/s the rise spreads over 40–64 servers)."""
    low, high = dctcp_onset_range(frames)
    assert timeout_share(int(low) - 1, "dctcp", frames, gbps) <= 0.05
    assert timeout_share(round(1.3 * high), "dctcp", frames, gbps) >= 0.90


def test_dctcp_onset_doubles_with_the_buffer():
    """Doubling the buffer moves the onset from at most 56 servers to between 96 and 120
    (windows of 2: 51 and 101): everything times out at 56 servers with 100 frames and
    next to nothing with 200; with 200 frames the step comes after 96 and by 120."""
    assert timeout_share(56, "dctcp", 100) >= 0.9
    assert timeout_share(56, "dctcp", 200) <= 0.05
    assert timeout_share(96, "dctcp", 200) <= 0.05
    assert timeout_share(120, "dctcp", 200) >= 0.9


def test_tcp_onset_grows_with_the_buffer():
    """TCP's rise moves with the buffer and pipe, (B + C·RTT)/n: with 100 frames most
    queries time out at 24 servers, with 200 frames only the tail-loss floor does (a
    server whose last segment is dropped gets no duplicate ACK: 7–16 % of queries at 8
    and 12 servers, 10–15 % at 24, seeds 1–3, 1 s) and the rise comes by 32 servers
    (about half); with 50 frames most do already at 10 servers, with 100 few (84 % and
    4 %). (Under insertion order of simultaneous events the floor at 24 servers was 2–4 %.)"""
    assert timeout_share(24, "tcp", 100) >= 0.5
    assert timeout_share(24, "tcp", 200) <= 0.2
    assert timeout_share(32, "tcp", 200) >= 0.3
    assert timeout_share(10, "tcp", 50) >= 0.5
    assert timeout_share(10, "tcp", 100) <= 0.10
