"""Requirements → engine requests: per-tier switch models and the floor plan's servers per rack, by hand."""

from __future__ import annotations

import pytest

from cluster.requests import floor_plan_nodes_per_rack, rack_layout, tier_radix
from cluster.requirements import Requirements
from tests.conftest import with_sections
from topology import FabricRequestError


def _fabric(**changes) -> Requirements:
    return with_sections(Requirements(), compute_fabric=changes)


def test_a_spine_model_of_the_leaf_speed_gives_its_radix():
    assert tier_radix(_fabric(spine_switch_model="SN5600-400G"), "spine") == 128
    assert tier_radix(_fabric(), "spine") is None  # no model: the leaf's radix


@pytest.mark.parametrize(
    ("planes", "model", "slower"),
    [
        (1, "QM8700", ", slower than the 400G NIC ports"),  # 200G < 400G
        (2, "QM8700", ""),  # a 400G NIC in 2 planes has 200G ports: 200G is not slower
        (2, "7050CX3-32S", ", slower than the 200G NIC ports"),  # 100G < 200G
    ],
)
def test_a_spine_model_of_another_speed_is_refused_on_its_field(planes, model, slower):
    """The leaf runs 400G (QM9700); a spine of another speed is refused, naming the 400G models."""
    with pytest.raises(FabricRequestError) as exc:
        tier_radix(_fabric(spine_switch_model=model, nic_planes=planes), "spine")
    speed = {"QM8700": 200, "7050CX3-32S": 100}[model]
    assert exc.value.errors == {
        "spine_switch_model": f"{model} runs {speed}G ports{slower}; every tier runs the leaf's 400G: "
        "choose one of 7816R3, QM9700, SN5600-400G"
    }


@pytest.mark.parametrize(
    ("budget_kw", "storage", "mgmt"),
    [
        (20.0, 10, 20),  # storage 20 ÷ 2.0 kW = 10 exactly; management 20 ÷ 1.0 kW = 20 exactly
        (19.99, 9, 19),  # just under: 9.995 → 9 and 19.99 → 19
    ],
)
def test_infrastructure_servers_per_rack_follow_the_budget(budget_kw, storage, mgmt):
    """Storage servers of 2,000 W (2U) and management servers of 1,000 W (1U) in a 42U rack: the rack units
    allow 21 and 42, so the budget decides — ⌊budget ÷ kW⌋ with the W turned into kW."""
    r = with_sections(
        Requirements(),
        power={"rack_budget_kw": budget_kw, "storage_node_power_w": 2000.0, "mgmt_node_power_w": 1000.0},
    )
    layout = rack_layout(r)
    assert (layout.storage_per_rack, layout.servers_per_rack) == (storage, mgmt)


@pytest.mark.parametrize(
    ("budget_kw", "nodes"),
    [
        (40.8, 4),  # 4 × 10.2 kW exactly (8 U nodes: 42 U would take 5)
        (40.79, 3),
        (5.0, 1),  # less than one node's draw: the rack still holds one node (the rack plan flags the budget)
    ],
)
def test_compute_nodes_per_rack_follow_the_budget(budget_kw, nodes):
    """A DGX H100 draws 8 × 700 W + 4,600 W host = 10,200 W = 10.2 kW (the chapter's figures)."""
    r = with_sections(Requirements(), power={"rack_budget_kw": budget_kw})
    assert floor_plan_nodes_per_rack(r) == nodes


def test_nodes_per_rack_as_given_or_by_the_rack_scale_system():
    assert floor_plan_nodes_per_rack(with_sections(Requirements(), bom={"nodes_per_rack": 3})) == 3
    gb200 = with_sections(Requirements(), cluster={"gpu_model": "GB200", "gpus_per_node": 4, "gpu_count": 72})
    assert floor_plan_nodes_per_rack(gb200) == 18  # NVL72: 18 compute trays of 4 GPUs
