"""A fat-tree sized to the need (issue #34 item 1): a partly filled fabric buys the uplinks its used ports need."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from topology.fat_tree import plan_fat_tree
from topology.spec import FabricRequest, FabricRequestError, Topology

F = Topology.FAT_TREE


def test_100_endpoints_on_64_port_switches_by_hand():
    """100 × 400G endpoints, 64 × 400G switches, 1:1: the split is 32 down / 32 up, so ⌈100 ÷ 32⌉ = 4 leaves, the
    endpoints spread evenly are 25 a leaf and need 25 uplinks each at 1:1. 25 has no divisor m with 25 ÷ m spines
    and m ≤ ⌊64 ÷ 4⌋ = 16 but 5 (5 spines); the fewest spines any wiring has is ⌈4 × 25 ÷ 64⌉ = 2, reached with 26
    uplinks = 2 × 13. So 4 leaves + 2 spines and 4 × 26 = 104 leaf–spine links — filling leaves to the split
    bought 4 × 32 = 128. Bisection at 1:1 is N·B/2 = 100 × 400 ÷ 2 = 20,000 Gbit/s either way."""
    p = plan_fat_tree(FabricRequest(topology=F, node_count=100, nics_per_node=1))
    assert [(t.name, t.switch_count, t.down_ports_per_switch, t.up_ports_per_switch) for t in p.tiers] == [
        ("leaf", 4, 25, 26),
        ("spine", 2, 52, 0),
    ]
    assert p.switch_link_count == 104 and p.bisection_gbps == 20_000
    assert (
        "25 uplinks needed, rounded up to 26 = 2 spines × 13 links each so every spine takes an equal share (the "
        "fewest spines: ⌈4 × 25 ÷ 64⌉ = 2)"
    ) in p.tiers[0].derivation
    full = plan_fat_tree(FabricRequest(topology=F, node_count=100, nics_per_node=1, uplinks_for_full_leaf=True))
    assert full.switch_link_count == 128 and full.bisection_gbps == 20_000


def test_a_spine_share_may_fill_its_ports_but_a_leaf_keeps_room_for_its_uplinks():
    """217 × 400G on 32-port switches at 3:1 (split 24 down / 8 up): ⌈217 ÷ 24⌉ = 10 leaves of ⌈217 ÷ 10⌉ = 22
    down, ⌈22 ÷ 3⌉ = 8 uplinks needed. The fewest spines, ⌈10 × 8 ÷ 32⌉ = 3, take ⌈8 ÷ 3⌉ = 3 links from each leaf
    = 9 uplinks, and 3 ≤ ⌊32 ÷ 10⌋ = 3 links a leaf fits a spine exactly: 3 spines of 30 ports used.
    76 × 400G at 1:1 (split 16/16): 5 leaves of 16 down need 16 up; 3 spines would need 3 × 6 = 18 uplinks, more
    than the 32 − 16 = 16 ports a leaf has left, so 4 spines × 4 links.
    134 × 400G at 2:1 (split 21 down / 11 up): ⌈134 ÷ 21⌉ = 7 leaves of ⌈134 ÷ 7⌉ = 20 down need ⌈20 ÷ 2⌉ = 10 up;
    the fewest spines ⌈7 × 10 ÷ 32⌉ = 3 take ⌈10 ÷ 3⌉ = 4 links each = 12 uplinks — exactly the 32 − 20 = 12 ports
    left, which fit (4 ≤ ⌊32 ÷ 7⌋ = 4 too): 3 spines of 28 ports used.
    316 × 400G at 2:1: ⌈316 ÷ 21⌉ = 16 leaves of ⌈316 ÷ 16⌉ = 20 down need 10 up; the fewest spines are exactly
    16 × 10 ÷ 32 = 5, each taking 2 links from every leaf (2 ≤ ⌊32 ÷ 16⌋): 5 full spines of 32 ports."""
    p = plan_fat_tree(FabricRequest(topology=F, node_count=217, nics_per_node=1, switch_radix=32, oversubscription=3))
    assert [(t.switch_count, t.down_ports_per_switch, t.up_ports_per_switch) for t in p.tiers] == [
        (10, 22, 9),
        (3, 30, 0),
    ]
    p = plan_fat_tree(FabricRequest(topology=F, node_count=134, nics_per_node=1, switch_radix=32, oversubscription=2))
    assert [(t.switch_count, t.down_ports_per_switch, t.up_ports_per_switch) for t in p.tiers] == [
        (7, 20, 12),
        (3, 28, 0),
    ]
    p = plan_fat_tree(FabricRequest(topology=F, node_count=316, nics_per_node=1, switch_radix=32, oversubscription=2))
    assert [(t.switch_count, t.down_ports_per_switch, t.up_ports_per_switch) for t in p.tiers] == [
        (16, 20, 10),
        (5, 32, 0),
    ]
    p = plan_fat_tree(FabricRequest(topology=F, node_count=76, nics_per_node=1, switch_radix=32))
    assert [(t.switch_count, t.down_ports_per_switch, t.up_ports_per_switch) for t in p.tiers] == [
        (5, 16, 16),
        (4, 20, 0),
    ]


def test_whole_nodes_stay_on_one_leaf():
    """30 nodes × 8 NICs on 64-port leaves (32 down = 4 whole nodes): ⌈240 ÷ 32⌉ = 8 leaves, ⌈30 ÷ 8⌉ = 4 nodes
    a leaf = 32 down ports — the split itself, so nothing changes; 20 nodes: 5 leaves of 4 nodes, full too; 18
    nodes: ⌈144 ÷ 32⌉ = 5 leaves, ⌈18 ÷ 5⌉ = 4 nodes = 32 down (never 144 ÷ 5 = 28.8 → 29, which would split a
    node's 8 NICs over two leaves)."""
    for nodes in (30, 20, 18):
        p = plan_fat_tree(FabricRequest(topology=F, node_count=nodes, nics_per_node=8))
        assert p.tiers[0].down_ports_per_switch % 8 == 0, nodes
    # 25 nodes × 2 NICs: ⌈50 ÷ 32⌉ = 2 leaves of ⌈25 ÷ 2⌉ = 13 nodes = 26 ports (not ⌈50 ÷ 2⌉ = 25, half a node)
    p = plan_fat_tree(FabricRequest(topology=F, node_count=25, nics_per_node=2, tiers=2))
    assert (p.tiers[0].switch_count, p.tiers[0].down_ports_per_switch) == (2, 26)


@settings(max_examples=150, deadline=None)
@given(
    nodes=st.integers(2, 4000),
    nics=st.sampled_from([1, 2, 4, 8]),
    radix=st.sampled_from([32, 64, 128]),
    ratio=st.sampled_from([1.0, 2.0, 3.0]),
)
def test_sized_to_need_never_buys_more_and_meets_the_ratio(nodes, nics, radix, ratio):
    """Against the split-filled fabric of the same request: never more leaves or spines, and more links only where
    they save a spine (217 endpoints, 32 ports, 3:1: 10 leaves need 8 uplinks; 8 = 4 spines × 2 links, or 9 = 3 × 3:
    one spine fewer for 10 more links); the uplinks still carry the used ports at the requested ratio."""
    kw = dict(topology=F, node_count=nodes, nics_per_node=nics, switch_radix=radix, oversubscription=ratio, tiers=2)
    try:
        full = plan_fat_tree(FabricRequest(**kw, uplinks_for_full_leaf=True))
    except FabricRequestError:
        return
    need = plan_fat_tree(FabricRequest(**kw))
    for a, b in zip(need.tiers, full.tiers, strict=True):
        assert a.switch_count <= b.switch_count
    fewer_spines = need.tiers[1].switch_count < full.tiers[1].switch_count
    assert need.switch_link_count <= full.switch_link_count or fewer_spines
    leaf = need.tiers[0]
    assert leaf.up_ports_per_switch * leaf.port_gbps * ratio >= leaf.down_ports_per_switch * 400 - 1e-6
    assert leaf.down_ports_per_switch * leaf.switch_count >= nodes * nics
    assert need.switch_link_count >= math.ceil(nodes * nics / ratio - 1e-9)
