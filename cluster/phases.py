"""Phased build-out (issue #37 item 1, pure: no Django): what each phase buys, the ports it leaves dark, and every
compute-fabric cable that must be re-patched between phases, under two strategies.

* **end-state core** — the spines of the final (last) phase are bought on day 1, as the NVIDIA SuperPOD RAs plan
  the core for the final size; each phase adds leaves and nodes, and a leaf's uplinks land on the spine ports left
  dark on day 1, so no cable moves. A phase's fabric is its own leaf layer wired to the final spine tier exactly as
  the final fabric wires it (each leaf sends ``leaf_to_agg_links`` links to every final spine).
* **cheapest day 1** — each phase planned at its own size (its own spine count); growing re-stripes the leaf
  uplinks over more spines, and every cable whose far end (switch and port) changes is a re-patch.

Cable identity is the cut sheet's (bom/links.py ``compute_links``): a switch port is numbered in the order the
fabric's links are laid (``p1``, ``p2`` … on each switch), a NIC port by node and port. The numbering is rebuilt
here as numpy columns (:func:`cable_ends`; the live path builds no per-cable record) and a test holds it equal to
the cut sheet's. Storage and management planes are planned at each phase's size; their cables are not compared.

``cluster-designer phases FILE.yaml --phase NAME:DATE:SIZE …`` prints the plan (SIZE in scalable units, or
``512gpu``).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from bom.build import Bom, BomLine
from bom.plan import Catalog, floor_plan, floor_sheets, network_bom
from cluster.growth import signed_usd
from cluster.pipeline import ClusterPlan, plan_planes
from cluster.requests import bom_request, resolve
from cluster.requirements import Requirements
from cluster.validate import RequirementsError
from topology.graph import fabric_edges
from topology.spec import ClosWiring, FabricPlan, Topology

MAX_PHASES = 12
STRATEGIES = ("end_state", "cheapest")
STRATEGY_TITLES = {"end_state": "End-state core on day 1", "cheapest": "Cheapest day 1 (re-cabled later)"}
CENT = Decimal("0.01")
_PORT_BITS, _INDEX_BITS = 16, 32  # a cable end as one int64: (tier + 1) << 48 | index << 16 | port


class PhaseInputError(ValueError):
    """Refusals on the field the user typed: ``phases`` (the list), as the form, the CLI and the API name it."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))


@dataclass(frozen=True)
class Phase:
    name: str
    date: dt.date
    size: int
    unit: str  # "su" (scalable units) or "gpu"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "date": self.date.isoformat(), "size": self.size, "unit": self.unit}

    @property
    def size_words(self) -> str:
        return f"{self.size:,} SU" if self.unit == "su" else f"{self.size:,} GPUs"


# --- reading phases ------------------------------------------------------------------------------------------

_SIZE = re.compile(r"^\s*(\d{1,7})\s*(su|sus|gpu|gpus)?\s*$", re.IGNORECASE)


def parse_phase(text: str, where: str) -> Phase:
    """``NAME:DATE:SIZE`` (the CLI) or ``NAME, DATE, SIZE`` (a line of the form); SIZE ``4`` or ``4 SU`` for
    scalable units, ``512 GPUs`` for GPUs."""
    parts = [p.strip() for p in text.split(",")] if "," in text else [p.strip() for p in text.rsplit(":", 2)]
    if len(parts) != 3 or not parts[0]:
        raise PhaseInputError(
            {"phases": f"{where}: {text.strip()!r} is not NAME, DATE, SIZE (e.g. day 1, 2026-01-15, 2 SU)"}
        )
    name, date_text, size_text = parts
    try:
        date = dt.date.fromisoformat(date_text)
    except ValueError:
        raise PhaseInputError({"phases": f"{where} ({name}): {date_text!r} is not a date (YYYY-MM-DD)"}) from None
    m = _SIZE.match(size_text)
    if not m:
        raise PhaseInputError({"phases": f"{where} ({name}): {size_text!r} is not a size (4, 4 SU or 512 GPUs)"})
    unit = "gpu" if (m.group(2) or "su").lower().startswith("gpu") else "su"
    return Phase(name[:80], date, int(m.group(1)), unit)


def parse_phases(items: Iterable[str | Mapping[str, Any]]) -> list[Phase]:
    """Phases from text lines or stored mappings ({name, date, size, unit}); blank lines are skipped."""
    out, problems = [], []
    for item in items:
        if isinstance(item, Mapping):
            unit = "gpu" if str(item.get("unit", "su")).lower().startswith("gpu") else "su"
            item = f"{item.get('name', '')}, {item.get('date', '')}, {item.get('size', '')} {unit}"
        if not item.strip():
            continue
        try:
            out.append(parse_phase(item, f"phase {len(out) + len(problems) + 1}"))
        except PhaseInputError as exc:
            problems.append(exc.errors["phases"])
    if problems:
        raise PhaseInputError({"phases": "; ".join(problems)})
    return out


def phases_text(phases: Sequence[Mapping[str, Any]]) -> str:
    """Stored phases as the form's text, one a line."""
    return "\n".join(f"{p['name']}, {p['date']}, {p['size']} {'GPUs' if p['unit'] == 'gpu' else 'SU'}" for p in phases)


def su_nodes_of(plan: ClusterPlan) -> int | None:
    """Nodes per scalable unit: the requirement's, or a rail-optimized fabric's leaf (one leaf per rail)."""
    f = plan.requirements.compute_fabric
    if f.scalable_unit_nodes:
        return f.scalable_unit_nodes
    return plan.fabric.extras.get("scalable_unit_nodes") if plan.fabric.topology == Topology.RAIL_OPTIMIZED else None


def phase_gpu_counts(plan: ClusterPlan, phases: Sequence[Phase]) -> list[int]:
    """Each phase's GPUs; every refusal at once, on ``phases``."""
    r = plan.requirements
    gpn, design_gpus = r.cluster.gpus_per_node, r.cluster.gpu_count
    su, reserved = su_nodes_of(plan), r.compute_fabric.reserved_node_slots
    problems, counts = [], []
    if not 1 <= len(phases) <= MAX_PHASES:
        problems.append(f"give from 1 to {MAX_PHASES} phases, not {len(phases)}")
    if len({p.name for p in phases}) != len(phases):
        problems.append("two phases share a name")
    for i, p in enumerate(phases, start=1):
        if p.unit == "su" and not su:
            problems.append(f"phase {i} ({p.name}): this {r.compute_fabric.topology} design has no scalable units — "
                            f"give GPUs (e.g. {gpn * 32} GPUs)")  # fmt: skip
            counts.append(0)
            continue
        gpus = (p.size * su - reserved) * gpn if p.unit == "su" else p.size
        counts.append(gpus)
        if gpus <= 0 or gpus % gpn:
            problems.append(f"phase {i} ({p.name}): {gpus:,} GPUs is not a positive multiple of {gpn} GPUs a node")
        elif gpus > design_gpus:
            problems.append(f"phase {i} ({p.name}): {p.size_words} = {gpus:,} GPUs, beyond the design's "
                            f"{design_gpus:,} GPUs")  # fmt: skip
        if i > 1 and gpus <= counts[-2]:
            problems.append(f"phase {i} ({p.name}): {gpus:,} GPUs is not more than phase {i - 1}'s {counts[-2]:,}")
        if i > 1 and p.date <= phases[i - 2].date:
            problems.append(f"phase {i} ({p.name}): {p.date} is not after phase {i - 1}'s {phases[i - 2].date}")
    if problems:
        raise PhaseInputError({"phases": "; ".join(problems)})
    return counts


# --- one phase's plan --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    """One phase under one strategy: its requirements, planes and priced BOM."""

    requirements: Requirements
    fabric: FabricPlan
    storage: Any
    management: Any
    bom: Bom

    def sheets(self, catalog: Catalog) -> list[dict[str, Any]]:
        """The phase's cut sheet, every plane (bom/plan.py floor_sheets): for exports only."""
        return floor_sheets(bom_request(self.requirements), self.fabric, self.storage, self.management, catalog)[0]


def phase_requirements(base: Requirements, gpu_count: int, pin: FabricPlan | None = None) -> Requirements:
    """The design at a phase's size; ``pin``: keep the final fabric's tier count and rail groups (end-state)."""
    r = dataclasses.replace(base, cluster=dataclasses.replace(base.cluster, gpu_count=gpu_count))
    if pin is not None:
        groups = pin.extras.get("rail_groups") if pin.topology == Topology.RAIL_OPTIMIZED else None
        f = r.compute_fabric
        r = dataclasses.replace(r, compute_fabric=dataclasses.replace(
            f, tiers=pin.tier_count, rail_groups=groups or f.rail_groups))  # fmt: skip
    return resolve(r)


def end_state_core(phase: FabricPlan, final: FabricPlan) -> FabricPlan:
    """The phase's leaves wired to the final fabric's spines as the final fabric wires them: the spines bought for
    the end state, each using the phase's leaves × links of its ports (the rest dark)."""
    w, fw = phase.wiring, final.wiring
    assert isinstance(w, ClosWiring) and isinstance(fw, ClosWiring)
    if phase.tiers[0].switch_count == final.tiers[0].switch_count:
        return final  # the final phase itself
    leaves = phase.tiers[0].switch_count // w.copies
    m, spines = fw.leaf_to_agg_links, fw.aggs_per_pod
    wiring = dataclasses.replace(w, aggs_per_pod=spines, leaf_to_agg_links=m, leaves_per_pod=leaves)
    ft = final.tiers[1]
    used = leaves * m
    spine = dataclasses.replace(
        phase.tiers[1],
        switch_count=ft.switch_count,
        down_ports_per_switch=used,
        derivation=(
            f"end-state core: the final fabric's {ft.switch_count:,} spines bought on day 1 ({ft.derivation}); "
            f"this phase's {leaves:,} leaves a copy × {m} link(s) use {used} of {ft.radix} ports a spine, "
            f"{ft.radix - used} dark"
        ),
    )
    return dataclasses.replace(phase, tiers=(phase.tiers[0], spine), wiring=wiring)


def _check_end_state(phase: FabricPlan, final: FabricPlan, name: str) -> None:
    if final.topology not in (Topology.RAIL_OPTIMIZED, Topology.FAT_TREE) or final.tier_count != 2:
        raise PhaseInputError({"phases": (
            f"an end-state core is planned for 2-tier leaf–spine fabrics (rail-optimized or fat-tree); the final "
            f"phase is a {final.tier_count}-tier {final.topology.value} fabric")})  # fmt: skip
    w, fw = phase.wiring, final.wiring
    assert isinstance(w, ClosWiring) and isinstance(fw, ClosWiring)
    if (w.leaf_up, w.copies, w.rails) != (fw.leaf_up, fw.copies, fw.rails):
        raise PhaseInputError({"phases": (
            f"phase {name}: its leaves take {w.leaf_up} uplinks, the final fabric's {fw.leaf_up} (leaves shared "
            f"by {fw.su_nodes} nodes are filled only in the last phase): give phase sizes in whole leaf blocks "
            f"of {fw.su_nodes} nodes")})  # fmt: skip


def build_phase(r: Requirements, catalog: Catalog, final: FabricPlan | None = None, name: str = "") -> Built:
    """Plan a phase's planes and price its BOM; ``final``: wire its leaves to the final fabric's spines."""
    try:
        planes = plan_planes(r)
        fabric = planes.fabric
        if final is not None:
            _check_end_state(fabric, final, name)
            fabric = end_state_core(fabric, final)
        breq = bom_request(r)
        floor = floor_plan(breq, fabric, planes.storage, planes.management, catalog)
        bom = network_bom(breq, fabric, planes.storage, planes.management, catalog, floor=floor)
    except RequirementsError as exc:
        why = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.errors.items())
        message = f"phase {name} ({r.cluster.gpu_count:,} GPUs) cannot be planned: {why}"
        raise PhaseInputError({"phases": message}) from None
    return Built(r, fabric, planes.storage, planes.management, bom)


def build_strategy(plan: ClusterPlan, phases: Sequence[Phase], gpus: Sequence[int], strategy: str,
                   catalog: Catalog) -> list[Built]:  # fmt: skip
    base = plan.inputs or plan.requirements
    pairs = list(zip(phases, gpus, strict=True))
    if strategy == "cheapest":
        return [build_phase(phase_requirements(base, g), catalog, name=p.name) for p, g in pairs]
    final = build_phase(phase_requirements(base, gpus[-1]), catalog, name=phases[-1].name).fabric
    return [build_phase(phase_requirements(base, g, final), catalog, final, p.name) for p, g in pairs]


# --- cables, ports, purchases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CableEnds:
    """Every compute cable as (A end, Z end) codes: NIC ends by endpoint, switch ends by tier, index and port."""

    a: np.ndarray
    z: np.ndarray
    tier_names: tuple[str, ...]
    ports_per_node: int
    nics_per_node: int


def cable_ends(fabric: FabricPlan, nics_per_node: int) -> CableEnds:
    """bom/links.py compute_links as columns: links in edge order, each repeated by its multiplicity; a switch
    end's port is its running count on that switch (``p1`` first), a NIC end is its endpoint."""
    e = fabric_edges(fabric)
    n = e.endpoint_count
    u, v = np.repeat(e.u, e.links), np.repeat(e.v, e.links)
    index = e.index_in_tier()
    dev = np.stack([u, v], axis=1).ravel()  # a then z of each cable, cables in order
    switch = dev >= n
    port = np.zeros(dev.size, dtype=np.int64)
    order = np.flatnonzero(switch)[np.argsort(dev[switch], kind="stable")]
    grouped = dev[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    run = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
    port[order] = run + 1
    code = np.where(switch, ((e.node_tier[dev] + 1) << (_INDEX_BITS + _PORT_BITS)) | (index[dev] << _PORT_BITS) | port,
                    dev << _PORT_BITS)  # fmt: skip
    ends = code.reshape(-1, 2)
    return CableEnds(ends[:, 0], ends[:, 1], e.tier_names, _ports_per_node(fabric, nics_per_node), nics_per_node)


def _ports_per_node(fabric: FabricPlan, nics_per_node: int) -> int:
    return nics_per_node * int(fabric.extras.get("nic_planes", 1) or 1)


def end_name(code: int, ends: CableEnds) -> tuple[str, str]:
    """(device, port) as the cut sheet writes them: ``leaf0003``/``p33``, ``cn00012``/``ib5``."""
    tier = code >> (_INDEX_BITS + _PORT_BITS)
    if tier:
        index = (code >> _PORT_BITS) & ((1 << _INDEX_BITS) - 1)
        return f"{ends.tier_names[tier - 1]}{index + 1:04d}", f"p{code & ((1 << _PORT_BITS) - 1)}"
    x = code >> _PORT_BITS
    node, k = divmod(x, ends.ports_per_node)
    planes = ends.ports_per_node // ends.nics_per_node
    nic, plane = k % ends.nics_per_node, k // ends.nics_per_node
    return f"cn{node + 1:05d}", f"ib{nic * planes + plane}"


def repatches(old: CableEnds, new: CableEnds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cables of the old phase that are not cables of the new one: (A end, old Z end, new Z end or −1)."""
    order = np.argsort(new.a, kind="stable")
    na, nz = new.a[order], new.z[order]
    at = np.minimum(np.searchsorted(na, old.a), max(0, na.size - 1))
    found = na.size > 0
    same_a = (na[at] == old.a) if found else np.zeros(old.a.size, dtype=bool)
    new_z = np.where(same_a, nz[at] if found else -1, -1)
    moved = new_z != old.z
    return old.a[moved], old.z[moved], new_z[moved]


def added_cables(old: CableEnds | None, new: CableEnds) -> np.ndarray:
    """Which cables of the new phase are new: not a cable (by both ends) of the old one."""
    return np.ones(new.a.size, dtype=bool) if old is None else ~_pairs_in(new, old)


def _pairs_in(x: CableEnds, y: CableEnds) -> np.ndarray:
    """Whether each cable of x (by both ends) is a cable of y."""
    order = np.argsort(y.a, kind="stable")
    ya, yz = y.a[order], y.z[order]
    if not ya.size:
        return np.zeros(x.a.size, dtype=bool)
    at = np.minimum(np.searchsorted(ya, x.a), ya.size - 1)
    return (ya[at] == x.a) & (yz[at] == x.z)


def min_moves(old: CableEnds, new: CableEnds) -> int:
    """The fewest cables that must leave a switch pair: Σ over (A device, Z device) of max(0, old − new) links
    (a re-striping plan that keeps every cable it can on its pair; the port-by-port list may move more)."""

    def pairs(c: CableEnds) -> dict[tuple[int, int], int]:
        keys, counts = np.unique(np.stack([c.a >> _PORT_BITS, c.z >> _PORT_BITS], axis=1), axis=0, return_counts=True)
        return {(int(a), int(z)): int(k) for (a, z), k in zip(keys, counts, strict=True)}

    o, n = pairs(old), pairs(new)
    return sum(max(0, k - n.get(key, 0)) for key, k in o.items())


def dark_ports(built: Built) -> list[dict[str, Any]]:
    """Ports with no cable, per compute tier: switches × radix − the ports the fabric's links (and fabric-
    attached devices, on leaves) use."""
    e = fabric_edges(built.fabric)
    use = e.port_use()
    f = built.requirements.compute_fabric
    attached = f.ufm_server_count * f.ufm_ports_per_server + f.attached_device_count * f.attached_device_ports
    out = []
    for t, tier in enumerate(built.fabric.tiers):
        used = int(use[e.node_tier == t].sum()) + (attached if t == 0 else 0)
        total = tier.switch_count * tier.radix
        out.append({
            "tier": tier.name, "switch_count": tier.switch_count, "ports_total": total, "ports_used": used,
            "ports_dark": total - used,
            "derivation": f"{tier.switch_count:,} × {tier.radix} ports = {total:,}; {used:,} cabled → "
                          f"{total - used:,} dark",
        })  # fmt: skip
    return out


LineKey = tuple[str, str, str, bool]


def _key(ln: BomLine) -> LineKey:
    return ln.plane, ln.category, ln.sku, ln.spare


def bought_lines(bom: Bom, owned: dict[LineKey, int]) -> list[BomLine]:
    """The lines this phase buys: what its BOM needs beyond what earlier phases bought (``owned`` is updated);
    a part an earlier phase bought and this one no longer needs stays on hand."""
    out = []
    for ln in bom.lines:
        have = owned.get(_key(ln), 0)
        if ln.quantity > have:
            out.append(dataclasses.replace(ln, quantity=ln.quantity - have, derivation=(
                f"{ln.quantity:,} needed − {have:,} on hand = {ln.quantity - have:,}; {ln.derivation}")))  # fmt: skip
        owned[_key(ln)] = max(have, ln.quantity)
    return out


def delta_bom(lines: list[BomLine], added_links: int) -> Bom:
    return Bom(tuple(lines), (), added_links, 2 * added_links, {})


def present_value_usd(cost: Decimal, rate_pct: float, day1: dt.date, date: dt.date) -> tuple[Decimal, str]:
    """cost ÷ (1 + r)^t, t in years of 365 days from day 1 (the TCO's discount rate)."""
    t = Decimal((date - day1).days) / Decimal(365)
    r = Decimal(str(rate_pct)) / 100
    pv = (cost / (1 + r) ** t).quantize(CENT, ROUND_HALF_UP) if r else cost
    why = (f"${cost:,.2f} ÷ (1 + {r:g})^{t:.4g} ({(date - day1).days} days ÷ 365) = ${pv:,.2f}" if r
           else "no discount rate (the TCO's is 0 %): equals the cost")  # fmt: skip
    return pv, why


# --- the plan of the phases ----------------------------------------------------------------------------------

REPATCH_LIST_MAX = 2_000  # the report lists this many re-patches a phase; the exports list them all


@dataclass(frozen=True)
class StrategyRun:
    strategy: str
    built: list[Built]
    ends: list[CableEnds]


def run_strategies(plan: ClusterPlan, phases: Sequence[Phase], catalog: Catalog | None = None):
    """(GPUs a phase, {strategy: StrategyRun}) — every phase planned and priced under both strategies."""
    catalog = catalog or Catalog.built_in()
    gpus = phase_gpu_counts(plan, phases)
    nics = plan.requirements.compute_fabric.nics_per_node
    runs = {}
    for s in STRATEGIES:
        built = build_strategy(plan, phases, gpus, s, catalog)
        runs[s] = StrategyRun(s, built, [cable_ends(b.fabric, nics) for b in built])
    return gpus, runs


def _repatch_rows(old: CableEnds, new: CableEnds, limit: int | None = None) -> tuple[int, list[dict[str, str]]]:
    a, oz, nz = repatches(old, new)
    rows = []
    for x, y, w in zip(a[:limit].tolist(), oz[:limit].tolist(), nz[:limit].tolist(), strict=True):
        (ad, ap), (od, op) = end_name(x, new), end_name(y, old)
        nd, np_ = end_name(w, new) if w >= 0 else ("(removed)", "")
        rows.append({"a_device": ad, "a_port": ap, "old_z_device": od, "old_z_port": op, "new_z_device": nd,
                     "new_z_port": np_})  # fmt: skip
    return int(a.size), rows


def _by_category(lines: Iterable[BomLine]) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for ln in lines:
        out[ln.category] = out.get(ln.category, Decimal("0.00")) + ln.extended_price_usd
    return out


def _line_dict(ln: BomLine) -> dict[str, Any]:
    return {"plane": ln.plane, "category": ln.category, "sku": ln.sku, "description": ln.description,
            "quantity": ln.quantity, "unit_price_usd": str(ln.unit_price_usd.quantize(CENT)),
            "extended_price_usd": str(ln.extended_price_usd), "spare": ln.spare,
            "derivation": ln.derivation}  # fmt: skip


def _final_tiers(run: StrategyRun, phases: Sequence[Phase]) -> list[dict[str, str]]:
    """Which compute tiers are bought for the final size on day 1, and why."""
    first, last = run.built[0].fabric, run.built[-1].fabric
    out = []
    for t0, tn in zip(first.tiers, last.tiers, strict=False):
        if t0.switch_count == tn.switch_count and len(run.built) > 1 and t0.name != "leaf":
            why = (f"{tn.switch_count:,} {tn.name} switches on day 1 = the final phase's ({phases[-1].name}): every "
                   f"later leaf's uplinks land on ports dark on day 1, so no cable moves; {tn.derivation}")  # fmt: skip
            out.append({"tier": t0.name, "day1_count": t0.switch_count, "final_count": tn.switch_count, "why": why})
        else:
            counts = " → ".join(f"{b.fabric.tiers[i].switch_count:,}" for b in run.built
                                for i, t in enumerate(b.fabric.tiers) if t.name == t0.name)  # fmt: skip
            out.append({"tier": t0.name, "day1_count": t0.switch_count, "final_count": tn.switch_count,
                        "why": f"bought phase by phase ({counts}): each phase's own size"})  # fmt: skip
    return out


def _strategy_report(run: StrategyRun, phases: Sequence[Phase], gpus: Sequence[int], rate_pct: float):
    owned: dict[LineKey, int] = {}
    rows, total, total_pv = [], Decimal("0.00"), Decimal("0.00")
    for i, (p, b) in enumerate(zip(phases, run.built, strict=True)):
        lines = bought_lines(b.bom, owned)
        cost = sum((ln.extended_price_usd for ln in lines), Decimal("0.00"))
        pv, pv_why = present_value_usd(cost, rate_pct, phases[0].date, p.date)
        prev = run.ends[i - 1] if i else None
        count, moved = _repatch_rows(prev, run.ends[i], REPATCH_LIST_MAX) if prev is not None else (0, [])
        new = int(added_cables(prev, run.ends[i]).sum())
        rows.append({
            **p.to_dict(), "size_words": p.size_words, "gpu_count": gpus[i], "node_count": b.requirements.node_count,
            "switches": {t.name: t.switch_count for t in b.fabric.tiers},
            "bought": [_line_dict(ln) for ln in lines], "cost_usd": str(cost),
            "cost_by_category_usd": {k: str(v) for k, v in _by_category(lines).items()},
            "present_value_usd": str(pv), "present_value_derivation": pv_why, "dark_ports": dark_ports(b),
            "new_cable_count": new - (count if prev is not None else 0), "repatch_count": count, "repatches": moved,
            "repatch_min_moves": min_moves(prev, run.ends[i]) if prev is not None and count else 0,
            "derivation": (f"{p.size_words} = {gpus[i]:,} GPUs; BOM ${b.bom.total_usd():,.2f} at this size, "
                           f"${cost:,.2f} of it bought now ({len(lines)} lines beyond what earlier phases "
                           f"bought); {count:,} compute cables re-patched from the phase before"),
        })  # fmt: skip
        total, total_pv = total + cost, total_pv + pv
    return {"strategy": run.strategy, "title": STRATEGY_TITLES[run.strategy], "phases": rows,
            "built_for_final": _final_tiers(run, phases), "cost_usd": str(total), "present_value_usd": str(total_pv),
            "repatch_count": sum(r["repatch_count"] for r in rows)}  # fmt: skip


def _day1_difference(end: Bom, cheap: Bom) -> tuple[Decimal, list[dict[str, Any]]]:
    """The end-state day-1 BOM against the cheapest one, line by line (plane, category, sku)."""

    def q(bom: Bom) -> dict[LineKey, BomLine]:
        return {_key(ln): ln for ln in bom.lines}

    a, b = q(end), q(cheap)
    out = []
    for key in dict.fromkeys([*a, *b]):
        la, lb = a.get(key), b.get(key)
        dq = (la.quantity if la else 0) - (lb.quantity if lb else 0)
        if dq:
            ln = la or lb
            assert ln is not None
            out.append({"plane": key[0], "category": key[1], "sku": key[2], "spare": key[3], "quantity": dq,
                        "unit_price_usd": str(ln.unit_price_usd.quantize(CENT)),
                        "extended_price_usd": str((ln.unit_price_usd * dq).quantize(CENT, ROUND_HALF_UP))})  # fmt: skip
    return end.total_usd() - cheap.total_usd(), out


def phase_report(plan: ClusterPlan, phases: Sequence[Phase], catalog: Catalog | None = None) -> dict[str, Any]:
    """Both strategies, phase by phase, and what the end-state core costs on day 1 against the cheapest day 1."""
    gpus, runs = run_strategies(plan, phases, catalog)
    rate = plan.requirements.tco.discount_rate_pct
    out = {s: _strategy_report(run, phases, gpus, rate) for s, run in runs.items()}
    extra, diff = _day1_difference(runs["end_state"].built[0].bom, runs["cheapest"].built[0].bom)
    words = "; ".join(f"{d['quantity']:+,} {d['sku']} ({d['category']}{', spare' if d['spare'] else ''}) × "
                      f"${Decimal(d['unit_price_usd']):,.2f}" for d in diff)  # fmt: skip
    e, c = out["end_state"], out["cheapest"]
    return {
        "phases": [p.to_dict() for p in phases],
        "gpu_counts": gpus,
        "discount_rate_pct": rate,
        "strategies": out,
        "extra_day1_usd": str(extra),
        "extra_day1_lines": diff,
        "derivation": (
            f"day 1 ({phases[0].name}): end-state core ${runs['end_state'].built[0].bom.total_usd():,.2f} − cheapest "
            f"${runs['cheapest'].built[0].bom.total_usd():,.2f} = {signed_usd(extra)} "
            f"({words or 'the same lines'}); "
            f"over all phases ${Decimal(e['cost_usd']):,.2f} against ${Decimal(c['cost_usd']):,.2f} (present value "
            f"${Decimal(e['present_value_usd']):,.2f} against ${Decimal(c['present_value_usd']):,.2f} at "
            f"{rate:g} %/year); compute cables re-patched: {e['repatch_count']:,} against {c['repatch_count']:,}"
        ),
    }


# --- one phase's exports -------------------------------------------------------------------------------------


def _row_key(row: Mapping[str, Any]) -> tuple:
    return row["plane"], row["a_device"], row["a_port"], row["z_device"], row["z_port"]


def cut_sheet_delta(run: StrategyRun, index: int, catalog: Catalog) -> list[dict[str, Any]]:
    """The phase's cut-sheet rows that were not cables of the phase before: compute cables by fabric ends (new, or
    re-patched with the end they were on), the other planes' by their cut-sheet ends."""
    rows = run.built[index].sheets(catalog)
    new = run.ends[index]
    if index == 0:
        return [{"change": "new", "was_z_device": "", "was_z_port": "", **r} for r in rows]
    old_rows = run.built[index - 1].sheets(catalog)
    old = run.ends[index - 1]
    fresh = added_cables(old, new)
    order = np.argsort(old.a, kind="stable")
    at = np.minimum(np.searchsorted(old.a[order], new.a), max(0, old.a.size - 1))
    had_a = old.a[order][at] == new.a
    old_keys = {_row_key(r) for r in old_rows[old.a.size :]}
    out = []
    for i, r in enumerate(rows):
        if i < new.a.size:
            if not fresh[i]:
                continue
            was = old_rows[int(order[at[i]])] if had_a[i] else None
        elif _row_key(r) in old_keys:
            continue
        else:
            was = None
        out.append({"change": "re-patch" if was else "new", "was_z_device": was["z_device"] if was else "",
                    "was_z_port": was["z_port"] if was else "", **r})  # fmt: skip
    return out


def phase_exports(plan: ClusterPlan, phases: Sequence[Phase], strategy: str, index: int,
                  catalog: Catalog | None = None) -> tuple[Bom, list[dict[str, Any]]]:  # fmt: skip
    """(the BOM delta, the cut-sheet delta) of one phase under one strategy."""
    catalog = catalog or Catalog.built_in()
    if strategy not in STRATEGIES:
        raise PhaseInputError({"strategy": f"{strategy!r}: one of {', '.join(STRATEGIES)}"})
    if not 0 <= index < len(phases):
        raise PhaseInputError({"phase": f"phase {index + 1}: from 1 to {len(phases)}"})
    gpus = phase_gpu_counts(plan, phases)
    built = build_strategy(plan, phases[: index + 1], gpus[: index + 1], strategy, catalog) if strategy == "cheapest" \
        else build_strategy(plan, phases, gpus, strategy, catalog)[: index + 1]  # fmt: skip
    nics = plan.requirements.compute_fabric.nics_per_node
    run = StrategyRun(strategy, built, [cable_ends(b.fabric, nics) for b in built])
    owned: dict[LineKey, int] = {}
    for b in built[:index]:
        bought_lines(b.bom, owned)
    sheet = cut_sheet_delta(run, index, catalog)
    return delta_bom(bought_lines(built[index].bom, owned), len(sheet)), sheet


# --- the command line ----------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cluster-designer phases", description=(
        "Phased build-out: what each phase buys, the ports left dark, the compute cables re-patched between phases, "
        "with the spines bought for the end state on day 1 and with the cheapest day 1."))  # fmt: skip
    p.add_argument("file", type=Path, help="requirements file (YAML or JSON)")
    p.add_argument("--phase", action="append", default=[], metavar="NAME:DATE:SIZE",
                   help="a phase, in order: e.g. day1:2026-01-15:2 (SUs) or day1:2026-01-15:512gpu")  # fmt: skip
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    return p


def _table(out: dict[str, Any]) -> str:
    lines = []
    for s in out["strategies"].values():
        lines.append(f"{s['title']}: ${Decimal(s['cost_usd']):,.2f} (present value "
                     f"${Decimal(s['present_value_usd']):,.2f}), {s['repatch_count']:,} re-patches")  # fmt: skip
        for r in s["phases"]:
            dark = ", ".join(f"{d['tier']} {d['ports_dark']:,}" for d in r["dark_ports"])
            lines.append(f"  {r['name']:<16}{r['date']:<12}{r['gpu_count']:>8,} GPUs  ${Decimal(r['cost_usd']):>16,.2f}"
                         f"  dark: {dark}; re-patch {r['repatch_count']:,}")  # fmt: skip
    lines.append(out["derivation"])
    return "\n".join(lines) + "\n"


def _csv(out: dict[str, Any]) -> str:
    import csv
    import io

    from bom.cells import safe_text

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["strategy", "phase", "date", "gpu_count", "plane", "category", "sku", "quantity", "unit_price_usd",
                "extended_price_usd", "spare"])  # fmt: skip
    for s in out["strategies"].values():
        for r in s["phases"]:
            for ln in r["bought"]:
                w.writerow([safe_text(x) for x in (s["strategy"], r["name"], r["date"], r["gpu_count"], ln["plane"],
                            ln["category"], ln["sku"], ln["quantity"], ln["unit_price_usd"],
                            ln["extended_price_usd"], ln["spare"])])  # fmt: skip
    return buf.getvalue()


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    from cluster.cli import evaluate_file

    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    try:
        phases = parse_phases(args.phase)
        out = phase_report(evaluate_file(args.file), phases)
    except RequirementsError as exc:
        stderr.write(
            f"{args.file}: invalid requirements\n" + "".join(f"  {k}: {' '.join(v)}\n" for k, v in exc.errors.items())
        )
        return 1
    except PhaseInputError as exc:
        stderr.write("".join(f"--phase: {v}\n" for v in exc.errors.values()))
        return 1
    text = {"json": lambda: json.dumps(out, indent=2) + "\n", "csv": lambda: _csv(out)}.get(args.format)
    stdout.write(text() if text else _table(out))
    return 0
