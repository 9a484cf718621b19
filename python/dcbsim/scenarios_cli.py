"""``dcbsim scenarios``: the shipped scenarios listed, and one printed to copy and edit."""

from __future__ import annotations

import argparse
from itertools import groupby

from dcbsim import shipped

#: What each folder's scenarios are for, and the command that takes them.
GROUPS = {
    "examples": "examples: dcbsim run NAME --out DIR",
    "papers": "the papers' set-ups (dcbsim repro PAPER runs them all)",
    "sweeps": "sweeps: dcbsim sweep NAME --out DIR",
    "bench": "the speed benchmarks",
}


def add_parser(sub: argparse._SubParsersAction, parser_class: type[argparse.ArgumentParser]) -> None:
    """Adds ``scenarios`` (the list) and ``scenarios show NAME`` to the command line."""
    p = sub.add_parser("scenarios", help="list the shipped scenarios; 'scenarios show NAME' prints one")
    actions = p.add_subparsers(dest="action", parser_class=parser_class)
    show = actions.add_parser("show", help="print a shipped scenario (redirect it to a file to edit a copy)")
    show.add_argument("name", help="a name from 'dcbsim scenarios'")


def run(args: argparse.Namespace) -> int:
    """Prints the list, or the one scenario asked for."""
    if args.action == "show":
        print(shipped.find(args.name).path.read_text(encoding="utf-8"), end="")
    else:
        print("\n".join(listing()))
    return 0


def listing() -> list[str]:
    """The lines of ``dcbsim scenarios``: the scenarios of each folder (examples first)
    under a heading, each by its shortest name with its description."""
    catalog = shipped.catalog()
    present = {s.name.split("/")[0] for s in catalog}
    tops = [t for t in GROUPS if t in present] + sorted(present - set(GROUPS))
    column = max(len(s.short) for s in catalog) + 6  # where the descriptions start
    lines: list[str] = []
    for top in tops:
        lines += ["", GROUPS.get(top, top) + ":"]
        members = [s for s in catalog if s.name.split("/")[0] == top]
        for group, inner in groupby(members, key=lambda s: s.group):
            indent = "  " if group == top else "    "
            if group != top:
                lines.append(f"  {group.split('/', 1)[1]}:")
            lines += [f"{indent}{s.short:<{column - len(indent)}}{s.description}".rstrip() for s in inner]
    lines += ["", ("'dcbsim scenarios show NAME' prints one. A NAME works wherever a scenario file does; "
                   "a file of that name wins.")]
    return lines[1:]
