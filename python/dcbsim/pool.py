"""The local worker pool of sweeps, and handing tasks to any executor a few at a time.

Workers are spawned (forking a process whose libraries run threads, as polars does,
can deadlock) and exit when the sweep's process dies, however it dies: on Linux the
kernel kills them (``PR_SET_PDEATHSIG``), elsewhere a watchdog thread notices within a
second. A worker that dies breaks a :class:`~concurrent.futures.ProcessPoolExecutor`;
:func:`dispatch` then starts a fresh pool and runs the tasks that were in flight again,
one at a time, so that the one whose worker dies again is recorded as failed and the
others complete.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def _watch_parent(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(0.5)


def die_with_parent(parent: int) -> None:
    """Worker initializer: exit when process ``parent`` (the sweep) dies."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


class LocalPool:
    """A process pool of ``jobs`` workers (default: all cores) that can be restarted
    after a worker dies and killed at once when the sweep is interrupted."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs or os.cpu_count() or 1
        self.executor = self._new()

    def _new(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=self.jobs, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),))

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        """Submits ``fn(*args)`` to a worker."""
        return self.executor.submit(fn, *args)

    def restart(self) -> None:
        """Kills the workers and starts a fresh pool."""
        self.kill()
        self.executor = self._new()

    def kill(self) -> None:
        """Kills the workers at once, dropping what they were running."""
        processes = list((getattr(self.executor, "_processes", None) or {}).values())
        for p in processes:
            with contextlib.suppress(OSError, ValueError):  # already gone, or closed
                p.kill()
        self.executor.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            p.join(timeout=5)
        # Let the pool's manager thread see its workers gone and close its pipe now:
        # left running, it can race the interpreter's exit hook, which then writes to
        # that closed pipe and prints a traceback after a killed sweep's last line.
        manager = getattr(self.executor, "_executor_manager_thread", None)
        if manager is not None and manager is not threading.current_thread():
            manager.join(timeout=5)

    def shutdown(self) -> None:
        """Waits for the workers to finish and stops them (see :meth:`kill` for an
        interrupted sweep)."""
        self.executor.shutdown(wait=True, cancel_futures=True)


def local_pool(jobs: int | None = None) -> ProcessPoolExecutor:
    """A plain process pool of ``jobs`` spawned workers that die with this process."""
    return LocalPool(jobs).executor


def dispatch(
    pool: Executor | LocalPool,
    work: Callable[[T], R],
    tasks: Iterable[T],
    failed: Callable[[T, str], R],
) -> Iterator[R]:
    """Runs ``work`` on each task on ``pool``, a few tasks ahead of the results (the
    tasks are drawn lazily), yielding results as they complete. A task whose future
    raises gives ``failed(task, message)``; a dead worker of a :class:`LocalPool` is
    handled as the module says."""
    window = 2 * (getattr(pool, "jobs", None) or getattr(pool, "_max_workers", None) or os.cpu_count() or 1)
    source = iter(tasks)
    pending: dict[Future, T] = {}
    suspects: collections.deque[T] = collections.deque()
    while True:
        limit = 1 if suspects else window
        while len(pending) < limit:
            task = suspects.popleft() if suspects else next(source, None)
            if task is None:
                break
            pending[pool.submit(work, task)] = task
        if not pending:
            return
        # Wake up now and then: a signal delivered to another thread is only seen by the
        # main thread when it runs, so an endless wait would ignore Ctrl-C.
        done, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
        if not done:
            continue
        alone = len(pending) == 1
        broken = False
        for future in done:
            task = pending.pop(future)
            try:
                yield future.result()
            except BrokenProcessPool:
                if alone:
                    yield failed(task, "the worker process running it died (killed, or out of memory)")
                else:
                    suspects.append(task)
                broken = True
            except Exception as e:
                yield failed(task, f"{type(e).__name__}: {e}")
        if broken and isinstance(pool, LocalPool):
            suspects.extend(pending.values())
            pending.clear()
            pool.restart()
