"""Typed requirements → each engine's request. The only place a requirement reaches an engine."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from bom.build import BomPolicy
from bom.layout import RackLayout
from bom.links import ClusterShape
from bom.parts import PartKind
from cluster.requirements import Requirements
from power.cooling import default_rack_budget_kw
from power.rack_systems import rack_scale_system
from topology import FabricRequest, FabricRequestError, Topology
from topology.management_plane import ManagementRequest
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
    holds follows from the switches chosen (bom.plan.network_racking)."""
    from power.racks import servers_per_rack

    p, budget = r.power, float(r.power.rack_budget_kw)
    return RackLayout(
        nodes_per_rack=floor_plan_nodes_per_rack(r),
        racks_per_row=r.bom.racks_per_row,
        storage_per_rack=servers_per_rack(float(p.storage_node_power_w) / 1000, p.storage_node_u, budget, p.rack_u),
        servers_per_rack=servers_per_rack(float(p.mgmt_node_power_w) / 1000, p.mgmt_node_u, budget, p.rack_u),
    )


def floor_plan_nodes_per_rack(r: Requirements) -> int:
    if r.bom.nodes_per_rack is not None:
        return r.bom.nodes_per_rack
    system = rack_scale_system(r.cluster.gpu_model)
    if system is not None:
        return system.compute_trays
    from power.plan import node_power_w
    from power.racks import nodes_per_rack

    p = r.power
    return max(1, nodes_per_rack(node_power_w(r)[0] / 1000, p.node_u, float(p.rack_budget_kw), p.rack_u))


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
