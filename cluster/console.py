"""`cluster-designer COMMAND …` and `python -m cluster COMMAND …`: the pure command-line tools under one name.

Pure: never imports Django or designer/ (tests/cluster/test_console.py checks). Each command is the ``main(argv)``
of its module, imported only when it runs; the installed ``cluster-designer`` (designer/console.py) adds the web
app's commands to these. Exit status: the command's own (0 done, 1 refused, 2 bad usage); 2 and a message naming
the commands for an unknown or missing command.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    name: str
    summary: str  # one line for `--help`
    target: str  # "module:function", a main(argv: list[str]) -> int, imported when the command runs

    def run(self, argv: list[str]) -> int:
        module, _, function = self.target.partition(":")
        return getattr(importlib.import_module(module), function)(argv)


PURE_COMMANDS: tuple[Command, ...] = (
    Command(
        "evaluate",
        "compute a design from a requirements file (fabric, BOM, TCO)",
        "cluster.cli:main",
    ),
    Command(
        "simulate",
        "simulate a design's workload on its batch nodes",
        "cluster.simulate_cli:main",
    ),
    Command(
        "capacity",
        "smallest size of a design meeting a queueing target, with TCO",
        "cluster.capacity_cli:main",
    ),
    Command(
        "calibrate",
        "fit a design's collective model to an nccl-tests log",
        "cluster.calibrate_cli:main",
    ),
    Command(
        "calculate",
        "run a tenancy, MIG or RoCE calculator (prints JSON)",
        "scheduling.cli:main",
    ),
    Command(
        "failures",
        "what a failed switch costs, and k random switch failures",
        "cluster.failures:main",
    ),
    Command(
        "phases",
        "phased build-out: BOM per phase, dark ports, re-patched cables",
        "cluster.phases:main",
    ),
    Command(
        "search",
        "the cheapest designs meeting constraints, across fabric families",
        "cluster.search_cli:main",
    ),
)

DESCRIPTION = "Design GPU training clusters: fabric sizing, BOM, power, TCO, scheduling and queue simulation."


def parser(commands: Sequence[Command], prog: str, epilog: str = "") -> argparse.ArgumentParser:
    """The top-level parser: its --help lists every command with its one-line summary (each command parses its
    own arguments, so the sub-parsers only name them)."""
    width = max(len(c.name) for c in commands) + 2
    listing = "\n".join(f"  {c.name:<{width}}{c.summary}" for c in commands)
    p = argparse.ArgumentParser(
        prog=prog,
        usage=f"{prog} [-h] COMMAND [ARGUMENTS …]",
        description=f"{DESCRIPTION}\n\ncommands:\n{listing}",
        epilog="\n".join([f"`{prog} COMMAND --help` shows a command's options.", *([epilog] if epilog else [])]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True, help=argparse.SUPPRESS)
    for c in commands:
        sub.add_parser(c.name, add_help=False)
    return p


def dispatch(argv: Sequence[str] | None, commands: Sequence[Command], prog: str, epilog: str = "") -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    by_name = {c.name: c for c in commands}
    try:
        if args and args[0] in by_name:
            return by_name[args[0]].run(args[1:])
        p = parser(commands, prog, epilog)
        if args and not args[0].startswith("-"):
            hint = ""
            if args[0].endswith((".yaml", ".yml", ".json")) and "evaluate" in by_name:
                hint = f" (to evaluate a requirements file: {prog} evaluate {args[0]})"
            p.error(f"unknown command {args[0]!r}; the commands: {', '.join(by_name)}{hint}")
        p.parse_args(args)  # --help: the list (exit 0); nothing or an option: usage and exit 2
        p.error("give a command")  # not reached: the sub-parser is required
    except SystemExit as exc:  # argparse and Django exit; a caller in-process gets the status
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch(argv, PURE_COMMANDS, prog="python -m cluster")
