"""Folded-Clos tiers shared by the fat-tree and rail-optimized generators.

The leaf layer is the generators' business (which endpoints share a leaf); above it
the construction is the classic one (Leiserson 1985; Al-Fares et al., SIGCOMM 2008,
"A scalable, commodity data center network architecture"): a k-port switch has
k/2 ports down and k/2 up at 1:1, a 2-tier leaf–spine reaches k²/2 endpoints and a
3-tier fat-tree k³/4 with 5k²/4 switches (seed chapter §14.1, F1/F2).

Uplinks are spread evenly: every leaf sends the same number of links to every
switch above it in its pod (so ECMP sees equal paths), which is why the spine count
is a divisor of the leaf uplink count.

Sized to the need (issue #34): a leaf's ``leaf_down`` is the down ports its endpoints
*use* and ``leaf_up`` the uplinks those need at the ratio; the rest of the radix is
growth headroom, stated in the leaf's derivation. In 3 tiers a partial last pod gets
only the spines its leaves fill (:func:`_tail_pod`: u ÷ m spines, m links from each
leaf to each), and each pod spine deals its uplinks round-robin over the fewest cores
of its group that fit (:func:`_cores_per_group`); every full pod deals in the same
pattern, so any two pods meet with equal links at every core and the level-by-level
bisection stays the max-flow (checked against the explicit graph, topology.graph).
"""

from __future__ import annotations

import functools
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
    su_typed_nodes: int = 0  # rail-optimized: the SU as the user gave it (su_nodes is the leaf block of SUs)
    free_down_ports: int = 0  # down ports of the radix split left unlit on every leaf (growth headroom)
    full_leaf: bool = False  # uplinks bought for the whole split (uplinks_for_full_leaf), not the used ports
    uplink_note: str = ""  # how the uplinks per leaf were rounded (fat-tree: an equal share on every spine)

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
    if not w.su_nodes:
        return np.arange(w.endpoint_count, dtype=np.int64) // w.leaf_down
    # endpoint e = (node, rail), node-major: its leaf slot (SU × rails + rail) × leaves a rail + the node's place in
    # its SU ÷ leaf_down, i.e. a node's part plus a rail's part — worked out a node and a rail, then added
    rails, per = w.rails, w.leaves_per_su_rail
    whole = w.endpoint_count == w.node_count * rails
    if whole:
        node = np.arange(w.node_count, dtype=np.int64) + w.reserved_slots  # each node's slot
        rail = np.arange(rails, dtype=np.int64)
    else:  # not whole nodes: endpoint by endpoint
        e = np.arange(w.endpoint_count, dtype=np.int64)
        in_order = e // rails
        rail = e - in_order * rails  # e mod rails: numpy's % of an array is 3× its //
        node = in_order + w.reserved_slots
    su = node // w.su_nodes
    node_part = su * (rails * per) + (node - su * w.su_nodes) // w.leaf_down
    raw = (node_part[:, None] + rail * per).ravel() if whole else node_part + rail * per
    if not raw.size:
        return raw
    present = np.zeros(int(raw.max()) + 1, dtype=bool)  # leaf slots (≤ SUs × rails × leaves a rail): counted,
    present[raw] = True  # not sorted — np.unique(raw, return_inverse=True)'s numbers, ascending
    return (np.cumsum(present, dtype=np.int64) - 1)[raw]


def rail_leaf_spans(w: ClosWiring | LeafLayer) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Every rail leaf in :func:`endpoint_leaf_ids`' dense order, without a per-endpoint array: its SU, its rail
    and the nodes it takes, ``[first, last)`` (node numbers, the reserved slots left out). Leaf (SU s, rail r,
    sub-leaf j) takes the node slots ``s × su + j × down … s × su + (j + 1) × down`` of its SU that hold a node;
    dense numbering keeps the (s, r, j) order. None where endpoints are not node-major ``(node, rail)`` or a
    sub-leaf could spill into the next rail's numbers (no generator builds either): the callers then count
    endpoint by endpoint — as they do when reserved slots leave a leaf of the first SU empty (fewer spans than
    :func:`leaf_count_of`, which counts that leaf). Remembered by the wiring's fields (:func:`_spans_of`, its arrays
    read-only): a 100k-GPU live evaluate asks ≈ 12 times (pods, bisection, the link table, the leaf positions)."""
    try:
        return _spans_of(w)
    except TypeError:  # a wiring with an unhashable field: worked out afresh
        return _rail_leaf_spans(w)


@functools.lru_cache(maxsize=64)
def _spans_of(w: ClosWiring | LeafLayer) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    spans = _rail_leaf_spans(w)
    for a in spans or ():
        a.flags.writeable = False
    return spans


def _rail_leaf_spans(w: ClosWiring | LeafLayer) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    su, rails, per, down = w.su_nodes, w.rails, w.leaves_per_su_rail, w.leaf_down
    if not su or per * down < su or w.endpoint_count != w.node_count * rails:
        return None
    slots_end = w.node_count + w.reserved_slots
    sus = -(-slots_end // su)
    s = np.repeat(np.arange(sus, dtype=np.int64), rails * per)
    r = np.tile(np.repeat(np.arange(rails, dtype=np.int64), per), sus)
    j = np.tile(np.arange(per, dtype=np.int64), sus * rails)
    lo = np.maximum(s * su + j * down, w.reserved_slots)
    hi = np.minimum(np.minimum(s * su + (j + 1) * down, (s + 1) * su), slots_end)
    keep = hi > lo
    return s[keep], r[keep], lo[keep] - w.reserved_slots, hi[keep] - w.reserved_slots


def leaf_pod_ids(w: ClosWiring) -> np.ndarray:
    """Pod number of every leaf (pods hold whole scalable units)."""
    leaf_count = leaf_count_of(w)
    if not w.su_nodes:
        return np.arange(leaf_count, dtype=np.int64) // w.leaves_per_pod
    sus_per_pod = w.leaves_per_pod // (w.rails * w.leaves_per_su_rail)
    spans = rail_leaf_spans(w)
    if spans is not None and spans[0].size == leaf_count:  # each leaf's SU from its span: no per-endpoint array
        return spans[0] // sus_per_pod
    # first endpoint of each leaf tells its SU
    ep_leaf = endpoint_leaf_ids(w)
    first = np.zeros(leaf_count, dtype=np.int64)
    idx = np.arange(w.endpoint_count, dtype=np.int64)
    first[ep_leaf[::-1]] = idx[::-1]
    su = (first // w.rails + w.reserved_slots) // w.su_nodes
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
            + _block_words(leaf)
            + f" → per rail {leaf_count // leaf.rails:,} leaves of {d} down ports used; "
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
            + (
                f" (uplinks for the whole split, by request: {leaf.free_down_ports} free down port(s) each "
                "already have their uplinks)"
                if leaf.full_leaf
                else " (uplinks for the used down ports)"
            )
            + leaf.uplink_note
            + f"; {k - d - u} free port(s) per leaf, {leaf_count * (k - d - u):,} in all, are growth headroom"
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


def _block_words(leaf: LeafLayer) -> str:
    su, block = leaf.su_typed_nodes or leaf.su_nodes, leaf.su_nodes
    if block > su:
        return (
            f" in SUs of {su}; SUs of {su} nodes share leaves: a leaf takes {block // su} SUs of its rail "
            f"(a block of {block} nodes)"
        )
    if leaf.leaves_per_su_rail > 1:
        return (
            f" in SUs of {su}, spread evenly over ⌈{su} ÷ {leaf.leaf_down + leaf.free_down_ports}⌉ = "
            f"{leaf.leaves_per_su_rail} leaves ({leaf.leaf_down} nodes each at most)"
        )
    return f" in SUs of {su}, one leaf per SU and rail"


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
                f"a pod holds whole scalable units of {leaf.su_nodes} nodes"
                + (
                    f" (SUs of {leaf.su_typed_nodes} sharing leaves {leaf.su_nodes // leaf.su_typed_nodes} a leaf)"
                    if leaf.su_typed_nodes and leaf.su_nodes > leaf.su_typed_nodes
                    else ""
                )
                + f"; {pod_nodes:,} is not a multiple (e.g. {max(1, pod_nodes // leaf.su_nodes) * leaf.su_nodes:,})",
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


@dataclass(frozen=True)
class _Tail:
    """The partial last pod of a 3-tier fabric: fewer spines, several links per leaf–spine pair."""

    leaves: int = 0  # leaves in the last pod (0: every pod is full)
    aggs: int = 0
    links_per_agg: int = 0  # m: links from each tail leaf to each tail spine
    up_per_group: int = 0  # links from a tail spine to each of its m core groups

    @property
    def up_per_agg(self) -> int:
        return self.links_per_agg * self.up_per_group


def _tail_pod(leaf_count: int, pods: int, leaves_per_pod: int, u: int, ks: int, ratio: float) -> _Tail:
    """A partial last pod of r leaves gets u ÷ m spines, m = the largest divisor of u with r·m down + m·⌈r ÷ ratio⌉
    up on a ks-port spine: no spine of it serves fewer leaves than it could (issue #34, 3-tier minimality).
    Built identically by the counts (here) and the explicit graph (topology.graph)."""
    r = leaf_count - (pods - 1) * leaves_per_pod
    if r >= leaves_per_pod:
        return _Tail()
    g = math.ceil(r / ratio - 1e-9)
    m = max(d for d in range(1, u + 1) if u % d == 0 and d * (r + g) <= ks)
    return _Tail(r, u // m, m, g)


def _cores_per_group(agg_up: int, full_pods: int, tail: _Tail, k: int) -> int:
    """The fewest cores per group c that fit: spine j of every full pod deals its agg_up links round-robin over
    the c cores of group j (⌈agg_up ÷ c⌉ or ⌊agg_up ÷ c⌋ each, the same pattern for every pod, so any two
    pods meet with equal links at every core), the last pod's spine its share the same way; the busiest core
    takes full_pods × ⌈agg_up ÷ c⌉ + ⌈g ÷ c⌉ ≤ k ports."""
    for c in range(1, agg_up + 1):
        if full_pods * math.ceil(agg_up / c) + math.ceil(tail.up_per_group / c) <= k:
            return c
    return agg_up  # one link a core from every pod: fits, since pods ≤ k was checked


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
    tail = _tail_pod(leaf_count, pods, leaves_per_pod, u, ks, agg_oversubscription)
    full_pods = pods - 1 if tail.leaves else pods
    cores_per_group = _cores_per_group(agg_up, full_pods, tail, k)
    m2 = math.ceil(agg_up / cores_per_group)  # the most links from one spine to one core
    wiring = _wiring(
        leaf,
        3,
        agg_up=agg_up,
        cores_per_group=cores_per_group,
        agg_to_core_links=m2,
        tail_aggs=tail.aggs,
        tail_leaf_to_agg_links=tail.links_per_agg,
        tail_agg_up_per_group=tail.up_per_group,
        **pod_shape,
    )
    agg_count, core_count = full_pods * u + tail.aggs, u * cores_per_group
    agg_links = full_pods * u * agg_up + tail.aggs * tail.up_per_agg
    tail_core_ports = math.ceil(tail.up_per_group / cores_per_group) if tail.leaves else 0
    agg_tier = _agg_tier(leaf, up, leaf_count, pods, tail, agg_count, agg_links, agg_up, leaves_per_pod)
    core_tier = Tier(
        name="core",
        switch_count=core_count,
        radix=k,
        port_gbps=s,
        down_ports_per_switch=full_pods * m2 + tail_core_ports,
        up_ports_per_switch=0,
        down_ports_used_total=agg_links,
        up_ports_used_total=0,
        uplink_count=0,
        uplink_gbps=s,
        oversubscription=1.0,
        derivation=(
            f"{u} core groups (one per pod-spine position); spine j of every "
            + ("full " if tail.leaves else "")
            + f"pod deals its {agg_up} uplinks round-robin over the {cores_per_group} cores of group j "
            f"(the fewest that fit, at most {m2} link(s) to a core), {u} × {cores_per_group} = {core_count:,} "
            "cores, each using "
            + (
                f"{full_pods} × {m2} + at most ⌈{tail.up_per_group} ÷ {cores_per_group}⌉ = "
                f"{full_pods * m2 + tail_core_ports} (the last pod's spine, dealt round-robin) of {k} ports"
                if tail.leaves
                else f"at most {pods} × {m2} = {pods * m2} of {k} ports"
            )
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
    links = leaf_count * u + agg_links
    return ClosTiers((leaf_tier, agg_tier, core_tier), wiring, links, max_ep, {"max_endpoint_count": why})


def _agg_tier(
    leaf: LeafLayer,
    up: Upper,
    leaf_count: int,
    pods: int,
    tail: _Tail,
    agg_count: int,
    agg_links: int,
    agg_up: int,
    leaves_per_pod: int,
) -> Tier:
    u, s = leaf.leaf_up, up.port_gbps
    full_pods = pods - 1 if tail.leaves else pods
    down, up_ports = (leaves_per_pod, agg_up) if full_pods else (tail.leaves * tail.links_per_agg, tail.up_per_agg)
    why = (
        f"pods of {up.pod_nodes:,} nodes = {leaves_per_pod} leaves (as given); "
        if up.pod_nodes
        else f"pods of up to {leaves_per_pod} leaves; "
    ) + f"{leaf_count:,} leaves → {pods} pods; "
    if tail.leaves:
        why += (
            f"each leaf of the {full_pods} full pod(s) sends 1 link to each of {u} pod spines ({full_pods * u:,} "
            f"spines, {leaves_per_pod} down, {agg_up} up each); the last pod's {tail.leaves} leaves send "
            f"{tail.links_per_agg} links to each of {u} ÷ {tail.links_per_agg} = {tail.aggs} spines "
            f"({tail.leaves} × {tail.links_per_agg} = {tail.leaves * tail.links_per_agg} down, "
            f"{tail.links_per_agg} × ⌈{tail.leaves} ÷ {up.agg_oversubscription:g}⌉ = {tail.up_per_agg} up) → "
            f"{agg_count:,} spines"
        )
    else:
        why += (
            f"each leaf sends 1 link to each of {u} pod spines → {pods} × {u} = {agg_count:,} "
            f"spines; each spine {leaves_per_pod} down, {agg_up} up = {leaves_per_pod / agg_up:.3g}:1"
        )
    return Tier(
        name="spine",
        switch_count=agg_count,
        radix=up.spine_radix,
        port_gbps=s,
        down_ports_per_switch=down,
        up_ports_per_switch=up_ports,
        down_ports_used_total=leaf_count * u,
        up_ports_used_total=agg_links,
        uplink_count=agg_links,
        uplink_gbps=s,
        oversubscription=down / up_ports,
        derivation=why,
    )
