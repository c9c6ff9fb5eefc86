"""Issue #34 item 3: an NVL72 rack is the system's own rack, not a generic 42U one with 14 × 17.3 kW PDUs.

Figures (power/rack_systems.py, bom/catalog.py SYSTEM_RACK_PARTS):
- rack: 48U NVIDIA MGX rack — 18 × 1RU compute trays + 9 × 1RU NVLink switch trays (NVIDIA DGX GB200 User Guide,
  "Hardware": "18x 1RU compute trays … 9x 1RU NVLink switch trays … 2x TOR Switches for management … Power shelves")
  + 21U of power shelves, ToRs and cable management; the 48U height is the integrators' figure (an assumption);
- power shelves: "The reference design for an NVIDIA GB200 rack has 8 power shelves, and uses 6 PSUs in each power
  shelf. Each PSU is rated up to 5.5kW, so that each power shelf is rated up to 33kW"; "Each power shelf takes up
  one rack unit" (NVIDIA Base Command Manager manual, "Power Shelf Integration");
- PDUs: one 3-phase 415 V 60 A feed per shelf, √3 × 415 V × 60 A × 80 % = 34.5 kW (assumption), A + B feeds
  each carrying the rack: ⌈120.0 kW ÷ 34.5 kW⌉ = 4 a feed, 8 a rack (not ⌈120 ÷ 17.3⌉ × 2 = 14).
"""

from __future__ import annotations

import math

import pytest

from bom.accessories import compute_rack_type, generic_rack_type, infrastructure_lines, pdus_per_feed
from bom.catalog import DEFAULT_PARTS
from bom.plan import Catalog
from cluster.pipeline import plan_cluster
from cluster.validate import validate_flat
from designer.presets import PRESETS
from power.rack_systems import rack_scale_system

GB200 = rack_scale_system("GB200")


@pytest.fixture(scope="module")
def preset_plan():
    return plan_cluster(validate_flat(PRESETS["gb200-nvl72"]["values"]), Catalog.built_in())


def test_the_nvl72_system_carries_its_rack():
    for model in ("GB200", "GB300"):
        s = rack_scale_system(model)
        assert (s.rack_u, s.compute_trays, s.switch_trays, s.other_u) == (48, 18, 9, 21)
        assert (s.power_shelves, s.power_shelf_kw, s.power_shelf_u) == (8, 33.0, 1)
        assert s.power_shelf_capacity_kw == 8 * 6 * 5.5 == 264.0
        assert s.pdu_kw == 34.5 and round(math.sqrt(3) * 415 * 60 * 0.8 / 1000, 1) == 34.5
    assert "Power Shelf Integration" in GB200.rack_source


def test_pdus_per_feed_from_the_racks_kw_and_the_pdu_rating():
    """⌈kW ÷ rating⌉ a feed: 120.006 kW on 34.5 kW feeds → 4 (3.48); GB300's 134.4 kW → 4 (3.9); on 17.3 kW PDUs
    the same rack would need 7 a feed; an exact multiple needs no extra; a near-empty rack still one."""
    assert pdus_per_feed(120.006, 34.5) == 4
    assert pdus_per_feed(134.4, 34.5) == 4
    assert pdus_per_feed(120.006, 17.3) == 7
    assert pdus_per_feed(69.0, 34.5) == 2
    assert pdus_per_feed(0.2, 17.3) == 1
    with pytest.raises(ValueError):
        pdus_per_feed(10, 0)


def test_rack_types():
    nvl = compute_rack_type(DEFAULT_PARTS, GB200, 42, 17.3)
    assert (nvl.rack.sku, nvl.rack.rack_units, nvl.rack_u) == ("NVL72-RACK-48U", 48, 48)
    assert (nvl.pdu.sku, nvl.pdu_kw) == ("PDU-3P-415V-60A", 34.5)
    assert (nvl.power_shelf.sku, nvl.power_shelves, nvl.power_shelf.rack_units) == ("NVL72-POWER-SHELF-33KW", 8, 1)
    generic = compute_rack_type(DEFAULT_PARTS, None, 42, 17.3)
    assert generic == generic_rack_type(DEFAULT_PARTS, 42, 17.3)
    assert (generic.rack.sku, generic.pdu.sku, generic.power_shelf) == ("RACK-42U-600x1200", "PDU-3P-17.3KW", None)
    # the system's own parts never stand in for a generic rack's, even listed first
    system_first = sorted(DEFAULT_PARTS, key=lambda p: not p.sku.startswith(("NVL72-", "PDU-3P-415V")))
    assert generic_rack_type(system_first, 48, 17.3).rack.sku == "RACK-48U-600x1200"
    assert generic_rack_type(system_first, 48, 17.3).pdu.sku == "PDU-3P-17.3KW"


def test_the_gb200_presets_racks(preset_plan):
    """The GB200 NVL72 preset (8 racks of 18 trays, 120.0 kW each; 21 infrastructure racks of 42U): 8 NVL72 racks
    of 48U, 8 × 8 = 64 power shelves, 8 × 2 × 4 = 64 415 V PDUs — one per shelf —, and the infrastructure racks'
    generic 42U racks with 2 × 17.3 kW PDUs each (21 × 2 = 42)."""
    racks = preset_plan.power.racks
    assert (racks.compute_rack_count, round(racks.compute_rack_kw, 3)) == (8, 120.006)
    infra = racks.infra_rack_count
    lines = infrastructure_lines(racks, switch_count=10, trunk_count=0, trunk_ends_per_rack={}, pdu_kw=17.3,
                                 rack_u=42, catalog=DEFAULT_PARTS, system=GB200)  # fmt: skip
    got = [(what, part.sku, qty) for _, what, part, qty, _ in lines]
    assert got[:5] == [
        ("rack", "NVL72-RACK-48U", 8),
        ("rack", "RACK-42U-600x1200", infra),
        ("power shelf", "NVL72-POWER-SHELF-33KW", 64),
        ("pdu", "PDU-3P-415V-60A", 64),
        ("pdu", "PDU-3P-17.3KW", infra * 2),
    ]
    why = {(what, part.sku): text for _, what, part, _, text in lines}
    assert why[("pdu", "PDU-3P-415V-60A")] == (
        "A + B feeds, each carrying the rack: 8 compute racks × 2 × ⌈120.0 kW ÷ 34.5 kW⌉ = 64; they feed the 8 "
        "power shelves a rack"
    )
    assert why[("power shelf", "NVL72-POWER-SHELF-33KW")] == (
        "8 GB200 NVL72 racks × 8 power shelves of 33 kW (264 kW of shelves for a 120.0 kW rack) = 64"
    )
    assert why[("rack", "NVL72-RACK-48U")].startswith(
        "8 GB200 NVL72 compute racks, each the system's own 48U rack (18 compute + 9 NVLink switch trays, 21U of "
    )
    assert all(part.unit_price_usd == 0 for _, what, part, _, _ in lines if part.sku.startswith("NVL72-"))


def test_generic_racks_pdus_by_kw_too():
    """Generic racks: 40.8 kW compute racks on 17.3 kW PDUs → ⌈2.36⌉ = 3 a feed; infrastructure racks of 20 kW →
    ⌈1.16⌉ = 2 a feed, not the flat 1 (given their load)."""
    from power.racks import RackPlan

    plan = RackPlan(4, 10, 1, 40.8, 2, 1, 1, 8, 8, {})
    lines = infrastructure_lines(plan, switch_count=0, trunk_count=0, trunk_ends_per_rack={}, pdu_kw=17.3, rack_u=42,
                                 catalog=DEFAULT_PARTS, infra_rack_kw=20.0)  # fmt: skip
    (pdu,) = [ln for ln in lines if ln[1] == "pdu"]
    assert (pdu[2].sku, pdu[3]) == ("PDU-3P-17.3KW", 10 * 2 * 3 + 4 * 2 * 2)
    assert pdu[4] == (
        "A + B feeds: 10 compute racks × 2 × ⌈40.8 kW ÷ 17.3 kW⌉ = 60; 4 infrastructure racks × 2 × ⌈20.0 kW ÷ "
        "17.3 kW⌉ = 16"
    )


def test_the_presets_live_bom_has_the_nvl72_racks(preset_plan):
    b = preset_plan.bom
    assert b.quantity("NVL72-RACK-48U") == 8
    assert b.quantity("NVL72-POWER-SHELF-33KW") == 64
    assert b.quantity("PDU-3P-415V-60A") == 64
