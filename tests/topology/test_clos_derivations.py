"""The folded-Clos sizing: maximum reach and the derivation text of every tier, pinned by hand."""

from __future__ import annotations

import pytest

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric

R, F = Topology.RAIL_OPTIMIZED, Topology.FAT_TREE


def test_two_tier_reach_with_a_partial_scalable_unit():
    """68-port switches (34 down, 34 up), 4 rails, SUs of 64 nodes → ⌈64 ÷ 34⌉ = 2 leaves per rail per SU,
    8 leaves per SU; the SU spreads evenly, ⌈64 ÷ 2⌉ = 32 nodes a leaf (32 down used, 32 up). A 68-port spine
    reaches 68 leaves = 8 whole SUs + 4 leaves = one leaf per rail of a partial SU (32 nodes):
    8 × 64 × 4 + 32 × 4 = 2,048 + 128 = 2,176 endpoints."""
    p = plan_fabric(
        FabricRequest(
            topology=R, node_count=100, nics_per_node=4, switch_radix=68, scalable_unit_nodes=64, tiers=2, rail_groups=1
        )
    )
    assert p.max_endpoint_count == 2176
    assert (
        "8 SUs (4 rails × 2 leaves per SU) of 64 nodes + a partial SU on the 4 leaves left"
        in (p.derivations["max_endpoint_count"])
    )


def test_rail_only_reach_is_the_radix_per_rail():
    """tiers = 1: a 64-port switch per rail reaches 64 nodes whatever the node count: 64 × 8 = 512."""
    assert plan_fabric(FabricRequest(topology=R, node_count=10, tiers=1)).max_endpoint_count == 512


def test_two_tier_derivations():
    """128 nodes, SU 32, 8 rails: per rail 4 leaves, 32 leaves; 32 × 32 uplinks = 1,024 spine ports; a
    64-port spine takes ⌊64 ÷ 32⌋ = 2 links per leaf → 32 ÷ 2 = 16 spines, each 32 × 2 = 64 ports."""
    p = plan_fabric(FabricRequest(topology=R, node_count=128, scalable_unit_nodes=32))
    leaf, spine = p.tiers
    assert leaf.derivation == (
        "128 nodes in SUs of 32, one leaf per SU and rail → per rail 4 leaves of 32 down ports used; × 8 rails "
        "= 32 leaves; each 64-port leaf: 32 × 400G down, 32 × 400G up → 12,800 ÷ 12,800 = 1:1 (uplinks for the "
        "used down ports); 0 free port(s) per leaf, 0 in all, are growth headroom"
    )
    assert spine.derivation == (
        "32 leaves × 32 uplinks = 1,024 spine ports; each leaf sends 2 link(s) to every spine, so spines = "
        "32 ÷ 2 = 16, each using 32 × 2 = 64 of 64 ports"
    )


def test_three_tier_k_cubed_over_four_and_its_derivations():
    """k = 8 at 1:1, 3 tiers: pods of k/2 = 4 leaves of 4 endpoints under 4 spines; k pods → 8³/4 = 128."""
    p = plan_fabric(FabricRequest(topology=F, node_count=16, nics_per_node=1, switch_radix=8, tiers=3))
    assert (
        p.derivations["max_endpoint_count"]
        == "3 tiers: a 8-port core reaches 8 pods × 4 leaves × 4 endpoints = 128 (k³/4 at 1:1)"
    )
    _, agg, core = p.tiers
    assert agg.derivation.endswith("4 spines; each spine 4 down, 4 up = 1:1")
    # each pod spine's 4 uplinks: one core per group takes 1 pod × 4 = 4 ports ≤ 8 (the fewest cores that fit)
    assert core.derivation.endswith(
        "over the 1 cores of group j (the fewest that fit, at most 4 link(s) to a core), 4 × 1 = 4 cores, each "
        "using at most 1 × 4 = 4 of 8 ports"
    )


def test_tapered_pod_spine_text():
    """The 24k RoCE pod spine: 192 down, ⌈192 ÷ 7⌉ = 28 up → 6.86:1; no k³/4 note for mixed radix."""
    p = plan_fabric(
        FabricRequest(
            topology=F,
            node_count=3072,
            switch_radix=64,
            spine_radix=576,
            leaf_nodes=2,
            pod_nodes=384,
            agg_oversubscription=7,
        )
    )
    assert "pods of 384 nodes = 192 leaves (as given)" in p.tiers[1].derivation
    assert p.tiers[1].derivation.endswith("each spine 192 down, 28 up = 6.86:1")
    assert "k³/4" not in p.derivations["max_endpoint_count"]


def test_a_pod_exactly_as_large_as_a_spine_takes_is_allowed():
    """k = 8 at 1:1: a pod spine takes 4 leaves down; pods of 16 nodes = 4 leaves of 4 → 2 pods for 32 nodes;
    pods of 20 nodes (5 leaves) are refused."""
    p = plan_fabric(FabricRequest(topology=F, node_count=32, nics_per_node=1, switch_radix=8, pod_nodes=16))
    assert p.extras["pod_count"] == 2 and [t.switch_count for t in p.tiers] == [8, 8, 4]
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(topology=F, node_count=64, nics_per_node=1, switch_radix=8, pod_nodes=20))
    assert (
        "a pod of 20 nodes has 5 leaves, but a 8-port pod spine at this taper takes at most 4"
        in (exc.value.errors["pod_nodes"])
    )


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        (dict(topology=R, node_count=128, scalable_unit_nodes=32, pod_nodes=40), "not a multiple (e.g. 32)"),
        (dict(topology=F, node_count=60, nics_per_node=3, pod_nodes=30), "= 10.6667 node(s) of 3 NICs"),
        (dict(topology=F, node_count=64, nics_per_node=4, pod_nodes=12), "so 12 nodes are not whole leaves"),
    ],
)
def test_pods_of_partial_units_are_refused(kw, text):
    """A rail pod holds whole SUs (40 is not a multiple of 32); a fat-tree pod whole leaves: 32 down ports ÷ 3
    NICs is not whole nodes; 8 nodes per leaf (32 ÷ 4) do not divide 12."""
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(**kw))
    assert text in exc.value.errors["pod_nodes"]
    assert "rail groups" not in exc.value.errors["pod_nodes"]
