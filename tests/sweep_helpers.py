"""Work functions for sweep tests, importable by spawned workers."""

from __future__ import annotations

import os

from dcbsim.sweeps import execute


def crash_on_index_1(task):
    """Runs the task, except that the worker running run 1 dies on the spot."""
    if task.index == 1:
        os._exit(3)
    return execute(task)
