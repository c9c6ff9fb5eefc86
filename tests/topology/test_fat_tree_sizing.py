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
    assert "25 uplinks needed, rounded up to 26 = 2 spines × 13 links" in p.tiers[0].derivation
    full = plan_fat_tree(FabricRequest(topology=F, node_count=100, nics_per_node=1, uplinks_for_full_leaf=True))
    assert full.switch_link_count == 128 and full.bisection_gbps == 20_000


def test_whole_nodes_stay_on_one_leaf():
    """30 nodes × 8 NICs on 64-port leaves (32 down = 4 whole nodes): ⌈240 ÷ 32⌉ = 8 leaves, ⌈30 ÷ 8⌉ = 4 nodes
    a leaf = 32 down ports — the split itself, so nothing changes; 20 nodes: 5 leaves of 4 nodes, full too; 18
    nodes: ⌈144 ÷ 32⌉ = 5 leaves, ⌈18 ÷ 5⌉ = 4 nodes = 32 down (never 144 ÷ 5 = 28.8 → 29, which would split a
    node's 8 NICs over two leaves)."""
    for nodes in (30, 20, 18):
        p = plan_fat_tree(FabricRequest(topology=F, node_count=nodes, nics_per_node=8))
        assert p.tiers[0].down_ports_per_switch % 8 == 0, nodes


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
