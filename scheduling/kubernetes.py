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
locality the Topology object lists — pod, leaf group (a scalable unit's rail leaves, or one leaf)
and ``kubernetes.io/hostname``.

Quotas: each tenant's nominal GPU quota is its share of the Kubernetes GPUs, rounded by largest
remainder so the quotas add up to the GPUs exactly; all ClusterQueues share one cohort, so idle
quota is borrowed (seed §14.6.1's soft quota) up to the cohort's GPUs.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR

import yaml

from scheduling.partitions import PartitionPlan
from scheduling.slurm_topology import NodeLocality

LABEL_POD = "fabric.cluster-designer.io/pod"
LABEL_LEAF = "fabric.cluster-designer.io/leaf-group"
GPU_PRODUCTS = {
    "A100": "NVIDIA-A100-SXM4-80GB",
    "H100": "NVIDIA-H100-80GB-HBM3",
    "H200": "NVIDIA-H200",
    "B200": "NVIDIA-B200",
    "B300": "NVIDIA-B300",
    "GB200": "NVIDIA-GB200",
    "GB300": "NVIDIA-GB300",
}


def quotas(parts: PartitionPlan) -> dict[str, int]:
    """Tenant → whole GPUs of the Kubernetes share: floor of share × GPUs, the rest by largest remainder."""
    gpus = parts.kubernetes.count * parts.gpus_per_node
    raw = {t.name: t.share_pct * gpus / 100 for t in parts.tenants}
    out = {n: int(v.to_integral_value(rounding=ROUND_FLOOR)) for n, v in raw.items()}
    rest = gpus - sum(out.values())
    for name in sorted(raw, key=lambda n: (-(raw[n] - out[n]), list(raw).index(n)))[:rest]:
        out[name] += 1
    return out


def gpu_product(parts: PartitionPlan) -> str:
    return GPU_PRODUCTS.get(parts.gres_type, parts.gres_type)


def kueue_and_volcano(parts: PartitionPlan, *, title: str) -> str:
    """Namespaces, the Kueue Topology / ResourceFlavor / ClusterQueues / LocalQueues and Volcano Queues."""
    gpus = parts.kubernetes.count * parts.gpus_per_node
    if not gpus:
        return f"# Kubernetes — {title}: no compute node is planned for Kubernetes (scheduler.kubernetes_node_count)\n"
    q = quotas(parts)
    docs: list[dict] = []
    for t in parts.tenants:
        docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"team-{t.name}"}})
    docs.append(
        {
            "apiVersion": "kueue.x-k8s.io/v1alpha1",
            "kind": "Topology",
            "metadata": {"name": "fabric"},
            "spec": {
                "levels": [{"nodeLabel": LABEL_POD}, {"nodeLabel": LABEL_LEAF}, {"nodeLabel": "kubernetes.io/hostname"}]
            },
        }
    )
    docs.append(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "ResourceFlavor",
            "metadata": {"name": "gpu"},
            "spec": {"nodeLabels": {"nvidia.com/gpu.product": gpu_product(parts)}, "topologyName": "fabric"},
        }
    )
    for t in parts.tenants:
        docs.append(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta1",
                "kind": "ClusterQueue",
                "metadata": {"name": t.name, "annotations": {"share": f"{t.share_pct} % of {gpus} GPUs"}},
                "spec": {
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": f"team-{t.name}"}},
                    "cohort": "gpu",
                    "resourceGroups": [
                        {
                            "coveredResources": ["nvidia.com/gpu"],
                            "flavors": [
                                {
                                    "name": "gpu",
                                    "resources": [
                                        {
                                            "name": "nvidia.com/gpu",
                                            "nominalQuota": q[t.name],
                                            "borrowingLimit": gpus - q[t.name],
                                        }
                                    ],
                                }
                            ],
                        }
                    ],
                    "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                },
            }
        )
        docs.append(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta1",
                "kind": "LocalQueue",
                "metadata": {"name": "default", "namespace": f"team-{t.name}"},
                "spec": {"clusterQueue": t.name},
            }
        )
    for t in parts.tenants:
        docs.append(
            {
                "apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "Queue",
                "metadata": {"name": t.name},
                "spec": {
                    "weight": max(1, int(t.share_pct)),
                    "reclaimable": True,
                    "capability": {"nvidia.com/gpu": gpus},
                },
            }
        )
    head = (
        f"# Kubernetes — {title}: {parts.hostlist(parts.kubernetes)} ({gpus:,} GPUs); Kueue quotas by tenant share "
        f"({', '.join(f'{n} {v}' for n, v in q.items())}), one cohort to borrow idle quota; Volcano queues for the "
        "same tenants (use one of the two schedulers)\n"
    )
    return head + yaml.safe_dump_all(docs, sort_keys=False)


def label_script(parts: PartitionPlan, where: list[NodeLocality], *, title: str) -> str:
    """``kubectl label`` for every Kubernetes node: GPU product, pod and leaf group."""
    lines = ["#!/bin/sh", f"# node labels — {title}: the fabric locality Kueue's Topology reads", "set -e"]
    for loc in where:
        lines.append(
            f"kubectl label --overwrite node {loc.node} nvidia.com/gpu.product={gpu_product(parts)} "
            f"{LABEL_POD}={loc.pod} {LABEL_LEAF}={loc.leaf}"
        )
    return "\n".join([*lines, ""])
