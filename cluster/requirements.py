"""Typed requirements: one frozen, unit-named dataclass per section.

Each field is declared once here — default, range, choices and help — with the helpers of
cluster/fields.py. The flat name (``flat=``) is the field's name in the form and in stored
revisions when it differs from the section key (``storage.nic_gbps`` ↔ ``storage_nic_gbps``);
the nested layout of files and the API is ``section.key``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

from cluster.fields import (
    FieldSpec,
    choice,
    flag,
    int_choice,
    long_text,
    money,
    opt_int,
    opt_money,
    opt_real,
    pos_int,
    real,
    text,
    tier_choice,
)
from scheduling.workload import class_dict, parse_classes
from topology.spec import NIC_PLANE_CHOICES, Topology
from topology.switches import SWITCH_MODELS

GPU_MODELS: tuple[str, ...] = (
    "A100-SXM4-80GB",
    "H100-SXM5",
    "H200-SXM",
    "B200",
    "B300",
    "GB200",
    "GB300",
    "MI300X",
    "TPU-v4",
)
TOPOLOGY_CHOICES: tuple[tuple[str, str], ...] = tuple((t.value, t.label) for t in Topology)
SWITCH_CHOICES: tuple[tuple[str, str], ...] = tuple(
    (name, f"{name} — {m.radix} × {m.port_gbps:g}G") for name, m in SWITCH_MODELS.items()
)
MEDIA_CHOICES = (
    ("by_reach", "By reach: DAC in rack, AOC/ACC next rack, optics beyond"),
    ("all_optics", "All optics (as the seed chapter buys)"),
)
COOLING_CHOICES = (
    ("", "By rack density"),
    ("air", "Air"),
    ("air_containment", "Air with containment"),
    ("direct_to_chip", "Direct-to-chip liquid"),
    ("immersion", "Immersion"),
)
CHAIN_CHOICES = (
    ("in_pue", "Included in the PUE"),
    ("ups_line_interactive", "Line-interactive UPS (98 %)"),
    ("ups_double_conversion", "Double-conversion UPS (93 %)"),
    ("hvdc_240v", "240 V HVDC (94 %)"),
    ("legacy_ac", "Legacy AC chain (85 %)"),
)
FLUID_CHOICES = (("water", "Water"), ("pg25", "Propylene glycol 25 %"))
NIC_PLANE_FIELD_CHOICES = tuple((p, f"{p} plane{'s' if p > 1 else ''}") for p in NIC_PLANE_CHOICES)
NETWORK_CLASS_CHOICES = (
    ("", "From the switch model"),
    ("infiniband", "InfiniBand (96 % of line rate)"),
    ("roce_ar", "RoCE with adaptive routing, e.g. Spectrum-X (96 %)"),
    ("roce", "RoCE on ECMP hashing, no adaptive routing (80 %)"),
    ("efa", "AWS EFA (67 %)"),
    ("tcpx", "GCP GPUDirect-TCPX/TCPXO (84 %)"),
)
HOST_PLATFORM_CHOICES = (
    ("", "From the GPU model"),
    ("bare_metal", "DGX/HGX bare metal (6 µs a call)"),
    ("cloud_vm", "Cloud VM (30 µs a call)"),
    ("grace_rack", "Grace-hosted rack, GB200/GB300 (15.5 µs a call)"),
)
NIC_CAGE_CHOICES = (
    ("osfp_single", "Single-port OSFP per NIC port"),
    ("osfp_twin", "Twin-port OSFP cages (DGX H100/H200: 4 cages for 8 ports)"),
    ("qsfp112", "QSFP112 per NIC port"),
)


@dataclass(frozen=True)
class Cluster:
    name: str = text("Untitled cluster", "Design name")
    notes: str = long_text("", "Free text kept with the design")
    gpu_model: str = choice("H100-SXM5", "Accelerator model", tuple((g, g) for g in GPU_MODELS), max_length=40)
    gpu_count: int = pos_int(2000, "GPUs in the cluster (a multiple of GPUs per node)")
    gpus_per_node: int = pos_int(8, "GPUs per compute node", maximum=128)

    @property
    def node_count(self) -> int:
        return self.gpu_count // self.gpus_per_node


@dataclass(frozen=True)
class ComputeFabric:
    topology: str = choice("rail_optimized", "Compute fabric topology", TOPOLOGY_CHOICES)
    nic_gbps: float = real(400.0, "Compute NIC speed [Gbit/s]", minimum=1, maximum=3200)
    nics_per_node: int = pos_int(8, "Compute NICs per node (= rails for rail-optimized)", maximum=64)
    switch_model: str = choice(
        "QM9700",
        "Fabric switch model; sets radix and port speed (leave empty to type them)",
        SWITCH_CHOICES,
        max_length=40,
        blank=True,
    )
    switch_radix: int = pos_int(64, "Fabric switch ports", maximum=1024, minimum=2)
    spine_switch_model: str = choice(
        "",
        "Spine switch model, when the spines differ from the leaves (e.g. a modular chassis; same port speed)",
        SWITCH_CHOICES,
        max_length=40,
        blank=True,
    )
    core_switch_model: str = choice(
        "", "Core switch model, when the cores differ from the leaves (same port speed)", SWITCH_CHOICES, 40, True
    )
    switch_port_gbps: float = real(400.0, "Fabric switch port speed [Gbit/s]", minimum=1, maximum=3200)
    oversubscription: float = real(1.0, "Leaf oversubscription r:1 (1 = non-blocking)", minimum=1, maximum=64)
    agg_oversubscription: float = real(1.0, "Pod-spine oversubscription in 3 tiers", minimum=1, maximum=64)
    tiers: int | None = tier_choice("Switching tiers (empty = the fewest that fit)")
    leaf_nodes: int | None = opt_int(
        "Fat-tree: nodes per leaf, e.g. one ToR per rack of 2 nodes (empty = fill the leaf)", maximum=1024
    )
    pod_nodes: int | None = opt_int(
        "Nodes per pod in 3 tiers: full bisection inside, the pod-spine taper above (empty = as many as a spine takes)",
        maximum=10_000_000,
    )
    scalable_unit_nodes: int | None = opt_int("Rail-optimized: nodes per scalable unit (empty = one leaf per rail)")
    reserved_node_slots: int = pos_int(
        0,
        "Rail-optimized: node slots left empty at the start of the first scalable unit (e.g. 1 for the UFM "
        "servers of a DGX SuperPOD: 31 + 32 + 32 + 32 = 127 nodes in 4 SUs)",
        maximum=1024,
        minimum=0,
    )
    uplinks_for_full_leaf: bool = flag(
        False,
        "Buy leaf uplinks (and the spines above them) for every down port of the leaf's port split, not only for "
        "the ports the nodes use: growth onto the free ports without recabling, at the price shown",
    )
    rail_groups: int | None = opt_int(
        "Rail-optimized: split the rails into this many equal groups, each with its own spines "
        "(empty = automatic: the fewest groups that keep 2 tiers before adding a core; 1 = spines shared by all rails)",
        maximum=64,
    )
    nic_planes: int = int_choice(
        1,
        "Rail-optimized: use each NIC as this many ports on separate planes (e.g. an 800G NIC as 2 × 400G)",
        NIC_PLANE_FIELD_CHOICES,
    )
    leaves_per_group: int | None = opt_int(
        "Dragonfly+: leaves per group (empty = the most a spine takes)", maximum=1024
    )
    global_oversubscription: float = real(1.0, "Dragonfly+: spine down ÷ global links", minimum=1, maximum=64)
    torus_dims: str = text(
        "",
        "3D torus dimensions XxYxZ (empty = most cube-like)",
        max_length=40,
        blank=True,
        pattern=r"^\d+x\d+x\d+$",
        pattern_message="write the torus as XxYxZ, e.g. 16x16x16",
    )
    torus_link_gbps: float = real(400.0, "3D torus link speed [Gbit/s]", minimum=1, maximum=3200)
    ufm_server_count: int = pos_int(
        0,
        "Fabric-management servers (UFM / subnet manager, HA pairs count twice) on the compute fabric; "
        "they take free leaf ports (an empty node slot of a scalable unit)",
        maximum=64,
        minimum=0,
    )
    ufm_ports_per_server: int = pos_int(1, "Compute-fabric ports per fabric-management server", maximum=8)
    attached_device_count: int = pos_int(
        0,
        "Other devices on the compute fabric (e.g. storage gateways): they take free leaf ports, "
        "cabled and priced as lines of their own (the devices themselves are not in the network BOM)",
        maximum=1024,
        minimum=0,
    )
    attached_device_ports: int = pos_int(2, "Compute-fabric ports per attached device", maximum=16)
    nic_cage: str = choice(
        "osfp_single",
        "Compute NIC cages of a node: a twin-port OSFP cage (DGX H100) takes one module for two NIC ports",
        NIC_CAGE_CHOICES,
    )
    network_class: str = choice(
        "",
        "Collective model: the inter-node network's class, which sets the share of the NIC line rate NCCL gets "
        "(empty = from the switch model: InfiniBand for Quantum, RoCE with adaptive routing for Spectrum)",
        NETWORK_CLASS_CHOICES,
        blank=True,
    )
    host_platform: str = choice(
        "",
        "Collective model: the hosts' platform class, which sets the host enqueue + kernel launch time per call "
        "(empty = a Grace-hosted rack for GB200/GB300, else DGX/HGX bare metal)",
        HOST_PLATFORM_CHOICES,
        blank=True,
    )
    host_overhead_us_per_call: float | None = opt_real(
        "Collective model: host enqueue + kernel launch per call [µs]; a call takes at least this long "
        "(empty = the platform class's default)",
        minimum=0,
        maximum=10_000,
    )

    @property
    def torus_dims_tuple(self) -> tuple[int, int, int] | None:
        if not self.torus_dims:
            return None
        x, y, z = (int(v) for v in self.torus_dims.split("x"))
        return x, y, z


@dataclass(frozen=True)
class Storage:
    nics_per_node: int = pos_int(2, "Storage NICs per compute node", maximum=16, flat="storage_nics_per_node")
    nic_gbps: float = real(100.0, "Compute storage NIC speed [Gbit/s]", 1, 3200, flat="storage_nic_gbps")
    node_count: int | None = opt_int(
        "Storage servers (empty = as many as the checkpoint and data-loader bandwidth and the capacity target "
        "need, at least 8)",
        maximum=100_000,
        flat="storage_node_count",
    )
    drives_per_node: int = pos_int(24, "Drives per storage server", maximum=1000, flat="storage_drives_per_node")
    drive_tb: float = real(15.36, "Drive capacity [TB]", minimum=0.001, maximum=1000, flat="storage_drive_tb")
    raid_data_drives: int = pos_int(8, "RAID data drives per group", maximum=100, flat="storage_raid_data_drives")
    raid_parity_drives: int = pos_int(
        2, "RAID parity drives per group", maximum=100, minimum=0, flat="storage_raid_parity_drives"
    )
    node_nics: int = pos_int(2, "NICs per storage server", maximum=16, flat="storage_node_nics")
    node_nic_gbps: float = real(200.0, "Storage server NIC speed [Gbit/s]", 1, 3200, flat="storage_node_nic_gbps")
    switch_radix: int = pos_int(64, "Storage switch ports", maximum=1024, minimum=2, flat="storage_switch_radix")
    switch_port_gbps: float = real(
        200.0,
        "Storage switch port speed [Gbit/s] (at least the storage servers' NIC speed, or they negotiate down)",
        1,
        3200,
        flat="storage_switch_port_gbps",
    )
    oversubscription: float = real(1.0, "Storage leaf oversubscription r:1", 1, 64, flat="storage_oversubscription")
    switch_count: int | None = opt_int(
        "Fix the storage switch count (full mesh); empty = size a leaf–spine", flat="storage_switch_count"
    )
    required_usable_tb: float | None = opt_real(
        "Usable capacity target [TB] (optional)", 0.001, 1e9, flat="storage_required_usable_tb"
    )
    dataloader_read_gbyte_s_per_gpu: float = real(0.1, "Data-loader read per GPU [GB/s]", minimum=0, maximum=1000)


@dataclass(frozen=True)
class Checkpoint:
    params_billion: float = real(
        70.0, "Model parameters [billions]", minimum=0.001, maximum=1e6, flat="checkpoint_params_billion"
    )
    weights_bytes_per_param: float = real(2.0, "Bytes per parameter of the weights (bf16 = 2)", minimum=0.1, maximum=64)
    bytes_per_param: float = real(
        14.0,
        "Checkpoint bytes per parameter (weights + optimizer; Adam mixed precision = 14)",
        minimum=0.1,
        maximum=64,
        flat="checkpoint_bytes_per_param",
    )
    shard_mb: float | None = opt_real(
        "Checkpoint shard per GPU [MB]; when set it replaces parameters × bytes", 0.001, 1e9, flat="checkpoint_shard_mb"
    )
    window_s: float = real(60.0, "Checkpoint write window [s]", minimum=0.1, maximum=1e6, flat="checkpoint_window_s")


@dataclass(frozen=True)
class Management:
    node_count: int = pos_int(5, "Management servers", maximum=100_000, minimum=0, flat="mgmt_node_count")
    login_node_count: int = pos_int(4, "Login servers", maximum=100_000, minimum=0)
    nodes_per_tor: int = pos_int(8, "Servers per management ToR", maximum=1000, flat="mgmt_nodes_per_tor")
    ports_per_node: int = pos_int(2, "ToR ports per server (management + BMC)", maximum=16, flat="mgmt_ports_per_node")
    tor_access_ports: int = pos_int(48, "Management ToR access ports", maximum=1024, flat="mgmt_tor_access_ports")
    tor_access_gbps: float = real(
        25.0, "Management ToR access port speed [Gbit/s]", 0.1, 800, flat="mgmt_tor_access_gbps"
    )
    tor_uplinks: int = pos_int(2, "Uplinks per management ToR", maximum=64, flat="mgmt_tor_uplinks")
    tor_uplink_ports: int = pos_int(8, "Uplink ports per management ToR", maximum=64, flat="mgmt_tor_uplink_ports")
    uplink_gbps: float = real(100.0, "Management uplink speed [Gbit/s]", 1, 1600, flat="mgmt_uplink_gbps")
    spine_ports: int = pos_int(48, "Management spine ports", maximum=1024, minimum=2, flat="mgmt_spine_ports")
    min_spines: int = pos_int(2, "Minimum management spines (redundancy)", maximum=64, flat="mgmt_min_spines")


@dataclass(frozen=True)
class BomRules:
    """Floor plan and purchasing policy of the bill of materials."""

    media: str = choice("by_reach", "How links are cabled", MEDIA_CHOICES, flat="bom_media")
    nodes_per_rack: int | None = opt_int(
        "Compute nodes per rack in the floor plan (empty = as many as the rack power budget and height hold)",
        maximum=128,
    )
    racks_per_row: int = pos_int(10, "Racks per row (cable lengths)", maximum=200)
    spares_switch_pct: float = real(0.0, "Spare switches [%]", minimum=0, maximum=100)
    spares_nic_pct: float = real(0.0, "Spare NICs [%]", minimum=0, maximum=100)
    spares_transceiver_pct: float = real(2.0, "Spare transceivers [%]", minimum=0, maximum=100)
    spares_cable_pct: float = real(2.0, "Spare cables [%]", minimum=0, maximum=100)
    growth_headroom_pct: float | None = opt_real(
        "Free-port headroom target for growth [%] (empty = report free ports only; the seed suggests 20)", 0, 100
    )


@dataclass(frozen=True)
class Power:
    node_power_w: float | None = opt_real(
        "Compute node power [W] (empty = GPU TDP × GPUs + the platform's host share)", 1, 1e6
    )
    gpu_tdp_w: float | None = opt_real("GPU TDP [W] (empty = the GPU model's)", 1, 5000)
    host_overhead_w: float | None = opt_real(
        "Node power besides the GPUs [W] (empty = the platform's: its data-sheet maximum − GPUs × TDP; "
        "DGX H100 10.2 kW − 8 × 700 W = 4,600)",
        0,
        1e5,
    )
    node_u: int = pos_int(8, "Compute node height [U] (DGX H100: 8U; the chapter assumes 6U)", maximum=48)
    average_load_frac: float = real(1.0, "Average draw ÷ nameplate for energy (1 = nameplate)", 0.01, 1)
    storage_node_power_w: float = real(2500.0, "Storage server power [W]", 0, 1e5)
    storage_node_u: int = pos_int(2, "Storage server height [U]", maximum=48)
    mgmt_node_power_w: float = real(1500.0, "Management/login server power [W]", 0, 1e5)
    mgmt_node_u: int = pos_int(1, "Management/login server height [U]", maximum=48)
    network_power_kw: float | None = opt_real("Network power [kW] (empty = switches + optics from the BOM)", 0, 1e6)
    rack_budget_kw: float | None = opt_real(
        "Power budget per rack [kW] (empty = what the cooling type holds: air 41, air with containment 60, "
        "direct-to-chip 140, immersion 250)",
        0.1,
        1000,
    )
    rack_u: int = pos_int(42, "Rack height [U]", maximum=60)
    pdu_kw: float = real(17.3, "Rack PDU rating [kW] (3-phase 208 V 60 A at 80 %: 17.3); A + B feeds", 1, 200)
    electricity_usd_per_kwh: Decimal = money("0.08", "Electricity price [$/kWh]", maximum=10, places=4)
    pue: float | None = opt_real("PUE (empty = typical for the cooling type; 1.2 for an air hall of ≥ 20 MW IT)", 1, 5)
    electrical_chain: str = choice(
        "in_pue", "Electrical chain efficiency, when the PUE does not include it", CHAIN_CHOICES, max_length=30
    )
    capping_budget_kw: float | None = opt_real(
        "Facility budget for the power-capping planner [kW] (empty = this design's)", 1, 1e7
    )


@dataclass(frozen=True)
class Cooling:
    type: str = choice(
        "",
        "Cooling (empty = the least intensive that holds the rack density)",
        COOLING_CHOICES,
        blank=True,
        flat="cooling_type",
    )
    coolant_supply_c: float = real(32.0, "Secondary loop supply temperature [°C]", 5, 80)
    coolant_return_c: float = real(45.0, "Secondary loop return temperature [°C]", 5, 90)
    coolant_fluid: str = choice("water", "Secondary loop fluid", FLUID_CHOICES, max_length=10)
    cdu_unit_kw: float = real(3000.0, "CDU capacity per unit [kW]", 1, 1e5)
    heat_rejection_unit_kw: float = real(1000.0, "Dry cooler / cooling tower capacity per unit [kW]", 1, 1e5)


@dataclass(frozen=True)
class Tco:
    years: int = pos_int(5, "TCO horizon [years]", maximum=30, flat="tco_years")
    gpu_node_price_usd: Decimal = money("250000", "Compute node price [$]")
    node_price_includes_nics: bool = flag(
        True, "The node price includes its compute NICs (DGX): the BOM does not buy them"
    )
    storage_node_price_usd: Decimal = money("350000", "Storage server price [$]")
    network_capex_usd: Decimal | None = opt_money("Network CapEx [$] (empty = the BOM total)")
    mgmt_capex_usd: Decimal = money("250000", "Management and login servers [$]")
    cooling_capex_usd_per_kw: Decimal = money("1260", "Cooling plant CapEx per facility kW [$]")
    cooling_capex_usd: Decimal | None = opt_money("Cooling plant CapEx [$] (empty = per kW × facility kW)")
    facility_capex_usd_per_kw: Decimal = money("720", "Facility works per facility kW [$]")
    facility_capex_usd: Decimal | None = opt_money("Facility works [$] (empty = per kW × facility kW)")
    software_capex_usd: Decimal = money("500000", "Software licences, up front [$]")
    software_usd_per_year: Decimal = money("200000", "Software subscriptions per year [$]")
    ops_fte: float = real(5.0, "Operations staff [FTE]", 0, 10000)
    ops_usd_per_fte_year: Decimal = money("200000", "Cost per FTE per year [$]")
    spares_maintenance_usd_per_year: Decimal | None = opt_money(
        "Spares and maintenance per year [$] (empty = 1 % of hardware)"
    )
    utilisation_frac: float = real(0.8, "Utilisation for the cost per GPU-hour", 0.01, 1, flat="tco_utilisation_frac")
    discount_rate_pct: float = real(0.0, "Discount rate for the present value [%/year]", 0, 99)


@dataclass(frozen=True)
class Carbon:
    grid_kg_co2_per_kwh: float = real(0.4, "Grid carbon intensity [kg CO₂/kWh]", 0, 2)
    run_days: float = real(90.0, "Training run length [days]", 0.01, 3650)
    run_utilisation_frac: float = real(0.9, "Training run GPU utilisation", 0.01, 1)
    run_power_frac: float = real(0.7, "Training run average GPU power ÷ TDP", 0.01, 1)


SLURM_NAME = r"^[a-z][a-z0-9-]{0,30}$"
SLURM_NAME_MESSAGE = "a lower-case letter, then lower-case letters, digits or '-' (at most 31)"
MIG_DEMAND_PATTERN = r"^$|^\d+g\.\d+gb=\d{1,3}(, ?\d+g\.\d+gb=\d{1,3})*$"
TENANTS_PATTERN = r"^[a-z][a-z0-9-]{0,30}:\d{1,3}(\.\d{1,2})?(,[a-z][a-z0-9-]{0,30}:\d{1,3}(\.\d{1,2})?)*$"


@dataclass(frozen=True)
class Scheduler:
    """The scheduler setup that follows from the plan (scheduling/): Slurm nodes and partitions, the
    nodes handed to Kubernetes, QoS tiers and tenants. Defaults: the seed's §14.3.2 node line and
    §14.8.5 partitions and QoS; the seed's 1,600 + 400 GPU split is the seed example's setting."""

    node_prefix: str = text(
        "gpu", "Compute node name prefix (gpu → gpu001…)", max_length=15, pattern=r"^[a-z][a-z0-9]{0,14}$",
        pattern_message="a lower-case letter, then lower-case letters or digits (at most 15)", flat="sched_node_prefix",
    )  # fmt: skip
    cpu_socket_count: int = pos_int(
        2, "CPU sockets per compute node (Slurm Sockets)", maximum=16, flat="sched_cpu_socket_count"
    )
    cores_per_socket: int = pos_int(
        64, "Cores per socket (CoresPerSocket)", maximum=1024, flat="sched_cores_per_socket"
    )
    threads_per_core: int = int_choice(
        2, "Threads per core (ThreadsPerCore)", ((1, "1"), (2, "2"), (4, "4"), (8, "8")), flat="sched_threads_per_core"
    )
    memory_mb: int = pos_int(
        515_000, "Memory Slurm may allocate per node (RealMemory) [MB]", maximum=100_000_000, flat="sched_memory_mb"
    )
    kubernetes_node_count: int = pos_int(
        0, "Compute nodes run by Kubernetes (the last nodes; the others run Slurm)", maximum=10_000_000, minimum=0,
        flat="sched_kubernetes_node_count",
    )  # fmt: skip
    batch_partition: str = text(
        "gpu-large", "Batch partition name", max_length=31, pattern=SLURM_NAME, pattern_message=SLURM_NAME_MESSAGE,
        flat="sched_batch_partition",
    )  # fmt: skip
    batch_max_time_h: int = pos_int(336, "Batch partition time limit [h]", maximum=8760, flat="sched_batch_max_time_h")
    batch_default_time_h: int = pos_int(
        24, "Batch partition default time [h]", maximum=8760, flat="sched_batch_default_time_h"
    )
    interactive_partition: str = text(
        "gpu-interactive", "Interactive partition name", max_length=31, pattern=SLURM_NAME,
        pattern_message=SLURM_NAME_MESSAGE, flat="sched_interactive_partition",
    )  # fmt: skip
    interactive_node_count: int = pos_int(
        0, "Slurm nodes in the interactive partition (the last Slurm nodes; 0 = none)", maximum=10_000_000, minimum=0,
        flat="sched_interactive_node_count",
    )  # fmt: skip
    interactive_overlaps_batch: bool = flag(
        True, "Interactive nodes stay in the batch partition too (the seed's gpu[151-200] inside gpu[001-200])",
        flat="sched_interactive_overlaps_batch",
    )  # fmt: skip
    interactive_max_time_h: int = pos_int(
        12, "Interactive partition time limit [h]", maximum=8760, flat="sched_interactive_max_time_h"
    )
    interactive_default_time_h: int = pos_int(
        2, "Interactive partition default time [h]", maximum=8760, flat="sched_interactive_default_time_h"
    )
    production_max_gpus_per_user: int | None = opt_int(
        "QoS production: GPUs per user (MaxTRESPerUser; empty = no cap; the seed: 1,024)", maximum=10_000_000,
        flat="sched_production_max_gpus_per_user",
    )  # fmt: skip
    production_max_wall_days: int = pos_int(
        90, "QoS production: wall-clock limit [days]", maximum=365, flat="sched_production_max_wall_days"
    )
    dev_max_gpus_per_user: int | None = opt_int(
        "QoS dev: GPUs per user (MaxTRESPerUser; empty = no cap; the seed: 128)", maximum=10_000_000,
        flat="sched_dev_max_gpus_per_user",
    )  # fmt: skip
    dev_max_wall_days: int = pos_int(7, "QoS dev: wall-clock limit [days]", maximum=365, flat="sched_dev_max_wall_days")
    mig_node_count: int = pos_int(
        0, "Kubernetes nodes whose GPUs are split by MIG (the first Kubernetes nodes; 0 = none)", maximum=10_000_000,
        minimum=0, flat="sched_mig_node_count",
    )  # fmt: skip
    mig_demand: str = text(
        "", "MIG instances wanted per MIG node (profile=count, …; the seed's S7: 1g.10gb=28, 2g.20gb=6, 3g.40gb=4)",
        max_length=300, blank=True, pattern=MIG_DEMAND_PATTERN,
        pattern_message="profile=count pairs separated by commas, e.g. 1g.10gb=28, 2g.20gb=6", flat="sched_mig_demand",
    )  # fmt: skip
    roce_switch_buffer_mb: float | None = opt_real(
        "Leaf switch packet buffer for the RoCE sheet [MB] (the datasheet's; empty = not known: no XOFF/XON)",
        0.1,
        100_000,
        flat="sched_roce_switch_buffer_mb",
    )
    tenants: str = text(
        "nlp:25,cv:25,recsys:25,inference:25",
        "Tenants and their fair share [%] (name:share, …; the seed names the teams, not their split)",
        max_length=500, pattern=TENANTS_PATTERN,
        pattern_message="name:share pairs separated by commas, e.g. nlp:40,cv:35,inference:25", flat="sched_tenants",
    )  # fmt: skip


HOURLY_24 = r"^$|^\d+(\.\d+)?(, ?\d+(\.\d+)?){23}$"
HOURLY_24_MESSAGE = "24 numbers ≥ 0 separated by commas, hour 0 first (or empty)"
WORKLOAD_CLASSES_HELP = (
    "Job classes, one per line: name, share of the GPU-hours [%], min GPUs, max GPUs, GPU granularity, "
    "min hours, max hours, SLA (critical, queued or best_effort)[, tenant, communication fraction, duration "
    "(log_uniform, uniform or exponential)]; empty = the seed's Table 14-24"
)


@dataclass(frozen=True)
class Workload:
    """What the cluster is for (§14.8.1): job classes, how they arrive, and the policies to simulate."""

    classes: str = long_text("", WORKLOAD_CLASSES_HELP, flat="wl_classes")
    arrival: str = choice(
        "load", "How jobs arrive",
        (("load", "Offered load (busy GPU-hours ÷ capacity)"), ("jobs_per_day", "Jobs per day")), flat="wl_arrival",
    )  # fmt: skip
    offered_load_pct: float = real(
        85.0, "Offered load on the batch partition [%] (arrival = offered load)", 1, 200, flat="wl_offered_load_pct"
    )
    jobs_per_day: float | None = opt_real(
        "Jobs submitted per day, all classes (arrival = jobs per day)", 0.001, 1_000_000, flat="wl_jobs_per_day"
    )
    days: float = real(365.0, "Simulated days", 1, 3650, flat="wl_days")
    policy: str = choice(
        "easy", "Scheduling policy", (("easy", "Priority + EASY backfill"), ("fifo", "FIFO")), flat="wl_policy"
    )
    preempt: bool = flag(
        False, "Critical jobs preempt lower classes (they checkpoint and queue again)", flat="wl_preempt"
    )
    seed: int = pos_int(1, "Random seed of the generated jobs (same seed → same result)", maximum=2**31 - 1, minimum=0,
                        flat="wl_seed")  # fmt: skip
    afr_pct: float = real(0.0, "GPU annualised failure rate [%/GPU/year] (seed S6: 1–5; 0 = no failures)", 0, 100,
                          flat="wl_afr_pct")  # fmt: skip
    repair_h: float = real(24.0, "Hours a failed node is out of service", 0.01, 8760, flat="wl_repair_h")
    restart_h: float = real(0.25, "Hours to restart a job from its checkpoint", 0, 1000, flat="wl_restart_h")
    inference_demand_gpus: str = text(
        "", "Tidal sharing: inference GPUs wanted each hour (24 values; empty = none)", max_length=600, blank=True,
        pattern=HOURLY_24, pattern_message=HOURLY_24_MESSAGE, flat="wl_inference_demand_gpus",
    )  # fmt: skip
    carbon_hourly_g_per_kwh: str = text(
        "", "Carbon-aware deferral: grid intensity each hour [g CO₂/kWh] (24 values; empty = off)", max_length=600,
        blank=True, pattern=HOURLY_24, pattern_message=HOURLY_24_MESSAGE, flat="wl_carbon_hourly_g_per_kwh",
    )  # fmt: skip
    carbon_threshold_g_per_kwh: float = real(
        200.0, "A deferrable job starts in an hour at or below this [g CO₂/kWh]", 0, 5000,
        flat="wl_carbon_threshold_g_per_kwh",
    )  # fmt: skip
    carbon_max_defer_h: float = real(
        24.0, "… or once it has waited this long [h]", 0, 8760, flat="wl_carbon_max_defer_h"
    )


# section attribute → (its key in files and the API, its class); "" = top level
SECTIONS: tuple[tuple[str, str, type], ...] = (
    ("cluster", "", Cluster),
    ("compute_fabric", "compute_fabric", ComputeFabric),
    ("storage", "storage", Storage),
    ("checkpoint", "checkpoint", Checkpoint),
    ("management", "management", Management),
    ("bom", "bom", BomRules),
    ("power", "power", Power),
    ("cooling", "cooling", Cooling),
    ("tco", "tco", Tco),
    ("carbon", "carbon", Carbon),
    ("scheduler", "scheduler", Scheduler),
    ("workload", "workload", Workload),
)


@dataclass(frozen=True)
class Requirements:
    """Everything a design asks for, validated (see cluster.validate)."""

    cluster: Cluster = dataclasses.field(default_factory=Cluster)
    compute_fabric: ComputeFabric = dataclasses.field(default_factory=ComputeFabric)
    storage: Storage = dataclasses.field(default_factory=Storage)
    checkpoint: Checkpoint = dataclasses.field(default_factory=Checkpoint)
    management: Management = dataclasses.field(default_factory=Management)
    bom: BomRules = dataclasses.field(default_factory=BomRules)
    power: Power = dataclasses.field(default_factory=Power)
    cooling: Cooling = dataclasses.field(default_factory=Cooling)
    tco: Tco = dataclasses.field(default_factory=Tco)
    carbon: Carbon = dataclasses.field(default_factory=Carbon)
    scheduler: Scheduler = dataclasses.field(default_factory=Scheduler)
    workload: Workload = dataclasses.field(default_factory=Workload)

    @property
    def node_count(self) -> int:
        return self.cluster.node_count

    def flat(self) -> dict[str, Any]:
        """Flat field name → value (the form's names, the stored revision's columns)."""
        return {f.flat: getattr(getattr(self, f.section), f.key) for f in FIELDS}

    @classmethod
    def from_flat(cls, flat: dict[str, Any]) -> Requirements:
        """Typed sections from flat values already validated (a stored revision, validate_flat)."""
        parts: dict[str, dict[str, Any]] = {attr: {} for attr, _, _ in SECTIONS}
        for f in FIELDS:
            if f.flat in flat:
                parts[f.section][f.key] = flat[f.flat]
        return cls(**{attr: klass(**parts[attr]) for attr, _, klass in SECTIONS})

    def nested(self) -> dict[str, Any]:
        """The file/API layout: top-level cluster keys, then one mapping per section."""
        out: dict[str, Any] = {}
        for f in FIELDS:
            value = getattr(getattr(self, f.section), f.key)
            if f.flat == "torus_dims":
                value = [int(x) for x in value.split("x")] if value else None
            elif f.flat == "wl_classes":  # a list of mappings in files and the API (the text is validated)
                value = [class_dict(c) for c in parse_classes(value)] if value.strip() else []
            (out.setdefault(f.path_section, {}) if f.path_section else out)[f.key] = value
        return out


@dataclass(frozen=True)
class Field:
    """One requirement field: where it lives and what it accepts."""

    section: str  # attribute on Requirements
    path_section: str  # key in files and the API ("" = top level)
    key: str  # attribute on the section and key in files and the API
    flat: str  # name in forms and stored revisions
    spec: FieldSpec
    python_type: str

    @property
    def path(self) -> str:
        return f"{self.path_section}.{self.key}" if self.path_section else self.key


@cache
def _fields() -> tuple[Field, ...]:
    out = []
    for attr, path_section, klass in SECTIONS:
        for f in dataclasses.fields(klass):
            spec: FieldSpec = f.metadata["spec"]
            out.append(Field(attr, path_section, f.name, spec.flat or f.name, spec, str(f.type)))
    return tuple(out)


FIELDS: tuple[Field, ...] = _fields()
FIELD_BY_FLAT: dict[str, Field] = {f.flat: f for f in FIELDS}
FIELD_BY_PATH: dict[str, Field] = {f.path: f for f in FIELDS}
FLAT_NAMES: tuple[str, ...] = tuple(f.flat for f in FIELDS)
assert len(FIELD_BY_FLAT) == len(FIELDS), "two fields share a flat name"


def choice_label(flat_name: str, value: object, *, short: bool = False) -> str:
    """A choice's label as its form field shows it ("fat_tree" → "Fat-tree / folded Clos"); ``short`` drops a
    final parenthesis (the figure it quotes is stated beside it). A value that is not a choice: as it is."""
    f = FIELD_BY_FLAT.get(flat_name)
    label = next((text for v, text in getattr(f.spec, "choices", None) or () if v == value), None) if f else None
    if label is None:
        return str(value)
    return re.sub(r" \([^()]*\)$", "", label) if short else label


def field_path(flat_name: str) -> str:
    """A flat field name as typed in a file or the API (``storage_nic_gbps`` → ``storage.nic_gbps``)."""
    f = FIELD_BY_FLAT.get(flat_name)
    return f.path if f else flat_name
