"""Per-tier switch models, nodes per leaf and explicit pods, through the whole pipeline."""

from __future__ import annotations

import pytest

from cluster.pipeline import plan_cluster
from cluster.validate import RequirementsError, validate
from topology.graph import verify_plan

LLAMA3_24K = {
    "name": "24k-GPU RoCE, 16-GPU racks, pods of 3,072 GPUs, 1:7 above the pods",
    "gpu_model": "H100-SXM5",
    "gpu_count": 24_576,
    "gpus_per_node": 8,
    "compute_fabric": {
        "topology": "fat_tree",
        "nic_gbps": 400,
        "switch_model": "SN5600-400G",
        "spine_switch_model": "7816R3",
        "core_switch_model": "SN5600-400G",
        "leaf_nodes": 2,
        "pod_nodes": 384,
        "agg_oversubscription": 7,
    },
    "bom": {"nodes_per_rack": 2},
    "power": {"rack_budget_kw": 21},  # two 10.2 kW servers per rack
}


def test_llama3_24k_roce_cluster():
    """Llama 3 paper (Meta, "The Llama 3 Herd of Models", 2024, §3.3.1 Network): 24K GPUs on a three-layer
    RoCE Clos; each rack 16 GPUs in two servers under one ToR; 192 racks form a pod of 3,072 GPUs at full
    bisection; 8 pods joined by aggregation switches at 1:7 oversubscription.

    By hand: 3,072 nodes × 8 NICs = 24,576 endpoints; one ToR per rack of 2 nodes → 16 down + 16 up at 1:1
    → 1,536 leaves; a pod of 384 nodes = 192 leaves → 8 pods; every leaf sends 1 link to each of 16 pod
    spines → 8 × 16 = 128 spines (576-port chassis), each 192 down and ⌈192 ÷ 7⌉ = 28 up (6.86:1, never
    above 7); 16 core groups; 28 uplinks spread over 128-port cores at ⌊128 ÷ 8 pods⌋ = 16 → the largest
    divisor of 28 ≤ 16 is 14 links per core → 2 cores per group → 32 cores, each using 8 × 14 = 112 ports.
    Bisection: the halves are 4 pods each, so everything climbs: 4 pods × 16 spines × 28 × 400G =
    716,800 Gbit/s (89.6 TB/s), 1/6.86 of the 4,915,200 Gbit/s a non-blocking fabric would give.
    Links: 24,576 + 1,536 × 16 + 128 × 28 = 52,736."""
    plan = plan_cluster(validate(LLAMA3_24K))
    fabric = plan.fabric
    tiers = {t.name: t for t in fabric.tiers}
    assert [(t.name, t.switch_count, t.radix) for t in fabric.tiers] == [
        ("leaf", 1536, 128),
        ("spine", 128, 576),
        ("core", 32, 128),
    ]
    assert (tiers["leaf"].down_ports_per_switch, tiers["leaf"].up_ports_per_switch) == (16, 16)
    assert (tiers["spine"].down_ports_per_switch, tiers["spine"].up_ports_per_switch) == (192, 28)
    assert tiers["spine"].oversubscription == pytest.approx(192 / 28) and tiers["spine"].oversubscription <= 7
    assert fabric.extras["pod_count"] == 8
    assert fabric.bisection_gbps == 716_800
    assert fabric.link_count == 52_736
    assert verify_plan(fabric).ok
    bom = plan.bom
    assert bom.quantity("SN5600-400G") == 1536 + 32 and bom.quantity("7816R3") == 128
    assert plan.power.racks.nodes_per_rack == 2 and plan.power.racks.compute_rack_count == 1536
    assert not [c for c in plan.result()["bom"]["checks"] if not c["ok"]]
    assert plan.result()["compute_fabric"]["bisection_tbyte_s"] == pytest.approx(89.6)


def _errors(**fabric) -> dict[str, list[str]]:
    data = {**LLAMA3_24K, "compute_fabric": {**LLAMA3_24K["compute_fabric"], **fabric}}
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate(data))
    return exc.value.errors


def test_a_pod_too_big_for_its_spines_names_pod_nodes():
    """2,000 nodes = 1,000 leaves; a 576-port spine at 1:7 takes at most 504 down (504 + 72 up)."""
    errors = _errors(pod_nodes=2000)
    assert "1,000 leaves" in errors["pod_nodes"][0] and "at most 504" in errors["pod_nodes"][0]


def test_a_pod_of_partial_leaves_is_refused():
    errors = _errors(pod_nodes=385)
    assert "whole leaves" in errors["pod_nodes"][0]


def test_a_tier_model_slower_than_the_nic_names_the_field_and_the_models_that_fit():
    errors = _errors(spine_switch_model="QM8700")
    message = errors["spine_switch_model"][0]
    assert "QM8700 runs 200G ports, slower than the 400G NIC ports" in message
    assert "7816R3" in message and "QM9700" in message


def test_too_many_nodes_per_leaf():
    errors = _errors(leaf_nodes=9)
    assert "72 down ports" in errors["leaf_nodes"][0] and "at most 64" in errors["leaf_nodes"][0]


def test_rail_groups_that_do_not_divide_the_rails_is_a_field_error():
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate({"gpu_count": 512, "compute_fabric": {"rail_groups": 3}}))
    assert "choose one of 1, 2, 4, 8" in exc.value.errors["rail_groups"][0]


def test_pods_need_three_tiers():
    errors = _errors(tiers=2)
    assert "need 3 tiers" in errors["pod_nodes"][0]


def test_fabric_managers_take_leaf_ports_in_the_fabric_plan():
    """DGX SuperPOD H100 RA (RA-11333-001) Table 4, 4 SUs: 127 nodes + 4 UFM ports = 1,020 node/UFM–leaf
    cables on 32 leaves of 64 ports: 1,016 + 4 down + 1,024 up = 2,044 used, 2,048 − 2,044 = 4 free."""
    plan = plan_cluster(
        validate(
            {
                "gpu_model": "H100-SXM5",
                "node_count": 127,
                "gpus_per_node": 8,
                "compute_fabric": {"scalable_unit_nodes": 32, "rail_groups": 1, "ufm_server_count": 4},
            }
        )
    )
    leaf = plan.result()["compute_fabric"]["tiers"][0]
    assert (leaf["ports_used_count"], leaf["ports_free_count"]) == (2044, 4)
    assert "+ 4 port(s) of fabric-management servers" in leaf["derivation"]
