"""Invariants of every generator, checked on random small instances (hypothesis)."""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.graph import fabric_edges, verify_plan
from topology.spec import ClosWiring, divisors

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

speeds = st.sampled_from([(100.0, 100.0), (200.0, 400.0), (400.0, 400.0), (400.0, 800.0)])
ratios = st.sampled_from([1.0, 1.0, 1.5, 2.0, 3.0])


@st.composite
def clos_requests(draw, topology: Topology):
    nic, port = draw(speeds)
    nics = draw(st.integers(1, 8))
    grouping = {}
    if topology == Topology.RAIL_OPTIMIZED:
        planes = draw(st.sampled_from([1, 1, 2]))
        grouping = {
            "rail_groups": draw(st.one_of(st.none(), st.sampled_from(divisors(nics)))),
            "nic_planes": planes,
        }
        nic *= planes  # an 800G NIC as 2 × 400G planes
    tiers = draw(st.sampled_from([None, 2, 3]))
    nodes = draw(st.integers(1, 120))
    radix = st.one_of(st.none(), st.sampled_from([4, 8, 16, 48]))
    grouping["spine_radix"] = draw(radix)  # per-tier switch models
    grouping["core_radix"] = draw(radix)
    if tiers != 2:
        grouping["pod_nodes"] = draw(st.one_of(st.none(), st.integers(1, nodes)))
    if topology == Topology.FAT_TREE:
        grouping["leaf_nodes"] = draw(st.one_of(st.none(), st.integers(1, 4)))
    return FabricRequest(
        topology=topology,
        **grouping,
        node_count=nodes,
        nics_per_node=nics,
        nic_gbps=nic,
        switch_port_gbps=port,
        switch_radix=draw(st.sampled_from([4, 6, 8, 12, 16, 32])),
        oversubscription=draw(ratios),
        agg_oversubscription=draw(ratios),
        tiers=tiers,
        scalable_unit_nodes=draw(st.one_of(st.none(), st.integers(1, 16))),
    )


@st.composite
def dragonfly_requests(draw):
    nic, port = draw(speeds)
    return FabricRequest(
        topology=Topology.DRAGONFLY_PLUS,
        node_count=draw(st.integers(1, 200)),
        nics_per_node=draw(st.integers(1, 4)),
        nic_gbps=nic,
        switch_port_gbps=port,
        switch_radix=draw(st.sampled_from([4, 6, 8, 12, 16])),
        oversubscription=draw(ratios),
        global_oversubscription=draw(ratios),
        leaves_per_group=draw(st.one_of(st.none(), st.integers(1, 4))),
    )


@st.composite
def torus_requests(draw):
    dims = (draw(st.integers(1, 7)), draw(st.integers(1, 7)), draw(st.integers(1, 7)))
    given_dims = draw(st.booleans())
    return FabricRequest(
        topology=Topology.TORUS_3D,
        node_count=math.prod(dims),
        chips_per_node=1,
        torus_dims=dims if given_dims else None,
        torus_link_gbps=draw(st.sampled_from([100.0, 400.0])),
    )


# Fields a random draw can get wrong for its radix (too many nodes, a pod or leaf size that is not whole):
# a refusal on one of them is repaired by halving the node count or letting the engine choose the size,
# so the properties run on plannable fabrics rather than pass on refusals. Every refusal is counted.
SIZING_REPAIRS = ("node_count", "pod_nodes", "leaf_nodes", "scalable_unit_nodes", "leaves_per_group", "rail_groups")


class Tally:
    """Counts what the draws came to: planned, repaired on the way, or refused (with the reason)."""

    def __init__(self) -> None:
        self.planned = 0
        self.repaired: collections.Counter[str] = collections.Counter()
        self.refused: collections.Counter[str] = collections.Counter()

    def plan(self, req):
        try:
            plan = plan_fabric(req)
        except FabricRequestError as exc:
            assert set(exc.errors) <= set(FabricRequest.__dataclass_fields__), exc.errors  # names a real field
            assert all(message.strip() for message in exc.errors.values())
            self.refused.update(exc.errors.keys())
            return None
        self.planned += 1
        return plan

    def check(self, max_refused_frac: float = 0.05) -> None:
        """Refusals stay rare, and only ever for the sizing fields a draw can get wrong."""
        drawn = self.planned + sum(self.refused.values())
        assert drawn >= 50, f"only {drawn} draws"
        assert set(self.refused) <= set(SIZING_REPAIRS), self.refused
        assert sum(self.refused.values()) <= max_refused_frac * drawn, (self.planned, self.refused)


def plannable(strategy, tally: Tally):
    """Draws of ``strategy`` repaired (node count halved, pod/leaf/SU size left to the engine) until they plan."""

    @st.composite
    def draw_plannable(draw):
        req = draw(strategy)
        for _ in range(12):
            try:
                plan_fabric(req)
                return req
            except FabricRequestError as exc:
                if not set(exc.errors) <= set(SIZING_REPAIRS):
                    return req  # an unexpected refusal: the test sees it and fails
                tally.repaired.update(exc.errors.keys())
                changes = {f: None for f in exc.errors if f != "node_count"}
                if "node_count" in exc.errors:
                    if req.node_count == 1:
                        return req
                    changes["node_count"] = max(1, req.node_count // 2)
                    changes["pod_nodes"] = None
                req = dataclasses.replace(req, **changes)
        return req

    return draw_plannable()


def _any(tally: Tally, *topologies):
    kinds = {
        Topology.FAT_TREE: clos_requests(Topology.FAT_TREE),
        Topology.RAIL_OPTIMIZED: clos_requests(Topology.RAIL_OPTIMIZED),
        Topology.DRAGONFLY_PLUS: dragonfly_requests(),
        Topology.TORUS_3D: torus_requests(),
    }
    return st.one_of([plannable(kinds[t], tally) for t in topologies or kinds])


def test_graph_agrees_with_plan():
    """Links counted once, ports ≤ radix, ports per tier, bisection = max-flow."""
    tally = Tally()

    @SETTINGS
    @given(_any(tally))
    def check(req):
        plan = tally.plan(req)
        if plan is None:
            return
        v = verify_plan(plan)
        assert v.ok, v.problems

    check()
    tally.check()


def test_endpoints_served_equal_requested():
    tally = Tally()

    @SETTINGS
    @given(_any(tally))
    def check(req):
        plan = tally.plan(req)
        if plan is None:
            return
        e = fabric_edges(plan)
        assert plan.endpoint_count == req.endpoint_count == e.endpoint_count
        if plan.tiers:
            assert plan.tiers[0].down_ports_used_total == req.endpoint_count
        assert plan.endpoint_count <= plan.max_endpoint_count

    check()
    tally.check()


def test_ports_conserved_between_tiers():
    """Every uplink of a tier lands on a down port of the tier above; no port is over-used."""
    tally = Tally()

    @SETTINGS
    @given(_any(tally, Topology.FAT_TREE, Topology.RAIL_OPTIMIZED, Topology.DRAGONFLY_PLUS))
    def check(req):
        plan = tally.plan(req)
        if plan is None:
            return
        tiers = plan.tiers
        for t in tiers:
            assert t.ports_used_total <= t.ports_total
            assert t.ports_free_total >= 0
            assert t.down_ports_per_switch + t.up_ports_per_switch <= t.radix
        if plan.topology != Topology.DRAGONFLY_PLUS:
            for lower, upper in itertools.pairwise(tiers):
                assert lower.up_ports_used_total == upper.down_ports_used_total
            assert plan.switch_link_count == sum(t.uplink_count for t in tiers)
        assert plan.link_end_count == 2 * plan.link_count

    check()
    tally.check()


@st.composite
def non_blocking_requests(draw):
    b = draw(st.sampled_from([100.0, 400.0]))
    return FabricRequest(
        topology=draw(st.sampled_from([Topology.FAT_TREE, Topology.RAIL_OPTIMIZED])),
        node_count=draw(st.integers(1, 40)),
        nics_per_node=draw(st.sampled_from([2, 4, 8])),
        nic_gbps=b,
        switch_port_gbps=b,
        switch_radix=draw(st.sampled_from([4, 8, 16, 32])),
    )


def test_non_blocking_bisection_is_half_the_injection():
    """A 1:1 fat-tree's bisection = N·B/2 (seed F4) — whatever the tier count."""
    tally = Tally()

    @SETTINGS
    @given(plannable(non_blocking_requests(), tally))
    def check(req):
        plan = tally.plan(req)
        if plan is None:
            return
        nodes, b = req.node_count, req.nic_gbps
        if req.topology == Topology.RAIL_OPTIMIZED:
            assert plan.tier_count >= 2  # automatic sizing joins the rails with spines
        n = plan.endpoint_count
        w = plan.wiring
        assert isinstance(w, ClosWiring)
        # rail groups are disjoint copies, each halved by the same node split: N·B/2 when the
        # node count is even; with an odd count each copy's odd endpoint is left out
        per_copy = nodes * w.rails if req.topology == Topology.RAIL_OPTIMIZED else n
        assert plan.bisection_gbps == pytest.approx(w.copies * (per_copy // 2) * b)
        if nodes % 2 == 0:
            assert plan.bisection_gbps == pytest.approx(n * b / 2)

    check()
    tally.check()
