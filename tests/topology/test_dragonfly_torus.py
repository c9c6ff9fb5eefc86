"""Dragonfly+ and torus figures against their published formulas."""

from __future__ import annotations

import pytest

from topology import FabricRequest, Topology, plan_fabric
from topology.graph import to_networkx, verify_plan
from topology.torus import ring_mean_distance, torus_dims_for


def test_dragonfly_plus_max_scale_is_k2_over_4_plus_1_groups():
    """Shpiner et al. 2017: k-port routers at 1:1 → k²/4 + 1 groups of (k/2)² hosts."""
    plan = plan_fabric(FabricRequest(topology=Topology.DRAGONFLY_PLUS, node_count=512, nics_per_node=8))
    assert plan.extras["max_group_count"] == 64**2 // 4 + 1
    assert plan.max_endpoint_count == (64 // 2) ** 2 * (64**2 // 4 + 1)
    assert plan.extras["leaves_per_group"] == plan.extras["spines_per_group"] == 32


def test_dragonfly_plus_global_links_and_bisection():
    plan = plan_fabric(FabricRequest(topology=Topology.DRAGONFLY_PLUS, node_count=64, nics_per_node=4, switch_radix=16))
    # k=16: 8 leaves × 8 hosts = 64 hosts per group → 4 groups; 64 global ports per group
    assert plan.extras["group_count"] == 4
    per_pair = plan.extras["global_links_per_group_pair"]
    assert per_pair == 64 // 3
    assert plan.extras["global_link_count"] == 6 * per_pair
    # halves of 2 groups each: 2 × 2 pairs cross the cut
    assert plan.bisection_gbps == min(256 * 400 / 2, 4 * per_pair * 400)
    assert verify_plan(plan).ok


def test_torus_dims_are_cube_like():
    assert torus_dims_for(4096) == (16, 16, 16)
    assert torus_dims_for(2048) == (8, 16, 16)
    assert torus_dims_for(12) == (2, 2, 3)
    assert torus_dims_for(7) == (1, 1, 7)


def test_ring_mean_distance():
    assert ring_mean_distance(4) == pytest.approx((0 + 1 + 2 + 1) / 4)
    assert ring_mean_distance(5) == pytest.approx((0 + 1 + 2 + 2 + 1) / 5)


def test_torus_avg_hops_match_bfs():
    import networkx as nx

    plan = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=60))
    g = to_networkx(plan)
    lengths = dict(nx.all_pairs_shortest_path_length(g))
    n = g.number_of_nodes()
    avg = sum(sum(d.values()) for d in lengths.values()) / (n * (n - 1))
    diameter = max(max(d.values()) for d in lengths.values())
    assert plan.extras["avg_hop_count"] == pytest.approx(avg)
    assert plan.extras["diameter_hops"] == diameter


def test_torus_odd_dimension_bisection_verified():
    plan = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=105, torus_dims=(3, 5, 7)))
    assert verify_plan(plan).ok


@pytest.mark.parametrize(
    ("chips", "dims"),
    [
        (64, (4, 4, 4)),
        (24, (2, 3, 4)),  # of 1×1×24, 1×2×12, 1×3×8, 1×4×6, 2×2×6, 2×3×4 the longest side 4 is the least
        (16, (2, 2, 4)),  # 1×4×4 and 2×2×4 tie on the longest side (4); 2×2×4 spreads less (4 − 2 < 4 − 1)
        (26, (1, 2, 13)),  # 2 × 13: x = 1 is the best (a search from x = 2 finds nothing and says 1×1×26)
        (1000, (10, 10, 10)),
        (1, (1, 1, 1)),
    ],
)
def test_torus_dims_by_hand(chips, dims):
    assert torus_dims_for(chips) == dims


def test_a_small_torus_by_hand():
    """2 × 3 × 5 = 30 chips (as given): every dimension longer than 1 → 6 links a chip, 30 × 3 = 90 links; the size-2
    dimension 0 is named. Mean ring distances: k = 2 → 0.5, k = 3 → (0 + 1 + 1)/3 = 0.6667, k = 5 → (0+1+2+2+1)/5
    = 1.2; sum 2.36667 × 30/29 = 2.448276 hops."""
    plan = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=30, torus_dims=(2, 3, 5)))
    assert plan.derivations["torus_dims"] == "2 × 3 × 5 — as given"
    assert plan.extras["links_per_chip"] == 6 and plan.endpoint_link_count == 90
    assert plan.derivations["links_per_chip"] == "± neighbour in each of 3 dimensions = 6; dimension 0 has size 2"
    assert plan.extras["avg_hop_count"] == 2.448276
    flat = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=16, torus_dims=(1, 4, 4)))
    assert flat.derivations["links_per_chip"] == (
        "± neighbour in each of 2 dimensions = 4 (only 2 dimension(s) longer than 1: fewer than 6 links per chip)"
    )
    twos = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=12, torus_dims=(3, 2, 2)))
    assert twos.derivations["links_per_chip"].endswith("= 6; dimension 1 has size 2; dimension 2 has size 2")
    one = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=1, torus_dims=(1, 1, 1)))
    assert one.extras["avg_hop_count"] == 0.0


def test_torus_dims_that_do_not_multiply_to_the_chips_are_refused_saying_so():
    from topology import FabricRequestError

    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=32, torus_dims=(2, 3, 5)))
    assert exc.value.errors["torus_dims"] == ("2×3×5 = 30 chips, but the design has 32 (node_count × chips_per_node)")
