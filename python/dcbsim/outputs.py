"""Writing a run's outputs: whole or not at all."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from dcbsim import __version__
from dcbsim._core import write_json as _write_json


def git_commit(directory: str) -> str | None:
    """The commit checked out where ``directory`` lies, if it is in a git work tree."""
    try:
        out = subprocess.run(
            ["git", "-C", directory or ".", "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def peak_memory_mib() -> float | None:
    """The peak resident memory of this process so far, MiB (``None`` where the
    platform does not tell). On Linux, the high-water mark of its own memory
    (``VmHWM``): ``getrusage``'s maximum keeps the parent's from before ``exec``, so a
    run started from a large process (a notebook's, a test runner's) reported that."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux counts kibibytes, macOS bytes.
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def manifest(scenario: Any, seed: int, wall_s: float, argv: list[str]) -> dict[str, Any]:
    """What a run directory records about how it was made."""
    return {
        "dcbsim_version": __version__,
        "git_commit": git_commit(os.path.dirname(os.path.abspath(scenario.file))),
        "scenario_file": scenario.file,
        "scenario": scenario.toml,
        "seed": seed,
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "wall_s": wall_s,
        "peak_memory_mib": peak_memory_mib(),
        "command": argv,
    }


def polars_compression(name: str) -> str:
    """Polars' name of the compression ``output.compression`` calls ``name`` (polars
    says ``uncompressed`` for ``none``), so that tables polars writes are compressed
    as the run's own."""
    return "uncompressed" if name == "none" else name


#: Containers this deep and deeper go on one line each (a port's or a flow's entry).
_ONE_LINE_DEPTH = 2


def write_json(path: str, data: Any) -> None:
    """Writes ``data`` as JSON, whole or not at all (a temporary file renamed): the
    outer levels indented, each container two levels down on one line (in a summary,
    one line per port, flow or arrival source). ``serde_json`` writes it, from the
    extension (:func:`dcbsim._core.write_json`): the summary of 100,000 flows took
    1.5-2.5 s through the ``json`` module's encoder. Keys keep their order; NaN and
    the infinities are written as ``null`` (JSON has no such numbers); floats as the
    shortest text that reads back as the same float; values JSON has no type for, as
    their ``str()``."""
    tmp = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.tmp")
    try:
        _write_json(tmp, data, _ONE_LINE_DEPTH)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    os.replace(tmp, path)


class OutError(Exception):
    """``--out`` cannot be used; ``status`` is 2 for bad input, 1 for the environment."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_stale_stages(outdir: str) -> None:
    """Removes the temporary folders (``.NAME.tmp-PID-*``) that runs writing ``outdir``
    left when they were killed: those whose process is gone, or that carry no process id."""
    parent = os.path.dirname(os.path.abspath(outdir))
    prefix = f".{os.path.basename(os.path.abspath(outdir))}.tmp-"
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if not name.startswith(prefix):
            continue
        pid = name[len(prefix):].split("-", 1)[0]
        if not pid.isdigit() or not _pid_alive(int(pid)):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)


def check_out(outdir: str, overwrite: bool) -> None:
    """Refuses an ``--out`` that cannot take a run's outputs, before the run: empty,
    not a directory, not empty (unless ``overwrite``), or not writable."""
    if not outdir.strip():
        raise OutError("--out: must name a directory (got an empty string)", 2)
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise OutError(f"--out {outdir}: exists and is not a directory", 2)
    if os.path.isdir(outdir) and os.listdir(outdir) and not overwrite:
        raise OutError(f"--out {outdir}: is not empty; pass --overwrite to replace its contents", 2)
    parent = os.path.dirname(os.path.abspath(outdir))
    try:
        os.makedirs(parent, exist_ok=True)
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as e:
        raise OutError(f"--out {outdir}: cannot write there: {e.strerror or e}", 1) from None


def _new_stage(outdir: str, tag: str = "") -> str:
    """A new empty directory beside ``outdir`` named as this process's stage of it
    (``.<outdir>.tmp-<pid>-<tag>…``), which the next run removes if this one dies."""
    parent = os.path.dirname(os.path.abspath(outdir))
    os.makedirs(parent, exist_ok=True)
    base = os.path.basename(os.path.abspath(outdir))
    return tempfile.mkdtemp(prefix=f".{base}.tmp-{os.getpid()}-{tag}", dir=parent)


@contextlib.contextmanager
def side_stage(outdir: str, what: str) -> Iterator[str]:
    """An empty temporary directory beside ``outdir`` for files written while a run
    goes (packet traces), removed on leaving; its name marks it as this process's,
    so a killed run's is removed as stale by the next run into ``outdir``."""
    stage = _new_stage(outdir, f"{what}-")
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


@contextlib.contextmanager
def staged(outdir: str, overwrite: bool = False) -> Iterator[str]:
    """A temporary directory beside ``outdir``; its files move into ``outdir`` only if
    the block completes, otherwise it is removed and ``outdir`` is left as it was. With
    ``overwrite`` the old contents of ``outdir`` are removed first, so no old file (a
    plot of another run, say) stays beside the new ones. Stale temporary directories of
    killed runs are removed."""
    remove_stale_stages(outdir)
    stage = _new_stage(outdir)
    try:
        yield stage
        if overwrite and os.path.isdir(outdir):
            shutil.rmtree(outdir)
        os.makedirs(outdir, exist_ok=True)
        for name in sorted(os.listdir(stage)):
            os.replace(os.path.join(stage, name), os.path.join(outdir, name))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def free_bytes(outdir: str) -> int | None:
    """Bytes free on the file system ``outdir`` is (or would be) on, or ``None`` where
    that cannot be told."""
    path = os.path.abspath(outdir)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def check_space(outdir: str, need: float) -> None:
    """Refuses, before the run, a run whose results (``need`` bytes, estimated) would not
    fit in the space free where ``outdir`` is."""
    free = free_bytes(outdir)
    if free is not None and need > free:
        raise OutError(
            f"--out {outdir}: the run would write about {need / 1e9:.3f} GB of results, above the {free / 1e9:.3f} GB "
            "free there; lengthen run.sample_interval_us, shorten the run, or write to a disk with more room", 2)
