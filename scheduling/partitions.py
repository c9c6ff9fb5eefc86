"""The partition plan: which compute nodes Slurm runs and which Kubernetes gets, the Slurm
partitions over them, the QoS tiers and the tenants' fair shares (pure).

The seed chapter's §14.8.5 splits its 250 nodes into Slurm batch training (200 nodes, 1,600 GPUs)
and Kubernetes for interactive work and inference (50 nodes, 400 GPUs), then writes
``PartitionName=gpu-large Nodes=gpu[001-200]`` and ``PartitionName=gpu-interactive
Nodes=gpu[151-200]``. Those two Slurm partitions overlap on 50 nodes, and the 50 Kubernetes nodes
(gpu[201-250]) are in neither: the Kubernetes share is a node range outside slurm.conf, and the
interactive partition is a slice of the Slurm nodes — inside the batch partition (overlapping, as the
seed writes it) or carved out of it. Here the Kubernetes nodes are the last ``kubernetes_node_count``
nodes, the interactive ones the last ``interactive_node_count`` Slurm nodes.

QoS tiers (§14.8.5 and §14.3.3): ``production`` (Priority 10000, MaxWall 90 days, 10 jobs and 100
submitted per user, 1,024 GPUs per user), ``dev`` (1000, 7 days, 30 / 500, 128 GPUs) and
``preemptible`` (requeued when a higher tier needs its GPUs; §14.3.3 recommends requeue with
checkpoints over cancel or suspend, since a suspended job keeps its GPU memory). §14.3.3 lists
``sacctmgr add qos preemptible Priority`` without a value: here it is 100, a tenth of dev's as dev's
is a tenth of production's, with no wall, job or GPU limits of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from scheduling import SchedulerInputError
from scheduling.hostlist import name_width, node_names, range_hostlist
from scheduling.mig import MigPlan, plan_mig


@dataclass(frozen=True)
class NodeRange:
    """Nodes ``first`` … ``first + count − 1`` (1-based, as Slurm names them)."""

    first: int
    count: int

    @property
    def last(self) -> int:
        return self.first + self.count - 1


@dataclass(frozen=True)
class Partition:
    name: str
    nodes: NodeRange
    max_time_h: int
    default_time_h: int
    exclusive: bool  # OverSubscribe=EXCLUSIVE: whole nodes per job (training); NO: shared by cores/GPUs
    default: bool
    derivation: str


@dataclass(frozen=True)
class QosTier:
    name: str
    priority: int
    max_wall_days: int | None
    max_jobs_per_user: int | None
    max_submit_jobs: int | None  # GrpSubmitJobs
    max_gpus_per_user: int | None
    preempts: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class Tenant:
    name: str
    share_pct: Decimal


@dataclass(frozen=True)
class PartitionPlan:
    node_prefix: str
    name_width: int
    gpus_per_node: int
    gres_type: str
    node_count: int
    slurm: NodeRange
    kubernetes: NodeRange
    partitions: tuple[Partition, ...]
    qos: tuple[QosTier, ...]
    tenants: tuple[Tenant, ...]
    derivations: dict[str, str]
    mig_nodes: NodeRange  # the first Kubernetes nodes; count 0 without MIG
    mig: MigPlan | None

    def names(self, r: NodeRange) -> list[str]:
        return node_names(self.node_prefix, r.first, r.count, self.name_width)

    def hostlist(self, r: NodeRange) -> str:
        return range_hostlist(self.node_prefix, r.first, r.count, self.name_width) if r.count else ""

    @property
    def slurm_gpu_count(self) -> int:
        return self.slurm.count * self.gpus_per_node

    def to_dict(self) -> dict[str, Any]:
        return {
            "slurm_nodes": self.hostlist(self.slurm),
            "slurm_node_count": self.slurm.count,
            "slurm_gpu_count": self.slurm_gpu_count,
            "kubernetes_nodes": self.hostlist(self.kubernetes),
            "kubernetes_node_count": self.kubernetes.count,
            "kubernetes_gpu_count": self.kubernetes.count * self.gpus_per_node,
            "gres": f"gpu:{self.gres_type}:{self.gpus_per_node}",
            "partitions": [
                {
                    "name": p.name,
                    "nodes": self.hostlist(p.nodes),
                    "node_count": p.nodes.count,
                    "gpu_count": p.nodes.count * self.gpus_per_node,
                    "max_time_h": p.max_time_h,
                    "default_time_h": p.default_time_h,
                    "exclusive": p.exclusive,
                    "default": p.default,
                    "derivation": p.derivation,
                }
                for p in self.partitions
            ],
            "qos": [
                {
                    "name": q.name,
                    "priority": q.priority,
                    "max_wall_days": q.max_wall_days,
                    "max_jobs_per_user": q.max_jobs_per_user,
                    "max_submit_jobs": q.max_submit_jobs,
                    "max_gpus_per_user": q.max_gpus_per_user,
                    "preempts": list(q.preempts),
                    "source": q.source,
                }
                for q in self.qos
            ],
            "tenants": [{"name": t.name, "share_pct": str(t.share_pct)} for t in self.tenants],
            "mig": None
            if self.mig is None
            else {
                "nodes": self.hostlist(self.mig_nodes),
                "node_count": self.mig_nodes.count,
                "layout": [{"gpus": list(g.gpus), "layout": g.layout} for g in self.mig.groups],
                "instances_per_node": self.mig.instance_count,
                "derivation": self.mig.derivation,
            },
            "derivations": dict(self.derivations),
        }


def gres_type(gpu_model: str) -> str:
    """The GRES type Slurm jobs ask for (``--gres=gpu:H100:8``, seed §14.3.2): the model's family name."""
    return gpu_model.split("-")[0]


def parse_tenants(text: str) -> tuple[Tenant, ...]:
    """``nlp:40,cv:35,inference:25`` → tenants; names unique, shares > 0 summing to exactly 100 %."""
    tenants, seen = [], set()
    for item in text.split(","):
        name, _, share = item.partition(":")
        try:
            pct = Decimal(share)
        except InvalidOperation:
            raise SchedulerInputError({"tenants": f"{item!r}: the share must be a number of percent"}) from None
        if name in seen:
            raise SchedulerInputError({"tenants": f"{name!r} is listed twice"})
        if pct <= 0:
            raise SchedulerInputError({"tenants": f"{name!r}: a share must be above 0 %"})
        seen.add(name)
        tenants.append(Tenant(name, pct))
    total = sum((t.share_pct for t in tenants), Decimal(0))
    if total != 100:
        raise SchedulerInputError({"tenants": f"the shares add up to {total} %, not 100 %"})
    return tuple(tenants)


def _qos(s: Any) -> tuple[QosTier, ...]:
    seed = "seed §14.8.5"
    return (
        QosTier("production", 10000, s.production_max_wall_days, 10, 100, s.production_max_gpus_per_user,
                ("preemptible",), seed),
        QosTier("dev", 1000, s.dev_max_wall_days, 30, 500, s.dev_max_gpus_per_user, ("preemptible",), seed),
        QosTier("preemptible", 100, None, None, None, None, (),
                "seed §14.3.3: requeued (from its checkpoint) when production or dev needs the GPUs"),
    )  # fmt: skip


def _check(s: Any, node_count: int, gpus_per_node: int) -> dict[str, str]:
    errors: dict[str, str] = {}
    k8s = s.kubernetes_node_count
    if k8s >= node_count:
        errors["kubernetes_node_count"] = (
            f"{k8s:,} Kubernetes nodes leave none of the {node_count:,} compute nodes for Slurm; "
            f"allowed: 0 to {node_count - 1:,}"
        )
        return errors
    slurm = node_count - k8s
    inter = s.interactive_node_count
    top = slurm if s.interactive_overlaps_batch else slurm - 1
    if inter > top:
        why = "" if s.interactive_overlaps_batch else " and leave the batch partition at least one (no overlap)"
        errors["interactive_node_count"] = (
            f"the interactive partition can take at most {top:,} of the {slurm:,} Slurm nodes{why}; got {inter:,}"
        )
    if inter and s.interactive_partition == s.batch_partition:
        errors["interactive_partition"] = f"the two partitions need different names; both are {s.batch_partition!r}"
    for part in ("batch", "interactive"):
        default_h, max_h = getattr(s, f"{part}_default_time_h"), getattr(s, f"{part}_max_time_h")
        if default_h > max_h:
            errors[f"{part}_default_time_h"] = (
                f"the default time ({default_h} h) is longer than the partition's limit ({max_h} h)"
            )
    gpus = slurm * gpus_per_node
    for tier in ("production", "dev"):
        cap = getattr(s, f"{tier}_max_gpus_per_user")
        if cap is not None and cap > gpus:
            errors[f"{tier}_max_gpus_per_user"] = (
                f"{cap:,} GPUs per user is more than Slurm's {gpus:,} GPUs ({slurm:,} nodes × {gpus_per_node}); "
                f"allowed: 1 to {gpus:,}"
            )
    try:
        parse_tenants(s.tenants)
    except SchedulerInputError as exc:
        errors.update(exc.errors)
    if s.mig_node_count > k8s:
        errors["mig_node_count"] = (
            f"MIG nodes are Kubernetes nodes: at most the {k8s:,} planned (kubernetes_node_count), "
            f"got {s.mig_node_count:,}"
        )
    elif s.mig_node_count and not s.mig_demand:
        errors["mig_demand"] = "say which MIG instances the MIG nodes carry (profile=count, …)"
    elif s.mig_demand and not s.mig_node_count:
        errors["mig_node_count"] = "MIG instances are asked for: give the number of Kubernetes nodes that carry them"
    return errors


def mig_demand(text: str) -> dict[str, int]:
    """``1g.10gb=28, 2g.20gb=6`` → {profile: count}; a profile twice is refused."""
    out: dict[str, int] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        profile, _, count = item.partition("=")
        if profile in out:
            raise SchedulerInputError({"mig_demand": f"{profile} is listed twice"})
        out[profile] = int(count)
    return out


def _plan_mig(s: Any, gpus_per_node: int, gpu_model: str) -> MigPlan | None:
    if not s.mig_node_count:
        return None
    try:
        return plan_mig(gpu_model, gpus_per_node, mig_demand(s.mig_demand))
    except SchedulerInputError as exc:  # the planner's own keys (demand.*, gpu_model, gpu_count) are this field's
        raise SchedulerInputError({"mig_demand": "; ".join(exc.errors.values())}) from None


def plan_partitions(s: Any, *, node_count: int, gpus_per_node: int, gpu_model: str) -> PartitionPlan:
    """The partition plan of ``s`` (a ``cluster.requirements.Scheduler``) for ``node_count`` compute nodes."""
    errors = _check(s, node_count, gpus_per_node)
    if errors:
        raise SchedulerInputError(errors)
    k8s = s.kubernetes_node_count
    slurm = NodeRange(1, node_count - k8s)
    kube = NodeRange(slurm.last + 1, k8s)
    inter = s.interactive_node_count
    batch = NodeRange(1, slurm.count if s.interactive_overlaps_batch or not inter else slurm.count - inter)
    width = name_width(node_count)
    name = lambda i: f"{s.node_prefix}{i:0{width}d}"  # noqa: E731
    parts = [
        Partition(
            s.batch_partition, batch, s.batch_max_time_h, s.batch_default_time_h, True, True,
            f"nodes {name(batch.first)}–{name(batch.last)}: the {slurm.count:,} Slurm nodes"
            + (f" less the {inter:,} interactive ones" if inter and not s.interactive_overlaps_batch else "")
            + "; whole nodes per job (OverSubscribe=EXCLUSIVE, seed §14.8.5)",
        )
    ]  # fmt: skip
    if inter:
        ir = NodeRange(slurm.last - inter + 1, inter)
        parts.append(
            Partition(
                s.interactive_partition, ir, s.interactive_max_time_h, s.interactive_default_time_h, False, False,
                f"the last {inter:,} Slurm nodes {name(ir.first)}–{name(ir.last)}"
                + (", also in the batch partition (as the seed's gpu[151-200] inside gpu[001-200])"
                   if s.interactive_overlaps_batch else ", carved out of the batch partition"),
            )
        )  # fmt: skip
    derivations = {
        "slurm_node_count": f"{node_count:,} compute nodes − {k8s:,} for Kubernetes = {slurm.count:,} Slurm nodes "
        f"× {gpus_per_node} GPUs = {slurm.count * gpus_per_node:,} GPUs",
        "kubernetes_node_count": (
            f"the last {k8s:,} nodes {name(kube.first)}–{name(kube.last)} ({k8s * gpus_per_node:,} GPUs), "
            "outside slurm.conf: Kubernetes runs them"
            if k8s
            else "none: every compute node runs Slurm"
        ),
    }
    mig = _plan_mig(s, gpus_per_node, gpu_model)
    if mig is not None:
        derivations["mig"] = (
            f"the first {s.mig_node_count:,} Kubernetes nodes, each {mig.derivation}; "
            f"{s.mig_node_count * mig.instance_count:,} MIG instances in all"
        )
    return PartitionPlan(
        node_prefix=s.node_prefix,
        name_width=width,
        gpus_per_node=gpus_per_node,
        gres_type=gres_type(gpu_model),
        node_count=node_count,
        slurm=slurm,
        kubernetes=kube,
        partitions=tuple(parts),
        qos=_qos(s),
        tenants=parse_tenants(s.tenants),
        derivations=derivations,
        mig_nodes=NodeRange(kube.first, s.mig_node_count),
        mig=mig,
    )
