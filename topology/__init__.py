"""Pure fabric-sizing engine: no Django here (see ARCHITECTURE.md)."""

from __future__ import annotations

from topology.spec import FabricPlan, FabricRequest, FabricRequestError, Topology


def plan_fabric(req: FabricRequest) -> FabricPlan:
    """Dispatch a request to its topology's generator."""
    from topology.dragonfly_plus import plan_dragonfly_plus
    from topology.fat_tree import plan_fat_tree
    from topology.rail_optimized import plan_rail_optimized
    from topology.torus import plan_torus

    generators = {
        Topology.RAIL_OPTIMIZED: plan_rail_optimized,
        Topology.FAT_TREE: plan_fat_tree,
        Topology.DRAGONFLY_PLUS: plan_dragonfly_plus,
        Topology.TORUS_3D: plan_torus,
    }
    return generators[req.topology](req)


__all__ = ["FabricPlan", "FabricRequest", "FabricRequestError", "Topology", "plan_fabric"]
