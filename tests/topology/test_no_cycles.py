"""A fabric plan that tried and refused shapes on its way leaves no frames behind for the cyclic collector.

Sizing keeps the last refusal (topology.fat_tree.plan_clos, topology.rail_optimized) to raise it if nothing fits.
Kept with its traceback, an exception is a cycle through the frame that keeps it — and that frame's callers, all
the way up the stack, with their locals (a live evaluate's floor plan, its link table): alive until a collection.
Kept without it (``with_traceback(None)``), nothing is."""

from __future__ import annotations

import types

import pytest

from tests.gc_garbage import cyclic_garbage
from topology import FabricRequest, FabricRequestError, Topology, plan_fabric


def _frames(objects: list) -> list[str]:
    return [f"{o.f_code.co_filename}:{o.f_code.co_name}" for o in objects if isinstance(o, types.FrameType)]


@pytest.mark.parametrize(
    "req",
    [
        # 1 tier refused first (512 endpoints on 64 ports), then 2 tiers fit
        FabricRequest(topology=Topology.FAT_TREE, node_count=64, nic_gbps=400, switch_radix=64, switch_port_gbps=400),
        # the same on rails: rail groups and tiers refused on the way
        FabricRequest(
            topology=Topology.RAIL_OPTIMIZED, node_count=2048, nic_gbps=400, switch_radix=64, switch_port_gbps=400
        ),
    ],
    ids=["fat-tree", "rail-optimized"],
)
def test_a_plan_found_after_refusals_leaves_no_frames(req):
    with cyclic_garbage() as found:
        plan = plan_fabric(req)
    assert plan.switch_count > 0
    assert _frames(found()) == []
    assert not [o for o in found() if isinstance(o, FabricRequestError)]


def test_the_refusal_raised_still_names_its_field():
    """What is raised when no shape fits is the refusal kept (its field and words), without the old traceback."""
    req = FabricRequest(
        topology=Topology.FAT_TREE, node_count=100_000, nic_gbps=400, switch_radix=8, switch_port_gbps=400, tiers=None
    )
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(req)
    assert exc.value.errors and all(isinstance(v, str) and v for v in exc.value.errors.values())
