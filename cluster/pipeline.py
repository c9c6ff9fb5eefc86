"""The pipeline: typed requirements → every plan of a design, in order (pure: no Django).

    fabric (topology/)  →  storage and management planes (topology/)  →  network BOM (bom/plan.py)
        →  power, racks, cooling, capping, TCO, carbon (power/plan.py)  →  collectives (cluster/collectives.py)

Engine refusals come back as :class:`~cluster.validate.RequirementsError` on the field the
user typed. :meth:`ClusterPlan.result` is the JSON stored with a revision and served by the
API; every figure in it carries a derivation.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from bom.accessories import INFRASTRUCTURE
from bom.build import Bom
from bom.links import FabricManagerPortsError
from bom.media import NoPartReaches
from bom.plan import Catalog, floor_plan, network_bom, same_catalog
from cluster.collectives import collectives_summary
from cluster.growth import growth_option
from cluster.requests import (
    MIN_STORAGE_NODES,
    bom_request,
    fabric_request,
    management_request,
    power_request,
    resolve,
    storage_request,
)
from cluster.requirements import FIELDS, Requirements
from cluster.validate import RequirementsError
from cluster.workload import check_fits_batch, mapped, profile_of
from power import PowerInputError
from power.cooling import default_rack_budget_kw
from power.plan import NetworkFigures, PowerPlan, plan_power
from power.rack_systems import rack_scale_system
from scheduling import SchedulerInputError
from scheduling.partitions import PartitionPlan, plan_partitions
from scheduling.roce import roce_tuning
from scheduling.roce import to_dict as roce_to_dict
from scheduling.workload import expected_job_count
from topology import FabricPlan, FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.management_plane import ManagementPlan, plan_management
from topology.sizing import aggregate_bandwidth_gbps, min_uplink_bandwidth_gbps, ports_for_bandwidth
from topology.storage_plane import StoragePlan, plan_storage
from topology.switches import SWITCH_MODELS

RESULT_SCHEMA_VERSION = 2

# an engine's field → the requirement field the user typed
_FABRIC_FIELDS = {"node_count": "gpu_count", "chips_per_node": "gpus_per_node"}
_STORAGE_FIELDS = {
    "compute_node_count": "gpu_count",
    "drives_per_node": "storage_drives_per_node",
    "drive_tb": "storage_drive_tb",
    "raid_data_drives": "storage_raid_data_drives",
    "raid_parity_drives": "storage_raid_parity_drives",
    "switch_radix": "storage_switch_radix",
    "switch_port_gbps": "storage_switch_port_gbps",
    "oversubscription": "storage_oversubscription",
    "switch_count": "storage_switch_count",
    "model_params_billion": "checkpoint_params_billion",
    "required_usable_tb": "storage_required_usable_tb",
    "mesh_links_per_pair": "storage_switch_count",
}
# the rack planner's per-server kW → the typed W field (a 0 W storage server is refused on its own field)
_RACK_FIELDS = {
    "node_kw": "node_power_w",
    "storage_node_kw": "storage_node_power_w",
    "mgmt_node_kw": "mgmt_node_power_w",
}
_MGMT_FIELDS = {
    "compute_node_count": "gpu_count",
    "login_node_count": "login_node_count",
    "storage_node_count": "storage_node_count",
}


def _mapped(errors: dict[str, str], mapping: dict[str, str], prefix: str = "") -> RequirementsError:
    out: dict[str, list[str]] = {}
    for field, message in errors.items():
        name = mapping.get(field) or (f"{prefix}{field}" if prefix and not field.startswith(prefix) else field)
        out.setdefault(name, []).append(message)
    return RequirementsError(out, unprocessable=True)  # planning refusals: the values were well-formed


@dataclass(frozen=True)
class Planes:
    fabric_request: FabricRequest
    fabric: FabricPlan
    storage: StoragePlan
    management: ManagementPlan


def fitting_switches(freq: FabricRequest) -> str:
    """When a fabric is too big for its switch: the known switch models that would take it, and in how many tiers;
    on a rail-optimized fabric with fixed rail groups, whether automatic rail groups would make it fit."""
    hints = []
    if freq.rail_groups is not None:  # (set only on a rail-optimized fabric, or 1)
        try:
            grouped = plan_fabric(dataclasses.replace(freq, rail_groups=None))
        except FabricRequestError:
            pass
        else:
            hints.append(
                f"; with automatic rail groups it fits on this switch ({grouped.extras['rail_groups']} groups, "
                f"{grouped.tier_count} tiers, {grouped.switch_count:,} switches) — leave rail groups empty"
            )
    fits = []
    for name, model in SWITCH_MODELS.items():  # the request's own switch and ones slower than its NICs are refused
        try:
            alt = plan_fabric(dataclasses.replace(freq, switch_radix=model.radix, switch_port_gbps=model.port_gbps))
        except FabricRequestError:
            continue
        fits.append(f"{name} ({alt.tier_count} tiers, {alt.switch_count:,} switches)")
    if fits:
        hints.append("; it fits with " + ", ".join(fits) + " — choose one as the switch model")
    return "".join(hints)


def plan_planes(r: Requirements) -> Planes:
    """The three network planes; engine refusals land on the user's fields."""
    try:
        freq = fabric_request(r)
        fabric = plan_fabric(freq)
    except FabricRequestError as exc:
        errors = dict(exc.errors)
        if "node_count" in errors:
            errors["node_count"] += fitting_switches(freq)
        raise _mapped(errors, _FABRIC_FIELDS) from None
    try:
        storage = plan_storage(storage_request(r))
    except FabricRequestError as exc:
        raise _mapped(exc.errors, _STORAGE_FIELDS) from None
    try:
        mgmt = plan_management(management_request(r))
    except FabricRequestError as exc:
        raise _mapped(exc.errors, _MGMT_FIELDS, prefix="mgmt_") from None
    return Planes(freq, fabric, storage, mgmt)


def fabric_sizing(plan: FabricPlan, req: FabricRequest) -> dict[str, Any]:
    """The chapter's aggregate check (B_min = N × B / O, seed §14.1) next to what the plan bought."""
    if plan.topology == Topology.TORUS_3D:
        return {}
    agg = aggregate_bandwidth_gbps(plan.endpoint_count, plan.endpoint_gbps)
    need = min_uplink_bandwidth_gbps(plan.endpoint_count, plan.endpoint_gbps, req.oversubscription)
    budget = ports_for_bandwidth(need, req.switch_port_gbps)
    leaf = plan.tiers[0]
    return {
        "aggregate_bandwidth_gbps": agg,
        "aggregate_bandwidth_tbyte_s": agg / 8000,
        "min_uplink_bandwidth_gbps": round(need, 3),
        "min_uplink_port_count": budget.port_count,
        "min_uplink_port_count_with_headroom": budget.port_count_with_headroom,
        "leaf_uplink_port_count": leaf.uplink_count,
        "derivations": {
            "aggregate_bandwidth_gbps": (
                f"{plan.endpoint_count:,} endpoints × {plan.endpoint_gbps:g} Gbit/s = {agg:,.0f} Gbit/s "
                f"= {agg / 8000:,.2f} TB/s one way"
            ),
            "min_uplink_bandwidth_gbps": (
                f"B_min = N × B ÷ O = {plan.endpoint_count:,} × {plan.endpoint_gbps:g} ÷ "
                f"{req.oversubscription:g} = {need:,.0f} Gbit/s (seed §14.1)"
            ),
            "min_uplink_port_count": budget.derivation,
            "leaf_uplink_port_count": (
                f"{leaf.switch_count:,} leaves × {leaf.up_ports_per_switch} uplinks = "
                f"{leaf.uplink_count:,}: whole leaves round the aggregate figure up"
            ),
        },
    }


def network_figures(r: Requirements, planes: Planes, bom: Bom) -> NetworkFigures:
    """The network's draw (switches + optics + active cables, from the BOM) and price, unless given."""
    watts = {"switch": 0.0, "transceiver": 0.0, "cable": 0.0}
    for ln in bom.lines:
        if not ln.spare and ln.kind.value in watts:
            watts[ln.kind.value] += ln.power_w * ln.quantity
    if r.power.network_power_kw is not None:
        power_w, why = float(r.power.network_power_kw) * 1000, "as given"
    else:
        power_w = sum(watts.values())
        why = (
            f"from the BOM: switches {watts['switch'] / 1000:,.1f} kW + transceivers "
            f"{watts['transceiver'] / 1000:,.1f} kW + active cables {watts['cable'] / 1000:,.1f} kW"
        )
    given = r.tco.network_capex_usd
    network_usd = bom.total_usd() - bom.total_usd(INFRASTRUCTURE)  # racks and PDUs are facility works
    capex = Decimal(given) if given is not None else network_usd
    return NetworkFigures(power_w, why, capex)


def _count_attached_ports(compute: dict[str, Any]) -> None:
    """Fabric-management servers and attached devices take free leaf ports (bom.links.fabric_manager_leaves):
    the leaf tier's used and free ports count them too."""
    attached = compute["fabric_manager_port_count"] + compute["attached_device_port_count"]
    if not attached or not compute.get("tiers"):
        return
    leaf = compute["tiers"][0]
    leaf["ports_used_count"] += attached
    leaf["ports_free_count"] -= attached
    leaf["derivation"] += (
        f"; + {attached} port(s) of fabric-management servers and attached devices in free leaf ports "
        f"→ {leaf['ports_used_count']:,} used, {leaf['ports_free_count']:,} free"
    )


_SCHEDULER_FIELDS = {f.key: f.flat for f in FIELDS if f.section == "scheduler"}


def roce_sheet(r: Requirements, fabric: FabricPlan, bom: Bom, catalog: Catalog) -> dict[str, Any] | None:
    """The RoCE tuning sheet (scheduling/roce.py) of an Ethernet compute fabric; None for InfiniBand or an
    unnamed switch. Link speed: a fabric endpoint's; cable: the longest compute cable the BOM buys."""
    model = SWITCH_MODELS.get(r.compute_fabric.switch_model or "")
    if model is None or not model.ethernet or fabric.topology == Topology.TORUS_3D:
        return None
    lengths = {p.sku: p.length_m for p in catalog.parts}
    cables = [lengths.get(ln.sku, 0.0) for ln in bom.lines if ln.plane == "compute" and ln.category == "cable"]
    longest = max(cables, default=0.0)
    sheet = roce_to_dict(
        roce_tuning(
            link_gbps=fabric.endpoint_gbps,
            cable_m=longest,
            switch_buffer_mb=r.scheduler.roce_switch_buffer_mb,
            switch_ports=model.radix,
        )
    )
    sheet["derivations"]["inputs"] = (
        f"{model.name} leaves ({model.radix} ports), {fabric.endpoint_gbps:g} Gbit/s per fabric port, the longest "
        f"compute cable {longest:g} m; base RTT 4 µs, 1 µs PFC response, 1 lossless priority (the calculator "
        "takes others)"
    )
    return sheet


def plan_scheduler(r: Requirements) -> PartitionPlan:
    """The partition plan (scheduling/partitions.py); refusals on the scheduler fields the user typed."""
    try:
        return plan_partitions(
            r.scheduler, node_count=r.node_count, gpus_per_node=r.cluster.gpus_per_node, gpu_model=r.cluster.gpu_model
        )
    except SchedulerInputError as exc:
        raise _mapped(exc.errors, _SCHEDULER_FIELDS) from None


@dataclass(frozen=True)
class ClusterPlan:
    """Every plan of one design, typed; :meth:`result` is its stored JSON."""

    requirements: Requirements  # resolved: every "empty = choose for me" field filled in
    planes: Planes
    bom: Bom
    power: PowerPlan
    collectives: dict[str, Any]
    price_book: dict[str, Any]
    inputs: Requirements | None = None  # as the user gave them (what a saved revision stores)
    scheduler: PartitionPlan | None = None
    roce: dict[str, Any] | None = None
    growth: dict[str, Any] | None = None  # cluster.growth: the price of uplinks for the whole leaf split

    @property
    def fabric(self) -> FabricPlan:
        return self.planes.fabric

    @property
    def storage(self) -> StoragePlan:
        return self.planes.storage

    @property
    def management(self) -> ManagementPlan:
        return self.planes.management

    def result(self) -> dict[str, Any]:
        r, p = self.requirements, self.planes
        compute = p.fabric.to_dict()
        compute["sizing"] = fabric_sizing(p.fabric, p.fabric_request)
        if self.growth:
            compute["growth_option"] = self.growth
        storage = p.storage.to_dict()
        if self.inputs is not None and self.inputs.storage.node_count is None:
            storage["storage_node_count"] = r.storage.node_count
            storage.setdefault("derivations", {})["storage_node_count"] = (
                f"left empty: max({MIN_STORAGE_NODES}, {p.storage.storage_nodes_for_bandwidth} for bandwidth, "
                f"{p.storage.storage_nodes_for_capacity} for capacity) = {r.storage.node_count}"
            )
        f = r.compute_fabric
        compute["fabric_manager_port_count"] = f.ufm_server_count * f.ufm_ports_per_server
        compute["attached_device_port_count"] = f.attached_device_count * f.attached_device_ports
        _count_attached_ports(compute)
        bom = self.bom.to_dict()
        bom["price_book"] = self.price_book
        bom["checks"].extend(self.floor_plan_checks())
        checks = self.checks()
        power = self.power.to_dict()
        if self.inputs is not None and self.inputs.power.rack_budget_kw is None:
            _, why = default_rack_budget_kw(r.cooling.type, rack_scale_system(r.cluster.gpu_model) is not None)
            power.setdefault("derivations", {})["rack_budget_kw"] = f"{why} = {r.power.rack_budget_kw:g} kW"
        return {
            "schema_version": RESULT_SCHEMA_VERSION,
            "cluster": {
                "name": r.cluster.name,
                "gpu_model": r.cluster.gpu_model,
                "gpu_count": r.cluster.gpu_count,
                "node_count": r.node_count,
                "gpus_per_node": r.cluster.gpus_per_node,
            },
            "compute_fabric": compute,
            "storage": storage,
            "management": p.management.to_dict(),
            "bom": bom,
            "power": power,
            "collectives": self.collectives,
            "scheduler": self.scheduler.to_dict() if self.scheduler is not None else None,
            "roce": self.roce,
            "checks": checks,
            "summary": self.summary(bom, power),
        }

    def checks(self) -> list[dict[str, Any]]:
        """The one ordered list of the design's checks, every section's (see :func:`gather_checks`): what the
        page, the live panel, the API and every export show."""
        sections = {
            "storage": {"checks": list(self.storage.checks)},
            "bom": {"checks": [*self.bom.checks, *self.floor_plan_checks()]},
            "roce": self.roce,
        }
        return gather_checks(sections, fabric=fabric_checks(self.planes), workload=workload_checks(self))

    def floor_plan_checks(self) -> list[dict[str, Any]]:
        """The floor plan (cable lengths) and the rack plan (rack count, PDUs) must put as many nodes in a rack."""
        given, held = self.requirements.bom.nodes_per_rack, self.power.racks.nodes_per_rack
        if given is None or given == held:
            return []
        return [
            {
                "ok": False,
                "field": "nodes_per_rack",
                "message": f"the floor plan puts {given} nodes in a rack, the rack power budget and height hold "
                f"{held}: cable lengths and the rack count disagree; leave nodes per rack empty or change "
                "the rack budget",
            }
        ]

    def summary(self, bom: dict[str, Any], power: dict[str, Any]) -> dict[str, Any]:
        p, tco = self.planes, power["tco"]
        mgmt_switches = p.management.tor_count + p.management.spine_count
        return {
            "gpu_count": self.requirements.cluster.gpu_count,
            "compute_switch_count": p.fabric.switch_count,
            "compute_link_count": p.fabric.link_count,
            "compute_bisection_tbyte_s": round(p.fabric.bisection_tbyte_s, 6),
            "storage_switch_count": p.storage.switch_count,
            "storage_usable_tb": round(p.storage.usable_tb, 3),
            "checkpoint_write_gbyte_s": round(p.storage.checkpoint_write_gbyte_s, 3),
            "management_switch_count": mgmt_switches,
            "switch_count": p.fabric.switch_count + p.storage.switch_count + mgmt_switches,
            "network_total_usd": bom["total_usd"],
            "it_kw": power["facility"]["it_kw"],
            "facility_kw": power["facility"]["facility_kw"],
            "rack_count": power["racks"]["rack_count"],
            "capex_usd": tco["capex_usd"],
            "opex_usd_per_year": tco["opex_usd_per_year"],
            "tco_usd": tco["total_usd"],
            "cost_per_gpu_hour_usd": tco["cost_per_gpu_hour_usd"],
        }


def plan_cluster(
    r: Requirements, catalog: Catalog | None = None, *, cables: bool = False, collectives: bool = True
) -> ClusterPlan:
    """Run every engine on validated requirements. ``cables``: count the BOM from per-link records;
    ``collectives=False`` (a design search's candidates, cluster/search.py): no collectives table at a glance
    (``collectives`` is then empty) — nothing else reads it, and the model's refusals are caught there anyway."""
    catalog = same_catalog(catalog or Catalog.built_in())  # one object per catalog: the BOM's memos know it by id
    inputs, r = r, resolve(r)
    planes = plan_planes(r)
    scheduler = plan_scheduler(r)
    try:  # the rack plan first: the BOM buys its racks and PDUs, power and cooling follow it
        breq = bom_request(r)
        floor = floor_plan(breq, planes.fabric, planes.storage, planes.management, catalog)
        racks = floor.racks
        bom = network_bom(breq, planes.fabric, planes.storage, planes.management, catalog, cables=cables, floor=floor)
    except NoPartReaches as exc:
        raise RequirementsError({"racks_per_row": [str(exc)]}, unprocessable=True) from None
    except FabricManagerPortsError as exc:
        field = "ufm_server_count" if r.compute_fabric.ufm_server_count else "attached_device_count"
        raise RequirementsError({field: [str(exc)]}, unprocessable=True) from None
    except PowerInputError as exc:
        raise _mapped(exc.errors, _RACK_FIELDS) from None
    try:
        power = plan_power(power_request(r), network_figures(r, planes, bom), racks)
    except PowerInputError as exc:
        raise RequirementsError({k: [v] for k, v in exc.errors.items()}, unprocessable=True) from None
    glance = collectives_summary(r, planes.fabric) if collectives else {}
    roce = roce_sheet(r, planes.fabric, bom, catalog)
    growth = growth_option(planes.fabric_request, planes.fabric, planes.storage, planes.management, bom, breq, catalog)
    book = copy.deepcopy(catalog.price_book)  # the plan's own: the catalog may be shared (same_catalog)
    plan = ClusterPlan(r, planes, bom, power, glance, book, inputs, scheduler, roce, growth)
    check_fits_batch(plan)  # the workload's classes against the batch partition
    return plan


# --- the one list of checks ----------------------------------------------------------------------------------
# Each check: section, name, field (the flat requirement to change), ok, info (a note, not a verdict) and message
# (its figures and derivation). Sections in the pipeline's order; a section with no checks has no entries (power
# and the scheduler refuse what they cannot plan on the field instead: a design that saves has passed them).
CHECK_SECTIONS = ("fabric", "storage", "bom", "racks", "power", "scheduler", "workload", "roce")
RACK_CHECK_FIELDS = frozenset({"rack_u", "nodes_per_rack", "rack_budget_kw"})  # BOM-borne checks on the racks
ROCE_BUFFER_FIELD = next(f.flat for f in FIELDS if f.key == "roce_switch_buffer_mb")
CHECK_NAMES = {
    "storage_switch_port_gbps": "storage link speed",
    "storage_node_count": "storage servers",
    "growth_headroom_pct": "growth headroom",
    "catalog": "catalog part",
    "price_book": "price book currency",
    "rack_u": "rack height",
    "nodes_per_rack": "nodes per rack",
    "rack_budget_kw": "rack power",
    "racks_per_row": "cable reach",  # bom.layout.reach_checks
}


def check(section: str, field: str, ok: bool, message: str, *, name: str = "", info: bool = False) -> dict[str, Any]:
    """One entry of the list."""
    return {
        "section": section,
        "name": name or CHECK_NAMES.get(field, field.replace("_", " ")),
        "field": field,
        "ok": bool(ok),
        "info": bool(info),
        "message": message,
    }


def _engine_checks(section: str, checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [check(section, c.get("field", ""), c["ok"], c["message"], info=c.get("info", False)) for c in checks]


_ROCE_NAMES = (("switch buffer", "switch buffer"), ("ECN", "ECN before PFC"))


def _roce_checks(roce: dict[str, Any] | None) -> list[dict[str, Any]]:
    out = []
    for c in (roce or {}).get("checks", []):
        m = c["message"]
        name = next((n for prefix, n in _ROCE_NAMES if m.startswith(prefix)), "PFC headroom")
        out.append(check("roce", ROCE_BUFFER_FIELD, c["ok"], m, name=name))
    return out


def gather_checks(
    result: dict[str, Any], *, fabric: list[dict[str, Any]] = (), workload: list[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The one list from a result's sections: storage (topology/storage_plane.py), the BOM's (bom/build.py; its
    floor-plan checks on rack height and nodes per rack are the racks section), RoCE (scheduling/roce.py), and the
    fabric and workload checks the plan makes (:func:`fabric_checks`, :func:`workload_checks`), in
    :data:`CHECK_SECTIONS` order."""
    bom = (result.get("bom") or {}).get("checks", [])
    out = [
        *fabric,
        *_engine_checks("storage", (result.get("storage") or {}).get("checks", [])),
        *_engine_checks("bom", [c for c in bom if c.get("field") not in RACK_CHECK_FIELDS]),
        *_engine_checks("racks", [c for c in bom if c.get("field") in RACK_CHECK_FIELDS]),
        *workload,
        *_roce_checks(result.get("roce")),
    ]
    return sorted(out, key=lambda c: CHECK_SECTIONS.index(c["section"]))  # stable: each section in its own order


def checks_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    """A stored result's one list: the list it was saved with, or — a revision saved before the list existed —
    gathered from its sections (no fabric or workload checks: those need the plan; save it again)."""
    return list(result["checks"]) if "checks" in result else gather_checks(result)


def failing(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in checks if not c["ok"]]


def with_drawn_racks(checks: list[dict[str, Any]], drawn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The list an export that draws every rack shows: the one list, and what the drawing finds
    (bom.elevation.Elevations.checks) when the plan's racks checks found nothing — a failing racks check (a rack
    height or nodes-per-rack disagreement) already explains an overfull or overloaded drawn rack."""
    if failing([c for c in checks if c["section"] == "racks"]):
        return list(checks)
    extra = [check("racks", c["field"], False, c["message"], name="drawn racks") for c in failing(drawn)]
    return sorted([*checks, *extra], key=lambda c: CHECK_SECTIONS.index(c["section"]))


def fabric_checks(planes: Planes) -> list[dict[str, Any]]:
    """The leaves' uplinks against the chapter's B_min = N × B ÷ O (seed §14.1), on a fabric with uplinks."""
    sizing = fabric_sizing(planes.fabric, planes.fabric_request)
    if not sizing or planes.fabric.tier_count < 2:
        return []
    have, need = sizing["leaf_uplink_port_count"], sizing["min_uplink_port_count"]
    d = sizing["derivations"]
    return [
        check(
            "fabric",
            "oversubscription",
            have >= need,
            f"leaf uplinks {have:,} {'≥' if have >= need else '<'} the {need:,} ports B_min needs: "
            f"{d['min_uplink_bandwidth_gbps']}; {d['min_uplink_port_count']}; {d['leaf_uplink_port_count']}",
            name="uplinks carry B_min",
        )
    ]


def workload_checks(plan: ClusterPlan) -> list[dict[str, Any]]:
    """Can the design's workload be simulated on its batch partition? Everything the job generator would refuse
    (scheduling/workload.py expected_job_count: a class larger than the partition, shares, the job count), checked
    without drawing a job. The seed's Table 14-24 (no classes given) is checked too: it is what a simulation runs."""
    if plan.scheduler is None or not plan.scheduler.partitions:
        return []
    w, parts = plan.requirements.workload, plan.scheduler
    part = parts.partitions[0]
    gpus = part.nodes.count * parts.gpus_per_node
    profile = profile_of(w)
    try:
        jobs = expected_job_count(
            profile, cluster_gpus=gpus, load=w.offered_load_pct / 100, horizon_h=w.days * 24,
            jobs_per_day=w.jobs_per_day if w.arrival == "jobs_per_day" else None,
        )  # fmt: skip
    except SchedulerInputError as exc:
        where = f"{profile.name} cannot run on the batch partition {part.name} ({gpus:,} GPUs): "
        fix = " — give job classes that fit it (workload classes) or a larger batch partition"
        return [
            check("workload", "wl_" + key.removeprefix("workload."), False, where + message + fix, name="simulable")
            for key, message in mapped(exc).errors.items()
        ]
    largest = max(c.max_gpus for c in profile.classes)
    return [
        check(
            "workload",
            "wl_classes",
            True,
            f"{profile.name}: {len(profile.classes)} classes, the largest {largest:,} GPUs, fit the batch partition "
            f"{part.name} ({gpus:,} GPUs); about {jobs:,.0f} jobs in {w.days:g} days",
            name="simulable",
        )
    ]
