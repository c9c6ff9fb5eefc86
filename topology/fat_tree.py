"""Fat-tree / folded-Clos generator with a target oversubscription at the leaf.

Seed chapter §14.1: a 2-tier leaf–spine of k-port switches serves k²/2 endpoints at
1:1 (F1), a 3-tier fat-tree k³/4 with 5k²/4 switches (F2); practical clusters run
2:1 or 3:1 at the leaf. The tiers above the leaf are stacked by :mod:`topology.clos`.
"""

from __future__ import annotations

import math

from topology.bisection import clos_bisection
from topology.clos import LeafLayer, pod_count_of, stack_clos
from topology.sizing import port_split
from topology.spec import FabricPlan, FabricRequest, FabricRequestError, Topology


def fat_tree_leaf_layer(req: FabricRequest, tiers: int) -> LeafLayer:
    n = req.endpoint_count
    k = req.switch_radix
    if tiers == 1:
        if n > k:
            raise FabricRequestError.single(
                "node_count",
                f"{n:,} endpoints do not fit on one {k}-port switch (1 tier); use 2 or 3 tiers",
            )
        return LeafLayer(n, 1, req.node_count, 0, 1, k, 0, req.nic_gbps, 1.0)
    split = port_split(k, req.nic_gbps, req.switch_port_gbps, req.oversubscription)
    down, up, ratio = split.down, split.up, split.oversubscription
    if req.leaf_nodes:
        down = req.leaf_nodes * req.nics_per_node
        if down > split.down:
            raise FabricRequestError.single(
                "leaf_nodes",
                f"{req.leaf_nodes} nodes × {req.nics_per_node} NICs = {down} down ports, but a {k}-port leaf at "
                f"{req.oversubscription:g}:1 takes at most {split.down} ({split.down // req.nics_per_node} nodes)",
            )
        up = math.ceil(down * req.nic_gbps / (req.oversubscription * req.switch_port_gbps) - 1e-9)
        ratio = down * req.nic_gbps / (up * req.switch_port_gbps)
    elif not (req.uplinks_for_full_leaf or req.pod_nodes) and n < down * math.ceil(n / down):
        # sized to the need (issue #34): the endpoints spread evenly over the fewest leaves the split allows
        # (⌈n ÷ down⌉), whole nodes to a leaf where the split holds whole nodes, and every leaf buys the uplinks
        # its used down ports need at the ratio, ⌈used × B_nic ÷ (ratio × B_port)⌉ — not the split's, which
        # would give a partly filled fabric the spines of a full one. The unused down ports are growth headroom.
        # Pods given in nodes (pod_nodes) are whole leaves of the split, so they keep it.
        leaves = math.ceil(n / down)
        per_node = req.nics_per_node
        whole = per_node > 1 and down % per_node == 0
        down = math.ceil(req.node_count / leaves) * per_node if whole else math.ceil(n / leaves)
        up = math.ceil(down * req.nic_gbps / (req.oversubscription * req.switch_port_gbps) - 1e-9)
        note = ""
        if tiers == 2:
            up, note = _even_spine_uplinks(math.ceil(n / down), up, req.spine_radix or k, k - down)
        ratio = down * req.nic_gbps / (up * req.switch_port_gbps)
        return LeafLayer(n, 1, req.node_count, 0, 1, down, up, req.nic_gbps, ratio, endpoints_per_node=per_node,
                         uplink_note=note)  # fmt: skip
    return LeafLayer(n, 1, req.node_count, 0, 1, down, up, req.nic_gbps, ratio, endpoints_per_node=req.nics_per_node)


def _even_spine_uplinks(leaves: int, need: int, spine_radix: int, room: int) -> tuple[int, str]:
    """Uplinks per leaf for a 2-tier fabric: at least ``need``, split evenly over the fewest spines.

    Every leaf sends m links to each of S spines (u = S × m, m ≤ ⌊spine radix ÷ leaves⌋). The fewest spines any
    wiring can have is ⌈leaves × need ÷ spine radix⌉; from there the first S for which u = S × ⌈need ÷ S⌉ fits
    gives the answer. ``need`` itself may have no divisor that fits (25 uplinks on 4 leaves of 64-port spines: m
    ∈ {1, 5, 25} → 5 spines), where one more uplink per leaf (26 = 2 × 13) needs 2."""
    fewest = max(1, math.ceil(leaves * need / spine_radix - 1e-9))
    for spines in range(fewest, need + 1):
        up = spines * math.ceil(need / spines)
        if up // spines <= spine_radix // leaves and up <= room:
            if up == need:
                return up, ""
            return up, (
                f"; {need} uplinks needed, rounded up to {up} = {spines} spines × {up // spines} links each so every "
                f"spine takes an equal share (the fewest spines: ⌈{leaves} × {need} ÷ {spine_radix}⌉ = {fewest})"
            )
    return need, ""


def plan_fat_tree(req: FabricRequest) -> FabricPlan:
    """Size a 1-, 2- or 3-tier fat-tree (automatic: the fewest tiers that fit)."""
    return plan_clos(req, fat_tree_leaf_layer, Topology.FAT_TREE)


def plan_clos(
    req: FabricRequest, leaf_layer_for, topology: Topology, auto_tiers: tuple[int, ...] = (1, 2, 3)
) -> FabricPlan:
    """Try the requested tier count, or each of ``auto_tiers`` in turn, and build the plan."""
    candidates = [req.tiers] if req.tiers else [3] if req.pod_nodes else list(auto_tiers)
    last_error: FabricRequestError | None = None
    for tiers in candidates:
        try:
            leaf = leaf_layer_for(req, tiers)
            stacked = stack_clos(
                leaf,
                tiers=tiers,
                radix=req.switch_radix,
                port_gbps=req.switch_port_gbps,
                agg_oversubscription=req.agg_oversubscription,
                spine_radix=req.spine_radix,
                core_radix=req.core_radix,
                pod_nodes=req.pod_nodes,
            )
        except FabricRequestError as exc:
            last_error = exc.with_traceback(None)  # kept: no frame cycle (test_no_cycles)
            continue
        break
    else:
        assert last_error is not None
        raise last_error
    bisection = clos_bisection(stacked.wiring, req.nic_gbps, req.switch_port_gbps)
    derivations = dict(stacked.derivations)
    n = req.endpoint_count
    derivations["endpoint_count"] = f"{req.node_count:,} nodes × {req.nics_per_node} NICs = {n:,} endpoints"
    derivations["tier_count"] = f"{tiers} tier(s) " + ("as requested" if req.tiers else "— the fewest that fit")
    derivations["endpoint_link_count"] = f"one link per endpoint NIC = {n:,}"
    derivations["switch_link_count"] = (
        " + ".join(f"{t.uplink_count:,} {t.name}→up" for t in stacked.tiers if t.uplink_count)
        or "no switch-to-switch links"
    )
    derivations["bisection_gbps"] = bisection.derivation
    derivations["link_end_count"] = "every link has 2 ends, each needing a port and (for optics) a transceiver"
    return FabricPlan(
        topology=topology,
        endpoint_count=n,
        endpoint_gbps=req.nic_gbps,
        tiers=stacked.tiers,
        endpoint_link_count=n,
        switch_link_count=stacked.switch_link_count,
        bisection_gbps=bisection.gbps,
        max_endpoint_count=stacked.max_endpoint_count,
        wiring=stacked.wiring,
        derivations=derivations,
        extras={
            "oversubscription_end_to_end_ratio": round(_product(t.oversubscription for t in stacked.tiers), 6),
            **({"pod_count": pod_count_of(stacked.wiring)} if stacked.wiring.tiers == 3 else {}),
        },
    )


def _product(values) -> float:
    out = 1.0
    for v in values:
        out *= v
    return out
