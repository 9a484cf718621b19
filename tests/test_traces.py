"""Packet traces read back with an independent parser (dpkt): frame counts against the
run's port counters, and the fields of data, CNM, TCP, RoCEv2 and PFC frames."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import dpkt
import pytest

import dcbsim
from conftest import SCENARIOS
from dcbsim import cli, traces

QCN = """
[run]
duration_ms = 4.0
frame_bytes = 1500
[topology]
kind = "dumbbell"
senders = 3
rate_gbps = 10.0
buffer_kb = 150.0
[scheme]
name = "qcn"
congestion_points = ["sw0:r0"]
[[flows]]
src = "s*"
dst = "r0"
priority = 2
"""

DCTCP = """
[run]
duration_ms = 3.0
frame_bytes = 1500
[topology]
kind = "dumbbell"
senders = 2
rate_gbps = 10.0
buffer_kb = 300.0
[[flows]]
src = "s*"
dst = "r0"
transport = "dctcp"
"""


def frames(path: Path) -> list[tuple[float, bytes]]:
    """(time, captured bytes) of each record, read by dpkt."""
    with open(path, "rb") as f:
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == dpkt.pcap.DLT_EN10MB
        assert reader.snaplen in (64, 100, 128)
        return list(reader)


def ethernet(buf: bytes) -> dpkt.ethernet.Ethernet:
    return dpkt.ethernet.Ethernet(buf)


def payload_after_tags(buf: bytes) -> tuple[int, int | None, bytes]:
    """(EtherType, CN-TAG flow id or None, bytes after) of a tagged frame."""
    assert struct.unpack("!H", buf[12:14])[0] == 0x8100
    etype, rest = struct.unpack("!H", buf[16:18])[0], buf[18:]
    if etype == 0x22E9:
        flow, etype = struct.unpack("!HH", rest[:4])
        return etype, flow, rest[4:]
    return etype, None, rest


def port(result: dcbsim.Result, name: str) -> dict:
    return result.summary["ports"][name]


def test_qcn_traces_match_the_port_counters(tmp_path: Path) -> None:
    scenario = dcbsim.loads(QCN, "qcn.toml")
    asked = ["sw0:r0", "sw0:s0", "sw0:s1", "sw0:s2"]
    result = dcbsim.run(scenario, pcap=asked, pcap_dir=tmp_path, pcap_snaplen=100)
    assert sorted(os.listdir(tmp_path)) == sorted(traces.pcap_file_name(p) for p in asked)
    data = frames(tmp_path / "sw0-r0.pcap")
    assert len(data) == port(result, "sw0:r0")["tx_frames"] > 1000
    times = [t for t, _ in data]
    assert times == sorted(times) and 0 < times[-1] < 0.004
    nodes = scenario.node_names
    flows = set()
    for _, buf in data:
        assert len(buf) == 100, "cut at the snap length"
        eth = ethernet(buf)
        assert eth.vlan_tags[0].pri == 2, "PCP is the flow's priority"
        assert eth.dst == bytes([2, 0, 0, 0, 0, nodes.index("r0")])
        etype, flow, rest = payload_after_tags(buf)
        assert (etype, struct.unpack("!I", rest[:4])[0]) == (0x88B5, flow), "CN-TAG flow id = the flow"
        flows.add(flow)
    assert flows == {0, 1, 2}
    cpid = scenario.port_names.index("sw0:r0")
    cnms, offsets = 0, set()
    for i in range(3):
        for _, buf in frames(tmp_path / f"sw0-s{i}.pcap"):
            etype, flow, pdu = payload_after_tags(buf)
            assert etype == 0x22E7 and flow == i
            assert buf[0:6] == bytes([2, 0, 0, 0, 0, nodes.index(f"s{i}")]), "to the reaction point"
            assert ethernet(buf).vlan_tags[0].pri == 7
            head, got_cpid = struct.unpack("!HQ", pdu[:10])
            assert head >> 12 == 0 and 1 <= head & 0x3F <= 63, "version 0, QntzFb in 1..63"
            assert got_cpid == cpid
            q_off, q_delta = struct.unpack("!hh", pdu[10:14])
            assert q_off + 2 * q_delta > -3, "Fb = -(Qoff + w Qdelta) < 0 (w = 2, 64-byte units rounded)"
            offsets.add(q_off)
            assert struct.unpack("!H", pdu[14:16])[0] == 2, "encapsulated priority"
            assert pdu[16:22] == bytes([2, 0, 0, 0, 0, nodes.index("r0")]), "encapsulated destination"
            cnms += 1
    queued = sum(port(result, f"sw0:s{i}")["queued_frames"] for i in range(3))
    assert cnms + queued == port(result, "sw0:r0")["notifications"] > 10
    assert len(offsets) > 3, "cnmQOffset is the sample's"


@pytest.mark.parametrize("scheme, kinds", [
    ("smcc", {"cnm"}),
    ("ecm", {"cnm", 2, 3}),
    ("dsm", {1}),
    ("dcc", {3, 4}),
])
def test_each_schemes_feedback_is_carried(tmp_path: Path, scheme: str, kinds: set) -> None:
    text = QCN.replace('name = "qcn"', f'name = "{scheme}"').replace("priority = 2", "")
    scenario = dcbsim.loads(text, f"{scheme}.toml")
    senders = [f"sw0:s{i}" for i in range(3)]
    result = dcbsim.run(scenario, pcap=senders, pcap_dir=tmp_path)
    cpid = scenario.port_names.index("sw0:r0")
    seen, count = set(), 0
    for name in senders:
        for _, buf in frames(tmp_path / traces.pcap_file_name(name)):
            etype, flow, pdu = payload_after_tags(buf)
            assert flow is None, "no CN-TAG outside the QCN family"
            if etype == 0x22E7:
                head, got, _, _ = struct.unpack("!HQhh", pdu[:14])
                assert head & 0x3F == 0 and got == cpid, "queue state, not a quantized feedback"
                seen.add("cnm")
            else:
                assert etype == 0x88B6
                code, _, got, flow_index = struct.unpack("!BBQI", pdu[:14])
                assert got == cpid and flow_index == int(name[-1])
                seen.add(code)
            count += 1
    queued = sum(port(result, name)["queued_frames"] for name in senders)
    assert count + queued == port(result, "sw0:r0")["notifications"] > 0
    assert seen and seen <= kinds


def test_dctcp_segments_carry_seq_ack_and_ecn(tmp_path: Path) -> None:
    scenario = dcbsim.loads(DCTCP, "dctcp.toml")
    result = dcbsim.run(scenario, pcap={"sw0:r0": tmp_path / "data.pcap", "sw0:s0": tmp_path / "acks.pcap"})
    data = frames(tmp_path / "data.pcap")
    assert len(data) == port(result, "sw0:r0")["tx_frames"]
    ce = 0
    seqs: dict[int, list[int]] = {}
    for _, buf in data:
        eth = ethernet(buf)
        ip = eth.data
        assert isinstance(ip, dpkt.ip.IP) and ip.p == dpkt.ip.IP_PROTO_TCP
        assert ip.tos & 3 in (2, 3), "ECT(0) or CE"
        ce += ip.tos & 3 == 3
        tcp = ip.data if isinstance(ip.data, dpkt.tcp.TCP) else dpkt.tcp.TCP(bytes(ip.data))
        seqs.setdefault(tcp.sport, []).append(tcp.seq)
    marks = port(result, "sw0:r0")["ecn_marks"]
    assert 0 < ce <= marks
    for seq in seqs.values():
        steps = {b - a for a, b in pairwise(seq) if b > a}
        assert steps == {1500 - 58}, "sequence numbers advance by the segment's payload"
    acks = frames(tmp_path / "acks.pcap")
    assert acks
    flags = [dpkt.ethernet.Ethernet(buf).data.data.flags for _, buf in acks]
    assert all(f & dpkt.tcp.TH_ACK for f in flags)
    assert any(f & dpkt.tcp.TH_ECE for f in flags), "DCTCP echoes marks"


def test_pfc_and_rocev2_frames(tmp_path: Path) -> None:
    scenario = dcbsim.load(SCENARIOS / "examples" / "pfc_congestion_spreading.toml", ["run.duration_ms=5"])
    result = dcbsim.run(scenario, pcap=["right:left", "left:right", "victim:right"], pcap_dir=tmp_path)
    upstream = frames(tmp_path / "right-left.pcap")
    pauses = [buf for _, buf in upstream if buf[12:14] == b"\x88\x08"]
    assert len(upstream) == port(result, "right:left")["tx_frames"] > len(pauses), "PAUSEs and CNPs"
    sent = list(result.pfc["right:left"]["pause_sent"])
    classes = [0] * 8
    for buf in pauses:
        assert buf[0:6] == bytes.fromhex("0180c2000001")
        assert buf[6:12] == bytes([2, 0, 0, 0, 0, scenario.node_names.index("right")])
        opcode, enable = struct.unpack("!HH", buf[14:18])
        assert opcode == 0x0101
        quanta = struct.unpack("!8H", buf[18:34])
        for q in range(8):
            classes[q] += bool(enable >> q & 1)
            assert bool(enable >> q & 1) or quanta[q] == 0
    assert classes == list(sent) and sent[3] > 0
    data = frames(tmp_path / "left-right.pcap")
    udp = [dpkt.ethernet.Ethernet(buf).data.data for _, buf in data]
    assert all(isinstance(u, dpkt.udp.UDP) and u.dport == 4791 for u in udp)
    assert all(bytes(u.data)[0] == 0x04 for u in udp), "RoCEv2 RC Send Only"
    cnps = frames(tmp_path / "victim-right.pcap")
    opcodes = {bytes(dpkt.ethernet.Ethernet(buf).data.data.data)[0] for _, buf in cnps}
    assert cnps and opcodes == {0x81}, "CNPs"


def test_cli_writes_traces_beside_the_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "qcn.toml"
    scenario.write_text(QCN)
    out = tmp_path / "out"
    assert cli.main(["run", str(scenario), "--out", str(out), "--no-plots", "--pcap", "sw0:r0,sw0:s1",
                     "--pcap-snaplen", "64"]) == 0
    assert {"sw0-r0.pcap", "sw0-s1.pcap", "summary.json"} <= set(os.listdir(out))
    assert {len(buf) for _, buf in frames(out / "sw0-r0.pcap")} == {64}
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")], "no temporary left"


@pytest.mark.parametrize("ports, message", [
    ("r0:sw0x", "pcap: no port \"r0:sw0x\" (ports are node:peer); did you mean \"r0:sw0\"?"),
    ("sw0:r0,,sw0:s1", "--pcap: empty port name"),
])
def test_bad_ports_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], ports: str, message: str) -> None:
    scenario = tmp_path / "qcn.toml"
    scenario.write_text(QCN)
    out = tmp_path / "out"
    assert cli.main(["run", str(scenario), "--out", str(out), "--pcap", ports]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists() and not [n for n in os.listdir(tmp_path) if n.startswith(".")]


def test_bad_snaplen_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "qcn.toml"
    scenario.write_text(QCN)
    assert cli.main(["run", str(scenario), "--out", str(tmp_path / "o"), "--pcap", "sw0:r0", "--pcap-snaplen", "8"]) == 2
    assert "pcap_snaplen: must be 18..=262144 bytes (got 8)" in capsys.readouterr().err
    with pytest.raises(TypeError):
        dcbsim.run(dcbsim.loads(QCN), pcap=42)


def test_pcap_dir_is_made_for_known_ports_only(tmp_path: Path) -> None:
    with pytest.raises(dcbsim.ScenarioError, match="did you mean"):
        dcbsim.run(dcbsim.loads(QCN), pcap=["sw0:rr0"], pcap_dir=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
    dcbsim.run(dcbsim.loads(QCN), pcap=["sw0:r0"], pcap_dir=tmp_path / "new" / "dir")
    assert os.listdir(tmp_path / "new" / "dir") == ["sw0-r0.pcap"]


def test_an_interrupted_run_leaves_no_trace(tmp_path: Path) -> None:
    def stop(fraction: float) -> None:
        if fraction > 0.3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dcbsim.run(dcbsim.loads(QCN), progress=stop, pcap=["sw0:r0"], pcap_dir=tmp_path)
    assert os.listdir(tmp_path) == []


def test_a_killed_run_leaves_no_trace_under_its_final_name(tmp_path: Path) -> None:
    scenario = tmp_path / "qcn.toml"
    scenario.write_text(QCN)
    out = tmp_path / "out"
    long_run = ["--set", "run.duration_ms=1e9", "--set", "run.sample_interval_us=1e9"]
    proc = subprocess.Popen([sys.executable, "-m", "dcbsim.cli", "run", str(scenario), "--out", str(out), "--pcap", "sw0:r0",
                             *long_run], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    partial: list[Path] = []
    while not partial and time.monotonic() < deadline:
        time.sleep(0.2)
        partial = [p for p in tmp_path.rglob(".sw0-r0.pcap.tmp-*") if p.stat().st_size > 100_000]
    proc.kill()
    proc.communicate(timeout=30)
    assert partial, "the trace streams to a temporary file while the run goes"
    assert not out.exists() and not list(tmp_path.rglob("sw0-r0.pcap"))
    assert cli.main(["run", str(scenario), "--out", str(out), "--no-plots", "--pcap", "sw0:r0"]) == 0
    assert (out / "sw0-r0.pcap").exists()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")], "the killed run's stage is removed"
