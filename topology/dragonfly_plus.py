"""Dragonfly+ generator.

Shpiner et al., "Dragonfly+: Low Cost Topology for Scaling Datacenters" (HiPINEB
2017); seed chapter §14.1.2. A group is a 2-level Clos: leaf routers take the
endpoints, spine routers connect every leaf of the group and carry the global links
to the other groups' spines. With k-port routers at 1:1, a group has k/2 leaves and
k/2 spines, each spine k/2 global links, so at most k²/4 + 1 groups and
(k/2)²·(k²/4 + 1) endpoints. ``oversubscription`` applies at the leaf (intra-group),
``global_oversubscription`` at the spine (spine down ÷ global links).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from topology.bisection import dragonfly_bisection
from topology.sizing import largest_divisor_at_most, port_split
from topology.spec import (
    DragonflyWiring,
    FabricPlan,
    FabricRequest,
    FabricRequestError,
    Tier,
    Topology,
)


@dataclass(frozen=True)
class _Shape:
    """The sizing of a Dragonfly+ fabric: groups of leaves and spines, global ports and links."""

    n: int  # endpoints
    k: int  # radix
    s: float  # switch port speed
    b: float  # endpoint speed
    d: int  # leaf down ports
    u: int  # leaf up ports
    leaf_oversubscription: float
    a_l: int  # leaves per group
    m: int  # links from a leaf to each spine of its group
    spines: int  # spines per group
    spine_down: int
    h: int  # global ports per spine
    groups: int
    max_groups: int
    per_pair: int  # global links between two groups
    global_links: int

    @property
    def group_endpoints(self) -> int:
        return self.a_l * self.d

    @property
    def max_endpoints(self) -> int:
        return self.max_groups * self.group_endpoints


def _shape(req: FabricRequest) -> _Shape:
    n, k, s, b = req.endpoint_count, req.switch_radix, req.switch_port_gbps, req.nic_gbps
    leaf = port_split(k, b, s, req.oversubscription)
    d, u = leaf.down, leaf.up
    a_max = port_split(k, s, s, req.global_oversubscription, "global_oversubscription").down
    if req.leaves_per_group is not None and req.leaves_per_group > a_max:
        raise FabricRequestError.single(
            "leaves_per_group",
            f"a {k}-port spine at {req.global_oversubscription:g}:1 global taper takes at most "
            f"{a_max} leaves down; got {req.leaves_per_group}",
        )
    a_l = req.leaves_per_group or a_max
    if req.leaves_per_group is None and not req.uplinks_for_full_leaf and n <= a_max * d:
        # sized to the need (issue #34): one group's endpoints spread evenly over the fewest leaves it needs, each
        # leaf with the uplinks for the down ports it uses (several groups stay whole, identical units of a_max
        # leaves: adaptive routing relays through every group's spines, see _wiring)
        a_l = math.ceil(n / d)
        d = math.ceil(n / a_l)
        u = math.ceil(d * b / (req.oversubscription * s) - 1e-9)
        leaf = dataclasses.replace(leaf, down=d, up=u, oversubscription=d * b / (u * s))
    m = largest_divisor_at_most(u, a_max // a_l)
    spines = u // m
    spine_down = a_l * m
    # global ports per spine: down ÷ the taper, rounded up; within the radix, as spine_down ≤ a_max and port_split
    # keeps a_max ≤ the taper × its own up ports (k − a_max)
    h = math.ceil(spine_down / req.global_oversubscription - 1e-9)
    groups = math.ceil(n / (a_l * d))
    max_groups = spines * h + 1
    if groups > max_groups:
        raise FabricRequestError.single(
            "node_count",
            f"{n:,} endpoints need {groups:,} groups of {a_l * d:,}, but {spines} spines × "
            f"{h} global ports reach at most {max_groups:,} groups ({max_groups * a_l * d:,} endpoints); "
            "use a larger radix or more global taper",
        )
    per_pair = (spines * h) // (groups - 1) if groups > 1 else 0
    global_links = groups * (groups - 1) // 2 * per_pair
    return _Shape(
        n,
        k,
        s,
        b,
        d,
        u,
        leaf.oversubscription,
        a_l,
        m,
        spines,
        spine_down,
        h,
        groups,
        max_groups,
        per_pair,
        global_links,
    )


def _wiring(sh: _Shape) -> DragonflyWiring:
    """Groups are the unit of deployment: every group is built whole (all its leaves and spines),
    the last one with free endpoint ports. A partly built group would also starve adaptive
    routing, which relays through intermediate groups' spines."""
    leaf_endpoints: list[int] = []
    leaf_group: list[int] = []
    remaining = sh.n
    for g in range(sh.groups):
        for _ in range(sh.a_l):
            here = min(sh.d, remaining)
            remaining -= here
            leaf_endpoints.append(here)
            leaf_group.append(g)
    return DragonflyWiring(
        group_count=sh.groups,
        leaf_endpoints=tuple(leaf_endpoints),
        leaf_group=tuple(leaf_group),
        spines_per_group=sh.spines,
        leaf_to_spine_links=sh.m,
        global_ports_per_spine=sh.h,
        global_links_per_group_pair=sh.per_pair,
    )


def _tiers(sh: _Shape) -> tuple[Tier, Tier]:
    leaf_count, spine_count = sh.groups * sh.a_l, sh.groups * sh.spines
    group_ports = sh.spines * sh.h
    if sh.groups > 1:
        global_use = (
            f"a group's {group_ports} global ports give ⌊{group_ports} ÷ {sh.groups - 1}⌋ = {sh.per_pair} link(s) "
            f"to each other group ({(sh.groups - 1) * sh.per_pair} used)"
        )
    else:
        global_use = f"one group: its {group_ports} global ports stay free"
    leaf = Tier(
        name="leaf",
        switch_count=leaf_count,
        radix=sh.k,
        port_gbps=sh.s,
        down_ports_per_switch=sh.d,
        up_ports_per_switch=sh.u,
        down_ports_used_total=sh.n,
        up_ports_used_total=leaf_count * sh.u,
        uplink_count=leaf_count * sh.u,
        uplink_gbps=sh.s,
        oversubscription=sh.leaf_oversubscription,
        derivation=(
            f"groups of {sh.a_l} leaves × {sh.d} endpoints = {sh.group_endpoints:,}; "
            f"⌈{sh.n:,} ÷ {sh.group_endpoints:,}⌉ = {sh.groups} group(s), {leaf_count:,} leaves; "
            f"each leaf {sh.d} × {sh.b:g}G down, {sh.u} × {sh.s:g}G up = {sh.leaf_oversubscription:.3g}:1"
        ),
    )
    spine = Tier(
        name="spine",
        switch_count=spine_count,
        radix=sh.k,
        port_gbps=sh.s,
        down_ports_per_switch=sh.spine_down,
        up_ports_per_switch=sh.h,
        down_ports_used_total=leaf_count * sh.u,
        up_ports_used_total=2 * sh.global_links,
        uplink_count=sh.global_links,
        uplink_gbps=sh.s,
        oversubscription=sh.spine_down / sh.h,  # h ≥ 1: ⌈spine_down ÷ taper⌉ of at least one leaf link
        derivation=(
            f"{sh.spines} spines per group ({sh.u} leaf uplinks ÷ {sh.m} per spine) × {sh.groups} group(s) "
            f"= {spine_count:,}; each spine {sh.spine_down} down, {sh.h} global ports; {global_use}"
        ),
    )
    return leaf, spine


def _derivations(req: FabricRequest, sh: _Shape, bisection: str) -> dict[str, str]:
    leaf_spine = sh.groups * sh.a_l * sh.u
    return {
        "endpoint_count": f"{req.node_count:,} nodes × {req.nics_per_node} NICs = {sh.n:,} endpoints",
        "group_count": f"⌈{sh.n:,} ÷ ({sh.a_l} leaves × {sh.d} endpoints)⌉ = {sh.groups}",
        "global_link_count": (
            f"{sh.groups} × {sh.groups - 1} ÷ 2 group pairs × {sh.per_pair} = {sh.global_links:,} "
            "(spine to spine, each counted once)"
        ),
        "max_endpoint_count": (
            f"{sh.spines} spines × {sh.h} global ports + 1 = {sh.max_groups:,} groups × "
            f"{sh.group_endpoints:,} endpoints = {sh.max_endpoints:,}"
        ),
        "endpoint_link_count": f"one link per endpoint NIC = {sh.n:,}",
        "switch_link_count": (
            f"{leaf_spine:,} leaf–spine + {sh.global_links:,} global = {leaf_spine + sh.global_links:,}"
        ),
        "bisection_gbps": bisection,
        "link_end_count": "every link has 2 ends, each needing a port and (for optics) a transceiver",
    }


def plan_dragonfly_plus(req: FabricRequest) -> FabricPlan:
    sh = _shape(req)
    wiring = _wiring(sh)
    bis = dragonfly_bisection(wiring, sh.n, sh.b, sh.s, sh.u)
    return FabricPlan(
        topology=Topology.DRAGONFLY_PLUS,
        endpoint_count=sh.n,
        endpoint_gbps=sh.b,
        tiers=_tiers(sh),
        endpoint_link_count=sh.n,
        switch_link_count=sh.groups * sh.a_l * sh.u + sh.global_links,
        bisection_gbps=bis.gbps,
        max_endpoint_count=sh.max_endpoints,
        wiring=wiring,
        derivations=_derivations(req, sh, bis.derivation),
        extras={
            "group_count": sh.groups,
            "leaves_per_group": sh.a_l,
            "spines_per_group": sh.spines,
            "global_link_count": sh.global_links,
            "global_links_per_group_pair": sh.per_pair,
            "max_group_count": sh.max_groups,
            "global_oversubscription_ratio": round(sh.spine_down / sh.h, 6),
        },
    )
