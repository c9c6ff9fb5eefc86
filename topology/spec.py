"""Plain data for the fabric engine: the request, the plan and its tiers.

Everything here is a frozen dataclass of numbers and strings, so a plan can be
stored as JSON, compared, and handed to the graph builder without Django.
Units are in the names (``_gbps`` = Gbit/s decimal, ``_tbyte_s`` = TB/s with
1 TB/s = 8,000 Gbit/s).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

GBPS_PER_TBYTE_S = 8_000.0
"""1 TB/s = 8 Tbit/s = 8,000 Gbit/s (decimal units, as the seed chapter uses)."""


class Topology(enum.StrEnum):
    RAIL_OPTIMIZED = "rail_optimized"
    FAT_TREE = "fat_tree"
    DRAGONFLY_PLUS = "dragonfly_plus"
    TORUS_3D = "torus_3d"

    @property
    def label(self) -> str:
        return {
            "rail_optimized": "Rail-optimized",
            "fat_tree": "Fat-tree / folded Clos",
            "dragonfly_plus": "Dragonfly+",
            "torus_3d": "3D torus",
        }[self.value]


NIC_PLANE_CHOICES = (1, 2, 4)
"""A NIC used as 1, 2 or 4 independent planes (e.g. an 800G ConnectX-8 as 2 × 400G)."""


def divisors(n: int) -> list[int]:
    """The divisors of n in increasing order."""
    return [d for d in range(1, n + 1) if n % d == 0]


class FabricRequestError(ValueError):
    """A request the engine cannot satisfy, keyed by the offending field.

    ``errors`` maps a field name of :class:`FabricRequest` to a message that says
    what is wrong and what is allowed.
    """

    def __init__(self, errors: Mapping[str, str]):
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))

    @classmethod
    def single(cls, field_name: str, message: str) -> FabricRequestError:
        return cls({field_name: message})


@dataclass(frozen=True)
class FabricRequest:
    """What the architect asks of the compute (training back-end) fabric.

    Switched topologies count one endpoint per NIC port (``node_count × nics_per_node``);
    the 3D torus counts one endpoint per accelerator chip.
    """

    topology: Topology
    node_count: int
    nics_per_node: int = 8
    nic_gbps: float = 400.0
    switch_radix: int = 64
    switch_port_gbps: float = 400.0
    oversubscription: float = 1.0
    agg_oversubscription: float = 1.0
    tiers: int | None = None
    scalable_unit_nodes: int | None = None
    # Rail-optimized: rails split into groups with a spine group each (None = automatic),
    # and each NIC split into ``nic_planes`` ports of nic_gbps / nic_planes on separate planes
    rail_groups: int | None = None
    nic_planes: int = 1
    reserved_node_slots: int = 0  # empty node slots at the start of the first SU (fabric-management servers)
    # Per-tier switch models (radix; every tier runs switch_port_gbps) and explicit sizes
    spine_radix: int | None = None  # None: the leaf's switch_radix
    core_radix: int | None = None
    leaf_nodes: int | None = None  # fat-tree: nodes per leaf (a ToR per rack); None: fill the leaf
    pod_nodes: int | None = None  # 3 tiers: nodes per pod, full bisection inside, the taper above
    # False (default): every leaf buys the uplinks its *used* down ports need at the ratio; True: the uplinks
    # of the radix's whole port split, for growth onto the free down ports (issue #34: an explicit option)
    uplinks_for_full_leaf: bool = False
    # Dragonfly+
    leaves_per_group: int | None = None
    global_oversubscription: float = 1.0
    # 3D torus (chips = node_count × chips_per_node)
    chips_per_node: int = 1
    torus_dims: tuple[int, int, int] | None = None
    torus_link_gbps: float = 400.0

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}

        def positive_int(name: str, value: Any, allow_none: bool = False) -> None:
            if value is None and allow_none:
                return
            if isinstance(value, bool) or not isinstance(value, int):
                errors[name] = f"must be a whole number, got {value!r}"
            elif value <= 0:
                errors[name] = f"must be at least 1, got {value}"

        def positive_real(name: str, value: Any) -> None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                errors[name] = f"must be a number, got {value!r}"
            elif not math.isfinite(value) or value <= 0:
                errors[name] = f"must be a positive number, got {value}"

        def ratio(name: str, value: Any) -> None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                errors[name] = f"must be a number, got {value!r}"
            elif not math.isfinite(value) or value < 1:
                errors[name] = (
                    f"must be ≥ 1 (1 = non-blocking, 2 = 2:1 …); got {value}. "
                    "An oversubscription below 1 would buy more uplink than downlink."
                )

        if not isinstance(self.topology, Topology):
            try:
                object.__setattr__(self, "topology", Topology(self.topology))
            except ValueError:
                allowed = ", ".join(t.value for t in Topology)
                errors["topology"] = f"unknown topology {self.topology!r}; choose one of {allowed}"
        positive_int("node_count", self.node_count)
        positive_int("nics_per_node", self.nics_per_node)
        positive_real("nic_gbps", self.nic_gbps)
        positive_int("switch_radix", self.switch_radix)
        positive_real("switch_port_gbps", self.switch_port_gbps)
        ratio("oversubscription", self.oversubscription)
        ratio("agg_oversubscription", self.agg_oversubscription)
        ratio("global_oversubscription", self.global_oversubscription)
        positive_int("scalable_unit_nodes", self.scalable_unit_nodes, allow_none=True)
        positive_int("leaves_per_group", self.leaves_per_group, allow_none=True)
        positive_int("rail_groups", self.rail_groups, allow_none=True)
        for name in ("spine_radix", "core_radix", "leaf_nodes", "pod_nodes"):
            positive_int(name, getattr(self, name), allow_none=True)
        self._check_sizes(errors)
        positive_int("nic_planes", self.nic_planes)
        if isinstance(self.reserved_node_slots, bool) or not isinstance(self.reserved_node_slots, int):
            errors["reserved_node_slots"] = f"must be a whole number, got {self.reserved_node_slots!r}"
        elif self.reserved_node_slots < 0:
            errors["reserved_node_slots"] = f"must be ≥ 0, got {self.reserved_node_slots}"
        elif self.reserved_node_slots and self.topology != Topology.RAIL_OPTIMIZED:
            errors["reserved_node_slots"] = "reserved node slots are slots of a rail-optimized scalable unit; use 0"
        self._check_groups(errors)
        positive_int("chips_per_node", self.chips_per_node)
        positive_real("torus_link_gbps", self.torus_link_gbps)
        self._check_tiers_and_dims(errors)
        if (
            "switch_radix" not in errors
            and isinstance(self.switch_radix, int)
            and self.switch_radix < 2
            and self.topology != Topology.TORUS_3D
        ):
            errors["switch_radix"] = f"a switch needs at least 2 ports, got {self.switch_radix}"
        if (
            self.topology != Topology.TORUS_3D
            and "nic_gbps" not in errors
            and "switch_port_gbps" not in errors
            and "nic_planes" not in errors
            and self.endpoint_gbps > self.switch_port_gbps
        ):
            errors["nic_gbps"] = (
                f"a {self.endpoint_gbps:g}G NIC port is faster than the {self.switch_port_gbps:g}G switch "
                "ports; choose a switch whose ports are at least as fast as the NIC"
                + (" or split each NIC into planes (nic_planes)" if self.topology == Topology.RAIL_OPTIMIZED else "")
            )
        if errors:
            raise FabricRequestError(errors)

    def _check_tiers_and_dims(self, errors: dict[str, str]) -> None:
        if self.tiers is not None:
            if isinstance(self.tiers, bool) or not isinstance(self.tiers, int):
                errors["tiers"] = f"must be 1, 2 or 3 (or empty for automatic), got {self.tiers!r}"
            elif self.tiers not in (1, 2, 3):
                errors["tiers"] = f"must be 1, 2 or 3 (or empty for automatic), got {self.tiers}"
        if self.torus_dims is not None:
            dims = tuple(self.torus_dims)
            if len(dims) != 3 or any(isinstance(d, bool) or not isinstance(d, int) or d < 1 for d in dims):
                errors["torus_dims"] = f"must be three whole numbers ≥ 1, got {self.torus_dims!r}"
            else:
                object.__setattr__(self, "torus_dims", dims)

    def _check_sizes(self, errors: dict[str, str]) -> None:
        """Per-tier radix ≥ 2; nodes per leaf on a fat-tree only; pods only in 3 tiers."""
        for name in ("spine_radix", "core_radix"):
            value = getattr(self, name)
            if name not in errors and value is not None and value < 2:
                errors[name] = f"a switch needs at least 2 ports, got {value}"
        if self.leaf_nodes is not None and "leaf_nodes" not in errors and self.topology != Topology.FAT_TREE:
            errors["leaf_nodes"] = (
                "nodes per leaf apply to a fat-tree; a rail-optimized fabric groups nodes by scalable_unit_nodes"
            )
        if self.pod_nodes is not None and "pod_nodes" not in errors:
            if self.topology not in (Topology.FAT_TREE, Topology.RAIL_OPTIMIZED):
                errors["pod_nodes"] = "pods apply to fat-tree and rail-optimized fabrics"
            elif self.tiers in (1, 2):
                errors["pod_nodes"] = (
                    f"pods sit under a core: they need 3 tiers, but tiers is {self.tiers}; "
                    "set 3 tiers or leave it empty"
                )
            elif "node_count" not in errors and self.pod_nodes > self.node_count:
                errors["pod_nodes"] = (
                    f"a pod of {self.pod_nodes:,} nodes is larger than the {self.node_count:,}-node cluster"
                )

    def _check_groups(self, errors: dict[str, str]) -> None:
        """Rail groups must divide the rails; groups and planes exist only on a rail-optimized fabric."""
        if "rail_groups" in errors or "nic_planes" in errors or "nics_per_node" in errors:
            return
        rail = self.topology == Topology.RAIL_OPTIMIZED
        if self.rail_groups is not None and self.rail_groups > 1:
            if not rail:
                errors["rail_groups"] = "rail groups exist only on a rail-optimized fabric; leave it empty or 1"
            elif self.nics_per_node % self.rail_groups:
                allowed = ", ".join(str(d) for d in divisors(self.nics_per_node))
                errors["rail_groups"] = (
                    f"{self.rail_groups} groups do not divide the {self.nics_per_node} rails into equal groups; "
                    f"choose one of {allowed} (or leave it empty for automatic)"
                )
        if self.nic_planes not in NIC_PLANE_CHOICES:
            errors["nic_planes"] = f"must be one of {', '.join(map(str, NIC_PLANE_CHOICES))}, got {self.nic_planes}"
        elif self.nic_planes > 1 and not rail:
            errors["nic_planes"] = "NIC planes exist only on a rail-optimized fabric; use 1"

    @property
    def endpoint_gbps(self) -> float:
        """Speed of one fabric endpoint: a NIC port, or one plane of a NIC split into planes."""
        if self.topology == Topology.TORUS_3D:
            return self.torus_link_gbps
        return self.nic_gbps / self.nic_planes

    @property
    def endpoint_count(self) -> int:
        if self.topology == Topology.TORUS_3D:
            return self.node_count * self.chips_per_node
        return self.node_count * self.nics_per_node * self.nic_planes


@dataclass(frozen=True)
class Tier:
    """One switching tier of a fabric.

    ``down_ports_per_switch``/``up_ports_per_switch`` are the designed port split;
    the ``*_total`` figures count what is really cabled (a last, partly filled leaf
    has free down ports). ``uplink_count`` is the number of links from this tier to
    the tier above, each link counted once.
    """

    name: str
    switch_count: int
    radix: int
    port_gbps: float
    down_ports_per_switch: int
    up_ports_per_switch: int
    down_ports_used_total: int
    up_ports_used_total: int
    uplink_count: int
    uplink_gbps: float
    oversubscription: float
    derivation: str

    @property
    def ports_total(self) -> int:
        return self.switch_count * self.radix

    @property
    def ports_used_total(self) -> int:
        return self.down_ports_used_total + self.up_ports_used_total

    @property
    def ports_free_total(self) -> int:
        return self.ports_total - self.ports_used_total

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "switch_count": self.switch_count,
            "radix_ports": self.radix,
            "port_gbps": self.port_gbps,
            "down_ports_per_switch": self.down_ports_per_switch,
            "up_ports_per_switch": self.up_ports_per_switch,
            "ports_used_count": self.ports_used_total,
            "ports_free_count": self.ports_free_total,
            "uplink_count": self.uplink_count,
            "uplink_gbps": self.uplink_gbps,
            "oversubscription_ratio": round(self.oversubscription, 6),
            "derivation": self.derivation,
        }


@dataclass(frozen=True)
class ClosWiring:
    """Enough structure to rebuild a (rail-optimized) folded Clos link by link.

    Endpoints are numbered in their natural order: leaf by leaf for a fat-tree,
    node-major ``(node, rail)`` for a rail-optimized fabric. Rail-optimized leaves are
    grouped by scalable unit (SU), then rail; pods hold whole SUs. Every leaf has
    ``leaf_up`` uplinks, ``leaf_to_agg_links`` to each of the ``aggs_per_pod``
    switches of the tier above in its pod (the spines of a 2-tier fabric are the
    "aggregation" switches of its single pod). In a 3-tier fabric aggregation switch
    ``j`` of every pod deals its ``agg_up`` uplinks round-robin over the ``cores_per_group``
    cores of core group ``j`` (link t to core t mod c: at most ``agg_to_core_links`` a core).
    """

    tiers: int
    endpoint_count: int
    rails: int
    node_count: int
    su_nodes: int  # nodes per scalable unit (rail-optimized); 0 for a plain fat-tree
    leaves_per_su_rail: int
    leaf_down: int
    leaf_up: int
    leaves_per_pod: int
    aggs_per_pod: int
    leaf_to_agg_links: int
    agg_up: int = 0
    cores_per_group: int = 0
    agg_to_core_links: int = 0
    reserved_slots: int = 0  # empty node slots at the start of the first SU: node i sits in slot i + reserved
    tail_aggs: int = 0
    """3 tiers, a partial last pod (issue #34): its leaves send ``tail_leaf_to_agg_links`` links to each of
    ``tail_aggs`` spines (0: the last pod is full, or built like the others). Tail spine ``j`` stands for the
    spine positions ``j × m … j × m + m − 1`` (m = ``tail_leaf_to_agg_links``) and sends
    ``tail_agg_up_per_group`` links to each of those core groups, dealt round-robin over the group's cores."""
    tail_leaf_to_agg_links: int = 0
    tail_agg_up_per_group: int = 0
    copies: int = 1
    """Disjoint copies of this wiring (rail groups × NIC planes). The fields above describe
    one copy; in the whole fabric endpoint ``e`` is node ``e // (rails × copies)`` and copy
    ``(e % (rails × copies)) // rails``: a node's ports are numbered plane-major, then NIC."""
    planes: int = 1


@dataclass(frozen=True)
class DragonflyWiring:
    """Dragonfly+ structure: groups of leaves and spines, global links between spines."""

    group_count: int
    leaf_endpoints: tuple[int, ...]  # per leaf, all groups, group-major
    leaf_group: tuple[int, ...]
    spines_per_group: int
    leaf_to_spine_links: int
    global_ports_per_spine: int
    global_links_per_group_pair: int


@dataclass(frozen=True)
class TorusWiring:
    dims: tuple[int, int, int]


Wiring = ClosWiring | DragonflyWiring | TorusWiring


@dataclass(frozen=True)
class FabricPlan:
    """The sized compute fabric, with a derivation string for every figure."""

    topology: Topology
    endpoint_count: int
    endpoint_gbps: float
    tiers: tuple[Tier, ...]
    endpoint_link_count: int
    switch_link_count: int
    bisection_gbps: float
    max_endpoint_count: int
    wiring: Wiring
    derivations: Mapping[str, str]
    extras: Mapping[str, Any] = field(default_factory=dict)

    @property
    def switch_count(self) -> int:
        return sum(t.switch_count for t in self.tiers)

    @property
    def link_count(self) -> int:
        return self.endpoint_link_count + self.switch_link_count

    @property
    def link_end_count(self) -> int:
        """Each link has two ends; optics and cables are bought per end, not per link."""
        return 2 * self.link_count

    @property
    def bisection_tbyte_s(self) -> float:
        return self.bisection_gbps / GBPS_PER_TBYTE_S

    @property
    def tier_count(self) -> int:
        return len(self.tiers)

    def tier(self, name: str) -> Tier:
        for t in self.tiers:
            if t.name == name:
                return t
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-ready data; every key with a dimension carries its unit."""
        return {
            "topology": self.topology.value,
            "endpoint_count": self.endpoint_count,
            "endpoint_gbps": self.endpoint_gbps,
            "tier_count": self.tier_count,
            "tiers": [t.to_dict() for t in self.tiers],
            "switch_count": self.switch_count,
            "endpoint_link_count": self.endpoint_link_count,
            "switch_link_count": self.switch_link_count,
            "link_count": self.link_count,
            "link_end_count": self.link_end_count,
            "bisection_gbps": round(self.bisection_gbps, 6),
            "bisection_tbyte_s": round(self.bisection_tbyte_s, 6),
            "max_endpoint_count": self.max_endpoint_count,
            "extras": dict(self.extras),
            "derivations": dict(self.derivations),
        }
