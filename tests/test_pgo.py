"""The profile-guided build (`benches/pgo.py`): what it trains on, which
`llvm-profdata` it takes, and, end to end (slow), that its engine reports exactly
what the plain release build does."""

import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benches", "pgo.py")


def load_pgo():
    spec = importlib.util.spec_from_file_location("pgo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pgo = load_pgo()

RUSTC_VV = """rustc 1.95.0 (59807616e 2026-04-14)
binary: rustc
commit-hash: 59807616e1fa2540724bfbac14d7976d7e4a3860
host: x86_64-unknown-linux-gnu
release: 1.95.0
LLVM version: 22.1.2
"""


def test_the_llvm_major_version_is_read_from_rustc():
    assert pgo.llvm_major(RUSTC_VV) == 22
    with pytest.raises(pgo.PgoError, match="no LLVM version"):
        pgo.llvm_major("rustc 1.95.0\nhost: x86_64-unknown-linux-gnu\n")


def test_the_named_profdata_comes_first_then_rustups(monkeypatch):
    monkeypatch.setenv("LLVM_PROFDATA", "/opt/llvm/bin/llvm-profdata")
    found = pgo.profdata_candidates(22, "/sysroot", "x86_64-unknown-linux-gnu")
    assert found[0] == "/opt/llvm/bin/llvm-profdata"
    assert found[1] == "/sysroot/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-profdata"
    assert "/usr/lib/llvm-22/bin/llvm-profdata" in found


def test_training_covers_every_shipped_run_and_no_sweep():
    runs = pgo.training_runs()
    files = {args[0] for args in runs}
    find = ["find", "python/dcbsim/scenarios", "-name", "*.toml"]
    shipped = subprocess.run(find, cwd=ROOT, capture_output=True, text=True).stdout.split()
    for f in shipped:
        inside = os.path.join(ROOT, f) in files
        assert inside == ("/sweeps/" not in f"/{f}"), f
    assert all(os.path.exists(args[0]) for args in runs)
    # The variants the shipped files lack: jitter on the dumbbell, thousands of senders.
    assert any("flows[0].jitter=0.1" in args for args in runs)
    assert any("topology.servers=4096" in args for args in runs)


def profdata_available() -> bool:
    try:
        pgo.find_profdata()
    except (pgo.PgoError, FileNotFoundError):
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not profdata_available(), reason="no llvm-profdata of rustc's LLVM version")
def test_the_guided_build_reports_what_the_plain_build_does():
    done = subprocess.run([sys.executable, SCRIPT, "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "reports identical" in done.stderr
    assert os.access(done.stdout.strip(), os.X_OK)


def test_a_missing_tool_is_named_not_a_traceback():
    with pytest.raises(pgo.PgoError, match="no-such-cargo: cannot run it"):
        pgo.run_text(["no-such-cargo", "build"])
