"""A design's workload, simulated on the design's own plan (pure: no Django).

The requirements' workload section (cluster/requirements.py ``Workload``) says which jobs arrive and
which policies run; the plan says where they run: the Slurm batch partition's nodes (the first
partition of scheduling/partitions.py), GPUs per node, and the leaf-group size placement packs into
(the Slurm leaves of topology.conf — a scalable unit's rail leaves, or one leaf). The report is the
simulator's (scheduling/simulator.py) plus what the pages chart: node counts over time, the wait
distribution of every class, the arrival rates with their derivation, and the partition split's
effect (the same jobs on every node of the design, no partition kept apart).

Errors are SchedulerInputError keyed by the requirement field that refuses (``workload.classes``,
``workload.days`` …) or the run's own input (``trace``, ``trace.row N.column``, ``target.*``, ``gpus``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cluster.collectives import collective_fabric
from cluster.pipeline import ClusterPlan, plan_cluster, plan_scheduler
from cluster.requests import resolve
from cluster.requirements import Cluster, Requirements, Workload
from cluster.validate import RequirementsError
from cluster.workload import Batch, batch_of, mapped, profile_of
from scheduling import SchedulerInputError
from scheduling.capacity import Target, search
from scheduling.carbon import CarbonPolicy, carbon_effect
from scheduling.failures import FABRIC_KINDS, FABRIC_REPAIR_SOURCE, FailureModel, PartClass, fabric_defaults
from scheduling.network import job_spread_factors
from scheduling.simulator import report, simulate, submit_hours
from scheduling.tidal import TidalPolicy
from scheduling.trace import acme_to_rows, check_fits, parse_trace
from scheduling.workload import (
    PRIORITY,
    JobClass,
    Jobs,
    Profile,
    arrival_rates_per_h,
    check_profile,
    expected_job_count,
    generate_jobs,
    offered_load,
)

TIMELINE_BINS = 180
CDF_QUANTILES = tuple(2 * k for k in range(51))  # the wait CDF of a class: its waits at percentiles 0, 2 … 100
Progress = Callable[[float], None]


@dataclass(frozen=True)
class GpuCeiling:
    """The largest design an entry point plans, and its name in the refusal: a web or API request passes
    ``settings.MAX_REQUEST_GPUS``; the command line plans up to the ``cluster.gpu_count`` field's maximum."""

    gpus: int
    name: str


GPU_COUNT_MAX = next(f for f in dataclasses.fields(Cluster) if f.name == "gpu_count").metadata["spec"].maximum
CLI_CEILING = GpuCeiling(GPU_COUNT_MAX, "cluster.gpu_count's maximum")


def make_jobs(w: Workload, b: Batch, trace_text: str | None = None, trace_format: str = "ours") -> tuple[Jobs, Profile]:
    """The generated jobs (at the offered load or jobs per day, for the batch partition), or a trace's."""
    profile = profile_of(w)
    if trace_text is not None:
        if trace_format not in ("ours", "acme"):
            raise SchedulerInputError({"trace_format": "ours or acme"})
        jobs, names, _ = parse_trace(acme_to_rows(trace_text) if trace_format == "acme" else trace_text)
        check_fits(jobs, b.gpus)
        comm = {c.name: c.comm_fraction for c in profile.classes}
        classes = tuple(JobClass(n, 1 / len(names), 1, b.gpus, 1, 1, 1, comm_fraction=comm.get(n, 0.0)) for n in names)
        return jobs, Profile(classes, "a replayed trace")
    try:
        check_profile(profile, b.gpus, where=f" (batch partition {b.partition})")
        jobs = generate_jobs(
            profile, cluster_gpus=b.gpus, load=w.offered_load_pct / 100,
            horizon_h=w.days * 24, seed=w.seed, jobs_per_day=w.jobs_per_day if w.arrival == "jobs_per_day" else None,
        )  # fmt: skip
    except SchedulerInputError as exc:
        raise mapped(exc) from None
    return jobs, profile


# --- fabric failures (issue #37): per part class AFRs and repair times, the design's part counts ------------------

FabricRates = dict[str, dict[str, float]]  # part kind → {"afr_pct": % per part per year, "repair_h": hours}


def default_fabric_rates(repair_h: float) -> FabricRates:
    """The cited AFRs (scheduling/failures.py fabric_defaults), each part out for the design's node repair time."""
    return {k: {"afr_pct": v["afr_pct"], "repair_h": repair_h} for k, v in fabric_defaults().items()}


def no_fabric_rates(repair_h: float) -> FabricRates:
    return {k: {"afr_pct": 0.0, "repair_h": repair_h} for k in FABRIC_KINDS}


def _fabric_number(raw: Any, key: str, lo: float, hi: float, hi_open: bool, errors: dict[str, str]) -> float | None:
    number = not isinstance(raw, bool) and isinstance(raw, int | float) and math.isfinite(raw)
    if number and lo <= raw and (raw < hi if hi_open else raw <= hi):
        return float(raw)
    bound = f"below {hi:g}" if hi_open else f"at most {hi:g}"
    what = "a percentage per part per year" if key.endswith("afr_pct") else "hours out of service"
    low = "from 0" if lo == 0 else f"above {lo:g}"
    errors[key] = f"{what}, a finite number {low} and {bound}; got {raw!r}"
    return None


def parse_fabric_rates(raw: Any, repair_h: float) -> FabricRates:
    """Fabric AFRs and repair times as a run gives them: None = the cited defaults; else a mapping of part kind
    (leaf, spine, nic, optic, cable) → its AFR [%] or {afr_pct, repair_h}; a kind not given keeps its default.
    Every bad value is refused on its own key (``fabric.leaf.afr_pct`` …): negative, ≥ 100 %, NaN, not a number."""
    rates = default_fabric_rates(repair_h)
    if raw is None:
        return rates
    errors: dict[str, str] = {}
    if not isinstance(raw, Mapping):
        raise SchedulerInputError({"fabric": f"a mapping of part kind ({', '.join(FABRIC_KINDS)}) → AFR [%] or "
                                             f"{{afr_pct, repair_h}}; got {raw!r}"})  # fmt: skip
    for kind, value in raw.items():
        if kind not in FABRIC_KINDS:
            errors[f"fabric.{kind}"] = f"an unknown part kind; the kinds: {', '.join(FABRIC_KINDS)}"
            continue
        given = value if isinstance(value, Mapping) else {"afr_pct": value}
        for field in given:
            if field not in ("afr_pct", "repair_h"):
                errors[f"fabric.{kind}.{field}"] = "an unknown field; afr_pct or repair_h"
        if "afr_pct" in given:
            afr = _fabric_number(given["afr_pct"], f"fabric.{kind}.afr_pct", 0, 100, True, errors)
            rates[kind]["afr_pct"] = afr if afr is not None else rates[kind]["afr_pct"]
        if "repair_h" in given:
            rh = _fabric_number(given["repair_h"], f"fabric.{kind}.repair_h", 0, 8760, False, errors)
            if rh == 0:
                errors[f"fabric.{kind}.repair_h"] = "hours out of service, above 0 and at most 8760; got 0"
            elif rh is not None:
                rates[kind]["repair_h"] = rh
    if errors:
        raise SchedulerInputError(errors)
    return rates


def fabric_parts(plan: ClusterPlan, b: Batch) -> list[dict[str, Any]]:
    """The compute fabric's parts by class, as the simulator counts them: per node (NIC, the optics and cable of its
    links to its leaves), per leaf group (its leaves) or in the whole fabric (spines, the uplinks' optics and
    cables: bandwidth only), each with its derivation from the fabric plan and the BOM."""
    f, nodes = plan.fabric, plan.requirements.node_count
    leaves = f.tiers[0].switch_count if f.tiers else 0
    upper = sum(t.switch_count for t in f.tiers[1:])
    groups = (max(b.design_hierarchy[0]) + 1) if b.design_hierarchy else 1
    lines = [x for x in plan.bom.lines if x.plane == "compute" and not x.spare]
    nics = sum(x.quantity for x in lines if x.kind == "nic") or f.endpoint_link_count
    optical = sum(x.quantity for x in lines if x.kind == "transceiver" and "NIC side" in x.description)
    links = f.endpoint_link_count
    return [
        {"name": "leaf", "kind": "leaf", "per": "group", "count": leaves / groups,
         "derivation": f"{leaves:,} leaf switches ÷ {groups:,} leaf groups (the Slurm leaves of topology.conf) = "
                       f"{leaves / groups:.4g} per group: one failure takes out every node of its group"},
        {"name": "spine", "kind": "spine", "per": "fabric", "count": float(upper),
         "derivation": f"{upper:,} switches above the leaves: one failure removes bandwidth (1/S of the bisection "
                       "for S spines, 1:1), no node"},
        {"name": "nic", "kind": "nic", "per": "node", "count": nics / nodes,
         "derivation": f"{nics:,} compute NICs (BOM) ÷ {nodes:,} nodes = {nics / nodes:.4g} per node"},
        {"name": "optic", "kind": "optic", "per": "node", "count": 2 * optical / nodes,
         "derivation": f"{optical:,} optical node links (NIC-side transceivers, BOM) × 2 ends ÷ {nodes:,} nodes = "
                       f"{2 * optical / nodes:.4g} per node (a twin-port leaf module counted once per port; "
                       "copper links have none)"},
        {"name": "cable", "kind": "cable", "per": "node", "count": links / nodes,
         "derivation": f"{links:,} node links, one cable each ÷ {nodes:,} nodes = {links / nodes:.4g} per node"},
        {"name": "uplink optic", "kind": "optic", "per": "fabric", "count": 2.0 * f.switch_link_count,
         "derivation": f"{f.switch_link_count:,} switch–switch links × 2 ends (each taken as optical): bandwidth "
                       "only, no node"},
        {"name": "uplink cable", "kind": "cable", "per": "fabric", "count": float(f.switch_link_count),
         "derivation": f"{f.switch_link_count:,} switch–switch links, one cable each: bandwidth only, no node"},
    ]  # fmt: skip


def fabric_classes(parts: list[dict[str, Any]], rates: FabricRates) -> tuple[PartClass, ...]:
    return tuple(PartClass(p["name"], p["per"], p["count"], rates[p["kind"]]["afr_pct"] / 100,
                           rates[p["kind"]]["repair_h"]) for p in parts if p["count"] > 0)  # fmt: skip


def _fabric_inputs(parts: list[dict[str, Any]], rates: FabricRates, b: Batch, days: float) -> list[dict[str, Any]]:
    """The report's table of fabric part classes: counts in the simulated partition, AFR, repair time, sources."""
    sources = fabric_defaults()
    units = {"node": b.node_count, "group": len(set(b.hierarchy[0])) if b.hierarchy else 1, "fabric": 1}
    rows = []
    for p in parts:
        r = rates[p["kind"]]
        default = sources[p["kind"]]["afr_pct"]
        rows.append({**p, "parts_simulated": p["count"] * units[p["per"]], "afr_pct": r["afr_pct"],
                     "repair_h": r["repair_h"], "afr_source": sources[p["kind"]]["source"] if r["afr_pct"] == default
                     else "given for this run", "repair_source": FABRIC_REPAIR_SOURCE,
                     "failures_expected": p["count"] * units[p["per"]] * -math.log1p(-r["afr_pct"] / 100)
                     * days / 365.25})  # fmt: skip
    return rows


def _policies(plan: ClusterPlan, w: Workload, b: Batch, profile: Profile, jobs: Jobs,
              defer_classes: list[str] | None = None, fabric: FabricRates | None = None) -> dict[str, Any]:  # fmt: skip
    """simulate()'s keyword arguments for what the workload switches on."""
    failures = None
    classes = fabric_classes(fabric_parts(plan, b), fabric) if fabric else ()
    if w.afr_pct or any(c.afr for c in classes):  # checkpoints take the design's own write window
        failures = FailureModel(afr=w.afr_pct / 100, repair_h=w.repair_h, restart_h=w.restart_h, seed=w.seed,
                                checkpoint_write_h=plan.requirements.checkpoint.window_s / 3600,
                                fabric=tuple(c for c in classes if c.afr), group_nodes=b.leaf_nodes)  # fmt: skip
    spread = None
    if any(c.comm_fraction for c in profile.classes):
        fabric, _ = collective_fabric(plan.requirements, plan=plan.fabric)
        spread = job_spread_factors(jobs, profile, fabric, b.gpus_per_node, b.leaf_nodes)
    tidal = None
    if w.inference_demand_gpus:
        tidal = TidalPolicy(tuple(float(x) for x in w.inference_demand_gpus.split(",")))
    carbon, deferrable = None, None
    if w.carbon_hourly_g_per_kwh:
        kw_per_gpu = float(plan.result()["summary"]["facility_kw"]) / plan.requirements.cluster.gpu_count
        values = tuple(float(x) for x in w.carbon_hourly_g_per_kwh.split(","))
        carbon = CarbonPolicy(values, w.carbon_threshold_g_per_kwh, w.carbon_max_defer_h, kw_per_gpu)
        deferrable = _deferrable(profile, jobs, defer_classes)
    return {"gpus_per_node": b.gpus_per_node, "horizon_h": w.days * 24, "policy": w.policy,
            **b.placement(), "failures": failures, "preempt": w.preempt, "restart_h": w.restart_h,
            "spread": spread, "tidal": tidal, "carbon": carbon, "deferrable": deferrable}  # fmt: skip


def _deferrable(profile: Profile, jobs: Jobs, chosen: list[str] | None) -> np.ndarray:
    """The jobs that may wait for a clean hour: of the classes chosen, or every class but the critical ones."""
    if chosen is None:
        return jobs.priority < PRIORITY["critical"]
    names = [c.name for c in profile.classes]
    unknown = [x for x in chosen if x not in names]
    if unknown:
        raise SchedulerInputError({"carbon.classes": f"unknown class {unknown[0]!r}; the classes: {', '.join(names)}"})
    return np.isin(jobs.cls, [names.index(x) for x in chosen])


def _stage(progress: Progress | None, lo: float, hi: float) -> Progress | None:
    return None if progress is None else (lambda f: progress(lo + (hi - lo) * min(1.0, f)))


def simulate_design(
    plan: ClusterPlan, *, workload: Workload | None = None, trace_text: str | None = None,
    trace_format: str = "ours", progress: Progress | None = None, split: bool = True,
    defer_classes: list[str] | None = None, fabric: FabricRates | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The report of the design's workload (or ``workload`` instead, or a replayed trace) on its batch
    partition; with ``split``, the same jobs on every node of the design too (the split's effect). ``fabric``:
    the fabric part classes' AFRs and repair times (:func:`parse_fabric_rates`); None = GPU failures only."""
    w = workload or plan.requirements.workload
    b = batch_of(plan)
    jobs, profile = make_jobs(w, b, trace_text, trace_format)
    names = [c.name for c in profile.classes]
    try:
        kw = _policies(plan, w, b, profile, jobs, defer_classes, fabric)
        pooled = split and b.node_count < b.design_nodes
        res = simulate(jobs, node_count=b.node_count, **kw, record=kw["carbon"] is not None,
                       timeline_bins=TIMELINE_BINS, progress=_stage(progress, 0, 0.6 if pooled else 0.9))  # fmt: skip
        out = report(res, jobs, names)
        if kw["carbon"] is not None:
            base_kw = {**kw, "carbon": None, "deferrable": None}
            baseline = simulate(jobs, node_count=b.node_count, **base_kw, record=True)
            out["carbon"] = carbon_effect(kw["carbon"], jobs, kw["deferrable"], baseline, res, w.days * 24)
        out["split"] = _split_effect(jobs, names, b, kw, out, progress) if pooled else None
    except SchedulerInputError as exc:
        raise mapped(exc) from None
    out["timeline"] = res.timeline
    out["wait_cdf"] = _wait_cdf(res, jobs, names)
    out["arrivals"] = None if trace_text is not None else _arrivals(profile, w, b)
    out["inputs"] = _inputs(plan, w, b, profile, jobs, kw, trace_text is not None)
    out["inputs"]["fabric"] = _fabric_inputs(fabric_parts(plan, b), fabric, b, w.days) if fabric else None
    if progress is not None:
        progress(1.0)
    return out


def _split_effect(jobs: Jobs, names: list[str], b: Batch, kw: dict[str, Any], split_rep: dict[str, Any],
                  progress: Progress | None) -> dict[str, Any]:  # fmt: skip
    """The same jobs on every node of the design (nothing kept apart for interactive work or Kubernetes)."""
    kw = {**kw, "carbon": None, "deferrable": None}
    res = simulate(jobs, node_count=b.design_nodes, **{**kw, **b.placement(pooled=True)},
                   progress=_stage(progress, 0.6, 0.9))  # fmt: skip
    pooled = report(res, jobs, names)
    rows = []
    for a, p in zip(split_rep["classes"], pooled["classes"], strict=True):
        rows.append({"name": a["name"], "split_wait_h_p95": a["wait_h_p95"], "pooled_wait_h_p95": p["wait_h_p95"],
                     "split_wait_h_mean": a["wait_h_mean"], "pooled_wait_h_mean": p["wait_h_mean"]})  # fmt: skip
    kept = b.design_nodes - b.node_count
    return {
        "batch_nodes": b.node_count,
        "design_nodes": b.design_nodes,
        "pooled_utilization_frac": pooled["utilization_frac"],
        "classes": rows,
        "derivation": f"the same {len(jobs):,} jobs on all {b.design_nodes:,} nodes (the {kept:,} nodes outside "
        f"the batch partition {b.partition} pooled in): utilization {pooled['utilization_frac']:.1%} of "
        f"{b.design_nodes:,} nodes vs {split_rep['utilization_frac']:.1%} of {b.node_count:,}; "
        + "; ".join(f"{r['name']} p95 wait {_h(r['split_wait_h_p95'])} → {_h(r['pooled_wait_h_p95'])}" for r in rows),
    }


def _h(x: float | None) -> str:
    return "—" if x is None else f"{x:,.1f} h"


def _wait_cdf(res, jobs: Jobs, names: list[str]) -> list[dict[str, Any]]:
    """Per class: the waits (submit → first start) at CDF_QUANTILES of the jobs that started."""
    started = ~np.isnan(res.start_h) & (res.start_h < res.horizon_h)
    out = []
    for c, name in enumerate(names):
        waits = (res.start_h - submit_hours(res, jobs))[(jobs.cls == c) & started]  # the whole seconds the run used
        out.append({"name": name, "jobs": int(waits.size), "percentiles": list(CDF_QUANTILES),
                    "wait_h": np.percentile(waits, CDF_QUANTILES).tolist() if waits.size else []})  # fmt: skip
    return out


def _load(w: Workload, profile: Profile, b: Batch) -> float:
    """The offered load on the batch partition: as given, or what the jobs per day offer."""
    if w.arrival == "jobs_per_day":
        return offered_load(profile, b.gpus, w.jobs_per_day)
    return w.offered_load_pct / 100


def _arrivals(profile: Profile, w: Workload, b: Batch) -> list[dict[str, Any]]:
    load = _load(w, profile, b)
    rates = arrival_rates_per_h(profile, b.gpus, load)
    rows = []
    for c, lam in zip(profile.classes, rates):  # one rate per class
        rows.append({
            "name": c.name, "share_frac": c.share, "jobs_per_day": lam * 24, "mean_gpus": c.mean_gpus(),
            "mean_hours": c.mean_hours(), "sla": c.sla,
            "derivation": f"λ = ρ × C × share ÷ (E[GPUs] × E[hours]) = {load:.3g} × {b.gpus:,} × {c.share:.3g} ÷ "
            f"({c.mean_gpus():,.1f} × {c.mean_hours():,.1f} h) = {lam * 24:.4g} jobs/day",
        })  # fmt: skip
    return rows


def _inputs(plan: ClusterPlan, w: Workload, b: Batch, profile: Profile, jobs: Jobs, kw: dict[str, Any],
            trace: bool) -> dict[str, Any]:  # fmt: skip
    spread = kw["spread"]
    load = None if trace else _load(w, profile, b)
    return {
        "design": plan.requirements.cluster.name, "partition": b.partition, "nodes": b.node_count, "gpus": b.gpus,
        "design_nodes": b.design_nodes, "leaf_group_nodes": b.leaf_nodes, "pods": b.pod_count,
        "days": w.days, "offered_load_frac": load,
        "seed": w.seed, "jobs": len(jobs), "profile": profile.name, "policy": w.policy, "afr": w.afr_pct / 100,
        "preempt": w.preempt, "spread_factor_max": float(spread.max()) if spread is not None and len(spread) else 1.0,
        "a2a_fraction": max(c.comm_fraction for c in profile.classes),  # a profile has ≥ 1 class
    }  # fmt: skip


def capacity_design(
    plan: ClusterPlan, target: Target, sizes: list[int] | None = None, *, workload: Workload | None = None,
    progress: Progress | None = None, ceiling: GpuCeiling = CLI_CEILING,
) -> dict[str, Any]:  # fmt: skip
    """The smallest size of the design meeting ``target``: one workload made for the design as given,
    replayed on the design re-planned at every candidate GPU count, each with its TCO (scheduling/capacity.py)."""
    w = workload or plan.requirements.workload
    r, b = plan.requirements, batch_of(plan)
    sizes = candidate_sizes(r.cluster.gpu_count, b.gpus_per_node, ceiling.gpus) if sizes is None else sizes
    check_sizes(sizes, b.gpus_per_node, ceiling)
    check_capacity_work(expected_jobs(w, profile_of(w), b.gpus, b.partition), len(set(sizes)))
    jobs, profile = make_jobs(w, b)
    names = [c.name for c in profile.classes]
    if target.job_class not in names:
        raise SchedulerInputError({"target.job_class": f"one of the classes: {', '.join(names)}"})
    done = [0]

    def at(size: int) -> dict[str, Any]:
        try:
            p = plan_cluster(dataclasses.replace(r, cluster=dataclasses.replace(r.cluster, gpu_count=size)))
        except (RequirementsError, ValueError) as exc:
            return {"error": f"the design does not plan at {size:,} GPUs: {exc}"}
        bs = batch_of(p)
        if int(jobs.gpus.max(initial=0)) > bs.gpus:
            return {"error": f"its batch partition ({bs.gpus:,} GPUs) is smaller than the largest job "
                             f"({int(jobs.gpus.max()):,} GPUs)"}  # fmt: skip
        lo = done[0] / len(sizes)
        res = simulate(jobs, node_count=bs.node_count, gpus_per_node=bs.gpus_per_node, horizon_h=w.days * 24,
                       policy=w.policy, **bs.placement(), preempt=w.preempt, restart_h=w.restart_h,
                       progress=_stage(progress, lo, lo + 1 / len(sizes)))  # fmt: skip
        done[0] += 1
        summary = p.result()["summary"]
        return {"batch_nodes": bs.node_count, "report": report(res, jobs, names), "tco_usd": summary["tco_usd"],
                "cost_per_gpu_hour_usd": summary["cost_per_gpu_hour_usd"]}  # fmt: skip

    try:
        out = search(sizes, at, target)
    except SchedulerInputError as exc:
        raise mapped(exc) from None
    out["inputs"] = {"design": r.cluster.name, "design_gpus": r.cluster.gpu_count, "batch_gpus": b.gpus,
                     "jobs": len(jobs), "days": w.days, "offered_load_frac": _load(w, profile, b),
                     "policy": w.policy, "seed": w.seed, "preempt": w.preempt, "target": dataclasses.asdict(target),
                     "profile": profile.name}  # fmt: skip
    if progress is not None:
        progress(1.0)
    return out


DEFAULT_SCALES = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6)
MAX_CANDIDATES = 24
MAX_CAPACITY_JOBS = 20_000_000  # jobs simulated over all candidates of a capacity search (4 × MAX_JOBS)


def candidate_sizes(gpus: int, per_node: int, max_gpus: int | None = None) -> list[int]:
    """0.6–1.6 × the design's GPUs in whole nodes (those within ``max_gpus``, at least one node)."""
    sizes = {max(per_node, round(gpus * k / per_node) * per_node) for k in DEFAULT_SCALES}
    top = max(per_node, max_gpus // per_node * per_node) if max_gpus else None
    return sorted({min(s, top) for s in sizes} if top else sizes)


def parse_sizes(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SchedulerInputError({"gpus": f"whole GPU counts separated by commas, got {text!r}"}) from None


def check_sizes(sizes: list[int], per_node: int, ceiling: GpuCeiling = CLI_CEILING) -> None:
    """1 to MAX_CANDIDATES whole-node GPU counts, none above the entry point's ceiling (counted, not planned)."""
    bad = [s for s in sizes if isinstance(s, bool) or not isinstance(s, int) or s < per_node or s % per_node]
    if not sizes or len(sizes) > MAX_CANDIDATES or bad:
        shown = sizes if len(sizes) <= MAX_CANDIDATES + 1 else f"{len(sizes):,} counts"
        raise SchedulerInputError(
            {"gpus": f"1 to {MAX_CANDIDATES} GPU counts, each a whole number of {per_node}-GPU nodes, got {shown!r}"}
        )
    over = [s for s in sizes if s > ceiling.gpus]
    if over:
        raise SchedulerInputError(
            {
                "gpus": f"{max(over):,} GPUs is more than {ceiling.name} ({ceiling.gpus:,}), the most a candidate "
                f"may have"
            }
        )


def _batch_partition(r: Requirements) -> tuple[str, int, int]:
    """(name, GPUs, GPUs per node) of the batch partition, from the partition plan alone (no fabric, BOM or
    power): what a request needs to size a run."""
    parts = plan_scheduler(resolve(r))
    part = parts.partitions[0]
    return part.name, part.nodes.count * parts.gpus_per_node, parts.gpus_per_node


def expected_jobs(w: Workload, profile: Profile, gpus: int, partition: str) -> float:
    """The jobs the workload makes on a ``gpus``-GPU batch partition, on average (the Poisson mean; nothing is
    drawn): every refusal of the generator (profile, load, days, MAX_JOBS) under the workload's fields."""
    try:
        check_profile(profile, gpus, where=f" (batch partition {partition})")
        return expected_job_count(profile, cluster_gpus=gpus, load=w.offered_load_pct / 100, horizon_h=w.days * 24,
                                  jobs_per_day=w.jobs_per_day if w.arrival == "jobs_per_day" else None)  # fmt: skip
    except SchedulerInputError as exc:
        raise mapped(exc) from None


def _check_policies(r: Requirements, w: Workload, profile: Profile, fabric: FabricRates | None = None) -> None:
    """The policies' own checks (failures, tidal, carbon) without a plan or jobs; the carbon policy's kW per GPU
    comes from the pipeline's power plan, so the worker checks that one."""
    try:
        if w.afr_pct or fabric:
            classes = tuple(
                PartClass(k, "node", 1.0, v["afr_pct"] / 100, v["repair_h"]) for k, v in (fabric or {}).items()
            )
            FailureModel(afr=w.afr_pct / 100, repair_h=w.repair_h, restart_h=w.restart_h, seed=w.seed,
                         checkpoint_write_h=r.checkpoint.window_s / 3600, fabric=classes)  # fmt: skip
        if w.inference_demand_gpus:
            TidalPolicy(tuple(float(x) for x in w.inference_demand_gpus.split(",")))
        if w.carbon_hourly_g_per_kwh:
            values = tuple(float(x) for x in w.carbon_hourly_g_per_kwh.split(","))
            CarbonPolicy(values, w.carbon_threshold_g_per_kwh, w.carbon_max_defer_h, 1.0)
    except SchedulerInputError as exc:
        raise mapped(exc) from None


def check_run(
    r: Requirements, *, trace_text: str | None = None, trace_format: str = "ours", target: Target | None = None,
    sizes: list[int] | None = None, ceiling: GpuCeiling = CLI_CEILING, fabric: FabricRates | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Everything a run would refuse, checked before it is queued, from the requirements alone: the design is
    not planned and no job is generated (the worker does both). A generated workload is sized by its expected
    job count (the Poisson mean, :func:`expected_jobs`); a trace (bounded by its caller) is parsed for its
    row errors. Returns what the run will do: its jobs (``jobs_expected``: a mean, not a count), partition
    and profile."""
    if r.cluster.gpu_count > ceiling.gpus:
        raise SchedulerInputError({"gpu_count": f"{r.cluster.gpu_count:,} GPUs is more than {ceiling.name} "
                                                f"({ceiling.gpus:,}); simulate it from the command line"})  # fmt: skip
    w = r.workload
    partition, gpus, per_node = _batch_partition(r)
    if trace_text is not None:
        jobs, profile = make_jobs(w, Batch(partition, gpus // per_node, per_node, 0, r.node_count), trace_text,
                                  trace_format)  # fmt: skip
        count = float(len(jobs))
    else:
        profile = profile_of(w)
        count = expected_jobs(w, profile, gpus, partition)
    _check_policies(r, w, profile, fabric)
    names = [c.name for c in profile.classes]
    if target is not None:
        if trace_text is not None:
            raise SchedulerInputError({"trace": "a capacity search makes its workload from the design: no trace"})
        if target.job_class not in names:
            raise SchedulerInputError({"target.job_class": f"one of the classes: {', '.join(names)}"})
        sizes = candidate_sizes(r.cluster.gpu_count, per_node, ceiling.gpus) if sizes is None else sizes
        check_sizes(sizes, per_node, ceiling)
        check_capacity_work(count, len(set(sizes)))
    return {"jobs": round(count), "jobs_expected": trace_text is None, "partition": partition, "gpus": gpus,
            "profile": profile.name, "classes": names}  # fmt: skip


def check_capacity_work(jobs: float, candidates: int) -> None:
    """A capacity search simulates its jobs once per candidate: jobs × candidates ≤ MAX_CAPACITY_JOBS."""
    if jobs * candidates > MAX_CAPACITY_JOBS:
        raise SchedulerInputError(
            {
                "gpus": f"about {jobs:,.0f} jobs × {candidates} candidates is {jobs * candidates:,.0f} simulated "
                f"jobs; a capacity search simulates at most {MAX_CAPACITY_JOBS:,} (fewer candidates or days)"
            }
        )
