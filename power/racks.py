"""Racks: nodes per rack from the power budget and rack units; rack count, rows, kW per rack.

Seed chapter §14.8 (seed-figures.md D14): 4 × DGX H100 (the chapter budgets 6U and 10 kW
each) per 42U rack → ≈40 kW per compute rack; 250 nodes → 63 compute racks; with the
infrastructure racks, 75 in all. Infrastructure racks here, each listed by role (``RackPlan.by_role``):
network racks of leaves (compute and storage leaves, management ToRs), shared by each pair of
adjacent rows (bom/layout.py ``rows_per_network_group``); racks of spine/core switches; storage
servers; management, login and fabric-management servers, which first fill the room the last
storage rack leaves (NVIDIA DGX SuperPOD H100 RA-11333-001, Figure 3: one management rack holds
the management servers, storage arrays and UFM appliances).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from power import PowerInputError


@dataclass(frozen=True)
class RackRequest:
    """Every figure comes from the requirements (power/plan.py): no policy defaults here."""

    node_count: int
    node_kw: float
    node_u: int
    rack_budget_kw: float
    rack_u: int
    racks_per_row: int
    upper_switch_count: int  # spine/core switches of all planes, network row
    switches_per_network_rack: int
    storage_node_count: int
    storage_node_kw: float
    storage_node_u: int
    mgmt_node_count: int
    mgmt_node_kw: float
    mgmt_node_u: int
    # a rack-scale NVLink system: a fixed number of compute trays per rack, plus its NVLink switch trays
    trays_per_rack: int | None = None
    rack_fixed_w: float = 0.0
    rack_fixed_u: int = 0
    system_name: str = ""
    # the floor plan's network racks (bom/plan.py floor_plan): end-of-row leaf racks, and switches a
    # spine-row rack holds by rack units; None: one leaf rack per row (a plan without a fabric, or a test)
    leaf_rack_count: int | None = None
    # rows whose leaves share one group of network racks (bom/layout.py RackLayout.rows_per_network_group)
    rows_per_network_group: int = 1
    # management servers fill the last storage rack's free room first (the floor plan's rule, RackLayout); False:
    # racks of their own, as the seed chapter counts them
    management_in_storage_racks: bool = False

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}
        for name in ("node_kw", "rack_budget_kw", "storage_node_kw", "mgmt_node_kw"):
            if not getattr(self, name) > 0:
                errors[name] = f"must be positive, got {getattr(self, name)}"
        for name in (
            "node_count",
            "node_u",
            "rack_u",
            "racks_per_row",
            "switches_per_network_rack",
            "storage_node_u",
            "mgmt_node_u",
            "rows_per_network_group",
        ):
            if getattr(self, name) < 1:
                errors[name] = f"must be at least 1, got {getattr(self, name)}"
        if not errors and self.trays_per_rack:
            self._check_rack_scale(errors)
        elif not errors:
            if self.rack_budget_kw < self.node_kw:
                errors["rack_budget_kw"] = (
                    f"a {self.rack_budget_kw:g} kW rack budget cannot hold even one {self.node_kw:g} kW node; "
                    f"raise it to at least {self.node_kw:g} kW"
                )
            if self.rack_u < self.node_u:
                errors["rack_u"] = f"a {self.rack_u}U rack cannot hold a {self.node_u}U node"
        if errors:
            raise PowerInputError(errors)

    def _check_rack_scale(self, errors: dict[str, str]) -> None:
        rack_kw = self.trays_per_rack * self.node_kw + self.rack_fixed_w / 1000
        if self.rack_budget_kw < rack_kw - 1e-9:
            errors["rack_budget_kw"] = (
                f"a {self.system_name} rack draws {rack_kw:,.1f} kW ({self.trays_per_rack} compute trays × "
                f"{self.node_kw:g} kW + {self.rack_fixed_w / 1000:g} kW of NVLink switch trays) and cannot be split; "
                f"raise the rack budget to at least {rack_kw:,.1f} kW (direct-to-chip liquid cooling holds 140 kW)"
            )


@dataclass(frozen=True)
class RackPlan:
    nodes_per_rack: int
    compute_rack_count: int
    compute_row_count: int
    compute_rack_kw: float
    network_rack_count: int
    storage_rack_count: int
    mgmt_rack_count: int
    storage_per_rack: int
    mgmt_per_rack: int
    derivations: dict[str, str] = field(default_factory=dict)
    leaf_rack_count: int = 0  # network racks of leaves and ToRs (part of network_rack_count)
    mgmt_in_storage_rack: int = 0  # management servers standing in the last storage rack's free room
    hall: dict = field(default_factory=dict)  # where every row stands (bom/layout.py hall_map), for the drawing

    @property
    def spine_rack_count(self) -> int:
        return self.network_rack_count - self.leaf_rack_count

    def by_role(self) -> list[tuple[str, int]]:
        """Every rack by role, in floor order: (role, count); the counts add up to ``rack_count``."""
        storage = "storage and management" if self.mgmt_in_storage_rack else "storage"
        return [
            ("compute", self.compute_rack_count),
            ("network: leaves and ToRs", self.leaf_rack_count),
            ("network: spine and core", self.spine_rack_count),
            (storage, self.storage_rack_count),
            ("management", self.mgmt_rack_count),
        ]

    @property
    def infra_rack_count(self) -> int:
        return self.network_rack_count + self.storage_rack_count + self.mgmt_rack_count

    @property
    def rack_count(self) -> int:
        return self.compute_rack_count + self.infra_rack_count

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes_per_rack": self.nodes_per_rack,
            "compute_rack_count": self.compute_rack_count,
            "compute_row_count": self.compute_row_count,
            "compute_rack_kw": round(self.compute_rack_kw, 3),
            "network_rack_count": self.network_rack_count,
            "storage_rack_count": self.storage_rack_count,
            "mgmt_rack_count": self.mgmt_rack_count,
            "infra_rack_count": self.infra_rack_count,
            "rack_count": self.rack_count,
            "racks_by_role": [{"role": role, "count": n} for role, n in self.by_role() if n],
            "derivations": dict(self.derivations),
            **({"hall": self.hall} if self.hall else {}),
        }


def whole_fit(budget_kw: float, each_kw: float) -> int:
    """How many loads of ``each_kw`` a ``budget_kw`` holds: ⌊budget ÷ each⌋, an exact multiple counted whole
    although binary floating point misses it (12.6 kW ÷ 4.2 kW holds 3; ``12.6 // 4.2`` gives 2.0)."""
    return math.floor(budget_kw / each_kw + 1e-9)


def servers_per_rack(kw: float, u: int, budget_kw: float, rack_u: int) -> int:
    """Storage or management servers an infrastructure rack holds: min(⌊budget ÷ kW⌋, ⌊rack U ÷ U⌋), at least 1
    — the figure the rack count and the floor plan both use. A server drawing 0 W is bounded by U alone."""
    by_units = rack_u // u
    by_power = whole_fit(budget_kw, kw) if kw > 0 else by_units
    return max(1, min(by_power, by_units))


def _racks_for(count: int, kw: float, u: int, budget_kw: float, rack_u: int) -> tuple[int, int]:
    per_rack = servers_per_rack(kw, u, budget_kw, rack_u)
    return per_rack, math.ceil(count / per_rack) if count else 0


def room_after(count: int, per_rack: int, other_per_rack: int) -> int:
    """How many servers of another kind (``other_per_rack`` to a rack of their own) fit in the room the last rack
    of ``count`` servers (``per_rack`` to a rack) leaves: ⌊(1 − in last ÷ per rack) × other per rack⌋, 0 when
    there is no such rack or it is full. Never too many: both per-rack figures are min(⌊U ÷ U each⌋, ⌊kW ÷ kW
    each⌋), so the last rack's share of either is at least its share of the rack's U and of its kW."""
    in_last = count - (math.ceil(count / per_rack) - 1) * per_rack if count else 0
    if not in_last or in_last == per_rack:
        return 0
    return (per_rack - in_last) * other_per_rack // per_rack


def nodes_per_rack(node_kw: float, node_u: int, rack_budget_kw: float, rack_u: int) -> int:
    """Compute nodes a rack holds: min(⌊budget ÷ node kW⌋, ⌊rack U ÷ node U⌋) — the one figure the
    rack count, the floor plan's cable lengths and the PDUs all use. Compute racks hold nodes and PDUs only:
    every switch, management ToRs included, stands in a network rack (bom/layout.py)."""
    return min(whole_fit(rack_budget_kw, node_kw), rack_u // node_u)


def _server_racks(req: RackRequest) -> tuple[int, int, int, int, int, dict[str, str]]:
    """(storage per rack, storage racks, management per rack, management racks, management servers in the last
    storage rack, derivations): management servers fill the last storage rack's free room first (room_after)."""
    s_per, storage = _racks_for(
        req.storage_node_count, req.storage_node_kw, req.storage_node_u, req.rack_budget_kw, req.rack_u
    )
    m_per = servers_per_rack(req.mgmt_node_kw, req.mgmt_node_u, req.rack_budget_kw, req.rack_u)
    room = room_after(req.storage_node_count, s_per, m_per) if req.management_in_storage_racks else 0
    shared = min(req.mgmt_node_count, room)
    rest = req.mgmt_node_count - shared
    mgmt = math.ceil(rest / m_per) if rest else 0
    d = {"storage_rack_count": (f"⌈{req.storage_node_count} ÷ {s_per} per rack⌉ = {storage}" if storage else "none")}
    if shared:
        in_last = req.storage_node_count - (storage - 1) * s_per
        d["storage_rack_count"] += (
            f"; its last rack, {in_last} of {s_per}, leaves room for ⌊(1 − {in_last} ÷ {s_per}) × {m_per}⌋ = "
            f"{room} management servers: {shared} stand there"
        )
    d["mgmt_rack_count"] = f"⌈{rest} ÷ {m_per} per rack⌉ = {mgmt}" if mgmt else "none"
    if shared and not mgmt:
        d["mgmt_rack_count"] = f"none: all {shared} in the last storage rack"
    elif shared:
        d["mgmt_rack_count"] = f"{req.mgmt_node_count} − {shared} in the last storage rack = " + d["mgmt_rack_count"]
    return s_per, storage, m_per, mgmt, shared, d


def _network_derivation(req: RackRequest, leaf_racks: int, spine_racks: int) -> str:
    if req.leaf_rack_count is None:
        how = " (one per row)"
    else:
        group = "each row" if req.rows_per_network_group == 1 else f"each {req.rows_per_network_group} adjacent rows"
        how = f" (the floor plan: the leaves and ToRs of {group} share network racks, filled by rack units)"
    return (
        f"{leaf_racks} end-of-row leaf racks{how} + ⌈{req.upper_switch_count} spine/core switches ÷ "
        f"{req.switches_per_network_rack} a rack⌉ = {spine_racks} → {leaf_racks + spine_racks}"
    )


def plan_racks(req: RackRequest) -> RackPlan:
    by_power = whole_fit(req.rack_budget_kw, req.node_kw)
    by_u = req.rack_u // req.node_u
    per_rack = req.trays_per_rack or nodes_per_rack(req.node_kw, req.node_u, req.rack_budget_kw, req.rack_u)
    racks = math.ceil(req.node_count / per_rack)
    rows = math.ceil(racks / req.racks_per_row)
    in_full = min(per_rack, req.node_count)
    spine_racks = math.ceil(req.upper_switch_count / req.switches_per_network_rack)
    leaf_racks = rows if req.leaf_rack_count is None else req.leaf_rack_count
    network = leaf_racks + spine_racks
    s_per, storage, m_per, mgmt, shared, server_d = _server_racks(req)
    limit = "power" if by_power <= by_u else "rack units"
    d = {
        "nodes_per_rack": (
            f"min(⌊{req.rack_budget_kw:g} kW ÷ {req.node_kw:g} kW⌋ = {by_power}, ⌊{req.rack_u}U ÷ {req.node_u}U⌋ = "
            f"{by_u}) = {per_rack} — limited by {limit}; {per_rack * req.node_u}U used"
        ),
        "compute_rack_count": f"⌈{req.node_count:,} ÷ {per_rack}⌉ = {racks:,} compute racks in {rows} rows of "
        f"up to {req.racks_per_row}",
        "compute_rack_kw": f"{in_full} × {req.node_kw:g} kW = {in_full * req.node_kw:,.1f} kW per full compute rack",
        "network_rack_count": _network_derivation(req, leaf_racks, spine_racks),
        **server_d,
        "rack_count": (
            f"{racks:,} compute + {network + storage + mgmt} infrastructure = {racks + network + storage + mgmt:,}"
        ),
    }
    rack_kw = in_full * req.node_kw + (req.rack_fixed_w / 1000 if req.trays_per_rack else 0.0)
    if req.trays_per_rack:
        d["nodes_per_rack"] = (
            f"a {req.system_name} rack is one NVLink domain of {per_rack} compute trays "
            f"in its own {per_rack * req.node_u + req.rack_fixed_u}U rack with its NVLink switch trays "
            "and power shelves; it is not split across racks"
        )
        d["compute_rack_kw"] = (
            f"{in_full} × {req.node_kw:g} kW + {req.rack_fixed_w / 1000:g} kW NVLink switch trays = "
            f"{rack_kw:,.1f} kW per full compute rack"
        )
    plan = RackPlan(per_rack, racks, rows, rack_kw, network, storage, mgmt, s_per, m_per, d, leaf_racks, shared)
    d["racks_by_role"] = " + ".join(f"{n:,} {role}" for role, n in plan.by_role() if n) + f" = {plan.rack_count:,}"
    return plan
