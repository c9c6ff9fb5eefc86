"""The explicit graph, rule by rule, on fabrics small enough to write out by hand.

The graph is the plan's independent check (topology.graph.verify_plan): these tests pin how it numbers nodes,
what it names them, how it counts parallel links, and that each of its checks fires on a plan that lies —
a verifier that passes everything would let every other test pass too.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from topology import FabricRequest, Topology, plan_fabric
from topology.graph import dragonfly_global_pairs, fabric_edges, to_networkx, verify_plan
from topology.spec import DragonflyWiring


@pytest.fixture(scope="module")
def two_plane_rail():
    """4 nodes × 2 NICs × 2 planes on 8-port switches, one 4-node SU: 16 endpoints of 200G.

    Each plane is a copy of the fabric: 2 rail leaves (one per NIC) and 1 spine. The 8-port leaf's split at
    200G down / 400G up is 5 down + ⌈5 × 200 ÷ 400⌉ = 3 up, but a leaf takes only its rail's 4 nodes (4 down
    used), so it buys ⌈4 × 200 ÷ 400⌉ = 2 links to its copy's spine (issue #34: uplinks for the used ports;
    8 uplinks over 4 leaves); each spine takes its copy's 2 leaves × 2 = 4. Links: 16 endpoint + 8 leaf–spine
    = 24. Switches: 4 leaves + 2 spines = 6."""
    return plan_fabric(
        FabricRequest(
            topology=Topology.RAIL_OPTIMIZED,
            node_count=4,
            nics_per_node=2,
            switch_radix=8,
            nic_planes=2,
            scalable_unit_nodes=4,
        )
    )


def test_the_hand_counts_of_the_two_plane_fabric(two_plane_rail):
    p = two_plane_rail
    assert p.wiring.copies == 2
    assert [(t.name, t.switch_count, t.ports_used_total) for t in p.tiers] == [("leaf", 4, 24), ("spine", 2, 8)]
    assert p.link_count == 24
    assert verify_plan(p).ok


def test_switches_are_numbered_within_their_tier_and_endpoints_stay_untiered(two_plane_rail):
    """Nodes 0–15 are the endpoints (tier −1, no index); 16–19 the 4 leaves (tier 0, numbered 0–3), 20–21
    the 2 spines (tier 1, numbered 0–1): the cut sheet's leaf0001…, spine0001… and topology.conf count so."""
    e = fabric_edges(two_plane_rail)
    assert e.node_tier.tolist() == [-1] * 16 + [0] * 4 + [1] * 2
    assert e.index_in_tier().tolist() == [-1] * 16 + [0, 1, 2, 3, 0, 1]
    assert e.tier_names == ("leaf", "spine")


def test_networkx_names_every_node_by_its_tier(two_plane_rail):
    g = to_networkx(two_plane_rail)
    assert Counter(nx_tier for _, nx_tier in g.nodes(data="tier")) == {"endpoint": 16, "leaf": 4, "spine": 2}
    assert g.nodes[0]["tier"] == "endpoint" and g.nodes[16]["tier"] == "leaf" and g.nodes[21]["tier"] == "spine"


def test_dragonfly_nodes_are_named_by_tier():
    """12 single-NIC nodes on 4-port switches: 3 groups of 2 leaves (2 hosts each) and 2 spines."""
    plan = plan_fabric(FabricRequest(topology=Topology.DRAGONFLY_PLUS, node_count=12, nics_per_node=1, switch_radix=4))
    g = to_networkx(plan)
    assert Counter(t for _, t in g.nodes(data="tier")) == {"endpoint": 12, "leaf": 6, "spine": 6}
    assert verify_plan(plan).ok


def test_a_one_tier_fabric_has_only_leaves():
    """4 nodes on one 8-port leaf: 4 links, nothing above."""
    plan = plan_fabric(
        FabricRequest(topology=Topology.FAT_TREE, node_count=4, nics_per_node=1, switch_radix=8, tiers=1)
    )
    e = fabric_edges(plan)
    assert e.tier_names == ("leaf",)
    assert e.node_tier.tolist() == [-1, -1, -1, -1, 0]
    assert verify_plan(plan).ok


# --- Dragonfly+ global links --------------------------------------------------------------------------------


def test_global_links_one_per_group_pair_dealt_over_the_spines():
    """4 groups, 1 link per pair, 3 spines a group. Group a's other groups in order get its port slots 0, 1, 2,
    dealt round-robin over its spines: the link (a, b) leaves a on spine (rank of b among a's others) mod 3 =
    (b − 1) mod 3 for b > a, and enters b on spine a mod 3.
    pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3) → spines at a: 0 1 2 1 2 2; at b: 0 0 0 1 1 2.
    Every spine ends with exactly one global port (group 1: spine 0 from (0,1), 1 and 2 from (1,2), (1,3))."""
    w = DragonflyWiring(
        group_count=4,
        leaf_endpoints=(1,) * 4,
        leaf_group=(0, 1, 2, 3),
        spines_per_group=3,
        leaf_to_spine_links=1,
        global_ports_per_spine=1,
        global_links_per_group_pair=1,
    )
    ga, sa, gb, sb = dragonfly_global_pairs(w)
    assert ga.tolist() == [0, 0, 0, 1, 1, 2]
    assert gb.tolist() == [1, 2, 3, 2, 3, 3]
    assert sa.tolist() == [0, 1, 2, 1, 2, 2]
    assert sb.tolist() == [0, 0, 0, 1, 1, 2]
    ports = Counter(zip(ga.tolist(), sa.tolist(), strict=True)) + Counter(zip(gb.tolist(), sb.tolist(), strict=True))
    assert sorted(ports) == [(g, s) for g in range(4) for s in range(3)] and set(ports.values()) == {1}


@pytest.mark.parametrize(("groups", "per_pair"), [(3, 0), (1, 2)])
def test_no_global_links_without_pairs_or_ports(groups, per_pair):
    w = DragonflyWiring(groups, (1,) * groups, tuple(range(groups)), 2, 1, 2, per_pair)
    assert all(a.size == 0 for a in dragonfly_global_pairs(w))


# --- torus ------------------------------------------------------------------------------------------------------


def test_torus_parallel_links_of_a_ring_of_two():
    """3 × 2 × 2 torus of 400G links (node id = 4x + 2y + z): chip 0 = (0,0,0) has ring-of-3 neighbours
    (1,0,0) = 4 and (2,0,0) = 8, one link each; along y and z the ring of 2 gives its + and − neighbour as the
    same chip, (0,1,0) = 2 and (0,0,1) = 1, joined by two parallel links (800 Gbit/s). 6 links per chip,
    12 × 6 ÷ 2 = 36 links."""
    plan = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=12, torus_dims=(3, 2, 2)))
    g = to_networkx(plan)
    assert {v: (g[0][v]["links"], g[0][v]["bandwidth_gbps"]) for v in g[0]} == {
        4: (1, 400.0),
        8: (1, 400.0),
        2: (2, 800.0),
        1: (2, 800.0),
    }
    assert sum(d["links"] for _, _, d in g.edges(data=True)) == 36
    assert fabric_edges(plan).injection_gbps == 6 * 400.0
    assert verify_plan(plan).ok


def test_a_dimension_of_one_has_no_links():
    """4 × 3 × 1: rings of 4 and 3 only, 2 + 2 = 4 links a chip, 12 × 4 ÷ 2 = 24 links, no chip linked to
    itself."""
    plan = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=12, torus_dims=(4, 3, 1)))
    e = fabric_edges(plan)
    assert e.link_count == 24 and not np.any(e.u == e.v)
    assert e.injection_gbps == 4 * 400.0
    assert verify_plan(plan).ok


def test_a_single_chip_has_no_links():
    plan = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=1))
    e = fabric_edges(plan)
    assert e.u.size == e.v.size == e.links.size == 0 and e.link_count == 0
    assert verify_plan(plan).ok


# --- the checks fire on a plan that lies --------------------------------------------------------------------


def _tier(plan, tier_name, **changes):
    tiers = tuple(dataclasses.replace(t, **changes) if t.name == tier_name else t for t in plan.tiers)
    return dataclasses.replace(plan, tiers=tiers)


def test_a_wrong_link_count_is_caught(two_plane_rail):
    bad = dataclasses.replace(two_plane_rail, switch_link_count=two_plane_rail.switch_link_count + 1)
    assert verify_plan(bad).problems == ("graph has 24 links, plan says 25",)


def test_a_wrong_switch_count_is_caught(two_plane_rail):
    v = verify_plan(_tier(two_plane_rail, "spine", switch_count=3))
    assert v.problems == ("graph has 6 switches, plan says 7",)
    assert v.switch_count == 6


def test_a_wrong_port_count_is_caught(two_plane_rail):
    v = verify_plan(_tier(two_plane_rail, "leaf", up_ports_used_total=9))
    assert v.problems == ("leaf: graph uses 24 ports, plan says 25",)
    assert v.ports_used_by_tier == {"leaf": 24, "spine": 8}


def test_a_switch_over_its_radix_is_caught(two_plane_rail):
    """A leaf uses 4 down + 2 up = 6 ports, a spine 4: a 6-port leaf is full, a 5-port one is overfilled."""
    assert verify_plan(two_plane_rail).max_ports_used_by_tier == {"leaf": 6, "spine": 4}
    assert verify_plan(_tier(two_plane_rail, "leaf", radix=6)).ok
    assert verify_plan(_tier(two_plane_rail, "leaf", radix=5)).problems == ("leaf: a switch uses 6 ports of 5",)


def test_a_tier_the_graph_lacks_is_caught_and_the_next_tier_still_checked(two_plane_rail):
    bad = _tier(_tier(two_plane_rail, "leaf", name="core"), "spine", radix=3)
    assert verify_plan(bad).problems == (
        "core: the plan has this tier, the graph has no switch in it",
        "spine: a switch uses 4 ports of 3",
    )


def test_a_wrong_bisection_is_caught(two_plane_rail):
    """16 × 200G ÷ 2 = 1,600 Gbit/s; the check allows float noise (10⁻⁹ relative), not half a Gbit/s."""
    assert two_plane_rail.bisection_gbps == 1600.0
    assert verify_plan(dataclasses.replace(two_plane_rail, bisection_gbps=1600.0 + 1e-7)).ok
    v = verify_plan(dataclasses.replace(two_plane_rail, bisection_gbps=1600.5))
    assert v.problems == ("max-flow bisection 1,600.0 Gbit/s ≠ analytic 1,600.5 Gbit/s",)
    assert v.bisection_max_flow_gbps == 1600.0


def test_a_torus_chip_with_the_wrong_link_count_is_caught():
    plan = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=12, torus_dims=(3, 2, 2)))
    bad = dataclasses.replace(plan, extras={**plan.extras, "links_per_chip": 5})
    assert verify_plan(bad).problems == ("a chip does not use exactly 5 links",)


def test_equal_plans_share_one_read_only_graph():
    """topology.graph.fabric_edges remembers a graph by its plan's exact text: an equal plan (a search's candidates,
    the link table and the leaf positions of one design) gets the same arrays, which nobody can change."""
    from topology.graph import _EDGES

    _EDGES.clear()
    first = fabric_edges(
        plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=256, nics_per_node=8, switch_radix=64))
    )
    again = fabric_edges(
        plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=256, nics_per_node=8, switch_radix=64))
    )
    assert again is first and len(_EDGES) == 1
    with pytest.raises(ValueError, match="read-only"):
        first.u[0] = 1
    other = fabric_edges(
        plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=128, nics_per_node=8, switch_radix=64))
    )
    assert other is not first and other.endpoint_count < first.endpoint_count
    assert isinstance(other.links, np.ndarray) and not other.links.flags.writeable


def test_a_designs_two_graphs_stay_past_the_budget(monkeypatch):
    """topology.graph's memo drops the oldest graphs past EDGES_BUDGET but keeps the newest two — one design's
    compute and storage graphs, which its floor plan and its link table ask for in turn — however large."""
    import topology.graph as graph

    graph._EDGES.clear()
    monkeypatch.setattr(graph, "EDGES_BUDGET", 1)
    plans = [
        plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=n, nics_per_node=8, switch_radix=64))
        for n in (64, 96, 128)
    ]
    first, second, third = (fabric_edges(p) for p in plans)
    assert len(graph._EDGES) == 2 and fabric_edges(plans[1]) is second and fabric_edges(plans[2]) is third
    assert fabric_edges(plans[0]) is not first  # the oldest was dropped: planned again


def test_one_copy_maps_onto_itself(two_plane_rail):
    """topology.graph._replicate returns one copy's graph as it is where the fabric is one copy: the map it would
    apply (_copy_maps) is then the identity — endpoints (local // rails) × rails + local % rails, switches n +
    their tier's first + their number — and a two-copy fabric's maps are not (they interleave the copies)."""
    from topology.graph import _copy_maps, _one_copy_edges

    one_copy = dataclasses.replace(two_plane_rail.wiring, copies=1)
    one = _one_copy_edges(two_plane_rail, one_copy)
    (only,) = _copy_maps(one, one_copy)
    assert only.tolist() == list(range(one.node_count))
    first, second = _copy_maps(one, two_plane_rail.wiring)
    assert first.tolist()[:8] == [0, 1, 4, 5, 8, 9, 12, 13]  # node-major, a node's two planes' NICs interleaved
    assert second.tolist()[:8] == [2, 3, 6, 7, 10, 11, 14, 15]
