"""bom/accessories.py's lines on a rack plan made here, each figure by hand (make-mutation survivors: the PDUs
per feed at an exact multiple, the derivations' arithmetic, which catalog part an accessory rule takes)."""

from __future__ import annotations

from decimal import Decimal

from bom.accessories import accessory, infrastructure_lines
from bom.parts import PartKind, PartSpec
from power.racks import RackPlan


def part(sku, kind=PartKind.ACCESSORY, rack_units=0):
    return PartSpec(sku, kind, "v", sku, Decimal("1"), "test", rack_units=rack_units)


CATALOG = [part("PDU-17"), part("RACK-48U", rack_units=48), part("RACK-42U", rack_units=42), part("PANEL-24"),
           part("CM-1U"), part("RACK-SWITCH", kind=PartKind.SWITCH, rack_units=42)]  # fmt: skip


def racks(compute: int, kw: float) -> RackPlan:
    """compute racks of ``kw`` each + 2 network, 1 storage and 1 management rack (4 infrastructure racks)."""
    return RackPlan(4, compute, 1, kw, 2, 1, 1, 8, 8, {})


def lines(plan: RackPlan, trunks: int = 30, ends: dict | None = None):
    got = infrastructure_lines(plan, switch_count=7, trunk_count=trunks, trunk_ends_per_rack=ends or {0: 25, 1: 35},
                               pdu_kw=17.3, rack_u=42, catalog=CATALOG)  # fmt: skip
    return {what: (p.sku, qty, why) for _, what, p, qty, why in got}


def test_pdus_two_feeds_each_carrying_the_rack():
    """40.8 kW racks on 17.3 kW PDUs: ⌈2.358⌉ = 3 a feed → 10 racks × 2 × 3 = 60, + 4 infrastructure racks × 2 = 8
    → 68. At exactly 2 × 17.3 = 34.6 kW a feed needs 2, not 3: 10 × 2 × 2 + 8 = 48."""
    sku, qty, why = lines(racks(10, 40.8))["pdu"]
    assert (sku, qty) == ("PDU-17", 68)
    assert why == "A + B feeds: 10 compute racks × 2 × ⌈40.8 kW ÷ 17.3 kW⌉ = 60; 4 infrastructure racks × 2 = 8"
    assert lines(racks(10, 34.6))["pdu"][1] == 48
    assert lines(racks(0, 0.0))["pdu"][1] == 8  # no compute racks: the infrastructure racks' feeds only


def test_patch_panels_per_rack_and_racks_and_cable_managers():
    """30 trunks = 60 ends: 25 in one rack → ⌈25 ÷ 24⌉ = 2 panels, 35 in the other → 2 → 4. Racks: 10 + 2 + 1 + 1
    = 14 of the 42U enclosure (not the 48U one listed first, nor a switch named RACK-…); one manager a switch."""
    got = lines(racks(10, 40.8))
    assert got["patch panel"][1:] == (
        4,
        "30 switch-to-switch optical trunks land on panels at both ends: 60 ends in 2 racks, "
        "Σ ⌈ends in the rack ÷ 24 MPO ports per 1U panel⌉ = 4",
    )
    assert got["rack"][:2] == ("RACK-42U", 14)
    assert got["cable manager"] == ("CM-1U", 7, "one 1U horizontal cable manager per switch: 7")


def test_an_accessory_the_catalog_lacks_is_a_placeholder():
    assert accessory(CATALOG, "RACK-", "52U rack enclosure", rack_units=52).sku == "RACK-?"
    assert accessory([part("RACK-SWITCH", kind=PartKind.SWITCH)], "RACK-", "rack").sku == "RACK-?"
