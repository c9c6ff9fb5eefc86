"""Build the priced network bill of materials from the three planes (pure: no Django).

Counting rules, each stated in the line's derivation:
- switches per plane and tier from the plans;
- a cable per link: passive copper (DAC) inside a rack, active copper/optical cable to the
  next rack, transceivers + fibre beyond (``media="all_optics"`` puts every data link on
  optics, as the seed chapter's BOM does);
- transceivers per link **end**: one at the NIC, and on the switch side
  ⌈optical ports ÷ ports per module⌉ per switch — an 800G twin-port OSFP serves two 400G
  ports; the seed chapter buys one module per link, which undercounts;
- NICs per node; spares as a % per item class, rounded up, on lines of their own.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from bom.link_table import NON_SWITCH_ROLES, LinkTable
from bom.links import Link
from bom.parts import CableMedia, PartKind, PartSpec

CENT = Decimal("0.01")
ROLE_NAMES = {
    "compute_switch": "compute switches",
    "storage_switch": "storage switches",
    "mgmt_tor": "management ToRs",
    "mgmt_spine": "management spines",
}
DEFAULT_SPARES_PCT: dict[PartKind, Decimal] = {
    PartKind.SWITCH: Decimal("0"),
    PartKind.NIC: Decimal("0"),
    PartKind.TRANSCEIVER: Decimal("2"),
    PartKind.CABLE: Decimal("2"),
}


@dataclass(frozen=True)
class BomPolicy:
    media: str = "by_reach"  # or "all_optics"
    spares_pct: Mapping[PartKind, Decimal] = field(default_factory=lambda: dict(DEFAULT_SPARES_PCT))
    growth_headroom_pct: Decimal = Decimal("20")

    def __post_init__(self) -> None:
        if self.media not in ("by_reach", "all_optics"):
            raise ValueError(f"media must be by_reach or all_optics, got {self.media!r}")
        for kind, pct in self.spares_pct.items():
            if pct < 0 or pct > 100:
                raise ValueError(f"spares for {kind} must be 0–100 %, got {pct}")


@dataclass(frozen=True)
class Roles:
    compute_switch: PartSpec
    storage_switch: PartSpec
    mgmt_tor: PartSpec
    mgmt_spine: PartSpec
    compute_nic: PartSpec | None
    storage_nic: PartSpec
    storage_node_nic: PartSpec

    def switch(self, role: str) -> PartSpec:
        return getattr(self, role)


@dataclass(frozen=True)
class BomLine:
    plane: str
    category: str
    sku: str
    description: str
    quantity: int
    unit_price_usd: Decimal
    derivation: str
    price_source: str
    price_is_assumption: bool
    kind: PartKind
    spare: bool = False
    power_w: float = 0.0

    @property
    def extended_price_usd(self) -> Decimal:
        return (self.unit_price_usd * self.quantity).quantize(CENT, ROUND_HALF_UP)

    def to_dict(self) -> dict[str, Any]:
        return {
            "plane": self.plane,
            "category": self.category,
            "sku": self.sku,
            "description": self.description,
            "quantity": self.quantity,
            "unit_price_usd": str(self.unit_price_usd.quantize(CENT)),
            "extended_price_usd": str(self.extended_price_usd),
            "derivation": self.derivation,
            "price_source": self.price_source,
            "price_is_assumption": self.price_is_assumption,
            "kind": self.kind.value,
            "spare": self.spare,
            "power_w": self.power_w,
        }


@dataclass(frozen=True)
class Bom:
    lines: tuple[BomLine, ...]
    checks: tuple[dict[str, Any], ...]
    link_count: int
    link_end_count: int
    media_counts: dict[str, int]

    def total_usd(self, plane: str | None = None) -> Decimal:
        return sum((ln.extended_price_usd for ln in self.lines if plane is None or ln.plane == plane), Decimal("0.00"))

    @property
    def planes(self) -> list[str]:
        return list(dict.fromkeys(ln.plane for ln in self.lines))

    def quantity(self, sku: str, plane: str | None = None, spares: bool = False) -> int:
        return sum(
            ln.quantity
            for ln in self.lines
            if ln.sku == sku and (plane is None or ln.plane == plane) and (spares or not ln.spare)
        )

    def quantity_by_kind(self, kind: PartKind, plane: str | None = None) -> int:
        return sum(
            ln.quantity
            for ln in self.lines
            if ln.kind == kind and not ln.spare and (plane is None or ln.plane == plane)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": [ln.to_dict() for ln in self.lines],
            "totals_usd": {p: str(self.total_usd(p)) for p in self.planes},
            "total_usd": str(self.total_usd()),
            "link_count": self.link_count,
            "link_end_count": self.link_end_count,
            "media_counts": dict(self.media_counts),
            "checks": list(self.checks),
        }


# --- choosing parts --------------------------------------------------------------------------


def placeholder(kind: PartKind, sku: str, description: str, **kw) -> PartSpec:
    return PartSpec(
        sku=sku,
        kind=kind,
        vendor="(not in catalog)",
        description=description,
        unit_price_usd=Decimal("0"),
        price_source="no catalog part: add one and a price",
        price_is_assumption=True,
        **kw,
    )


def find_switch(catalog: Iterable[PartSpec], *, name: str = "", radix: int, port_gbps: float) -> PartSpec:
    switches = [p for p in catalog if p.kind == PartKind.SWITCH]
    if name:
        for p in switches:
            if p.sku == name and p.port_count == radix and p.port_gbps == port_gbps:
                return p
    for p in switches:
        if p.port_count == radix and p.port_gbps == port_gbps:
            return p
    return placeholder(
        PartKind.SWITCH,
        f"SWITCH-{radix}x{port_gbps:g}G",
        f"switch with {radix} × {port_gbps:g}G ports",
        port_count=radix,
        port_gbps=port_gbps,
    )


def find_nic(catalog: Iterable[PartSpec], gbps: float) -> PartSpec:
    nics = sorted((p for p in catalog if p.kind == PartKind.NIC and p.port_gbps >= gbps), key=lambda p: p.port_gbps)
    exact = [p for p in nics if p.port_gbps == gbps]
    if exact:
        return exact[0]
    return placeholder(PartKind.NIC, f"NIC-{gbps:g}G", f"{gbps:g}G NIC", port_count=1, port_gbps=gbps)


class PartPicker:
    """Cached lookups of transceivers and cables by speed, ports per module, media and length."""

    def __init__(self, catalog: Iterable[PartSpec]):
        self.catalog = list(catalog)
        self.xcvrs = [p for p in self.catalog if p.kind == PartKind.TRANSCEIVER]
        self.cables = [p for p in self.catalog if p.kind == PartKind.CABLE]
        self._cache: dict[tuple, PartSpec | None] = {}

    def transceiver(self, gbps: float, ppm: int, form: str = "") -> PartSpec:
        key = ("x", gbps, ppm, form)
        if key not in self._cache:
            cands = [p for p in self.xcvrs if p.port_gbps == gbps and p.ports_per_module == ppm]
            cands = cands or [p for p in self.xcvrs if p.port_gbps == gbps and p.ports_per_module == 1]
            if form and any(p.form_factor == form for p in cands):
                cands = [p for p in cands if p.form_factor == form]
            self._cache[key] = (
                min(cands, key=lambda p: p.unit_price_usd)
                if cands
                else placeholder(
                    PartKind.TRANSCEIVER,
                    f"XCVR-{gbps:g}G-{ppm}P",
                    f"{gbps:g}G transceiver, {ppm} port(s)",
                    port_gbps=gbps,
                    ports_per_module=ppm,
                    media=CableMedia.FIBRE_MPO,
                    reach_m=100,
                )
            )
        return self._cache[key]  # type: ignore[return-value]

    def cable(self, media: str, gbps: float, length_m: int) -> PartSpec | None:
        key = ("c", media, gbps, length_m)
        if key not in self._cache:
            cands = [
                p
                for p in self.cables
                if p.media == media
                and (
                    p.port_gbps == gbps or media in (CableMedia.FIBRE_MPO, CableMedia.FIBRE_LC, CableMedia.COPPER_RJ45)
                )
                and p.length_m >= length_m
            ]
            self._cache[key] = min(cands, key=lambda p: (p.length_m, p.unit_price_usd)) if cands else None
        return self._cache[key]


# --- the builder -----------------------------------------------------------------------------


def _media_order(link: Link, policy: BomPolicy) -> tuple[str, ...]:
    if link.a_role == "bmc":
        return (CableMedia.COPPER_RJ45,)
    if policy.media == "all_optics":
        return ("optics",)
    return {
        0: (CableMedia.DAC, CableMedia.ACC, CableMedia.AOC, "optics"),
        1: (CableMedia.ACC, CableMedia.AOC, "optics"),
    }.get(link.rack_distance, ("optics",))


@dataclass(frozen=True)
class MediaChoice:
    cable: PartSpec | None  # DAC / ACC / AOC / Cat6, or None for optics
    fibre: PartSpec | None = None
    transceiver: PartSpec | None = None

    @property
    def label(self) -> str:
        if self.cable is not None:
            return self.cable.sku
        return f"{self.transceiver.sku} ×2 + {self.fibre.sku}"


def choose_media(link: Link, policy: BomPolicy, picker: PartPicker) -> MediaChoice:
    """The cable for one link: the first medium in the policy's order that the catalog has at that length."""
    for media in _media_order(link, policy):
        if media == "optics":
            break
        cable = picker.cable(media, link.speed_gbps, link.length_m)
        if cable is not None:
            return MediaChoice(cable)
    xcvr = picker.transceiver(link.speed_gbps, 1)
    fibre = picker.cable(xcvr.media or CableMedia.FIBRE_MPO, 0, link.length_m)
    if fibre is None:
        fibre = placeholder(
            PartKind.CABLE,
            f"FIBRE-{link.length_m}M",
            f"fibre trunk {link.length_m} m",
            length_m=link.length_m,
            media=CableMedia.FIBRE_MPO,
        )
    return MediaChoice(None, fibre, xcvr)


@dataclass
class _Counts:
    """What the links need, counted by link class (see :func:`count_links`)."""

    cables: dict[str, dict[str, list]] = field(
        default_factory=lambda: defaultdict(dict)
    )  # plane → sku → [part, qty, segs]
    switch_ports: dict[tuple[str, str, float], np.ndarray] = field(default_factory=dict)  # optical ports per switch
    nic_ends: Counter = field(default_factory=Counter)  # (plane, gbps) → optical NIC-side ends
    media: Counter = field(default_factory=Counter)
    too_long: Counter = field(default_factory=Counter)
    link_count: int = 0


def group_rows(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Rows of small non-negative integer columns grouped: (first row of each group, group of each row).

    One mixed-radix int64 key per row and a 1-D unique — much faster than ``np.unique(axis=0)``."""
    key = np.zeros(columns[0].size, dtype=np.int64)
    for col in columns:
        base = int(col.max()) + 1 if col.size else 1
        key = key * base + col
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _link_classes(t: LinkTable, speed_code: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows grouped by what decides the medium: (plane, segment, roles, speed, length, rack distance)."""
    cols = [t.plane, t.segment, t.a_role, t.z_role, speed_code, t.length_m, t.rack_distance]
    first, inverse = group_rows(cols)
    classes = np.stack([c[first] for c in cols], axis=1)
    counts = np.bincount(inverse, weights=t.weight, minlength=len(first)).astype(np.int64)
    return classes, inverse, counts


def count_links(t: LinkTable, policy: BomPolicy, picker: PartPicker) -> _Counts:
    """Choose the medium of every link class and count cables, fibres and optical ends."""
    c = _Counts(link_count=t.link_count)
    speeds, speed_code = np.unique(t.speed_gbps, return_inverse=True)
    speed_code = speed_code.reshape(-1)
    classes, inverse, counts = _link_classes(t, speed_code)
    optical = np.zeros(len(classes), dtype=bool)
    for k, (pl, seg, ar, zr, sp, length, rd) in enumerate(classes.tolist()):
        plane, segment, gbps, n = t.planes[pl], t.segments[seg], float(speeds[sp]), int(counts[k])
        probe = Link(plane, segment, "", "", t.roles[ar], "", "", t.roles[zr], gbps, int(length), int(rd))
        choice = choose_media(probe, policy, picker)
        part = choice.cable or choice.fibre
        if choice.cable is None:
            optical[k] = True
            c.media["optics"] += n
            if length > choice.transceiver.reach_m > 0:
                c.too_long[(plane, choice.transceiver.sku, choice.transceiver.reach_m)] += n
        else:
            c.media[part.media] += n
        entry = c.cables[plane].setdefault(part.sku, [part, 0, Counter()])
        entry[1] += n
        entry[2][segment] += n
    _count_optical_ends(t, optical[inverse], speed_code, speeds, c)
    return c


def _count_optical_ends(t: LinkTable, optical_row: np.ndarray, speed_code, speeds, c: _Counts) -> None:
    """Optical link ends: one module per NIC-side end; switch ends summed per switch (twin-port rounding)."""
    nic_roles = [t.roles.index(r) for r in NON_SWITCH_ROLES if r in t.roles]
    switch_cols: list[list[np.ndarray]] = [[], [], [], []]
    switch_weights = []
    for role, dev in ((t.a_role, t.a_dev), (t.z_role, t.z_dev)):
        is_nic = np.isin(role, nic_roles)
        nic = optical_row & is_nic
        for (pl, sp), n in _grouped_sum([t.plane[nic], speed_code[nic]], t.weight[nic]):
            c.nic_ends[(t.planes[pl], float(speeds[sp]))] += n
        sw = optical_row & ~is_nic
        for i, col in enumerate((t.plane, role, speed_code, dev)):
            switch_cols[i].append(col[sw])
        switch_weights.append(t.weight[sw])
    cols = [np.concatenate(parts) for parts in switch_cols]
    per_device: dict[tuple[str, str, float], list[int]] = defaultdict(list)
    for (pl, role, sp, _dev), n in _grouped_sum(cols, np.concatenate(switch_weights)):
        per_device[(t.planes[pl], t.roles[role], float(speeds[sp]))].append(n)
    c.switch_ports = {k: np.array(v, dtype=np.int64) for k, v in per_device.items()}


def _grouped_sum(cols: list[np.ndarray], weights: np.ndarray) -> list[tuple[tuple[int, ...], int]]:
    """Sum weights over equal rows of non-negative integer columns (devices may be −1: shifted)."""
    if cols[0].size == 0:
        return []
    first, inverse = group_rows([c - min(0, int(c.min())) for c in cols])
    sums = np.bincount(inverse, weights=weights, minlength=len(first)).astype(np.int64)
    keys = np.stack([c[first] for c in cols], axis=1).tolist()
    return [(tuple(k), int(n)) for k, n in zip(keys, sums.tolist(), strict=True)]


def build_bom(
    *,
    switches: Iterable[tuple[str, str, str, int, str]],
    nic_counts: Mapping[str, list[tuple[PartSpec, int, str]]],
    links: LinkTable | Iterable[Link],
    roles: Roles,
    picker: PartPicker,
    policy: BomPolicy,
    tier_ports: Mapping[str, list[tuple[str, int, int]]] | None = None,
) -> Bom:
    """Count, choose and price every part.

    switches: (plane, role, tier, count, derivation); nic_counts: plane → [(part, qty, derivation)];
    links: every cable (a LinkTable, or bom/links.py records); tier_ports: plane → [(tier, used,
    free)] for the growth-headroom check.
    """
    table = links if isinstance(links, LinkTable) else LinkTable.from_links(links)
    lines, checks = _switch_and_nic_lines(switches, nic_counts, roles)
    counts = count_links(table, policy, picker)
    for (plane, sku, reach), n in sorted(counts.too_long.items()):
        checks.append(
            {
                "ok": False,
                "field": "racks_per_row",
                "message": f"{plane}: {n:,} optical links are longer than the {reach:g} m reach of {sku}; "
                "use single-mode (DR) optics or a tighter floor plan",
            }
        )
    lines += _transceiver_lines(counts, roles, picker)
    lines += _cable_lines(counts)
    lines += _spare_lines(lines, policy)
    plane_order = {"compute": 0, "storage": 1, "management": 2}
    cat_order = {"switch": 0, "nic": 1, "transceiver": 2, "cable": 3}
    lines.sort(key=lambda ln: (plane_order.get(ln.plane, 9), ln.spare, cat_order.get(ln.category.split()[0], 9)))
    checks += _catalog_and_headroom_checks(lines, tier_ports or {}, policy)
    return Bom(tuple(lines), tuple(checks), counts.link_count, 2 * counts.link_count, dict(counts.media))


def _switch_and_nic_lines(switches, nic_counts, roles: Roles) -> tuple[list[BomLine], list[dict[str, Any]]]:
    lines: list[BomLine] = []
    checks: list[dict[str, Any]] = []
    for plane, role, tier, count, why in switches:
        if count <= 0:
            continue
        part = roles.switch(role)
        lines.append(_line(plane, f"switch ({tier})", part, count, why, False))
        if part.vendor == "(not in catalog)":
            checks.append(
                {
                    "ok": False,
                    "field": "catalog",
                    "message": f"{plane} {tier}: no catalog switch with {part.port_count} × "
                    f"{part.port_gbps:g}G ports; priced at $0 until one is added",
                }
            )
    for plane, items in nic_counts.items():
        for part, qty, why in items:
            if qty > 0:
                lines.append(_line(plane, "nic", part, qty, why, False))
    return lines, checks


def _transceiver_lines(c: _Counts, roles: Roles, picker: PartPicker) -> list[BomLine]:
    """NIC-side ends one module each; switch ends per switch, ⌈ports ÷ ports per module⌉."""
    xcvr: dict[tuple[str, str], list] = {}
    nic_forms = {
        "compute": roles.compute_nic.form_factor if roles.compute_nic else "",
        "storage": roles.storage_nic.form_factor,
    }
    for (plane, gbps), ends in sorted(c.nic_ends.items()):
        part = picker.transceiver(gbps, 1, nic_forms.get(plane, ""))
        entry = xcvr.setdefault((plane, part.sku), [part, 0, []])
        entry[1] += ends
        entry[2].append(f"{ends:,} NIC ends of optical {gbps:g}G links × 1 module")
    for (plane, role, gbps), ports in sorted(c.switch_ports.items()):
        part = picker.transceiver(gbps, roles.switch(role).ports_per_module or 1)
        ppm = part.ports_per_module or 1
        modules = int(np.sum(-(-ports // ppm)))
        entry = xcvr.setdefault((plane, part.sku), [part, 0, []])
        entry[1] += modules
        entry[2].append(
            f"{int(ports.sum()):,} optical switch ports on {ports.size:,} {ROLE_NAMES.get(role, role)}"
            + (
                f" ÷ {ppm} ports per module (rounded up per switch) = {modules:,}"
                if ppm > 1
                else f" × 1 module = {modules:,}"
            )
        )
    optical_links = Counter()
    for plane, cables in c.cables.items():
        for part, qty, _segs in cables.values():
            if part.media in (CableMedia.FIBRE_MPO, CableMedia.FIBRE_LC) or part.sku.startswith("FIBRE-"):
                optical_links[plane] += qty
    lines = []
    for (plane, _sku), (part, qty, why) in xcvr.items():
        n = optical_links[plane]
        note = "; ".join(why) + (
            f". Per link end, not per link: {n:,} optical links have {2 * n:,} ends"
            " (the seed chapter counts one module per link)"
        )
        lines.append(_line(plane, "transceiver", part, qty, note, False))
    return lines


_CABLE_WHAT = {
    "dac": "in-rack links (passive copper)",
    "acc": "next-rack links (active copper)",
    "aoc": "links to a nearby rack (active optical)",
    "copper_rj45": "BMC links",
}


def _cable_lines(c: _Counts) -> list[BomLine]:
    lines = []
    for plane, cables in c.cables.items():
        for sku in sorted(cables):
            part, qty, segs = cables[sku]
            where = ", ".join(f"{n:,} {seg}" for seg, n in segs.most_common())
            what = _CABLE_WHAT.get(part.media, "optical links, one fibre per link")
            lines.append(_line(plane, "cable", part, qty, f"{what}: {where}; length class {part.length_m:g} m", False))
    return lines


def _spare_lines(lines: list[BomLine], policy: BomPolicy) -> list[BomLine]:
    spares = []
    for ln in lines:
        pct = policy.spares_pct.get(ln.kind, Decimal("0"))
        n = math.ceil(ln.quantity * pct / 100) if pct > 0 else 0
        if n:
            spares.append(
                BomLine(
                    ln.plane,
                    ln.category,
                    ln.sku,
                    ln.description,
                    n,
                    ln.unit_price_usd,
                    f"spares: ⌈{ln.quantity:,} × {pct}%⌉ = {n:,}",
                    ln.price_source,
                    ln.price_is_assumption,
                    ln.kind,
                    spare=True,
                    power_w=0.0,
                )
            )
    return spares


def _catalog_and_headroom_checks(lines, tier_ports, policy: BomPolicy) -> list[dict[str, Any]]:
    checks = []
    missing = {(ln.plane, ln.sku) for ln in lines if ln.price_source.startswith("no catalog part")}
    for plane, sku in sorted(missing):
        checks.append(
            {
                "ok": False,
                "field": "catalog",
                "message": f"{plane}: no catalog part for {sku}; priced at $0 until one is added",
            }
        )
    for plane, tiers in tier_ports.items():
        for tier, used, free in tiers:
            need = math.ceil(used * policy.growth_headroom_pct / 100)
            checks.append(
                {
                    "ok": free >= need,
                    "field": "growth_headroom_pct",
                    "message": f"{plane} {tier}: {free:,} free ports vs {policy.growth_headroom_pct}% growth headroom "
                    f"of {used:,} used = {need:,}",
                }
            )
    return checks


def _line(plane: str, category: str, part: PartSpec, qty: int, why: str, spare: bool) -> BomLine:
    return BomLine(
        plane,
        category,
        part.sku,
        part.description,
        qty,
        part.unit_price_usd,
        why,
        part.price_source,
        part.price_is_assumption,
        part.kind,
        spare,
        part.power_w,
    )
