"""Folded-Clos tiers shared by the fat-tree and rail-optimized generators.

The leaf layer is the generators' business (which endpoints share a leaf); above it
the construction is the classic one (Leiserson 1985; Al-Fares et al., SIGCOMM 2008,
"A scalable, commodity data center network architecture"): a k-port switch has
k/2 ports down and k/2 up at 1:1, a 2-tier leaf–spine reaches k²/2 endpoints and a
3-tier fat-tree k³/4 with 5k²/4 switches (seed chapter §14.1, F1/F2).

Uplinks are spread evenly: every leaf sends the same number of links to every
switch above it in its pod (so ECMP sees equal paths), which is why the spine count
is a divisor of the leaf uplink count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from topology.sizing import largest_divisor_at_most, port_split
from topology.spec import ClosWiring, FabricRequestError, Tier


@dataclass(frozen=True)
class LeafLayer:
    """What a generator decides about the leaves before the Clos is stacked on them."""

    endpoint_count: int
    rails: int
    node_count: int
    su_nodes: int  # 0 for a plain fat-tree (every leaf is its own unit)
    leaves_per_su_rail: int
    leaf_down: int
    leaf_up: int
    endpoint_gbps: float
    leaf_oversubscription: float
    endpoints_per_node: int = 1  # a fat-tree's NICs per node (whole nodes per leaf, pods in nodes)
    reserved_slots: int = 0  # rail-optimized: empty node slots at the start of the first SU

    def __post_init__(self) -> None:
        # a plain fat-tree's leaves are their own units: rails and leaves per SU rail mean nothing there, so
        # anything but 1 is a generator's mistake, not a design
        if not self.su_nodes and (self.rails, self.leaves_per_su_rail) != (1, 1):
            raise ValueError(
                f"a leaf layer without scalable units has 1 rail and 1 leaf per unit, "
                f"got rails={self.rails}, leaves_per_su_rail={self.leaves_per_su_rail}"
            )

    @property
    def leaves_per_unit(self) -> int:
        return self.rails * self.leaves_per_su_rail if self.su_nodes else 1


def endpoint_leaf_ids(w: ClosWiring | LeafLayer) -> np.ndarray:
    """Leaf number of every endpoint, in the endpoints' natural order.

    Leaves are numbered densely; a leaf slot left empty by a partial scalable unit is
    not a leaf (it is not bought).
    """
    e = np.arange(w.endpoint_count, dtype=np.int64)
    if not w.su_nodes:
        return e // w.leaf_down
    node = e // w.rails + w.reserved_slots  # the node's slot
    rail = e % w.rails
    su = node // w.su_nodes
    raw = (su * w.rails + rail) * w.leaves_per_su_rail + (node % w.su_nodes) // w.leaf_down
    _, dense = np.unique(raw, return_inverse=True)
    return dense.astype(np.int64)


def leaf_pod_ids(w: ClosWiring) -> np.ndarray:
    """Pod number of every leaf (pods hold whole scalable units)."""
    leaf_count = leaf_count_of(w)
    if not w.su_nodes:
        return np.arange(leaf_count, dtype=np.int64) // w.leaves_per_pod
    # first endpoint of each leaf tells its SU
    ep_leaf = endpoint_leaf_ids(w)
    first = np.zeros(leaf_count, dtype=np.int64)
    idx = np.arange(w.endpoint_count, dtype=np.int64)
    first[ep_leaf[::-1]] = idx[::-1]
    su = (first // w.rails + w.reserved_slots) // w.su_nodes
    sus_per_pod = w.leaves_per_pod // (w.rails * w.leaves_per_su_rail)
    return su // sus_per_pod


def leaf_count_of(w: ClosWiring | LeafLayer) -> int:
    if not w.su_nodes:
        return math.ceil(w.endpoint_count / w.leaf_down)
    full_sus, rest = divmod(w.node_count + w.reserved_slots, w.su_nodes)
    per_rail = full_sus * w.leaves_per_su_rail + math.ceil(rest / w.leaf_down)
    return per_rail * w.rails


def pod_count_of(w: ClosWiring) -> int:
    if w.tiers < 3:
        return 1
    return int(leaf_pod_ids(w).max()) + 1


@dataclass(frozen=True)
class ClosTiers:
    tiers: tuple[Tier, ...]
    wiring: ClosWiring
    switch_link_count: int
    max_endpoint_count: int
    derivations: dict[str, str]


def _max_endpoints(leaf: LeafLayer, tiers: int, radix: int, leaves_per_pod: int) -> int:
    """Largest endpoint count this leaf design reaches with ``tiers`` tiers at this radix."""
    if leaf.su_nodes:
        unit_endpoints = leaf.su_nodes * leaf.rails
        reserved = leaf.reserved_slots * leaf.rails
        if tiers == 1:
            return radix * leaf.rails  # rail-only: one radix-port switch per rail
        if tiers == 2:
            # whole SUs, then a partial SU on the leaves left over (same count per rail)
            full, rest = divmod(radix, leaf.leaves_per_unit)
            partial_nodes = (rest // leaf.rails) * leaf.leaf_down
            return full * unit_endpoints + partial_nodes * leaf.rails - reserved
        return radix * (leaves_per_pod // leaf.leaves_per_unit) * unit_endpoints - reserved
    if tiers == 1:
        return radix
    if tiers == 2:
        return radix * leaf.leaf_down
    return radix * leaves_per_pod * leaf.leaf_down


def _wiring(leaf: LeafLayer, tiers: int, **kw) -> ClosWiring:
    """The wiring record: the leaf layer's fields plus what the tiers above add."""
    return ClosWiring(
        tiers=tiers,
        endpoint_count=leaf.endpoint_count,
        rails=leaf.rails,
        node_count=leaf.node_count,
        su_nodes=leaf.su_nodes,
        leaves_per_su_rail=leaf.leaves_per_su_rail,
        leaf_down=leaf.leaf_down,
        reserved_slots=leaf.reserved_slots,
        leaf_up=kw.pop("leaf_up", leaf.leaf_up),
        **kw,
    )


@dataclass(frozen=True)
class Upper:
    """The tiers above the leaves: each tier's radix (per-tier switch models), the pod size, the taper."""

    spine_radix: int
    core_radix: int
    port_gbps: float
    agg_oversubscription: float
    pod_nodes: int | None  # explicit pod size (3 tiers); None: as many as a pod spine takes


def stack_clos(
    leaf: LeafLayer,
    *,
    tiers: int,
    radix: int,
    port_gbps: float,
    agg_oversubscription: float,
    spine_radix: int | None = None,
    core_radix: int | None = None,
    pod_nodes: int | None = None,
) -> ClosTiers:
    """Size the spine (and core) tiers above a leaf layer.

    ``tiers`` is 1, 2 or 3 (already decided by the caller); ``radix`` is the leaf's, the spine and
    core radix default to it. Raises :class:`FabricRequestError` on ``node_count`` when the fabric
    does not fit, on ``pod_nodes`` when the pod does not fit its spines.
    """
    if tiers not in (1, 2, 3):
        raise ValueError(f"tiers: 1, 2 or 3, got {tiers!r}")
    if tiers == 1 and (leaf.leaf_up, leaf.leaf_oversubscription) != (0, 1.0):
        raise ValueError(
            f"a one-tier leaf layer has no uplinks (0 up, 1:1), got {leaf.leaf_up} up at "
            f"{leaf.leaf_oversubscription:g}:1"
        )
    up = Upper(spine_radix or radix, core_radix or radix, port_gbps, agg_oversubscription, pod_nodes)
    leaf_tier = _leaf_tier(leaf, tiers, radix, port_gbps)
    if tiers == 1:
        return _one_tier(leaf, leaf_tier, radix)
    if tiers == 2:
        return _two_tiers(leaf, leaf_tier, up.spine_radix, port_gbps)
    return _three_tiers(leaf, leaf_tier, up)


def _leaf_tier(leaf: LeafLayer, tiers: int, k: int, s: float) -> Tier:
    n, leaf_count, b = leaf.endpoint_count, leaf_count_of(leaf), leaf.endpoint_gbps
    d, u = leaf.leaf_down, leaf.leaf_up
    if leaf.su_nodes:
        why = (
            f"{leaf.node_count:,} nodes"
            + (f" after {leaf.reserved_slots} reserved slot(s)" if leaf.reserved_slots else "")
            + f" in SUs of {leaf.su_nodes} → per rail "
            f"{leaf_count // leaf.rails:,} leaves of {d} down ports "
            f"(⌈{leaf.su_nodes} ÷ {d}⌉ = {leaf.leaves_per_su_rail} per SU); "
            f"× {leaf.rails} rails = {leaf_count:,} leaves"
        )
    else:
        why = f"⌈{n:,} endpoints ÷ {d} down ports⌉ = {leaf_count:,} leaves"
    if tiers == 1:
        why += "; one switching tier, no uplinks"
    else:
        why += (
            f"; each {k}-port leaf: {d} × {b:g}G down, {u} × {s:g}G up "
            f"→ {d * b:,.0f} ÷ {u * s:,.0f} = {leaf.leaf_oversubscription:.3g}:1"
        )
    return Tier(  # a one-tier leaf layer has u = 0 at 1:1 (stack_clos checks)
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
        oversubscription=leaf.leaf_oversubscription,
        derivation=why,
    )


def _one_tier(leaf: LeafLayer, leaf_tier: Tier, k: int) -> ClosTiers:
    leaf_count = leaf_tier.switch_count
    wiring = _wiring(leaf, 1, leaf_up=leaf.leaf_up, leaves_per_pod=leaf_count, aggs_per_pod=0, leaf_to_agg_links=0)
    why = f"one tier: {k} ports per switch" + (f" per rail × {leaf.rails} rails" if leaf.su_nodes else "")
    return ClosTiers((leaf_tier,), wiring, 0, _max_endpoints(leaf, 1, k, leaf_count), {"max_endpoint_count": why})


def _two_tiers(leaf: LeafLayer, leaf_tier: Tier, k: int, s: float) -> ClosTiers:
    n, leaf_count, d, u = leaf.endpoint_count, leaf_tier.switch_count, leaf.leaf_down, leaf.leaf_up
    max_ep = _max_endpoints(leaf, 2, k, leaf_count)
    if leaf_count > k:
        raise FabricRequestError.single(
            "node_count",
            f"{n:,} endpoints need {leaf_count:,} leaves, but a 2-tier fabric of {k}-port "
            f"spines connects at most {k} leaves ({max_ep:,} endpoints at this "
            "oversubscription); use 3 tiers or a larger radix",
        )
    m = largest_divisor_at_most(u, k // leaf_count)
    spine_count = u // m
    wiring = _wiring(leaf, 2, leaf_up=u, leaves_per_pod=leaf_count, aggs_per_pod=spine_count, leaf_to_agg_links=m)
    spine_tier = Tier(
        name="spine",
        switch_count=spine_count,
        radix=k,
        port_gbps=s,
        down_ports_per_switch=leaf_count * m,
        up_ports_per_switch=0,
        down_ports_used_total=leaf_count * u,
        up_ports_used_total=0,
        uplink_count=0,
        uplink_gbps=s,
        oversubscription=1.0,
        derivation=(
            f"{leaf_count:,} leaves × {u} uplinks = {leaf_count * u:,} spine ports; each leaf "
            f"sends {m} link(s) to every spine, so spines = {u} ÷ {m} = {spine_count:,}, "
            f"each using {leaf_count} × {m} = {leaf_count * m} of {k} ports"
        ),
    )
    unit_word = f"{leaf.rails} rails × {leaf.leaves_per_su_rail} leaves per SU"
    why = f"2 tiers: a {k}-port spine reaches {k} leaves" + (
        f" = {k // leaf.leaves_per_unit} SUs ({unit_word}) of {leaf.su_nodes} nodes"
        + (
            f" + a partial SU on the {k % leaf.leaves_per_unit} leaves left"
            if k % leaf.leaves_per_unit >= leaf.rails
            else ""
        )
        + f", × {leaf.rails} rails = {max_ep:,}"
        if leaf.su_nodes
        else f" × {d} endpoints = {max_ep:,}" + (" (k²/2 at 1:1)" if d * 2 == k else "")
    )
    return ClosTiers((leaf_tier, spine_tier), wiring, leaf_count * u, max_ep, {"max_endpoint_count": why})


def _explicit_pod(leaf: LeafLayer, k: int, agg_down_max: int, pod_nodes: int) -> int:
    """Leaves in a pod of ``pod_nodes`` nodes; the pod must hold whole leaves (whole SUs) and fit its spines."""
    if leaf.su_nodes:
        if pod_nodes % leaf.su_nodes:
            raise FabricRequestError.single(
                "pod_nodes",
                f"a pod holds whole scalable units of {leaf.su_nodes} nodes; {pod_nodes:,} is not a multiple "
                f"(e.g. {max(1, pod_nodes // leaf.su_nodes) * leaf.su_nodes:,})",
            )
        leaves = pod_nodes // leaf.su_nodes * leaf.leaves_per_unit
    else:
        per_leaf_nodes = leaf.leaf_down // leaf.endpoints_per_node
        if leaf.leaf_down % leaf.endpoints_per_node or not per_leaf_nodes or pod_nodes % per_leaf_nodes:
            raise FabricRequestError.single(
                "pod_nodes",
                f"a pod holds whole leaves; a leaf takes {leaf.leaf_down} endpoints = "
                f"{leaf.leaf_down / leaf.endpoints_per_node:g} node(s) of {leaf.endpoints_per_node} NICs, "
                f"so {pod_nodes:,} nodes are not whole leaves (set nodes per leaf so a leaf holds whole nodes)",
            )
        leaves = pod_nodes // per_leaf_nodes
    if leaves > agg_down_max:
        raise FabricRequestError.single(
            "pod_nodes",
            f"a pod of {pod_nodes:,} nodes has {leaves:,} leaves, but a {k}-port pod spine at this taper takes "
            f"at most {agg_down_max} leaves down; use smaller pods, a larger spine model or more taper",
        )
    return leaves


def _leaves_per_pod(leaf: LeafLayer, k: int, agg_down_max: int, pod_nodes: int | None = None) -> int:
    """Three tiers: a pod is as many whole SUs (or leaves) as a pod spine takes down, or as given."""
    if pod_nodes:
        return _explicit_pod(leaf, k, agg_down_max, pod_nodes)
    if not leaf.su_nodes:
        return agg_down_max
    units_per_pod = agg_down_max // leaf.leaves_per_unit
    if units_per_pod == 0 and leaf.leaves_per_su_rail > 1:
        raise FabricRequestError.single(
            "scalable_unit_nodes",
            f"one scalable unit has {leaf.leaves_per_unit} leaves, more than the "
            f"{agg_down_max} a {k}-port pod spine can take down; use smaller SUs",
        )
    if units_per_pod == 0:  # already the smallest SU (one leaf per rail): fewer rails per pod, or a bigger spine
        raise FabricRequestError.single(
            "rail_groups",
            f"a scalable unit has one leaf for each of its {leaf.rails} rails, more than the {agg_down_max} "
            f"leaves a {k}-port pod spine takes down; split the rails into groups of at most {agg_down_max} "
            f"(at least {math.ceil(leaf.rails / agg_down_max)} rail groups) or use a larger radix",
        )
    return units_per_pod * leaf.leaves_per_unit


def _three_tiers(leaf: LeafLayer, leaf_tier: Tier, up: Upper) -> ClosTiers:
    """Pods of leaves under aggregation ("spine") switches, cores above."""
    n, leaf_count, u = leaf.endpoint_count, leaf_tier.switch_count, leaf.leaf_up
    ks, k, s, agg_oversubscription = up.spine_radix, up.core_radix, up.port_gbps, up.agg_oversubscription
    agg = port_split(ks, s, s, agg_oversubscription, field_name="agg_oversubscription")
    leaves_per_pod = _leaves_per_pod(leaf, ks, agg.down, up.pod_nodes)
    agg_down = leaves_per_pod  # one link from every leaf to every pod spine
    agg_up = math.ceil(agg_down / agg_oversubscription - 1e-9)
    pod_shape = {"leaf_up": u, "leaves_per_pod": leaves_per_pod, "aggs_per_pod": u, "leaf_to_agg_links": 1}
    pods = pod_count_of(_wiring(leaf, 3, agg_up=agg_up, **pod_shape))
    max_ep = _max_endpoints(leaf, 3, k, leaves_per_pod)
    if pods > k:
        raise FabricRequestError.single(
            "node_count",
            f"{n:,} endpoints need {pods:,} pods, but a {k}-port core reaches at most {k} pods: "
            f"the 3-tier maximum at this radix and oversubscription is {max_ep:,} endpoints; "
            "use a larger radix or more oversubscription",
        )
    m2 = largest_divisor_at_most(agg_up, k // pods)
    cores_per_group = agg_up // m2
    wiring = _wiring(leaf, 3, agg_up=agg_up, cores_per_group=cores_per_group, agg_to_core_links=m2, **pod_shape)
    agg_count, core_count = pods * u, u * cores_per_group
    agg_tier = Tier(
        name="spine",
        switch_count=agg_count,
        radix=ks,
        port_gbps=s,
        down_ports_per_switch=agg_down,
        up_ports_per_switch=agg_up,
        down_ports_used_total=leaf_count * u,
        up_ports_used_total=agg_count * agg_up,
        uplink_count=agg_count * agg_up,
        uplink_gbps=s,
        oversubscription=agg_down / agg_up,
        derivation=(
            (
                f"pods of {up.pod_nodes:,} nodes = {leaves_per_pod} leaves (as given); "
                if up.pod_nodes
                else f"pods of up to {leaves_per_pod} leaves; "
            )
            + f"{leaf_count:,} leaves → {pods} pods; "
            f"each leaf sends 1 link to each of {u} pod spines → {pods} × {u} = {agg_count:,} "
            f"spines; each spine {agg_down} down, {agg_up} up = {agg_down / agg_up:.3g}:1"
        ),
    )
    core_tier = Tier(
        name="core",
        switch_count=core_count,
        radix=k,
        port_gbps=s,
        down_ports_per_switch=pods * m2,
        up_ports_per_switch=0,
        down_ports_used_total=agg_count * agg_up,
        up_ports_used_total=0,
        uplink_count=0,
        uplink_gbps=s,
        oversubscription=1.0,
        derivation=(
            f"{u} core groups (one per pod-spine position); spine j of every pod sends "
            f"{m2} link(s) to each core of group j → {agg_up} ÷ {m2} = {cores_per_group} "
            f"cores per group, {u} × {cores_per_group} = {core_count:,} cores, each using "
            f"{pods} × {m2} = {pods * m2} of {k} ports"
        ),
    )
    why = (
        f"3 tiers: a {k}-port core reaches {k} pods × {leaves_per_pod} leaves × "
        + (
            f"(SUs of {leaf.leaves_per_unit} leaves, {leaf.su_nodes} nodes × {leaf.rails} rails)"
            if leaf.su_nodes
            else f"{leaf.leaf_down} endpoints"
        )
        + f" = {max_ep:,}"
        + (" (k³/4 at 1:1)" if 2 * leaf.leaf_down == k == ks and 2 * agg_down == k and not leaf.su_nodes else "")
    )
    links = leaf_count * u + agg_count * agg_up
    return ClosTiers((leaf_tier, agg_tier, core_tier), wiring, links, max_ep, {"max_endpoint_count": why})
