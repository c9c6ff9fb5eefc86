"""`manage.py capacity FILE.yaml --class pretraining --p95-wait-h 24 [--gpus 1600,2000,2400] …`:
the smallest size of a design that meets a queueing target, with the TCO of every candidate (pure).

The workload is the seed's Table 14-24 generated once for the design *as given* (its batch partition at
``--load``), then replayed on each candidate: the design re-planned at that GPU count (same node shape,
fabric family, partition split), its batch partition simulated, its 5-year TCO and cost per GPU-hour from
the pipeline. Candidates default to 0.6–1.6 × the design's GPUs in whole nodes."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from cluster.cli import evaluate_file
from cluster.pipeline import plan_cluster
from cluster.validate import RequirementsError
from scheduling import SchedulerInputError
from scheduling.capacity import Target, search
from scheduling.simulator import POLICIES, report, simulate
from scheduling.slurm_topology import slurm_topology
from scheduling.workload import SEED_TABLE_14_24, generate_jobs

DEFAULT_SCALES = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6)
MAX_CANDIDATES = 24


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="capacity", description="Find the smallest size of a design meeting a target.")
    p.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("--class", dest="job_class", default="pretraining", help="the class the target is for")
    p.add_argument("--p95-wait-h", type=float, default=24.0, help="its p95 queue wait must be at most this")
    p.add_argument("--min-utilization", type=float, default=0.0, help="and the cluster at least this busy")
    p.add_argument("--gpus", help="candidate GPU counts, comma-separated (default 0.6–1.6 × the design's)")
    p.add_argument("--days", type=float, default=180.0)
    p.add_argument("--load", type=float, default=0.85, help="offered load on the design as given")
    p.add_argument("--policy", choices=POLICIES, default="easy")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--format", choices=["json", "table"], default="table")
    return p


def _candidates(text: str | None, gpus: int, per_node: int) -> list[int]:
    if text is None:
        return sorted({max(per_node, round(gpus * k / per_node) * per_node) for k in DEFAULT_SCALES})
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SchedulerInputError({"gpus": f"whole GPU counts separated by commas, got {text!r}"}) from None
    if not sizes or len(sizes) > MAX_CANDIDATES or any(s < per_node or s % per_node for s in sizes):
        raise SchedulerInputError(
            {"gpus": f"1 to {MAX_CANDIDATES} GPU counts, each a whole number of {per_node}-GPU nodes, got {text!r}"}
        )
    return sizes


def run(path: Path, *, target: Target, gpus_text: str | None, days: float, load: float, policy: str,
        seed: int) -> dict[str, Any]:  # fmt: skip
    base = evaluate_file(path)
    r, per_node = base.requirements, base.requirements.cluster.gpus_per_node
    batch_gpus = base.scheduler.partitions[0].nodes.count * base.scheduler.gpus_per_node
    horizon_h = days * 24
    jobs = generate_jobs(SEED_TABLE_14_24, cluster_gpus=batch_gpus, gpus_per_node=per_node, load=load,
                         horizon_h=horizon_h, seed=seed)  # fmt: skip
    names = [c.name for c in SEED_TABLE_14_24.classes]

    def at(size: int) -> dict[str, Any]:
        try:
            plan = plan_cluster(dataclasses.replace(r, cluster=dataclasses.replace(r.cluster, gpu_count=size)))
        except (RequirementsError, ValueError) as exc:
            return {"error": f"the design does not plan at {size:,} GPUs: {exc}"}
        part = plan.scheduler.partitions[0]
        topo = slurm_topology(plan.fabric, plan.scheduler)
        leaf = max((len(s.nodes) for s in topo.level(0)), default=0) if topo else 0
        if int(jobs.gpus.max()) > part.nodes.count * per_node:
            return {"error": f"its batch partition ({part.nodes.count * per_node:,} GPUs) is smaller than the "
                             f"largest job ({int(jobs.gpus.max()):,} GPUs)"}  # fmt: skip
        res = simulate(jobs, node_count=part.nodes.count, gpus_per_node=per_node, horizon_h=horizon_h,
                       policy=policy, leaf_nodes=leaf)  # fmt: skip
        summary = plan.result()["summary"]
        return {
            "batch_nodes": part.nodes.count,
            "report": report(res, jobs, names),
            "tco_usd": summary["tco_usd"],
            "cost_per_gpu_hour_usd": summary["cost_per_gpu_hour_usd"],
        }

    out = search(_candidates(gpus_text, r.cluster.gpu_count, per_node), at, target)
    out["inputs"] = {"design": r.cluster.name, "design_gpus": r.cluster.gpu_count, "batch_gpus": batch_gpus,
                     "jobs": len(jobs), "days": days, "offered_load_frac": load, "policy": policy, "seed": seed,
                     "target": dataclasses.asdict(target), "profile": SEED_TABLE_14_24.name}  # fmt: skip
    return out


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
    try:
        target = Target(args.job_class, args.p95_wait_h, args.min_utilization)
        out = run(args.file, target=target, gpus_text=args.gpus, days=args.days, load=args.load, policy=args.policy,
                  seed=args.seed)  # fmt: skip
    except RequirementsError as exc:
        stderr.write(f"{args.file}: invalid requirements\n")
        stderr.writelines(f"  {field}: {' '.join(msgs)}\n" for field, msgs in exc.errors.items())
        return 1
    except SchedulerInputError as exc:
        stderr.write(f"{args.file}: the capacity search is refused\n")
        names = {"target.p95_wait_h": "--p95-wait-h", "target.min_utilization": "--min-utilization", "gpus": "--gpus",
                 "horizon_h": "--days", "load": "--load"}  # fmt: skip
        stderr.writelines(f"  {names.get(k, k)}: {v}\n" for k, v in exc.errors.items())
        return 1
    stdout.write(json.dumps(out, indent=2) + "\n" if args.format == "json" else _table(out))
    return 0
