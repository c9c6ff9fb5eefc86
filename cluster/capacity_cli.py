"""`cluster-designer capacity FILE.yaml --class pretraining --p95-wait-h 24 [--gpus 1600,2000,2400] …`:
the smallest size of a design that meets a queueing target, with the TCO of every candidate (pure).

The workload is the design's (its ``workload:`` section; the seed's Table 14-24 when it gives no classes),
generated once for the design *as given* (its batch partition at its offered load), then replayed on each
candidate (cluster/simulation.py capacity_design): the design re-planned at that GPU count (same node shape,
fabric family, partition split), its batch partition simulated, its 5-year TCO and cost per GPU-hour from
the pipeline. Candidates default to 0.6–1.6 × the design's GPUs in whole nodes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from cluster.cli import evaluate_file
from cluster.simulate_cli import FLAG_OF, _named, refuse_fraction_flags, workload_overrides
from cluster.simulation import capacity_design, parse_sizes
from cluster.validate import RequirementsError
from scheduling import SchedulerInputError
from scheduling.capacity import Target
from scheduling.simulator import POLICIES


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cluster-designer capacity", description="Find the smallest size of a design meeting a target."
    )
    p.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("--class", dest="job_class", default="pretraining", help="the class the target is for")
    p.add_argument("--p95-wait-h", type=float, default=24.0, help="its p95 queue wait must be at most this")
    p.add_argument("--min-utilization", type=float, default=0.0, help="and the cluster at least this busy")
    p.add_argument("--gpus", help="candidate GPU counts, comma-separated (default 0.6–1.6 × the design's)")
    p.add_argument("--days", type=float, help="simulated days (workload.days)")
    p.add_argument(
        "--load-pct", type=float, help="offered load on the design as given [%%], e.g. 85 (workload.offered_load_pct)"
    )
    refuse_fraction_flags(p, ("--load",))
    p.add_argument("--policy", choices=POLICIES, help="workload.policy")
    p.add_argument("--seed", type=int, help="workload.seed")
    p.add_argument("--format", choices=["json", "table"], default="table")
    return p


def run(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    target = Target(args.job_class, args.p95_wait_h, args.min_utilization)
    plan = evaluate_file(path, {"workload": workload_overrides(args)})
    sizes = None if args.gpus is None else parse_sizes(args.gpus)
    return capacity_design(plan, target, sizes)


def _table(out: dict[str, Any]) -> str:
    i, t = out["inputs"], out["inputs"]["target"]
    lines = [
        f"{i['design']}: {i['profile']}, {i['jobs']:,} jobs made for its {i['batch_gpus']:,} batch GPUs at "
        f"{i['offered_load_frac']:.0%}, {i['days']:g} days, {i['policy']}; target: {t['job_class']} p95 wait ≤ "
        f"{t['p95_wait_h']:g} h, utilization ≥ {t['min_utilization']:.0%}",
        f"{'GPUs':>8}{'batch nodes':>13}{'util':>7}{'p95 wait h':>12}{'TCO $M':>9}{'$/GPU-h':>9}  meets?",
    ]
    for row in out["rows"]:
        if "error" in row:
            lines.append(f"{row['size']:>8,}  — {row['error']}")
            continue
        rep = row["report"]
        cls = next((c for c in rep["classes"] if c["name"] == t["job_class"]), {})
        p95 = cls.get("wait_h_p95")
        wait = "—" if p95 is None else f"{p95:.1f}"
        money = f"{float(row['tco_usd']) / 1e6:>9.1f}{float(row['cost_per_gpu_hour_usd']):>9.3f}"
        lines.append(
            f"{row['size']:>8,}{row['batch_nodes']:>13,}{rep['utilization_frac']:>7.0%}{wait:>12}{money}"
            f"  {'yes' if row['meets'] else 'no'}: {row['why']}"
        )
    lines.append(f"answer: {out['answer']}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    names = {**FLAG_OF, "target.p95_wait_h": "--p95-wait-h", "target.min_utilization": "--min-utilization",
             "target.job_class": "--class", "gpus": "--gpus"}  # fmt: skip
    try:
        out = run(args.file, args)
    except RequirementsError as exc:
        stderr.write(f"{args.file}: invalid requirements\n")
        stderr.writelines(f"  {_named(field, names, args)}: {' '.join(msgs)}\n" for field, msgs in exc.errors.items())
        return 1
    except SchedulerInputError as exc:
        stderr.write(f"{args.file}: the capacity search is refused\n")
        stderr.writelines(f"  {_named(k, names, args)}: {v}\n" for k, v in exc.errors.items())
        return 1
    stdout.write(json.dumps(out, indent=2) + "\n" if args.format == "json" else _table(out))
    return 0
