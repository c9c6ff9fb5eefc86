"""Storage plane: capacity, checkpoint bursts, data-loader reads and storage switches.

Seed chapter §14.8 (seed-figures.md D6, D8–D10): 8 storage nodes × 24 × 15.36 TB NVMe,
RAID6 8+2, 2 × 200GbE per storage node; 2 × 100GbE storage NICs per compute node;
a 70B-parameter model; ~274 MB FSDP shard per GPU written in a 60 s window.

Ethernet links run at the slower end's speed (a 200GbE NIC on a 100GbE port
negotiates 100G), so bandwidth figures use the link speed and say when a NIC is
throttled. The storage switches form a leaf–spine sized by the Clos engine, or —
when the user fixes a switch count — a full mesh whose port budget is checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from topology.fat_tree import plan_fat_tree
from topology.spec import FabricPlan, FabricRequest, FabricRequestError, Topology

MB_PER_GB = 1000  # decimal units, as drive and NIC vendors count
ADAM_MIXED_PRECISION_BYTES_PER_PARAM = 14.0
"""bf16 weights (2) + fp32 master weights (4) + Adam first and second moments (4 + 4)."""


@dataclass(frozen=True)
class StorageRequest:
    """Every figure but the mesh's links per pair comes from the requirements (cluster/requests.py): no policy
    defaults here."""

    compute_node_count: int
    gpu_count: int
    storage_nics_per_node: int
    storage_nic_gbps: float
    storage_node_count: int
    drives_per_node: int
    drive_tb: float
    raid_data_drives: int
    raid_parity_drives: int
    storage_node_nics: int
    storage_node_nic_gbps: float
    switch_radix: int
    switch_port_gbps: float
    oversubscription: float
    switch_count: int | None  # None: sized from the bandwidth
    model_params_billion: float
    weights_bytes_per_param: float
    checkpoint_bytes_per_param: float
    checkpoint_shard_mb: float | None  # None: the whole checkpoint of the model's parameters
    checkpoint_window_s: float
    dataloader_read_gbyte_s_per_gpu: float
    required_usable_tb: float | None
    mesh_links_per_pair: int = 1  # the requirements have no field for it: one link per switch pair

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}
        for name in (
            "compute_node_count",
            "gpu_count",
            "storage_nics_per_node",
            "storage_node_count",
            "drives_per_node",
            "raid_data_drives",
            "storage_node_nics",
            "switch_radix",
            "mesh_links_per_pair",
        ):
            if getattr(self, name) < 1:
                errors[name] = f"must be at least 1, got {getattr(self, name)}"
        if self.raid_parity_drives < 0:
            errors["raid_parity_drives"] = f"must be ≥ 0, got {self.raid_parity_drives}"
        if self.raid_data_drives + self.raid_parity_drives > self.drives_per_node:
            errors["raid_data_drives"] = (
                f"a RAID group of {self.raid_data_drives}+{self.raid_parity_drives} needs "
                f"{self.raid_data_drives + self.raid_parity_drives} drives, more than the "
                f"{self.drives_per_node} per node"
            )
        for name in (
            "storage_nic_gbps",
            "drive_tb",
            "storage_node_nic_gbps",
            "switch_port_gbps",
            "model_params_billion",
            "weights_bytes_per_param",
            "checkpoint_bytes_per_param",
            "checkpoint_window_s",
        ):
            if not getattr(self, name) > 0:
                errors[name] = f"must be positive, got {getattr(self, name)}"
        if self.dataloader_read_gbyte_s_per_gpu < 0:
            errors["dataloader_read_gbyte_s_per_gpu"] = "must be ≥ 0"
        if self.checkpoint_shard_mb is not None and not self.checkpoint_shard_mb > 0:
            errors["checkpoint_shard_mb"] = f"must be positive, got {self.checkpoint_shard_mb}"
        if self.oversubscription < 1:
            errors["oversubscription"] = f"must be ≥ 1, got {self.oversubscription}"
        if self.switch_count is not None and self.switch_count < 1:
            errors["switch_count"] = f"must be at least 1, got {self.switch_count}"
        if errors:
            raise FabricRequestError(errors)


@dataclass(frozen=True)
class StoragePlan:
    raw_tb: float
    usable_tb: float
    weights_gbyte: float
    checkpoint_gbyte: float
    checkpoint_write_gbyte_s: float
    checkpoint_burst_gbyte_s: float
    read_need_gbyte_s: float
    storage_nic_gbyte_s: float
    storage_read_gbyte_s: float
    storage_nodes_for_capacity: int
    storage_nodes_for_bandwidth: int
    access_port_count: int
    switch_count: int
    switch_layout: str
    switch_radix: int
    switch_port_gbps: float
    mesh_links_per_pair: int
    fabric: FabricPlan | None
    checks: tuple[dict[str, Any], ...]
    derivations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "raw_tb": round(self.raw_tb, 3),
            "usable_tb": round(self.usable_tb, 3),
            "weights_gbyte": round(self.weights_gbyte, 3),
            "checkpoint_gbyte": round(self.checkpoint_gbyte, 3),
            "checkpoint_write_gbyte_s": round(self.checkpoint_write_gbyte_s, 3),
            "checkpoint_burst_gbyte_s": round(self.checkpoint_burst_gbyte_s, 3),
            "read_need_gbyte_s": round(self.read_need_gbyte_s, 3),
            "storage_nic_gbyte_s": round(self.storage_nic_gbyte_s, 3),
            "storage_read_gbyte_s": round(self.storage_read_gbyte_s, 3),
            "storage_nodes_for_capacity": self.storage_nodes_for_capacity,
            "storage_nodes_for_bandwidth": self.storage_nodes_for_bandwidth,
            "access_port_count": self.access_port_count,
            "switch_count": self.switch_count,
            "switch_layout": self.switch_layout,
            "fabric": self.fabric.to_dict() if self.fabric else None,
            "checks": list(self.checks),
            "derivations": dict(self.derivations),
        }


def _tb(x: float) -> str:
    return f"{x:,.2f} TB" if x < 1000 else f"{x:,.1f} TB ({x / 1000:,.2f} PB)"


def plan_storage(req: StorageRequest) -> StoragePlan:
    """Capacity (D8), checkpoint size and write rate (D9, D10), link bandwidth, storage servers
    needed, and the storage switches (D6) — each figure with its derivation in ``derivations``."""
    d: dict[str, str] = {}
    checks: list[dict[str, Any]] = []
    raw, usable, raw_per_node, raid_frac = _capacity(req, d)
    weights, ckpt, write = _checkpoint(req, d)
    compute_link, storage_link, nic_side, storage_side, burst = _links(req, d, checks)
    usable_per_node = raw_per_node * raid_frac
    read_need, need_bw_nodes, need_cap_nodes = _servers_needed(req, d, checks, write, storage_link, usable_per_node)
    access, fabric, switches, layout = _switches(req, d, compute_link, storage_link)
    return StoragePlan(
        raw_tb=raw,
        usable_tb=usable,
        weights_gbyte=weights,
        checkpoint_gbyte=ckpt,
        checkpoint_write_gbyte_s=write,
        checkpoint_burst_gbyte_s=burst,
        read_need_gbyte_s=read_need,
        storage_nic_gbyte_s=nic_side,
        storage_read_gbyte_s=storage_side,
        storage_nodes_for_capacity=need_cap_nodes,
        storage_nodes_for_bandwidth=need_bw_nodes,
        access_port_count=access,
        switch_count=switches,
        switch_layout=layout,
        switch_radix=req.switch_radix,
        switch_port_gbps=req.switch_port_gbps,
        mesh_links_per_pair=req.mesh_links_per_pair,
        fabric=fabric,
        checks=tuple(checks),
        derivations=d,
    )


def _capacity(req: StorageRequest, d: dict[str, str]):
    # capacity (D8)
    raw_per_node = req.drives_per_node * req.drive_tb
    raw = req.storage_node_count * raw_per_node
    raid_frac = req.raid_data_drives / (req.raid_data_drives + req.raid_parity_drives)
    usable = raw * raid_frac
    d["raw_tb"] = f"{req.storage_node_count} nodes × {req.drives_per_node} drives × {req.drive_tb:g} TB = {_tb(raw)}"
    d["usable_tb"] = (
        f"{_tb(raw)} × {req.raid_data_drives}/{req.raid_data_drives + req.raid_parity_drives} "
        f"(RAID {req.raid_data_drives}+{req.raid_parity_drives}) = {_tb(usable)} before file-system overhead"
    )
    return raw, usable, raw_per_node, raid_frac


def _checkpoint(req: StorageRequest, d: dict[str, str]):
    # checkpoint (D9, D10)
    weights = req.model_params_billion * req.weights_bytes_per_param  # 10⁹ parameters × bytes = GB
    d["weights_gbyte"] = (
        f"{req.model_params_billion:g}B parameters × {req.weights_bytes_per_param:g} bytes = {weights:,.1f} GB"
    )
    if req.checkpoint_shard_mb is not None:
        ckpt = req.checkpoint_shard_mb * req.gpu_count / MB_PER_GB
        per_param = ckpt / req.model_params_billion  # GB ÷ 10⁹ parameters = bytes per parameter
        d["checkpoint_gbyte"] = (
            f"{req.checkpoint_shard_mb:g} MB shard per GPU × {req.gpu_count:,} GPUs = {ckpt:,.1f} GB "
            f"(= {per_param:.2f} bytes per parameter: more than the weights alone at "
            f"{req.weights_bytes_per_param:g}, less than full mixed-precision Adam state at "
            f"{ADAM_MIXED_PRECISION_BYTES_PER_PARAM:g})"
        )
    else:
        ckpt = req.model_params_billion * req.checkpoint_bytes_per_param
        d["checkpoint_gbyte"] = (
            f"{req.model_params_billion:g}B parameters × {req.checkpoint_bytes_per_param:g} bytes "
            f"(weights + optimizer state) = {ckpt:,.1f} GB"
        )
    write = ckpt / req.checkpoint_window_s
    d["checkpoint_write_gbyte_s"] = (
        f"{ckpt:,.1f} GB ÷ {req.checkpoint_window_s:g} s window = {write:,.2f} GB/s sustained"
    )
    return weights, ckpt, write


def _links(req: StorageRequest, d: dict[str, str], checks: list):
    # links
    compute_link = min(req.storage_nic_gbps, req.switch_port_gbps)
    storage_link = min(req.storage_node_nic_gbps, req.switch_port_gbps)
    compute_side = req.compute_node_count * req.storage_nics_per_node * compute_link / 8
    nic_side = req.storage_node_count * req.storage_node_nics * req.storage_node_nic_gbps / 8
    storage_side = req.storage_node_count * req.storage_node_nics * storage_link / 8
    burst = min(compute_side, storage_side)
    d["checkpoint_burst_gbyte_s"] = (
        f"all writers at once: min(compute side {req.compute_node_count:,} × {req.storage_nics_per_node} × "
        f"{compute_link:g}G = {compute_side:,.0f} GB/s, storage side {storage_side:,.0f} GB/s) = "
        f"{burst:,.0f} GB/s offered — synchronized writers burst far above the sustained rate"
    )
    d["storage_nic_gbyte_s"] = (
        f"{req.storage_node_count} × {req.storage_node_nics} × {req.storage_node_nic_gbps:g}GbE ÷ 8 = "
        f"{nic_side:,.0f} GB/s of storage NICs"
    )
    d["storage_read_gbyte_s"] = (
        f"{req.storage_node_count} × {req.storage_node_nics} × {storage_link:g}G links ÷ 8 = {storage_side:,.0f} GB/s"
    )
    if storage_link < req.storage_node_nic_gbps:
        d["storage_read_gbyte_s"] += (
            f" — the {req.storage_node_nic_gbps:g}GbE storage NICs negotiate down to the "
            f"{req.switch_port_gbps:g}G switch ports, halving what the NICs could give"
            if storage_link * 2 == req.storage_node_nic_gbps
            else f" — the storage NICs negotiate down to the {req.switch_port_gbps:g}G switch ports"
        )
        checks.append(
            {
                "ok": False,
                "field": "storage_switch_port_gbps",
                "message": f"{req.storage_node_nic_gbps:g}GbE storage NICs run at {storage_link:g}G on "
                f"these switch ports; choose switch ports of at least {req.storage_node_nic_gbps:g}G",
            }
        )
    if compute_link < req.storage_nic_gbps:
        checks.append(
            {
                "ok": False,
                "field": "storage_switch_port_gbps",
                "message": f"compute storage NICs ({req.storage_nic_gbps:g}G) run at {compute_link:g}G",
            }
        )
    return compute_link, storage_link, nic_side, storage_side, burst


def _servers_needed(
    req: StorageRequest, d: dict[str, str], checks: list, write: float, storage_link: float, usable_per_node: float
):
    read_need = req.dataloader_read_gbyte_s_per_gpu * req.gpu_count
    d["read_need_gbyte_s"] = (
        f"{req.dataloader_read_gbyte_s_per_gpu:g} GB/s per GPU × {req.gpu_count:,} GPUs = {read_need:,.1f} GB/s"
    )
    per_node_bw = req.storage_node_nics * storage_link / 8
    need_bw_nodes = math.ceil(max(read_need, write) / per_node_bw - 1e-9)  # per_node_bw > 0: NICs ≥ 1, speeds > 0
    need_cap_nodes = math.ceil(req.required_usable_tb / usable_per_node - 1e-9) if req.required_usable_tb else 0
    d["storage_nodes_for_bandwidth"] = (
        f"⌈max(read {read_need:,.1f}, checkpoint write {write:,.2f}) GB/s ÷ {per_node_bw:,.0f} GB/s "
        f"per node⌉ = {need_bw_nodes}"
    )
    d["storage_nodes_for_capacity"] = (
        f"⌈{req.required_usable_tb:g} TB ÷ {usable_per_node:,.1f} TB usable per node⌉ = {need_cap_nodes}"
        if req.required_usable_tb
        else "no capacity target given"
    )
    needs = [(need_bw_nodes, "bandwidth")] + ([(need_cap_nodes, "capacity")] if req.required_usable_tb else [])
    for need, what in needs:
        checks.append(
            {
                "ok": req.storage_node_count >= need,
                "field": "storage_node_count",
                "message": f"{req.storage_node_count} storage nodes for {what}: {need} needed",
            }
        )
    return read_need, need_bw_nodes, need_cap_nodes


def _switches(req: StorageRequest, d: dict[str, str], compute_link: float, storage_link: float):
    # switches (D6)
    compute_ports = req.compute_node_count * req.storage_nics_per_node
    storage_ports = req.storage_node_count * req.storage_node_nics
    access = compute_ports + storage_ports
    d["access_port_count"] = (
        f"{req.compute_node_count:,} compute × {req.storage_nics_per_node} + {req.storage_node_count} "
        f"storage × {req.storage_node_nics} = {access:,} switch ports"
    )
    fabric: FabricPlan | None = None
    if req.switch_count is not None:
        s = req.switch_count
        mesh_ports = (s - 1) * req.mesh_links_per_pair
        free = s * (req.switch_radix - mesh_ports)
        if free < access:  # a mesh that takes every port (mesh_ports ≥ radix) leaves free ≤ 0 < access
            raise FabricRequestError.single(
                "switch_count",
                f"{s} × {req.switch_radix}-port switches in a full mesh ({req.mesh_links_per_pair} link(s) "
                f"per pair) offer at most {s} × ({req.switch_radix} − {mesh_ports}) = {max(free, 0):,} "
                f"access ports; the design needs {access:,} ({compute_ports:,} compute + {storage_ports} "
                "storage). Leave the count empty to size a leaf–spine",
            )
        switches = s
        layout = "full_mesh"
        d["switch_count"] = (
            f"{s} switches as given, full mesh: {s} × ({req.switch_radix} − {mesh_ports} mesh ports) = "
            f"{free:,} access ports ≥ {access:,}; {s * (s - 1) // 2 * req.mesh_links_per_pair} mesh links"
        )
    else:
        endpoint_gbps = max(compute_link, storage_link)
        try:
            fabric = plan_fat_tree(
                FabricRequest(
                    topology=Topology.FAT_TREE,
                    node_count=access,
                    nics_per_node=1,
                    nic_gbps=endpoint_gbps,
                    switch_radix=req.switch_radix,
                    switch_port_gbps=req.switch_port_gbps,
                    oversubscription=req.oversubscription,
                )
            )
        except FabricRequestError as exc:
            raise FabricRequestError({"switch_radix": "storage switches: " + " ".join(exc.errors.values())}) from None
        switches = fabric.switch_count
        layout = {1: "single_switch", 2: "leaf_spine", 3: "three_tier"}[fabric.tier_count]
        d["switch_count"] = (
            " + ".join(f"{t.switch_count} {t.name}" for t in fabric.tiers)
            + f" = {switches} switches of {req.switch_radix} × {req.switch_port_gbps:g}G for {access:,} "
            f"access ports at {req.oversubscription:g}:1"
        )
    return access, fabric, switches, layout
