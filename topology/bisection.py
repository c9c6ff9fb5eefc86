"""Bisection bandwidth: analytic per topology, and verified by max-flow on the graph.

Definition (seed §14.1, F4): the bandwidth available between two equal halves of
the endpoints. We use the natural halves — the first ⌊N/2⌋ endpoints in the
fabric's own order (leaf by leaf; node by node for rail-optimized; group by group
for Dragonfly+; along the longest dimension for a torus) against the rest — which
is the worst-case (minimum) cut for these symmetric fabrics. A 1:1 fat-tree gives
N·B/2; every level of oversubscription divides the cut by its ratio.

The analytic figures below are computed from the plan's structure in closed form,
level by level; :func:`topology.graph.max_flow_bisection_gbps` recomputes the same quantity
by max-flow on the explicit graph (scipy's Dinic) so the two can be checked against
each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from topology.clos import endpoint_leaf_ids, leaf_count_of, leaf_pod_ids, rail_leaf_spans
from topology.spec import ClosWiring, DragonflyWiring, TorusWiring


@dataclass(frozen=True)
class Bisection:
    gbps: float
    derivation: str


def _fmt(gbps: float) -> str:
    return f"{gbps:,.0f} Gbit/s ({gbps / 8000:,.3f} TB/s)"


def _halves(leaf_of_endpoint: np.ndarray, leaf_count: int, split: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    half = leaf_of_endpoint.size // 2 if split is None else split
    a = np.bincount(leaf_of_endpoint[:half], minlength=leaf_count).astype(np.float64)
    b = np.bincount(leaf_of_endpoint[half:], minlength=leaf_count).astype(np.float64)
    return a, b


def clos_halves(w: ClosWiring, leaf_count: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_halves` of a Clos's endpoints per leaf, from each leaf's span of endpoints or nodes (no
    per-endpoint array). Fat-tree leaf l holds endpoints ``l × down …``; a rail leaf the nodes ``[lo, hi)`` of
    its rail r, node n being endpoint ``n × rails + r``, in the first half when ``n < ⌈(N/2 − r) ÷ rails⌉``."""
    half = w.endpoint_count // 2
    if not w.su_nodes:
        lo = np.arange(leaf_count, dtype=np.int64) * w.leaf_down
        hi = np.minimum(lo + w.leaf_down, w.endpoint_count)
        cut = np.full(leaf_count, half, dtype=np.int64)
    else:
        spans = rail_leaf_spans(w)
        if spans is None or spans[0].size != leaf_count:
            return _halves(endpoint_leaf_ids(w), leaf_count)
        _, rail, lo, hi = spans
        cut = np.maximum(-((rail - half) // w.rails), 0)  # nodes of rail r in the first half
    size = np.maximum(hi - lo, 0)
    a = np.clip(np.minimum(hi, cut) - lo, 0, size)
    return a.astype(np.float64), (size - a).astype(np.float64)


def _push_up(send: np.ndarray, recv: np.ndarray, cap: float) -> tuple[np.ndarray, np.ndarray]:
    excess = send - recv
    return np.clip(excess, 0.0, cap), np.clip(-excess, 0.0, cap)


def clos_bisection(w: ClosWiring, endpoint_gbps: float, port_gbps: float) -> Bisection:
    """Max traffic from the first half of the endpoints to the second, level by level.

    At every level, traffic between the halves inside one switch group stays local;
    the rest must climb, limited by that group's uplink bandwidth; what climbs from
    one side is matched at the next level against what the other side can take.
    Uplinks are spread evenly over the switches above (see :mod:`topology.clos`), so
    no single spine is the bottleneck and this greedy is the max-flow.
    """
    n = w.endpoint_count
    leaves = leaf_count_of(w)
    a, b = clos_halves(w, leaves)
    a *= endpoint_gbps
    b *= endpoint_gbps
    endpoint_bound = min(a.sum(), b.sum())
    local_leaf = float(np.minimum(a, b).sum())
    parts = [f"halves of {n // 2:,} and {n - n // 2:,} endpoints × {endpoint_gbps:g}G → at most {_fmt(endpoint_bound)}"]
    if w.tiers == 1:
        total = local_leaf
        parts.append("one tier: only traffic that shares a leaf (same rail) crosses")
        return Bisection(total, "; ".join(parts) + f"; bisection = {_fmt(total)}")
    leaf_cap = w.leaf_up * port_gbps
    send, recv = _push_up(a, b, leaf_cap)
    if w.tiers == 2:
        climbed = min(send.sum(), recv.sum())
        total = local_leaf + climbed
        parts.append(
            f"leaf-local {_fmt(local_leaf)}; through the spines min(send {_fmt(send.sum())}, "
            f"receive {_fmt(recv.sum())}) with each leaf capped at {w.leaf_up} × {port_gbps:g}G"
        )
        return Bisection(total, "; ".join(parts) + f"; bisection = {_fmt(total)}")
    pod = leaf_pod_ids(w)
    s_p = np.bincount(pod, weights=send)  # one entry per pod 0 … max (both from the same pod ids)
    r_p = np.bincount(pod, weights=recv)
    local_pod = float(np.minimum(s_p, r_p).sum())
    pod_cap = np.full(s_p.size, w.aggs_per_pod * w.agg_up * port_gbps)
    if w.tail_aggs:  # a partial last pod: fewer spines, each standing for m spine positions (topology.clos)
        pod_cap[-1] = w.tail_aggs * w.tail_leaf_to_agg_links * w.tail_agg_up_per_group * port_gbps
    send_p, recv_p = _push_up(s_p, r_p, pod_cap)
    climbed = min(send_p.sum(), recv_p.sum())
    total = local_leaf + local_pod + climbed
    parts.append(
        f"leaf-local {_fmt(local_leaf)}; pod-local {_fmt(local_pod)}; through the cores "
        f"min(send {_fmt(send_p.sum())}, receive {_fmt(recv_p.sum())}) with each pod capped "
        f"at {w.aggs_per_pod} spines × {w.agg_up} × {port_gbps:g}G"
        + (
            f" (the last pod at {w.tail_aggs} spines × {w.tail_leaf_to_agg_links * w.tail_agg_up_per_group} × "
            f"{port_gbps:g}G)"
            if w.tail_aggs
            else ""
        )
    )
    return Bisection(total, "; ".join(parts) + f"; bisection = {_fmt(total)}")


def dragonfly_endpoint_leaf_ids(w: DragonflyWiring, endpoint_count: int) -> np.ndarray:
    counts = np.asarray(w.leaf_endpoints, dtype=np.int64)
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)[:endpoint_count]


def dragonfly_bisection_split(w: DragonflyWiring, endpoint_count: int) -> int:
    """Where the Dragonfly+ halves divide the endpoints.

    With two or more groups the cut runs between whole groups — the first ⌊G/2⌋
    groups against the rest — as the Dragonfly literature states bisection
    (⌊G/2⌋·⌈G/2⌉ global links). Splitting a group in the middle would let the cut
    run through that group's own leaf–spine links, which measures the group, not the
    global network. With one group it is a plain leaf–spine: first half of endpoints.
    """
    if w.group_count < 2:
        return endpoint_count // 2
    leaves_before = sum(1 for g in w.leaf_group if g < w.group_count // 2)
    return int(sum(w.leaf_endpoints[:leaves_before]))


def dragonfly_bisection(
    w: DragonflyWiring, endpoint_count: int, endpoint_gbps: float, port_gbps: float, leaf_up: int
) -> Bisection:
    """Dragonfly+: leaf-local, then group-local (leaf–spine Clos), then global links.

    Between groups every pair has ``c`` = global_links_per_pair × port bandwidth, and a
    group can relay (Valiant / adaptive routing). On that complete graph the minimum
    cut puts the x groups that most want to send on the source side:
    min over x of [Σ demand of those x + Σ supply of the rest + x·(G − x)·c].
    """
    leaves = len(w.leaf_endpoints)
    split = dragonfly_bisection_split(w, endpoint_count)
    a, b = _halves(dragonfly_endpoint_leaf_ids(w, endpoint_count), leaves, split)
    a *= endpoint_gbps
    b *= endpoint_gbps
    local_leaf = float(np.minimum(a, b).sum())
    send, recv = _push_up(a, b, leaf_up * port_gbps)
    group = np.asarray(w.leaf_group, dtype=np.int64)
    g = w.group_count
    s_g = np.bincount(group, weights=send, minlength=g)
    r_g = np.bincount(group, weights=recv, minlength=g)
    local_group = float(np.minimum(s_g, r_g).sum())
    sup = np.clip(s_g - r_g, 0, None)
    dem = np.clip(r_g - s_g, 0, None)
    c = w.global_links_per_group_pair * port_gbps
    order = np.argsort(-(sup - dem), kind="stable")
    sup_o, dem_o = sup[order], dem[order]
    best = math.inf
    best_x = 0
    for x in range(g + 1):
        cut = dem_o[:x].sum() + sup_o[x:].sum() + x * (g - x) * c
        if cut < best:
            best, best_x = cut, x
    total = local_leaf + local_group + float(best)
    halves = (
        f"groups 0–{g // 2 - 1} ({split:,} endpoints) against groups {g // 2}–{g - 1} ({endpoint_count - split:,})"
        if g >= 2
        else f"halves of {split:,} / {endpoint_count - split:,} endpoints"
    )
    derivation = (
        f"{halves}; "
        f"leaf-local {_fmt(local_leaf)}; group-local {_fmt(local_group)}; between {g} groups "
        f"({w.global_links_per_group_pair} global link(s) per pair, {_fmt(c)} each) the min cut "
        f"separates {best_x} group(s) = {_fmt(float(best))}; bisection = {_fmt(total)}"
    )
    return Bisection(total, derivation)


def _ring_cut_links(k: int, arc: int) -> int:
    """Links of a ring of k positions (k=2: two parallel links) cut by an arc of ``arc``."""
    if arc in (0, k):  # includes k = 1 (arc is 0 or 1): a ring of one position has no link
        return 0
    return 2


def torus_cut_links(dims: tuple[int, ...], a_count: int) -> int:
    """Links between the first ``a_count`` nodes (lexicographic order) and the rest.

    A plane-by-plane count along the most significant dimension: every line across
    the cut is a ring crossed twice (wrap-around doubles a mesh's single crossing),
    plus the cut inside the one partly filled plane, counted the same way.
    """
    if not dims:  # a_count = 0 needs no case: no full plane, no remainder, every ring uncut
        return 0
    k = dims[0]
    plane = math.prod(dims[1:])
    full, rem = divmod(a_count, plane)
    links = rem * _ring_cut_links(k, full + 1) + (plane - rem) * _ring_cut_links(k, full)
    return links + torus_cut_links(dims[1:], rem)


def torus_order(dims: tuple[int, int, int]) -> tuple[int, int, int]:
    """Dimensions ordered longest first: the cut runs across the longest dimension."""
    return tuple(sorted(dims, reverse=True))  # type: ignore[return-value]


def torus_bisection(w: TorusWiring, link_gbps: float) -> Bisection:
    dims = torus_order(w.dims)
    n = math.prod(dims)
    links = torus_cut_links(dims, n // 2)
    gbps = links * link_gbps
    kx = dims[0]
    derivation = (
        f"cut across the longest dimension ({kx}): "
        + (
            f"2 × {n:,} / {kx} = {links:,} links (each of the {n // kx:,} rings crosses twice; "
            "wrap-around doubles a mesh's single crossing)"
            if kx % 2 == 0
            else f"{links:,} links (odd {kx}: the middle plane is split and its own cut counted)"
        )
        + f" × {link_gbps:g}G = {_fmt(gbps)} in each direction"
    )
    return Bisection(gbps, derivation)
