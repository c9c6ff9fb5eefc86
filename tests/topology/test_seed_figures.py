"""The seed chapter's worked fabric figures (shared/reference/seed-figures.md F1–F7, D1–D4)."""

from __future__ import annotations

import math

import pytest

from topology import FabricRequest, Topology, plan_fabric
from topology.graph import verify_plan
from topology.sizing import (
    aggregate_bandwidth_gbps,
    min_uplink_bandwidth_gbps,
    ports_for_bandwidth,
    switches_for_bandwidth,
)
from topology.switches import switch_model


def fat_tree(nodes: int, nics: int = 8, **kw) -> FabricRequest:
    return FabricRequest(topology=Topology.FAT_TREE, node_count=nodes, nics_per_node=nics, **kw)


def test_f1_two_tier_reaches_k_squared_over_two():
    plan = plan_fabric(fat_tree(256, tiers=2))  # 2,048 endpoints: exactly full
    assert plan.max_endpoint_count == 64**2 // 2 == 2048
    assert [t.switch_count for t in plan.tiers] == [64, 32]
    assert "k²/2" in plan.derivations["max_endpoint_count"]
    too_big = fat_tree(257, tiers=2)
    with pytest.raises(ValueError, match="2-tier"):
        plan_fabric(too_big)


def test_f2_three_tier_reaches_k_cubed_over_four_with_5k2_over_4_switches():
    plan = plan_fabric(fat_tree(8192, tiers=3))  # 65,536 endpoints
    assert plan.max_endpoint_count == 64**3 // 4 == 65_536
    assert plan.switch_count == 5 * 64**2 // 4 == 5_120
    assert [t.switch_count for t in plan.tiers] == [2048, 2048, 1024]
    assert "k³/4" in plan.derivations["max_endpoint_count"]


def test_f3_uplink_bandwidth_of_32_nodes():
    bw = aggregate_bandwidth_gbps(32 * 8, 400)
    assert bw == 102_400  # 102.4 Tbit/s
    assert switches_for_bandwidth(bw, 64, 400) == 4


def test_f4_bisection_of_non_blocking_fat_tree_is_n_b_over_2():
    plan = plan_fabric(fat_tree(256, tiers=2))
    assert plan.bisection_gbps == 2048 * 400 / 2


def test_f5_rail_optimized_1024_h100():
    req = FabricRequest(topology=Topology.RAIL_OPTIMIZED, node_count=128, nics_per_node=8)
    plan = plan_fabric(req)
    assert aggregate_bandwidth_gbps(plan.endpoint_count, plan.endpoint_gbps) / 8000 == 51.2
    assert plan.bisection_tbyte_s == pytest.approx(25.6)


def test_f6_uplink_ports_for_1_5_to_1():
    bw = min_uplink_bandwidth_gbps(2048, 400, 1.5)
    assert bw == pytest.approx(546_133.33, abs=0.01)
    budget = ports_for_bandwidth(bw, 400)
    # ⌈1,365.33⌉ = 1,366: the chapter's 1,365 would give 1.5009:1, above the target
    assert budget.port_count == 1366
    n = budget.port_count  # the ceiling is the least count at or under the target; one fewer overshoots
    assert 2048 * 400 / ((n - 1) * 400) > 1.5 >= 2048 * 400 / (n * 400)
    assert "1,365" in budget.derivation
    assert budget.port_count_with_headroom == math.ceil(1366 * 1.2) == 1640
    plan = plan_fabric(fat_tree(256, oversubscription=1.5))
    leaf = plan.tier("leaf")
    assert leaf.oversubscription <= 1.5
    assert leaf.uplink_count * 400 >= bw


def test_f7_torus_4096_chips():
    req = FabricRequest(topology=Topology.TORUS_3D, node_count=4096, torus_link_gbps=400)
    plan = plan_fabric(req)
    assert plan.extras["torus_dims"] == [16, 16, 16]
    assert plan.extras["links_per_chip"] == 6
    assert plan.link_count == 4096 * 6 // 2
    assert plan.extras["bisection_link_count"] == 2 * 16**2
    assert plan.extras["diameter_hops"] == 24
    # diameter and average hop count grow as N^(1/3): 8× the chips, 2× the hops
    big = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=32**3))
    assert big.extras["diameter_hops"] == 2 * plan.extras["diameter_hops"]
    assert big.extras["avg_hop_count"] == pytest.approx(2 * plan.extras["avg_hop_count"], rel=1e-3)


@pytest.fixture(scope="module")
def design_2000():
    qm = switch_model("QM9700")
    req = FabricRequest(
        topology=Topology.RAIL_OPTIMIZED,
        node_count=250,
        nics_per_node=8,
        nic_gbps=400,
        switch_radix=qm.radix,
        switch_port_gbps=qm.port_gbps,
    )
    return plan_fabric(req)


def test_d1_rail_leaves(design_2000):
    leaf = design_2000.tier("leaf")
    assert design_2000.extras["rail_count"] == 8
    assert design_2000.extras["leaves_per_rail"] == 8
    assert (leaf.down_ports_per_switch, leaf.up_ports_per_switch) == (32, 32)
    assert leaf.switch_count == 64
    # 8 leaves per rail × 32 down ports hold the 250 nodes (7 × 32 + 26), and 7 would not (224)
    per_rail = design_2000.extras["leaves_per_rail"] * leaf.down_ports_per_switch
    assert per_rail >= design_2000.endpoint_count // 8 > per_rail - leaf.down_ports_per_switch


def test_d2_spines_non_blocking(design_2000):
    spine = design_2000.tier("spine")
    assert spine.switch_count == 32
    assert design_2000.tier("leaf").uplink_count == 2048 == 32 * 64
    assert design_2000.tier("leaf").oversubscription == 1.0
    assert spine.ports_free_total == 0


def test_d3_switch_total(design_2000):
    assert design_2000.switch_count == 96


def test_d4_links_per_link_and_per_end(design_2000):
    assert design_2000.endpoint_link_count == 2000
    assert design_2000.switch_link_count == 2048
    assert design_2000.link_count == 4048
    # the chapter buys one optical module per link; a link needs one at each end
    assert design_2000.link_end_count == 8096
    assert "2 ends" in design_2000.derivations["link_end_count"]


def test_2000_gpu_design_verifies_on_the_graph(design_2000):
    v = verify_plan(design_2000)
    assert v.ok, v.problems
    assert v.bisection_max_flow_gbps == 2000 * 400 / 2


def test_superpod_4su_h100():
    """NVIDIA DGX SuperPOD H100 reference: 4 SUs of 32 nodes → 32 leaves + 16 spines."""
    req = FabricRequest(topology=Topology.RAIL_OPTIMIZED, node_count=127, nics_per_node=8, scalable_unit_nodes=32)
    plan = plan_fabric(req)
    assert [t.switch_count for t in plan.tiers] == [32, 16]
    assert plan.tier("spine").down_ports_per_switch == 64  # 32 leaves × 2 links
    assert verify_plan(plan).ok


def test_16k_three_tier():
    plan = plan_fabric(fat_tree(2048))  # 16,384 endpoints > 2,048: needs 3 tiers
    assert plan.tier_count == 3
    assert [t.switch_count for t in plan.tiers] == [512, 512, 256]
    assert plan.bisection_gbps == 16384 * 400 / 2
