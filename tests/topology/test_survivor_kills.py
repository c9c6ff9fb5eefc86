"""Cases `make mutation` found untested (each fails on the mutant its docstring names), derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tests.topology.test_planes import management_request
from topology import FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.graph import fabric_edges, max_flow_bisection_gbps
from topology.management_plane import plan_management


def test_a_three_tier_k16_fat_tree_graph_counts_every_core():
    """k = 16 at 1:1, 3 tiers, 1,024 endpoints: pods of 8 leaves × 8 down = 64 endpoints → 16 pods; 16 × 8 = 128
    leaves, 128 pod spines, (k/2)² = 64 cores, each pod spine wired to 8 cores (8 cores per group): the graph has
    1,024 + 128 + 128 + 64 = 1,344 nodes, and max-flow across the halves = N·B/2 = 1,024 × 400 ÷ 2 = 204,800
    Gbit/s."""
    p = plan_fabric(
        FabricRequest(topology=Topology.FAT_TREE, node_count=1024, nics_per_node=1, switch_radix=16, tiers=3)
    )
    g = fabric_edges(p)
    assert g.node_count == 1344 == g.node_tier.size
    assert np.bincount(g.node_tier[g.node_tier >= 0]).tolist() == [128, 128, 64]
    assert max_flow_bisection_gbps(p) == 204_800.0


def test_a_torus_of_two_chips_is_one_hop_on_average():
    """2 chips (1 × 1 × 2): each chip's only other chip is its neighbour, 1 hop away: mean 1.0, diameter 1.
    (Mutant: the N/(N−1) correction applied only above 2 chips, giving 0.)"""
    p = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=2))
    assert p.extras["avg_hop_count"] == 1.0


def test_one_gigabit_management_access_ports_are_a_speed():
    """1GbE BMC/management access ports are common: a speed of 1 Gbit/s is positive and accepted; 0 is not.
    (Mutant: speeds had to exceed 1.)"""
    plan = plan_management(management_request(compute_node_count=250, tor_access_gbps=1.0, uplink_gbps=1.0))
    assert plan.tor_count >= 1


def test_a_one_tier_leaf_says_it_has_no_uplinks():
    """tiers = 1: the leaf tier's derivation ends "one switching tier, no uplinks" (no ratio of 0 uplinks).
    (Mutant: the one-tier branch taken for tiers == 0, never.)"""
    p = plan_fabric(FabricRequest(topology=Topology.FAT_TREE, node_count=10, nics_per_node=1, switch_radix=16, tiers=1))
    assert p.tiers[0].derivation.endswith("; one switching tier, no uplinks")


def test_an_su_of_two_leaves_per_rail_too_big_for_a_pod_spine_asks_for_smaller_sus():
    """16-port switches at 1:1 (8 down, 8 up), 8 rails, SUs of 16 nodes → ⌈16 ÷ 8⌉ = 2 leaves per rail, 16 leaves
    per SU; a 16-port pod spine takes 8 leaves down, so not one SU fits a pod: with 2 leaves per rail the cure is
    smaller SUs (the scalable_unit_nodes field), not rail groups. (Mutant: the SU refusal only above 2 leaves.)"""
    req = FabricRequest(
        topology=Topology.RAIL_OPTIMIZED, node_count=64, nics_per_node=8, switch_radix=16, scalable_unit_nodes=16,
        tiers=3, rail_groups=1,
    )  # fmt: skip
    with pytest.raises(FabricRequestError) as exc:
        plan_fabric(req)
    assert exc.value.errors == {
        "scalable_unit_nodes": "one scalable unit has 16 leaves, more than the 8 a 16-port pod spine can take down; "
        "use smaller SUs"
    }
