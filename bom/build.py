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
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from bom.link_table import NO_DEVICE, NON_SWITCH_ROLES, LinkTable
from bom.links import Link
from bom.media import NIC_CAGES, EndSpec, LinkParts, PartChooser
from bom.parts import FIBRE_MEDIA, CableMedia, PartKind, PartSpec, PortGroup, groups_serve, ports_at_least

CENT = Decimal("0.01")
FABRIC_MANAGER = "fabric manager"
ATTACHED = "fabric-attached devices"
ROLE_NAMES = {
    "compute_switch": "compute switches",
    "compute_spine_switch": "compute spine switches",
    "compute_core_switch": "compute core switches",
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
    growth_headroom_pct: Decimal | None = None  # None: report free ports as information, no target
    nic_cage: str = "osfp_single"  # the compute nodes' NIC cages (bom/media.py NIC_CAGES)

    def __post_init__(self) -> None:
        if self.nic_cage not in NIC_CAGES:
            raise ValueError(f"nic_cage must be one of {', '.join(NIC_CAGES)}, got {self.nic_cage!r}")
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
    compute_spine_switch: PartSpec | None = None  # a spine model of its own (None: the leaf's)
    compute_core_switch: PartSpec | None = None

    def switch(self, role: str) -> PartSpec:
        return getattr(self, role) or self.compute_switch


@dataclass(frozen=True)
class Purchase:
    """What a purchase order needs beyond quantity and net price: who makes it, list and discount, when."""

    manufacturer: str = ""
    mfr_part_number: str = ""  # the maker's orderable number ("" where the catalog gives none)
    list_price_usd: Decimal | None = None
    discount_pct: Decimal = Decimal("0")
    currency: str = "USD"
    price_date: str = ""
    lead_time_weeks: int | None = None
    quote_reference: str = ""

    @classmethod
    def of(cls, part: PartSpec) -> Purchase:
        """List and discount as the book has them — unless the line's price was set otherwise (a NIC included in
        the node price at $0): then list = net, no discount, so list × (1 − discount) is always the net price."""
        listed, discount = part.list_price_usd, part.discount_pct
        if listed is None or (listed * (100 - discount) / 100).quantize(CENT, ROUND_HALF_UP) != part.unit_price_usd:
            listed, discount = part.unit_price_usd, Decimal("0")
        return cls(
            manufacturer=part.manufacturer or part.vendor,  # a row from before the field: its vendor
            mfr_part_number=part.mfr_part_number,
            list_price_usd=listed,
            discount_pct=discount,
            currency=part.currency,
            price_date=part.price_date,
            lead_time_weeks=part.lead_time_weeks,
            quote_reference=part.quote_reference,
        )


NO_PURCHASE = Purchase()


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
    purchase: Purchase = NO_PURCHASE

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
            "manufacturer": self.purchase.manufacturer,
            "mfr_part_number": self.purchase.mfr_part_number,
            "unit_of_measure": "each",
            "currency": self.purchase.currency,
            "list_price_usd": str(
                (
                    self.purchase.list_price_usd if self.purchase.list_price_usd is not None else self.unit_price_usd
                ).quantize(CENT)
            ),
            "discount_pct": str(self.purchase.discount_pct.quantize(CENT)),
            "price_date": self.purchase.price_date,
            "lead_time_weeks": self.purchase.lead_time_weeks,
            "quote_reference": self.purchase.quote_reference,
        }


@dataclass(frozen=True)
class Bom:
    lines: tuple[BomLine, ...]
    checks: tuple[dict[str, Any], ...]
    link_count: int
    link_end_count: int
    media_counts: dict[str, int]
    trunk_count: int = 0  # switch-to-switch optical links (structured cabling)

    def total_usd(self, plane: str | None = None) -> Decimal:
        return sum((ln.extended_price_usd for ln in self.lines if plane is None or ln.plane == plane), Decimal("0.00"))

    def assumption_usd(self) -> Decimal:
        """The dollars priced from planning figures, not from a quote (a line's price_is_assumption)."""
        return sum((ln.extended_price_usd for ln in self.lines if ln.price_is_assumption), Decimal("0.00"))

    def assumption_share(self) -> tuple[float, str]:
        """The share of the BOM's dollars that is still an assumption, and how it was derived."""
        total, assumed = self.total_usd(), self.assumption_usd()
        share = float(assumed / total) if total else 0.0
        quoted = sum(1 for ln in self.lines if not ln.price_is_assumption and ln.extended_price_usd)
        return share, (
            f"${assumed:,.2f} of ${total:,.2f} is priced from planning figures = {share:.1%}; "
            f"{quoted} line(s) priced from a quote or a stated source; replace the rest from supplier quotes"
        )

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
            "lines": _numbered([ln.to_dict() for ln in self.lines]),
            "totals_usd": {p: str(self.total_usd(p)) for p in self.planes},
            "total_usd": str(self.total_usd()),
            "assumption_usd": str(self.assumption_usd()),
            "assumption_share": round(self.assumption_share()[0], 6),
            "assumption_share_derivation": self.assumption_share()[1],
            "link_count": self.link_count,
            "link_end_count": self.link_end_count,
            "media_counts": dict(self.media_counts),
            "checks": list(self.checks),
        }


def _numbered(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A line id a purchase order can quote: the plane's first three letters and a running number (COM-001)."""
    seen: dict[str, int] = {}
    for line in lines:
        seen[line["plane"]] = seen.get(line["plane"], 0) + 1
        line["line_id"] = f"{line['plane'][:3].upper()}-{seen[line['plane']]:03d}"
    return lines


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


ETHERNET_ROLES = frozenset({"mgmt_tor", "mgmt_spine"})  # the management network is Ethernet, never InfiniBand


def role_needs(radix: int, port_gbps: float, uplinks: int = 0, uplink_gbps: float = 0.0) -> tuple[PortGroup, ...]:
    """The ports a switch role needs: ``radix`` ports at ``port_gbps``, and ``uplinks`` at ``uplink_gbps``."""
    needs = (PortGroup(radix, float(port_gbps)),)
    return needs + ((PortGroup(uplinks, float(uplink_gbps)),) if uplinks > 0 else ())


def serves(part: PartSpec, needs: tuple[PortGroup, ...], role: str = "") -> bool:
    """Whether a switch can take a role: its port groups give every needed port at the speed needed or faster
    (bom/parts.py groups_serve), and an Ethernet role never gets an InfiniBand switch."""
    if part.kind != PartKind.SWITCH or (role in ETHERNET_ROLES and part.infiniband):
        return False
    try:
        groups = part.port_groups
    except ValueError:  # a catalog row whose extra port groups do not parse serves nothing
        return False
    return groups_serve(groups, needs)


def _fit_order(part: PartSpec, needs: tuple[PortGroup, ...], index: int) -> tuple:
    """Among the switches that serve: main ports at the speed asked first, then the slowest main ports, then the
    fewest ports left over, then catalog order — an exact fit (48 × 25G for 48 × 25G ToR ports) before a bigger
    one (64 × 100G for a 48 × 100G spine) before a faster one."""
    slowest = min(n.gbps for n in needs)
    spare = ports_at_least(part.port_groups, slowest) - sum(n.count for n in needs)
    return (part.port_gbps != needs[0].gbps, part.port_gbps, spare, index)


def find_switch(
    catalog: Iterable[PartSpec],
    *,
    name: str = "",
    radix: int,
    port_gbps: float,
    uplinks: int = 0,
    uplink_gbps: float = 0.0,
    role: str = "",
) -> PartSpec:
    """The switch of a role, by the ports it needs at the speed it needs: ``radix`` × ``port_gbps`` (and
    ``uplinks`` × ``uplink_gbps``). The named model when it serves; else the best fit that serves (_fit_order);
    a part whose port groups cannot serve the role — a 48 × 25G + 8 × 100G ToR as a 48 × 100G spine — is never
    chosen. Nothing serves: a $0 placeholder, which the BOM reports as a failed catalog check."""
    needs = role_needs(radix, port_gbps, uplinks, uplink_gbps)
    fits = [(i, p) for i, p in enumerate(catalog) if serves(p, needs, role)]
    named = [p for _, p in fits if name and p.sku == name]
    if named:
        return named[0]
    if fits:
        return min(fits, key=lambda ip: _fit_order(ip[1], needs, ip[0]))[1]
    extra = f"{uplinks}x{uplink_gbps:g}G" if uplinks > 0 else ""
    what = " + ".join(str(n) for n in needs)
    return placeholder(
        PartKind.SWITCH,
        f"SWITCH-{radix}x{port_gbps:g}G" + (f"+{extra}" if extra else ""),
        f"switch with {what} ports" + (" (Ethernet)" if role in ETHERNET_ROLES else ""),
        port_count=radix,
        port_gbps=port_gbps,
        extra_port_groups=extra,
    )


def find_nic(catalog: Iterable[PartSpec], gbps: float, form: str = "") -> PartSpec:
    nics = sorted((p for p in catalog if p.kind == PartKind.NIC and p.port_gbps >= gbps), key=lambda p: p.port_gbps)
    exact = [p for p in nics if p.port_gbps == gbps]
    if form and any(p.form_factor == form for p in exact):
        exact = [p for p in exact if p.form_factor == form]
    if exact:
        return exact[0]
    return placeholder(PartKind.NIC, f"NIC-{gbps:g}G", f"{gbps:g}G NIC", port_count=1, port_gbps=gbps)


CHOOSERS: dict[tuple, tuple[tuple[PartSpec, ...], PartChooser]] = {}
"""Choosers by (catalog, media policy, link ends): a chooser caches the parts of each link class, so designs that
end their links alike (a search's candidates) choose each class once; the catalog is kept beside its chooser, so
its id is never another's. At most :data:`MAX_CHOOSERS`, oldest dropped first."""
MAX_CHOOSERS = 32


def part_chooser(catalog: Iterable[PartSpec], roles: Roles, policy: BomPolicy) -> PartChooser:
    """The one chooser of cables and transceivers for this design (bom/media.py); the same one for designs with
    the same catalog (one tuple), media policy and link ends (:data:`CHOOSERS`) — a choice depends on nothing else."""
    ends = _chooser_ends(roles, policy)
    if not isinstance(catalog, tuple):
        return PartChooser(catalog, media_policy=policy.media, ends=ends)
    key = (id(catalog), policy.media, tuple(sorted(ends.items())))
    found = CHOOSERS.get(key)
    if found is None or found[0] is not catalog:
        found = CHOOSERS[key] = (catalog, PartChooser(catalog, media_policy=policy.media, ends=ends))
        while len(CHOOSERS) > MAX_CHOOSERS:
            del CHOOSERS[next(iter(CHOOSERS))]
    return found[1]


def _chooser_ends(roles: Roles, policy: BomPolicy) -> dict[tuple[str, str], EndSpec]:
    form, ppm = NIC_CAGES[policy.nic_cage]
    nic_lane = roles.compute_nic.lane_gbps if roles.compute_nic is not None else 0.0
    ends = {
        ("compute", "nic"): EndSpec(ppm, form, nic_lane),
        ("compute", "ufm"): EndSpec(1, "OSFP"),  # fabric-management servers: single-port NICs
        ("compute", "device"): EndSpec(1, "OSFP"),  # other fabric-attached devices: single-port NICs
        ("storage", "nic"): EndSpec(1, roles.storage_nic.form_factor),
        ("management", "nic"): EndSpec(1, ""),
    }
    for plane, role in (
        ("compute", "compute_switch"),
        ("compute", "compute_spine_switch"),
        ("compute", "compute_core_switch"),
        ("storage", "storage_switch"),
        ("management", "mgmt_tor"),
        ("management", "mgmt_spine"),
    ):
        part = roles.switch(role)
        ends[(plane, role)] = EndSpec(part.ports_per_cage, "", part.lane_gbps, part.form_factor)
    return ends


@dataclass
class _Counts:
    """What the links need, counted by link class (see :func:`count_links`)."""

    cables: dict[str, dict[str, list]] = field(
        default_factory=lambda: defaultdict(dict)
    )  # plane → sku → [part, qty, segs]
    modules: dict[tuple[str, str], list] = field(default_factory=dict)  # (plane, sku) → [part, qty, [why]]
    media: Counter = field(default_factory=Counter)
    link_count: int = 0
    trunks: int = 0
    trunk_ends: dict[int, int] = field(default_factory=dict)  # rack key → trunk ends landing in that rack
    cages: dict[tuple[str, str], CageUse] = field(default_factory=dict)  # (plane, switch role) → its busiest switch


@dataclass(frozen=True)
class CageUse:
    """The switches of one role and what their busiest one holds: ports cabled, cages filled, and the modules (or
    cable ends) those cages take — per switch, Σ over link classes ⌈ports of the class ÷ ports per module⌉, a class
    being one module (or cable) part: a cage's ports are never split between two modules."""

    switch_count: int
    ports: int  # the most ports cabled on one switch
    cages: int  # the most cages filled on one switch
    modules: int  # transceivers bought for the role's switch ends, all switches
    module_ports: int  # switch ports those modules serve


def group_rows(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Rows of small non-negative integer columns grouped: (first row of each group, group of each row).

    One mixed-radix int64 key per row and a 1-D unique — much faster than ``np.unique(axis=0)``."""
    key: np.ndarray | None = None
    span = 1
    for col in columns:
        base = int(col.max()) + 1 if col.size else 1
        if base > 1:  # a column of zeros adds nothing to the key
            if key is None:  # the first: the key itself (a copy), not zeros × its base + it
                key = col.astype(np.int64)
            else:
                key *= base
                key += col
            span *= base
    if key is None:
        key = np.zeros(columns[0].size, dtype=np.int64)
    n = key.size
    if n and span <= 32 * n + 65_536:  # a small key space: counted, not sorted (the same groups, the same order)
        present = np.zeros(span, dtype=bool)
        present[key] = True
        keys = np.flatnonzero(present)  # ascending, as np.unique orders the groups
        group = np.empty(span, dtype=np.int64)
        group[keys] = np.arange(keys.size, dtype=np.int64)
        inverse = group[key]
        first = np.full(keys.size, n, dtype=np.int64)
        np.minimum.at(first, inverse, np.arange(n, dtype=np.int64))
        return first, inverse
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def unique_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` (the distinct values ascending, each value's index among them),
    without sorting where a column has few values: integers in a small range counted, floats with at most
    :data:`FEW_VALUES` distinct values (link speeds) picked out one by one; anything else sorted by np.unique."""
    values = np.asarray(values)
    if values.size and values.dtype.kind in "iu":
        low, high = int(values.min()), int(values.max())
        if high - low <= 32 * values.size + 65_536:
            present = np.zeros(high - low + 1, dtype=bool)
            present[values - low] = True
            code = np.cumsum(present) - 1
            return (np.flatnonzero(present) + low).astype(values.dtype), code[values - low]
    elif values.size and values.dtype.kind == "f" and not np.isnan(values).any():
        seen: list = []
        rest = values
        while rest.size and len(seen) < FEW_VALUES:
            seen.append(rest[0])
            rest = rest[rest != rest[0]]
        if not rest.size:
            distinct = np.sort(np.array(seen, dtype=values.dtype))
            code = np.zeros(values.size, dtype=np.int64)  # each value's index: how many distinct values are below it
            for below in distinct[:-1].tolist():  # (a compare a value, not a binary search: ≈ 1.3 ms at 180k rows)
                code += values > below
            return distinct, code
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.reshape(-1)


FEW_VALUES = 16  # unique_codes picks out at most this many float values before it sorts instead


def _link_classes(
    t: LinkTable, speed_code: np.ndarray, variant: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows grouped by what decides the medium: (plane, segment, roles, speed, length, rack distance) and, where
    given, the row's ``variant`` (0: the chooser's parts; v > 0: the v-th parts :func:`pair_odd_ports` set)."""
    cols = [t.plane, t.segment, t.a_role, t.z_role, speed_code, t.length_m, t.rack_distance]
    cols.append(variant if variant is not None else np.zeros(t.plane.size, dtype=np.int64))
    # (plane, segment, roles) coded densely first, in their order: a key space of a few link kinds, not planes ×
    # segments × roles², so the rows are grouped by counting, not sorted — the same groups in the same order
    segments, roles = max(len(t.segments), 1), max(len(t.roles), 1)
    kind = unique_codes(((t.plane * segments + t.segment) * roles + t.a_role) * roles + t.z_role)[1]
    first, inverse = group_rows([kind, *cols[4:]])
    classes = np.stack([c[first] for c in cols], axis=1)
    counts = np.bincount(inverse, weights=t.weight, minlength=len(first)).astype(np.int64)
    return classes, inverse, counts


@dataclass(frozen=True)
class _Ends:
    """One end ("a" or "z") of a table's rows grouped by (link class, device, NIC cage): the links that count alike
    — a switch's links of one class, a class's NIC ends — summed into one group (≈ 28k groups for the 180k rows of
    the 100k default's runs of NIC links), so the per-policy counting (modules per holder, cages per switch, odd
    ports) reads groups."""

    cls: np.ndarray  # each group's link class
    dev: np.ndarray  # its switch (NO_DEVICE: a NIC, BMC or device end)
    cage: np.ndarray  # its NIC cage, nic // the grouping's cage width (−1: none, or the NIC ends lumped)
    rack: np.ndarray  # its rack (bom.layout.rack_key)
    weight: np.ndarray  # its links
    group: np.ndarray | None  # each table row's group (None: groups made from others, see :func:`_paired`)


class _Grouped:
    """What count_links reads of a link table: its link classes (:func:`_link_classes`) and its ends grouped by
    class (:class:`_Ends`) — none of it reads a part, so a table that cannot change (bom.plan.link_table freezes
    what it remembers) keeps it (:meth:`of`): a search's candidates that share a table (the same fabric under two
    media policies) group its rows once."""

    def __init__(self, t: LinkTable) -> None:
        self.speeds, speed_code = unique_codes(t.speed_gbps)
        self.classes, self.inverse, self.counts = _link_classes(t, speed_code)
        self._ends: dict[int | None, dict[str, _Ends]] = {}
        self._order: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
        self._names: np.ndarray | None = None

    @classmethod
    def of(cls, t: LinkTable) -> _Grouped:
        found = t.__dict__.get("_grouped")
        if found is None:
            found = cls(t)
            if not any(v.flags.writeable for v in t.__dict__.values() if isinstance(v, np.ndarray)):
                object.__setattr__(t, "_grouped", found)  # lives and dies with the table (no reference back)
        return found

    def ends(self, t: LinkTable, width: int | None) -> dict[str, _Ends]:
        """Both ends grouped; ``width``: NIC ends told apart by nic // width (twin-port NIC cages), None: lumped."""
        if width not in self._ends:
            self._ends[width] = {end: _group_end(t, self.inverse, end, width) for end in ("a", "z")}
        return self._ends[width]

    def rows_per_class(self) -> np.ndarray:
        return np.bincount(self.inverse, minlength=len(self.classes))

    def name_rank(self, t: LinkTable) -> np.ndarray:
        """Each device's place in the order of the devices' names (read-only). The last table's are kept
        (:data:`_NAME_RANKS`): a keystroke that changes the fabric mostly keeps its switches and their names — at
        100k GPUs ≈ 7,000, whose sort is ≈ 1 ms where comparing the two name tuples takes ≈ 0.05 ms (the names are
        mostly the same string objects, bom.link_table.numbered)."""
        if self._names is None:
            last = _NAME_RANKS.get("last")
            if last is not None and last[0] == t.devices:
                self._names = last[1]
            else:
                by_name = np.array(sorted(range(len(t.devices)), key=t.devices.__getitem__), dtype=np.int64)
                self._names = np.empty(by_name.size, dtype=np.int64)
                self._names[by_name] = np.arange(by_name.size)
                self._names.flags.writeable = False
                _NAME_RANKS["last"] = (t.devices, self._names)  # swapped whole: a thread never reads half of it
        return self._names

    def dev_order(self, t: LinkTable) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per end: the rows sorted by the end's device, and those devices (a switch's rows: a searchsorted)."""
        if self._order is None:
            self._order = {}
            for end, col in (("a", t.a_dev), ("z", t.z_dev)):
                # the table's rows come in runs already sorted by device (a switch's runs of NIC links, a leaf's
                # uplinks, a chunk of NIC ends): numpy's stable sort of int64 (a timsort) merges runs — at 100k GPUs
                # 0.25 ms for the a ends where a 16-bit radix sort takes 1.4 ms (the same order: both stable)
                by_dev = np.argsort(col, kind="stable")
                self._order[end] = (by_dev, col[by_dev])
        return self._order


_NAME_RANKS: dict[str, tuple[tuple[str, ...], np.ndarray]] = {}  # "last": a table's device names, their ranks


def link_classes(t: LinkTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The table's link classes (:func:`_link_classes`: columns plane, segment, a and z role, speed code, bought
    length, rack distance, variant), each row's class, and the links of each class — remembered with a table that
    cannot change (:meth:`_Grouped.of`)."""
    g = _Grouped.of(t)
    return g.classes, g.inverse, g.counts


def _group_end(t: LinkTable, inverse: np.ndarray, end: str, width: int | None) -> _Ends:
    """One end's rows grouped (:class:`_Ends`); a group's rack is read only where the end is a switch's (a trunk's
    end): rows of a switch and class in two racks would be told apart by rack too (a switch stands in one)."""
    dev, nic, rack = (t.a_dev, t.a_nic, t.a_rack) if end == "a" else (t.z_dev, t.z_nic, t.z_rack)
    cage = nic // width if width else None  # None: the NIC ends lumped (no cage column)
    cols = [inverse, dev - NO_DEVICE] + ([cage - NO_DEVICE] if cage is not None else [])
    first, group = group_rows(cols)
    if not t.one_rack_a_switch:  # a table from records: a switch's rows in two racks are told apart by rack
        switch_role = np.array([r not in NON_SWITCH_ROLES for r in t.roles], dtype=bool)
        at_switch = switch_role[t.a_role if end == "a" else t.z_role]
        if ((rack[first][group] != rack) & at_switch).any():
            _, rack_code = np.unique(rack, return_inverse=True)
            first, group = group_rows([*cols, np.where(at_switch, rack_code.reshape(-1), 0)])
    weight = np.bincount(group, weights=t.weight, minlength=first.size).astype(np.int64)
    cages = cage[first] if cage is not None else np.full(first.size, NO_DEVICE, dtype=np.int64)
    return _Ends(inverse[first], dev[first], cages, rack[first], weight, group)


def _nic_cage_width(t: LinkTable, classes: np.ndarray, parts: list[LinkParts]) -> int | None:
    """How NIC ends are grouped for counting modules per NIC cage: None where no NIC-end module is twin-port (the
    ends lumped), the one twin width where there is one, else 1 (every NIC port apart)."""
    nic_roles = {t.roles.index(r) for r in NON_SWITCH_ROLES if r in t.roles}
    widths = set()
    for row, p in zip(classes.tolist(), parts, strict=True):
        for role, m in ((row[2], p.a_module), (row[3], p.z_module)):
            if role in nic_roles and m is not None and m.ports_per_module > 1:
                widths.add(m.ports_per_module)
    return None if not widths else widths.pop() if len(widths) == 1 else 1


def _classes_and_parts(t: LinkTable, chooser: PartChooser):
    """The table's grouping (:class:`_Grouped`), each class's parts, the NIC cage width of its ends
    (:func:`_nic_cage_width`) and the links moved to pair each twin-port cage's odd port onto its longer-reach
    module (:func:`pair_odd_ports`)."""
    g = _Grouped.of(t)
    parts = [chooser.parts(_probe(t, g.speeds, row)) for row in g.classes.tolist()]
    width = _nic_cage_width(t, g.classes, parts)
    return g, parts, width, pair_odd_ports(t, chooser, g, parts, width)


def _probe(t: LinkTable, speeds: np.ndarray, row) -> Link:
    """A link of a class (no device names: the chooser needs none)."""
    pl, seg, ar, zr, sp, length, rd = row[:7]
    return Link(t.planes[pl], t.segments[seg], "", "", t.roles[ar], "", "", t.roles[zr], float(speeds[sp]), length, rd)


def link_parts(links: list[Link], chooser: PartChooser) -> list[LinkParts]:
    """The parts the BOM buys for each link, in order — the cut sheet's: the chooser's parts of its class, except
    where :func:`pair_odd_ports` moved a twin-port cage's odd port onto the cage's longer-reach module (then the
    link's far-end module and its fibre are of that module's kind too)."""
    t = LinkTable.from_links(links)
    g, parts, _width, moves = _classes_and_parts(t, chooser)
    if not moves:
        return [parts[k] for k in g.inverse.tolist()]
    t, variant, forced = _apply_moves(t, moves)
    assert t.weight.size == len(links)  # one row a link: a pairing sets a row's variant, never splits one
    speeds, speed_code = unique_codes(t.speed_gbps)
    classes, inverse, _counts = _link_classes(t, speed_code, variant)
    parts = [forced[row[-1] - 1] if row[-1] else chooser.parts(_probe(t, speeds, row)) for row in classes.tolist()]
    return [parts[k] for k in inverse.tolist()]


def _counted_classes(t: LinkTable, chooser: PartChooser):
    """(classes, links per class, parts per class, both ends grouped, NIC cage width) of the table as the BOM buys
    it: after odd ports are paired, each moved link in a class of its own (its class and variant, :func:`_paired`)."""
    g, parts, width, moves = _classes_and_parts(t, chooser)
    if not moves:
        return g.classes, g.counts, parts, g.ends(t, width), width
    return _paired(t, g, parts, moves)


def _counted_table(t: LinkTable, chooser: PartChooser) -> LinkTable:
    """The table to count: ``t``, or its rows a link each where ``t``'s runs of NIC links (bom.link_table.nic_runs)
    would put two ports of one twin-port NIC cage in one row — where a NIC end's module is twin-port
    (:func:`_nic_cage_width`: the modules of such ends are counted per cage)."""
    if t.unmerged is None:
        return t
    g = _Grouped.of(t)
    parts = [chooser.parts(_probe(t, g.speeds, row)) for row in g.classes.tolist()]
    return t if _nic_cage_width(t, g.classes, parts) is None else t.unmerged()


def count_links(t: LinkTable, chooser: PartChooser) -> _Counts:
    """Choose the parts of every link class and count cables, fibres and transceivers."""
    t = _counted_table(t, chooser)
    c = _Counts(link_count=t.link_count)
    classes, counts, class_parts, ends, nic_width = _counted_classes(t, chooser)
    modules: list[PartSpec] = []
    codes: dict[str, int] = {}
    end_module = {"a": np.full(len(classes), NO_DEVICE), "z": np.full(len(classes), NO_DEVICE)}
    # what fills a switch's cage at each end of a class: the module's part (or the cable's) and how many ports of
    # the cage it serves (a copper or AOC cable end: −(the cage's ports) — a twin-port DAC or splitter end)
    end_part = {"a": np.zeros(len(classes), dtype=np.int64), "z": np.zeros(len(classes), dtype=np.int64)}
    end_width = {"a": np.zeros(len(classes), dtype=np.int64), "z": np.zeros(len(classes), dtype=np.int64)}
    fillers: dict[str, int] = {}
    trunk_class = np.zeros(len(classes), dtype=bool)
    for k, (row, parts) in enumerate(zip(classes.tolist(), class_parts, strict=True)):
        pl, seg, ar, zr = row[:4]
        plane, segment, n = t.planes[pl], t.segments[seg], int(counts[k])
        c.media["optics" if parts.optical else parts.cable.media] += n
        if parts.optical and t.roles[ar] not in NON_SWITCH_ROLES and t.roles[zr] not in NON_SWITCH_ROLES:
            c.trunks += n
            trunk_class[k] = True
        group = {"UFM": FABRIC_MANAGER, "dev": ATTACHED}.get(segment[:3], "")
        entry = c.cables[(plane, group)].setdefault(parts.cable.sku, [parts.cable, 0, Counter()])
        entry[1] += n
        entry[2][segment] += n
        for end, module in (("a", parts.a_module), ("z", parts.z_module)):
            filler = module if module is not None else parts.cable
            end_part[end][k] = fillers.setdefault(filler.sku, len(fillers))
            cage = chooser.ends.get((plane, t.roles[ar if end == "a" else zr]), EndSpec()).ppm
            end_width[end][k] = max(module.ports_per_module, 1) if module is not None else -cage
            if module is not None:
                if module.sku not in codes:
                    codes[module.sku] = len(modules)
                    modules.append(module)
                end_module[end][k] = codes[module.sku]
    _count_modules(t, classes, ends, nic_width, end_module, modules, c)
    c.trunk_ends = trunk_ends_per_rack(ends, trunk_class)
    c.cages = cage_use(t, classes, ends, end_width, end_part)
    return c


def cage_use(t: LinkTable, classes: np.ndarray, ends: dict[str, _Ends], width: dict, filler: dict) -> dict:
    """(plane, switch role) → :class:`CageUse` of the role's busiest switch: per switch, its cabled ports by link
    class (the one part that fills the cage: a module, or a copper/AOC cable's end), ⌈ports ÷ ports per module⌉
    cages a class, summed. ``width`` < 0 marks a cable end (−width: the cage's ports, one cable end a cage);
    ``width`` and ``filler`` are per class, ``ends`` the table's ends grouped by class (:class:`_Ends`)."""
    cols: list[list[np.ndarray]] = [[], [], [], [], []]
    weights = []
    for end, role_col in (("a", 2), ("z", 3)):
        e = ends[end]
        at_switch = e.dev != NO_DEVICE
        cls = e.cls[at_switch]
        for i, col in enumerate((classes[cls, 0], classes[cls, role_col], e.dev[at_switch], filler[end][cls])):
            cols[i].append(col)
        cols[4].append(width[end][cls])
        weights.append(e.weight[at_switch])
    keys = [np.concatenate(x) for x in cols]
    if not keys[0].size:
        return {}
    first, inverse = group_rows([k - k.min() for k in keys])
    ports = np.bincount(inverse, weights=np.concatenate(weights), minlength=len(first)).astype(np.int64)
    plane, role, dev, _, wide = (k[first] for k in keys)
    out: dict[tuple[str, str], CageUse] = {}
    radix = int(role.max()) + 1
    for pl, rl in (divmod(p, radix) for p in unique_codes(plane * radix + role)[0].tolist()):  # (plane, role) ascending
        pick = (plane == pl) & (role == rl)
        out[(t.planes[pl], t.roles[rl])] = _busiest(dev[pick], ports[pick], wide[pick])
    return out


def _busiest(dev: np.ndarray, ports: np.ndarray, width: np.ndarray) -> CageUse:
    """Classes (switch, part) → the role's CageUse: ⌈ports ÷ |width|⌉ cages a class, modules where width > 0."""
    cages = -(-ports // np.maximum(np.abs(width), 1))
    modules = np.where(width > 0, cages, 0)
    devs, index = unique_codes(dev)
    per_ports = np.bincount(index, weights=ports, minlength=devs.size).astype(np.int64)
    per_cages = np.bincount(index, weights=cages, minlength=devs.size).astype(np.int64)
    return CageUse(
        switch_count=int(devs.size),
        ports=int(per_ports.max()),
        cages=int(per_cages.max()),
        modules=int(modules.sum()),
        module_ports=int(ports[width > 0].sum()),
    )


def pair_odd_ports(
    t: LinkTable, chooser: PartChooser, g: _Grouped, parts: list[LinkParts], width: int | None
) -> list[tuple[int, LinkParts]]:
    """A twin-port cage holds one module: where two twin-port module kinds each fill an odd number of a switch's
    ports (a full QM9700 leaf with 31 SR4 and 33 DR4 ports: 16 + 17 = 33 modules for 32 cages), one link of the
    shorter-reach kind moves onto the longer-reach module — a twin DR4 serves one short and one long link — and is
    then of that kind end to end: its far end's module and its fibre are those that mate with the longer-reach
    module (PartChooser.parts_with). The link moved is, in this order, one to a NIC or other device with
    single-port cages, one to a switch with the same two odd kinds (both mended at once), one to a switch whose
    cages do not grow; then the longest; then by device name and NIC port — the same choice, up to identical
    links, from the live table and from per-link records. ``g``: the table's classes and grouped ends (its
    ``width``, see :func:`_nic_cage_width`); ``parts``: each class's.

    Returns the links moved, in order: (row, the parts it gets) — none where no switch needs it (see
    :func:`_apply_moves` for the table that makes, :func:`_paired` for its counts)."""
    state = _OddPorts.of(t, g, parts, width)
    if state is None:
        return []
    moves: list[tuple[int, LinkParts]] = []
    defective = sorted(state.defective, key=lambda d: t.devices[d])
    state.rank_first_steps(defective, chooser)
    for s in defective:
        while (path := state.best_path(s, chooser)) is not None:
            moves += path
    return moves


@dataclass
class _OddPorts:
    """Ports per (switch, twin-port module kind), and each switch's rows, while odd ports are paired."""

    t: LinkTable
    inverse: np.ndarray
    parts: list[LinkParts]
    ports: np.ndarray  # [switch, twin-port module kind (its column in ``kind_col``)] → ports
    kind_col: dict[str, int]
    twins: dict[str, PartSpec]
    defective: list[int]  # switches with two or more twin-port kinds of odd port counts
    order: dict[str, tuple[np.ndarray, np.ndarray]]  # per end ("a", "z"): rows sorted by device, and their devices
    left: np.ndarray  # links of each row not yet moved
    mine: dict[str, np.ndarray]  # per end: each class's module there (its code in sku_code; −1: none)
    sku_code: dict[str, int]
    name_rank: np.ndarray  # each device's place in name order (a step's key compares names by it)
    segment_rank: np.ndarray  # each class's segment's place in name order
    moves: dict[tuple[int, str, str], tuple | None] = field(default_factory=dict)  # see :meth:`_class_move`
    # switch → {(kind, module sku): its steps of rank 0 (to a NIC) as :meth:`_best_steps` ranked them, where its best
    # was of rank 0}: a path's frontier reaching the same leaf again ranks nothing twice. A rank-0 step reads only the
    # switch's own rows and their links left — never a far switch's cages — and moves only ever take links off rows
    # (a moved link joins no candidate set): the switch's rank-0 candidates now are those remembered that still have
    # a link left, in the same order, so the first of them is the least — while any is left (:class:`_NicSteps`)
    to_nic: dict[int, dict[tuple[str, str], _NicSteps]] = field(default_factory=dict)
    # (switch, kind, module sku) → its first step's candidate rows as ranked before any move (:class:`_Prepared`):
    # what a rank reads that no move changes, in key order — its turn re-ranks them at the far switches' ports now
    prepared: dict[tuple[int, str, str], _Prepared] = field(default_factory=dict)
    kinds_by_reach: list[tuple] = field(default_factory=list)  # (reach, kind, its column, ports a module), sorted

    MAX_HOPS = 8  # links changed for one pairing at most (a path of switches, see :meth:`best_path`)

    @classmethod
    def of(cls, t: LinkTable, g: _Grouped, parts: list[LinkParts], width: int | None) -> _OddPorts | None:
        twins: dict[str, PartSpec] = {}
        code = {e: np.full(len(parts), -1, dtype=np.int64) for e in "az"}
        skus: list[str] = []
        for k, p in enumerate(parts):
            for e, m in (("a", p.a_module), ("z", p.z_module)):
                if m is not None and m.ports_per_module > 1:
                    if m.sku not in twins:
                        twins[m.sku] = m
                        skus.append(m.sku)
                    code[e][k] = skus.index(m.sku)
        if not twins:
            return None
        cols: list[list[np.ndarray]] = [[], [], []]
        for e, ends in g.ends(t, width).items():  # a switch's ports of a class: one group
            group_code = code[e][ends.cls]
            pick = (group_code >= 0) & (ends.dev != NO_DEVICE)
            for i, col in enumerate((ends.dev, group_code, ends.weight)):
                cols[i].append(col[pick])
        dev, mod, weight = (np.concatenate(c) for c in cols)
        if not dev.size:
            return None
        first, group = group_rows([dev, mod])
        ports = np.bincount(group, weights=weight, minlength=len(first)).astype(np.int64)
        g_dev, g_mod = dev[first], mod[first]
        width = np.array([twins[s].ports_per_module for s in skus], dtype=np.int64)[g_mod]
        odd_devs, odd_kinds = np.unique(g_dev[ports % width != 0], return_counts=True)
        defective = odd_devs[odd_kinds >= 2]
        if not defective.size:
            return None
        table = np.zeros((len(t.devices), len(skus)), dtype=np.int64)
        table[g_dev, g_mod] = ports
        sku_code: dict[str, int] = {}
        mine = {e: np.full(len(parts), -1, dtype=np.int64) for e in "az"}
        for k, p in enumerate(parts):
            for e, m in (("a", p.a_module), ("z", p.z_module)):
                if m is not None:
                    mine[e][k] = sku_code.setdefault(m.sku, len(sku_code))
        segments = sorted(range(len(t.segments)), key=t.segments.__getitem__)
        segment_rank = np.argsort(np.array(segments, dtype=np.int64))[g.classes[:, 1]]
        return cls(
            t, g.inverse, parts, table, {s: i for i, s in enumerate(skus)}, twins, defective.tolist(),
            g.dev_order(t), t.weight.copy(), mine, sku_code, g.name_rank(t), segment_rank,
        )  # fmt: skip

    def best_path(self, s: int, chooser: PartChooser) -> list[tuple[int, LinkParts]] | None:
        """Switch ``s``'s shortest-reach odd kind gives one port to a longer-reach odd kind: the link moved, and —
        where its far switch would then need a cage more — a link of that switch in turn, and so on (each switch
        between keeps its cages: two ports change kind), to a NIC or a switch whose cages do not grow. The
        fewest links changed, then the ranking of :meth:`_end_steps`. None where no such path is found."""
        odd = self._odd_kinds(s)
        for i, short in enumerate(odd):
            for long in odd[i + 1 :]:
                path = self._search(s, short, self.twins[long], chooser)
                if path:
                    for step in path:
                        self._move(*step[2:])
                    return [(step[2], step[3]) for step in path]
        return None

    def _odd_kinds(self, s: int) -> list[str]:
        """Switch ``s``'s twin-port module kinds with an odd port count, shortest reach first."""
        order = self.kinds_by_reach
        if len(order) != len(self.kind_col):  # a kind joined (:meth:`_move`; kinds only ever join): sorted again
            order = sorted(
                (self.twins[k].reach_m, k, col, self.twins[k].ports_per_module) for k, col in self.kind_col.items()
            )
            self.kinds_by_reach = order
        ports = self.ports[s].tolist()
        return [k for _reach, k, col, ppm in order if ports[col] % ppm]

    def rank_first_steps(self, switches: list[int], chooser: PartChooser) -> None:
        """Every switch's first step of each pairing :meth:`best_path` may try, ranked in one numpy pass before any
        move: those of rank 0 (to a NIC) are remembered (:attr:`to_nic`: the first with a link left is the
        least), so a switch whose pairing ends at a NIC needs no ranking of its own when its turn comes; the others'
        candidate rows are prepared (:attr:`prepared`), so their turn re-ranks them from the port counts alone; then
        the far switches one hop ahead (:meth:`_look_ahead`)."""
        entries = []
        for s in switches:
            odd = self._odd_kinds(s)
            entries += [(s, short, self.twins[long], Counter()) for i, short in enumerate(odd) for long in odd[i + 1 :]]
        if entries:
            best, _onward, least_of = self._best_steps(entries, chooser, prepare=True)
            self._look_ahead(entries, best, least_of(), chooser)

    def _look_ahead(self, entries: list, best: list, least: dict, chooser: PartChooser) -> None:
        """Where a first step of :meth:`rank_first_steps`' ``entries`` has no end (``best`` None: every step would
        need a far cage more), the far switch of its ``least`` step — where :meth:`_through_least` goes on to — has
        its steps to NICs ranked and remembered (:attr:`to_nic`) now, all in one pass, not one switch a pass in the
        searches (at 100k GPUs ≈ 80 leaves). Only remembered: a rank-0 step reads nothing a move changes (see
        :attr:`to_nic`), so what is remembered before the moves is what a search would rank then; a switch whose
        least step differs by its turn goes on as it would without this."""
        ahead: dict[tuple[int, str, str], tuple] = {}
        for i, (_s, _kind, module, _used) in enumerate(entries):
            if best[i] is None and (found := least.get(i)) is not None:
                _rank, _key, _row, _forced, far, far_module, new = self._step(found, module)
                if (far_module.sku, new.sku) not in self.to_nic.get(far, {}):
                    ahead.setdefault((far, far_module.sku, new.sku), (far, far_module.sku, new, Counter()))
        if ahead:
            self._best_steps(list(ahead.values()), chooser)

    def _search(self, s: int, short: str, long: PartSpec, chooser: PartChooser) -> list | None:
        """The path of :meth:`best_path`: hop by hop, the best step (rank, then the keys of the path's steps) that
        ends it; else on from each far switch reached (by its best path so far), at most :data:`MAX_HOPS` hops."""
        frontier: list[tuple[tuple, list, int, str, PartSpec]] = [((), [], s, short, long)]
        seen = {s}
        for _ in range(self.MAX_HOPS):
            if len(frontier) > 1 and (found := self._least_to_nic(frontier) or self._least_ranked(frontier, chooser)):
                return found
            useds = [_used(path) for _keys, path, *_ in frontier]
            entries = [(dev, kind, module, used) for (_k, _p, dev, kind, module), used in zip(frontier, useds)]
            bests, onward_of, least_of = self._best_steps(entries, chooser)
            # the least (rank, keys), the first such in the frontier's order; only its path is made
            done = [((best[0], *f[0], best[1]), i) for i, (f, best) in enumerate(zip(frontier, bests)) if best]
            if done:
                i = min(done)[1]
                keys, path, dev, kind, module = frontier[i]
                return [*path, (*self._step(bests[i], module), dev, kind, module)]
            if len(frontier) == 1 and (found := self._through_least(frontier[0], least_of().get(0), seen, chooser)):
                return found
            reached: dict[int, tuple] = {}  # only where no step ends the path: the onward steps (ranked with the best)
            onward = onward_of()  # no step ended the path: every entry was ranked afresh (a remembered one ends it)
            for i, (keys, path, *_entry) in enumerate(frontier):
                dev, kind, module = _entry
                for far, found in {f[3]: f for f in onward.get(i, ()) if f[3] not in seen}.items():
                    if far not in reached or (*keys, found[1]) < reached[far][0]:
                        reached[far] = ((*keys, found[1]), path, found, dev, kind, module)
            seen.update(reached)
            frontier = []
            for far in sorted(reached):
                keys, path, found, dev, kind, module = reached[far]
                step = (*self._step(found, module), dev, kind, module)
                frontier.append((keys, [*path, step], far, step[5].sku, step[6]))
            if not frontier:
                return None
        return None

    def _through_least(self, entry: tuple, least: tuple | None, seen: set[int], chooser: PartChooser) -> list | None:
        """The path :meth:`_search` picks two hops on from a frontier of one ``entry`` whose steps all go on (rank
        3), where the far switch of its least step (``least``: the least key of all, so the least keys of the
        frontier it would reach) has a step of rank 0, remembered or ranked for it alone: what :meth:`_least_to_nic`
        or :meth:`_least_ranked` picks from that frontier — or, where the frontier is that one switch, what ranking
        it picks (a rank-0 best, the least rank). None where it has not (the whole frontier is then made and
        ranked)."""
        if least is None or least[3] in seen:
            return None
        keys, path, dev, kind, module = entry
        step = (*self._step(least, module), dev, kind, module)
        ahead = [((*keys, least[1]), [*path, step], step[4], step[5].sku, step[6])]
        return self._least_to_nic(ahead) or self._least_ranked(ahead, chooser)

    def _least_to_nic(self, frontier: list) -> list | None:
        """The path :meth:`_search` picks from ``frontier`` where the entry whose path has the least keys has a
        remembered step of rank 0 (:attr:`to_nic`) — no other entry's step can come before it: rank 0 is the least
        rank, and no two entries' paths have the same keys (their rows differ) — else None (every entry is ranked)."""
        _keys, path, dev, kind, module = min(frontier, key=lambda f: f[0])
        steps = self.to_nic.get(dev, {}).get((kind, module.sku))
        hit = steps.first(self.left, _used(path)) if steps is not None else None
        return None if hit is None else [*path, (*self._step(hit, module), dev, kind, module)]

    def _least_ranked(self, frontier: list, chooser: PartChooser) -> list | None:
        """:meth:`_least_to_nic` where the least entry has no remembered step: that entry ranked alone. Its best of
        rank 0 ends the path for the same reason (no other entry's step comes before it); at 100k GPUs a spine's
        frontier of ≈ 35 leaves is then one leaf's ranking, not 35. Else None (every entry is ranked)."""
        _keys, path, dev, kind, module = min(frontier, key=lambda f: f[0])
        (best,), _onward, _least = self._best_steps([(dev, kind, module, _used(path))], chooser)
        if best is None or best[0] != 0:
            return None
        return [*path, (*self._step(best, module), dev, kind, module)]

    def _step(self, found: tuple, module: PartSpec) -> tuple:
        """(rank, key, row, parts, far switch, its old and new module) of a link :meth:`_end_steps` found."""
        rank, key, r, far, k, end = found
        forced, far_module, new, _twin = self.moves[(k, end, module.sku)]
        return rank, key, r, forced, far, far_module, new

    def _best_steps(
        self, entries: list[tuple[int, str, PartSpec, Counter]], chooser: PartChooser, prepare: bool = False
    ) -> tuple:
        """:meth:`_end_steps` without ``onward`` for many (switch, kind, module, used) at once — a hop's whole frontier
        in one numpy pass instead of one per switch: each entry's best (rank, key, row, far switch, class,
        end) of rank < 3, or None; a function giving the onward steps of the entries not ended by a remembered step
        (entry → its steps, on demand: only a hop that no step ends asks) and one giving their least steps of rank 3
        (:meth:`_through_least`). An entry with no path behind it whose rows were prepared before any move
        (:attr:`prepared`) is ranked from those (unless its best is of rank 0: then from the table, to remember its
        steps to NICs); ``prepare``: the entries ranked here are prepared (:meth:`rank_first_steps`). Returned, not
        kept: a function kept on the state would make the state a reference cycle, freed only by a full collection."""
        best: list[tuple | None] = [None] * len(entries)
        todo: list[int] = []
        ready: dict[int, tuple | None] = {}  # entry → its least step of rank 3, where :attr:`prepared` ranked it
        for i, (dev, kind, module, used) in enumerate(entries):
            steps = self.to_nic.get(dev, {}).get((kind, module.sku))
            hit = steps.first(self.left, used) if steps is not None else None
            slot = self.prepared.get((dev, kind, module.sku)) if hit is None and not used else None
            found = slot.steps(self) if slot is not None else None
            if hit is not None:
                best[i] = hit  # the least of a set that only shrank since it was ranked
            elif found is not None and (found[0] is None or found[0][0] != 0):  # rank 0: ranked afresh, remembered
                best[i], ready[i] = found
            else:
                todo.append(i)
        ready_at = list(ready)

        def onward_ready() -> dict:  # a prepared entry's onward steps: ranked from the table, as they are rarely asked
            found = self._end_steps([entries[i] for i in ready_at], chooser, onward=True) if ready_at else {}
            return {ready_at[j]: steps for j, steps in found.items()}

        if not todo:
            return best, onward_ready, lambda: dict(ready)
        found_best, onward_of, nic_of, least_of, prepare_of = self._end_steps(
            [entries[i] for i in todo], chooser, onward=None
        )
        for j, (found,) in found_best.items():
            best[todo[j]] = found
        if prepare:
            for j, slot in prepare_of().items():
                dev, kind, module, _used = entries[todo[j]]
                self.prepared[(dev, kind, module.sku)] = slot
        t = self.t
        nic_steps: dict[int, _NicSteps] | None = None
        for j, i in enumerate(todo):
            dev, kind, module, used = entries[i]
            # remembered where the path's own links (``used``, taken off the rows) could not have been rank 0: both
            # their ends are switches — then the rank-0 candidates were all the switch's links to NICs still left
            if best[i] is not None and best[i][0] == 0 and all(t.a_dev[r] != NO_DEVICE != t.z_dev[r] for r in used):
                nic_steps = nic_of() if nic_steps is None else nic_steps
                self.to_nic.setdefault(dev, {})[(kind, module.sku)] = nic_steps[j]
        return (
            best,
            lambda: {**{todo[j]: found for j, found in onward_of().items()}, **onward_ready()},
            lambda: {**{todo[j]: found for j, (found,) in least_of().items()}, **ready},
        )

    def _end_steps(self, entries: list, chooser: PartChooser, onward: bool | None):
        """Links of each (switch, kind, module, used) entry's switch, at either end of its rows, that can move from
        module ``kind`` onto ``module`` (links left, less those the path ``used``), ranked — 0: the far end is a NIC
        or device with single-port cages; 1: a switch whose cages shrink; 2: one whose cages stay; 3: one that would
        need a cage more (go on from it) — then keyed: the longest link first, then the far end's name and NIC
        port, the segment, which end is far, the racks, the row (each compared as those fields themselves: the same
        order from the live table and records). Only the picks leave numpy: (rank, key, row, far switch, class, end)
        of an entry's least (rank, key) of rank < 3, or with ``onward`` its least key of rank 3 to each far switch
        (:meth:`_step` makes a step of either) — found by one lexsort of the key's fields over both ends' rows (the
        row last: no ties). A hop's whole frontier is ranked in one numpy pass.
        ``onward`` None: (the best, and functions giving the onward steps, each entry's steps of rank 0, each entry's
        least step of rank 3 and each entry's rows prepared (:class:`_Prepared`)) — a hop ranks its frontier's links
        once, and only a hop that no step ends asks for the onward steps (:meth:`_search`), only an entry remembered
        for its rank-0 best for its steps of rank 0 (:attr:`to_nic`)."""
        nothing: Any = ({}, dict, dict, dict, dict) if onward is None else {}
        t = self.t
        dev_of = np.array([e[0] for e in entries], dtype=np.int64)
        kind_code = np.array([self.sku_code.get(e[1], -2) for e in entries], dtype=np.int64)
        span = len(t.weight) + 1
        used = [(i, r, n) for i, e in enumerate(entries) for r, n in e[3].items()]
        picked: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for side, end in enumerate(("a", "z")):
            order, devs = self.order[end]
            lo, hi = np.searchsorted(devs, dev_of), np.searchsorted(devs, dev_of + 1)
            sizes = hi - lo
            total = int(sizes.sum())
            if not total:
                continue
            ent = np.repeat(np.arange(len(entries)), sizes)
            within = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            rows = order[np.repeat(lo, sizes) + within]  # each entry's rows, ascending (a stable sort by device)
            left = self.left[rows]
            if used:
                at_key = ent * span + rows  # ascending: by entry, then row
                u = np.array([i * span + r for i, r, _ in used], dtype=np.int64)
                at = np.minimum(np.searchsorted(at_key, u), total - 1)
                hit = at_key[at] == u
                np.subtract.at(left, at[hit], np.array([n for *_, n in used], dtype=np.int64)[hit])
            pick = (self.mine[end][self.inverse[rows]] == kind_code[ent]) & (left > 0)
            if pick.any():
                picked.append((rows[pick], ent[pick], np.full(int(pick.sum()), side, dtype=np.int64)))
        if not picked:
            return nothing
        rows, ent, side = (np.concatenate(c) for c in zip(*picked, strict=True))
        cls = self.inverse[rows]
        at_a = side == 0  # the switch is the a end: the far end is z (far_end 1 > 0: a < z)
        far = np.where(at_a, t.z_dev[rows], t.a_dev[rows])
        far_nic = np.where(at_a, t.z_nic[rows], t.a_nic[rows])
        far_end = 1 - side
        modules = {e[2].sku: e[2] for e in entries}
        mod_names = sorted(modules)
        mod_of = np.array([mod_names.index(e[2].sku) for e in entries], dtype=np.int64)[ent]
        info = self._move_info(rows, cls, side, mod_of, [modules[m] for m in mod_names], chooser)
        rank = self._rank_of(info, far)

        arrays = (rows, cls, far, rank, ent, far_nic, far_end)
        if onward is None:
            return (
                self._picks(arrays, False),
                lambda: self._picks(arrays, True),
                lambda: self._nic_steps(arrays),
                lambda: self._picks(arrays, True, per_far=False),
                lambda: self._prepare(arrays, info),
            )
        return self._picks(arrays, onward)

    def _ranks(self, rows, cls, far, side, mod_of, modules: list[PartSpec], chooser: PartChooser) -> np.ndarray:
        """Each candidate row's rank of :meth:`_end_steps` (−1: cannot move), moved onto ``modules[mod_of]`` at its
        switch's end (``side`` 0: a): what moving decides (:meth:`_class_move`) is looked up once per (class, module,
        end), the far switches' cage changes worked out for all rows at once: n ports on a module kind of width w
        (ports per module; a single-port or no module kind: n = 0, w = 1) take ⌈n ÷ w⌉ cages, so a port off the old
        kind and onto the new changes them by ⌈(n_old − 1) ÷ w_old⌉ − ⌈n_old ÷ w_old⌉ + ⌈(n_new + 1) ÷ w_new⌉ −
        ⌈n_new ÷ w_new⌉ (no module at an end: no change there)."""
        return self._rank_of(self._move_info(rows, cls, side, mod_of, modules, chooser), far)

    def _move_info(self, rows, cls, side, mod_of, modules: list[PartSpec], chooser: PartChooser) -> tuple:
        """Per candidate row of :meth:`_ranks`, what its rank reads that no move changes: (whether it can move, whether
        its far end is a twin-port NIC cage, the column in :attr:`ports` of the far end's old and new module kind
        (−1: single-port or none), their widths (0: no module)) — :meth:`_class_move` once per (class, module, end)."""
        pair = (cls * len(modules) + mod_of) * 2 + side
        _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)  # 1-D in, 1-D out
        ok, twin = np.zeros(first.size, dtype=bool), np.zeros(first.size, dtype=bool)
        col, width = np.full((2, first.size), -1, dtype=np.int64), np.zeros((2, first.size), dtype=np.int64)
        for j, f in enumerate(first.tolist()):
            move = self._class_move(int(cls[f]), int(rows[f]), "az"[int(side[f])], modules[int(mod_of[f])], chooser)
            if move is None:
                continue
            _forced, far_module, new, twin[j] = move
            ok[j] = True
            for i, m in enumerate((far_module, new)):
                if m is not None:  # width 0: no module, no cage change
                    width[i, j] = max(m.ports_per_module, 1)
                    col[i, j] = self.kind_col.get(m.sku, -1) if width[i, j] > 1 else -1
        return ok[inverse], twin[inverse], col[:, inverse], width[:, inverse]

    def _rank_of(self, info: tuple, far: np.ndarray) -> np.ndarray:
        """The ranks of rows (:meth:`_ranks`) from their :meth:`_move_info` and far switches, at the far switches'
        port counts now."""
        return self._ranks_from(_rank_inputs(info, far))

    def _ranks_from(self, inputs: tuple) -> np.ndarray:
        """The ranks of rows from their :func:`_rank_inputs`, at the far switches' port counts now: n ports on a kind
        of w per module take ⌈n ÷ w⌉ cages (see :meth:`_ranks`)."""
        size, to_switch, dev, has, col, wide, w1, to_nic = inputs
        # both kinds at once (rows 0, 1 of the (2, rows) inputs): the far end's old module loses the port, the new
        # one takes it — ⌈(n + change) ÷ w⌉ − ⌈n ÷ w⌉ cages each, summed
        n = np.where(has, self.ports[dev, col], 0)
        grows = np.where(wide, (-n // w1) - (-(n + _PORT_CHANGE) // w1), 0).sum(axis=0)
        rank = np.full(size, -1, dtype=np.int64)
        rank[to_switch] = 2 + np.sign(grows)  # cages shrink: 1, stay: 2, grow: 3
        rank[to_nic] = 0
        return rank

    def _picks(self, arrays: tuple, onward: bool, per_far: bool = True) -> dict[int, list[tuple]]:
        """The picks of :meth:`_end_steps` from its ranked rows (rows, class, far switch, rank, entry, far NIC port,
        far end): each entry's least (rank, key) of rank < 3, or with ``onward`` its least key to each far switch."""
        ranked = self._ranked(arrays, arrays[3] == 3 if onward else (arrays[3] >= 0) & (arrays[3] < 3))
        if ranked is None:
            return {}
        columns, order_ = ranked
        ent_, _rank, *_fields, far_, _cls = columns
        per = onward and per_far  # entry (, far)
        group = ent_[order_] * (len(self.t.devices) + 1) + (far_[order_] - NO_DEVICE if per else 0)
        _, first = np.unique(group, return_index=True)
        out: dict[int, list[tuple]] = {}
        for step in _NicSteps.steps(columns, order_[first]):
            out.setdefault(step[0], []).append(step[1])
        return out

    def _nic_steps(self, arrays: tuple) -> dict[int, _NicSteps]:
        """Each entry's steps of rank 0 of :meth:`_end_steps`' ranked rows, least first (:attr:`to_nic`)."""
        ranked = self._ranked(arrays, arrays[3] == 0)
        if ranked is None:
            return {}
        columns, order_ = ranked
        ent = columns[0][order_]
        starts = np.flatnonzero(np.diff(ent, prepend=-1))
        ends = np.append(starts[1:], ent.size)
        spans = zip(starts.tolist(), ends.tolist(), strict=True)
        return {int(ent[lo]): _NicSteps(columns, order_[lo:hi]) for lo, hi in spans}

    def _prepare(self, arrays: tuple, info: tuple) -> dict[int, _Prepared]:
        """Each entry's movable rows of :meth:`_end_steps`' ranked rows as a :class:`_Prepared`, in key order."""
        rows, cls, far, _rank, ent, far_nic, far_end = arrays
        movable, twin, col, width = info
        if not movable.any():
            return {}
        fields = self._key_fields(rows[movable], cls[movable], far[movable], far_nic[movable], far_end[movable])
        order = np.lexsort((*fields[::-1], ent[movable]))
        columns = tuple(c[order] for c in (*fields, far[movable], cls[movable]))
        info = (
            np.ones(order.size, dtype=bool),
            twin[movable][order],
            col[:, movable][:, order],
            width[:, movable][:, order],
        )
        _n, to_switch, dev, has, col, wide, w1, to_nic = _rank_inputs(info, columns[-2])  # all rows at once
        at = np.concatenate([[0], np.cumsum(to_switch)])  # each row's place among the rows to a switch
        ent = ent[movable][order]
        starts = np.flatnonzero(np.diff(ent, prepend=-1))
        spans = zip(starts.tolist(), [*starts[1:].tolist(), ent.size], strict=True)
        out = {}
        for lo, hi in spans:
            a, z = int(at[lo]), int(at[hi])
            inputs = (hi - lo, to_switch[lo:hi], dev[a:z], has[:, a:z], col[:, a:z], wide[:, a:z], w1[:, a:z])
            out[int(ent[lo])] = _Prepared(tuple(c[lo:hi] for c in columns), (*inputs, to_nic[lo:hi]))
        return out

    def _key_fields(self, rows, cls, far, far_nic, far_end) -> tuple:
        """The fields of a candidate row's key (:meth:`_end_steps`): −length, the far end's name, its NIC port, the
        segment, which end is far, the racks, the row."""
        t = self.t
        name = np.where(far != NO_DEVICE, self.name_rank[np.maximum(far, 0)], -1)  # "" (no device) first
        return -t.length_m[rows], name, far_nic, self.segment_rank[cls], far_end, t.a_rack[rows], t.z_rack[rows], rows

    def _ranked(self, arrays: tuple, ok: np.ndarray) -> tuple[tuple, np.ndarray] | None:
        """The rows of :meth:`_end_steps`' ranked rows where ``ok`` as columns (entry, rank, the key's fields, far
        switch, class) and their order: by entry, then rank, then the key's fields."""
        rows, cls, far, rank, ent, far_nic, far_end = arrays
        if not ok.any():
            return None
        rows_, cls_, far_, rank_, ent_ = rows[ok], cls[ok], far[ok], rank[ok], ent[ok]
        fields = self._key_fields(rows_, cls_, far_, far_nic[ok], far_end[ok])
        return (ent_, rank_, *fields, far_, cls_), np.lexsort((*fields[::-1], rank_, ent_))

    def _class_move(self, k: int, r: int, end: str, module: PartSpec, chooser: PartChooser):
        """What moving a link of class ``k`` (row ``r`` is one) onto ``module`` at ``end`` makes of it — (its parts,
        the far end's old and new module, whether the far end is a twin-port NIC cage) — or None where it cannot
        move: the same for every link of the class (a class fixes all that :func:`_row_link` reads)."""
        key = (k, end, module.sku)
        if key not in self.moves:
            self.moves[key] = None
            link = _row_link(self.t, r)
            forced = chooser.parts_with(link, end, module)
            if forced is not None:
                cls_parts = self.parts[k]
                far_module, new, role = (
                    (cls_parts.z_module, forced.z_module, link.z_role)
                    if end == "a"
                    else (cls_parts.a_module, forced.a_module, link.a_role)
                )
                twin = chooser.ends.get((link.plane, role), EndSpec()).ppm > 1
                self.moves[key] = (forced, far_module, new, twin)
        return self.moves[key]

    def _move(self, r: int, _forced, far: int, old, new, dev: int, kind: str, module: PartSpec) -> None:
        self.left[r] -= 1
        for d, off, on in ((dev, self.twins.get(kind), module), (far, old, new)):
            if d == NO_DEVICE:
                continue
            for m, change in ((off, -1), (on, 1)):
                if m is not None and m.ports_per_module > 1:
                    if m.sku not in self.kind_col:
                        self.prepared.clear()  # their columns of the far ends' module kinds: one more now
                        self.kind_col[m.sku] = self.ports.shape[1]
                        self.ports = np.hstack([self.ports, np.zeros((self.ports.shape[0], 1), dtype=np.int64)])
                    self.ports[d, self.kind_col[m.sku]] += change
                    self.twins.setdefault(m.sku, m)


_PORT_CHANGE = np.array([[-1], [1]], dtype=np.int64)  # a move's change to the far end's old and new module kind


class _Prepared:
    """One (switch, kind, module)'s candidate rows for its first step (:meth:`_OddPorts._end_steps`), as ranked before
    any move: each row's key fields, far switch and class in key order, and what its rank reads that no move changes
    (:meth:`_OddPorts._move_info`). A move changes only the far switches' port counts and the links left on rows, so
    at the switch's turn :meth:`steps` ranks these rows again from those alone — the same ranks, the same picks as a
    ranking from the table: the rows a candidate set ever holds only shrink (a link moved joins none)."""

    __slots__ = ("columns", "inputs")

    def __init__(self, columns: tuple, inputs: tuple) -> None:
        self.columns, self.inputs = columns, inputs  # the key's fields, far switch, class; :func:`_rank_inputs`

    def steps(self, state: _OddPorts) -> tuple[tuple | None, tuple | None]:
        """(the least (rank, key) step of rank < 3, the least key of rank 3) now, each (rank, key, row, far switch,
        class, far end) as :meth:`_OddPorts._picks` makes it, or None."""
        *fields, far, cls = self.columns
        rank = state._ranks_from(self.inputs)
        rank[state.left[fields[-1]] <= 0] = -1
        if not rank.size:
            return None, None
        # the first row of the least rank below 3, the first of rank 3 (rows in key order: the first is the least)
        j = int(np.argmin(np.where(rank < 0, 3, rank)))
        best = self._step(rank, far, cls, j) if 0 <= rank.item(j) < 3 else None
        k = int(np.argmax(rank == 3))
        onward = self._step(rank, far, cls, k) if rank.item(k) == 3 else None
        return best, onward

    def _step(self, rank: np.ndarray, far: np.ndarray, cls: np.ndarray, j: int) -> tuple:
        ln, nm, nic, sg, fe, ar, zr, r = (c.item(j) for c in self.columns[:8])
        return rank.item(j), (ln, nm, nic, sg, fe, ar, zr, r), r, far.item(j), cls.item(j), "za"[fe]


def _rank_inputs(info: tuple, far: np.ndarray) -> tuple:
    """What :meth:`_OddPorts._ranks_from` reads of rows besides the port counts, from their
    :meth:`_OddPorts._move_info` and far switches: (rows, those that go to a switch, those switches, whether the far
    end's old and new module kinds have a column, the columns, whether they have a module, their widths, those that
    go to a NIC of single-port cages) — the kinds' arrays of the rows to a switch only."""
    movable, twin, col, width = info
    to_switch = movable & (far != NO_DEVICE)
    c, w = col[:, to_switch], width[:, to_switch]
    to_nic = movable & (far == NO_DEVICE) & ~twin  # a twin-port NIC cage's other port keeps its module
    return far.size, to_switch, far[to_switch], c >= 0, np.maximum(c, 0), w > 0, np.maximum(w, 1), to_nic


def _used(path: list) -> dict[int, int]:
    """Row → links a path's steps take off it (a step: (rank, key, row, …))."""
    used: dict[int, int] = {}
    for step in path:
        used[step[2]] = used.get(step[2], 0) + 1
    return used


class _NicSteps:
    """A switch's steps of rank 0 (to a NIC) for one (kind, module), in :meth:`_OddPorts._end_steps`' order, as
    ranked once (:attr:`_OddPorts.to_nic`); a step is made only when asked for."""

    __slots__ = ("at", "columns", "gone", "made", "rows")

    def __init__(self, columns: tuple, at: np.ndarray) -> None:
        self.columns = columns  # (entry, rank, the key's fields, far switch, class) of the ranked rows
        self.at = at  # these steps' places in the columns, least first
        self.rows = columns[-3][at].tolist()  # their rows (the key's last field)
        self.gone = 0  # the first steps whose row has no link left (never again: moves only take links off)
        self.made: dict[int, tuple] = {}  # the steps made so far, by place

    def first(self, left: np.ndarray, used: Counter) -> tuple | None:
        """The least step whose row has a link left less those the path ``used``; None where none has."""
        while self.gone < len(self.rows) and left[self.rows[self.gone]] <= 0:
            self.gone += 1
        for j in range(self.gone, len(self.rows)):
            r = self.rows[j]
            if left[r] > used.get(r, 0):
                if j not in self.made:
                    at = int(self.at[j])
                    _i, rk, ln, nm, nic, sg, fe, ar, zr, _r, f, k = (c.item(at) for c in self.columns)
                    self.made[j] = (rk, (ln, nm, nic, sg, fe, ar, zr, r), r, f, k, "za"[fe])  # as :meth:`steps`
                return self.made[j]
        return None

    @staticmethod
    def steps(columns: tuple, at: np.ndarray):
        """(entry, (rank, key, row, far switch, class, far end)) of the ranked rows at ``at``."""
        for i, rk, ln, nm, nic, sg, fe, ar, zr, r, f, k in zip(*(c[at].tolist() for c in columns), strict=True):
            yield i, (rk, (ln, nm, nic, sg, fe, ar, zr, r), r, f, k, "za"[fe])


def _row_link(t: LinkTable, r: int) -> Link:
    return Link(
        t.planes[t.plane[r]],
        t.segments[t.segment[r]],
        "",
        "",
        t.roles[t.a_role[r]],
        "",
        "",
        t.roles[t.z_role[r]],
        float(t.speed_gbps[r]),
        int(t.length_m[r]),
        int(t.rack_distance[r]),
    )


def _move_variants(moves: list[tuple[int, LinkParts]]) -> tuple[dict[int, Counter], list[LinkParts]]:
    """Row → {variant: links moved} and the parts of each variant v (``listed[v − 1]``), numbered as first moved."""
    forced: dict[tuple[str, ...], int] = {}
    listed: list[LinkParts] = []
    per_row: dict[int, Counter] = defaultdict(Counter)
    for r, p in moves:
        key = (p.cable.sku, p.a_module.sku if p.a_module else "", p.z_module.sku if p.z_module else "")
        if key not in forced:
            forced[key] = len(listed) + 1
            listed.append(p)
        per_row[r][forced[key]] += 1
    return per_row, listed


def _apply_moves(t: LinkTable, moves: list[tuple[int, LinkParts]]) -> tuple[LinkTable, np.ndarray, list[LinkParts]]:
    """The table with the moved links as rows of their own (variant v > 0), a row of one link changed in place."""
    per_row, listed = _move_variants(moves)
    weight = t.weight.copy()
    variant = np.zeros(weight.size, dtype=np.int64)
    src, src_weight, src_variant = [], [], []
    for r, by_variant in sorted(per_row.items()):
        items = sorted(by_variant.items())
        left = int(weight[r]) - sum(n for _, n in items)
        if left == 0:  # every link of the row moves: the row takes the first variant itself
            (variant[r], weight[r]), items = items[0], items[1:]
        else:
            weight[r] = left
        for v, n in items:
            src.append(r)
            src_weight.append(n)
            src_variant.append(v)
    if not src:
        return replace(t, weight=weight), variant, listed
    idx = np.array(src, dtype=np.int64)
    columns = {
        f.name: np.concatenate([getattr(t, f.name), getattr(t, f.name)[idx]])
        for f in fields(t)
        if isinstance(getattr(t, f.name), np.ndarray) and f.name != "weight"
    }
    columns["weight"] = np.concatenate([weight, np.array(src_weight, dtype=np.int64)])
    return replace(t, **columns), np.concatenate([variant, np.array(src_variant, dtype=np.int64)]), listed


def _paired(t: LinkTable, g: _Grouped, parts: list[LinkParts], moves: list[tuple[int, LinkParts]]):
    """:func:`_counted_classes` after odd ports were paired: the classes, links per class, parts and grouped ends
    of the table :func:`_apply_moves` makes — classes (class, variant) in its order, each moved link in the class
    of its variant — from the table's own grouping, less the links moved, plus one group per (row, variant)
    moved; a class or group all of whose rows moved whole is gone, as from that table. Nothing re-grouped."""
    per_row, listed = _move_variants(moves)
    rows = np.array(sorted(per_row), dtype=np.int64)
    moved = np.array([sum(per_row[r].values()) for r in rows.tolist()], dtype=np.int64)
    whole = rows[moved == t.weight[rows]]  # rows every link of which moved: their class (k, 0) loses them
    n_classes = len(parts)
    row_class = g.inverse[rows].tolist()
    kept = g.rows_per_class() > np.bincount(g.inverse[whole], minlength=n_classes)
    lost = np.bincount(g.inverse[rows], weights=moved, minlength=n_classes).astype(np.int64)
    links: dict[tuple[int, int], int] = defaultdict(int)  # (class, variant) → links moved there
    for r, k in zip(rows.tolist(), row_class, strict=True):
        for v, n in per_row[r].items():
            links[(k, v)] += n
    index0 = np.full(n_classes, -1, dtype=np.int64)  # class k → its (k, 0)
    index: dict[tuple[int, int], int] = {}  # (k, v > 0) → its class
    order: list[tuple[int, int]] = []
    new_parts, counts = [], []
    variants = sorted(links)
    for k in range(n_classes):  # (k, 0) then each (k, v): _link_classes orders the variant column last
        if kept[k]:
            index0[k] = len(order)
            order.append((k, 0))
            new_parts.append(parts[k])
            counts.append(int(g.counts[k] - lost[k]))
        for kv in variants[bisect_left(variants, (k, 0)) : bisect_left(variants, (k + 1, 0))]:
            index[kv] = len(order)
            order.append(kv)
            new_parts.append(listed[kv[1] - 1])
            counts.append(links[kv])
    keys = np.array(order, dtype=np.int64).reshape(-1, 2)
    classes = np.column_stack([g.classes[keys[:, 0], :7], keys[:, 1]])
    width = _nic_cage_width(t, classes, new_parts)
    moved_rows = [r for r in rows.tolist() for _ in per_row[r]]
    moved_class = [index[(k, v)] for r, k in zip(rows.tolist(), row_class, strict=True) for v in per_row[r]]
    moved_links = [n for r in rows.tolist() for n in per_row[r].values()]
    ends = {
        end: _less_moved(t, e, end, index0, rows, moved, whole, (moved_rows, moved_class, moved_links), width)
        for end, e in g.ends(t, width).items()
    }
    return classes, np.array(counts, dtype=np.int64), new_parts, ends, width


def _less_moved(t: LinkTable, e: _Ends, end: str, index0, rows, moved, whole, added, width: int | None) -> _Ends:
    """One end's groups with the moved links taken out (a group all of whose rows moved whole: gone) and the
    moved ones added, one group per (row, variant) (groups that coincide are summed by whoever counts them)."""
    dev, nic, rack = (t.a_dev, t.a_nic, t.a_rack) if end == "a" else (t.z_dev, t.z_nic, t.z_rack)
    weight = e.weight - np.bincount(e.group[rows], weights=moved, minlength=e.weight.size).astype(np.int64)
    keep = np.bincount(e.group, minlength=e.weight.size) > np.bincount(e.group[whole], minlength=e.weight.size)
    r, cls, n = (np.array(x, dtype=np.int64) for x in added)
    cage = nic[r] // width if width else np.full(r.size, NO_DEVICE, dtype=np.int64)
    return _Ends(
        np.concatenate([index0[e.cls[keep]], cls]),
        np.concatenate([e.dev[keep], dev[r]]),
        np.concatenate([e.cage[keep], cage]),
        np.concatenate([e.rack[keep], rack[r]]),
        np.concatenate([weight[keep], n]),
        None,
    )


def trunk_ends_per_rack(ends: dict[str, _Ends], trunk_class: np.ndarray) -> dict[int, int]:
    """Rack key → ends of switch-to-switch optical trunks in that rack (each trunk lands at both ends);
    ``trunk_class``: whether each link class is a trunk."""
    keys = np.concatenate([e.rack[trunk_class[e.cls]] for e in ends.values()])
    if keys.size == 0:
        return {}
    racks, index = np.unique(keys, return_inverse=True)
    weights = np.concatenate([e.weight[trunk_class[e.cls]] for e in ends.values()])
    per_rack = np.bincount(index.reshape(-1), weights=weights, minlength=racks.size).astype(np.int64)
    return dict(zip(racks.tolist(), per_rack.tolist(), strict=True))


def _count_modules(t: LinkTable, classes, ends, nic_width, end_module, modules: list[PartSpec], c: _Counts) -> None:
    """Modules per link end: a module serves ``ports_per_module`` ports of one switch or one NIC cage. The ends
    come grouped by class (:class:`_Ends`), NIC ends by cage where ``nic_width`` says so (:func:`_nic_cage_width`);
    ``end_module``: each class's module code at each end (−1: none)."""
    if not modules:
        return
    ppm = np.array([max(m.ports_per_module, 1) for m in modules], dtype=np.int64)
    nic_roles = [t.roles.index(r) for r in NON_SWITCH_ROLES if r in t.roles]
    cols: list[list[np.ndarray]] = [[], [], [], []]
    weights = []
    for end, role_col in (("a", 2), ("z", 3)):
        e = ends[end]
        mod = end_module[end][e.cls]
        has = mod >= 0
        width = ppm[mod]  # a group without a module (mod −1) reads the last module's width: dropped below by `has`
        role = classes[e.cls, role_col]
        at_nic = np.isin(role, nic_roles)
        # who holds the module: a switch, or a NIC cage of a node (only twin-port cages need telling apart)
        cage = np.where((e.cage >= 0) & (width > 1), e.cage * (nic_width or 1) // width, NO_DEVICE)
        holder = np.where(at_nic, cage, e.dev)
        for i, col in enumerate((classes[e.cls, 0], mod, role, holder)):
            cols[i].append(col[has])
        weights.append(e.weight[has])
    keys = [np.concatenate(x) for x in cols]
    if not sum(int(w.size) for w in weights):  # no end with a module
        return
    first, inverse = group_rows([k - k.min() for k in keys])  # shifted to 0 (holders may be NO_DEVICE)
    ports = np.bincount(inverse, weights=np.concatenate(weights), minlength=len(first)).astype(np.int64)
    plane, mod, role, holder = (k[first] for k in keys)
    count = -(-ports // ppm[mod])
    holders = (holder != NO_DEVICE).astype(np.int64)  # a lumped group stands for ends, not one holder
    g_first, g_inv = group_rows([plane, mod, role])
    sums = [np.bincount(g_inv, weights=w, minlength=len(g_first)).astype(np.int64) for w in (ports, holders, count)]
    for i, (pl, md, rl) in enumerate(
        zip(plane[g_first].tolist(), mod[g_first].tolist(), role[g_first].tolist(), strict=True)
    ):
        module, role_name = modules[md], t.roles[rl]
        group = {"ufm": FABRIC_MANAGER, "device": ATTACHED}.get(role_name, "")
        entry = c.modules.setdefault((t.planes[pl], group, module.sku), [module, 0, []])
        entry[1] += int(sums[2][i])
        entry[2].append(_module_why(module, role_name, int(sums[0][i]), int(sums[1][i]), int(sums[2][i])))


def _module_why(module: PartSpec, role: str, ports: int, holders: int, count: int) -> str:
    ppm = max(module.ports_per_module, 1)
    if role == "bmc" or module.media == CableMedia.COPPER_RJ45:
        return f"{ports:,} BMC links into SFP ports of management ToRs × 1 1000BASE-T SFP = {count:,}"
    if role in ("ufm", "device"):
        who = "fabric-management server" if role == "ufm" else "fabric-attached device"
        return f"{ports:,} {who} ports × 1 module = {count:,}"
    if role == "nic":
        if ppm > 1:
            return f"{ports:,} NIC ports in twin-port cages: one module per cage with an optical port = {count:,}"
        return f"{ports:,} NIC ends of optical links × 1 module = {count:,}"
    where = f"{ports:,} optical switch ports on {holders:,} {ROLE_NAMES.get(role, role)}"
    if ppm > 1:
        return f"{where} ÷ {ppm} ports per module (rounded up per switch and link class: one module a cage) = {count:,}"
    return f"{where} × 1 module = {count:,}"


def build_bom(
    *,
    switches: Iterable[tuple[str, str, str, int, str]],
    nic_counts: Mapping[str, list[tuple[PartSpec, int, str]]],
    links: LinkTable | Iterable[Link],
    roles: Roles,
    chooser: PartChooser,
    policy: BomPolicy,
    tier_ports: Mapping[str, list[tuple[str, int, int]]] | None = None,
    appliances: Iterable[tuple[str, str, PartSpec, int, str]] = (),
    accessories=None,
) -> Bom:
    """Count, choose and price every part.

    switches: (plane, role, tier, count, derivation); nic_counts: plane → [(part, qty, derivation)];
    links: every cable (a LinkTable, or bom/links.py records); tier_ports: plane → [(tier, used,
    free)] for the growth-headroom check.
    """
    table = links if isinstance(links, LinkTable) else LinkTable.from_links(links)
    lines, checks = _switch_and_nic_lines(switches, nic_counts, roles)
    lines += [_line(plane, category, part, qty, why, False) for plane, category, part, qty, why in appliances if qty]
    counts = count_links(table, chooser)
    lines += _transceiver_lines(counts)
    lines += _cable_lines(counts)
    if accessories is not None:  # racks, PDUs, panels: they need the trunk count
        lines += [
            _line(pl, cat, part, qty, why, False)
            for pl, cat, part, qty, why in accessories(counts.trunks, counts.trunk_ends)
            if qty
        ]
    lines += _spare_lines(lines, policy)
    lines.sort(key=_line_order)
    checks += cage_checks(counts.cages, roles)
    checks += _catalog_and_headroom_checks(lines, tier_ports or {}, policy)
    return Bom(tuple(lines), tuple(checks), counts.link_count, 2 * counts.link_count, dict(counts.media), counts.trunks)


def cage_checks(cages: Mapping[tuple[str, str], CageUse], roles: Roles) -> list[dict[str, Any]]:
    """One check per switch role: its busiest switch's modules fit its cages, its cabled ports its radix. A
    failure means the BOM cannot be installed as bought (more modules than cages: single-port modules where the
    cages are twin-port, or a class's odd port left alone in a cage)."""
    out = []
    for (plane, role), use in cages.items():
        part = roles.switch(role)
        if part.vendor == "(not in catalog)":
            continue  # the catalog check already fails for it
        ok = use.cages <= part.cage_count and use.ports <= part.radix
        name = ROLE_NAMES.get(role, role)
        message = (
            f"{plane} {name} ({part.sku}: {part.cages_label}, radix {part.radix}): the busiest of {use.switch_count:,} "
            f"uses {use.ports:,} ports (≤ {part.radix}) in {use.cages:,} cages (≤ {part.cage_count:,}) — per switch, "
            f"Σ over link classes ⌈ports of the class ÷ ports per module⌉; {use.modules:,} modules for "
            f"{use.module_ports:,} optical ports on all {use.switch_count:,}"
        )
        if not ok:
            message += (
                "; the BOM cannot be installed: more modules than cages or more ports than the switch has — add a "
                "module as wide as the cages to the catalog or a switch with more ports"
            )
        out.append({"ok": ok, "field": "cages", "message": message})
    return out


PLANE_ORDER = ("nvlink", "compute", "storage", "management", "infrastructure")
CATEGORY_ORDER = ("switch", "nic", "fabric", "transceiver", "cable", "rack", "pdu", "patch")


def _line_order(ln: BomLine) -> tuple[int, bool, int]:
    """Plane by plane; in each, the parts bought for the design, then their spares; by category ("switch (leaf)"
    sorts as "switch"); an unknown plane or category last."""
    category = ln.category.split()[0]
    return (
        PLANE_ORDER.index(ln.plane) if ln.plane in PLANE_ORDER else len(PLANE_ORDER),
        ln.spare,
        CATEGORY_ORDER.index(category) if category in CATEGORY_ORDER else len(CATEGORY_ORDER),
    )


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
                    "message": f"{plane} {tier}: no catalog switch with {part.ports_label} ports; priced at $0 "
                    "until one is added",
                }
            )
    for plane, items in nic_counts.items():
        for part, qty, why in items:
            if qty > 0:
                lines.append(_line(plane, "nic", part, qty, why, False))
    return lines, checks


def _transceiver_lines(c: _Counts) -> list[BomLine]:
    optical_links = Counter()
    for (plane, _group), cables in c.cables.items():
        for part, qty, _segs in cables.values():
            if part.media in FIBRE_MEDIA:
                optical_links[plane] += qty
    lines = []
    for (plane, group, _sku), (part, qty, why) in c.modules.items():
        note = "; ".join(why)
        if part.media in FIBRE_MEDIA and not group:
            n = optical_links[plane]
            note += (
                f". Per link end, not per link: {n:,} optical links have {2 * n:,} ends"
                " (the seed chapter counts one module per link)"
            )
        lines.append(_line(plane, _category("transceiver", group), part, qty, note, False))
    return lines


def _category(kind: str, group: str) -> str:
    return f"{kind} ({group})" if group else kind


_CABLE_WHAT = {
    "dac": "in-rack links (passive copper)",
    "acc": "next-rack links (active copper)",
    "aoc": "links to a nearby rack (active optical)",
    "copper_rj45": "BMC links",
    "fibre_mpo": "optical links, one multimode MPO trunk per link",
    "fibre_lc": "optical links, one multimode LC duplex cord per link",
    "fibre_mpo_sm": "optical links on single-mode optics, one single-mode MPO trunk per link",
    "fibre_lc_sm": "optical links on single-mode optics, one single-mode duplex cord (LC or CS) per link",
}


def _cable_lines(c: _Counts) -> list[BomLine]:
    lines = []
    for (plane, group), cables in c.cables.items():
        for sku in sorted(cables):
            part, qty, segs = cables[sku]
            where = ", ".join(f"{n:,} {seg}" for seg, n in segs.most_common())
            what = _CABLE_WHAT.get(part.media, "optical links, one fibre per link")
            why = f"{what}: {where}; length class {part.length_m:g} m"
            lines.append(_line(plane, _category("cable", group), part, qty, why, False))
    return lines


def _spare_lines(lines: list[BomLine], policy: BomPolicy) -> list[BomLine]:
    spares = []
    for ln in lines:
        pct = policy.spares_pct.get(ln.kind, Decimal("0"))
        n = math.ceil(ln.quantity * pct / 100)
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
                    purchase=ln.purchase,
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
            checks.append(_headroom_check(plane, tier, used, free, policy.growth_headroom_pct))
    currencies = sorted({ln.purchase.currency for ln in lines} - {"USD"})
    if currencies:
        checks.append(
            {
                "ok": False,
                "field": "price_book",
                "message": f"the price book is in {', '.join(currencies)}, but the totals, power costs and TCO are "
                "in USD: convert its prices or price from a USD book",
            }
        )
    return checks


def _headroom_check(plane: str, tier: str, used: int, free: int, target_pct: Decimal | None) -> dict[str, Any]:
    """Free ports for growth: information, or a check when the user set a headroom target."""
    share = f"{free / used * 100:.0f} %" if used else "—"
    if target_pct is None:
        return {
            "ok": True,
            "info": True,
            "field": "growth_headroom_pct",
            "message": f"{plane} {tier}: {free:,} free ports ({share} of the {used:,} used) for growth; "
            "set a growth headroom target to check it (the seed chapter suggests 20 %)",
        }
    need = math.ceil(used * target_pct / 100)
    ok = free >= need
    return {
        "ok": ok,
        "field": "growth_headroom_pct",
        "message": f"{plane} {tier}: {free:,} free ports vs {target_pct}% growth headroom of {used:,} used = {need:,}"
        + ("" if ok else "; lower the target, leave leaf ports free (more oversubscription) or add switches"),
    }


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
        Purchase.of(part),
    )
