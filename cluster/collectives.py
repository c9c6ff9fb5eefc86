"""What the collective cost model sees of a design, and the at-a-glance table of the design page."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from cluster.requests import fabric_request
from cluster.requirements import Requirements, choice_label
from topology import FabricPlan, Topology, plan_fabric
from topology.clos import pod_count_of
from topology.collective_inputs import (
    NETWORK_CLASSES,
    PLATFORM_CLASSES,
    host_overhead_us,
    network_efficiency,
    network_latency_us,
)
from topology.collectives import (
    Collective,
    Fabric,
    assumptions,
    collective_cost,
    generation_for,
)
from topology.spec import ClosWiring, DragonflyWiring
from topology.switches import SWITCH_MODELS

GLANCE_SIZES_BYTES = (2**20, 2**28, 2**32)


def with_overrides(r: Requirements, overrides: dict[str, Any]) -> Requirements:
    """The design with a sweep's varied parameters applied (node count, oversubscription, NIC speed, topology)."""
    fabric = {k: overrides[k] for k in ("oversubscription", "nic_gbps", "topology") if k in overrides}
    cluster = r.cluster
    if "node_count" in overrides:
        cluster = dataclasses.replace(cluster, gpu_count=overrides["node_count"] * cluster.gpus_per_node)
    compute = dataclasses.replace(r.compute_fabric, **fabric)
    if compute.topology == Topology.TORUS_3D:
        compute = dataclasses.replace(compute, torus_dims="")  # a varied chip count gets its own cube-like shape
    return dataclasses.replace(r, cluster=cluster, compute_fabric=compute)


def _pods(plan: FabricPlan) -> int:
    w = plan.wiring
    if isinstance(w, ClosWiring):
        return pod_count_of(w) if w.tiers == 3 else plan.tiers[0].switch_count
    if isinstance(w, DragonflyWiring):
        return w.group_count
    return 1


def network_class_of(r: Requirements) -> tuple[str, str]:
    """The compute fabric's network class for the collective model, and where it came from."""
    f = r.compute_fabric
    if f.network_class:
        return f.network_class, "set in the requirements"
    model = SWITCH_MODELS.get(f.switch_model or "")
    if model is None or not model.ethernet:
        return "infiniband", f"from the switch model ({f.switch_model or 'none given'}: InfiniBand)"
    return "roce_ar", f"from the switch model ({f.switch_model}: Spectrum Ethernet, adaptive routing)"


def host_platform_of(r: Requirements) -> tuple[str, float, str]:
    """The hosts' platform class, its enqueue + launch time per call [µs], and where they came from."""
    f = r.compute_fabric
    platform = f.host_platform or ("grace_rack" if r.cluster.gpu_model in ("GB200", "GB300") else "bare_metal")
    source = "set in the requirements" if f.host_platform else f"from the GPU model ({r.cluster.gpu_model})"
    if f.host_overhead_us_per_call is not None:
        return platform, float(f.host_overhead_us_per_call), f"{source}; overhead set in the requirements"
    return platform, host_overhead_us(platform), source


def host_and_network_assumptions(r: Requirements) -> list[str]:
    """The two inputs shown beside the collective results: the network class and the host overhead, cited."""
    net, net_src = network_class_of(r)
    platform, host_us, host_src = host_platform_of(r)
    eff, lat_us, net_why = NETWORK_CLASSES[net]
    net_name, platform_name = (
        choice_label("network_class", net, short=True),
        choice_label("host_platform", platform, short=True),
    )
    return [
        f"Network class: {net_name} ({net_src}) — NCCL gets {eff:.0%} of the NIC line rate, + {lat_us:g} µs per "
        f"network step (the net plugin's latency); {net_why}.",
        f"Host overhead: {host_us:g} µs per call, platform: {platform_name} ({host_src}) — a call takes at least "
        f"this long (nccl-tests times host enqueue + kernel launch); default {PLATFORM_CLASSES[platform][1]}.",
    ]


def collective_fabric(
    r: Requirements, overrides: dict[str, Any] | None = None, plan: FabricPlan | None = None
) -> tuple[dict[str, Any], str]:
    """The collective model's view of a design (NVLink domain, NICs, taper, pods), and a label.

    ``plan`` is the design's own fabric plan when the caller has it (no overrides)."""
    overrides = overrides or {}
    req = with_overrides(r, overrides) if overrides else r
    if plan is None or overrides:
        plan = plan_fabric(fabric_request(req))
    f, gpus = req.compute_fabric, req.cluster.gpu_count
    gen = generation_for(r.cluster.gpu_model)  # a GPU NCCL does not run on is refused, not mapped
    g, nodes, nics = req.cluster.gpus_per_node, req.node_count, f.nics_per_node
    torus = plan.topology == Topology.TORUS_3D
    if gen.nvlink_domain_gpus and not torus:
        dom = min(gen.nvlink_domain_gpus, gpus)
        nics, nodes, g = nics * dom // g, math.ceil(gpus / dom), dom
    oversub = float(plan.extras.get("oversubscription_end_to_end_ratio", f.oversubscription))
    if plan.topology == Topology.DRAGONFLY_PLUS:
        oversub = float(plan.extras.get("global_oversubscription_ratio") or 1.0)
    # a small fabric can have more uplink than NIC capacity (e.g. 16 GPUs on one leaf pair: 0.988:1);
    # a collective cannot run faster than its NICs, so for the model that taper is 1:1
    oversub = max(1.0, oversub)
    fabric = {
        "gpus_per_node": 1 if torus else g,
        "node_count": plan.endpoint_count if torus else nodes,
        "nvlink_gbyte_s": gen.nvlink_gbyte_s or float(f.torus_link_gbps) / 8,  # ICI: no NVLink, unused by the torus
        "nics_per_node": nics,
        "nic_gbps": float(f.nic_gbps),
        "nvls": gen.nvls,
        "arch": gen.arch,
        "sharp": plan.topology in (Topology.RAIL_OPTIMIZED, Topology.FAT_TREE)
        and (f.switch_model or "").startswith("Q"),
        "oversubscription": oversub,
        "pods": int(_pods(plan)),
        "rail_optimized": plan.topology == Topology.RAIL_OPTIMIZED,
        "torus_dims": list(plan.wiring.dims) if torus else None,
        "torus_link_gbps": float(f.torus_link_gbps),
        "switch_radix": int(f.switch_radix),
        "nic_efficiency": network_efficiency(network_class_of(req)[0]),
        "host_overhead_us": host_platform_of(req)[1],
        "net_latency_us": network_latency_us(network_class_of(req)[0]),
    }
    label = f"{gpus:,} GPUs, {choice_label('topology', f.topology)}, {float(f.nic_gbps):g}G, {oversub:g}:1"
    return fabric, label


def collectives_summary(r: Requirements, plan: FabricPlan | None = None) -> dict[str, Any]:
    """NCCL-style cost of each collective at 1 MiB, 256 MiB and 4 GiB on this design (or why not)."""
    try:
        fabric, label = collective_fabric(r, plan=plan)
        f = Fabric.from_dict(fabric)
    except ValueError as e:  # a GPU or fabric the model does not cover: say so instead of a table
        return {"fabric": r.cluster.gpu_model, "rows": [], "refused": str(e),
                "assumptions": host_and_network_assumptions(r) + assumptions()}  # fmt: skip
    rows = []
    for coll in Collective:
        cost = collective_cost(coll, np.array(GLANCE_SIZES_BYTES, dtype=float), f)
        for i, size in enumerate(GLANCE_SIZES_BYTES):
            t = float(cost.time_us[i])
            rows.append(
                {
                    "collective": coll.value,
                    "size_bytes": size,
                    "time_us": round(t, 3) if np.isfinite(t) else None,
                    "busbw_gbyte_s": round(float(cost.busbw_gbyte_s[i]), 3),
                    "algorithm": str(cost.algorithm[i]),
                    "protocol": str(cost.protocol[i]),
                }
            )
    return {"fabric": label, "rows": rows, "assumptions": host_and_network_assumptions(r) + assumptions()}
