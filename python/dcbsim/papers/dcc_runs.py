"""The DCC paper's runs and measures, shared by its claims (``dcc.py``) and its figures
(``dcc_figures.py``). Each measure is a median over seeds."""

from __future__ import annotations

import numpy as np

from dcbsim.analysis.dcc import Aimd
from dcbsim.papers import Runs
from dcbsim.results import Result

SEEDS = 5
MB = 1e6
#: The bottleneck (and congestion point) of the DCC scenarios.
CORE = "cs:es5"
T_EQ, T_SC = 50_000, 100_000
#: Table VI: (SAN setting, LAN setting, the paper's simulated ratio).
EXP3_CASES = ((Aimd(1.5, 0.8), Aimd(1.0, 0.5), 2.04), (Aimd(1.0, 0.8), Aimd(1.0, 0.5), 1.61))
#: Fig. 8: LAN settings against SAN AIMD(1, 0.5) (the paper's axes: a ≤ 1, b ≤ 0.5).
FIG8_GRID = tuple(Aimd(a, b) for b in (0.2, 0.35, 0.5) for a in (0.2, 0.4, 0.6, 0.8, 1.0))
#: Fig. 11: bytes between samples.
EXP4_BYTES = (2200, 2700, 3600, 4300)
#: Table VIII: ((LAN, SAN, IPC) settings, the paper's achieved SAN and IPC ratios, label).
EXP5_SETTINGS = (
    ((Aimd(1.0, 0.5), Aimd(1.2, 0.7), Aimd(1.9, 0.7)), (1.46, 1.78), "SAN (1.2, 0.7), IPC (1.9, 0.7)"),
    ((Aimd(1.0, 0.5), Aimd(1.6, 0.6), Aimd(1.6, 0.75)), (1.44, 1.77), "SAN (1.6, 0.6), IPC (1.6, 0.75)"),
    ((Aimd(1.0, 0.5), Aimd(1.6, 0.6), Aimd(1.9, 0.7)), (1.44, 1.76), "SAN (1.6, 0.6), IPC (1.9, 0.7)"),
)
EXP5_TARGET = (1.0, 1.4, 1.8)


def aimd_overrides(settings: tuple[Aimd, ...]) -> tuple[str, ...]:
    """``--set`` overrides giving ``flows[i]`` the i-th AIMD setting."""
    out: list[str] = []
    for i, s in enumerate(settings):
        out += [f"flows[{i}].aimd.a={s.a}", f"flows[{i}].aimd.b={s.b}"]
    return tuple(out)


def each_seed(runs: Runs, scenario: str, overrides: tuple[str, ...] = ()) -> list[Result]:
    """The runs of ``scenario`` over the seeds."""
    return [runs.get(scenario, overrides, seed) for seed in runs.seeds(SEEDS)]


def delivered_mb(runs: Runs, scenario: str) -> dict[str, float]:
    """Each source's delivered MB, the total and the MB dropped at the core."""
    port = "cs:es" if scenario in ("exp1_ethernet", "exp1_ecm") else CORE
    rows = []
    for r in each_seed(runs, scenario):
        s = r.summary
        sr1, sr2 = (s["flows"][n]["delivered_bytes"] / MB for n in ("sr1", "sr2"))
        rows.append((sr1, sr2, sr1 + sr2, s["ports"][port]["dropped_bytes"] / MB))
    sr1, sr2, total, dropped = np.median(np.array(rows), axis=0)
    return {"sr1": sr1, "sr2": sr2, "total": total, "dropped": dropped}


def queue_std_kb(runs: Runs, scenario: str, port: str = CORE) -> float:
    """The exact time-weighted standard deviation of the queue over the run, KB."""
    return float(np.median([r.summary["ports"][port]["std_bytes"] / 1e3 for r in each_seed(runs, scenario)]))


def exp2_counts(runs: Runs) -> dict[str, int]:
    """Exp. 2's frame counts (seed 1, like the paper's single run) and queue maxima."""
    r = runs.get("exp2_misbehaving")
    s = r.summary
    san, lan, core = s["flows"]["sr1"], s["flows"]["sr2"], s["ports"][CORE]
    return {
        "san_sent": san["sent_frames"], "san_delivered": san["delivered_frames"], "san_dropped": san["dropped_frames"],
        "san_in_network": san["in_network_frames"],
        "lan_sent": lan["sent_frames"], "lan_delivered": lan["delivered_frames"], "lan_dropped": lan["dropped_frames"],
        "lan_in_network": lan["in_network_frames"],
        "cs_dropped": core["dropped_frames"],
        "sampled_max": int(r.ports[CORE].queue_bytes.max()), "exact_max": int(core["max_bytes"]),
    }


def ratio(runs: Runs, san: Aimd, lan: Aimd) -> float:
    """SAN : LAN delivered bytes (Exp. 3 scenario: flows[0] SAN, flows[1] LAN)."""
    results = each_seed(runs, "exp3_ratio", aimd_overrides((san, lan)))
    return float(np.median([r.flows["sr1"].stats["delivered_bytes"] / r.flows["sr2"].stats["delivered_bytes"] for r in results]))


def exp4_std_kb(runs: Runs, sample_bytes: int) -> float:
    """Std of the core's queue, sampled every 1 ms over 0.1-1 s, KB."""
    def std(r: Result) -> float:
        return float(r.ports[CORE].queue_bytes[r.time_s > 0.1].std() / 1e3)
    return float(np.median([std(r) for r in each_seed(runs, "exp4_sampling", (f"scheme.sample_bytes={sample_bytes}",))]))


def exp5_ratios(runs: Runs, setting: int) -> tuple[float, float, float]:
    """LAN : SAN : IPC delivered bytes, LAN as 1."""
    rows = []
    for r in each_seed(runs, "exp5_case_study", aimd_overrides(EXP5_SETTINGS[setting][0])):
        lan, san, ipc = (r.flows[n].stats["delivered_bytes"] for n in ("lan", "san", "ipc"))
        rows.append((san / lan, ipc / lan))
    s, i = np.median(np.array(rows), axis=0)
    return 1.0, float(s), float(i)
