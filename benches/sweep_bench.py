"""Sweep benchmark: a 16-run sweep on all cores vs one core, and the per-run overhead
of the Dask path vs the local pool.

    .venv/bin/python benches/sweep_bench.py

Each run is the dumbbell_10g benchmark (1 s simulated, about 0.12 s of engine time).
Pools are warmed up (workers started and dcbsim imported) before timing.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from dcbsim.sweeps import local_pool, run_sweep  # noqa: E402

SWEEP = f"""[sweep]
scenario = "{(ROOT / 'python' / 'dcbsim' / 'scenarios' / 'bench' / 'dumbbell_10g.toml').as_posix()}"
repeat = 16
[[sweep.var]]
name = "ms"
set = "run.duration_ms"
values = [1000.0]
"""


def _warm() -> None:
    import dcbsim.sweeps  # noqa: F401 - imports what a run needs
    time.sleep(0.2)


def timed(label: str, make_executor) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sweep.toml"
        path.write_text(SWEEP)
        executor = make_executor()
        for warm in [executor.submit(_warm) for _ in range(os.cpu_count() or 1)]:
            warm.result()
        started = time.perf_counter()
        run_sweep(path, os.path.join(tmp, "out"), executor)
        wall = time.perf_counter() - started
        executor.shutdown()
    print(f"{label:28s} {wall:6.2f} s for 16 runs ({1e3 * wall / 16:.0f} ms per run)")
    return wall


def main() -> None:
    cores = os.cpu_count() or 1
    one = timed("local pool, 1 process", lambda: local_pool(1))
    full = timed(f"local pool, {cores} processes", lambda: local_pool(cores))
    print(f"speed-up on {cores} cores: {one / full:.2f}x")
    try:
        import distributed
    except ImportError:
        print("dask.distributed is not installed: pip install 'dcbsim[dask]'")
        return
    with (
        distributed.LocalCluster(n_workers=cores, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
            dask = timed(f"Dask, {cores} worker processes", client.get_executor)
    print(f"Dask overhead per run vs the local pool: {1e3 * (dask - full) / 16:+.0f} ms")


if __name__ == "__main__":
    main()
