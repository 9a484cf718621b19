#!/usr/bin/env python3
"""Builds dcbsim with profile-guided optimization (PGO): an instrumented build runs
every shipped scenario once, and the release build is then laid out by what those
runs did (which branches go which way, which code is hot).

    python3 benches/pgo.py             # target/pgo/release/dcbsim-bench
    python3 benches/pgo.py --check     # and check it reports what the plain build does
    python3 benches/pgo.py --install   # and install the Python package in .venv so too

Results do not change: PGO moves code, never arithmetic (`--check` compares the digest
of every scenario's report with the plain release build's). It needs `llvm-profdata`
of the LLVM major version rustc is built on (`rustc -vV`): rustup's `llvm-tools`
component, Debian's `llvm-<major>` package, or the path in `$LLVM_PROFDATA`.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PGO = os.path.join(ROOT, "target", "pgo")
SCENARIOS = os.path.join(ROOT, "python", "dcbsim", "scenarios")
BENCH = os.path.join(SCENARIOS, "bench")

# Beside every shipped scenario, the benchmark variants `make bench` runs: jittered
# senders and incast at thousands of senders take paths the shipped files do not.
VARIANTS = [
    [os.path.join(BENCH, "dumbbell_10g.toml"), "--set", "flows[0].jitter=0.1"],
    [os.path.join(BENCH, "incast_jitter.toml"), "--set", "topology.servers=512", "--set", "flows[0].rate_gbps=0.0244140625"],
    [os.path.join(BENCH, "incast_jitter.toml"), "--set", "topology.servers=4096",
     "--set", "flows[0].rate_gbps=0.0030517578125", "--set", "run.duration_ms=300"],
]


class PgoError(Exception):
    """A step that cannot go on, with what to do about it."""


def llvm_major(rustc_version: str) -> int:
    """The LLVM major version in the output of `rustc -vV`."""
    found = re.search(r"^LLVM version: (\d+)\.", rustc_version, re.MULTILINE)
    if not found:
        raise PgoError("rustc -vV names no LLVM version: is this rustc built on LLVM?")
    return int(found.group(1))


def profdata_candidates(major: int, sysroot: str, host: str) -> list[str]:
    """Where an `llvm-profdata` of LLVM `major` may be, most specific first."""
    found = [os.environ.get("LLVM_PROFDATA", "")]
    found.append(os.path.join(sysroot, "lib", "rustlib", host, "bin", "llvm-profdata"))
    found.append(shutil.which(f"llvm-profdata-{major}") or "")
    found.append(f"/usr/lib/llvm-{major}/bin/llvm-profdata")
    found.append(shutil.which("llvm-profdata") or "")
    return [path for path in found if path]


def find_profdata() -> str:
    """An `llvm-profdata` that reads what this rustc's instrumented builds write."""
    version = run_text(["rustc", "-vV"])
    major = llvm_major(version)
    host = re.search(r"^host: (\S+)", version, re.MULTILINE)
    sysroot = run_text(["rustc", "--print", "sysroot"]).strip()
    for path in profdata_candidates(major, sysroot, host.group(1) if host else ""):
        if not os.access(path, os.X_OK):
            continue
        said = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        if re.search(rf"LLVM version {major}\.", said):
            return path
    raise PgoError(f"no llvm-profdata for LLVM {major} (rustc's): `rustup component add llvm-tools`, "
                   f"install llvm-{major}, or set LLVM_PROFDATA")


def run_text(cmd: list[str], env: dict[str, str] | None = None) -> str:
    """Runs `cmd` and returns its standard output; a failure names the command."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    except OSError as err:
        raise PgoError(f"{cmd[0]}: cannot run it ({err.strerror})") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise PgoError(f"{' '.join(cmd[:4])} ... failed:\n" + "\n".join(tail))
    return done.stdout


def with_rustflags(flags: str) -> dict[str, str]:
    """The environment with `flags` added to RUSTFLAGS."""
    env = dict(os.environ)
    env["RUSTFLAGS"] = f"{env.get('RUSTFLAGS', '')} {flags}".strip()
    return env


def training_runs() -> list[list[str]]:
    """The runs the instrumented build makes: every scenario with a run of its own
    (sweep files name others), then the benchmark variants."""
    files = sorted(glob.glob(os.path.join(SCENARIOS, "**", "*.toml"), recursive=True))
    runs = [[f] for f in files if os.sep + "sweeps" + os.sep not in f]
    return runs + VARIANTS


def train(raw: str) -> None:
    """Builds the instrumented bench and runs the training set, writing profiles to `raw`."""
    shutil.rmtree(raw, ignore_errors=True)
    gen = os.path.join(PGO, "gen")
    env = with_rustflags(f"-Cprofile-generate={raw}")
    print("pgo: building the instrumented engine", file=sys.stderr)
    run_text(["cargo", "build", "--release", "--quiet", "-p", "dcbsim-bench", "--target-dir", gen], env)
    bench = os.path.join(gen, "release", "dcbsim-bench")
    runs = training_runs()
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(raw, "%m_%p.profraw"))
    live = sys.stderr.isatty()
    for k, args in enumerate(runs):
        if live:
            print(f"\rpgo: training run {k + 1} of {len(runs)}", end="", file=sys.stderr)
        run_text([bench, *args, "--repeat", "1"], env)
    print(f"\rpgo: {len(runs)} training runs done" if live else f"pgo: {len(runs)} training runs done", file=sys.stderr)


def merge(profdata: str, raw: str, out: str) -> None:
    """Merges the raw profiles into `out`, written whole (a temporary file renamed)."""
    parts = glob.glob(os.path.join(raw, "*.profraw"))
    if not parts:
        raise PgoError(f"the training runs wrote no profile in {raw}")
    run_text([profdata, "merge", "-o", out + ".tmp", *parts])
    os.replace(out + ".tmp", out)


def digests(binary: str) -> list[str]:
    """The digest example's line per training run (see `benches/examples/digest.rs`)."""
    return run_text([binary, *[arg for args in training_runs() for arg in args]]).splitlines()


def check(profile_env: dict[str, str]) -> None:
    """Compares every scenario's report digest between the plain and the PGO build."""
    print("pgo: checking the reports against the plain build", file=sys.stderr)
    run_text(["cargo", "build", "--release", "--quiet", "-p", "dcbsim-bench", "--example", "digest"])
    run_text(["cargo", "build", "--release", "--quiet", "-p", "dcbsim-bench", "--example", "digest",
              "--target-dir", PGO], profile_env)
    plain = digests(os.path.join(ROOT, "target", "release", "examples", "digest"))
    guided = digests(os.path.join(PGO, "release", "examples", "digest"))
    differ = [f"  {a}\n  {b}" for a, b in zip(plain, guided) if a != b]
    if differ or len(plain) != len(guided):
        raise PgoError("the PGO build reports differently:\n" + "\n".join(differ))
    print(f"pgo: {len(plain)} reports identical", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare every scenario's report with the plain build's")
    parser.add_argument("--install", action="store_true", help="also install the Python package in .venv with the profile")
    opts = parser.parse_args()
    try:
        profdata = find_profdata()
        raw, merged = os.path.join(PGO, "raw"), os.path.join(PGO, "dcbsim.profdata")
        train(raw)
        merge(profdata, raw, merged)
        profile_env = with_rustflags(f"-Cprofile-use={merged}")
        print("pgo: building the optimized engine", file=sys.stderr)
        run_text(["cargo", "build", "--release", "--quiet", "-p", "dcbsim-bench", "--target-dir", PGO], profile_env)
        if opts.check:
            check(profile_env)
        if opts.install:
            print("pgo: installing the Python package", file=sys.stderr)
            python = os.path.join(ROOT, ".venv", "bin", "python")
            if not os.access(python, os.X_OK):
                raise PgoError("no .venv: run `make install` first")
            run_text([python, "-m", "pip", "install", "--quiet", "-e", ".[test]"], dict(profile_env, CARGO_TARGET_DIR=PGO))
    except PgoError as err:
        print(f"pgo.py: {err}", file=sys.stderr)
        sys.exit(2)
    print(os.path.join(PGO, "release", "dcbsim-bench"))


if __name__ == "__main__":
    main()
