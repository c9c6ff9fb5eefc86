"""Rack elevations: every device of the cut sheet in its rack, at a U position (pure: no Django).

The racks and what stands in them come from the floor plan the cable lengths come from
(bom/layout.py, via each link end's ``a_rack``/``z_rack``), so the cut sheet, the elevations
and the lengths agree by construction. Within a rack, stated rules:
- servers (GPU nodes, storage, management and login servers, fabric-management servers,
  fabric-attached devices) stack from U1 upward in name order;
- from the top down: the rack's fibre patch panels (1U each, ⌈trunk ends landing in the rack ÷ 24⌉,
  the BOM's own count), then each switch in name order with its 1U horizontal cable manager
  beneath it (bom/accessories.py) — bare switches without either where the floor plan cables point to point
  (``Heights.point_to_point``, bom/layout.py su_row_racks: the DGX SuperPOD RA's racks);
- PDUs are zero-U, vertical at the rear: A + B feeds, ⌈rack kW ÷ PDU kW⌉ per feed in compute racks,
  one per feed elsewhere (the BOM's rule).
A rack whose devices need more U than it has is reported (``overflows``), never silently
squeezed: its devices are then numbered upward past the top so the shortfall shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bom.cells import safe_text
from bom.layout import panels_for, rack_name, row_name
from bom.links import Link

SWITCH_ROLES = frozenset({"compute_switch", "compute_spine_switch", "compute_core_switch", "storage_switch"})
SWITCH_ROLES |= {"mgmt_tor", "mgmt_spine"}
SERVER_KINDS = {  # device-name prefix → (kind, height key)
    "cn": ("GPU node", "node"),
    "sn": ("storage server", "storage"),
    "mn": ("management server", "mgmt"),
    "ln": ("login node", "mgmt"),
    "ufm": ("fabric-management server", "ufm"),
    "fad": ("fabric-attached device", "device"),
}


@dataclass(frozen=True)
class Heights:
    """Rack units per kind of device, and the parts and PDUs each rack carries."""

    rack_u: int
    node_u: int
    storage_u: int
    mgmt_u: int
    switch_u: dict[str, int]  # switch role → rack units of its part
    switch_sku: dict[str, str]  # switch role → part number
    node_model: str = "GPU node"
    ufm_u: int = 1
    device_u: int = 1
    compute_pdus: int = 2  # A + B feeds × PDUs per feed in a compute rack
    other_pdus: int = 2
    pdu_sku: str = "PDU"
    panel_sku: str = "PANEL"
    manager_sku: str = "CM"
    point_to_point: bool = False  # bare switches: no cable managers (and the caller lands no trunk on panels)
    # a rack-scale system (GB200 NVL72): its own rack height, and what stands in it besides the compute trays
    compute_rack_u: int | None = None
    compute_extras: tuple[tuple[str, str, int, int], ...] = ()  # (kind, part, count, U each)
    # the rest of a rack-scale rack (power shelves, NIC and management space, cable management): what the rack's
    # own management ToRs, cable managers and patch panels leave of ``max U``, never less than ``min U``
    compute_block: tuple[str, str, int, int] | None = None  # (kind, part, max U, min U)
    # power: a rack's devices must stay within its budget (the rack plan's, power/racks.py)
    rack_budget_kw: float = float("inf")
    node_w: float = 0.0
    storage_w: float = 0.0
    mgmt_w: float = 0.0
    switch_w: dict[str, float] = field(default_factory=dict)
    extra_w: dict[str, float] = field(default_factory=dict)  # compute-rack extras by kind (NVLink switch trays)

    def server_w(self, key: str) -> float:
        return {"node": self.node_w, "storage": self.storage_w}.get(key, self.mgmt_w)

    def server_u(self, key: str) -> int:
        return {
            "node": self.node_u,
            "storage": self.storage_u,
            "mgmt": self.mgmt_u,
            "ufm": self.ufm_u,
            "device": self.device_u,
        }[key]


@dataclass(frozen=True)
class Placement:
    """One device in a rack: ``u`` is its lowest rack unit (1 = bottom), 0 for a zero-U PDU."""

    device: str
    kind: str
    sku: str
    u: int
    height_u: int
    power_w: float = 0.0

    @property
    def top_u(self) -> int:
        return self.u + self.height_u - 1


@dataclass
class Rack:
    position: tuple[int, int]
    rack_u: int
    placements: list[Placement] = field(default_factory=list)
    kind: str = "infrastructure"
    budget_kw: float = float("inf")

    @property
    def power_kw(self) -> float:
        return sum(p.power_w for p in self.placements) / 1000

    @property
    def over_budget(self) -> bool:
        return self.power_kw > self.budget_kw + 1e-9

    @property
    def name(self) -> str:
        return rack_name(self.position)

    @property
    def used_u(self) -> int:
        return sum(p.height_u for p in self.placements)

    @property
    def overflow_u(self) -> int:
        return max(0, self.used_u - self.rack_u)

    def signature(self) -> tuple:
        """What makes two racks look alike in an elevation: each device's kind, part, U and height."""
        return (self.kind, *((p.kind, p.sku, p.u, p.height_u) for p in self.placements))


@dataclass(frozen=True)
class Elevations:
    racks: tuple[Rack, ...]
    position_of: dict[str, tuple[str, str, int]]  # device → (row name, rack name, lowest U)

    @property
    def overflows(self) -> list[Rack]:
        return [r for r in self.racks if r.overflow_u]

    def rack_types(self) -> list[tuple[Rack, list[Rack]]]:
        """Racks grouped by look: (an example, every rack of that look), most common first."""
        groups: dict[tuple, list[Rack]] = {}
        for rack in self.racks:
            groups.setdefault(rack.signature(), []).append(rack)
        return sorted(((g[0], g) for g in groups.values()), key=lambda item: (-len(item[1]), item[0].name))

    def checks(self) -> list[dict[str, Any]]:
        return self._unit_checks() + self._power_checks()

    def _power_checks(self) -> list[dict[str, Any]]:
        hot = sorted((r for r in self.racks if r.over_budget), key=lambda r: -r.power_kw)
        if not hot:
            return []
        listed = ", ".join(f"{r.name} draws {r.power_kw:,.1f} kW" for r in hot[:5])
        return [
            {
                "ok": False,
                "field": "rack_budget_kw",
                "message": f"{len(hot)} rack(s) draw more than their {hot[0].budget_kw:g} kW budget: {listed} — "
                "raise the rack budget or put fewer devices in a rack",
            }
        ]

    def _unit_checks(self) -> list[dict[str, Any]]:
        if not self.overflows:
            return []
        worst = sorted(self.overflows, key=lambda r: -r.overflow_u)
        listed = ", ".join(f"{r.name} needs {r.used_u}U" for r in worst[:5])
        more = f" and {len(worst) - 5} more" if len(worst) > 5 else ""
        return [
            {
                "ok": False,
                "field": "rack_u",
                "message": f"{len(worst)} rack(s) hold more than {worst[0].rack_u}U: {listed}{more} (devices, 1U "
                "cable manager per switch and the patch panels of the trunks landing there) — use taller racks, "
                "fewer nodes or switches per rack, or fewer trunks per rack",
            }
        ]


def elevations(links: Sequence[Link], optical_trunk: Sequence[bool], heights: Heights) -> Elevations:
    """Place every device the links name; ``optical_trunk[i]``: link i lands on patch panels at both ends."""
    devices: dict[tuple[int, int], dict[str, str]] = {}  # rack → device → role
    trunk_ends: dict[tuple[int, int], int] = {}
    for link, trunk in zip(links, optical_trunk, strict=True):
        for device, role, rack in (
            (link.a_device, link.a_role, link.a_rack),
            (link.z_device, link.z_role, link.z_rack),
        ):
            if role != "bmc":
                devices.setdefault(rack, {}).setdefault(device, role)
            if trunk:
                trunk_ends[rack] = trunk_ends.get(rack, 0) + 1
    racks = [
        _fill(rack, members, trunk_ends.get(rack, 0), heights)
        for rack, members in sorted(devices.items(), key=lambda item: item[0])
    ]
    position_of = {
        p.device: (row_name(rack.position[0]), rack.name, p.u) for rack in racks for p in rack.placements if p.u
    }
    return Elevations(tuple(racks), position_of)


def _fill(position: tuple[int, int], members: dict[str, str], trunk_ends: int, h: Heights) -> Rack:
    servers, switches = [], []
    for device, role in sorted(members.items()):
        if role in SWITCH_ROLES:
            switches.append((device, role))
        else:
            servers.append(device)
    compute = any(d.startswith("cn") for d in servers)
    rack = Rack(position, (h.compute_rack_u or h.rack_u) if compute else h.rack_u)
    rack.kind = "compute" if compute else ("network" if not servers else "server")
    rack.budget_kw = h.rack_budget_kw
    watts = {device: h.server_w(SERVER_KINDS.get(device.rstrip("0123456789"), ("", "mgmt"))[1]) for device in servers}
    watts.update({device: h.switch_w.get(role, 0.0) for device, role in switches})
    bottom = [_server(device, h) for device in servers]
    if compute:
        bottom += [
            (kind, f"{rack.name}-{slug}{i + 1:02d}", sku, u)
            for kind, sku, count, u in h.compute_extras
            for slug in ["".join(w[0] for w in kind.split())]
            for i in range(count)
        ]
    top = [("patch panel", f"{rack.name}-pp{i + 1:02d}", h.panel_sku, 1) for i in range(panels_for(trunk_ends))]
    for device, role in switches:
        top.append(("switch", device, h.switch_sku[role], h.switch_u[role]))
        if not h.point_to_point:
            top.append(("cable manager", f"{device}-cm", h.manager_sku, 1))
    if compute and h.compute_block is not None:
        kind, sku, most, least = h.compute_block
        bottom.append((kind, f"{rack.name}-infra", sku, max(least, most - sum(t[3] for t in top))))
    u = 1
    for kind, device, sku, height in bottom:
        rack.placements.append(Placement(device, kind, sku, u, height, watts.get(device, h.extra_w.get(kind, 0.0))))
        u += height
    fits = u - 1 + sum(t[3] for t in top) <= rack.rack_u
    upper = []
    top_u = rack.rack_u
    for kind, device, sku, height in top:
        if fits:
            upper.append(Placement(device, kind, sku, top_u - height + 1, height, watts.get(device, 0.0)))
            top_u -= height
        else:  # numbered on upward past the top, so the shortfall shows in the drawing and the cut sheet
            upper.append(Placement(device, kind, sku, u, height, watts.get(device, 0.0)))
            u += height
    rack.placements.extend(sorted(upper, key=lambda p: p.u))
    pdus = h.compute_pdus if rack.kind == "compute" else h.other_pdus
    rack.placements.extend(
        Placement(f"{rack.name}-pdu{'AB'[i % 2]}{i // 2 + 1}", "PDU", h.pdu_sku, 0, 0) for i in range(pdus)
    )
    return rack


def _server(device: str, h: Heights) -> tuple[str, str, str, int]:
    prefix = device.rstrip("0123456789")
    kind, key = SERVER_KINDS.get(prefix, ("server", "mgmt"))
    sku = h.node_model if key == "node" else kind
    return kind, device, sku, h.server_u(key)


def elevation_rows(elev: Elevations) -> Iterable[list[Any]]:
    """Every rack with its contents, top U first: the Racks sheet and its csv."""
    for rack in elev.racks:
        for p in sorted(rack.placements, key=lambda p: (-p.u, p.device)):
            yield [
                row_name(rack.position[0]),
                rack.name,
                rack.kind,
                p.u or "0U (rear)",
                p.height_u,
                p.device,
                p.kind,
                p.sku,
            ]


def racks_csv(elev: Elevations) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["row", "rack", "rack_kind", "u", "height_u", "device", "kind", "part_number"])
    for row in elevation_rows(elev):
        w.writerow([safe_text(v) for v in row])
    return buf.getvalue()
