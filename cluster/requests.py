"""Typed requirements → each engine's request. The only place a requirement reaches an engine.

Each engine takes frozen requests of its own (topology: FabricRequest, StorageRequest, ManagementRequest;
bom: BomRequest; power: PowerRequest, NodePowerRequest, RackFigures, …) and never imports this package:
what a requirement means for an engine is read here, the engine's formulas stay in the engine.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from bom.build import BomPolicy
from bom.layout import RackLayout, su_row_racks
from bom.links import ClusterShape
from bom.parts import PartKind
from bom.plan import BomRequest, RolesRequest
from cluster.requirements import Requirements
from power.cooling import default_rack_budget_kw
from power.plan import (
    CarbonRequest,
    NodePowerRequest,
    PowerRequest,
    RackFigures,
    TcoRequest,
    node_power_w,
    rack_scale_fields,
)
from power.rack_systems import rack_scale_system
from power.racks import nodes_per_rack, servers_per_rack
from topology import FabricRequest, FabricRequestError, Topology
from topology.management_plane import ManagementRequest
from topology.rail_optimized import leaf_block_nodes
from topology.storage_plane import StorageRequest, plan_storage
from topology.switches import SWITCH_MODELS


def tier_radix(r: Requirements, tier: str) -> int | None:
    """The radix of a spine or core model chosen for its tier (None: the leaf's). Per-tier models run
    the leaf's port speed: a different speed is a field error naming the models that match."""
    f = r.compute_fabric
    name = getattr(f, f"{tier}_switch_model")
    if not name:
        return None
    model = SWITCH_MODELS[name]
    if model.port_gbps != float(f.switch_port_gbps):
        same = sorted(m.name for m in SWITCH_MODELS.values() if m.port_gbps == float(f.switch_port_gbps))
        slower = model.port_gbps < float(f.nic_gbps) / f.nic_planes
        raise FabricRequestError.single(
            f"{tier}_switch_model",
            f"{name} runs {model.port_gbps:g}G ports"
            + (f", slower than the {float(f.nic_gbps) / f.nic_planes:g}G NIC ports" if slower else "")
            + f"; every tier runs the leaf's {float(f.switch_port_gbps):g}G: choose one of {', '.join(same)}",
        )
    return model.radix


def fabric_request(r: Requirements) -> FabricRequest:
    f = r.compute_fabric
    return FabricRequest(
        topology=Topology(f.topology),
        node_count=r.node_count,
        nics_per_node=f.nics_per_node,
        nic_gbps=float(f.nic_gbps),
        switch_radix=f.switch_radix,
        switch_port_gbps=float(f.switch_port_gbps),
        oversubscription=float(f.oversubscription),
        agg_oversubscription=float(f.agg_oversubscription),
        tiers=f.tiers,
        scalable_unit_nodes=f.scalable_unit_nodes,
        rail_groups=f.rail_groups,
        nic_planes=f.nic_planes,
        reserved_node_slots=f.reserved_node_slots,
        uplinks_for_full_leaf=f.uplinks_for_full_leaf,
        spine_radix=tier_radix(r, "spine"),
        core_radix=tier_radix(r, "core"),
        leaf_nodes=f.leaf_nodes,
        pod_nodes=f.pod_nodes,
        leaves_per_group=f.leaves_per_group,
        global_oversubscription=float(f.global_oversubscription),
        chips_per_node=r.cluster.gpus_per_node,
        torus_dims=f.torus_dims_tuple,
        torus_link_gbps=float(f.torus_link_gbps),
    )


def storage_request(r: Requirements) -> StorageRequest:
    s, c = r.storage, r.checkpoint
    return StorageRequest(
        compute_node_count=r.node_count,
        gpu_count=r.cluster.gpu_count,
        storage_nics_per_node=s.nics_per_node,
        storage_nic_gbps=float(s.nic_gbps),
        storage_node_count=s.node_count,
        drives_per_node=s.drives_per_node,
        drive_tb=float(s.drive_tb),
        raid_data_drives=s.raid_data_drives,
        raid_parity_drives=s.raid_parity_drives,
        storage_node_nics=s.node_nics,
        storage_node_nic_gbps=float(s.node_nic_gbps),
        switch_radix=s.switch_radix,
        switch_port_gbps=float(s.switch_port_gbps),
        oversubscription=float(s.oversubscription),
        switch_count=s.switch_count,
        model_params_billion=float(c.params_billion),
        weights_bytes_per_param=float(c.weights_bytes_per_param),
        checkpoint_bytes_per_param=float(c.bytes_per_param),
        checkpoint_shard_mb=c.shard_mb,
        checkpoint_window_s=float(c.window_s),
        dataloader_read_gbyte_s_per_gpu=float(s.dataloader_read_gbyte_s_per_gpu),
        required_usable_tb=s.required_usable_tb,
    )


def management_request(r: Requirements) -> ManagementRequest:
    m = r.management
    return ManagementRequest(
        compute_node_count=r.node_count,
        storage_node_count=r.storage.node_count,
        mgmt_node_count=m.node_count,
        login_node_count=m.login_node_count,
        nodes_per_tor=m.nodes_per_tor,
        ports_per_node=m.ports_per_node,
        tor_access_ports=m.tor_access_ports,
        tor_access_gbps=float(m.tor_access_gbps),
        tor_uplinks=m.tor_uplinks,
        tor_uplink_ports=m.tor_uplink_ports,
        uplink_gbps=float(m.uplink_gbps),
        spine_ports=m.spine_ports,
        min_spines=m.min_spines,
    )


def compute_tier_roles(r: Requirements) -> tuple[str, str, str]:
    """The BOM role of each compute tier: a spine or core with a model of its own is bought as its own part."""
    f = r.compute_fabric
    return (
        "compute_switch",
        "compute_spine_switch" if f.spine_switch_model else "compute_switch",
        "compute_core_switch" if f.core_switch_model else "compute_switch",
    )


def cluster_shape(r: Requirements) -> ClusterShape:
    s, m = r.storage, r.management
    return ClusterShape(
        node_count=r.node_count,
        nics_per_node=r.compute_fabric.nics_per_node,
        nic_planes=r.compute_fabric.nic_planes,
        compute_tier_roles=compute_tier_roles(r),
        gpus_per_node=r.cluster.gpus_per_node,
        storage_nics_per_node=s.nics_per_node,
        storage_nic_gbps=float(s.nic_gbps),
        storage_node_count=s.node_count,
        storage_node_nics=s.node_nics,
        storage_node_nic_gbps=float(s.node_nic_gbps),
        mgmt_node_count=m.node_count,
        login_node_count=m.login_node_count,
        mgmt_nodes_per_tor=m.nodes_per_tor,
        mgmt_tor_access_gbps=float(m.tor_access_gbps),
        mgmt_tor_uplinks=m.tor_uplinks,
        mgmt_uplink_gbps=float(m.uplink_gbps),
        ufm_server_count=r.compute_fabric.ufm_server_count,
        ufm_ports_per_server=r.compute_fabric.ufm_ports_per_server,
        ufm_gbps=float(r.compute_fabric.nic_gbps),
        device_count=r.compute_fabric.attached_device_count,
        device_ports=r.compute_fabric.attached_device_ports,
    )


def rack_layout(r: Requirements) -> RackLayout:
    """The floor plan: nodes per rack as given, else as the rack plan fills them, and servers per
    infrastructure rack as the rack plan counts them (power/racks.py). How many switches a network rack
    holds follows from the switches chosen (bom.plan.floor_plan)."""
    p, budget = r.power, float(r.power.rack_budget_kw)
    per_row, superpod = floor_racks_per_row(r)
    return RackLayout(
        nodes_per_rack=floor_plan_nodes_per_rack(r),
        racks_per_row=per_row,
        point_to_point=superpod,
        storage_per_rack=servers_per_rack(float(p.storage_node_power_w) / 1000, p.storage_node_u, budget, p.rack_u),
        servers_per_rack=servers_per_rack(float(p.mgmt_node_power_w) / 1000, p.mgmt_node_u, budget, p.rack_u),
    )


def floor_racks_per_row(r: Requirements) -> tuple[int, bool]:
    """(racks a row, laid out as the DGX SuperPOD reference): a rail-optimized fabric of scalable units of generic
    nodes stands one SU a row with point-to-point fibre (bom.layout.su_row_racks, RA-11333-001 Figures 2–3,
    Table 8); any other design the rows asked for, with panels."""
    f = r.compute_fabric
    su = None
    if Topology(f.topology) == Topology.RAIL_OPTIMIZED and rack_scale_system(r.cluster.gpu_model) is None:
        try:  # one leaf block a row: SUs smaller than the leaf share its leaves (topology.rail_optimized)
            block = leaf_block_nodes(fabric_request(r))
        except FabricRequestError:  # refused on its field by the fabric plan itself
            block = f.scalable_unit_nodes
        su = su_row_racks(block, floor_plan_nodes_per_rack(r), r.bom.racks_per_row)
    return (su, True) if su else (r.bom.racks_per_row, False)


def floor_plan_nodes_per_rack(r: Requirements) -> int:
    if r.bom.nodes_per_rack is not None:
        return r.bom.nodes_per_rack
    system = rack_scale_system(r.cluster.gpu_model)
    if system is not None:
        return system.compute_trays
    p = r.power
    return max(
        1, nodes_per_rack(node_power_w(node_power_request(r))[0] / 1000, p.node_u, float(p.rack_budget_kw), p.rack_u)
    )


def bom_policy(r: Requirements) -> BomPolicy:
    b = r.bom

    def pct(value: float) -> Decimal:
        return Decimal(str(value))

    return BomPolicy(
        media=b.media,
        spares_pct={
            PartKind.SWITCH: pct(b.spares_switch_pct),
            PartKind.NIC: pct(b.spares_nic_pct),
            PartKind.TRANSCEIVER: pct(b.spares_transceiver_pct),
            PartKind.CABLE: pct(b.spares_cable_pct),
        },
        growth_headroom_pct=None if b.growth_headroom_pct is None else pct(b.growth_headroom_pct),
        nic_cage=r.compute_fabric.nic_cage,
    )


def roles_request(r: Requirements) -> RolesRequest:
    f, s, m = r.compute_fabric, r.storage, r.management
    return RolesRequest(
        compute_switch_model=f.switch_model or "",
        compute_switch_radix=f.switch_radix,
        compute_switch_port_gbps=float(f.switch_port_gbps),
        compute_spine_switch_model=f.spine_switch_model,
        compute_core_switch_model=f.core_switch_model,
        compute_nic_gbps=None if f.topology == Topology.TORUS_3D else float(f.nic_gbps),
        compute_nic_cage=f.nic_cage,
        storage_switch_radix=s.switch_radix,
        storage_switch_port_gbps=float(s.switch_port_gbps),
        storage_nic_gbps=float(s.nic_gbps),
        storage_node_nic_gbps=float(s.node_nic_gbps),
        mgmt_tor_ports=m.tor_access_ports,
        mgmt_tor_port_gbps=float(m.tor_access_gbps),
        mgmt_tor_uplinks=m.tor_uplinks,
        mgmt_spine_ports=m.spine_ports,
        mgmt_spine_port_gbps=float(m.uplink_gbps),
    )


def node_power_request(r: Requirements) -> NodePowerRequest:
    p = r.power
    return NodePowerRequest(
        gpu_model=r.cluster.gpu_model,
        gpus_per_node=r.cluster.gpus_per_node,
        gpu_tdp_w=p.gpu_tdp_w,
        node_power_w=p.node_power_w,
        host_overhead_w=p.host_overhead_w,
    )


def rack_figures(r: Requirements) -> RackFigures:
    """The rack plan's figures: a rack-scale system's compute tray is its node; the fabric-management servers
    and attached devices stand with the management and login servers."""
    f, p = r.compute_fabric, r.power
    infra = r.management.node_count + r.management.login_node_count + f.ufm_server_count + f.attached_device_count
    system = rack_scale_system(r.cluster.gpu_model)
    return RackFigures(
        **rack_scale_fields(system),
        node_count=r.node_count,
        node_kw=node_power_w(node_power_request(r))[0] / 1000,
        node_u=system.tray_u if system is not None else p.node_u,
        rack_budget_kw=float(p.rack_budget_kw),
        rack_u=p.rack_u,  # storage and management racks; a rack-scale system comes in its own rack
        racks_per_row=floor_racks_per_row(r)[0],
        storage_node_count=r.storage.node_count,
        storage_node_kw=float(p.storage_node_power_w) / 1000,
        storage_node_u=p.storage_node_u,
        mgmt_node_count=infra,
        mgmt_node_kw=float(p.mgmt_node_power_w) / 1000,
        mgmt_node_u=p.mgmt_node_u,
    )


def bom_request(r: Requirements) -> BomRequest:
    """What the network BOM, the cut sheet and the elevations read; the requirements are resolved first, as
    the pipeline resolves them (nothing changes on resolved requirements)."""
    r = resolve(r)
    p = r.power
    return BomRequest(
        roles=roles_request(r),
        policy=bom_policy(r),
        shape=cluster_shape(r),
        layout=rack_layout(r),
        racks=rack_figures(r),
        gpu_model=r.cluster.gpu_model,
        node_price_includes_nics=r.tco.node_price_includes_nics,
        pdu_kw=float(p.pdu_kw),
        node_w=node_power_w(node_power_request(r))[0],
        storage_node_w=float(p.storage_node_power_w),
        mgmt_node_w=float(p.mgmt_node_power_w),
    )


def tco_request(r: Requirements) -> TcoRequest:
    t = r.tco
    return TcoRequest(
        years=t.years,
        node_count=r.node_count,
        storage_node_count=r.storage.node_count,
        gpu_count=r.cluster.gpu_count,
        gpu_node_price_usd=Decimal(t.gpu_node_price_usd),
        storage_node_price_usd=Decimal(t.storage_node_price_usd),
        network_capex_usd=t.network_capex_usd,
        mgmt_capex_usd=Decimal(t.mgmt_capex_usd),
        cooling_capex_usd=t.cooling_capex_usd,
        cooling_capex_usd_per_kw=Decimal(t.cooling_capex_usd_per_kw),
        facility_capex_usd=t.facility_capex_usd,
        facility_capex_usd_per_kw=Decimal(t.facility_capex_usd_per_kw),
        software_capex_usd=Decimal(t.software_capex_usd),
        software_usd_per_year=Decimal(t.software_usd_per_year),
        ops_fte=t.ops_fte,
        ops_usd_per_fte_year=Decimal(t.ops_usd_per_fte_year),
        spares_maintenance_usd_per_year=t.spares_maintenance_usd_per_year,
        utilisation_frac=t.utilisation_frac,
        discount_rate_pct=t.discount_rate_pct,
    )


def power_request(r: Requirements) -> PowerRequest:
    """What the power, cooling, capping, TCO and carbon chain reads (power/plan.py); the requirements are resolved
    first, as for :func:`bom_request`."""
    r = resolve(r)
    p, c, m, k = r.power, r.cooling, r.management, r.carbon
    return PowerRequest(
        node=node_power_request(r),
        node_count=r.node_count,
        gpu_count=r.cluster.gpu_count,
        storage_node_count=r.storage.node_count,
        storage_node_w=float(p.storage_node_power_w),
        infra_node_count=m.node_count + m.login_node_count,
        mgmt_node_w=float(p.mgmt_node_power_w),
        average_load_frac=float(p.average_load_frac),
        cooling_type=c.type,
        pue=p.pue,
        electricity_usd_per_kwh=p.electricity_usd_per_kwh,
        electrical_chain=p.electrical_chain,
        coolant_supply_c=float(c.coolant_supply_c),
        coolant_return_c=float(c.coolant_return_c),
        coolant_fluid=c.coolant_fluid,
        cdu_unit_kw=float(c.cdu_unit_kw),
        heat_rejection_unit_kw=float(c.heat_rejection_unit_kw),
        capping_budget_kw=p.capping_budget_kw,
        tco=tco_request(r),
        carbon=CarbonRequest(
            grid_kg_co2_per_kwh=k.grid_kg_co2_per_kwh,
            run_days=k.run_days,
            run_utilisation_frac=k.run_utilisation_frac,
            run_power_frac=k.run_power_frac,
        ),
    )


MIN_STORAGE_NODES = 8


def resolve(r: Requirements) -> Requirements:
    """Fill the fields left for the tool to choose: the rack budget from the cooling type
    (power/cooling.py), the storage server count from what the storage plan says bandwidth and
    capacity need (at least 8; seed §14.8 starts from 8)."""
    if r.power.rack_budget_kw is None:
        budget, _ = default_rack_budget_kw(r.cooling.type, rack_scale_system(r.cluster.gpu_model) is not None)
        r = dataclasses.replace(r, power=dataclasses.replace(r.power, rack_budget_kw=budget))
    if r.storage.node_count is not None:
        return r
    probe = dataclasses.replace(r, storage=dataclasses.replace(r.storage, node_count=MIN_STORAGE_NODES))
    try:
        need = plan_storage(storage_request(probe))
    except FabricRequestError:
        return probe  # the planes report the refusal on the user's fields
    count = max(MIN_STORAGE_NODES, need.storage_nodes_for_bandwidth, need.storage_nodes_for_capacity)
    return dataclasses.replace(r, storage=dataclasses.replace(r.storage, node_count=count))
