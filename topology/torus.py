"""3D torus generator (TPU-v4-style direct network).

Seed chapter §14.1.4 (F7): every chip links to its 6 neighbours (±x, ±y, ±z) with
wrap-around; diameter and average hop count grow as N^(1/3); the bisection of a
k×k×k torus is 2·k² links in each direction (wrap-around doubles a mesh's k²).
"""

from __future__ import annotations

import itertools
import math

from topology.bisection import torus_bisection
from topology.spec import FabricPlan, FabricRequest, FabricRequestError, Topology, TorusWiring


def torus_dims_for(chip_count: int) -> tuple[int, int, int]:
    """The most cube-like x ≤ y ≤ z with x·y·z = chip_count (smallest longest side, then the least spread);
    1 × 1 × chip_count when nothing better divides."""
    best = (1, 1, chip_count)
    for x in range(1, round(chip_count ** (1 / 3)) + 2):
        if chip_count % x:
            continue
        rest = chip_count // x
        for y in range(x, math.isqrt(rest) + 1):
            if rest % y:
                continue
            z = rest // y
            cand = (x, y, z)
            if (z, z - x) < (best[2], best[2] - best[0]):
                best = cand
    return best


def ring_mean_distance(k: int) -> float:
    """Mean shortest distance from a node to every node (itself included) on a ring of k."""
    return sum(min(i, k - i) for i in range(k)) / k


def plan_torus(req: FabricRequest) -> FabricPlan:
    n = req.endpoint_count
    if req.torus_dims is not None:
        dims = tuple(req.torus_dims)
        if math.prod(dims) != n:
            raise FabricRequestError.single(
                "torus_dims",
                f"{dims[0]}×{dims[1]}×{dims[2]} = {math.prod(dims):,} chips, but the design has "
                f"{n:,} (node_count × chips_per_node)",
            )
        chosen = "as given"
    else:
        dims = torus_dims_for(n)
        chosen = "the most cube-like factorisation of the chip count"
    s = req.torus_link_gbps
    active = [k for k in dims if k > 1]
    links_per_chip = 2 * len(active)
    link_count = n * len(active)
    diameter = sum(k // 2 for k in dims)
    mean_with_self = sum(ring_mean_distance(k) for k in dims)
    avg_hops = mean_with_self * n / (n - 1) if n > 1 else 0.0
    bis = torus_bisection(TorusWiring(dims), s)
    warn = ""
    if len(active) < 3:
        warn = f" (only {len(active)} dimension(s) longer than 1: fewer than 6 links per chip)"
    derivations = {
        "endpoint_count": f"{req.node_count:,} nodes × {req.chips_per_node} chips = {n:,} chips",
        "torus_dims": f"{dims[0]} × {dims[1]} × {dims[2]} — {chosen}",
        "links_per_chip": f"± neighbour in each of {len(active)} dimensions = {links_per_chip}{warn}",
        "endpoint_link_count": (
            f"{n:,} chips × {links_per_chip} ports ÷ 2 ends = {link_count:,} links "
            "(a dimension of 2 has two parallel links between the pair)"
        ),
        "diameter_hops": " + ".join(f"⌊{k}/2⌋" for k in dims) + f" = {diameter}",
        "avg_hop_count": (
            " + ".join(f"{ring_mean_distance(k):.4g}" for k in dims)
            + f" mean ring distances × N/(N−1) = {avg_hops:.4f} hops"
        ),
        "bisection_gbps": bis.derivation,
        "max_endpoint_count": "a torus has no radix limit; scale is bounded by diameter",
        "switch_link_count": "direct network: no switches",
        "link_end_count": "every link has 2 ends (chip ports)",
    }
    for i, kx in enumerate(itertools.islice(dims, 3)):
        if kx == 2:
            derivations["links_per_chip"] += f"; dimension {i} has size 2"
    return FabricPlan(
        topology=Topology.TORUS_3D,
        endpoint_count=n,
        endpoint_gbps=s,
        tiers=(),
        endpoint_link_count=link_count,
        switch_link_count=0,
        bisection_gbps=bis.gbps,
        max_endpoint_count=n,
        wiring=TorusWiring(dims),
        derivations=derivations,
        extras={
            "torus_dims": list(dims),
            "links_per_chip": links_per_chip,
            "link_gbps": s,
            "diameter_hops": diameter,
            "avg_hop_count": round(avg_hops, 6),
            "bisection_link_count": round(bis.gbps / s),
        },
    )
