"""Racks, PDUs, patch panels and cable managers, by stated rules (pure: no Django).

Each rule is a line of the BOM's infrastructure plane with its derivation:
- rack enclosures: every rack of the rack plan (power/racks.py: compute racks from the rack power
  budget, end-of-row and spine-row network racks, storage and management racks), of the rack height asked;
- PDUs: two feeds (A + B) per rack, each carrying the rack's full load: ⌈rack kW ÷ PDU kW⌉ per feed;
  infrastructure racks are taken as one PDU per feed (their load is well under one PDU's rating);
- structured cabling: every switch-to-switch optical trunk lands on a patch panel at both ends, in
  the rack where that end's switch stands, 24 MPO ports per 1U panel: Σ over racks
  ⌈trunk ends in the rack ÷ 24⌉ — the panels the rack elevations show (bom/elevation.py);
- one 1U horizontal cable manager per switch.
In the TCO these are part of the facility works, not the network line (no double counting).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from bom.build import placeholder
from bom.layout import PANEL_PORTS, panels_for
from bom.parts import PartKind, PartSpec
from power.racks import RackPlan

INFRASTRUCTURE = "infrastructure"


def accessory(catalog: Iterable[PartSpec], prefix: str, description: str, **match) -> PartSpec:
    for p in catalog:
        if (
            p.kind == PartKind.ACCESSORY
            and p.sku.startswith(prefix)
            and all(getattr(p, k) == v for k, v in match.items())
        ):
            return p
    return placeholder(PartKind.ACCESSORY, f"{prefix}?", description)  # "RACK-?": the prefix ends in "-"


def infrastructure_lines(
    racks: RackPlan,
    *,
    switch_count: int,
    trunk_count: int,
    trunk_ends_per_rack: dict[int, int],
    pdu_kw: float,
    rack_u: int,
    catalog: Iterable[PartSpec],
) -> list[tuple[str, str, PartSpec, int, str]]:
    catalog = list(catalog)
    infra = racks.infra_rack_count
    per_feed = math.ceil(racks.compute_rack_kw / pdu_kw - 1e-9) if racks.compute_rack_count else 0
    pdus = racks.compute_rack_count * 2 * per_feed + infra * 2
    panels = sum(panels_for(ends) for ends in trunk_ends_per_rack.values())
    if sum(trunk_ends_per_rack.values()) != 2 * trunk_count:
        raise ValueError("trunk ends per rack must count both ends of every trunk")
    return [
        (
            INFRASTRUCTURE,
            "rack",
            accessory(catalog, "RACK-", f"{rack_u}U rack enclosure", rack_units=rack_u),
            racks.rack_count,
            f"{racks.compute_rack_count:,} compute + {racks.network_rack_count} network + "
            f"{racks.storage_rack_count} storage + {racks.mgmt_rack_count} management racks of {rack_u}U "
            "(the rack plan)",
        ),
        (
            INFRASTRUCTURE,
            "pdu",
            accessory(catalog, "PDU-", "rack PDU"),
            pdus,
            f"A + B feeds: {racks.compute_rack_count:,} compute racks × 2 × ⌈{racks.compute_rack_kw:,.1f} kW ÷ "
            f"{pdu_kw:g} kW⌉ = {racks.compute_rack_count * 2 * per_feed:,}; {infra} infrastructure racks × 2 = "
            f"{infra * 2}",
        ),
        (
            INFRASTRUCTURE,
            "patch panel",
            accessory(catalog, "PANEL-", "fibre patch panel"),
            panels,
            f"{trunk_count:,} switch-to-switch optical trunks land on panels at both ends: "
            f"{2 * trunk_count:,} ends in {len(trunk_ends_per_rack)} racks, Σ ⌈ends in the rack ÷ {PANEL_PORTS} MPO "
            f"ports per 1U panel⌉ = {panels:,}",
        ),
        (
            INFRASTRUCTURE,
            "cable manager",
            accessory(catalog, "CM-", "cable manager"),
            switch_count,
            f"one 1U horizontal cable manager per switch: {switch_count:,}",
        ),
    ]
