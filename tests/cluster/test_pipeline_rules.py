"""The pipeline's own figures, rule by rule: the aggregate-bandwidth check, the network's draw and price from
the BOM, attached ports on the leaf tier, the RoCE sheet's inputs, refusals on the typed field, and what a
stored result says about fields left empty. Each expected figure is derived in its test."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from bom.build import Bom, BomLine
from bom.parts import PartKind
from bom.plan import Catalog
from cluster.pipeline import (
    _count_attached_ports,
    _mapped,
    fabric_sizing,
    network_figures,
    plan_cluster,
    plan_scheduler,
    roce_sheet,
)
from cluster.requirements import Requirements
from cluster.validate import RequirementsError
from tests.conftest import with_sections
from topology import FabricRequest, Topology, plan_fabric


@pytest.fixture(scope="module")
def default_plan():
    return plan_cluster(Requirements())


# --- the chapter's aggregate check ------------------------------------------------------------------------------


def test_aggregate_check_of_the_default_design(default_plan):
    """2,000 H100 = 250 nodes × 8 NICs of 400G: 2,000 × 400 = 800,000 Gbit/s = 100 TB/s (÷ 8 bit, ÷ 1,000 GB);
    at 1:1 B_min is the same 800,000 Gbit/s. Leaves: 250 nodes need 8 leaves per rail (32 down ports each:
    ⌈250/32⌉ = 8), 8 rails → 64 leaves × 32 uplinks = 2,048 leaf uplinks (the spines' own uplinks: none)."""
    s = fabric_sizing(default_plan.fabric, default_plan.planes.fabric_request)
    assert s["aggregate_bandwidth_gbps"] == 800_000
    assert s["aggregate_bandwidth_tbyte_s"] == 100.0
    assert s["min_uplink_bandwidth_gbps"] == 800_000
    assert s["leaf_uplink_port_count"] == 2048
    assert "= 800,000 Gbit/s = 100.00 TB/s one way" in s["derivations"]["aggregate_bandwidth_gbps"]
    assert s["derivations"]["leaf_uplink_port_count"].startswith("64 leaves × 32 uplinks = 2,048")


def test_aggregate_check_keeps_three_decimals():
    """10 single-NIC nodes of 400G at 3:1: B_min = 10 × 400 ÷ 3 = 1,333.333… → 1,333.333 Gbit/s."""
    req = FabricRequest(topology=Topology.FAT_TREE, node_count=10, nics_per_node=1, switch_radix=8, oversubscription=3)
    s = fabric_sizing(plan_fabric(req), req)
    assert s["min_uplink_bandwidth_gbps"] == 1333.333
    assert s["aggregate_bandwidth_tbyte_s"] == 0.5  # 4,000 Gbit/s ÷ 8,000


def test_a_torus_has_no_aggregate_check():
    req = FabricRequest(topology=Topology.TORUS_3D, node_count=8)
    assert fabric_sizing(plan_fabric(req), req) == {}


# --- the network's draw and price -------------------------------------------------------------------------------


def _line(plane, kind, quantity, power_w, price, spare=False, sku="X", category=None):
    return BomLine(
        plane=plane,
        category=category or kind.value,
        sku=sku,
        description="",
        quantity=quantity,
        unit_price_usd=Decimal(price),
        derivation="",
        price_source="",
        price_is_assumption=False,
        kind=kind,
        spare=spare,
        power_w=power_w,
    )


SMALL_BOM = Bom(
    lines=(
        _line("compute", PartKind.SWITCH, 2, 1500.0, "10000"),  # 3,000 W, $20,000
        _line("compute", PartKind.TRANSCEIVER, 100, 25.0, "500"),  # 2,500 W, $50,000
        _line("compute", PartKind.CABLE, 40, 10.0, "100"),  # 400 W (active cables), $4,000
        _line("compute", PartKind.SWITCH, 1, 1500.0, "10000", spare=True),  # on the shelf: $10,000, no draw
        _line("compute", PartKind.NIC, 8, 20.0, "1000"),  # in the servers' power: $8,000, not the network's draw
        _line("infrastructure", PartKind.ACCESSORY, 2, 0.0, "3000"),  # racks: facility works, not network capex
    ),
    checks=(),
    link_count=0,
    link_end_count=0,
    media_counts={},
)


def test_network_draw_and_price_from_the_bom():
    """Draw: switches 2 × 1,500 = 3,000 W + transceivers 100 × 25 = 2,500 W + cables 40 × 10 = 400 W = 5,900 W
    (the spare switch and the NICs draw nothing here). Price: 20,000 + 50,000 + 4,000 + 10,000 (spare, bought)
    + 8,000 (NICs) = $92,000; the $6,000 of racks is infrastructure."""
    fig = network_figures(Requirements(), None, SMALL_BOM)
    assert fig.power_w == 5900.0
    assert fig.power_derivation == "from the BOM: switches 3.0 kW + transceivers 2.5 kW + active cables 0.4 kW"
    assert fig.capex_usd == Decimal("92000.00")


@pytest.mark.parametrize(
    ("watts", "shown"),
    [
        ((3049.9, 2449.9, 449.9), "switches 3.0 kW + transceivers 2.4 kW + active cables 0.4 kW"),
        ((3050.1, 2450.1, 450.1), "switches 3.1 kW + transceivers 2.5 kW + active cables 0.5 kW"),
    ],
)
def test_the_draw_is_shown_in_kw_to_a_tenth(watts, shown):
    """W ÷ 1,000 to one decimal, on both sides of a rounding edge (3,049.9 W → 3.0 kW, 3,050.1 W → 3.1 kW)."""
    kinds = (PartKind.SWITCH, PartKind.TRANSCEIVER, PartKind.CABLE)
    bom = dataclasses.replace(SMALL_BOM, lines=tuple(_line("compute", k, 1, w, "1") for k, w in zip(kinds, watts)))
    fig = network_figures(Requirements(), None, bom)
    assert fig.power_derivation == f"from the BOM: {shown}"
    assert fig.power_w == pytest.approx(sum(watts))


def test_network_draw_and_price_as_given():
    r = with_sections(Requirements(), power={"network_power_kw": 12.5}, tco={"network_capex_usd": Decimal("1234")})
    fig = network_figures(r, None, SMALL_BOM)
    assert (fig.power_w, fig.power_derivation, fig.capex_usd) == (12_500.0, "as given", Decimal("1234"))


# --- attached ports ---------------------------------------------------------------------------------------------


def _compute(fm_ports, device_ports, tiers):
    return {"fabric_manager_port_count": fm_ports, "attached_device_port_count": device_ports, "tiers": tiers}


def test_attached_ports_take_free_leaf_ports():
    """2 fabric-manager ports + 4 device ports = 6 more used leaf ports: 100 → 106 used, 28 → 22 free; the
    spine tier is untouched."""
    spine = {"ports_used_count": 64, "ports_free_count": 0, "derivation": "s"}
    c = _compute(2, 4, [{"ports_used_count": 100, "ports_free_count": 28, "derivation": "l"}, dict(spine)])
    _count_attached_ports(c)
    leaf = c["tiers"][0]
    assert (leaf["ports_used_count"], leaf["ports_free_count"]) == (106, 22)
    assert leaf["derivation"].endswith("→ 106 used, 22 free") and "+ 6 port(s)" in leaf["derivation"]
    assert c["tiers"][1] == spine


def test_no_attached_ports_leave_the_leaf_alone():
    leaf = {"ports_used_count": 100, "ports_free_count": 28, "derivation": "l"}
    c = _compute(0, 0, [dict(leaf)])
    _count_attached_ports(c)
    assert c["tiers"] == [leaf]
    _count_attached_ports(_compute(2, 0, []))  # a torus: no tiers, nothing to count on


# --- RoCE sheet -------------------------------------------------------------------------------------------------


def _ethernet(gpu_count=64):
    return with_sections(
        Requirements(),
        cluster={"gpu_count": gpu_count},
        compute_fabric={"switch_model": "SN5600-400G", "switch_radix": 128},
    )


def _cable(plane, sku, category="cable"):
    return _line(plane, PartKind.CABLE, 1, 0.0, "1", sku=sku, category=category)


def test_roce_sheet_takes_the_longest_compute_cable():
    """Compute cables of 10 m and 15 m (catalog lengths) → 15 m; a 50 m storage cable and a 30 m part listed
    under another category are not compute cables."""
    r = _ethernet()
    fabric = plan_fabric(FabricRequest(topology=Topology.RAIL_OPTIMIZED, node_count=8, switch_radix=128))
    lines = (
        _cable("compute", "MPO12-10M"),
        _cable("compute", "MPO12-15M"),
        _cable("storage", "MPO12-50M"),
        _cable("compute", "MPO12-30M", category="transceiver"),
    )
    bom = dataclasses.replace(SMALL_BOM, lines=lines)
    sheet = roce_sheet(r, fabric, bom, Catalog.built_in())
    assert "the longest compute cable 15 m" in sheet["derivations"]["inputs"]
    assert sheet["derivations"]["inputs"].startswith("SN5600-400G leaves (128 ports), 400 Gbit/s per fabric port")


@pytest.mark.parametrize("lines", [(), (("compute", "NOT-IN-CATALOG"),)], ids=["no cable", "unknown part"])
def test_roce_sheet_without_a_known_compute_cable_says_0_m(lines):
    fabric = plan_fabric(FabricRequest(topology=Topology.RAIL_OPTIMIZED, node_count=8, switch_radix=128))
    bom = dataclasses.replace(SMALL_BOM, lines=tuple(_cable(*x) for x in lines))
    sheet = roce_sheet(_ethernet(), fabric, bom, Catalog.built_in())
    assert "the longest compute cable 0 m" in sheet["derivations"]["inputs"]


def test_no_roce_sheet_for_infiniband_an_unnamed_switch_or_a_torus():
    fabric = plan_fabric(FabricRequest(topology=Topology.RAIL_OPTIMIZED, node_count=8, switch_radix=128))
    assert roce_sheet(Requirements(), fabric, SMALL_BOM, Catalog.built_in()) is None  # QM9700: InfiniBand
    unnamed = with_sections(_ethernet(), compute_fabric={"switch_model": ""})
    assert roce_sheet(unnamed, fabric, SMALL_BOM, Catalog.built_in()) is None
    torus = plan_fabric(FabricRequest(topology=Topology.TORUS_3D, node_count=8))
    assert roce_sheet(_ethernet(), torus, SMALL_BOM, Catalog.built_in()) is None
    assert roce_sheet(_ethernet(), fabric, SMALL_BOM, Catalog.built_in()) is not None


# --- refusals land on the typed field ---------------------------------------------------------------------------


def test_engine_fields_are_mapped_prefixed_or_kept():
    err = _mapped(
        {"compute_node_count": "a", "switch_radix": "b", "mgmt_tor_radix": "c"},
        {"compute_node_count": "gpu_count"},
        prefix="mgmt_",
    )
    assert err.errors == {"gpu_count": ["a"], "mgmt_switch_radix": ["b"], "mgmt_tor_radix": ["c"]}
    assert err.status_code == 422  # well-formed values the planner refuses
    assert _mapped({"switch_radix": "b"}, {}).errors == {"switch_radix": ["b"]}  # no prefix: the engine's name


def test_a_scheduler_refusal_lands_on_its_flat_field():
    r = with_sections(Requirements(), scheduler={"batch_default_time_h": 500, "batch_max_time_h": 336})
    with pytest.raises(RequirementsError) as exc:
        plan_scheduler(r)
    assert list(exc.value.errors) == ["sched_batch_default_time_h"]
    assert exc.value.status_code == 422


def test_fabric_manager_ports_that_do_not_fit_are_refused_on_their_field():
    """The default fabric's leaves: 64 × 64 = 4,096 ports, 2,000 to NICs and 2,048 uplinks → 48 free;
    30 servers × 2 ports = 60 do not fit."""
    r = with_sections(Requirements(), compute_fabric={"ufm_server_count": 30, "ufm_ports_per_server": 2})
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(r)
    assert list(exc.value.errors) == ["ufm_server_count"]
    assert exc.value.status_code == 422


# --- the stored result ------------------------------------------------------------------------------------------


def test_result_explains_fields_left_empty_and_only_those(default_plan):
    res = default_plan.result()
    assert res["storage"]["derivations"]["storage_node_count"].startswith("left empty: max(")
    assert "rack_budget_kw" in res["power"]["derivations"]
    given = with_sections(
        Requirements(),
        storage={"node_count": default_plan.requirements.storage.node_count},
        power={"rack_budget_kw": default_plan.requirements.power.rack_budget_kw},
    )
    res = plan_cluster(given).result()
    assert not res["storage"].get("derivations", {}).get("storage_node_count", "").startswith("left empty")
    assert not res["power"].get("derivations", {}).get("rack_budget_kw", "").startswith("left empty")
    assert (
        res["power"].get("derivations", {}).get("rack_budget_kw")
        != (default_plan.result()["power"]["derivations"]["rack_budget_kw"])
    )


def test_result_states_its_layout_version(default_plan):
    """Saved revisions and API clients read the result by its layout: version 2 (the planes' keys with units)."""
    assert default_plan.result()["schema_version"] == 2


def test_result_carries_the_scheduler_plan(default_plan):
    assert default_plan.scheduler is not None
    assert default_plan.result()["scheduler"] == default_plan.scheduler.to_dict()
    assert dataclasses.replace(default_plan, scheduler=None).result()["scheduler"] is None


def test_summary_keeps_three_decimals(default_plan):
    """Storage in TB and checkpoint write in GB/s to 3 decimals (a GB, an MB/s)."""
    s = default_plan.result()["summary"]
    assert s["storage_usable_tb"] == pytest.approx(default_plan.storage.usable_tb, abs=5e-4)
    assert s["checkpoint_write_gbyte_s"] == pytest.approx(default_plan.storage.checkpoint_write_gbyte_s, abs=5e-4)
