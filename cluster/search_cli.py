"""`cluster-designer search FILE.yaml --vary topology=rail_optimized,fat_tree --vary rail_groups=1,2
--max capex_usd=2e8 --min bisection_tbyte_s=50 --objective capex_usd [--format json|csv] [--out PATH]`:
the design search (cluster/search.py) in one process, without a server (pure: no Django).

The file is the base design; ``--vary FIELD=V1,V2,…`` an axis (cluster.search.VARY_AXES), ``--max NAME=X`` and
``--min NAME=X`` a constraint (``max_NAME`` / ``min_NAME`` of cluster.search.CONSTRAINTS), ``--objective`` the
ranking order (repeatable), ``--spec SPEC.yaml`` a whole spec (vary, constraints, objectives, allreduce_bytes)
the options add to. Progress goes to stderr (candidates evaluated, feasible, rate, ETA); the report (JSON) or
one row per candidate (CSV) to stdout or ``--out``. Exit status: 0 done, 1 refused (one line per field), 2 usage.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from bom.plan import Catalog
from cluster.search import (
    CONSTRAINTS,
    FRONTS,
    OBJECTIVES,
    SearchSpec,
    SearchSpecError,
    applied_combo,
    parse_spec,
    run_search,
)
from cluster.validate import RequirementsError, load_requirements_file, validate

FIGURES = (
    "topology", "tier_count", "compute_switch_count", "compute_link_count", "capex_usd", "tco_usd", "network_usd",
    "facility_kw", "rack_count", "bisection_tbyte_s", "bisection_tbyte_s_per_musd", "oversubscription_ratio",
    "longest_cable_m", "allreduce_time_us", "allreduce_busbw_gbyte_s",
)  # fmt: skip


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cluster-designer search",
        description="Search designs around a requirements file: the cheapest that meet the constraints.",
        epilog=f"constraints: {', '.join(CONSTRAINTS)}; objectives: {', '.join(OBJECTIVES)}",
    )
    p.add_argument("file", type=Path, help="the base design's requirements file (YAML or JSON)")
    p.add_argument("--spec", type=Path, help="a search spec file (vary, constraints, objectives, allreduce_bytes)")
    p.add_argument("--vary", action="append", default=[], metavar="FIELD=V1,V2", help="an axis (repeatable)")
    p.add_argument("--max", action="append", default=[], metavar="NAME=X", help="constraint max_NAME ≤ X")
    p.add_argument("--min", action="append", default=[], metavar="NAME=X", help="constraint min_NAME ≥ X")
    p.add_argument("--objective", action="append", default=[], choices=list(OBJECTIVES), help="ranking order")
    p.add_argument("--workload-target", metavar="CLASS=HOURS", help="a class's p95 wait, checked on the finalists")
    p.add_argument("--finalists", type=int, default=8, help="finalists the queue simulator checks (1–16)")
    p.add_argument("--allreduce-bytes", help="all-reduce message size (e.g. 256M); default 256 MiB")
    p.add_argument("--format", choices=["json", "csv"], default="json")
    p.add_argument("--out", type=Path, help="write here instead of stdout")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def _pairs(items: list[str], flag: str, errors: dict[str, list[str]]) -> list[tuple[str, str]]:
    out = []
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            errors.setdefault(flag, []).append(f"{item!r}: write NAME=VALUE")
            continue
        out.append((name.strip(), value.strip()))
    return out


def raw_spec(args: argparse.Namespace) -> dict[str, Any]:
    """The spec file, if any, with the options laid over it; malformed options are errors on the option."""
    errors: dict[str, list[str]] = {}
    spec: dict[str, Any] = {}
    if args.spec is not None:
        loaded = load_requirements_file(args.spec)  # the same bounded YAML reader; errors on 'file'
        if not isinstance(loaded, dict):
            raise SearchSpecError({"--spec": [f"{args.spec} is not a mapping"]})
        spec = dict(loaded)
    vary = dict(spec.get("vary") or {})
    vary.update({k: [x.strip() for x in v.split(",")] for k, v in _pairs(args.vary, "--vary", errors)})
    constraints = dict(spec.get("constraints") or {})
    for flag, items in (("--max", args.max), ("--min", args.min)):
        constraints.update({f"{flag[2:]}_{k}": v for k, v in _pairs(items, flag, errors)})
    if args.workload_target is not None:
        for job_class, hours in _pairs([args.workload_target], "--workload-target", errors):
            spec["workload_target"] = {"job_class": job_class, "p95_wait_h": hours, "finalists": args.finalists}
    if errors:
        raise SearchSpecError(errors)
    spec.update(vary=vary, constraints=constraints)
    if args.objective:
        spec["objectives"] = args.objective
    if args.allreduce_bytes is not None:
        spec["allreduce_bytes"] = args.allreduce_bytes
    return spec


class Progress:
    """Candidates evaluated, feasible, rate and ETA on one stderr line, redrawn at most twice a second."""

    def __init__(self, stream: TextIO, quiet: bool = False):
        self.stream, self.quiet, self.t0, self.last = stream, quiet, time.perf_counter(), 0.0

    def __call__(self, done: int, total: int, feasible: int) -> None:
        now = time.perf_counter()
        if self.quiet or (now - self.last < 0.5 and done < total):
            return
        self.last = now
        rate = done / (now - self.t0) if now > self.t0 else 0.0
        eta = (total - done) / rate if rate > 0 else 0.0
        self.stream.write(
            f"\rsearch: {done:,}/{total:,} candidates, {feasible:,} feasible, {rate:,.1f}/s, ETA {eta:,.0f} s"
            + ("\n" if done >= total else "")
        )
        self.stream.flush()


def rows_csv(spec: SearchSpec, rows: list[dict[str, Any]]) -> str:
    """One line per candidate: index, status, each varied field (blank where it does not apply), the figures,
    and why it was refused or excluded."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    axes = [name for name, _ in spec.vary]
    w.writerow(["index", "status", *(f"vary.{a}" for a in axes), *FIGURES, "why"])
    for r in rows:
        combo = applied_combo(spec, r["i"])
        f = r.get("f") or {}
        why = r.get("why") or ""
        why = "; ".join(f"{k}: {v}" for k, v in why.items()) if isinstance(why, dict) else "; ".join(why)
        w.writerow([r["i"], r["s"], *(combo.get(a, "") for a in axes), *(_cell(f.get(k)) for k in FIGURES), why])
    return buf.getvalue()


def _cell(value: Any) -> Any:
    return "" if value is None else value


def load_base(path: Path) -> dict[str, Any]:
    try:
        return validate(load_requirements_file(path)).flat()
    except RequirementsError as exc:
        raise RequirementsError(exc.nested(), exc.unprocessable) from None


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    try:
        spec = parse_spec(load_base(args.file), raw_spec(args))
    except (RequirementsError, SearchSpecError) as exc:
        stderr.write(f"{args.file}: the search is refused\n")
        stderr.writelines(f"  {field}: {' '.join(msgs)}\n" for field, msgs in exc.errors.items())
        return 1
    report, rows = run_search(spec, Catalog.built_in(), Progress(stderr, args.quiet))
    text = rows_csv(spec, rows) if args.format == "csv" else json.dumps(report, indent=2, default=str) + "\n"
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    else:
        stdout.write(text)
    best = report["best"]
    fronts = ", ".join(f"{k} {len(v)}" for k, v in report["fronts"].items() if k in FRONTS)
    stderr.write(
        f"search: {report['counts']['feasible']:,} feasible of {report['candidate_count']:,}; "
        + (f"best #{best['i']} {best['combo']} CapEx ${best['f']['capex_usd']}" if best else "none meets them")
        + f"; Pareto fronts: {fronts}\n"
    )
    return 0
