"""The bridge: requirements → validated spec → pure engines → result JSON.

Only designer/ touches Django; topology/ stays pure. Every caller — the form, the API
and the CLI — comes through :func:`evaluate_flat` (after :func:`validate_flat`), so the
same checks and the same error messages reach every user.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bom.build import Bom, BomPolicy, PartPicker, Roles, build_bom, find_nic, find_switch
from bom.layout import RackLayout
from bom.links import ClusterShape, all_links
from bom.parts import PartKind, PartSpec
from designer.requirements import RequirementsError, flatten, validate_flat
from power import PowerInputError
from topology import FabricPlan, FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.management_plane import ManagementPlan, ManagementRequest, plan_management
from topology.sizing import aggregate_bandwidth_gbps, min_uplink_bandwidth_gbps, ports_for_bandwidth
from topology.storage_plane import StoragePlan, StorageRequest, plan_storage

RESULT_SCHEMA_VERSION = 2

# engine field → requirements field, per engine
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
_MGMT_FIELDS = {
    "compute_node_count": "gpu_count",
    "login_node_count": "login_node_count",
    "storage_node_count": "storage_node_count",
}


def _mapped(exc: FabricRequestError, mapping: dict[str, str], prefix: str = "") -> RequirementsError:
    errors: dict[str, list[str]] = {}
    for field, message in exc.errors.items():
        name = mapping.get(field) or (f"{prefix}{field}" if prefix and not field.startswith(prefix) else field)
        errors.setdefault(name, []).append(message)
    return RequirementsError(errors)


@dataclass(frozen=True)
class Evaluation:
    requirements: dict[str, Any]
    fabric: FabricPlan
    result: dict[str, Any]
    storage: StoragePlan | None = None
    management: ManagementPlan | None = None
    bom: Bom | None = None


def fabric_request(r: dict[str, Any]) -> FabricRequest:
    dims = r.get("torus_dims") or ""
    return FabricRequest(
        topology=Topology(r["topology"]),
        node_count=r["gpu_count"] // r["gpus_per_node"],
        nics_per_node=r["nics_per_node"],
        nic_gbps=float(r["nic_gbps"]),
        switch_radix=r["switch_radix"],
        switch_port_gbps=float(r["switch_port_gbps"]),
        oversubscription=float(r["oversubscription"]),
        agg_oversubscription=float(r["agg_oversubscription"]),
        tiers=r.get("tiers"),
        scalable_unit_nodes=r.get("scalable_unit_nodes"),
        leaves_per_group=r.get("leaves_per_group"),
        global_oversubscription=float(r["global_oversubscription"]),
        chips_per_node=r["gpus_per_node"],
        torus_dims=tuple(int(x) for x in dims.split("x")) if dims else None,
        torus_link_gbps=float(r["torus_link_gbps"]),
    )


def storage_request(r: dict[str, Any]) -> StorageRequest:
    return StorageRequest(
        compute_node_count=r["gpu_count"] // r["gpus_per_node"],
        gpu_count=r["gpu_count"],
        storage_nics_per_node=r["storage_nics_per_node"],
        storage_nic_gbps=float(r["storage_nic_gbps"]),
        storage_node_count=r["storage_node_count"],
        drives_per_node=r["storage_drives_per_node"],
        drive_tb=float(r["storage_drive_tb"]),
        raid_data_drives=r["storage_raid_data_drives"],
        raid_parity_drives=r["storage_raid_parity_drives"],
        storage_node_nics=r["storage_node_nics"],
        storage_node_nic_gbps=float(r["storage_node_nic_gbps"]),
        switch_radix=r["storage_switch_radix"],
        switch_port_gbps=float(r["storage_switch_port_gbps"]),
        oversubscription=float(r["storage_oversubscription"]),
        switch_count=r.get("storage_switch_count"),
        model_params_billion=float(r["checkpoint_params_billion"]),
        weights_bytes_per_param=float(r["weights_bytes_per_param"]),
        checkpoint_bytes_per_param=float(r["checkpoint_bytes_per_param"]),
        checkpoint_shard_mb=r.get("checkpoint_shard_mb"),
        checkpoint_window_s=float(r["checkpoint_window_s"]),
        dataloader_read_gbyte_s_per_gpu=float(r["dataloader_read_gbyte_s_per_gpu"]),
        required_usable_tb=r.get("storage_required_usable_tb"),
    )


def management_request(r: dict[str, Any]) -> ManagementRequest:
    return ManagementRequest(
        compute_node_count=r["gpu_count"] // r["gpus_per_node"],
        storage_node_count=r["storage_node_count"],
        mgmt_node_count=r["mgmt_node_count"],
        login_node_count=r["login_node_count"],
        nodes_per_tor=r["mgmt_nodes_per_tor"],
        ports_per_node=r["mgmt_ports_per_node"],
        tor_access_ports=r["mgmt_tor_access_ports"],
        tor_access_gbps=float(r["mgmt_tor_access_gbps"]),
        tor_uplinks=r["mgmt_tor_uplinks"],
        tor_uplink_ports=r["mgmt_tor_uplink_ports"],
        uplink_gbps=float(r["mgmt_uplink_gbps"]),
        spine_ports=r["mgmt_spine_ports"],
        min_spines=r["mgmt_min_spines"],
    )


def fabric_sizing(plan: FabricPlan, req: FabricRequest) -> dict[str, Any]:
    """The chapter's aggregate check (B_min = N × B / O) next to what the plan bought."""
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


def plan_planes(r: dict[str, Any]) -> tuple[FabricRequest, FabricPlan, StoragePlan, ManagementPlan]:
    """The three network planes of validated requirements; engine errors land on the user's fields."""
    try:
        freq = fabric_request(r)
        plan = plan_fabric(freq)
    except FabricRequestError as exc:
        raise _mapped(exc, _FABRIC_FIELDS) from None
    try:
        storage = plan_storage(storage_request(r))
    except FabricRequestError as exc:
        raise _mapped(exc, _STORAGE_FIELDS) from None
    try:
        mgmt = plan_management(management_request(r))
    except FabricRequestError as exc:
        raise _mapped(exc, _MGMT_FIELDS, prefix="mgmt_") from None
    return freq, plan, storage, mgmt


def evaluate_flat(r: dict[str, Any]) -> Evaluation:
    """Compute every plane from validated flat requirements (see validate_flat)."""
    freq, plan, storage, mgmt = plan_planes(r)
    compute = plan.to_dict()
    compute["sizing"] = fabric_sizing(plan, freq)
    storage_d = storage.to_dict()
    mgmt_d = mgmt.to_dict()
    catalog, book = current_catalog()
    bom = network_bom(r, plan, storage, mgmt, catalog)
    bom_d = bom.to_dict()
    bom_d["price_book"] = book
    try:
        power = power_section(r, plan, storage, mgmt, bom)
    except PowerInputError as exc:
        raise RequirementsError({k: [v] for k, v in exc.errors.items()}) from None
    result = {
        "schema_version": RESULT_SCHEMA_VERSION,
        "cluster": {
            "name": r["name"],
            "gpu_model": r["gpu_model"],
            "gpu_count": r["gpu_count"],
            "node_count": r["gpu_count"] // r["gpus_per_node"],
            "gpus_per_node": r["gpus_per_node"],
        },
        "compute_fabric": compute,
        "storage": storage_d,
        "management": mgmt_d,
        "bom": bom_d,
        "power": power,
        "collectives": collectives_summary(r, plan),
        "summary": {
            "gpu_count": r["gpu_count"],
            "compute_switch_count": plan.switch_count,
            "compute_link_count": plan.link_count,
            "compute_bisection_tbyte_s": round(plan.bisection_tbyte_s, 6),
            "storage_switch_count": storage.switch_count,
            "storage_usable_tb": round(storage.usable_tb, 3),
            "checkpoint_write_gbyte_s": round(storage.checkpoint_write_gbyte_s, 3),
            "management_switch_count": mgmt.tor_count + mgmt.spine_count,
            "switch_count": plan.switch_count + storage.switch_count + mgmt.tor_count + mgmt.spine_count,
            "network_total_usd": bom_d["total_usd"],
            "it_kw": power["facility"]["it_kw"],
            "facility_kw": power["facility"]["facility_kw"],
            "rack_count": power["racks"]["rack_count"],
            "capex_usd": power["tco"]["capex_usd"],
            "opex_usd_per_year": power["tco"]["opex_usd_per_year"],
            "tco_usd": power["tco"]["total_usd"],
            "cost_per_gpu_hour_usd": power["tco"]["cost_per_gpu_hour_usd"],
        },
    }
    return Evaluation(requirements=r, fabric=plan, result=result, storage=storage, management=mgmt, bom=bom)


# --- bill of materials -----------------------------------------------------------------------


def current_catalog() -> tuple[list[PartSpec], dict[str, Any]]:
    """The catalog priced from the current price book; the built-in defaults before migrations."""
    from django.db import DatabaseError

    from bom.catalog import DEFAULT_PARTS, DEFAULT_PRICE_BOOK
    from bom.models import PriceBook, catalog_specs

    try:
        book = PriceBook.current()
        if book is not None:
            return catalog_specs(book), book.info()
    except DatabaseError:
        pass
    return list(DEFAULT_PARTS), {**DEFAULT_PRICE_BOOK, "id": None, "built_in": True}


def cluster_shape(r: dict[str, Any]) -> ClusterShape:
    return ClusterShape(
        node_count=r["gpu_count"] // r["gpus_per_node"],
        nics_per_node=r["nics_per_node"],
        gpus_per_node=r["gpus_per_node"],
        storage_nics_per_node=r["storage_nics_per_node"],
        storage_nic_gbps=float(r["storage_nic_gbps"]),
        storage_node_count=r["storage_node_count"],
        storage_node_nics=r["storage_node_nics"],
        storage_node_nic_gbps=float(r["storage_node_nic_gbps"]),
        mgmt_node_count=r["mgmt_node_count"],
        login_node_count=r["login_node_count"],
        mgmt_nodes_per_tor=r["mgmt_nodes_per_tor"],
        mgmt_tor_access_gbps=float(r["mgmt_tor_access_gbps"]),
        mgmt_tor_uplinks=r["mgmt_tor_uplinks"],
        mgmt_uplink_gbps=float(r["mgmt_uplink_gbps"]),
    )


def rack_layout(r: dict[str, Any]) -> RackLayout:
    return RackLayout(nodes_per_rack=r["nodes_per_rack"], racks_per_row=r["racks_per_row"])


def bom_roles(r: dict[str, Any], catalog: list[PartSpec]) -> Roles:
    torus = r["topology"] == Topology.TORUS_3D
    return Roles(
        compute_switch=find_switch(
            catalog, name=r.get("switch_model") or "", radix=r["switch_radix"], port_gbps=float(r["switch_port_gbps"])
        ),
        storage_switch=find_switch(
            catalog, radix=r["storage_switch_radix"], port_gbps=float(r["storage_switch_port_gbps"])
        ),
        mgmt_tor=find_switch(catalog, radix=r["mgmt_tor_access_ports"], port_gbps=float(r["mgmt_tor_access_gbps"])),
        mgmt_spine=find_switch(catalog, radix=r["mgmt_spine_ports"], port_gbps=float(r["mgmt_uplink_gbps"])),
        compute_nic=None if torus else find_nic(catalog, float(r["nic_gbps"])),
        storage_nic=find_nic(catalog, float(r["storage_nic_gbps"])),
        storage_node_nic=find_nic(catalog, float(r["storage_node_nic_gbps"])),
    )


def bom_policy(r: dict[str, Any]) -> BomPolicy:
    from decimal import Decimal

    def pct(name: str) -> Decimal:
        return Decimal(str(r[name]))

    return BomPolicy(
        media=r["bom_media"],
        spares_pct={
            PartKind.SWITCH: pct("spares_switch_pct"),
            PartKind.NIC: pct("spares_nic_pct"),
            PartKind.TRANSCEIVER: pct("spares_transceiver_pct"),
            PartKind.CABLE: pct("spares_cable_pct"),
        },
        growth_headroom_pct=pct("growth_headroom_pct"),
    )


def plane_links(r: dict[str, Any], plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan):
    return all_links(plan, storage, mgmt, cluster_shape(r), rack_layout(r))


def network_bom(
    r: dict[str, Any], plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, catalog: list[PartSpec]
) -> Bom:
    roles = bom_roles(r, catalog)
    nodes = r["gpu_count"] // r["gpus_per_node"]
    switches: list[tuple[str, str, str, int, str]] = [
        ("compute", "compute_switch", t.name, t.switch_count, t.derivation) for t in plan.tiers
    ]
    if storage.fabric is not None:
        switches += [("storage", "storage_switch", t.name, t.switch_count, t.derivation) for t in storage.fabric.tiers]
    else:
        switches.append(
            ("storage", "storage_switch", "mesh", storage.switch_count, storage.derivations["switch_count"])
        )
    switches += [
        ("management", "mgmt_tor", "ToR", mgmt.tor_count, mgmt.derivations["tor_count"]),
        ("management", "mgmt_spine", "spine", mgmt.spine_count, mgmt.derivations["spine_count"]),
    ]
    nics: dict[str, list[tuple[PartSpec, int, str]]] = {"compute": [], "storage": []}
    if roles.compute_nic is not None:
        nics["compute"].append(
            (roles.compute_nic, nodes * r["nics_per_node"], f"{nodes:,} nodes × {r['nics_per_node']} NICs")
        )
    nics["storage"].append(
        (
            roles.storage_nic,
            nodes * r["storage_nics_per_node"],
            f"{nodes:,} compute nodes × {r['storage_nics_per_node']} storage NICs",
        )
    )
    nics["storage"].append(
        (
            roles.storage_node_nic,
            r["storage_node_count"] * r["storage_node_nics"],
            f"{r['storage_node_count']} storage servers × {r['storage_node_nics']} NICs",
        )
    )
    tier_ports = {
        "compute": [(t.name, t.ports_used_total, t.ports_free_total) for t in plan.tiers[:1]],
        "management": [
            ("ToR", mgmt.access_port_count, mgmt.tor_count * r["mgmt_tor_access_ports"] - mgmt.access_port_count)
        ],
    }
    if storage.fabric is not None:
        tier_ports["storage"] = [(t.name, t.ports_used_total, t.ports_free_total) for t in storage.fabric.tiers[:1]]
    return build_bom(
        switches=switches,
        nic_counts=nics,
        links=plane_links(r, plan, storage, mgmt),
        roles=roles,
        picker=PartPicker(catalog),
        policy=bom_policy(r),
        tier_ports=tier_ports,
    )


def evaluate(data: Any) -> Evaluation:
    """Nested (file/API) requirements → validated → computed; errors keep the nested paths."""
    try:
        r = validate_flat(flatten(data))
        return evaluate_flat(r)
    except RequirementsError as exc:
        raise RequirementsError(exc.nested()) from None


def load_requirements_file(path: Path) -> Any:
    """Read a YAML (or JSON) requirements file; syntax errors become errors on 'file'."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RequirementsError({"file": [f"cannot read {path}: {exc.strerror}"]}) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RequirementsError({"file": [f"{path} is not valid YAML: {exc}"]}) from None


# --- saved designs ------------------------------------------------------------------------


def save_revision(design, user, requirements: dict[str, Any], evaluation: Evaluation, message: str = ""):
    """Append an immutable revision (inputs + results + derivations) to a design."""
    from django.db import transaction
    from django.db.models import Max
    from django.utils import timezone

    from designer.models import REQUIREMENT_FIELDS, Design, DesignRevision

    with transaction.atomic():
        Design.objects.select_for_update().filter(pk=design.pk).first()
        last = design.revisions.aggregate(n=Max("number"))["n"] or 0
        rev = DesignRevision(
            design=design,
            number=last + 1,
            author=user,
            results=evaluation.result,
            message=message[:200],
            **{name: requirements[name] for name in REQUIREMENT_FIELDS},
        )
        rev.save(force_insert=True)
        Design.objects.filter(pk=design.pk).update(updated_at=timezone.now())
    return rev


def create_design(user, requirements: dict[str, Any], evaluation: Evaluation, message: str = "created"):
    from designer.models import Design

    design = Design.objects.create(owner=user)
    save_revision(design, user, requirements, evaluation, message)
    return design


def clone_design(design, user):
    """A new design owned by ``user`` starting from the source's latest revision."""
    head = design.head
    requirements = head.requirements()
    requirements["name"] = f"{head.name} (copy)"[:200]
    evaluation = evaluate_flat(requirements)
    return create_design(user, requirements, evaluation, message=f"cloned from design {design.pk} r{head.number}")


def requirements_of(revision) -> dict[str, Any]:
    return revision.requirements()


# --- exports ---------------------------------------------------------------------------------


EXPORT_FORMATS = ("bom.xlsx", "bom.csv", "bom.json", "cabling.csv")


def cabling_plan(r: dict[str, Any], plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan):
    """Cut-sheet rows, one per cable, with the cable the BOM's media rule picks for it."""
    from bom.build import choose_media
    from bom.export import cabling_rows

    picker = PartPicker(current_catalog()[0])
    policy = bom_policy(r)
    return cabling_rows(plane_links(r, plan, storage, mgmt), lambda link: choose_media(link, policy, picker).label)


def revision_exports(revision) -> tuple[dict[str, Any], Any]:
    """The stored BOM of a revision and its cabling plan (the planes re-planned, nothing re-priced)."""
    r = revision.requirements()
    _freq, plan, storage, mgmt = plan_planes(r)
    bom = revision.results.get("bom") or evaluate_flat(r).result["bom"]
    return bom, cabling_plan(r, plan, storage, mgmt)


def export_bom(revision, fmt: str) -> tuple[bytes, str, str]:
    """(content, content type, filename) for bom.xlsx / bom.csv / bom.json / cabling.csv."""
    import json
    import re

    from bom.export import bom_csv, bom_xlsx, cabling_csv

    slug = re.sub(r"[^A-Za-z0-9]+", "-", revision.name).strip("-")[:60] or "design"
    base = f"{slug}-r{revision.number}"
    if fmt == "bom.json":
        bom = revision.results.get("bom") or evaluate_flat(revision.requirements()).result["bom"]
        return json.dumps(bom, indent=2).encode(), "application/json", f"{base}-bom.json"
    bom, cabling = revision_exports(revision)
    if fmt == "bom.csv":
        return bom_csv(bom).encode(), "text/csv", f"{base}-bom.csv"
    if fmt == "cabling.csv":
        return cabling_csv(cabling).encode(), "text/csv", f"{base}-cabling.csv"
    if fmt == "bom.xlsx":
        data = bom_xlsx(
            bom,
            design_name=revision.name,
            design_notes=revision.notes,
            revision=f"r{revision.number} by {revision.author.username}, {revision.created_at:%Y-%m-%d %H:%M}",
            cabling=cabling,
            extra_sheets=tco_sheet(revision.results),
        )
        return data, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", f"{base}-bom.xlsx"
    raise ValueError(f"unknown export {fmt!r}")


# --- power, racks, cooling, TCO, carbon ------------------------------------------------------


def network_power_w(bom: Bom) -> tuple[float, str]:
    """Switches + transceivers + active cables from the BOM (NICs are inside the servers)."""
    watts = 0.0
    parts = {"switch": 0.0, "transceiver": 0.0, "cable": 0.0}
    for ln in bom.lines:
        if ln.spare or ln.kind.value not in parts:
            continue
        parts[ln.kind.value] += ln.power_w * ln.quantity
        watts += ln.power_w * ln.quantity
    why = (
        f"from the BOM: switches {parts['switch'] / 1000:,.1f} kW + transceivers {parts['transceiver'] / 1000:,.1f} kW"
        f" + active cables {parts['cable'] / 1000:,.1f} kW"
    )
    return watts, why


def power_section(r: dict[str, Any], plan: FabricPlan, storage: StoragePlan, mgmt: ManagementPlan, bom: Bom):
    from decimal import Decimal

    from power.capping import plan_capping
    from power.carbon import TrainingRun, annual_co2_t, training_run_footprint
    from power.cooling import CoolingRequest, plan_cooling
    from power.facility import PUE_BY_COOLING, ItLoad, plan_facility
    from power.gpus import GPU_TDP_W
    from power.racks import RackRequest, plan_racks
    from power.tco import TcoInputs, line, total_cost_of_ownership

    nodes = r["gpu_count"] // r["gpus_per_node"]
    tdp = r.get("gpu_tdp_w") or GPU_TDP_W.get(r["gpu_model"], 700.0)
    if r.get("node_power_w"):
        node_w = float(r["node_power_w"])
        node_why = f"{node_w:,.0f} W as given"
    else:
        node_w = tdp * r["gpus_per_node"] + float(r["host_overhead_w"])
        node_why = f"{r['gpus_per_node']} × {tdp:g} W TDP + {float(r['host_overhead_w']):,.0f} W host = {node_w:,.0f} W"
    if r.get("network_power_kw") is not None:
        net_w, net_why = float(r["network_power_kw"]) * 1000, "as given"
    else:
        net_w, net_why = network_power_w(bom)
    load = ItLoad(
        nodes,
        node_w,
        r["storage_node_count"],
        float(r["storage_node_power_w"]),
        r["mgmt_node_count"] + r["login_node_count"],
        float(r["mgmt_node_power_w"]),
        net_w,
        float(r["average_load_frac"]),
    )
    upper = sum(t.switch_count for t in plan.tiers[1:]) + mgmt.spine_count
    if storage.fabric is not None:
        upper += sum(t.switch_count for t in storage.fabric.tiers[1:])
    racks = plan_racks(
        RackRequest(
            node_count=nodes,
            node_kw=node_w / 1000,
            node_u=r["node_u"],
            rack_budget_kw=float(r["rack_budget_kw"]),
            rack_u=r["rack_u"],
            racks_per_row=r["racks_per_row"],
            upper_switch_count=upper,
            storage_node_count=r["storage_node_count"],
            storage_node_kw=float(r["storage_node_power_w"]) / 1000,
            storage_node_u=r["storage_node_u"],
            mgmt_node_count=r["mgmt_node_count"] + r["login_node_count"],
            mgmt_node_kw=float(r["mgmt_node_power_w"]) / 1000,
            mgmt_node_u=r["mgmt_node_u"],
        )
    )
    cooling_choice = r.get("cooling_type") or ""
    # the PUE follows the cooling: choose the cooling first (by density when not given)
    from power.cooling import cooling_for_density

    kind = cooling_choice or cooling_for_density(racks.compute_rack_kw)
    pue = float(r["pue"]) if r.get("pue") is not None else PUE_BY_COOLING[kind]
    fac = plan_facility(
        load,
        pue=pue,
        electricity_usd_per_kwh=Decimal(str(r["electricity_usd_per_kwh"])),
        chain=r["electrical_chain"],
        network_source=net_why,
    )
    fac.derivations["compute_kw"] = f"{nodes:,} nodes × {node_why}"
    if r.get("pue") is None:
        fac.derivations["pue"] = f"typical for {kind.replace('_', ' ')} cooling (seed P4): {pue:g}"
    cooling = plan_cooling(
        CoolingRequest(
            rack_kw=racks.compute_rack_kw,
            it_kw=fac.it_kw,
            facility_kw=fac.facility_kw,
            cooling_type=cooling_choice,
            supply_c=float(r["coolant_supply_c"]),
            return_c=float(r["coolant_return_c"]),
            fluid=r["coolant_fluid"],
            cdu_unit_kw=float(r["cdu_unit_kw"]),
            heat_rejection_unit_kw=float(r["heat_rejection_unit_kw"]),
        )
    )
    budget_kw = float(r["capping_budget_kw"]) if r.get("capping_budget_kw") else fac.facility_kw
    capping = plan_capping(budget_kw, tdp, host_w_per_gpu=float(r["host_overhead_w"]) / r["gpus_per_node"], pue=pue)
    # TCO
    fac_kw = Decimal(fac.facility_kw_billed)
    net_capex = r.get("network_capex_usd")
    net_capex = Decimal(net_capex) if net_capex is not None else bom.total_usd()
    storage_capex = Decimal(r["storage_node_price_usd"]) * r["storage_node_count"]
    cooling_capex = r.get("cooling_capex_usd")
    cooling_capex = (
        Decimal(cooling_capex) if cooling_capex is not None else Decimal(r["cooling_capex_usd_per_kw"]) * fac_kw
    )
    facility_capex = r.get("facility_capex_usd")
    facility_capex = (
        Decimal(facility_capex) if facility_capex is not None else Decimal(r["facility_capex_usd_per_kw"]) * fac_kw
    )
    gpu_capex = Decimal(r["gpu_node_price_usd"]) * nodes
    hardware = gpu_capex + storage_capex + net_capex
    spares = r.get("spares_maintenance_usd_per_year")
    spares = Decimal(spares) if spares is not None else hardware / 100
    ops = Decimal(str(r["ops_fte"])) * Decimal(r["ops_usd_per_fte_year"])
    capex = (
        line("GPU nodes", gpu_capex, f"{nodes:,} × ${Decimal(r['gpu_node_price_usd']):,}"),
        line("Storage", storage_capex, f"{r['storage_node_count']} × ${Decimal(r['storage_node_price_usd']):,}"),
        line("Network", net_capex, "as given" if r.get("network_capex_usd") is not None else "the BOM total"),
        line("Management", Decimal(r["mgmt_capex_usd"]), "management and login servers, as given"),
        line(
            "Cooling plant",
            cooling_capex,
            "as given"
            if r.get("cooling_capex_usd") is not None
            else f"{fac_kw:,} kW × ${Decimal(r['cooling_capex_usd_per_kw']):,}/kW",
        ),
        line(
            "Facility works",
            facility_capex,
            "as given"
            if r.get("facility_capex_usd") is not None
            else f"{fac_kw:,} kW × ${Decimal(r['facility_capex_usd_per_kw']):,}/kW",
        ),
        line("Software licences", Decimal(r["software_capex_usd"]), "up front, as given"),
    )
    opex = (
        line("Electricity", fac.annual_electricity_usd, fac.derivations["annual_electricity_usd"]),
        line("Operations staff", ops, f"{r['ops_fte']:g} FTE × ${Decimal(r['ops_usd_per_fte_year']):,}"),
        line(
            "Spares & maintenance",
            spares,
            "as given" if r.get("spares_maintenance_usd_per_year") is not None else f"1 % of hardware ${hardware:,.0f}",
        ),
        line("Software", Decimal(r["software_usd_per_year"]), "subscriptions, as given"),
    )
    tco = total_cost_of_ownership(
        TcoInputs(
            capex,
            opex,
            r["tco_years"],
            r["gpu_count"],
            float(r["tco_utilisation_frac"]),
            float(r["discount_rate_pct"]) / 100,
        )
    )
    run = training_run_footprint(
        TrainingRun(
            r["gpu_count"],
            tdp,
            float(r["run_utilisation_frac"]),
            float(r["run_power_frac"]),
            pue,
            float(r["run_days"]),
            float(r["grid_kg_co2_per_kwh"]),
        )
    )
    year_t = annual_co2_t(fac.annual_kwh, float(r["grid_kg_co2_per_kwh"]))
    return {
        "gpu_tdp_w": tdp,
        "node_power_w": node_w,
        "facility": fac.to_dict(),
        "racks": racks.to_dict(),
        "cooling": cooling.to_dict(),
        "capping": capping.to_dict(),
        "tco": tco.to_dict(),
        "carbon": {
            "training_run": run.to_dict(),
            "annual_co2_t": round(year_t, 3),
            "derivations": {
                "annual_co2_t": f"{fac.annual_kwh:,.0f} kWh/year × {r['grid_kg_co2_per_kwh']:g} kg/kWh "
                f"= {year_t:,.1f} t CO₂ per year of operation"
            },
        },
    }


def tco_sheet(results: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The TCO as a sheet with live formulas: edit a CapEx or OpEx line and the totals follow."""
    from decimal import Decimal

    from bom.export import Formula

    power = results.get("power")
    if not power:
        return []
    t = power["tco"]
    rows: list[list[Any]] = []
    for c in t["capex"]:
        rows.append(["CapEx", c["name"], Decimal(c["amount_usd"]), c["derivation"]])
    first_opex = len(rows) + 2
    for c in t["opex_per_year"]:
        rows.append(["OpEx per year", c["name"], Decimal(c["amount_usd"]), c["derivation"]])
    n_cap, n_all = len(t["capex"]), len(rows)
    rows.append(["Total", "CapEx", Formula(f"=SUM(C2:C{n_cap + 1})"), ""])
    rows.append(["Total", "OpEx per year", Formula(f"=SUM(C{first_opex}:C{n_all + 1})"), ""])
    rows.append(["Total", "Years", t["years"], ""])
    r_cap, r_opex, r_years = n_all + 2, n_all + 3, n_all + 4
    rows.append(
        ["Total", f"{t['years']}-year total", Formula(f"=C{r_cap}+C{r_years}*C{r_opex}"), t["derivations"]["total_usd"]]
    )
    return [("TCO", ["Section", "Line", "USD", "Derivation"], rows)]


# --- collectives at a glance -------------------------------------------------------------------

GLANCE_SIZES_BYTES = (2**20, 2**28, 2**32)


def collectives_summary(r: dict[str, Any], plan: FabricPlan | None = None) -> dict[str, Any]:
    """NCCL-style cost of each collective at 1 MiB, 256 MiB and 4 GiB on this design."""
    import numpy as np

    from designer.sweeps import fabric_for
    from topology.collectives import Collective, Fabric, assumptions, collective_cost

    fabric, label = fabric_for(r, {}, plan=plan)
    kw = dict(fabric)
    if kw.get("torus_dims") is not None:
        kw["torus_dims"] = tuple(kw["torus_dims"])
    f = Fabric(**kw)
    rows = []
    for coll in Collective:
        cost = collective_cost(coll, np.array(GLANCE_SIZES_BYTES, dtype=float), f)
        for i, size in enumerate(GLANCE_SIZES_BYTES):
            t = float(cost.time_us[i])
            rows.append(
                {
                    "collective": coll.value,
                    "size_bytes": size,
                    "time_us": round(t, 3) if np.isfinite(t) else None,
                    "busbw_gbyte_s": round(float(cost.busbw_gbyte_s[i]), 3),
                    "algorithm": str(cost.algorithm[i]),
                    "protocol": str(cost.protocol[i]),
                }
            )
    return {"fabric": label, "rows": rows, "assumptions": assumptions()}
