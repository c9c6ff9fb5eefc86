"""Fat-tree shapes: one tier, nodes per leaf (ToR per rack), the end-to-end taper. Hand-derived figures."""

from __future__ import annotations

import pytest

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.graph import verify_plan

F = Topology.FAT_TREE


def test_one_tier_holds_exactly_the_radix():
    """64 endpoints on a 64-port switch: one tier, 64 down, no uplinks; halves of 32 × 400G cross the one switch
    → 12,800 Gbit/s; 65 endpoints need 2 tiers."""
    p = plan_fabric(FabricRequest(topology=F, node_count=64, nics_per_node=1))
    assert p.tier_count == 1
    (leaf,) = p.tiers
    assert (leaf.switch_count, leaf.down_ports_per_switch, leaf.up_ports_per_switch) == (1, 64, 0)
    assert p.max_endpoint_count == 64 and p.bisection_gbps == 32 * 400
    assert p.derivations["switch_link_count"] == "no switch-to-switch links"
    assert verify_plan(p).ok
    assert plan_fabric(FabricRequest(topology=F, node_count=65, nics_per_node=1)).tier_count == 2


def test_nodes_per_leaf_with_taper():
    """A ToR per rack of 2 nodes × 8 NICs = 16 down at 3:1 on 400G uplinks: ⌈16 ÷ 3⌉ = 6 up, 16 ÷ 6 = 2.667:1;
    with 800G uplinks at 1:1: ⌈16 × 400 ÷ 800⌉ = 8 up. 64 nodes → 32 leaves."""
    p = plan_fabric(FabricRequest(topology=F, node_count=64, leaf_nodes=2, oversubscription=3))
    leaf = p.tiers[0]
    assert (leaf.switch_count, leaf.down_ports_per_switch, leaf.up_ports_per_switch) == (32, 16, 6)
    assert leaf.oversubscription == pytest.approx(16 / 6)
    fast = plan_fabric(FabricRequest(topology=F, node_count=64, leaf_nodes=2, nic_gbps=400, switch_port_gbps=800))
    assert fast.tiers[0].up_ports_per_switch == 8 and fast.tiers[0].oversubscription == 1
    assert verify_plan(p).ok and verify_plan(fast).ok


def test_nodes_per_leaf_limits():
    """A 64-port leaf at 1:1 takes 32 down = 4 nodes of 8 NICs exactly; 5 nodes (40 ports) are refused."""
    assert plan_fabric(FabricRequest(topology=F, node_count=64, leaf_nodes=4)).tiers[0].switch_count == 16
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(topology=F, node_count=64, leaf_nodes=5))
    assert exc.value.errors["leaf_nodes"] == (
        "5 nodes × 8 NICs = 40 down ports, but a 64-port leaf at 1:1 takes at most 32 (4 nodes)"
    )


def test_end_to_end_taper_is_the_product_of_the_tiers():
    """192 leaves of 16 down / 16 up under 576-port spines at 1:7 → 192 ÷ 28 = 6.857142…:1 at the pod spine;
    end to end 1 × 6.857143 (rounded to 6 decimals)."""
    p = plan_fabric(
        FabricRequest(
            topology=F,
            node_count=768,
            switch_radix=64,
            spine_radix=576,
            leaf_nodes=2,
            pod_nodes=384,
            agg_oversubscription=7,
        )
    )
    assert p.extras["oversubscription_end_to_end_ratio"] == 6.857143
    tapered = plan_fabric(
        FabricRequest(topology=F, node_count=512, oversubscription=2, agg_oversubscription=1.5, tiers=3)
    )
    leaf_ratio, agg_ratio = tapered.tiers[0].oversubscription, tapered.tiers[1].oversubscription
    assert tapered.extras["oversubscription_end_to_end_ratio"] == round(leaf_ratio * agg_ratio, 6) > 2


def test_one_switch_fat_tree_by_hand():
    """5 nodes × 4 NICs = 20 endpoints fit one 32-port switch: automatic sizing stops at 1 tier.
    One switch, 32 ports down (no uplinks), 20 used, 12 free, at most 32 endpoints; non-blocking
    inside the switch, so the bisection is the halves: 10 endpoints × 400G = 4,000 Gbit/s."""
    req = FabricRequest(topology=Topology.FAT_TREE, node_count=5, nics_per_node=4, switch_radix=32)
    p = plan_fabric(req)
    assert p.tier_count == 1
    (leaf,) = p.tiers
    assert (leaf.switch_count, leaf.down_ports_per_switch, leaf.up_ports_per_switch) == (1, 32, 0)
    assert (leaf.ports_used_total, leaf.ports_free_total, leaf.uplink_count) == (20, 12, 0)
    assert leaf.oversubscription == 1.0
    assert p.max_endpoint_count == 32
    assert p.bisection_gbps == 10 * 400
    assert verify_plan(p).ok
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=9, nics_per_node=4, switch_radix=32, tiers=1))
    assert exc.value.errors["node_count"] == "36 endpoints do not fit on one 32-port switch (1 tier); use 2 or 3 tiers"


def test_a_pod_size_alone_asks_for_three_tiers():
    """64 nodes × 1 NIC fit 2 tiers of 16-port switches (8 leaves × 8 down), but pods of 32 nodes mean a core:
    3 tiers, 2 pods of 4 leaves."""
    base = {"topology": Topology.FAT_TREE, "node_count": 64, "nics_per_node": 1, "switch_radix": 16}
    assert plan_fabric(FabricRequest(**base)).tier_count == 2
    p = plan_fabric(FabricRequest(**base, pod_nodes=32))
    assert p.tier_count == 3
    assert p.tier("leaf").switch_count == 8


def test_automatic_tiers_go_up_to_three():
    """16-port switches at 1:1: one tier holds 16 endpoints, two hold k²/2 = 128, three k³/4 = 1,024 — so 17
    endpoints take 2 tiers and 129 take 3, chosen without asking; 1,025 fit none."""
    base = {"topology": F, "nics_per_node": 1, "switch_radix": 16}
    assert [plan_fabric(FabricRequest(**base, node_count=n)).tier_count for n in (16, 17, 128, 129, 1024)] == [
        1, 2, 2, 3, 3,
    ]  # fmt: skip
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(**base, node_count=1025))
    assert "node_count" in exc.value.errors


def test_the_clos_stacker_refuses_a_tier_count_it_does_not_build():
    """stack_clos builds 1, 2 or 3 tiers; a 4 (or 0) used to come back as a 3-tier fabric without a word."""
    from topology.clos import LeafLayer, stack_clos

    leaf = LeafLayer(64, 1, 64, 0, 1, 32, 32, 400.0, 1.0)
    assert stack_clos(leaf, tiers=2, radix=64, port_gbps=400.0, agg_oversubscription=1.0).wiring.tiers == 2
    for tiers in (0, 4):
        with pytest.raises(ValueError, match=f"tiers: 1, 2 or 3, got {tiers}"):
            stack_clos(leaf, tiers=tiers, radix=64, port_gbps=400.0, agg_oversubscription=1.0)


@pytest.mark.parametrize(("up", "ratio"), [(1, 1.0), (0, 2.0), (32, 1.0)])
def test_a_one_tier_leaf_layer_has_no_uplinks(up, ratio):
    """One switching tier: 0 up ports at 1:1, or the generator built the wrong leaf (the stacker used to
    overwrite what it was given)."""
    from topology.clos import LeafLayer, stack_clos

    with pytest.raises(ValueError, match="a one-tier leaf layer has no uplinks"):
        stack_clos(LeafLayer(64, 1, 64, 0, 1, 64, up, 400.0, ratio), tiers=1, radix=64, port_gbps=400.0,
                   agg_oversubscription=1.0)  # fmt: skip
    one = stack_clos(LeafLayer(64, 1, 64, 0, 1, 64, 0, 400.0, 1.0), tiers=1, radix=64, port_gbps=400.0,
                     agg_oversubscription=1.0)  # fmt: skip
    (leaf,) = one.tiers
    assert (leaf.up_ports_per_switch, leaf.uplink_count, leaf.oversubscription) == (0, 0, 1.0)


@pytest.mark.parametrize(("rails", "leaves_per_su_rail"), [(2, 1), (1, 2), (0, 1), (1, 0)])
def test_a_leaf_layer_without_scalable_units_has_one_rail(rails, leaves_per_su_rail):
    """Without SUs every leaf is its own unit; rails/leaves per SU rail other than 1 are a generator's bug."""
    from topology.clos import LeafLayer

    with pytest.raises(ValueError, match="1 rail and 1 leaf per unit"):
        LeafLayer(64, rails, 64, 0, leaves_per_su_rail, 32, 32, 400.0, 1.0)
    assert LeafLayer(64, 8, 64, 32, 2, 32, 32, 400.0, 1.0).leaves_per_unit == 16  # with SUs: 8 rails × 2
