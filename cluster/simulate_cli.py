"""`manage.py simulate FILE.yaml [--days D] [--load ρ] [--policy easy|fifo] [--seed N] [--afr F] [--repair-h H]
[--restart-h H] [--preempt] [--a2a-fraction F] [--trace F.csv [--trace-format ours|acme]]
[--carbon-profile …] [--inference-demand …] [--format json|table]`:
the seed's Table 14-24 workload on a design's Slurm batch nodes (scheduling/simulator.py), pure — no Django.

The design gives the nodes (the batch partition's), GPUs per node and the leaf-group size placement
packs into (the Slurm leaves of topology.conf: a scalable unit's rail leaves, or one leaf)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cluster.cli import evaluate_file
from cluster.collectives import collective_fabric
from cluster.validate import RequirementsError
from scheduling import SchedulerInputError
from scheduling.carbon import CarbonPolicy, carbon_effect
from scheduling.failures import FailureModel
from scheduling.network import job_spread_factors
from scheduling.simulator import POLICIES, report, simulate
from scheduling.slurm_topology import slurm_topology
from scheduling.tidal import TidalPolicy
from scheduling.trace import acme_to_rows, check_fits, parse_trace
from scheduling.workload import PRIORITY, SEED_TABLE_14_24, JobClass, Profile, generate_jobs


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="simulate", description="Simulate the seed workload on a design's batch nodes.")
    p.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("--days", type=float, default=365.0, help="simulated days (default 365)")
    p.add_argument("--load", type=float, default=0.85, help="offered load, busy GPU-hours ÷ capacity (default 0.85)")
    p.add_argument("--policy", choices=POLICIES, default="easy")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--afr",
        type=float,
        default=0.0,
        help="GPU failures: annualised failure rate per GPU (seed S6: 0.01–0.05; default 0 = none)",
    )
    p.add_argument("--repair-h", type=float, default=24.0, help="hours a failed node is out of service (default 24)")
    p.add_argument("--restart-h", type=float, default=0.25, help="hours to restart a job from its checkpoint")
    p.add_argument("--preempt", action="store_true", help="critical jobs preempt lower classes (§14.8.1; easy only)")
    p.add_argument("--trace", type=Path, help="replay this job trace (CSV) instead of the seed workload")
    p.add_argument(
        "--trace-format",
        choices=["ours", "acme"],
        default="ours",
        help="ours: submit_h,gpus,hours,class[,tenant,sla]; acme: AcmeTrace's trace_seren.csv layout",
    )
    p.add_argument("--carbon-profile", help="carbon-aware deferral: 24 hourly grid intensities [g CO₂/kWh], commas")
    p.add_argument("--carbon-threshold", type=float, default=200.0, help="a deferrable job starts at or below this")
    p.add_argument("--max-defer-h", type=float, default=24.0, help="… or once it has waited this long")
    p.add_argument("--defer-classes", help="classes that may wait (default: every class but the critical ones)")
    p.add_argument("--inference-demand", help="tidal sharing: 24 hourly inference GPU counts, commas (§14.5.6)")
    p.add_argument("--a2a-fraction", type=float, default=0.0,
                   help="share of every job's step in all-to-all (MoE); jobs spread over leaf groups then run "
                   "slower on a tapered fabric, by the collective model (default 0)")  # fmt: skip
    p.add_argument("--format", choices=["json", "table"], default="table")
    return p


def run(
    path: Path, *, days: float, load: float, policy: str, seed: int, afr: float = 0.0, repair_h: float = 24.0,
    restart_h: float = 0.25, preempt: bool = False, a2a_fraction: float = 0.0, trace: Path | None = None,
    trace_format: str = "ours", carbon: dict[str, Any] | None = None, inference_demand: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    plan = evaluate_file(path)
    failures = None
    if afr:  # checkpoints take the design's own write window (the storage plane is sized to meet it)
        failures = FailureModel(afr=afr, repair_h=repair_h, restart_h=restart_h, seed=seed,
                                checkpoint_write_h=plan.requirements.checkpoint.window_s / 3600)  # fmt: skip
    parts = plan.scheduler
    batch = parts.partitions[0]
    topo = slurm_topology(plan.fabric, parts)
    leaf_nodes = max((len(s.nodes) for s in topo.level(0)), default=0) if topo else 0
    gpus = batch.nodes.count * parts.gpus_per_node
    horizon_h = days * 24
    profile = SEED_TABLE_14_24
    if not 0 <= a2a_fraction < 1:
        raise SchedulerInputError({"a2a_fraction": f"a share of the step from 0 to below 1, got {a2a_fraction}"})
    if a2a_fraction:
        profile = Profile(
            tuple(dataclasses.replace(c, comm_fraction=a2a_fraction) for c in profile.classes), profile.name
        )
    if trace is not None:
        jobs, names = _trace_jobs(trace, trace_format, gpus)
        profile = Profile(tuple(JobClass(n, 1 / len(names), 1, gpus, 1, 1, 1, comm_fraction=a2a_fraction)
                                for n in names), f"trace {trace.name}")  # fmt: skip
    else:
        jobs = generate_jobs(
            profile, cluster_gpus=gpus, gpus_per_node=parts.gpus_per_node, load=load, horizon_h=horizon_h,
            seed=seed,
        )  # fmt: skip
    spread = None
    if a2a_fraction:
        fabric, _ = collective_fabric(plan.requirements, plan=plan.fabric)
        spread = job_spread_factors(jobs, profile, fabric, parts.gpus_per_node, leaf_nodes)
    kw = {"node_count": batch.nodes.count, "gpus_per_node": parts.gpus_per_node, "horizon_h": horizon_h,
          "policy": policy, "leaf_nodes": leaf_nodes, "failures": failures, "preempt": preempt,
          "restart_h": restart_h, "spread": spread, "tidal": _tidal(inference_demand)}  # fmt: skip
    policy_c, deferrable = _carbon_policy(carbon, plan, profile, jobs) if carbon else (None, None)
    res = simulate(jobs, **kw, carbon=policy_c, deferrable=deferrable, record=policy_c is not None)
    out = report(res, jobs, [c.name for c in profile.classes])
    if policy_c is not None:
        baseline = simulate(jobs, **kw, record=True)
        out["carbon"] = carbon_effect(policy_c, jobs, deferrable, baseline, res, horizon_h)
    out["inputs"] = {
        "design": plan.requirements.cluster.name,
        "partition": batch.name,
        "nodes": batch.nodes.count,
        "gpus": gpus,
        "leaf_group_nodes": leaf_nodes,
        "days": days,
        "offered_load_frac": None if trace is not None else load,
        "seed": seed,
        "jobs": len(jobs),
        "profile": profile.name,
        "afr": afr,
        "preempt": preempt,
        "a2a_fraction": a2a_fraction,
        "spread_factor_max": float(spread.max()) if spread is not None and len(spread) else 1.0,
    }
    return out


def _carbon_policy(carbon: dict[str, Any], plan, profile, jobs):
    """The policy from the CLI's profile text, the design's facility kW per GPU, and which jobs may wait."""
    try:
        values = tuple(float(x) for x in carbon["profile"].split(","))
    except ValueError:
        raise SchedulerInputError({"carbon.intensity_g_per_kwh": "24 numbers separated by commas"}) from None
    summary = plan.result()["summary"]
    kw_per_gpu = float(summary["facility_kw"]) / plan.requirements.cluster.gpu_count
    policy = CarbonPolicy(values, carbon["threshold"], carbon["max_defer_h"], kw_per_gpu)
    names = [c.name for c in profile.classes]
    if carbon.get("classes"):
        chosen = [x.strip() for x in carbon["classes"].split(",") if x.strip()]
        unknown = [x for x in chosen if x not in names]
        if unknown:
            raise SchedulerInputError(
                {"carbon.classes": f"unknown class {unknown[0]!r}; the classes: {', '.join(names)}"}
            )
        flags = np.isin(jobs.cls, [names.index(x) for x in chosen])
    else:
        flags = jobs.priority < PRIORITY["critical"]
    return policy, flags


def _tidal(text: str | None) -> TidalPolicy | None:
    if text is None:
        return None
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise SchedulerInputError({"tidal.demand_gpus": "24 numbers separated by commas"}) from None
    return TidalPolicy(values)


def _load_text(i: dict[str, Any]) -> str:
    return "replayed" if i["offered_load_frac"] is None else f"at {i['offered_load_frac']:.0%} offered"


def _trace_jobs(path: Path, fmt: str, cluster_gpus: int):
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchedulerInputError({"trace": f"cannot read {path}: {exc}"}) from None
    jobs, names, _ = parse_trace(acme_to_rows(text) if fmt == "acme" else text)
    check_fits(jobs, cluster_gpus)
    return jobs, names


def _tidal_line(out: dict[str, Any]) -> str:
    f = out["failures"]
    return (
        f"tidal sharing: inference held {f['inference_node_h']:,.0f} node-hours, {f['inference_unserved_node_h']:,.0f} "
        f"unserved; {f['preemptions']:.0f} best-effort preemptions; node-hours: training {out['busy_node_h']:,.0f} + "
        f"inference {out['inference_node_h']:,.0f} + idle {out['idle_node_h']:,.0f} + down {out['down_node_h']:,.0f}"
    )


def _books_line(out: dict[str, Any]) -> str:
    i, f = out["inputs"], out["failures"]
    return (
        f"failures (AFR {i['afr']:.1%} per GPU), preemption {'on' if i['preempt'] else 'off'} "
        f"({f['preemptions']:.0f} preemptions), all-to-all {i['a2a_fraction']:.0%} of a step (spread jobs up to "
        f"×{i['spread_factor_max']:.3f}): {out['derivations']['goodput_frac']}"
    )


def _table(out: dict[str, Any]) -> str:
    i = out["inputs"]
    lines = [
        f"{i['design']}: {i['partition']} ({i['nodes']:,} nodes, {i['gpus']:,} GPUs), {i['profile']}, "
        f"{i['days']:g} days {_load_text(i)}, {out['policy']}, seed {i['seed']}: "
        f"{i['jobs']:,} jobs",
        f"utilization: {out['derivations']['utilization_frac']}",
        f"Little's law: {out['derivations']['little']}",
        *([_books_line(out)] if "failures" in out else []),
        *([f"carbon-aware deferral: {out['carbon']['derivation']}"] if "carbon" in out else []),
        *([_tidal_line(out)] if out.get("failures", {}).get("inference_node_h") is not None else []),
        f"{'class':<24}{'jobs':>7}{'waiting':>9}{'wait p50 h':>12}{'p95 h':>10}{'p99 h':>10}{'in 1 group':>12}",
    ]
    show = lambda x, f="{:.1f}": "—" if x is None else f.format(x)  # noqa: E731
    for c in out["classes"]:
        lines.append(
            f"{c['name']:<24}{c['jobs']:>7,}{c['waiting_at_end']:>9,}{show(c['wait_h_p50']):>12}"
            f"{show(c['wait_h_p95']):>10}{show(c['wait_h_p99']):>10}{show(c['one_group_frac'], '{:.0%}'):>12}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    try:
        out = run(args.file, days=args.days, load=args.load, policy=args.policy, seed=args.seed, afr=args.afr,
                  repair_h=args.repair_h, restart_h=args.restart_h, preempt=args.preempt,
                  a2a_fraction=args.a2a_fraction, trace=args.trace, trace_format=args.trace_format,
                  carbon=None if args.carbon_profile is None else {"profile": args.carbon_profile,
                  "threshold": args.carbon_threshold, "max_defer_h": args.max_defer_h,
                  "classes": args.defer_classes}, inference_demand=args.inference_demand)  # fmt: skip
    except RequirementsError as exc:
        stderr.write(f"{args.file}: invalid requirements\n")
        stderr.writelines(f"  {field}: {' '.join(msgs)}\n" for field, msgs in exc.errors.items())
        return 1
    except SchedulerInputError as exc:
        stderr.write(f"{args.file}: the simulation is refused\n")
        names = {"horizon_h": "--days", "load": "--load", "policy": "--policy", "failures.afr": "--afr",
                 "failures.repair_h": "--repair-h", "failures.restart_h": "--restart-h",
                 "preempt": "--preempt", "a2a_fraction": "--a2a-fraction",
                 "carbon.intensity_g_per_kwh": "--carbon-profile", "carbon.threshold_g_per_kwh": "--carbon-threshold",
                 "carbon.max_defer_h": "--max-defer-h", "carbon.classes": "--defer-classes",
                 "tidal.demand_gpus": "--inference-demand"}  # fmt: skip
        stderr.writelines(f"  {names.get(k, k)}: {v}\n" for k, v in exc.errors.items())
        return 1
    stdout.write(json.dumps(out, indent=2) + "\n" if args.format == "json" else _table(out))
    return 0
