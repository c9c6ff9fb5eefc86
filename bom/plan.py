"""The network BOM of a design: which switches, NICs and cables each plane needs (pure: no Django).

Chains the planes' plans into :func:`bom.build.build_bom`: switches per plane and tier, NICs
per node and storage server, and the links of all three planes — as per-link records
(``cables=True``, for the cut sheet and exports) or as counts by link class (the live path).
Both give the same quantities (tests/bom/test_link_table.py).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from types import SimpleNamespace

import numpy as np
import orjson

from bom.accessories import accessory, infrastructure_lines
from bom.build import (
    Bom,
    BomPolicy,
    Roles,
    build_bom,
    find_nic,
    find_switch,
    link_classes,
    link_parts,
    part_chooser,
    placeholder,
    unique_codes,
)
from bom.catalog import DEFAULT_PARTS, DEFAULT_PRICE_BOOK
from bom.elevation import SWITCH_ROLES, Elevations, Heights, elevations
from bom.export import cabling_rows
from bom.layout import (
    RackLayout,
    bare_switches_per_rack,
    hall_layout,
    hall_map,
    panels_for,
    reach_checks,
    switches_per_rack,
)
from bom.links import (
    ClusterShape,
    all_links,
    compute_leaf_positions,
    leaves_per_row,
    storage_leaf_positions,
    tor_positions,
)
from bom.media import NIC_CAGES, PartChooser
from bom.parts import PartKind, PartSpec
from power.plan import RackFigures
from power.rack_systems import rack_scale_system
from power.racks import RackPlan, RackRequest, plan_racks
from topology import FabricPlan, Topology
from topology.management_plane import ManagementPlan
from topology.storage_plane import StoragePlan
from topology.switches import SWITCH_MODELS


@dataclass(frozen=True)
class RolesRequest:
    """What picks the part of each role (bom.build.Roles): a named model, else a radix and port speed."""

    compute_switch_model: str  # "": by radix and port speed
    compute_switch_radix: int
    compute_switch_port_gbps: float
    compute_spine_switch_model: str  # "": the leaf's part
    compute_core_switch_model: str
    compute_nic_gbps: float | None  # None: no compute NIC (a 3D torus: the chips link directly)
    compute_nic_cage: str  # bom/media.py NIC_CAGES
    storage_switch_radix: int
    storage_switch_port_gbps: float
    storage_nic_gbps: float
    storage_node_nic_gbps: float
    mgmt_tor_ports: int
    mgmt_tor_port_gbps: float
    mgmt_spine_ports: int
    mgmt_spine_port_gbps: float
    mgmt_tor_uplinks: int = 0  # a management ToR's uplinks to the spines, at the spine's port speed


@dataclass(frozen=True)
class BomRequest:
    """Everything the network BOM, the cut sheet and the elevations read besides the planes and the catalog;
    built from the typed requirements in cluster/requests.py (bom_request)."""

    roles: RolesRequest
    policy: BomPolicy
    shape: ClusterShape  # counts of nodes, NICs, servers and fabric-attached devices; each compute tier's role
    layout: RackLayout  # the floor plan before the switches fill its network racks (floor_plan)
    racks: RackFigures  # the rack plan before the floor plan's network racks (power.plan.rack_plan)
    gpu_model: str
    node_price_includes_nics: bool
    pdu_kw: float
    node_w: float
    storage_node_w: float
    mgmt_node_w: float


@dataclass(frozen=True)
class Catalog:
    """Parts priced from one price book, and where the prices come from."""

    parts: tuple[PartSpec, ...]
    price_book: dict

    @classmethod
    def built_in(cls) -> Catalog:
        return cls(tuple(DEFAULT_PARTS), {**DEFAULT_PRICE_BOOK, "id": None, "built_in": True})


class Recent:
    """The last few results of a pure function, keyed by the exact text of its inputs (the repr of frozen
    dataclasses of ints, floats, strings, tuples, dicts and enums, each of which reprs exactly) and the identity of
    the catalog (kept alive beside the result, so its id is never another's). A design search plans many candidates
    that share sub-results (the same fabric under two media policies has one floor plan and one link table) and the
    live form re-plans on every keystroke, most of which change neither: the second asks nothing twice. An input
    whose repr is not exact (an object's address, an elided numpy array) is never cached. ``cost`` bounds the
    memory: entries are dropped oldest first past ``budget`` (rows of a link table; 1 a floor plan) — all but the
    newest, which stays even past it (a design at the request limit keeps its one table, as its next keystroke
    asks for it)."""

    def __init__(self, entries: int, budget: int) -> None:
        self.entries, self.budget = entries, budget
        self.items: OrderedDict[str, tuple[object, object, int]] = OrderedDict()
        self.hits = self.misses = 0

    @staticmethod
    def key(*inputs: object) -> str | None:
        text = "\x1f".join(repr(x) for x in inputs)
        return None if " at 0x" in text or "..." in text else text

    def get(self, key: str | None, catalog: object) -> object | None:
        found = self.items.get(key) if key is not None else None
        if found is None or found[0] is not catalog:
            self.misses += 1
            return None
        self.items.move_to_end(key)
        self.hits += 1
        return found[1]

    def put(self, key: str | None, catalog: object, value: object, cost: int = 1) -> None:
        if key is None:
            return
        self.items[key] = (catalog, value, cost)
        self.items.move_to_end(key)
        while len(self.items) > 1 and (
            len(self.items) > self.entries or sum(c for _, _, c in self.items.values()) > self.budget
        ):
            self.items.popitem(last=False)

    def clear(self) -> None:
        self.items.clear()


FLOORS = Recent(entries=32, budget=32)  # a floor plan: a few kB
# a link table: ≈ 110 B a row, ≈ 30 MB with its groupings at 100k GPUs (≈ 180k rows of runs). 300k rows: one such
# table (the live form's last, which a keystroke that changes a price counts again; a search at 100k builds a
# candidate's table afresh unless the one before had its fabric: 17–19 candidates/s either way), dozens at 16k. Each
# table kept is memory a process first has to fault in: a live form's process grew ≈ 40 MB a call over its first
# calls at 100k — to 425 MB at 800k rows, 286 MB at 300k — and those calls ran ≈ 10 ms slower (benchmarks/live.py).
# A larger table (≈ 460k rows at the request limit, 262,144 GPUs) is kept alone; a twin-port-NIC design at 100k (its
# table of runs and its table of a row a link, 480k rows) keeps the newer one
TABLES = Recent(entries=16, budget=300_000)
ROLES = Recent(entries=64, budget=64)
BOMS = Recent(entries=16, budget=16)  # a counted BOM: its lines and checks, a few tens of kB
_CATALOGS: OrderedDict[int, list[tuple[str, Catalog]]] = OrderedDict()  # hash of the parts → (exact text, catalog)


def same_catalog(catalog: Catalog) -> Catalog:
    """The catalog seen before whose parts and price book have the same exact text (repr), else this one: the live
    form reads its catalog from the price book on every request (designer.services.current_catalog), a new object
    each time, and the memos above know a catalog by its identity. At most 4 kept."""
    for h, seen in _CATALOGS.items():
        if any(found is catalog for _, found in seen):  # this very object (a search's, every candidate): no repr
            _CATALOGS.move_to_end(h)
            return catalog
    h = hash(catalog.parts)
    text = repr(catalog.parts) + "\x1f" + repr(catalog.price_book)
    for seen, found in _CATALOGS.get(h, ()):
        if seen == text:
            _CATALOGS.move_to_end(h)
            return found
    _CATALOGS.setdefault(h, []).append((text, catalog))
    _CATALOGS.move_to_end(h)
    while len(_CATALOGS) > 4:
        _CATALOGS.popitem(last=False)
    return catalog


def bom_roles(req: RolesRequest, catalog: Sequence[PartSpec]) -> Roles:
    """The part of each role (bom.build.find_switch / find_nic: a pass over the catalog each), remembered by the
    request and the catalog (a Roles holds frozen parts only)."""
    key = Recent.key(req) if isinstance(catalog, tuple) else None
    found = ROLES.get(key, catalog)
    if found is None:
        found = _bom_roles(req, catalog)
        ROLES.put(key, catalog, found)
    return found


def _bom_roles(req: RolesRequest, catalog: Sequence[PartSpec]) -> Roles:
    return Roles(
        compute_switch=find_switch(
            catalog,
            name=req.compute_switch_model or "",
            radix=req.compute_switch_radix,
            port_gbps=float(req.compute_switch_port_gbps),
        ),
        storage_switch=find_switch(
            catalog, radix=req.storage_switch_radix, port_gbps=float(req.storage_switch_port_gbps)
        ),
        mgmt_tor=find_switch(
            catalog,
            radix=req.mgmt_tor_ports,
            port_gbps=float(req.mgmt_tor_port_gbps),
            uplinks=req.mgmt_tor_uplinks,
            uplink_gbps=float(req.mgmt_spine_port_gbps),
            role="mgmt_tor",
        ),
        mgmt_spine=find_switch(
            catalog, radix=req.mgmt_spine_ports, port_gbps=float(req.mgmt_spine_port_gbps), role="mgmt_spine"
        ),
        compute_nic=None
        if req.compute_nic_gbps is None
        else find_nic(catalog, float(req.compute_nic_gbps), NIC_CAGES[req.compute_nic_cage][0]),
        storage_nic=find_nic(catalog, float(req.storage_nic_gbps)),
        storage_node_nic=find_nic(catalog, float(req.storage_node_nic_gbps)),
        compute_spine_switch=_tier_switch(catalog, req.compute_spine_switch_model),
        compute_core_switch=_tier_switch(catalog, req.compute_core_switch_model),
    )


def _tier_switch(catalog: Sequence[PartSpec], name: str) -> PartSpec | None:
    if not name:
        return None
    model = SWITCH_MODELS[name]
    return find_switch(catalog, name=name, radix=model.radix, port_gbps=model.port_gbps)


def switch_counts(
    plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, roles_of_tiers: tuple[str, ...] = ()
) -> list[tuple[str, str, str, int, str]]:
    """(plane, role, tier, count, derivation) for every switch tier of the three planes."""
    roles = dict(zip(("leaf", "spine", "core"), roles_of_tiers or ("compute_switch",) * 3, strict=True))
    out = [("compute", roles.get(t.name, "compute_switch"), t.name, t.switch_count, t.derivation) for t in plan.tiers]
    if storage.fabric is not None:
        out += [("storage", "storage_switch", t.name, t.switch_count, t.derivation) for t in storage.fabric.tiers]
    else:
        out.append(("storage", "storage_switch", "mesh", storage.switch_count, storage.derivations["switch_count"]))
    out += [
        ("management", "mgmt_tor", "ToR", mgmt.tor_count, mgmt.derivations["tor_count"]),
        ("management", "mgmt_spine", "spine", mgmt.spine_count, mgmt.derivations["spine_count"]),
    ]
    return out


def nic_counts(req: BomRequest, roles: Roles) -> dict[str, list[tuple[PartSpec, int, str]]]:
    s = req.shape
    nodes = s.node_count
    nics: dict[str, list[tuple[PartSpec, int, str]]] = {"compute": [], "storage": []}
    per = s.nics_per_node
    if roles.compute_nic is not None:
        why = f"{nodes:,} nodes × {per} NICs"
        if req.node_price_includes_nics:
            nic = replace(roles.compute_nic, unit_price_usd=Decimal("0"), price_source="included in the node price")
            why += ": included in the compute node price (tco.node_price_includes_nics), not bought again"
            nics["compute"].append((nic, nodes * per, why))
        else:
            nics["compute"].append((roles.compute_nic, nodes * per, why))
    nics["storage"].append(
        (
            roles.storage_nic,
            nodes * s.storage_nics_per_node,
            f"{nodes:,} compute nodes × {s.storage_nics_per_node} storage NICs",
        )
    )
    nics["storage"].append(
        (
            roles.storage_node_nic,
            s.storage_node_count * s.storage_node_nics,
            f"{s.storage_node_count} storage servers × {s.storage_node_nics} NICs",
        )
    )
    return nics


def tier_ports(req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan):
    """plane → [(tier, used ports, free ports)] for the growth-headroom check (access tiers)."""
    free_tor = mgmt.tor_count * req.roles.mgmt_tor_ports - mgmt.access_port_count
    s = req.shape
    ufm = s.ufm_server_count * s.ufm_ports_per_server + s.device_count * s.device_ports
    out = {
        "compute": [(t.name, t.ports_used_total + ufm, t.ports_free_total - ufm) for t in plan.tiers[:1]],
        "management": [("ToR", mgmt.access_port_count, free_tor)],
    }
    if storage.fabric is not None:
        out["storage"] = [(t.name, t.ports_used_total, t.ports_free_total) for t in storage.fabric.tiers[:1]]
    return out


def plane_links(
    req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, catalog: Catalog | None = None
):
    """Every cable of the three planes, one record each (for the cut sheet and exports)."""
    floor = floor_plan(req, plan, storage, mgmt, catalog or Catalog.built_in())
    return all_links(plan, storage, mgmt, req.shape, floor.layout)


@dataclass(frozen=True)
class Floor:
    """Where everything stands (bom/layout.py) and the racks that makes (power/racks.py): one plan for the cut
    sheet, the elevations, the BOM's racks and PDUs and the power figures."""

    layout: RackLayout
    racks: RackPlan
    derivations: dict[str, str]
    checks: tuple[dict, ...] = ()


def floor_plan(req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, catalog: Catalog):
    """Network racks filled by rack units (``switches_per_rack``; bare switches where the layout is point-to-point,
    bom.layout.su_row_racks), the leaves of each row in end-of-row racks, then the rack plan counted from that
    floor plan, and the hall it stands in. Remembered by its inputs (:class:`Recent`: the catalog by the parts it
    gives the roles, all this reads of it); each caller gets its own copy (the rack plan's derivations are a dict)."""
    roles = bom_roles(req.roles, catalog.parts)  # all it reads of the catalog: keyed by the parts themselves
    key = Recent.key(replace(req, policy=None), plan, storage, mgmt, roles)  # the media policy: not read here
    found = FLOORS.get(key, None)
    if found is None:
        floor = _floor_plan(req, plan, storage, mgmt, catalog)
        copy_of_hall = floor.racks.hall  # made now: this caller's own (the memo keeps only its text)
        # the hall kept as its JSON text only: a 100k-GPU hall's rows are ≈ 1,000 lists and dicts, which every full
        # collection of the garbage collector would otherwise scan again, 32 floors remembered. hall_map makes plain
        # JSON data (lists, dicts, strings, finite numbers), so the text gives a later caller the same hall (tested);
        # orjson writes it (≈ 0.05 ms at 100k GPUs, the standard library ≈ 0.6 ms)
        hall = orjson.dumps(copy_of_hall)
        FLOORS.put(key, None, found := (replace(floor, racks=replace(floor.racks, hall={})), hall))
    else:
        copy_of_hall = orjson.loads(found[1])  # each caller its own hall
    floor = found[0]
    racks = replace(floor.racks, derivations=dict(floor.racks.derivations), hall=copy_of_hall)
    return replace(floor, racks=racks, derivations=dict(floor.derivations), checks=copy.deepcopy(floor.checks))


def link_table(
    plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, shape, layout: RackLayout, *, merge: bool = True
):
    """bom.link_table.plane_link_table, remembered by its inputs (:class:`Recent`); its columns are read-only. A
    table of runs (``merge``) gives its table of a row a link through this memo too: both count against its budget."""
    from bom.link_table import plane_link_table

    key = Recent.key(plan, storage, mgmt, shape, layout, merge)
    found = TABLES.get(key, None)
    if found is None:
        one_a_link = (lambda: link_table(plan, storage, mgmt, shape, layout, merge=False)) if merge else None
        found = plane_link_table(plan, storage, mgmt, shape, layout, merge=merge, unmerged=one_a_link)
        for name in found.__dataclass_fields__:
            value = getattr(found, name)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        TABLES.put(key, None, found, cost=int(found.plane.size))
    return found


def _floor_plan(req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, catalog: Catalog):
    rack_u, roles = req.racks.rack_u, bom_roles(req.roles, catalog.parts)
    leaf, spine = _network_switches(req, plan, storage, mgmt, roles)
    (u, ports), (su, sports) = _worst(leaf), _worst(spine)
    if req.layout.point_to_point:
        heights = _spine_heights(req, plan, storage, mgmt, roles)
        per_leaf_rack, per_spine_rack = max(1, rack_u // u), bare_switches_per_rack(rack_u, heights)
        derivations = {
            "leaves_per_network_rack": f"bare switches, point-to-point fibre (no panels, no cable managers): "
            f"⌊{rack_u}U ÷ {u}U⌋ = {per_leaf_rack}",
            "switches_per_network_rack": f"bare, in spine-row order ({', '.join(_runs(heights))}): the largest k "
            f"whose every k switches fit {rack_u}U: {per_spine_rack}",
        }
    else:
        per_leaf_rack, per_spine_rack = switches_per_rack(rack_u, u, ports), switches_per_rack(rack_u, su, sports)
        derivations = {
            "leaves_per_network_rack": f"largest k with k × ({u}U switch + 1U cable manager) + ⌈k × {ports} trunk "
            f"ports ÷ 24⌉ panels ≤ {rack_u}U: {per_leaf_rack}",
            "switches_per_network_rack": f"largest k with k × ({su}U switch + 1U cable manager) + ⌈k × {sports} "
            f"trunk ports ÷ 24⌉ panels ≤ {rack_u}U: {per_spine_rack}",
        }
    layout = replace(req.layout, leaves_per_network_rack=per_leaf_rack, switches_per_network_rack=per_spine_rack)
    shape = req.shape
    compute_rows = compute_leaf_positions(plan, shape, layout)[1]
    storage_rows = storage_leaf_positions(storage, shape, layout, compute_rows)[1]
    tor_rows = tor_positions(mgmt, shape, layout, {})[0]
    per_row = leaves_per_row(np.concatenate([compute_rows, np.asarray(storage_rows, dtype=np.int64), tor_rows]))
    racks = _rack_plan(req, plan, storage, mgmt, layout, per_row)
    if layout.point_to_point:
        replan = lambda lay, rows: _rack_plan(req, plan, storage, mgmt, lay, rows)  # noqa: E731
        layout, per_row, racks, derivations["infra_switches"] = _infra_switches(
            req, layout, per_row, racks, leaf, replan
        )
    derivations["leaf_racks"] = (
        " + ".join(f"⌈{n} ÷ {per_leaf_rack}⌉" for _, n in sorted(per_row.items()))
        + f" = {racks.leaf_rack_count} end-of-row racks (compute and storage leaves and management ToRs of each "
        + _group_words(layout.rows_per_network_group)
        + ")"
    )
    checks = tuple(
        _too_tall(where, u, ports, rack_u)
        for where, (u, ports) in (("end-of-row", _worst(leaf)), ("spine-row", _worst(spine)))
        if u + (0 if layout.point_to_point else 1 + panels_for(ports)) > rack_u
    )
    layout, derivations["hall"] = _hall(layout, racks, per_row, per_leaf_rack, shape.node_count)
    racks.derivations["hall"] = derivations["hall"]
    racks.derivations["network_rack_fill"] = (
        f"a leaf rack holds {derivations['leaves_per_network_rack']}; a spine-row rack "
        f"{derivations['switches_per_network_rack']}; leaf racks {derivations['leaf_racks']}"
    )
    if "infra_switches" in derivations:
        racks.derivations["infra_switches"] = "the infrastructure row's switches: " + derivations["infra_switches"]
    network = {row: -(-n // per_leaf_rack) for row, n in per_row.items()}
    infra = racks.storage_rack_count + racks.mgmt_rack_count
    where = hall_map(layout, racks.compute_rack_count, infra, network, racks.spine_rack_count, derivations["hall"])
    return Floor(layout, replace(racks, hall=where), derivations, checks)


def _rack_plan(req: BomRequest, plan, storage, mgmt, layout: RackLayout, per_row: dict[int, int]) -> RackPlan:
    """power.plan.rack_plan's request, with the floor plan's network racks and the row groups that share them."""
    return plan_racks(
        RackRequest(
            **dataclasses.asdict(req.racks),
            upper_switch_count=upper_switch_count(plan, storage, mgmt),
            leaf_rack_count=sum(-(-n // layout.leaves_per_network_rack) for n in per_row.values()),
            switches_per_network_rack=layout.switches_per_network_rack,
            rows_per_network_group=layout.rows_per_network_group,
            management_in_storage_racks=layout.management_in_storage_racks,
        )
    )


def _spine_heights(req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, roles: Roles):
    """Rack units of every spine-row switch in its order there: compute spines and cores, storage spines,
    management spines (bom/links.py places them so)."""
    tier_roles = req.shape.compute_tier_roles
    out: list[int] = []
    if plan.topology != Topology.TORUS_3D:
        for t, tier in enumerate(plan.tiers[1:], start=1):
            out += [max(1, roles.switch(tier_roles[min(t, 2)]).rack_units)] * tier.switch_count
    if storage.fabric is not None:
        out += [max(1, roles.storage_switch.rack_units)] * sum(t.switch_count for t in storage.fabric.tiers[1:])
    return out + [max(1, roles.mgmt_spine.rack_units)] * mgmt.spine_count


def _runs(heights: list[int]) -> list[str]:
    """``[1, 1, 2]`` → ``["2 × 1U", "1 × 2U"]``: runs of equal heights, in order."""
    out: list[list[int]] = []
    for h in heights:
        if out and out[-1][1] == h:
            out[-1][0] += 1
        else:
            out.append([1, h])
    return [f"{n} × {h}U" for n, h in out]


def _infra_switches(req: BomRequest, layout: RackLayout, per_row: dict[int, int], racks: RackPlan, leaf, replan):
    """Point-to-point layouts (DGX SuperPOD RA Figure 3: the management rack holds networking switches beside the
    management servers, storage and UFM appliances): the infrastructure row's switches stand in its last rack
    when all its racks fit one row and that rack's free U and kW hold them; else they keep a network rack."""
    f, row = req.racks, layout.compute_rows(req.shape.node_count)
    n, infra = per_row.get(row, 0), racks.storage_rack_count + racks.mgmt_rack_count
    if not n or not infra or infra > layout.racks_per_row:
        return layout, per_row, racks, "none: no infrastructure-row switches to place" if not n else "own rack"
    if racks.mgmt_rack_count:
        m = f.mgmt_node_count - racks.mgmt_in_storage_rack - (racks.mgmt_rack_count - 1) * racks.mgmt_per_rack
        used_u, used_kw, what = m * f.mgmt_node_u, m * f.mgmt_node_kw, f"{m} servers × {f.mgmt_node_u}U"
    else:
        s = f.storage_node_count - (racks.storage_rack_count - 1) * racks.storage_per_rack
        m = racks.mgmt_in_storage_rack
        used_u = s * f.storage_node_u + m * f.mgmt_node_u
        used_kw = s * f.storage_node_kw + m * f.mgmt_node_kw
        what = f"{s} storage × {f.storage_node_u}U + {m} management × {f.mgmt_node_u}U"
    u, kw = _worst(leaf)[0], max((p.power_w for p, _ in leaf), default=0.0) / 1000
    fits = used_u + n * u <= f.rack_u and used_kw + n * kw <= f.rack_budget_kw + 1e-9
    why = (
        f"{what} = {used_u}U, {used_kw:,.1f} kW + {n} switches × ({u}U, {kw:,.2f} kW) = {used_u + n * u}U, "
        f"{used_kw + n * kw:,.1f} kW {'≤' if fits else '>'} {f.rack_u}U, {f.rack_budget_kw:g} kW"
    )
    if not fits:
        return layout, per_row, racks, f"own rack: the last infrastructure rack cannot hold them ({why})"
    layout = replace(layout, infra_row=row, infra_switch_col=infra - 1)
    per_row = {r: k for r, k in per_row.items() if r != row}
    return layout, per_row, replan(layout, per_row), f"in the last rack: {why}"


def _hall(layout: RackLayout, racks: RackPlan, per_row: dict[int, int], per_leaf_rack: int, node_count: int):
    """bom.layout.hall_layout for this floor: compute rows + infrastructure rows (storage and management racks,
    racks per row a row), each as wide as its racks and its end-of-row network racks."""
    infra = -(-(racks.storage_rack_count + racks.mgmt_rack_count) // layout.racks_per_row)
    rows = max(layout.compute_rows(node_count) + infra, max(per_row, default=-1) + 1)
    network = max((-(-n // per_leaf_rack) for n in per_row.values()), default=0)
    key = (layout, rows, layout.racks_per_row + network, racks.spine_rack_count)
    found = _HALLS.get(key)
    if found is None:  # (a frozen layout and a string: shared safely)
        found = _HALLS[key] = hall_layout(*key)
        while len(_HALLS) > 256:
            del _HALLS[next(iter(_HALLS))]
    return found


_HALLS: dict[tuple, tuple[RackLayout, str]] = {}  # bom.layout.hall_layout by its inputs (a search asks few halls)


def cable_reach_checks(links, layout: RackLayout) -> list[dict]:
    """bom.layout.reach_checks over the link classes (plane, segment) of a link table or of link records. The
    rows are those of the BOM's link classes (bom.build.link_classes: one a bought length, among others), their
    links summed — the checks read only sums, maxima and any/all, so they are the same from a few rows a class —
    and the rows that run between halls apart. Whether a row runs between halls is read only where it can
    matter: a run no longer than both limits passes either way."""
    from bom.link_table import LinkTable

    t = links if isinstance(links, LinkTable) else LinkTable.from_links(links)
    classes, inverse, weight = link_classes(t)  # the BOM's own grouping (remembered with the table): no pass of its own
    key, length = classes[:, 0] * len(t.segments) + classes[:, 1], classes[:, 5]
    between = np.zeros(weight.size, dtype=bool)
    limit = min(layout.max_run_m, layout.between_halls_max_run_m or layout.max_run_m)
    if (long := t.length_m > limit).any():
        at = np.flatnonzero(long)
        rows = at[_long_between_halls(t, at, layout)]  # the rows that run between halls
        k, w = inverse[rows], t.weight[rows]
        weight = np.concatenate([weight - np.bincount(k, weights=w, minlength=weight.size).astype(np.int64), w])
        key, length = np.concatenate([key, key[k]]), np.concatenate([length, length[k]])
        between = np.concatenate([between, np.ones(rows.size, dtype=bool)])
    keep = np.flatnonzero(weight > 0)  # a class all of whose links run between halls: none left within
    keep = keep[np.argsort(key[keep], kind="stable")]
    key, length, weight, between = key[keep], length[keep], weight[keep], between[keep]
    classes = []
    starts = [*np.flatnonzero(np.r_[True, key[1:] != key[:-1]]).tolist(), key.size] if key.size else []
    for lo, hi in itertools.pairwise(starts):  # the groups ascend by class
        plane, segment = divmod(int(key[lo]), len(t.segments))
        classes.append((t.planes[plane], t.segments[segment], length[lo:hi], weight[lo:hi], between[lo:hi]))
    return reach_checks(classes, layout.max_run_m, layout.between_halls_max_run_m)


def _rows(t, pick: np.ndarray):
    """The racks of the rows of link table ``t`` where ``pick`` (all that :func:`_between_halls` reads)."""
    return SimpleNamespace(plane=t.plane[pick], a_rack=t.a_rack[pick], z_rack=t.z_rack[pick])


def _long_between_halls(t, at: np.ndarray, layout: RackLayout) -> np.ndarray:
    """Whether each row ``at`` of link table ``t`` runs between halls. Where every switch stands in one rack (a table
    from the planes: LinkTable.one_rack_a_switch) and both ends of every such row are switches — the long runs of a
    floor are trunks — each switch's hall is worked out once and looked up by device; else row by row
    (:func:`_between_halls`)."""
    from bom.link_table import NO_DEVICE

    if not layout.hall_starts or not at.size:
        return np.zeros(at.size, dtype=bool)
    a, z = t.a_dev[at], t.z_dev[at]
    if not (t.one_rack_a_switch and (a != NO_DEVICE).all() and (z != NO_DEVICE).all()):
        return _between_halls(_rows(t, at), layout)
    rack = np.zeros(len(t.devices), dtype=np.int64)  # each switch's rack: the one value all its rows give
    rack[a], rack[z] = t.a_rack[at], t.z_rack[at]
    used = np.zeros(len(t.devices), dtype=bool)
    used[a] = used[z] = True
    ids = np.flatnonzero(used)
    hall = np.zeros(len(t.devices), dtype=np.int64)
    hall[ids] = _halls_of(rack[ids], layout)
    return hall[a] != hall[z]


def _between_halls(t, layout: RackLayout) -> np.ndarray:
    """Whether each row's ends stand in two halls (:func:`_halls_of` both ends' racks at once)."""
    if not layout.hall_starts or not t.plane.size:
        return np.zeros(t.plane.size, dtype=bool)
    halls = _halls_of(np.concatenate([t.a_rack, t.z_rack]), layout)
    return halls[: t.a_rack.size] != halls[t.a_rack.size :]


def _halls_of(rack_keys: np.ndarray, layout: RackLayout) -> np.ndarray:
    """The hall of each rack (bom.layout.rack_key), each distinct rack's once (racks coded densely by (row,
    column)), then looked up."""
    from bom.layout import per_rack, rack_of_key_arrays

    row, col = rack_of_key_arrays(rack_keys)
    r0, c0 = int(row.min()), int(col.min())
    width = int(col.max()) - c0 + 1
    racks, code = unique_codes((row - r0) * width + (col - c0))  # each rack's hall once
    (halls,) = per_rack(lambda r, c: (layout.hall_of(r, c),), racks // width + r0, racks % width + c0)
    return halls[code]


def _group_words(rows: int) -> str:
    if rows == 1:
        return "row"
    return f"{rows} adjacent rows, which share the network racks at the end of the first of them"


def _too_tall(where: str, switch_u: int, ports: int, rack_u: int) -> dict:
    need = switch_u + 1 + panels_for(ports)
    return {
        "ok": False,
        "field": "rack_u",
        "message": f"one {where} switch needs {need}U ({switch_u}U + 1U cable manager + ⌈{ports} trunk ports ÷ 24⌉ "
        f"patch panels) of a {rack_u}U rack: use taller racks or land its trunks on panels in a rack of their own",
    }


def _worst(switches: list[tuple[PartSpec, int]]) -> tuple[int, int]:
    """The most rack units and trunk ports among a rack's kinds of switch (a safe fill for them all)."""
    if not switches:
        return 1, 0
    return max(max(1, p.rack_units) for p, _ in switches), max(ports for _, ports in switches)


def _network_switches(req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, roles: Roles):
    """(part, trunk ports) of the switches of end-of-row racks (leaves) and of the spine row."""
    tier_roles = req.shape.compute_tier_roles
    leaf: list[tuple[PartSpec, int]] = []
    spine: list[tuple[PartSpec, int]] = []
    if plan.topology != Topology.TORUS_3D and plan.tiers:
        leaf.append((roles.switch(tier_roles[0]), plan.tiers[0].up_ports_per_switch if len(plan.tiers) > 1 else 0))
        spine += [
            (roles.switch(tier_roles[min(t, 2)]), tier.down_ports_per_switch + tier.up_ports_per_switch)
            for t, tier in enumerate(plan.tiers)
            if t > 0
        ]
    if storage.fabric is not None:
        tiers = storage.fabric.tiers
        leaf.append((roles.storage_switch, tiers[0].up_ports_per_switch if len(tiers) > 1 else 0))
        spine += [(roles.storage_switch, t.down_ports_per_switch + t.up_ports_per_switch) for t in tiers[1:]]
    elif storage.switch_count:
        leaf.append((roles.storage_switch, (storage.switch_count - 1) * storage.mesh_links_per_pair))
    if mgmt.tor_count:
        leaf.append((roles.mgmt_tor, -(-mgmt.tor_uplink_count // mgmt.tor_count)))
    if mgmt.spine_count:
        spine.append((roles.mgmt_spine, -(-mgmt.tor_uplink_count // mgmt.spine_count)))
    return leaf, spine


def fabric_manager_lines(shape: ClusterShape, catalog: Sequence[PartSpec]) -> list[tuple[str, str, PartSpec, int, str]]:
    """The UFM / subnet-manager servers the requirements ask for, as a line of their own."""
    if not shape.ufm_server_count:
        return []
    part = next((p for p in catalog if p.kind == PartKind.APPLIANCE), None) or placeholder(
        PartKind.APPLIANCE, "UFM-SERVER", "fabric-management server"
    )
    why = (
        f"{shape.ufm_server_count} fabric-management server(s) as asked, {shape.ufm_ports_per_server} compute-fabric "
        f"port(s) each in free leaf ports (their cables and modules are the fabric-manager lines)"
    )
    return [("compute", "fabric manager", part, shape.ufm_server_count, why)]


def nvlink_lines(
    gpu_model: str, catalog: Sequence[PartSpec], racks: RackPlan
) -> list[tuple[str, str, PartSpec, int, str]]:
    """A rack-scale system's NVLink plane: its switch trays and its spine, one domain per rack. They come with
    the rack (their price is in the compute trays'); listed so the rack's contents and power are auditable."""
    system = rack_scale_system(gpu_model)
    if system is None:
        return []
    by_sku = {p.sku: p for p in catalog}
    tray = by_sku.get("NVL5-SWITCH-TRAY") or placeholder(PartKind.SCALE_UP, "NVL5-SWITCH-TRAY", "NVLink switch tray")
    spine = by_sku.get("NVL72-NVLINK-SPINE") or placeholder(PartKind.SCALE_UP, "NVL72-NVLINK-SPINE", "NVLink spine")
    n = racks.compute_rack_count
    chips = system.switch_trays * system.switch_chips_per_tray
    return [
        (
            "nvlink",
            "NVLink switch tray",
            tray,
            n * system.switch_trays,
            f"{n:,} {system.name} racks (one NVLink domain of {system.domain_gpus} GPUs each) × "
            f"{system.switch_trays} switch trays = {n * system.switch_trays:,}; {chips} switch chips per rack, "
            f"one NVLink 5 link from every GPU to every chip",
        ),
        (
            "nvlink",
            "NVLink spine",
            spine,
            n,
            f"one per rack: {system.domain_gpus} GPUs × {system.nvlink_links_per_gpu} links = "
            f"{system.nvlink_link_count:,} copper GPU–switch links in the rack's cable cartridges",
        ),
    ]


def chooser_for(req: BomRequest, catalog: Catalog, roles: Roles | None = None) -> PartChooser:
    """The one chooser of cables and transceivers the BOM and the cut sheet share."""
    return part_chooser(catalog.parts, roles or bom_roles(req.roles, catalog.parts), req.policy)


def cut_sheet(req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, catalog: Catalog):
    """One row per cable of the three planes, with the parts the BOM buys for it and both ends' positions."""
    return floor_sheets(req, plan, storage, mgmt, catalog)[0]


def floor_sheets(
    req: BomRequest, plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, catalog: Catalog
) -> tuple[list[dict], Elevations]:
    """The positioned cut sheet and the rack elevations, from one list of links and one choice of parts."""
    floor = floor_plan(req, plan, storage, mgmt, catalog)
    links = list(all_links(plan, storage, mgmt, req.shape, floor.layout))
    parts = link_parts(links, chooser_for(req, catalog))  # the chooser's, with odd ports paired as the BOM does
    trunk = [
        p.optical and link.a_role in SWITCH_ROLES and link.z_role in SWITCH_ROLES and not floor.layout.point_to_point
        for link, p in zip(links, parts, strict=True)
    ]
    heights = replace(rack_heights(req, catalog, floor.racks), point_to_point=floor.layout.point_to_point)
    elev = elevations(links, trunk, heights)
    return cabling_rows(links, parts=parts, positions=elev.position_of), elev


def rack_heights(req: BomRequest, catalog: Catalog, racks: RackPlan) -> Heights:
    """Rack units of each kind of device, and each rack's PDUs, as the BOM buys them."""
    p, roles = req.racks, bom_roles(req.roles, catalog.parts)
    system = rack_scale_system(req.gpu_model)
    switch_roles = sorted(SWITCH_ROLES)
    per_feed = math.ceil(racks.compute_rack_kw / float(req.pdu_kw) - 1e-9) if racks.compute_rack_count else 1
    accessories = {prefix: accessory(catalog.parts, prefix, prefix).sku for prefix in ("PDU-", "PANEL-", "CM-")}
    return Heights(
        rack_u=p.rack_u,
        node_u=p.node_u,  # a rack-scale system's compute tray (cluster.requests.rack_figures)
        storage_u=p.storage_node_u,
        mgmt_u=p.mgmt_node_u,
        switch_u={role: max(1, roles.switch(role).rack_units) for role in switch_roles},
        switch_sku={role: roles.switch(role).sku for role in switch_roles},
        node_model=f"{req.gpu_model} node",
        compute_pdus=2 * per_feed,
        pdu_sku=accessories["PDU-"],
        panel_sku=accessories["PANEL-"],
        manager_sku=accessories["CM-"],
        compute_rack_u=system.rack_u if system is not None else None,
        compute_extras=(
            (("NVLink switch tray", f"{system.name} NVLink switch tray", system.switch_trays, system.switch_tray_u),)
            if system is not None
            else ()
        ),
        compute_block=(
            ("rack infrastructure", f"{system.name} power shelves and cable management", system.other_u, 8)
            if system is not None
            else None
        ),
        rack_budget_kw=float(p.rack_budget_kw),
        node_w=req.node_w,
        storage_w=float(req.storage_node_w),
        mgmt_w=float(req.mgmt_node_w),
        switch_w={role: roles.switch(role).power_w for role in switch_roles},
        extra_w={"NVLink switch tray": system.switch_tray_w} if system is not None else {},
    )


def network_bom(
    req: BomRequest,
    plan: FabricPlan,
    storage: StoragePlan,
    mgmt: ManagementPlan,
    catalog: Catalog,
    *,
    cables: bool = False,
    racks: RackPlan | None = None,
    floor: Floor | None = None,
) -> Bom:
    """The priced BOM of the three planes and their racks. ``cables``: count from per-link records instead
    of link classes; ``racks``: the design's rack plan (planned here when not given). Counted by link class, it is
    remembered by its inputs (:data:`BOMS`: a keystroke of the live form that changes no network figure, or a
    search's candidates that differ in cooling or power only, count nothing again); each caller gets its own
    checks."""
    floor = floor or floor_plan(req, plan, storage, mgmt, catalog)
    racks = racks or floor.racks
    if cables:
        return _network_bom(req, plan, storage, mgmt, catalog, cables=True, racks=racks, floor=floor)
    # the rack plan less its hall (where each row stands, for the drawing: ≈ 40 kB of text at 100k GPUs, 0.7 ms of
    # repr a keystroke), which no line of the BOM reads (tests/bom/test_bom_memo_key.py)
    key = Recent.key(req, plan, storage, mgmt, replace(racks, hall={}), floor.layout, floor.checks)
    found = BOMS.get(key, catalog)
    if found is None:
        found = _network_bom(req, plan, storage, mgmt, catalog, cables=False, racks=racks, floor=floor)
        BOMS.put(key, catalog, found)
    return replace(found, checks=copy.deepcopy(found.checks), media_counts=dict(found.media_counts))


def _network_bom(
    req: BomRequest,
    plan: FabricPlan,
    storage: StoragePlan,
    mgmt: ManagementPlan,
    catalog: Catalog,
    *,
    cables: bool,
    racks: RackPlan,
    floor: Floor,
) -> Bom:
    roles = bom_roles(req.roles, catalog.parts)
    if cables:
        links = list(plane_links(req, plan, storage, mgmt, catalog))
    else:
        links = link_table(plan, storage, mgmt, req.shape, floor.layout)
    bom = build_bom(
        switches=switch_counts(plan, storage, mgmt, req.shape.compute_tier_roles),
        nic_counts=nic_counts(req, roles),
        links=links,
        roles=roles,
        chooser=chooser_for(req, catalog, roles),
        policy=req.policy,
        tier_ports=tier_ports(req, plan, storage, mgmt),
        appliances=nvlink_lines(req.gpu_model, catalog.parts, racks) + fabric_manager_lines(req.shape, catalog.parts),
        accessories=lambda trunks, trunk_ends: infrastructure_lines(
            racks,
            switch_count=plan.switch_count + storage.switch_count + mgmt.tor_count + mgmt.spine_count,
            trunk_count=trunks,
            trunk_ends_per_rack=trunk_ends,
            pdu_kw=float(req.pdu_kw),
            rack_u=req.racks.rack_u,
            catalog=catalog.parts,
            system=rack_scale_system(req.gpu_model),  # an NVL72's own 48U rack, power shelves and PDUs
            point_to_point=floor.layout.point_to_point,
        ),
    )
    checks = floor.checks + tuple(cable_reach_checks(links, floor.layout))
    return replace(bom, checks=bom.checks + checks) if checks else bom


def upper_switch_count(plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan) -> int:
    """Spines, cores, storage spines and management spines: the switches of the spine row."""
    upper = sum(t.switch_count for t in plan.tiers[1:]) + mgmt.spine_count
    if storage.fabric is not None:
        upper += sum(t.switch_count for t in storage.fabric.tiers[1:])
    return upper
