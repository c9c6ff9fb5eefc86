"""Kubernetes manifests for the nodes the partition plan gives Kubernetes (pure).

API versions (stated in every object, as the releases that define them):
- ``kueue.x-k8s.io/v1beta1``: ResourceFlavor, ClusterQueue, LocalQueue (Kueue ≥ 0.5);
  ``kueue.x-k8s.io/v1alpha1``: Topology (topology-aware scheduling, Kueue ≥ 0.9; levels from the
  widest domain to the node, each a node label).
- ``scheduling.volcano.sh/v1beta1``: Queue (Volcano ≥ 1.x; ``weight`` for the proportion plugin,
  ``capability`` the cap, ``reclaimable``).
- ``v1``: Namespace per tenant (seed §14.6.1: a namespace per team).

Node labels (a ``kubectl label`` script, since the kubelet registers Node objects itself): the GPU
product (``nvidia.com/gpu.product``, as NVIDIA's GPU feature discovery names it) and the fabric
locality the Topology object lists — pod, scalable unit (rail-optimized fabrics), leaf group (a
scalable unit's rail leaves, or one leaf) and ``kubernetes.io/hostname``.

Quotas: each tenant's nominal GPU quota is its share of the Kubernetes GPUs, rounded by largest
remainder so the quotas add up to the GPUs exactly; all ClusterQueues share one cohort, so idle
quota is borrowed (seed §14.6.1's soft quota) up to the cohort's GPUs.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR

import yaml

from scheduling.partitions import PartitionPlan
from scheduling.quoting import comment_text
from scheduling.slurm_topology import NodeLocality

LABEL_POD = "fabric.cluster-designer.io/pod"
LABEL_LEAF = "fabric.cluster-designer.io/leaf-group"
LABEL_SU = "fabric.cluster-designer.io/su"
GPU_PRODUCTS = {
    "A100": "NVIDIA-A100-SXM4-80GB",
    "H100": "NVIDIA-H100-80GB-HBM3",
    "H200": "NVIDIA-H200",
    "B200": "NVIDIA-B200",
    "B300": "NVIDIA-B300",
    "GB200": "NVIDIA-GB200",
    "GB300": "NVIDIA-GB300",
}


LABEL_MODE = "fabric.cluster-designer.io/gpu-mode"
MIG_CONFIG = "cluster-designer"


def split_by_share(parts: PartitionPlan, total: int) -> dict[str, int]:
    """Tenant → whole units of ``total``: floor of share × total, the rest by largest remainder."""
    raw = {t.name: t.share_pct * total / 100 for t in parts.tenants}
    out = {n: int(v.to_integral_value(rounding=ROUND_FLOOR)) for n, v in raw.items()}
    rest = total - sum(out.values())
    for name in sorted(raw, key=lambda n: (-(raw[n] - out[n]), list(raw).index(n)))[:rest]:
        out[name] += 1
    return out


def full_gpus(parts: PartitionPlan) -> int:
    """Kubernetes GPUs not split by MIG."""
    return (parts.kubernetes.count - parts.mig_nodes.count) * parts.gpus_per_node


def mig_instances(parts: PartitionPlan) -> dict[str, int]:
    """MIG profile → instances on all MIG nodes."""
    out: dict[str, int] = {}
    if parts.mig is not None:
        for g in parts.mig.groups:
            for profile, n in g.layout.items():
                out[profile] = out.get(profile, 0) + n * len(g.gpus) * parts.mig_nodes.count
    return out


def quotas(parts: PartitionPlan) -> dict[str, int]:
    """Tenant → whole GPUs of the Kubernetes GPUs not split by MIG (largest remainder: they add up exactly)."""
    return split_by_share(parts, full_gpus(parts))


def gpu_product(parts: PartitionPlan) -> str:
    return GPU_PRODUCTS.get(parts.gres_type, parts.gres_type)


def _resource_groups(parts: PartitionPlan, tenant: str, q: dict[str, int], mig: dict[str, dict[str, int]]):
    gpus = full_gpus(parts)
    groups = []
    if gpus:
        res = [{"name": "nvidia.com/gpu", "nominalQuota": q[tenant], "borrowingLimit": gpus - q[tenant]}]
        groups.append({"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "gpu", "resources": res}]})
    if mig:
        res = [
            {"name": f"nvidia.com/mig-{p}", "nominalQuota": mig[p][tenant], "borrowingLimit": total - mig[p][tenant]}
            for p, total in mig_instances(parts).items()
        ]
        groups.append(
            {"coveredResources": [r["name"] for r in res], "flavors": [{"name": "gpu-mig", "resources": res}]}
        )
    return groups


def _mig_objects(parts: PartitionPlan) -> list[dict]:
    """The GPU Operator's MIG manager config (a ConfigMap it is pointed at) and the MIG flavor."""
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "cluster-designer-mig-config", "namespace": "gpu-operator"},
            "data": {"config.yaml": parts.mig.mig_parted(MIG_CONFIG)},
        },
        {
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "ResourceFlavor",
            "metadata": {"name": "gpu-mig"},
            "spec": {"nodeLabels": {LABEL_MODE: "mig"}, "topologyName": "fabric"},
        },
    ]


def kueue_and_volcano(parts: PartitionPlan, *, title: str, scalable_units: bool) -> str:
    """Namespaces, the Kueue Topology / ResourceFlavors / ClusterQueues / LocalQueues, Volcano Queues and, where
    MIG is planned, the MIG manager's config."""
    title = comment_text(title)  # user text: one comment line
    k8s_gpus = parts.kubernetes.count * parts.gpus_per_node
    if not k8s_gpus:
        return f"# Kubernetes — {title}: no compute node is planned for Kubernetes (scheduler.kubernetes_node_count)\n"
    q = quotas(parts)
    mig = {p: split_by_share(parts, n) for p, n in mig_instances(parts).items()}
    docs: list[dict] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"team-{t.name}"}} for t in parts.tenants
    ]
    levels = [{"nodeLabel": LABEL_POD}, *([{"nodeLabel": LABEL_SU}] if scalable_units else []),
              {"nodeLabel": LABEL_LEAF}, {"nodeLabel": "kubernetes.io/hostname"}]  # fmt: skip
    docs.append(
        {"apiVersion": "kueue.x-k8s.io/v1alpha1", "kind": "Topology", "metadata": {"name": "fabric"},
         "spec": {"levels": levels}}
    )  # fmt: skip
    if full_gpus(parts):
        labels = {"nvidia.com/gpu.product": gpu_product(parts), LABEL_MODE: "full"}
        docs.append(
            {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "gpu"},
             "spec": {"nodeLabels": labels, "topologyName": "fabric"}}
        )  # fmt: skip
    if parts.mig is not None:
        docs += _mig_objects(parts)
    for t in parts.tenants:
        docs.append(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta1",
                "kind": "ClusterQueue",
                "metadata": {"name": t.name, "annotations": {"share": f"{t.share_pct} %"}},
                "spec": {
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": f"team-{t.name}"}},
                    "cohort": "gpu",
                    "resourceGroups": _resource_groups(parts, t.name, q, mig),
                    "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                },
            }
        )
        docs.append(
            {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
             "metadata": {"name": "default", "namespace": f"team-{t.name}"}, "spec": {"clusterQueue": t.name}}
        )  # fmt: skip
    for t in parts.tenants:
        docs.append(
            {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": t.name},
             "spec": {"weight": max(1, int(t.share_pct)), "reclaimable": True,
                      "capability": {"nvidia.com/gpu": full_gpus(parts)}}}
        )  # fmt: skip
    head = [
        f"# Kubernetes — {title}: {parts.hostlist(parts.kubernetes)} ({k8s_gpus:,} GPUs). Kueue quotas by tenant "
        f"share ({', '.join(f'{n} {v}' for n, v in q.items())} GPUs), one cohort to borrow idle quota; Volcano "
        "queues for the same tenants (use one of the two schedulers)."
    ]
    if parts.mig is not None:
        head.append(
            f"# MIG on {parts.hostlist(parts.mig_nodes)}: {parts.mig.derivation}. Point the GPU Operator at the "
            "ConfigMap (clusterpolicy spec.migManager.config.name: cluster-designer-mig-config, mig.strategy: "
            "mixed); label-nodes.sh sets nvidia.com/mig.config on those nodes."
        )
    return "\n".join(head) + "\n" + yaml.safe_dump_all(docs, sort_keys=False)


def label_script(parts: PartitionPlan, where: list[NodeLocality], *, title: str) -> str:
    """``kubectl label`` for every Kubernetes node: GPU product, pod and leaf group."""
    title = comment_text(title)  # user text: one comment line
    lines = ["#!/bin/sh", f"# node labels — {title}: the fabric locality Kueue's Topology reads", "set -e"]
    mig_nodes = set(parts.names(parts.mig_nodes))
    for loc in where:
        mode = f"{LABEL_MODE}=mig nvidia.com/mig.config={MIG_CONFIG}" if loc.node in mig_nodes else f"{LABEL_MODE}=full"
        lines.append(
            f"kubectl label --overwrite node {loc.node} nvidia.com/gpu.product={gpu_product(parts)} "
            f"{LABEL_POD}={loc.pod} " + (f"{LABEL_SU}={loc.su} " if loc.su else "") + f"{LABEL_LEAF}={loc.leaf} {mode}"
        )
    return "\n".join([*lines, ""])
