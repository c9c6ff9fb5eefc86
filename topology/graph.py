"""The explicit graph of a fabric plan, built link by link from its wiring.

Nodes ``0 … N−1`` are the endpoints (NIC ports, or torus chips) in their natural
order, then the switches tier by tier. Edges carry their multiplicity (``links``,
parallel cables between the same two boxes) and ``bandwidth_gbps`` (the sum). The
numpy edge list serves the max-flow verification; :func:`to_networkx` serves
diagrams and small checks.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from topology.bisection import (
    dragonfly_bisection_split,
    dragonfly_endpoint_leaf_ids,
    torus_order,
)
from topology.clos import endpoint_leaf_ids, leaf_count_of, leaf_pod_ids
from topology.spec import ClosWiring, DragonflyWiring, FabricPlan, TorusWiring


@dataclass(frozen=True)
class FabricEdges:
    endpoint_count: int
    node_count: int
    node_tier: np.ndarray  # -1 endpoint, else index into tier_names
    tier_names: tuple[str, ...]
    u: np.ndarray
    v: np.ndarray
    links: np.ndarray
    gbps_per_link: np.ndarray
    injection_gbps: float
    endpoint_nodes: np.ndarray  # endpoint node ids in natural order
    bisection_split: int  # the first half is endpoint_nodes[:bisection_split]

    @property
    def capacity_gbps(self) -> np.ndarray:
        return self.links * self.gbps_per_link

    @property
    def link_count(self) -> int:
        return int(self.links.sum())

    def endpoint_halves(self) -> tuple[np.ndarray, np.ndarray]:
        half = self.bisection_split
        return self.endpoint_nodes[:half], self.endpoint_nodes[half:]

    def index_in_tier(self) -> np.ndarray:
        """Each switch's number within its tier (0, 1, …, in node order); −1 for endpoints. The cut sheet's
        switch names (leaf0001, spine0001, …) and Slurm's topology.conf both count switches this way."""
        out = np.full(self.node_count, -1, dtype=np.int64)
        for t in range(len(self.tier_names)):
            ids = np.flatnonzero(self.node_tier == t)
            out[ids] = np.arange(ids.size)
        return out

    def port_use(self) -> np.ndarray:
        """Ports in use on every node: each link occupies one port at each end."""
        deg = np.bincount(self.u, weights=self.links, minlength=self.node_count)
        deg += np.bincount(self.v, weights=self.links, minlength=self.node_count)
        return deg.astype(np.int64)


def _cat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def clos_edges(plan: FabricPlan) -> FabricEdges:
    w = plan.wiring
    assert isinstance(w, ClosWiring)
    return _replicate(_one_copy_edges(plan, w), w)


def _replicate(one: FabricEdges, w: ClosWiring) -> FabricEdges:
    """``w.copies`` disjoint copies of one copy's graph (rail groups × NIC planes); one copy maps onto itself.

    Endpoints keep the whole fabric's natural order (node-major; a node's ports plane-major,
    then NIC); switches stay tier by tier, copy by copy within a tier. The bisection halves
    are each copy's own halves (the same node split), so the cut crosses every copy.
    """
    c = w.copies
    if c == 1:  # the one copy's map is the identity (:func:`_copy_maps`): the copy is the graph
        return one
    maps = _copy_maps(one, w)
    n = one.endpoint_count * c
    tier = np.empty(n + (one.node_count - one.endpoint_count) * c, dtype=np.int64)
    for m in maps:  # the copies' maps cover every node once
        tier[m] = one.node_tier
    half = one.bisection_split
    local_order = one.endpoint_nodes
    return FabricEdges(
        endpoint_count=n,
        node_count=tier.size,
        node_tier=tier,
        tier_names=one.tier_names,
        u=_cat([m[one.u] for m in maps]),
        v=_cat([m[one.v] for m in maps]),
        links=np.tile(one.links, c),
        gbps_per_link=np.tile(one.gbps_per_link, c),
        injection_gbps=one.injection_gbps,
        endpoint_nodes=_cat([m[local_order[:half]] for m in maps] + [m[local_order[half:]] for m in maps]),
        bisection_split=half * c,
    )


def _copy_maps(one: FabricEdges, w: ClosWiring) -> list[np.ndarray]:
    """Per copy, each node of one copy's graph → its node in the whole fabric: endpoint ``local`` of copy k →
    (local // rails) × rails × copies + k × rails + local % rails; a switch → n + its tier's first switch × copies
    + k × the tier's switches + its number in the tier."""
    c, n1, r = w.copies, one.endpoint_count, w.rails
    switch_tier = one.node_tier[n1:]
    per_tier = np.bincount(switch_tier, minlength=len(one.tier_names))  # a Clos has leaves: never empty
    tier_base = np.concatenate([[0], np.cumsum(per_tier)[:-1]]).astype(np.int64)
    index_in_tier = np.arange(switch_tier.size, dtype=np.int64) - tier_base[switch_tier]
    n = n1 * c

    def node_map(copy: int) -> np.ndarray:
        local = np.arange(n1, dtype=np.int64)
        endpoints = (local // r) * (r * c) + copy * r + local % r
        switches = n + tier_base[switch_tier] * c + copy * per_tier[switch_tier] + index_in_tier
        return np.concatenate([endpoints, switches])

    return [node_map(k) for k in range(c)]


def _one_copy_edges(plan: FabricPlan, w: ClosWiring) -> FabricEdges:
    n = w.endpoint_count
    leaves = leaf_count_of(w)
    s = plan.tiers[0].port_gbps
    b = plan.endpoint_gbps
    us, vs, ls, gs = [], [], [], []
    # endpoint → leaf
    us.append(np.arange(n, dtype=np.int64))
    vs.append(n + endpoint_leaf_ids(w))
    ls.append(np.ones(n, dtype=np.int64))
    gs.append(np.full(n, b))
    node_tier = [np.full(n, -1), np.zeros(leaves, dtype=np.int64)]
    names = ["leaf"]
    next_id = n + leaves
    if w.tiers >= 2:
        pod = leaf_pod_ids(w) if w.tiers == 3 else np.zeros(leaves, dtype=np.int64)
        pods = int(pod.max()) + 1
        a = w.aggs_per_pod
        tail = pods - 1 if w.tiers == 3 and w.tail_aggs else -1  # the partial last pod, built with fewer spines
        aggs_in = np.where(np.arange(pods) == tail, w.tail_aggs, a)
        agg_first = np.concatenate([[0], np.cumsum(aggs_in)[:-1]]).astype(np.int64)
        agg_base = next_id
        per_leaf = aggs_in[pod]
        leaf_ids = np.repeat(np.arange(leaves, dtype=np.int64), per_leaf)
        j = np.arange(leaf_ids.size, dtype=np.int64) - np.repeat(np.cumsum(per_leaf) - per_leaf, per_leaf)
        us.append(n + leaf_ids)
        vs.append(agg_base + agg_first[pod[leaf_ids]] + j)
        ls.append(np.where(pod[leaf_ids] == tail, w.tail_leaf_to_agg_links, w.leaf_to_agg_links))
        gs.append(np.full(leaf_ids.size, s))
        agg_total = int(aggs_in.sum())
        node_tier.append(np.ones(agg_total, dtype=np.int64))
        names.append("spine")
        next_id += agg_total
        if w.tiers == 3:
            cpg = w.cores_per_group
            core_base = next_id
            full = pods if tail < 0 else pods - 1
            p = np.repeat(np.arange(full, dtype=np.int64), a * cpg)
            jj = np.tile(np.repeat(np.arange(a, dtype=np.int64), cpg), full)
            c = np.tile(np.arange(cpg, dtype=np.int64), full * a)
            us.append(agg_base + agg_first[p] + jj)
            vs.append(core_base + jj * cpg + c)
            ls.append(np.tile(_dealt(w.agg_up, cpg), full * a))
            gs.append(np.full(p.size, s))
            if tail >= 0:
                tu, tv, tl = _tail_core_edges(w, int(agg_base + agg_first[tail]), core_base)
                us.append(tu)
                vs.append(tv)
                ls.append(tl)
                gs.append(np.full(tu.size, s))
            node_tier.append(np.full(a * cpg, 2, dtype=np.int64))
            names.append("core")
            next_id += a * cpg
    return FabricEdges(
        endpoint_count=n,
        node_count=next_id,
        node_tier=_cat(node_tier),
        tier_names=tuple(names),
        u=_cat(us),
        v=_cat(vs),
        links=_cat(ls),
        gbps_per_link=np.concatenate(gs),
        injection_gbps=b,
        endpoint_nodes=np.arange(n, dtype=np.int64),
        bisection_split=n // 2,
    )


def _dealt(links: int, cores: int) -> np.ndarray:
    """``links`` dealt round-robin over ``cores``: ⌈links ÷ cores⌉ to the first links mod cores, ⌊⌋ to the rest."""
    return (links // cores + (np.arange(cores) < links % cores)).astype(np.int64)


def _tail_core_edges(w: ClosWiring, tail_base: int, core_base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The partial last pod's spines to the cores: tail spine t stands for the spine positions t·m … t·m + m − 1
    and sends ``tail_agg_up_per_group`` links to each of those groups, dealt round-robin over its cores."""
    m, g, cpg = w.tail_leaf_to_agg_links, w.tail_agg_up_per_group, w.cores_per_group
    group = np.arange(w.aggs_per_pod, dtype=np.int64)
    spine = np.repeat(tail_base + group // m, cpg)
    core = core_base + np.repeat(group * cpg, cpg) + np.tile(np.arange(cpg, dtype=np.int64), group.size)
    links = np.tile(_dealt(g, cpg), group.size)
    keep = links > 0
    return spine[keep], core[keep], links[keep]


def dragonfly_global_pairs(w: DragonflyWiring) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(group_a, spine_a, group_b, spine_b) for every global link.

    Group g numbers its global port slots pair by pair (the other groups in order,
    ``global_links_per_group_pair`` slots each) and deals them round-robin over its
    spines, so no spine holds more than ⌈used / spines⌉ global ports.
    """
    g = w.group_count
    gp = w.global_links_per_group_pair
    s = w.spines_per_group
    if gp == 0:  # (one group has no pairs: the arrays below come out empty)
        e = np.zeros(0, dtype=np.int64)
        return e, e, e, e
    ga, gb = np.triu_indices(g, k=1)
    ga = np.repeat(ga, gp)
    gb = np.repeat(gb, gp)
    t = np.tile(np.arange(gp), ga.size // gp)
    rank_b_in_a = gb - 1  # gb > ga: among a's others, gb has rank gb-1
    rank_a_in_b = ga  # ga < gb: rank ga
    spine_a = (rank_b_in_a * gp + t) % s
    spine_b = (rank_a_in_b * gp + t) % s
    return ga, spine_a, gb, spine_b


def dragonfly_edges(plan: FabricPlan) -> FabricEdges:
    w = plan.wiring
    assert isinstance(w, DragonflyWiring)
    n = plan.endpoint_count
    leaves = len(w.leaf_endpoints)
    s = plan.tiers[0].port_gbps
    spines = w.group_count * w.spines_per_group
    leaf_base = n
    spine_base = n + leaves
    us = [np.arange(n, dtype=np.int64)]
    vs = [leaf_base + dragonfly_endpoint_leaf_ids(w, n)]
    ls = [np.ones(n, dtype=np.int64)]
    gs = [np.full(n, plan.endpoint_gbps)]
    leaf_group = np.asarray(w.leaf_group, dtype=np.int64)
    li = np.repeat(np.arange(leaves, dtype=np.int64), w.spines_per_group)
    j = np.tile(np.arange(w.spines_per_group, dtype=np.int64), leaves)
    us.append(leaf_base + li)
    vs.append(spine_base + leaf_group[li] * w.spines_per_group + j)
    ls.append(np.full(li.size, w.leaf_to_spine_links))
    gs.append(np.full(li.size, s))
    ga, sa, gb, sb = dragonfly_global_pairs(w)
    us.append(spine_base + ga * w.spines_per_group + sa)
    vs.append(spine_base + gb * w.spines_per_group + sb)
    ls.append(np.ones(ga.size, dtype=np.int64))
    gs.append(np.full(ga.size, s))
    return FabricEdges(
        endpoint_count=n,
        node_count=spine_base + spines,
        node_tier=_cat([np.full(n, -1), np.zeros(leaves, dtype=np.int64), np.ones(spines, dtype=np.int64)]),
        tier_names=("leaf", "spine"),
        u=_cat(us),
        v=_cat(vs),
        links=_cat(ls),
        gbps_per_link=np.concatenate(gs),
        injection_gbps=plan.endpoint_gbps,
        endpoint_nodes=np.arange(n, dtype=np.int64),
        bisection_split=dragonfly_bisection_split(w, n),
    )


def torus_edges(plan: FabricPlan) -> FabricEdges:
    """Chips on a torus; node ids in lexicographic order with the longest dimension first."""
    w = plan.wiring
    assert isinstance(w, TorusWiring)
    dims = torus_order(w.dims)
    n = math.prod(dims)
    link_gbps = float(plan.extras["link_gbps"])
    idx = np.arange(n, dtype=np.int64).reshape(dims)
    # every chip links to its + neighbour along every dimension longer than 1 (a ring of 2: the pair's + and −
    # links are two parallel links, listed as a→b and b→a; to_networkx sums them)
    axes = [axis for axis, k in enumerate(dims) if k > 1]
    us = [idx.ravel() for _ in axes]
    vs = [np.roll(idx, -1, axis=axis).ravel() for axis in axes]
    u, v = _cat(us), _cat(vs)
    links = np.ones(u.size, dtype=np.int64)
    per_chip = int(plan.extras["links_per_chip"])
    return FabricEdges(
        endpoint_count=n,
        node_count=n,
        node_tier=np.full(n, -1),
        tier_names=(),
        u=u,
        v=v,
        links=links,
        gbps_per_link=np.full(u.size, link_gbps),
        injection_gbps=per_chip * link_gbps,
        endpoint_nodes=np.arange(n, dtype=np.int64),
        bisection_split=n // 2,
    )


_EDGES: OrderedDict[str, FabricEdges] = OrderedDict()
"""The last few fabrics' graphs by the exact text (repr) of their plan: a plan's graph is asked for by the link
table, the leaf positions, the fabric managers' ports, the storage plane … (≈ 8 times a 100k-GPU design, 6 ms
each), and a design search's candidates share fabrics. Their arrays are read-only. At most :data:`EDGES_BUDGET`
edges kept (≈ 32 B an edge), oldest dropped first: a 100k-GPU design's compute and storage graphs (≈ 257k edges),
a search's dozens at 16k — not more, as each graph kept is memory a process first faults in (bom/plan.py's
TABLES). The newest two always stay, past the budget too: one design's compute and storage graphs, which its
floor plan and link table ask for in turn (≈ 650k edges at the request limit, 262,144 GPUs)."""
EDGES_BUDGET = 300_000


def fabric_edges(plan: FabricPlan) -> FabricEdges:
    """The plan's explicit graph (see the module's docstring); remembered by the plan's exact text (:data:`_EDGES`):
    the same arrays, read-only, for equal plans."""
    key = repr(plan)
    if " at 0x" in key or "..." in key:  # not an exact text: never remembered
        return _fabric_edges(plan)
    found = _EDGES.get(key)
    if found is None:
        found = _fabric_edges(plan)
        for value in found.__dict__.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        _EDGES[key] = found
        while len(_EDGES) > 2 and sum(e.u.size for e in _EDGES.values()) > EDGES_BUDGET:
            _EDGES.popitem(last=False)
    _EDGES.move_to_end(key)
    return found


def _fabric_edges(plan: FabricPlan) -> FabricEdges:
    if isinstance(plan.wiring, ClosWiring):
        return clos_edges(plan)
    if isinstance(plan.wiring, DragonflyWiring):
        return dragonfly_edges(plan)
    return torus_edges(plan)


def to_networkx(plan: FabricPlan):
    """The plan as a ``networkx.Graph``: node attr ``tier``, edge attrs ``links``, ``bandwidth_gbps``."""
    import networkx as nx

    e = fabric_edges(plan)
    g = nx.Graph()
    names = ("endpoint", *e.tier_names)
    g.add_nodes_from((i, {"tier": names[t + 1]}) for i, t in enumerate(e.node_tier.tolist()))
    for u, v, n_links, gbps in zip(e.u.tolist(), e.v.tolist(), e.links.tolist(), e.gbps_per_link.tolist()):
        if g.has_edge(u, v):
            g[u][v]["links"] += n_links
            g[u][v]["bandwidth_gbps"] += n_links * gbps
        else:
            g.add_edge(u, v, links=n_links, bandwidth_gbps=n_links * gbps)
    return g


@dataclass(frozen=True)
class Verification:
    """What the explicit graph says, against what the plan claims."""

    link_count: int
    switch_count: int
    ports_used_by_tier: dict[str, int]
    max_ports_used_by_tier: dict[str, int]
    bisection_max_flow_gbps: float
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_plan(plan: FabricPlan) -> Verification:
    """Rebuild the plan as a graph; check link count, port use per tier and bisection."""
    e = fabric_edges(plan)
    use = e.port_use()
    problems: list[str] = []
    if e.link_count != plan.link_count:
        problems.append(f"graph has {e.link_count:,} links, plan says {plan.link_count:,}")
    used_by_tier: dict[str, int] = {}
    max_by_tier: dict[str, int] = {}
    for t_index, name in enumerate(e.tier_names):  # a tier is named only when it has switches
        mask = e.node_tier == t_index
        used_by_tier[name] = int(use[mask].sum())
        max_by_tier[name] = int(use[mask].max())
    switch_count = int((e.node_tier >= 0).sum())
    if switch_count != plan.switch_count:
        problems.append(f"graph has {switch_count:,} switches, plan says {plan.switch_count:,}")
    for tier in plan.tiers:
        if tier.name not in used_by_tier:
            problems.append(f"{tier.name}: the plan has this tier, the graph has no switch in it")
            continue
        if used_by_tier[tier.name] != tier.ports_used_total:
            problems.append(
                f"{tier.name}: graph uses {used_by_tier[tier.name]} ports, plan says {tier.ports_used_total}"
            )
        if max_by_tier[tier.name] > tier.radix:
            problems.append(f"{tier.name}: a switch uses {max_by_tier[tier.name]} ports of {tier.radix}")
    ep_use = use[: e.endpoint_count]
    if plan.tiers:
        if np.any(ep_use != 1):
            problems.append("an endpoint NIC is not cabled exactly once")
    else:
        per_chip = int(plan.extras["links_per_chip"])
        if np.any(ep_use != per_chip):
            problems.append(f"a chip does not use exactly {per_chip} links")
    flow = max_flow_bisection_gbps(plan)
    if not math.isclose(flow, plan.bisection_gbps, rel_tol=1e-9, abs_tol=1e-6):
        problems.append(f"max-flow bisection {flow:,.1f} Gbit/s ≠ analytic {plan.bisection_gbps:,.1f} Gbit/s")
    return Verification(
        link_count=e.link_count,
        switch_count=switch_count,
        ports_used_by_tier=used_by_tier,
        max_ports_used_by_tier=max_by_tier,
        bisection_max_flow_gbps=flow,
        problems=tuple(problems),
    )


def max_flow_bisection_gbps(plan) -> float:
    """Max-flow from the first half of the endpoints to the second on the explicit graph.

    Uses ``scipy.sparse.csgraph.maximum_flow`` (Dinic) on integer capacities scaled by
    their greatest common divisor. Every link is full duplex: one arc each way.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    g = fabric_edges(plan)
    n_nodes = g.node_count + 2
    src, dst = g.node_count, g.node_count + 1
    cap = g.capacity_gbps
    a_nodes, b_nodes = g.endpoint_halves()
    inj = np.full(a_nodes.size, g.injection_gbps)
    ej = np.full(b_nodes.size, g.injection_gbps)
    rows = np.concatenate([g.u, g.v, np.full(a_nodes.size, src), b_nodes])
    cols = np.concatenate([g.v, g.u, a_nodes, np.full(b_nodes.size, dst)])
    caps = np.concatenate([cap, cap, inj, ej])
    scaled, unit = _integer_capacities(caps)
    m = csr_matrix((scaled, (rows, cols)), shape=(n_nodes, n_nodes))
    m.sum_duplicates()
    result = maximum_flow(m, src, dst, method="dinic")
    return float(result.flow_value) * unit


def max_flow_bisection_networkx_gbps(plan) -> float:
    """The same max-flow with plain networkx (slow; benchmarks compare the two)."""
    import networkx as nx

    g = fabric_edges(plan)
    dg = nx.DiGraph()
    for u, v, c in zip(g.u.tolist(), g.v.tolist(), g.capacity_gbps.tolist(), strict=True):
        for x, y in ((u, v), (v, u)):
            if dg.has_edge(x, y):
                dg[x][y]["capacity"] += c
            else:
                dg.add_edge(x, y, capacity=c)
    a_nodes, b_nodes = g.endpoint_halves()
    for x in a_nodes.tolist():
        dg.add_edge("s", x, capacity=g.injection_gbps)
    for y in b_nodes.tolist():
        dg.add_edge(y, "t", capacity=g.injection_gbps)
    value, _ = nx.maximum_flow(dg, "s", "t")
    return float(value)


def _integer_capacities(caps: np.ndarray) -> tuple[np.ndarray, float]:
    """Scale float capacities to int32 by a common unit: their greatest common divisor in Mbit/s."""
    milli = np.round(caps * 1000.0)  # link speeds in Gbit/s are multiples of 1 Mbit/s
    if not np.allclose(milli, caps * 1000.0, rtol=0.0, atol=1e-6):
        raise ValueError("capacities must be multiples of 0.001 Gbit/s for an exact integer max-flow")
    ints = milli.astype(np.int64)
    g = int(np.gcd.reduce(ints)) or 1  # gcd(0, x) = x; all zero: nothing to scale
    ints //= g
    unit = g / 1000.0
    if ints.sum() >= 2**31:
        raise OverflowError("capacities too large for scipy's int32 max-flow")
    return ints.astype(np.int32), unit
