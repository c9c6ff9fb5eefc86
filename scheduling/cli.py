"""`cluster-designer calculate NAME [input=value …]` — one of the calculators (scheduling/calculators.py) from the
shell, pure: no Django. Prints the result as JSON; refusals exit 1 with one line per input."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from scheduling import SchedulerInputError
from scheduling.calculators import CALCULATORS, run


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cluster-designer calculate", description="Run a tenancy, MIG or RoCE calculator.")
    p.add_argument("name", choices=list(CALCULATORS), help="the calculator")
    p.add_argument("inputs", nargs="*", help="input=value (omitted inputs take the seed's figures); \\n for new lines")
    return p


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    inputs = {}
    for item in args.inputs:
        key, sep, value = item.partition("=")
        if not sep:
            stderr.write(f"{item!r}: write input=value\n")
            return 2
        inputs[key] = value.replace("\\n", "\n")
    try:
        result = run(args.name, inputs)
    except SchedulerInputError as exc:
        stderr.write(f"{args.name}: refused\n")
        stderr.writelines(f"  {k}: {v}\n" for k, v in exc.errors.items())
        return 1
    stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return 0
