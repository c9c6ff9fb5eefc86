"""Rail-optimized fabric (NVIDIA DGX SuperPOD style), with rail groups and NIC planes.

Seed chapter §14.1.3 and the 2,000-GPU design of §14.8: a node with R GPUs has R NICs,
NIC r of every node goes to rail r; per rail, leaves take half their ports down to
node NICs and half up (1:1); scalable units (SUs) of nodes share one set of rail
leaves. A third (core) tier is added when two tiers cannot reach the endpoint count at
the radix. ``tiers=1`` builds a rail-only network (one switch per rail, no spines).

**Rail groups.** In the classic SuperPOD the spines are shared by all rails (DGX
SuperPOD B200 RA, "Compute fabric" table). Larger designs split the rails into G equal
groups with a spine group each, so every group is a 2-tier fabric of its own for G
times longer before a core is needed; traffic between rails of different groups
crosses inside the node (NVLink + PXN, as NCCL routes cross-rail traffic anyway).
**NIC planes.** An 800G NIC may be used as P = 2 ports of 400G, each on its own plane
(a separate fabric). Both make the fabric ``G × P`` disjoint copies of one rail-optimized
fabric with R ÷ G rails of nic_gbps ÷ P; counts, links and bisection scale by the copies
(each copy is cut in half by the same node split).
"""

from __future__ import annotations

import dataclasses
import math

from topology.clos import LeafLayer
from topology.fat_tree import plan_clos
from topology.sizing import port_split
from topology.spec import ClosWiring, FabricPlan, FabricRequest, FabricRequestError, Tier, Topology, divisors


def rail_leaf_layer(req: FabricRequest, tiers: int) -> LeafLayer:
    """Rail leaves sized to the nodes on them (issue #34, "sizing to the need").

    A scalable unit smaller than the leaf's down ports shares its rail leaves with the next SUs: one leaf
    takes ⌊down ÷ SU⌋ whole SUs of its rail (a *leaf block*; never more SUs than the cluster has). A larger SU
    spreads evenly over ⌈SU ÷ down⌉ leaves per rail. Every leaf then buys ⌈used down × B_nic ÷ (ratio ×
    B_port)⌉ uplinks for the down ports it *uses* (the same on every leaf, so ECMP stays even); free ports are
    growth headroom. ``uplinks_for_full_leaf`` restores the radix split's uplinks (and one SU per leaf block).
    """
    k = req.switch_radix
    rails = req.nics_per_node
    if tiers == 1:
        if req.node_count > k:
            raise FabricRequestError.single(
                "node_count",
                f"{req.node_count:,} nodes do not fit on one {k}-port leaf per rail (1 tier); use 2 or 3 tiers",
            )
        return LeafLayer(req.endpoint_count, rails, req.node_count, req.node_count, 1, k, 0, req.nic_gbps, 1.0)
    split = port_split(k, req.nic_gbps, req.switch_port_gbps, req.oversubscription)
    su_nodes = req.scalable_unit_nodes or split.down
    if req.reserved_node_slots >= su_nodes:
        raise FabricRequestError.single(
            "reserved_node_slots",
            f"{req.reserved_node_slots} reserved slot(s) would leave the first scalable unit of {su_nodes} "
            f"node slots empty; reserve at most {su_nodes - 1}",
        )
    block, per_rail, used, up = _leaf_block(req, split.down, split.up, su_nodes)
    return LeafLayer(
        endpoint_count=req.endpoint_count,
        rails=rails,
        node_count=req.node_count,
        su_nodes=su_nodes * block,
        leaves_per_su_rail=per_rail,
        leaf_down=used,
        leaf_up=up,
        endpoint_gbps=req.nic_gbps,
        leaf_oversubscription=used * req.nic_gbps / (up * req.switch_port_gbps),
        reserved_slots=req.reserved_node_slots,
        su_typed_nodes=su_nodes,
        free_down_ports=split.down - used,
        full_leaf=req.uplinks_for_full_leaf,
    )


def _leaf_block(req: FabricRequest, down: int, split_up: int, su: int) -> tuple[int, int, int, int]:
    """(SUs per leaf block, leaves per block and rail, down ports used per leaf, uplinks per leaf)."""
    if req.uplinks_for_full_leaf:  # the radix's whole split, one SU per block: today's behaviour, by choice
        return 1, math.ceil(su / down), min(su, down), split_up
    slots = req.node_count + req.reserved_node_slots
    if su <= down:
        block = max(1, min(down // su, math.ceil(slots / su)))
        if req.pod_nodes and req.pod_nodes % su == 0:  # an explicit pod holds whole leaf blocks
            block = max(b for b in range(1, block + 1) if (req.pod_nodes // su) % b == 0)
        per_rail, used = 1, su * block  # built for whole SUs, as the NVIDIA RAs build them
    else:
        block, per_rail = 1, math.ceil(su / down)
        used = math.ceil(su / per_rail)
    up = math.ceil(used * req.nic_gbps / (req.oversubscription * req.switch_port_gbps) - 1e-9)
    return block, per_rail, used, up


def leaf_block_nodes(req: FabricRequest) -> int | None:
    """Nodes that share one set of rail leaves (whole SUs, see :func:`rail_leaf_layer`); None without an SU.

    The floor plan stands one such block a row (its leaves in the row's network rack), so a design of small SUs
    is laid out, cabled and priced as the same design of larger ones (issue #34)."""
    if not req.scalable_unit_nodes or req.tiers == 1:
        return req.scalable_unit_nodes
    split = port_split(req.switch_radix, req.endpoint_gbps, req.switch_port_gbps, req.oversubscription)
    return req.scalable_unit_nodes * _leaf_block(req, split.down, split.up, req.scalable_unit_nodes)[0]


def _one_copy(req: FabricRequest, groups: int, tiers: int) -> FabricRequest:
    """One rail group of one plane: R ÷ G rails of nic_gbps ÷ P, sized on its own."""
    return dataclasses.replace(
        req,
        nics_per_node=req.nics_per_node // groups,
        nic_gbps=req.endpoint_gbps,
        rail_groups=1,
        nic_planes=1,
        tiers=tiers,
    )


def _choose(req: FabricRequest) -> tuple[FabricPlan, int, str]:
    """The copy plan, the group count, and why: fewest tiers first, then the fewest groups that fit.

    Automatic grouping follows the order an architect would: keep 2 tiers with shared spines
    if they fit; else the fewest equal rail groups that keep 2 tiers; only then add a core
    (again with the fewest groups that fit).
    """
    tier_options = [req.tiers] if req.tiers else [3] if req.pod_nodes else [2, 3]
    group_options = [req.rail_groups] if req.rail_groups else divisors(req.nics_per_node)
    refused: list[str] = []
    first_error: FabricRequestError | None = None  # of the last tier count tried, with the fewest groups
    last_error: FabricRequestError | None = None  # … and with the most
    for tiers in tier_options:
        first_error = None
        for groups in group_options:
            try:
                plan = plan_clos(_one_copy(req, groups, tiers), rail_leaf_layer, Topology.RAIL_OPTIMIZED, (tiers,))
            except FabricRequestError as exc:
                last_error = exc.with_traceback(None)  # kept: no frame cycle (test_no_cycles)
                first_error = first_error or last_error
                if len(group_options) > 1:
                    refused.append(f"{groups} group(s) in {tiers} tiers: {'; '.join(exc.errors.values())}")
                continue
            return plan, groups, _why_groups(req, groups, tiers, refused)
    assert first_error is not None and last_error is not None
    if req.rail_groups is None and "rail_groups" in first_error.errors:
        # "use more rail groups" was tried: what stopped the most grouped fabric is the answer
        first_error = last_error
    if req.rail_groups is None and len(group_options) > 1:  # more groups were tried: say so
        raise FabricRequestError(
            {
                k: v + (f" (also with up to {req.nics_per_node} rail groups)" if k in _SIZE_FIELDS else "")
                for k, v in first_error.errors.items()
            }
        )
    raise first_error


_SIZE_FIELDS = ("node_count", "scalable_unit_nodes", "rail_groups")  # refusals more rail groups could have cured


def _why_groups(req: FabricRequest, groups: int, tiers: int, refused: list[str]) -> str:
    rails = req.nics_per_node // groups
    if req.rail_groups:
        why = f"{groups} rail group(s) as requested"
    elif not refused:
        why = f"automatic: {groups} group(s) — the spines shared by all rails fit in {tiers} tiers"
    else:
        tried = refused[-1] if len(refused) == 1 else f"{len(refused)} smaller options refused, last: {refused[-1]}"
        why = f"automatic: {groups} group(s), the fewest that fit in {tiers} tiers ({tried})"
    if groups > 1:
        why += (
            f"; each group has {rails} rail(s) and its own spines; traffic between groups crosses "
            "inside the node (NVLink/PXN)"
        )
    return why


def _scaled_tier(t: Tier, copies: int, note: str) -> Tier:
    if copies == 1:
        return t
    return dataclasses.replace(
        t,
        switch_count=t.switch_count * copies,
        down_ports_used_total=t.down_ports_used_total * copies,
        up_ports_used_total=t.up_ports_used_total * copies,
        uplink_count=t.uplink_count * copies,
        derivation=f"per copy: {t.derivation}; × {note} = {t.switch_count * copies:,} {t.name} switches",
    )


def plan_rail_optimized(req: FabricRequest) -> FabricPlan:
    """Size rails, leaves, spines (and cores) for a rail-optimized compute fabric."""
    # Automatic sizing starts at 2 tiers: rails joined by shared spines. One tier
    # ("rail-only": each rail its own switch, cross-rail traffic left to NVLink) is
    # built only when asked for explicitly.
    plan, groups, why = _choose(req)
    planes = req.nic_planes
    copies = groups * planes
    w = plan.wiring
    assert isinstance(w, ClosWiring)
    note = f"{groups} rail group(s) × {planes} plane(s)" if planes > 1 else f"{groups} rail groups"
    extras = dict(plan.extras)
    extras.update(
        rail_count=req.nics_per_node * planes,
        rail_groups=groups,
        rails_per_group=w.rails,
        nic_planes=planes,
        scalable_unit_nodes=req.scalable_unit_nodes or w.su_nodes,
        leaf_block_nodes=w.su_nodes,
        leaves_per_rail=plan.tiers[0].switch_count // w.rails,
    )
    derivations = dict(plan.derivations)
    derivations["rail_count"] = f"one rail per NIC port: {req.nics_per_node} NICs per node" + (
        f" × {planes} planes = {req.nics_per_node * planes} rails" if planes > 1 else f" → {req.nics_per_node} rails"
    )
    derivations["rail_groups"] = why
    derivations["tier_count"] = f"{w.tiers} tier(s) " + ("as requested" if req.tiers else "— the fewest that fit")
    n = req.endpoint_count
    derivations["endpoint_count"] = (
        f"{req.node_count:,} nodes × {req.nics_per_node} NICs"
        + (f" × {planes} planes" if planes > 1 else "")
        + f" = {n:,} endpoints"
    )
    if planes > 1:
        derivations["nic_planes"] = (
            f"each {req.nic_gbps:g}G NIC is used as {planes} ports of {req.endpoint_gbps:g}G, "
            f"one per plane; every plane is a separate fabric"
        )
    if copies > 1:
        derivations["endpoint_link_count"] = f"one link per NIC port = {n:,}"
        derivations["switch_link_count"] = (
            f"{plan.switch_link_count:,} per copy × {note} = {plan.switch_link_count * copies:,}"
        )
        derivations["bisection_gbps"] = (
            f"{copies} disjoint copies ({note}), each cut in half by the same node split: {copies} × "
            f"({plan.derivations['bisection_gbps']}) = {plan.bisection_gbps * copies:,.0f} Gbit/s"
        )
        derivations["max_endpoint_count"] = f"{copies} × ({plan.derivations['max_endpoint_count']})"
    return FabricPlan(
        topology=plan.topology,
        endpoint_count=n,
        endpoint_gbps=plan.endpoint_gbps,
        tiers=tuple(_scaled_tier(t, copies, note) for t in plan.tiers),
        endpoint_link_count=plan.endpoint_link_count * copies,
        switch_link_count=plan.switch_link_count * copies,
        bisection_gbps=plan.bisection_gbps * copies,
        max_endpoint_count=plan.max_endpoint_count * copies,
        wiring=dataclasses.replace(w, copies=copies, planes=planes),
        derivations=derivations,
        extras=extras,
    )
