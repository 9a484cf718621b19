"""Writing a run's outputs: whole or not at all."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
from typing import Any, Iterator

from dcbsim import __version__


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
        "command": argv,
    }


def write_json(path: str, data: Any) -> None:
    """Writes ``data`` as indented JSON, whole or not at all (a temporary file renamed)."""
    tmp = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=False, default=str)
        f.write("\n")
    os.replace(tmp, path)


@contextlib.contextmanager
def staged(outdir: str) -> Iterator[str]:
    """A temporary directory beside ``outdir``; its files move into ``outdir`` only if
    the block completes, otherwise it is removed and ``outdir`` is left as it was."""
    parent = os.path.dirname(os.path.abspath(outdir))
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=f".{os.path.basename(os.path.abspath(outdir))}.tmp-", dir=parent)
    try:
        yield stage
        os.makedirs(outdir, exist_ok=True)
        for name in sorted(os.listdir(stage)):
            os.replace(os.path.join(stage, name), os.path.join(outdir, name))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
