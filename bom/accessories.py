"""Racks, PDUs, power shelves, patch panels and cable managers, by stated rules (pure: no Django).

Each rule is a line of the BOM's infrastructure plane with its derivation:
- rack enclosures: every rack of the rack plan (power/racks.py: compute racks from the rack power
  budget, end-of-row and spine-row network racks, storage and management racks), of the rack height asked —
  except the compute racks of a rack-scale system (power/rack_systems.py), which come in the system's own
  rack with its own power shelves: an NVL72 is a 48U MGX rack with 8 × 33 kW shelves on its bus bar;
- PDUs: two feeds (A + B) per rack, each carrying the rack's full load: ⌈rack kW ÷ PDU kW⌉ per feed, of the
  PDU the rack type takes (a generic rack: the PDU rating asked; a rack-scale system: its own feeds, an NVL72's
  415 V 60 A ones of 34.5 kW); infrastructure racks by their load when it is given, else one PDU per feed
  (their load is well under one PDU's rating);
- structured cabling: every switch-to-switch optical trunk lands on a patch panel at both ends, in
  the rack where that end's switch stands, 24 MPO ports per 1U panel: Σ over racks
  ⌈trunk ends in the rack ÷ 24⌉ — the panels the rack elevations show (bom/elevation.py);
- one 1U horizontal cable manager per switch.
In the TCO these are part of the facility works, not the network line (no double counting).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from bom.build import placeholder
from bom.layout import PANEL_PORTS, panels_for
from bom.parts import PartKind, PartSpec
from power.rack_systems import RackScaleSystem
from power.racks import RackPlan

INFRASTRUCTURE = "infrastructure"
# family (power/rack_systems.py RackScaleSystem.family) → the catalog SKUs of its rack, power shelf and PDU
SYSTEM_RACKS: dict[str, tuple[str, str, str]] = {
    "NVL72": ("NVL72-RACK-48U", "NVL72-POWER-SHELF-33KW", "PDU-3P-415V-60A"),
}
SYSTEM_SKUS = frozenset(sku for skus in SYSTEM_RACKS.values() for sku in skus)


def accessory(catalog: Iterable[PartSpec], prefix: str, description: str, *, sku: str = "", **match) -> PartSpec:
    """The first accessory whose SKU starts with ``prefix`` (and whose fields equal ``match``) — never one of a
    rack-scale system's own parts, which only its racks take (by ``sku``)."""
    for p in catalog:
        if (
            p.kind == PartKind.ACCESSORY
            and (p.sku == sku if sku else p.sku.startswith(prefix) and p.sku not in SYSTEM_SKUS)
            and all(getattr(p, k) == v for k, v in match.items())
        ):
            return p
    return placeholder(PartKind.ACCESSORY, sku or f"{prefix}?", description)  # "RACK-?": the prefix ends in "-"


def pdus_per_feed(rack_kw: float, pdu_kw: float) -> int:
    """PDUs on one feed of a rack, the feed carrying the whole rack: ⌈rack kW ÷ PDU kW⌉, at least one."""
    if pdu_kw <= 0:
        raise ValueError(f"a PDU rating must be positive, got {pdu_kw}")
    return max(1, math.ceil(rack_kw / pdu_kw - 1e-9))


@dataclass(frozen=True)
class RackType:
    """The enclosure, the PDUs and the power shelves of one kind of rack."""

    rack: PartSpec
    rack_u: int
    pdu: PartSpec
    pdu_kw: float
    power_shelf: PartSpec | None = None
    power_shelves: int = 0  # per rack
    source: str = ""


def generic_rack_type(catalog: Iterable[PartSpec], rack_u: int, pdu_kw: float) -> RackType:
    catalog = list(catalog)
    return RackType(
        accessory(catalog, "RACK-", f"{rack_u}U rack enclosure", rack_units=rack_u),
        rack_u,
        accessory(catalog, "PDU-", "rack PDU"),
        pdu_kw,
    )


def compute_rack_type(
    catalog: Iterable[PartSpec], system: RackScaleSystem | None, rack_u: int, pdu_kw: float
) -> RackType:
    """A compute rack: a rack-scale system's own (its rack, power shelves and PDUs), else the generic one."""
    catalog = list(catalog)
    if system is None:
        return generic_rack_type(catalog, rack_u, pdu_kw)
    rack_sku, shelf_sku, pdu_sku = SYSTEM_RACKS.get(
        system.family, (f"{system.family}-RACK", f"{system.family}-POWER-SHELF", f"{system.family}-PDU")
    )
    return RackType(
        accessory(catalog, "", f"{system.name} rack, {system.rack_u}U", sku=rack_sku),
        system.rack_u,
        accessory(catalog, "", f"{system.name} PDU, {system.pdu_kw:g} kW", sku=pdu_sku),
        system.pdu_kw,
        accessory(catalog, "", f"{system.name} power shelf, {system.power_shelf_kw:g} kW", sku=shelf_sku),
        system.power_shelves,
        system.rack_source,
    )


def infrastructure_lines(
    racks: RackPlan,
    *,
    switch_count: int,
    trunk_count: int,
    trunk_ends_per_rack: dict[int, int],
    pdu_kw: float,
    rack_u: int,
    catalog: Iterable[PartSpec],
    system: RackScaleSystem | None = None,
    infra_rack_kw: float | None = None,
    point_to_point: bool = False,
) -> list[tuple[str, str, PartSpec, int, str]]:
    """``system``: the rack-scale system the compute racks are (None: generic racks of ``rack_u``);
    ``infra_rack_kw``: the heaviest infrastructure rack's load (None: one PDU per feed); ``point_to_point``:
    bare switches cabled point to point, no panels and no cable managers (bom/layout.py su_row_racks)."""
    catalog = list(catalog)
    panels = sum(panels_for(ends) for ends in trunk_ends_per_rack.values())
    if sum(trunk_ends_per_rack.values()) != 2 * trunk_count:
        raise ValueError("trunk ends per rack must count both ends of every trunk")
    infra_type = generic_rack_type(catalog, rack_u, pdu_kw)
    compute_type = compute_rack_type(catalog, system, rack_u, pdu_kw) if system is not None else infra_type
    if point_to_point:
        bare = "none: bare switches cabled point to point, as the DGX SuperPOD RA's cable list (Table 8) has no panels"
        return [
            *_rack_lines(racks, compute_type, infra_type, system),
            *_pdu_lines(racks, compute_type, infra_type, infra_rack_kw),
            (INFRASTRUCTURE, "patch panel", accessory(catalog, "PANEL-", "fibre patch panel"), 0, bare),
            (INFRASTRUCTURE, "cable manager", accessory(catalog, "CM-", "cable manager"), 0, bare),
        ]
    return [
        *_rack_lines(racks, compute_type, infra_type, system),
        *_pdu_lines(racks, compute_type, infra_type, infra_rack_kw),
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


def _rack_lines(racks: RackPlan, compute: RackType, infra: RackType, system: RackScaleSystem | None):
    others = (
        f"{racks.network_rack_count} network + {racks.storage_rack_count} storage + {racks.mgmt_rack_count} "
        f"management racks of {infra.rack_u}U"
    )
    if system is None:
        return [
            (
                INFRASTRUCTURE,
                "rack",
                infra.rack,
                racks.rack_count,
                f"{racks.compute_rack_count:,} compute + {others} (the rack plan)",
            )
        ]
    n = racks.compute_rack_count
    shelves = n * compute.power_shelves
    return [
        (
            INFRASTRUCTURE,
            "rack",
            compute.rack,
            n,
            f"{n:,} {system.name} compute racks, each the system's own {compute.rack_u}U rack "
            f"({system.compute_trays} compute + {system.switch_trays} NVLink switch trays, {system.other_u}U of "
            f"power shelves, ToRs and cable management) — {compute.source}",
        ),
        (INFRASTRUCTURE, "rack", infra.rack, racks.infra_rack_count, f"{others} (the rack plan)"),
        (
            INFRASTRUCTURE,
            "power shelf",
            compute.power_shelf,
            shelves,
            f"{n:,} {system.name} racks × {compute.power_shelves} power shelves of {system.power_shelf_kw:g} kW "
            f"({compute.power_shelves * system.power_shelf_kw:g} kW of shelves for a {racks.compute_rack_kw:,.1f} kW "
            f"rack) = {shelves:,}",
        ),
    ]


def _pdu_lines(racks: RackPlan, compute: RackType, infra: RackType, infra_rack_kw: float | None):
    n, infra_n = racks.compute_rack_count, racks.infra_rack_count
    per_feed = pdus_per_feed(racks.compute_rack_kw, compute.pdu_kw) if n else 0
    infra_feed = 1 if infra_rack_kw is None else pdus_per_feed(infra_rack_kw, infra.pdu_kw)
    compute_why = (
        f"{n:,} compute racks × 2 × ⌈{racks.compute_rack_kw:,.1f} kW ÷ {compute.pdu_kw:g} kW⌉ = {n * 2 * per_feed:,}"
    )
    infra_why = (
        f"{infra_n} infrastructure racks × 2 = {infra_n * 2}"
        if infra_rack_kw is None
        else f"{infra_n} infrastructure racks × 2 × ⌈{infra_rack_kw:,.1f} kW ÷ {infra.pdu_kw:g} kW⌉ = "
        f"{infra_n * 2 * infra_feed:,}"
    )
    if compute.pdu.sku == infra.pdu.sku:
        return [
            (
                INFRASTRUCTURE,
                "pdu",
                infra.pdu,
                n * 2 * per_feed + infra_n * 2 * infra_feed,
                f"A + B feeds: {compute_why}; {infra_why}",
            )
        ]
    return [
        (
            INFRASTRUCTURE,
            "pdu",
            compute.pdu,
            n * 2 * per_feed,
            f"A + B feeds, each carrying the rack: {compute_why}"
            + (f"; they feed the {compute.power_shelves} power shelves a rack" if compute.power_shelves else ""),
        ),
        (INFRASTRUCTURE, "pdu", infra.pdu, infra_n * 2 * infra_feed, f"A + B feeds: {infra_why}"),
    ]
