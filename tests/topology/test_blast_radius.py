"""Failure blast radius (#37.2), by hand on a small 2-tier 1:1 fat-tree, and the Monte Carlo against the exact
enumeration.

The fabric: radix 8 at 1:1 → a leaf has 4 ports down, 4 up; 32 endpoints of 400G → 8 leaves; spines of 8 ports take
one link from each of the 8 leaves, so 4 spines. Bisection = 32 × 400 / 2 = 6,400 Gbit/s (N·B/2)."""

from __future__ import annotations

import numpy as np
import pytest

from topology import FabricRequest, Topology, plan_fabric
from topology.blast_radius import monte_carlo, single_switch_failures

B = 400.0


@pytest.fixture(scope="module")
def fat_tree():
    return plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=32, nics_per_node=1, switch_radix=8))


def test_one_leaf_loses_its_endpoints_share_and_one_spine_one_over_s(fat_tree):
    assert [(t.name, t.switch_count) for t in fat_tree.tiers] == [("leaf", 8), ("spine", 4)]
    whole, failures = single_switch_failures(fat_tree, by_class=False)
    assert whole == 32 * B / 2
    leaf0 = next(f for f in failures if f.tier == "leaf" and f.switch == 0)
    # leaf 0 holds endpoints 0–3, all in the first half of 16: the half's injection falls by 4 × 400
    assert leaf0.bisection_left_gbps == (16 - 4) * B and leaf0.bisection_lost_frac == pytest.approx(4 / 16)
    assert leaf0.endpoints_cut_off == 4 and leaf0.nodes_degraded == 4
    spine = next(f for f in failures if f.tier == "spine")
    # 1 of S = 4 spines: every leaf keeps 3 of its 4 uplinks → 3/4 of the bisection
    assert spine.bisection_left_gbps == whole * (1 - 1 / 4) and spine.endpoints_cut_off == 0
    assert "one of" not in spine.derivation  # evaluated one by one


def test_classes_give_the_same_figures_as_every_switch_one_by_one(fat_tree):
    _, each = single_switch_failures(fat_tree, by_class=False)
    _, classed = single_switch_failures(fat_tree, by_class=True)
    assert [f.bisection_left_gbps for f in each] == [f.bisection_left_gbps for f in classed]
    assert {f.members for f in classed if f.tier == "spine"} == {4}


def test_monte_carlo_of_one_failure_matches_the_exact_enumeration(fat_tree):
    """k = 1 draws one switch uniformly: its mean must cover the mean over all 12 single failures."""
    _, each = single_switch_failures(fat_tree, by_class=False)
    exact = float(np.mean([f.bisection_left_gbps for f in each]))
    mc = monte_carlo(fat_tree, k=1, samples=400, seed=7)
    lo, hi = mc.ci95_gbps
    assert lo <= exact <= hi, (lo, exact, hi)
    assert set(np.unique(mc.left_gbps)) <= {f.bisection_left_gbps for f in each}
    again = monte_carlo(fat_tree, k=1, samples=400, seed=7)
    assert np.array_equal(mc.left_gbps, again.left_gbps)  # seeded


def test_k_failures_never_leave_more_than_fewer(fat_tree):
    one = monte_carlo(fat_tree, k=1, samples=200, seed=3)
    four = monte_carlo(fat_tree, k=4, samples=200, seed=3)
    assert four.mean_left_gbps < one.mean_left_gbps
    with pytest.raises(ValueError, match="k=13 failures of 12 switches"):
        monte_carlo(fat_tree, k=13, samples=10)


def test_a_rail_optimized_leaf_degrades_its_nodes_without_cutting_them_off():
    """2 SUs of 4 nodes × 4 rails, radix 8: a rail leaf takes one NIC of each of its SU's 4 nodes. Losing it cuts
    those 4 NIC ports off (each is single-homed) but every node keeps 3 rails: 4 nodes degraded, 0 nodes lost, and
    the other SU (4 nodes) is the largest intact leaf group."""
    p = plan_fabric(FabricRequest(topology=Topology.RAIL_OPTIMIZED, node_count=8, nics_per_node=4, switch_radix=8,
                                  scalable_unit_nodes=4))  # fmt: skip
    nodes_of = np.arange(p.endpoint_count) // 4
    group_of = np.arange(8) // 4
    _, failures = single_switch_failures(p, nodes_of=nodes_of, group_of=group_of)
    leaf = next(f for f in failures if f.tier == "leaf" and f.switch == 0)
    assert (leaf.endpoints_cut_off, leaf.nodes_degraded, leaf.largest_intact_group_nodes) == (4, 4, 4)
