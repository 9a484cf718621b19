"""Packet traces: which ports to trace and where their pcap files go.

A traced port's frames (those its node sends to its peer) are written as a classic
pcap file with nanosecond timestamps; see ``docs/traces.md`` for the frame layout.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

#: The default number of bytes kept of each frame.
DEFAULT_SNAPLEN = 128

PcapSpec = str | Sequence[str] | Mapping[str, str | os.PathLike[str]]


def pcap_file_name(port: str) -> str:
    """The file name of a port's trace when none is given: ``sw0:r0`` → ``sw0-r0.pcap``.
    It depends on the port's name alone, not on the scenario."""
    if not isinstance(port, str) or not port:
        raise TypeError(f"a port name must be a non-empty string \"node:peer\" (got {port!r})")
    return port.replace(":", "-").replace(os.sep, "_") + ".pcap"


def split_ports(text: str) -> list[str]:
    """``--pcap sw0:r0,sw1:r1`` as a list of port names (blank entries refused)."""
    ports = [p.strip() for p in text.split(",")]
    if not all(ports):
        raise ValueError(f"--pcap: empty port name in {text!r}; give PORT[,PORT...] with ports as node:peer")
    return ports


def requests(pcap: PcapSpec | None, pcap_dir: str | os.PathLike[str] | None = None) -> list[tuple[str, str]]:
    """``(port, path)`` pairs from what :func:`dcbsim.run` accepts as ``pcap``: one port
    name, a list of them (each written to ``pcap_dir``, the current directory by
    default, under :func:`pcap_file_name`), or a mapping of port name to path."""
    if pcap is None:
        return []
    directory = os.fspath(pcap_dir) if pcap_dir is not None else "."
    if isinstance(pcap, str):
        pcap = [pcap]
    if isinstance(pcap, Mapping):
        pairs = [(port, os.fspath(path)) for port, path in pcap.items()]
    elif isinstance(pcap, (bytes, bytearray)) or not isinstance(pcap, Sequence):
        raise TypeError(f"pcap must be a port name, a list of port names or a mapping of port to path (got {pcap!r})")
    else:
        pairs = [(port, os.path.join(directory, pcap_file_name(port))) for port in pcap]
    for port, _ in pairs:
        pcap_file_name(port)
    return pairs


def check_snaplen(snaplen: object) -> int:
    """``snaplen`` as an int (the engine checks its range), or a TypeError."""
    if isinstance(snaplen, bool) or not isinstance(snaplen, int):
        raise TypeError(f"pcap_snaplen must be an integer number of bytes (got {snaplen!r})")
    if not 0 <= snaplen < 1 << 32:
        raise ValueError(f"pcap_snaplen: must be 18..=262144 bytes (got {snaplen})")
    return snaplen
