"""Rack-scale NVLink systems (GB200/GB300 NVL72): one NVLink domain per rack, trays, switch trays, power.

Hand figures (power/rack_systems.py states the sources and which figures are assumptions):
GB200 compute tray = 4 × 1,200 W + 1,667 W host = 6,467 W; a rack = 18 trays + 9 switch trays × 400 W
= 116,406 + 3,600 = 120,006 W ≈ 120 kW, the seed's "GB200 NVL72 机架达 120kW" (§14.7).
"""

from __future__ import annotations

import pytest

from cluster.collectives import collective_fabric
from cluster.pipeline import plan_cluster
from cluster.validate import RequirementsError, validate

GB200_8_RACKS = {"gpu_count": 576, "gpu_model": "GB200", "compute_fabric": {"nic_gbps": 800, "switch_model": "Q3400"}}


def test_gb200_nvl72_racks_trays_and_power():
    plan = plan_cluster(validate(GB200_8_RACKS))
    r, racks, fac = plan.requirements, plan.power.racks, plan.power.facility
    assert r.cluster.gpus_per_node == 4 and r.node_count == 144  # a node is a compute tray
    assert racks.nodes_per_rack == 18 and racks.compute_rack_count == 8  # one domain per rack
    assert racks.compute_rack_kw == pytest.approx(120.006)
    assert fac.compute_kw == pytest.approx((144 * 6467 + 8 * 9 * 400) / 1000)  # 960.048 kW
    assert "8 racks × 9 NVLink switch trays × 400 W" in fac.derivations["compute_kw"]
    assert plan.power.cooling.cooling_type == "direct_to_chip"
    assert r.power.rack_budget_kw == 140  # left empty: a rack-scale system is liquid cooled
    assert "rack-scale NVLink system is liquid cooled" in plan.result()["power"]["derivations"]["rack_budget_kw"]


def test_gb200_bom_lists_the_nvlink_plane_with_the_rack_not_priced_again():
    """8 racks × 9 switch trays = 72; one NVLink spine per rack = 8, each 72 × 18 = 1,296 GPU–switch links."""
    bom = plan_cluster(validate(GB200_8_RACKS)).bom
    trays = next(ln for ln in bom.lines if ln.sku == "NVL5-SWITCH-TRAY")
    spines = next(ln for ln in bom.lines if ln.sku == "NVL72-NVLINK-SPINE")
    assert (trays.plane, trays.quantity, spines.quantity) == ("nvlink", 72, 8)
    assert trays.unit_price_usd == 0 and "included in the rack-scale system" in trays.price_source
    assert "1,296 copper GPU–switch links" in spines.derivation
    # the trays' 400 W are counted once, with the compute racks: the network draw (switches, optics, active
    # cables of the BOM) does not take them again
    assert trays.kind.value == "scale_up"
    plan = plan_cluster(validate(GB200_8_RACKS))
    network_w = sum(
        ln.power_w * ln.quantity
        for ln in plan.bom.lines
        if ln.kind.value in ("switch", "transceiver", "cable") and not ln.spare
    )
    assert plan.power.facility.network_kw == pytest.approx(network_w / 1000)


def test_the_collective_model_sees_a_72_gpu_nvlink_domain():
    plan = plan_cluster(validate(GB200_8_RACKS))
    fabric, _ = collective_fabric(plan.requirements, plan=plan.fabric)
    assert fabric["gpus_per_node"] == 72 and fabric["node_count"] == 8
    assert fabric["nics_per_node"] == 72  # 18 trays × 4 NICs share the domain's scale-out


def test_gb300_nvl72_rack_power():
    """GB300 tray = 4 × 1,400 W + 1,667 W = 7,267 W; rack = 18 × 7,267 + 3,600 = 134,406 W."""
    plan = plan_cluster(validate({**GB200_8_RACKS, "gpu_model": "GB300"}))
    assert plan.power.node_power_w == 7267
    assert plan.power.racks.compute_rack_kw == pytest.approx(134.406)
    assert plan.power.racks.compute_rack_kw <= 142  # NVL72 AI Factory Enterprise RA: "up to 142 kW"


def test_b300_is_an_eight_gpu_node():
    """B300 (DGX/HGX): 8 × 1,100 W + 4,600 W host = 13,400 W; ⌊41 kW ÷ 13.4 kW⌋ = 3 per air-cooled rack."""
    plan = plan_cluster(validate({"gpu_count": 512, "gpu_model": "B300"}))
    assert plan.power.node_power_w == 13400 and plan.power.racks.nodes_per_rack == 3


@pytest.mark.parametrize(
    ("data", "field", "text"),
    [
        ({**GB200_8_RACKS, "gpu_count": 600}, "gpu_count", "whole racks of 72 GPUs"),
        ({**GB200_8_RACKS, "gpus_per_node": 8}, "gpus_per_node", "compute tray of 4 GPUs"),
        ({**GB200_8_RACKS, "power": {"rack_budget_kw": 100}}, "rack_budget_kw", "draws 120.0 kW"),
        ({**GB200_8_RACKS, "cooling": {"type": "air"}}, "rack_budget_kw", "cannot be split"),
    ],
)
def test_rack_scale_refusals(data, field, text):
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate(data))
    assert text in " ".join(exc.value.errors[field])


def test_an_nvl72_rack_is_48u_and_the_plan_says_so():
    """18 compute trays × 1U + 9 NVLink switch trays × 1U + 21U of power shelves, NIC/management and cable
    management = 48U (the MGX rack); the rack plan names it: 18 × 1U + 30U of switch trays and the rest."""
    from power.rack_systems import rack_scale_system

    system = rack_scale_system("GB200")
    assert system.rack_u == 18 * 1 + 9 * 1 + 21 == 48
    plan = plan_cluster(validate(GB200_8_RACKS))
    assert "in its own 48U rack" in plan.power.racks.derivations["nodes_per_rack"]
    # 9 switch trays × 2 NVLink switch chips = 18 chips, one link from every GPU to each: its 18 links
    trays = next(ln for ln in plan.bom.lines if ln.sku == "NVL5-SWITCH-TRAY")
    assert "= 72; 18 switch chips per rack, one NVLink 5 link from every GPU to every chip" in trays.derivation
    assert system.switch_trays * system.switch_chips_per_tray == system.nvlink_links_per_gpu
