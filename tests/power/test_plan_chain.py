"""power/plan.py chains the models: what it hands each of them, by hand (the models themselves are pinned in
their own tests). The default requirements are the chapter's design: 250 nodes of 8 H100, 8 storage servers,
management 3 + login 2, … (cluster/requirements.py)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import pytest

from cluster.requests import node_power_request, power_request, rack_figures, resolve, tco_request
from cluster.requirements import GPU_MODELS, Requirements
from power.gpus import GPU_TDP_W
from power.plan import (
    NetworkFigures,
    NodePowerRequest,
    capex_lines,
    capping_host_w,
    gpu_tdp_w,
    node_power_w,
    opex_lines,
    plan_power,
    rack_plan,
)
from tests.conftest import with_sections

NET = NetworkFigures(40_000.0, "40 kW as given", Decimal("3000000"))


def _base(**sections) -> Requirements:
    """The default design with 8 storage servers, resolved as the pipeline does (the rack budget from the
    cooling); made in the test, not at collection."""
    return resolve(with_sections(Requirements(), storage={"node_count": 8}, **sections))


def _lines(lines) -> dict[str, tuple[Decimal, str]]:
    return {ln.name: (ln.amount_usd, ln.derivation) for ln in lines}


def test_every_model_of_the_form_has_a_tdp():
    """The GPU TDP comes from the table for every model the form offers (no silent fallback), or as given."""
    assert set(GPU_MODELS) <= set(GPU_TDP_W)
    r = _base()
    assert gpu_tdp_w(node_power_request(with_sections(r, cluster={"gpu_model": "A100-SXM4-80GB"}))) == 400.0
    assert gpu_tdp_w(node_power_request(with_sections(r, power={"gpu_tdp_w": 650.0}))) == 650.0


def test_racks_get_the_servers_their_draw_and_the_floor_plan(monkeypatch):
    """Management 3 + login 2 + UFM servers 2 + attached devices 3 = 10 servers stand with the management racks;
    storage 2,500 W = 2.5 kW and management 1,500 W = 1.5 kW a server; a node 8 × 700 W + 4,600 W = 10.2 kW;
    the floor plan's figures pass through."""
    seen = {}
    monkeypatch.setattr("power.plan.plan_racks", lambda req: seen.setdefault("req", req))
    r = _base(
        management={"node_count": 3, "login_node_count": 2},
        compute_fabric={"ufm_server_count": 2, "attached_device_count": 3},
        power={"storage_node_power_w": 2500.0, "mgmt_node_power_w": 1500.0},
    )
    rack_plan(rack_figures(r), 12, leaf_rack_count=4, switches_per_network_rack=9)
    req = seen["req"]
    assert req.mgmt_node_count == 10
    assert (req.storage_node_kw, req.mgmt_node_kw, req.node_kw) == (2.5, 1.5, 10.2)
    assert (req.upper_switch_count, req.leaf_rack_count, req.switches_per_network_rack) == (12, 4, 9)


def test_capex_lines_per_kw_or_as_given():
    """1,000 billed facility kW: cooling plant 1,260 $/kW × 1,000 = 1,260,000 $, facility works 720 × 1,000 =
    720,000 $ (the defaults); each one given instead is taken as given and says so; the network is the BOM's
    unless given."""
    fac = SimpleNamespace(facility_kw_billed=1000)
    r = _base()
    lines = _lines(capex_lines(tco_request(r), fac, NET))
    assert lines["Cooling plant"] == (Decimal("1260000"), "1,000 kW × $1,260/kW")
    assert lines["Facility works"] == (Decimal("720000"), "1,000 kW × $720/kW")
    assert lines["Network"][1].startswith("the BOM's compute, storage and management planes")
    given = with_sections(
        r, tco={"cooling_capex_usd": Decimal(5), "facility_capex_usd": Decimal(7), "network_capex_usd": Decimal(1)}
    )
    lines = _lines(capex_lines(tco_request(given), fac, NET))
    assert lines["Cooling plant"] == (Decimal("5"), "as given")
    assert lines["Facility works"] == (Decimal("7"), "as given")
    assert lines["Network"] == (Decimal("3000000"), "as given")  # the network figure the pipeline made of it


def test_spares_are_one_percent_of_the_hardware_or_as_given():
    """Hardware = 250 nodes × 250,000 $ + 8 storage servers × 350,000 $ + 3,000,000 $ network = 62,500,000 +
    2,800,000 + 3,000,000 = 68,300,000 $; 1 % = 683,000 $ a year."""
    fac = SimpleNamespace(annual_electricity_usd=Decimal("1"), derivations={"annual_electricity_usd": "x"})
    r = _base()
    assert (r.node_count, r.storage.node_count) == (250, 8)
    lines = _lines(opex_lines(tco_request(r), fac, NET))
    assert lines["Spares & maintenance"] == (Decimal("683000"), "1 % of hardware $68,300,000")
    given = with_sections(r, tco={"spares_maintenance_usd_per_year": Decimal("9")})
    assert _lines(opex_lines(tco_request(given), fac, NET))["Spares & maintenance"] == (Decimal("9"), "as given")


@pytest.fixture(scope="module")
def default_plan():
    r = _base()
    racks = rack_plan(rack_figures(r), 0, leaf_rack_count=None, switches_per_network_rack=16)
    assert racks.nodes_per_rack == 4  # 10.2 kW nodes in the air-cooled 41 kW budget
    return r, plan_power(power_request(r), NET, racks)


def test_capping_gets_the_host_share_per_gpu(default_plan):
    """Host overhead 4,600 W ÷ 8 GPUs = 575 W a GPU."""
    _, plan = default_plan
    assert plan.capping.host_w_per_gpu == 575.0


def test_the_discount_rate_is_a_percentage():
    """5 % a year over 5 years on a plan with no capex lines but its opex: the present value discounts year y by
    1.05^y — against 1.0^y it must come out lower, by the annuity factor Σ 1.05^−y (y = 1…5) = 4.3295 ÷ 5."""
    r = _base(tco={"discount_rate_pct": 5.0})
    racks = rack_plan(rack_figures(r), 0, leaf_rack_count=None, switches_per_network_rack=16)
    plan = plan_power(power_request(r), NET, racks)
    flat = plan_power(power_request(with_sections(r, tco={"discount_rate_pct": 0.0})), NET, racks)
    opex = plan.tco.opex_usd_per_year
    annuity = sum(1 / 1.05**y for y in range(1, 6))
    assert annuity == pytest.approx(4.3295, abs=1e-4)
    assert float(flat.tco.present_value_usd - plan.tco.present_value_usd) == pytest.approx(
        float(opex) * (5 - annuity), abs=1.0
    )  # present values are in whole dollars


def test_annual_carbon_keeps_three_decimals():
    """IT = 250 nodes × 10.2 kW + 8 storage × 2.5 + (5 management + 4 login) × 1.5 + 40 network = 2,550 + 20 + 13.5
    + 40 = 2,623.5 kW; × PUE 1.5 (air, what its density needs) = 3,935.25 → 3,935 kW billed × 8,760 h =
    34,470,600 kWh a year; at 0.4137 kg/kWh = 14,260,487.22 kg = 14,260.48722 t → 14,260.487 in the dictionary."""
    r = _base(carbon={"grid_kg_co2_per_kwh": 0.4137})
    racks = rack_plan(rack_figures(r), 0, leaf_rack_count=None, switches_per_network_rack=16)
    plan = plan_power(power_request(r), NetworkFigures(40_000.0, "given", Decimal("0")), racks)
    assert (plan.facility.it_kw, plan.facility.annual_kwh) == (2623.5, 34_470_600)
    assert plan.annual_co2_t == pytest.approx(14_260.48722)
    assert plan.to_dict()["carbon"]["annual_co2_t"] == 14_260.487


def test_a_host_given_wins_over_a_rack_scale_tray():
    """A GB200 NVL72 compute tray with a 2,000 W host typed: 4 × 1,200 W TDP + 2,000 W = 6,800 W "as given" (not
    the tray's 4 × 1,200 + 1,667 = 6,467 W), and the capping planner keeps the typed 2,000 W at full power; left
    empty, both take the tray's 1,667 W host (power/rack_systems.py)."""

    def node(host):
        return NodePowerRequest(
            gpu_model="GB200", gpus_per_node=4, gpu_tdp_w=None, node_power_w=None, host_overhead_w=host
        )

    assert node_power_w(node(2000.0)) == (6800.0, "4 × 1200 W TDP + 2,000 W host as given = 6,800 W")
    assert capping_host_w(node(2000.0)) == 2000.0
    watts, why = node_power_w(node(None))
    assert watts == 4 * 1200 + 1667
    assert why.endswith("4 × 1,200 W TDP + 1,667 W tray host (Grace CPUs, memory, NICs, fans; GB200 NVL72) = 6,467 W "
                        "per compute tray")  # fmt: skip
    assert capping_host_w(node(None)) == 1667.0
