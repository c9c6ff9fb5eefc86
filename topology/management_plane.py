"""Management (front-end / out-of-band) plane: ToRs, spines, uplinks and BMC ports.

Seed chapter §14.8 (seed-figures.md D5): every server — 250 compute, 8 storage,
5 management, 4 login — has a 25GbE management port and a 1GbE BMC; ToRs of
48 × 25GbE + 8 × 100GbE take 8–10 servers each; 34 = ⌈267 / 8⌉ ToRs, each with
2 × 100GbE up to 2 management spines of 48 × 100GbE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from topology.spec import FabricRequestError


@dataclass(frozen=True)
class ManagementRequest:
    """Every figure comes from the requirements (cluster/requests.py): no policy defaults here."""

    compute_node_count: int
    storage_node_count: int
    mgmt_node_count: int
    login_node_count: int
    nodes_per_tor: int
    ports_per_node: int  # 25GbE management + 1GbE BMC on the same ToR
    tor_access_ports: int
    tor_access_gbps: float
    tor_uplinks: int
    tor_uplink_ports: int
    uplink_gbps: float
    spine_ports: int
    min_spines: int

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}
        for name in (
            "compute_node_count",
            "nodes_per_tor",
            "ports_per_node",
            "tor_access_ports",
            "tor_uplinks",
            "tor_uplink_ports",
            "spine_ports",
            "min_spines",
        ):
            if getattr(self, name) < 1:
                errors[name] = f"must be at least 1, got {getattr(self, name)}"
        for name in ("storage_node_count", "mgmt_node_count", "login_node_count"):
            if getattr(self, name) < 0:
                errors[name] = f"must be ≥ 0, got {getattr(self, name)}"
        for name in ("tor_access_gbps", "uplink_gbps"):
            if not getattr(self, name) > 0:
                errors[name] = f"must be positive, got {getattr(self, name)}"
        if not errors and self.nodes_per_tor * self.ports_per_node > self.tor_access_ports:
            errors["nodes_per_tor"] = (
                f"{self.nodes_per_tor} servers × {self.ports_per_node} ports = "
                f"{self.nodes_per_tor * self.ports_per_node} exceed the ToR's {self.tor_access_ports} "
                f"access ports; at most {self.tor_access_ports // self.ports_per_node} servers per ToR"
            )
        if not errors and self.tor_uplinks > self.tor_uplink_ports:
            errors["tor_uplinks"] = f"{self.tor_uplinks} uplinks exceed the ToR's {self.tor_uplink_ports} uplink ports"
        if errors:
            raise FabricRequestError(errors)


@dataclass(frozen=True)
class ManagementPlan:
    server_count: int
    tor_count: int
    spine_count: int
    tor_uplink_count: int
    access_port_count: int
    bmc_port_count: int
    spine_ports_used_max: int
    tor_oversubscription: float
    derivations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "server_count": self.server_count,
            "tor_count": self.tor_count,
            "spine_count": self.spine_count,
            "switch_count": self.tor_count + self.spine_count,
            "tor_uplink_count": self.tor_uplink_count,
            "access_port_count": self.access_port_count,
            "bmc_port_count": self.bmc_port_count,
            "spine_ports_used_max": self.spine_ports_used_max,
            "tor_oversubscription_ratio": round(self.tor_oversubscription, 6),
            "derivations": dict(self.derivations),
        }


def plan_management(req: ManagementRequest) -> ManagementPlan:
    servers = req.compute_node_count + req.storage_node_count + req.mgmt_node_count + req.login_node_count
    tors = math.ceil(servers / req.nodes_per_tor)
    uplinks = tors * req.tor_uplinks
    spines = max(req.min_spines, math.ceil(uplinks / req.spine_ports))
    per_spine_max = math.ceil(uplinks / spines)
    down_gbps = req.nodes_per_tor * req.tor_access_gbps
    up_gbps = req.tor_uplinks * req.uplink_gbps
    d = {
        "server_count": (
            f"{req.compute_node_count:,} compute + {req.storage_node_count} storage + "
            f"{req.mgmt_node_count} management + {req.login_node_count} login = {servers:,} servers"
        ),
        "tor_count": f"⌈{servers:,} ÷ {req.nodes_per_tor} servers per ToR⌉ = {tors:,} ToRs",
        "tor_uplink_count": f"{tors:,} ToRs × {req.tor_uplinks} × {req.uplink_gbps:g}G = {uplinks:,} uplinks",
        "spine_count": (
            f"max({req.min_spines} for redundancy, ⌈{uplinks:,} ÷ {req.spine_ports} spine ports⌉) = "
            f"{spines}; the busiest spine uses {per_spine_max} of {req.spine_ports} ports"
        ),
        "bmc_port_count": f"one 1GbE BMC per server = {servers:,} out-of-band ports",
        "access_port_count": (
            f"{servers:,} servers × {req.ports_per_node} ports (management + BMC) = {servers * req.ports_per_node:,}"
        ),
        "tor_oversubscription_ratio": (
            f"{req.nodes_per_tor} × {req.tor_access_gbps:g}G down ÷ {req.tor_uplinks} × {req.uplink_gbps:g}G up "
            f"= {down_gbps / up_gbps:.3g}:1"
        ),
    }
    return ManagementPlan(
        server_count=servers,
        tor_count=tors,
        spine_count=spines,
        tor_uplink_count=uplinks,
        access_port_count=servers * req.ports_per_node,
        bmc_port_count=servers,
        spine_ports_used_max=per_spine_max,
        tor_oversubscription=down_gbps / up_gbps,
        derivations=d,
    )
