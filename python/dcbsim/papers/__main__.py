"""Writes the reproduction pages: ``python -m dcbsim.papers [PAPER ...] [--out DIR] [--quick]``."""

from __future__ import annotations

import argparse
import os

from dcbsim.papers import registry, report


def main() -> None:
    """Checks the claims of the given papers (default: all) and writes their pages."""
    parser = argparse.ArgumentParser(prog="python -m dcbsim.papers")
    parser.add_argument("papers", nargs="*", help=f"papers (default: all of {', '.join(registry())})")
    parser.add_argument("--out", default="docs/reproduction", help="directory of the pages")
    parser.add_argument("--quick", action="store_true", help="fewer seeds, for a smoke check")
    args = parser.parse_args()
    for paper in args.papers or list(registry()):
        report(paper, args.out, args.quick, os.path.join(args.out, "figures"))
        print(f"wrote {os.path.join(args.out, paper + '.md')}")


if __name__ == "__main__":
    main()
