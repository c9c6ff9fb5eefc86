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

import math

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


def plan_dragonfly_plus(req: FabricRequest) -> FabricPlan:
    n = req.endpoint_count
    k = req.switch_radix
    s = req.switch_port_gbps
    b = req.nic_gbps
    leaf = port_split(k, b, s, req.oversubscription)
    d, u = leaf.down, leaf.up
    spine_budget = port_split(k, s, s, req.global_oversubscription, "global_oversubscription")
    a_max = spine_budget.down
    if req.leaves_per_group is not None and req.leaves_per_group > a_max:
        raise FabricRequestError.single(
            "leaves_per_group",
            f"a {k}-port spine at {req.global_oversubscription:g}:1 global taper takes at most "
            f"{a_max} leaves down; got {req.leaves_per_group}",
        )
    a_l = req.leaves_per_group or a_max
    m = largest_divisor_at_most(u, a_max // a_l)
    spines = u // m
    spine_down = a_l * m
    h = math.ceil(spine_down / req.global_oversubscription - 1e-9)
    if spine_down + h > k:
        h = k - spine_down
    group_endpoints = a_l * d
    groups = math.ceil(n / group_endpoints)
    max_groups = spines * h + 1
    max_endpoints = max_groups * group_endpoints
    if groups > max_groups:
        raise FabricRequestError.single(
            "node_count",
            f"{n:,} endpoints need {groups:,} groups of {group_endpoints:,}, but {spines} spines × "
            f"{h} global ports reach at most {max_groups:,} groups ({max_endpoints:,} endpoints); "
            "use a larger radix or more global taper",
        )
    per_pair = (spines * h) // (groups - 1) if groups > 1 else 0
    global_links = groups * (groups - 1) // 2 * per_pair
    # Groups are the unit of deployment: every group is built whole (all its leaves and
    # spines), the last one with free endpoint ports. A partly built group would also
    # starve adaptive routing, which relays through intermediate groups' spines.
    leaf_endpoints: list[int] = []
    leaf_group: list[int] = []
    remaining = n
    for g in range(groups):
        for _ in range(a_l):
            here = min(d, remaining)
            remaining -= here
            leaf_endpoints.append(here)
            leaf_group.append(g)
    leaf_count = len(leaf_endpoints)
    spine_count = groups * spines
    wiring = DragonflyWiring(
        group_count=groups,
        leaf_endpoints=tuple(leaf_endpoints),
        leaf_group=tuple(leaf_group),
        spines_per_group=spines,
        leaf_to_spine_links=m,
        global_ports_per_spine=h,
        global_links_per_group_pair=per_pair,
    )
    bis = dragonfly_bisection(wiring, n, b, s, u)
    global_used_per_group = (groups - 1) * per_pair
    tiers = (
        Tier(
            name="leaf",
            switch_count=leaf_count,
            radix=k,
            port_gbps=s,
            down_ports_per_switch=d,
            up_ports_per_switch=u,
            down_ports_used_total=n,
            up_ports_used_total=leaf_count * u,
            uplink_count=leaf_count * u,
            uplink_gbps=s,
            oversubscription=leaf.oversubscription,
            derivation=(
                f"groups of {a_l} leaves × {d} endpoints = {group_endpoints:,}; "
                f"⌈{n:,} ÷ {group_endpoints:,}⌉ = {groups} groups, {leaf_count:,} leaves; "
                f"each leaf {d} × {b:g}G down, {u} × {s:g}G up = {leaf.oversubscription:.3g}:1"
            ),
        ),
        Tier(
            name="spine",
            switch_count=spine_count,
            radix=k,
            port_gbps=s,
            down_ports_per_switch=spine_down,
            up_ports_per_switch=h,
            down_ports_used_total=leaf_count * u,
            up_ports_used_total=2 * global_links,
            uplink_count=global_links,
            uplink_gbps=s,
            oversubscription=spine_down / h if h else 1.0,
            derivation=(
                f"{spines} spines per group ({u} leaf uplinks ÷ {m} per spine) × {groups} groups "
                f"= {spine_count:,}; each spine {spine_down} down, {h} global ports; a group's "
                f"{spines * h} global ports give ⌊{spines * h} ÷ {max(groups - 1, 1)}⌋ = {per_pair} "
                f"link(s) to each other group ({global_used_per_group} used)"
            ),
        ),
    )
    derivations = {
        "endpoint_count": f"{req.node_count:,} nodes × {req.nics_per_node} NICs = {n:,} endpoints",
        "group_count": f"⌈{n:,} ÷ ({a_l} leaves × {d} endpoints)⌉ = {groups}",
        "global_link_count": (
            f"{groups} × {groups - 1} ÷ 2 group pairs × {per_pair} = {global_links:,} "
            "(spine to spine, each counted once)"
        ),
        "max_endpoint_count": (
            f"{spines} spines × {h} global ports + 1 = {max_groups:,} groups × "
            f"{group_endpoints:,} endpoints = {max_endpoints:,}"
        ),
        "endpoint_link_count": f"one link per endpoint NIC = {n:,}",
        "switch_link_count": (
            f"{leaf_count * u:,} leaf–spine + {global_links:,} global = {leaf_count * u + global_links:,}"
        ),
        "bisection_gbps": bis.derivation,
        "link_end_count": "every link has 2 ends, each needing a port and (for optics) a transceiver",
    }
    return FabricPlan(
        topology=Topology.DRAGONFLY_PLUS,
        endpoint_count=n,
        endpoint_gbps=b,
        tiers=tiers,
        endpoint_link_count=n,
        switch_link_count=leaf_count * u + global_links,
        bisection_gbps=bis.gbps,
        max_endpoint_count=max_endpoints,
        wiring=wiring,
        derivations=derivations,
        extras={
            "group_count": groups,
            "leaves_per_group": a_l,
            "spines_per_group": spines,
            "global_link_count": global_links,
            "global_links_per_group_pair": per_pair,
            "max_group_count": max_groups,
            "global_oversubscription_ratio": round(spine_down / h, 6) if h else None,
        },
    )
