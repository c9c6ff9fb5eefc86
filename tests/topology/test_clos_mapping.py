"""topology/clos.py by hand: which leaf and pod an endpoint lands on, and the reach with reserved slots.

Small instances worked out in each docstring (mutation survivors of clos.py: the slot arithmetic
with reserved node slots, the partial scalable unit, the top tier's uplinks, k³/4).
"""

from __future__ import annotations

import numpy as np
import pytest

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.clos import LeafLayer, _max_endpoints, endpoint_leaf_ids, leaf_pod_ids

R = Topology.RAIL_OPTIMIZED


def leaf_layer(**kw) -> LeafLayer:
    base = dict(
        endpoint_count=14,
        rails=2,
        node_count=7,
        su_nodes=4,
        leaves_per_su_rail=1,
        leaf_down=4,
        leaf_up=4,
        endpoint_gbps=400.0,
        leaf_oversubscription=1.0,
        reserved_slots=1,
    )
    return LeafLayer(**{**base, **kw})


def test_a_reserved_slot_shifts_every_node_by_one():
    """2 rails, SUs of 4 node slots, slot 0 reserved: nodes 0–2 take slots 1–3 (SU 0: leaves 0, 1 for rails 0, 1),
    nodes 3–6 take slots 4–7 (SU 1: leaves 2, 3). Endpoint 2n + r is node n on rail r."""
    assert endpoint_leaf_ids(leaf_layer()).tolist() == [0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3]


def test_two_leaves_per_rail_in_a_scalable_unit():
    """SUs of 4 nodes on leaves of 2 down ports: each rail has 2 leaves per SU, numbered rail-major:
    rail 0 → leaves 0 (nodes 0, 1) and 1 (nodes 2, 3); rail 1 → leaves 2 and 3."""
    layer = leaf_layer(endpoint_count=8, node_count=4, leaf_down=2, leaf_up=2, leaves_per_su_rail=2, reserved_slots=0)
    assert endpoint_leaf_ids(layer).tolist() == [0, 2, 0, 2, 1, 3, 1, 3]


def test_a_partial_last_node_is_numbered_endpoint_by_endpoint():
    """Endpoints that are not whole nodes (7 on 2 rails: node 3 has rail 0 only) take the endpoint-by-endpoint form;
    SUs of 2 slots, 1 leaf per SU and rail (2 down ports): endpoint 2n + r is node n on rail r, its leaf slot
    SU × 2 + r. No reserved slot: nodes 0, 1 in SU 0 (leaves 0, 1), nodes 2, 3 in SU 1 (leaves 2, 3) → 0 1 0 1 2 3 2.
    Slot 0 reserved: node 0 in SU 0, nodes 1, 2 in SU 1, node 3 in SU 2 (its rail-0 leaf: slot 4) → 0 1 2 3 2 3 4."""
    layer = leaf_layer(endpoint_count=7, node_count=4, su_nodes=2, leaf_down=2, leaf_up=2, reserved_slots=0)
    assert endpoint_leaf_ids(layer).tolist() == [0, 1, 0, 1, 2, 3, 2]
    layer = leaf_layer(endpoint_count=7, node_count=4, su_nodes=2, leaf_down=2, leaf_up=2, reserved_slots=1)
    assert endpoint_leaf_ids(layer).tolist() == [0, 1, 2, 3, 2, 3, 4]


def test_pods_hold_whole_scalable_units_after_a_reserved_slot():
    """15 nodes + 1 reserved slot = 16 slots = 4 SUs of 4 on 2 rails (8-port leaves at 1:1: 4 down);
    pods of 8 nodes = 2 SUs = 4 leaves: leaves 0–3 (SUs 0, 1) in pod 0, leaves 4–7 in pod 1."""
    p = plan_fabric(
        FabricRequest(
            topology=R,
            node_count=15,
            nics_per_node=2,
            switch_radix=8,
            scalable_unit_nodes=4,
            reserved_node_slots=1,
            pod_nodes=8,
            tiers=3,
        )
    )
    assert leaf_pod_ids(p.wiring).tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


def test_two_tier_reach_counts_whole_sus_a_partial_su_and_the_reserved_slots():
    """A 7-port spine reaches 7 leaves; an SU here is 2 rails × 2 leaves = 4 leaves of 2 nodes × 2 = 4 nodes.
    1 whole SU (4 nodes × 2 rails = 8 endpoints) + the 3 leaves left hold 3 // 2 = 1 leaf per rail =
    2 nodes × 2 rails = 4 endpoints; less the reserved slot on each rail (2): 8 + 4 − 2 = 10."""
    layer = leaf_layer(leaf_down=2, leaf_up=2, leaves_per_su_rail=2)
    assert _max_endpoints(layer, 2, 7, 0) == 10


def test_reach_with_a_reserved_slot_through_the_plan():
    """2 tiers of 8-port switches, 2 rails, SUs of 4: 8 leaves = 4 SUs × 4 nodes × 2 rails = 32 endpoints,
    less 1 reserved slot × 2 rails = 30: 15 nodes fit, 16 do not. In 3 tiers with pods of 2 SUs:
    8 pods × (4 leaves ÷ 2 per SU) SUs × 8 endpoints − 2 = 126, a whole number."""
    base = dict(
        topology=R, nics_per_node=2, switch_radix=8, scalable_unit_nodes=4, reserved_node_slots=1, rail_groups=1
    )
    assert plan_fabric(FabricRequest(node_count=15, tiers=2, **base)).max_endpoint_count == 30
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(node_count=16, tiers=2, **base))
    assert "(30 endpoints at this oversubscription)" in exc.value.errors["node_count"]
    three = plan_fabric(FabricRequest(node_count=15, tiers=3, pod_nodes=8, **base)).max_endpoint_count
    assert three == 126 and type(three) is int


def test_the_top_tier_has_no_uplinks():
    for req in (
        FabricRequest(topology=Topology.FAT_TREE, node_count=64, nics_per_node=1, switch_radix=16),
        FabricRequest(topology=Topology.FAT_TREE, node_count=64, nics_per_node=1, switch_radix=8, tiers=3),
    ):
        top = plan_fabric(req).tiers[-1]
        assert top.up_ports_per_switch == 0 and top.uplink_count == 0


def test_classic_three_tier_reach_is_k_cubed_over_four():
    """k = 16 at 1:1: 16 pods × 8 leaves × 8 endpoints = 1,024 = 16³/4, and the derivation says so."""
    p = plan_fabric(
        FabricRequest(topology=Topology.FAT_TREE, node_count=100, nics_per_node=1, switch_radix=16, tiers=3)
    )
    assert p.max_endpoint_count == 1024
    assert p.derivations["max_endpoint_count"].endswith("= 1,024 (k³/4 at 1:1)")
    tapered = FabricRequest(
        topology=Topology.FAT_TREE, node_count=100, nics_per_node=1, switch_radix=16, tiers=3, agg_oversubscription=3
    )
    assert "k³/4" not in plan_fabric(tapered).derivations["max_endpoint_count"]


def test_a_partial_su_is_named_in_the_two_tier_reach():
    """SUs of 32 nodes on 8 rails of 64-port leaves (32 down): a 64-port spine reaches 64 leaves = 8 SUs exactly;
    with 6 rails an SU is 6 leaves: 10 SUs and 4 leaves left — no room for one leaf per rail, no partial SU."""
    eight = plan_fabric(FabricRequest(topology=R, node_count=64, nics_per_node=8, switch_radix=64, tiers=2))
    assert "partial SU" not in eight.derivations["max_endpoint_count"]
    assert "= 8 SUs" in eight.derivations["max_endpoint_count"]
    six = plan_fabric(FabricRequest(topology=R, node_count=64, nics_per_node=6, switch_radix=64, tiers=2))
    assert (
        "= 10 SUs" in six.derivations["max_endpoint_count"]
        and "partial SU" not in six.derivations["max_endpoint_count"]
    )
    five = plan_fabric(FabricRequest(topology=R, node_count=64, nics_per_node=5, switch_radix=64, tiers=2))
    # 64 = 12 SUs of 5 leaves + 4 left < 5 rails: no partial SU either; 7 rails: 9 SUs + 1 left
    assert "partial SU" not in five.derivations["max_endpoint_count"]
    three = plan_fabric(FabricRequest(topology=R, node_count=64, nics_per_node=3, switch_radix=64, tiers=2))
    # 64 = 21 SUs of 3 leaves + 1 left < 3 rails: none; 4 rails with 2 leaves per SU rail (SUs of 64 nodes):
    assert "partial SU" not in three.derivations["max_endpoint_count"]
    partial = plan_fabric(
        FabricRequest(topology=R, node_count=64, nics_per_node=4, switch_radix=64, tiers=2, scalable_unit_nodes=96)
    )
    # an SU of 96 nodes is 3 leaves per rail × 4 rails = 12 leaves: 5 SUs = 60 leaves, 4 left = 1 per rail
    assert "= 5 SUs" in partial.derivations["max_endpoint_count"]
    assert "a partial SU on the 4 leaves left" in partial.derivations["max_endpoint_count"]
    assert np.all(endpoint_leaf_ids(partial.wiring) >= 0)


def test_one_tier_reach_and_pod_count():
    """One tier: a 16-port switch reaches 16 endpoints (fat-tree), a rail-only fabric one 16-port switch per
    rail: 16 × 2 rails = 32. pod_count_of is 1 below three tiers (2 tiers included)."""
    from topology.clos import pod_count_of, stack_clos

    flat = plan_fabric(
        FabricRequest(topology=Topology.FAT_TREE, node_count=10, nics_per_node=1, switch_radix=16, tiers=1)
    )
    assert flat.max_endpoint_count == 16
    rails = plan_fabric(
        FabricRequest(topology=R, node_count=8, nics_per_node=2, switch_radix=16, scalable_unit_nodes=8, tiers=1)
    )
    assert rails.max_endpoint_count == 32
    layer = leaf_layer(node_count=8, endpoint_count=16, reserved_slots=0)
    two = stack_clos(layer, tiers=2, radix=8, port_gbps=400.0, agg_oversubscription=1.0)
    assert two.wiring.tiers == 2 and pod_count_of(two.wiring) == 1
    flat_layer = leaf_layer(node_count=8, endpoint_count=16, reserved_slots=0, leaf_up=0)  # one tier: no uplinks
    assert pod_count_of(stack_clos(flat_layer, tiers=1, radix=8, port_gbps=400.0, agg_oversubscription=1.0).wiring) == 1


def test_a_pod_of_part_of_a_scalable_unit_is_refused_with_a_whole_unit_as_the_example():
    """Pods of 3 nodes with SUs of 4: 3 is not a multiple; the example is max(1, 3 // 4) × 4 = 4 (not 0)."""
    base = dict(topology=R, nics_per_node=2, switch_radix=8, scalable_unit_nodes=4, rail_groups=1, tiers=3)
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(node_count=8, pod_nodes=3, **base))
    assert exc.value.errors["pod_nodes"].endswith("3 is not a multiple (e.g. 4)")
