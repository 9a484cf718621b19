"""Shared fixtures: paths to the shipped scenarios and a small scenario text."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "python" / "dcbsim" / "scenarios"

SMALL = """
[run]
name = "small"
duration_ms = 5.0
frame_bytes = 1000
sample_interval_us = 500.0

[topology]
kind = "dumbbell"
senders = 3
rate_gbps = 10.0
buffer_kb = 64.0

[[flows]]
name = "cbr"
src = "s*"
dst = "r0"
kind = "constant"
rate_gbps = 4.0
"""


@pytest.fixture
def small_text() -> str:
    """A 5 ms dumbbell of 3 x 4 Gb/s into 10 Gb/s."""
    return SMALL


@pytest.fixture
def quickstart() -> Path:
    """The quickstart scenario file."""
    return SCENARIOS / "examples" / "quickstart.toml"
