"""Sweep files: which runs a parameter sweep is made of (the format: docs/sweeps.md).

A sweep is a ``[sweep]`` table, in a file of its own that names a scenario, or inside
the scenario file itself::

    [sweep]
    scenario = "../examples/quickstart.toml"   # relative to this file, or a shipped scenario's name
                        # ("quickstart"); omit inside a scenario
    seed = 1            # base seed; run i gets a seed derived from (seed, i)
    repeat = 3          # repetitions of every combination
    constraint = "qeq <= 64 or rai > 1"        # skip the combinations where it is false

    [[sweep.var]]
    name = "qeq"
    set = "scheme.q_eq_kb"                     # the key path it overrides
    values = [16, 33, 64]

    [[sweep.var]]
    name = "rai"
    set = "scheme.r_ai_mbps"
    range = { start = 0.5, stop = 2.0, step = 0.5 }   # stop included

    [[sweep.var]]
    name = "r1"
    set = "flows[0].rate_mbps"
    values = [900, 700]
    group = "start"                            # variables of one group advance together

Variables of different groups (a variable without ``group`` is its own group) combine
as a grid.
"""

from __future__ import annotations

import builtins
import hashlib
import itertools
import keyword
import math
import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from dcbsim import shipped
from dcbsim.constraint import Constraint, ConstraintError

MASK = (1 << 64) - 1
#: The most bytes of a sweep file read (as of a scenario file).
MAX_FILE_BYTES = 256 << 20


class SweepError(ValueError):
    """A sweep file that cannot be expanded; the message names the file and the key."""


def derive_seed(base: int, index: int) -> int:
    """A well-spread 63-bit seed for run ``index`` of a sweep with seed ``base``
    (SplitMix64 of both): different runs differ, the same run gets it again."""
    x = (base * 0x9E3779B97F4A7C15 + index + 1) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return (x ^ (x >> 31)) >> 1


@dataclass(frozen=True)
class Var:
    """One swept variable."""

    name: str
    path: str
    values: tuple[Any, ...]
    group: str


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep."""

    index: int
    combination: int
    repetition: int
    seed: int
    values: dict[str, Any]
    overrides: tuple[str, ...]


@dataclass
class Sweep:
    """A sweep: a scenario, variables, constraint, repetitions and base seed."""

    file: str
    scenario: str
    vars: list[Var] = field(default_factory=list)
    repeat: int = 1
    seed: int = 1
    constraint: str | None = None

    def iter_combinations(self) -> Iterator[dict[str, Any]]:
        """The grid of variable values (groups in lock-step), constraint applied, one
        combination at a time: a grid of 10^10 points costs no memory."""
        groups: dict[str, list[Var]] = {}
        for v in self.vars:
            groups.setdefault(v.group, []).append(v)
        axes = [range(len(members[0].values)) for members in groups.values()]
        members = list(groups.values())
        check = self._constraint()
        for point in itertools.product(*axes):
            combo = {v.name: v.values[i] for group, i in zip(members, point) for v in group}
            if check is None or self._allowed(check, combo):
                yield combo

    def combinations(self) -> list[dict[str, Any]]:
        """The grid as a list (see :meth:`iter_combinations`)."""
        return list(self.iter_combinations())

    def _constraint(self) -> Constraint | None:
        if not self.constraint:
            return None
        try:
            return Constraint(self.constraint, {v.name for v in self.vars})
        except ConstraintError as e:
            raise SweepError(f"{self.file}: sweep.constraint: {e}") from None

    def _allowed(self, check: Constraint, values: dict[str, Any]) -> bool:
        try:
            return check.allows(values)
        except ConstraintError as e:
            raise SweepError(f"{self.file}: sweep.constraint: {self.constraint!r} {e}") from None

    def size(self) -> int:
        """The number of runs before the constraint: the product of the axes, repeated."""
        sizes = {v.group: len(v.values) for v in self.vars}
        return math.prod(sizes.values()) * self.repeat

    def iter_runs(self) -> Iterator[RunSpec]:
        """Every run, in order: each combination, repeated; produced lazily."""
        index = 0
        for c, values in enumerate(self.iter_combinations()):
            overrides = tuple(f"{v.path}={_toml_value(values[v.name])}" for v in self.vars)
            for rep in range(self.repeat):
                yield RunSpec(index, c, rep, derive_seed(self.seed, index), values, overrides)
                index += 1

    def runs(self) -> list[RunSpec]:
        """Every run as a list (see :meth:`iter_runs`)."""
        return list(self.iter_runs())


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _range(file: str, key: str, spec: Any) -> tuple[Any, ...]:
    if not isinstance(spec, dict) or set(spec) - {"start", "stop", "step"} or "stop" not in spec:
        raise SweepError(f"{file}: {key}: a range is {{ start = a, stop = b, step = c }}")
    start, stop, step = spec.get("start", 0), spec["stop"], spec.get("step", 1)
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in (start, stop, step)) or step <= 0:
        raise SweepError(f"{file}: {key}: start, stop and step must be finite numbers, step > 0")
    if (stop - start) / step > 1e6:
        raise SweepError(f"{file}: {key}: the range has more than 100000 values (1 to 100000 allowed)")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count < 1 or count > 100_000:
        raise SweepError(f"{file}: {key}: the range has {count} values (1 to 100000 allowed)")
    values = [start + i * step for i in range(count)]
    return tuple(int(v) if all(isinstance(x, int) for x in (start, step)) else round(v, 12) for v in values)


#: Names a constraint gives a meaning of its own: a variable may not take them.
_LANGUAGE_NAMES = frozenset({"True", "False", "None", "math", "inf", "pi", "nan", "abs", "min", "max", "round"})


def _var(file: str, i: int, table: Any) -> Var:
    key = f"sweep.var[{i}]"
    if not isinstance(table, dict):
        raise SweepError(f"{file}: {key}: must be a table ([[sweep.var]])")
    unknown = set(table) - {"name", "set", "values", "range", "group"}
    if unknown:
        raise SweepError(f"{file}: {key}.{sorted(unknown)[0]}: unknown key; allowed: name, set, values, range, group")
    name, path = table.get("name"), table.get("set")
    if not isinstance(name, str) or not name.isidentifier():
        raise SweepError(f"{file}: {key}.name: must be a name (letters, digits, _)")
    from dcbsim.sweeptables import reserved_names

    if name in reserved_names():
        raise SweepError(f"{file}: {key}.name: \"{name}\" names a column of the sweep's tables; choose another name")
    if name in _LANGUAGE_NAMES or keyword.iskeyword(name) or name in dir(builtins) or name.startswith("__"):
        raise SweepError(f"{file}: {key}.name: \"{name}\" is a name of the constraint language or of Python; choose another name")
    if not isinstance(path, str) or not path:
        raise SweepError(f"{file}: {key}.set: must be a key path such as \"scheme.q_eq_kb\"")
    if ("values" in table) == ("range" in table):
        raise SweepError(f"{file}: {key}: give values or range (one of them)")
    values = _range(file, f"{key}.range", table["range"]) if "range" in table else table["values"]
    if not isinstance(values, (list, tuple)) or not values:
        raise SweepError(f"{file}: {key}.values: must be a non-empty list")
    return Var(name, path, tuple(values), str(table.get("group", f"_{name}")))


def _swept_file(file: str, scenario: str) -> str:
    """The file of the scenario a sweep names: a path relative to the sweep file or,
    when there is no file there, the shipped scenario of that name (so that a copy of
    a shipped sweep still finds its scenario); a missing file is left to the loader to
    report."""
    beside = os.path.join(os.path.dirname(file), scenario)
    if os.path.exists(beside) or os.path.isabs(scenario) or scenario.startswith((".", "~")):
        return beside
    try:
        return str(shipped.find(scenario).path)
    except shipped.UnknownScenario:
        return beside


def load(path: str | os.PathLike[str]) -> Sweep:
    """Reads a sweep file (or a scenario file with a ``[sweep]`` table), or the shipped
    sweep of that name when no such file exists."""
    try:
        file = shipped.resolve(path, "sweep")
    except shipped.UnknownScenario as e:
        raise SweepError(str(e)) from None
    try:
        with open(file, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)  # a device that never ends is read no further
        if len(data) > MAX_FILE_BYTES:
            raise SweepError(f"{file}: cannot read the sweep: it is larger than {MAX_FILE_BYTES >> 20} MiB")
        doc = tomllib.loads(data.decode("utf-8"))
    except OSError as e:
        raise SweepError(f"{file}: cannot read the sweep: {e.strerror}") from None
    except UnicodeDecodeError:
        raise SweepError(f"{file}: cannot read the sweep: it is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{file}: invalid TOML: {e}") from None
    table = doc.get("sweep")
    if not isinstance(table, dict):
        raise SweepError(f"{file}: sweep: a [sweep] table is required")
    unknown = set(table) - {"scenario", "seed", "repeat", "constraint", "var"}
    if unknown:
        raise SweepError(f"{file}: sweep.{sorted(unknown)[0]}: unknown key; allowed: scenario, seed, repeat, constraint, var")
    scenario = table.get("scenario")
    if scenario is None and "run" in doc:
        scenario = file
    elif isinstance(scenario, str):
        scenario = _swept_file(file, scenario)
    else:
        raise SweepError(f"{file}: sweep.scenario: the scenario file to sweep is required")
    repeat, seed = table.get("repeat", 1), table.get("seed", 1)
    if not isinstance(repeat, int) or isinstance(repeat, bool) or not 1 <= repeat <= 100_000:
        raise SweepError(f"{file}: sweep.repeat: must be an integer in 1..=100000")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SweepError(f"{file}: sweep.seed: must be an integer >= 0")
    constraint = table.get("constraint")
    if constraint is not None and (not isinstance(constraint, str) or not constraint.strip()):
        raise SweepError(f"{file}: sweep.constraint: must be an expression in a string (leave the key out for none)")
    variables = [_var(file, i, t) for i, t in enumerate(table.get("var", []))]
    names = [v.name for v in variables]
    if len(set(names)) != len(names):
        raise SweepError(f"{file}: sweep.var: two variables share a name")
    for group in {v.group for v in variables}:
        sizes = {len(v.values) for v in variables if v.group == group}
        if len(sizes) > 1:
            raise SweepError(f"{file}: sweep.var: the variables of group {group!r} must have as many values each")
    sweep = Sweep(file, scenario, variables, repeat, seed, constraint)
    sweep._constraint()  # refuse a bad constraint when the sweep is loaded
    return sweep


def run_key(scenario_toml: str, seed: int) -> str:
    """The key of a run: a hash of the scenario as run and its seed."""
    return hashlib.sha256(f"{seed}\n{scenario_toml}".encode()).hexdigest()[:16]
