"""Rail-optimized fabric (NVIDIA DGX SuperPOD style).

Seed chapter §14.1.3 and the 2,000-GPU design of §14.8: a node with R GPUs has R NICs,
NIC r of every node goes to rail r; per rail, leaves take half their ports down to
node NICs and half up (1:1); scalable units (SUs) of nodes share one set of rail
leaves; the spines are shared by all rails so cross-rail traffic stays on the
fabric when PXN cannot keep it on NVLink. A third (core) tier is added when two
tiers cannot reach the endpoint count at the radix. ``tiers=1`` builds a rail-only
network (one switch per rail, no spines).
"""

from __future__ import annotations

import math

from topology.clos import LeafLayer
from topology.fat_tree import plan_clos
from topology.sizing import port_split
from topology.spec import FabricPlan, FabricRequest, FabricRequestError, Topology


def rail_leaf_layer(req: FabricRequest, tiers: int) -> LeafLayer:
    k = req.switch_radix
    rails = req.nics_per_node
    if tiers == 1:
        if req.node_count > k:
            raise FabricRequestError.single(
                "node_count",
                f"{req.node_count:,} nodes do not fit on one {k}-port leaf per rail (1 tier); use 2 or 3 tiers",
            )
        return LeafLayer(req.endpoint_count, rails, req.node_count, req.node_count, 1, k, 0, req.nic_gbps, 1.0)
    split = port_split(k, req.nic_gbps, req.switch_port_gbps, req.oversubscription)
    su_nodes = req.scalable_unit_nodes or split.down
    return LeafLayer(
        endpoint_count=req.endpoint_count,
        rails=rails,
        node_count=req.node_count,
        su_nodes=su_nodes,
        leaves_per_su_rail=math.ceil(su_nodes / split.down),
        leaf_down=split.down,
        leaf_up=split.up,
        endpoint_gbps=req.nic_gbps,
        leaf_oversubscription=split.oversubscription,
    )


def plan_rail_optimized(req: FabricRequest) -> FabricPlan:
    """Size rails, leaves, spines (and cores) for a rail-optimized compute fabric."""
    # Automatic sizing starts at 2 tiers: rails joined by shared spines. One tier
    # ("rail-only": each rail its own switch, cross-rail traffic left to NVLink) is
    # built only when asked for explicitly.
    plan = plan_clos(req, rail_leaf_layer, Topology.RAIL_OPTIMIZED, auto_tiers=(2, 3))
    w = plan.wiring
    extras = dict(plan.extras)
    extras["rail_count"] = w.rails
    extras["scalable_unit_nodes"] = w.su_nodes
    extras["leaves_per_rail"] = plan.tiers[0].switch_count // w.rails
    derivations = dict(plan.derivations)
    derivations["rail_count"] = f"one rail per NIC: {w.rails} NICs per node → {w.rails} rails"
    return FabricPlan(
        topology=plan.topology,
        endpoint_count=plan.endpoint_count,
        endpoint_gbps=plan.endpoint_gbps,
        tiers=plan.tiers,
        endpoint_link_count=plan.endpoint_link_count,
        switch_link_count=plan.switch_link_count,
        bisection_gbps=plan.bisection_gbps,
        max_endpoint_count=plan.max_endpoint_count,
        wiring=plan.wiring,
        derivations=derivations,
        extras=extras,
    )
