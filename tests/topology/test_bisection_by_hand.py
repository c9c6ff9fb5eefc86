"""topology/bisection.py by hand and against brute force: torus cuts, Dragonfly+ halves, max-flow scaling.

The torus cut is checked against an independent count on an explicit torus (every node linked to
its +1 neighbour in each dimension of 2 or more — which gives a ring for k ≥ 3 and the two parallel
links of a k = 2 dimension, as the model states).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topology import FabricRequest, Topology, plan_fabric
from topology.bisection import (
    _ring_cut_links,
    dragonfly_bisection_split,
    torus_cut_links,
    torus_order,
)
from topology.graph import _integer_capacities, max_flow_bisection_gbps, max_flow_bisection_networkx_gbps


def brute_force_cut(dims: tuple[int, ...], a_count: int) -> int:
    nodes = list(itertools.product(*(range(k) for k in dims)))  # lexicographic: the first dimension most significant
    side_a = set(nodes[:a_count])
    cut = 0
    for node in nodes:
        for d, k in enumerate(dims):
            if k < 2:
                continue
            other = list(node)
            other[d] = (other[d] + 1) % k
            cut += (node in side_a) != (tuple(other) in side_a)
    return cut


def test_ring_cut_links():
    """A ring of k is cut twice by any proper arc; k = 2 is two parallel links (cut twice); k = 1 has no link."""
    assert _ring_cut_links(1, 1) == 0
    assert _ring_cut_links(4, 0) == 0 and _ring_cut_links(4, 4) == 0
    assert _ring_cut_links(2, 1) == 2 and _ring_cut_links(5, 3) == 2


def test_torus_cuts_by_hand():
    """4×4×4, 32 nodes (two x-planes): each of the 16 x-rings is cut twice = 32 links.
    3×3×3, 13 nodes = plane x=0 (9) + 4 nodes of x=1: the 4 x-lines with x = 0, 1 on side A and the 5 with
    x = 0 only are each cut twice (18); inside plane x=1, the 3 y-rings (z = 0, 1, 2) each twice (6) and the
    z-ring of y = 1 twice (2): 26."""
    assert torus_cut_links((4, 4, 4), 32) == 32
    assert torus_cut_links((3, 3, 3), 13) == 26
    assert torus_cut_links((4, 4, 4), 0) == 0 and torus_cut_links((), 5) == 0


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_torus_cut_equals_a_brute_force_count(dims, data):
    dims = tuple(dims)
    a = data.draw(st.integers(0, math.prod(dims)))
    assert torus_cut_links(dims, a) == brute_force_cut(dims, a)


def test_the_cut_runs_across_the_longest_dimension():
    """A 2×5×3 torus is cut across its 5: ordered (5, 3, 2); 15 nodes = 2.5 x-planes of 6 → 30 nodes, half 15:
    brute force on the ordered dims gives the links, × 400G, and the derivation names the odd case."""
    assert torus_order((2, 5, 3)) == (5, 3, 2)
    p = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=30, torus_dims=(2, 5, 3)))
    assert p.bisection_gbps == brute_force_cut((5, 3, 2), 15) * 400
    assert "cut across the longest dimension (5)" in p.derivations["bisection_gbps"]
    assert "odd 5: the middle plane is split" in p.derivations["bisection_gbps"]
    even = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=64, torus_dims=(4, 4, 4)))
    assert "2 × 64 / 4 = 32 links (each of the 16 rings crosses twice" in even.derivations["bisection_gbps"]
    assert even.bisection_gbps == 32 * 400


def _dragonfly(node_count: int, **kw):
    return plan_fabric(FabricRequest(topology=Topology.DRAGONFLY_PLUS, node_count=node_count, **kw))


def test_dragonfly_halves_are_whole_groups():
    """k = 8 at 1:1: a group is 4 leaves × 4 hosts = 16 endpoints. 48 hosts → 3 groups: the cut puts group 0
    (16 endpoints) against groups 1–2 (32); one group splits its endpoints in half (8 / 8)."""
    three = _dragonfly(48, nics_per_node=1, switch_radix=8)
    assert three.extras["group_count"] == 3
    assert dragonfly_bisection_split(three.wiring, 48) == 16
    assert three.derivations["bisection_gbps"].startswith("groups 0–0 (16 endpoints) against groups 1–2 (32)")
    one = _dragonfly(16, nics_per_node=1, switch_radix=8)
    assert one.extras["group_count"] == 1
    assert dragonfly_bisection_split(one.wiring, 16) == 8
    assert one.derivations["bisection_gbps"].startswith("halves of 8 / 8 endpoints")


def test_fat_tree_halves_of_an_odd_count():
    p = plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=5, nics_per_node=1, switch_radix=8))
    assert p.derivations["bisection_gbps"].startswith("halves of 2 and 3 endpoints × 400G")


def test_max_flow_on_a_tapered_fabric_by_hand():
    """32 endpoints on 8-port leaves at 3:1 (6 down, 2 up): 6 leaves (5 × 6 + 2), 12 uplinks × 400G.
    Halves of 16: leaves 0–1 and 4 endpoints of leaf 2 send; through the spines each sending leaf carries
    at most 2 × 400G, so A pushes at most 800 + 800 + 800 and B takes what its leaves can: the min cut is
    the analytic figure, which the max-flow on the explicit graph must reproduce exactly."""
    p = plan_fabric(
        FabricRequest(topology=Topology.FAT_TREE, node_count=32, nics_per_node=1, switch_radix=8, oversubscription=3)
    )
    flow = max_flow_bisection_gbps(p)
    assert flow == pytest.approx(p.bisection_gbps)
    assert p.bisection_gbps < 16 * 400  # tapered: less than the endpoints' half


def test_integer_capacities():
    """Link speeds become int32 capacities in a common unit: 400/200/100 → 4/2/1 × 100G; 12.5/25 → 1/2 × 12.5;
    0.25/0.5 → 1/2 × 0.25; zero capacities stay 0. Capacities summing to 2³¹ do not fit scipy's int32."""
    ints, unit = _integer_capacities(np.array([400.0, 200.0, 100.0]))
    assert ints.tolist() == [4, 2, 1] and unit == 100.0 and ints.dtype == np.int32
    ints, unit = _integer_capacities(np.array([12.5, 25.0]))
    assert ints.tolist() == [1, 2] and unit == 12.5
    ints, unit = _integer_capacities(np.array([0.25, 0.5, 0.0]))
    assert ints.tolist() == [1, 2, 0] and unit == 0.25
    ints, unit = _integer_capacities(np.array([0.0]))
    assert ints.tolist() == [0]  # nothing flows, in any unit
    ints, unit = _integer_capacities(np.array([0.001, 0.003]))  # 1 and 3 Mbit/s: the finest unit accepted
    assert ints.tolist() == [1, 3] and unit == 0.001
    with pytest.raises(ValueError, match=r"multiples of 0\.001 Gbit/s"):
        _integer_capacities(np.array([400.0, 0.0005]))  # would round to 0 or 1 Mbit/s: refused, not rounded
    _integer_capacities(np.array([2.0**31 - 2, 1.0]))  # 2³¹ − 1 fits
    with pytest.raises(OverflowError):
        _integer_capacities(np.array([2.0**31 - 1, 1.0]))


def test_bisection_texts_by_hand():
    """1,024 endpoints × 400G, 64-port switches at 1:1: 2 tiers (32 leaves of 32 down, 32 up); halves of 512:
    leaves 0–15 send 16 × 32 × 400G = 204,800 Gbit/s = 25.600 TB/s (÷ 8,000), all through the spines.
    One tier (64 endpoints on one switch): every pair shares the leaf, 32 × 400G = 12,800 Gbit/s."""
    two = plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=1024, nics_per_node=1))
    assert two.tier_count == 2 and two.bisection_gbps == 204_800
    assert two.derivations["bisection_gbps"] == (
        "halves of 512 and 512 endpoints × 400G → at most 204,800 Gbit/s (25.600 TB/s); leaf-local 0 Gbit/s "
        "(0.000 TB/s); through the spines min(send 204,800 Gbit/s (25.600 TB/s), receive 204,800 Gbit/s "
        "(25.600 TB/s)) with each leaf capped at 32 × 400G; bisection = 204,800 Gbit/s (25.600 TB/s)"
    )
    one = plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=64, nics_per_node=1))
    assert one.derivations["bisection_gbps"] == (
        "halves of 32 and 32 endpoints × 400G → at most 12,800 Gbit/s (1.600 TB/s); one tier: only traffic that "
        "shares a leaf (same rail) crosses; bisection = 12,800 Gbit/s (1.600 TB/s)"
    )


def test_a_dragonfly_min_cut_may_take_a_small_receiving_group_to_the_senders_side():
    """k = 8 at 1:1: 16 endpoints a group, 5 global links between each pair of groups (c = 5 × 400 = 2,000 Gbit/s).
    49 hosts → groups of 16, 16, 16 and 1; halves: groups 0–1 (32 endpoints, each group sending 6,400 Gbit/s)
    against groups 2–3 (17: receiving 6,400 and 400). The min cut takes the x groups that most want to send, in
    order of net supply (+6,400, +6,400, −400, −6,400): x = 2: 2·2·2,000 = 8,000; x = 3 (group 3 joins the
    senders): its 400 + 3·1·2,000 = 6,400; x = 4: all demand 6,800. Bisection 6,400 Gbit/s, below the endpoint
    bound min(32, 17) × 400 = 6,800; ordered by the size of the imbalance (6,400, 6,400, 6,400, 400) group 2
    would join before group 3 and the cut read 6,800. The explicit graph's max-flow agrees."""
    plan = _dragonfly(49, nics_per_node=1, switch_radix=8)
    assert plan.extras["group_count"] == 4 and plan.wiring.global_links_per_group_pair == 5
    assert plan.bisection_gbps == pytest.approx(6400.0)
    assert max_flow_bisection_gbps(plan) == pytest.approx(6400.0)
    assert "the min cut separates 3 group(s) = 6,400 Gbit/s" in plan.derivations["bisection_gbps"]


def test_two_dragonfly_groups_of_unequal_size_split_between_the_groups():
    """k = 8 at 1:1: a group is 16 endpoints. 24 hosts → 2 groups of 16 and 8: the cut runs between the groups
    (16 against 8), not through the middle of the endpoints (12 / 12)."""
    two = _dragonfly(24, nics_per_node=1, switch_radix=8)
    assert two.extras["group_count"] == 2
    assert dragonfly_bisection_split(two.wiring, 24) == 16
    assert two.derivations["bisection_gbps"].startswith("groups 0–0 (16 endpoints) against groups 1–1 (8)")


def test_networkx_max_flow_agrees_with_scipy():
    """The slow networkx max-flow (what the benchmark compares) on the 3:1 tapered fabric above and on a 1:1
    16-endpoint one-switch fabric (N·B/2 = 8 × 400 = 3,200 Gbit/s)."""
    tapered = plan_fabric(
        FabricRequest(topology=Topology.FAT_TREE, node_count=32, nics_per_node=1, switch_radix=8, oversubscription=3)
    )
    assert max_flow_bisection_networkx_gbps(tapered) == pytest.approx(max_flow_bisection_gbps(tapered))
    flat = plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=16, nics_per_node=1, switch_radix=16))
    assert max_flow_bisection_networkx_gbps(flat) == pytest.approx(3200.0)
    assert max_flow_bisection_gbps(flat) == pytest.approx(3200.0)


def test_smallest_tori():
    """Two nodes on a k = 2 ring: node 0 against node 1 over the two parallel links = 2; three in a ring: node 0
    against nodes 1–2 cuts its two links = 2; a 2 × 2 × 2 torus halves across 4 lines of 2 links each = 8."""
    assert torus_cut_links((2, 1, 1), 1) == 2
    assert torus_cut_links((3, 1, 1), 1) == 2
    assert torus_cut_links((2, 2, 2), 4) == 8
