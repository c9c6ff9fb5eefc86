"""A design's workload section, typed (pure): its job classes, where they run, and its errors.

The batch partition (the first of scheduling/partitions.py) is where the workload runs; a class
larger than it refuses the design in the pipeline (plan_cluster), so the form, the API and the CLI
say so on ``workload.classes`` when the design is saved, not when it is simulated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cluster.requirements import Workload
from cluster.validate import RequirementsError
from scheduling import SchedulerInputError
from scheduling.partitions import NodeRange
from scheduling.slurm_topology import node_localities, slurm_topology
from scheduling.workload import SEED_TABLE_14_24, Profile, check_profile, parse_classes

# the simulator's own input names → the requirement field (or run input) a user typed
FIELD_OF = {
    "classes": "workload.classes", "load": "workload.offered_load_pct", "jobs_per_day": "workload.jobs_per_day",
    "horizon_h": "workload.days", "policy": "workload.policy", "preempt": "workload.preempt",
    "failures.afr": "workload.afr_pct", "failures.repair_h": "workload.repair_h",
    "failures.restart_h": "workload.restart_h", "tidal.demand_gpus": "workload.inference_demand_gpus",
    "carbon.intensity_g_per_kwh": "workload.carbon_hourly_g_per_kwh",
    "carbon.threshold_g_per_kwh": "workload.carbon_threshold_g_per_kwh",
    "carbon.max_defer_h": "workload.carbon_max_defer_h",
}  # fmt: skip


def mapped(exc: SchedulerInputError) -> SchedulerInputError:
    """The same errors under the requirement fields they belong to (``classes.2.max_gpus`` → ``workload.classes``)."""
    out: dict[str, str] = {}
    for key, message in exc.errors.items():
        parts = key.split(".")
        if parts[0] == "classes" and len(parts) == 3:
            key, message = "classes", f"class {int(parts[1]) + 1}: {parts[2]} {message}"
        name = FIELD_OF.get(key, key)
        out[name] = f"{out[name]}; {message}" if name in out else message
    return SchedulerInputError(out)


@dataclass(frozen=True)
class Batch:
    """Where the workload runs: the batch partition of a plan."""

    partition: str
    node_count: int
    gpus_per_node: int
    leaf_nodes: int  # nodes per leaf group placement packs into (0: none)
    design_nodes: int
    hierarchy: tuple | None = None  # (groups, pods, pod count) of the batch nodes: the fabric plan's Slurm leaves
    design_hierarchy: tuple | None = None  # … of every node of the design (the pooled run of the split's effect)

    @property
    def pod_count(self) -> int:
        return self.hierarchy[2] if self.hierarchy else 1

    def placement(self, pooled: bool = False) -> dict[str, Any]:
        """simulate()'s placement arguments: the leaf group of every node and the pod of every group."""
        h = self.design_hierarchy if pooled else self.hierarchy
        return {"leaf_nodes": self.leaf_nodes, "groups": list(h[0]) if h else None, "pods": list(h[1]) if h else None}

    @property
    def gpus(self) -> int:
        return self.node_count * self.gpus_per_node


def batch_of(plan: Any) -> Batch:
    """The batch partition of a plan (a ClusterPlan, or anything with its fabric, scheduler and requirements)."""
    parts = plan.scheduler
    part = parts.partitions[0]
    topo = slurm_topology(plan.fabric, parts)
    leaf = max((len(s.nodes) for s in topo.level(0)), default=0) if topo else 0
    batch = design = None
    if topo is not None and part.nodes.count:
        where = node_localities(plan.fabric, parts, parts.names(NodeRange(1, parts.node_count)))
        first = part.nodes.first - 1
        batch, design = _hierarchy(where[first : first + part.nodes.count]), _hierarchy(where)
    return Batch(part.name, part.nodes.count, parts.gpus_per_node, leaf, plan.requirements.node_count, batch, design)


def _hierarchy(where: list) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(the group index of every node, the pod index of every group, pods), numbered in node order."""
    leaf_ids: dict[str, int] = {}
    pod_ids: dict[str, int] = {}
    groups = tuple(leaf_ids.setdefault(w.leaf, len(leaf_ids)) for w in where)
    pod_of = {leaf_ids[w.leaf]: pod_ids.setdefault(w.pod, len(pod_ids)) for w in where}
    return groups, tuple(pod_of[g] for g in range(len(leaf_ids))), len(pod_ids)


def profile_of(w: Workload) -> Profile:
    """The design's classes, or the seed's Table 14-24 when it gives none (said in every report)."""
    if not w.classes.strip():
        return Profile(SEED_TABLE_14_24.classes, "the seed's Table 14-24 (the design gives no job classes)")
    return Profile(parse_classes(w.classes), "the design's job classes")


def check_fits_batch(plan: Any) -> None:
    """The pipeline's check (plan_cluster): a class larger than the batch partition refuses the design."""
    if not plan.requirements.workload.classes.strip() or plan.scheduler is None:
        return
    b = batch_of(plan)
    try:
        check_profile(profile_of(plan.requirements.workload), b.gpus, where=f" (its batch partition {b.partition})")
    except SchedulerInputError as exc:
        raise RequirementsError({"wl_classes": list(mapped(exc).errors.values())}, unprocessable=True) from None
