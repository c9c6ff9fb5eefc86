"""Invariants of every generator, checked on random small instances (hypothesis)."""

from __future__ import annotations

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


any_request = st.one_of(
    clos_requests(Topology.FAT_TREE),
    clos_requests(Topology.RAIL_OPTIMIZED),
    dragonfly_requests(),
    torus_requests(),
)


def _plan_or_skip(req):
    try:
        return plan_fabric(req)
    except FabricRequestError as exc:
        # a refusal must name a real field of the request
        assert set(exc.errors) <= set(FabricRequest.__dataclass_fields__)
        return None


@SETTINGS
@given(any_request)
def test_graph_agrees_with_plan(req):
    """Links counted once, ports ≤ radix, ports per tier, bisection = max-flow."""
    plan = _plan_or_skip(req)
    if plan is None:
        return
    v = verify_plan(plan)
    assert v.ok, v.problems


@SETTINGS
@given(any_request)
def test_endpoints_served_equal_requested(req):
    plan = _plan_or_skip(req)
    if plan is None:
        return
    e = fabric_edges(plan)
    assert plan.endpoint_count == req.endpoint_count == e.endpoint_count
    if plan.tiers:
        assert plan.tiers[0].down_ports_used_total == req.endpoint_count
    assert plan.endpoint_count <= plan.max_endpoint_count


@SETTINGS
@given(st.one_of(clos_requests(Topology.FAT_TREE), clos_requests(Topology.RAIL_OPTIMIZED), dragonfly_requests()))
def test_ports_conserved_between_tiers(req):
    """Every uplink of a tier lands on a down port of the tier above; no port is over-used."""
    plan = _plan_or_skip(req)
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


@SETTINGS
@given(
    st.sampled_from([Topology.FAT_TREE, Topology.RAIL_OPTIMIZED]),
    st.integers(1, 40),
    st.sampled_from([2, 4, 8]),
    st.sampled_from([4, 8, 16, 32]),
    st.sampled_from([100.0, 400.0]),
)
def test_non_blocking_bisection_is_half_the_injection(topology, nodes, nics, radix, b):
    """A 1:1 fat-tree's bisection = N·B/2 (seed F4) — whatever the tier count."""
    req = FabricRequest(
        topology=topology,
        node_count=nodes,
        nics_per_node=nics,
        nic_gbps=b,
        switch_port_gbps=b,
        switch_radix=radix,
    )
    plan = _plan_or_skip(req)
    if plan is None:
        return
    if topology == Topology.RAIL_OPTIMIZED:
        assert plan.tier_count >= 2  # automatic sizing joins the rails with spines
    n = plan.endpoint_count
    w = plan.wiring
    assert isinstance(w, ClosWiring)
    # rail groups are disjoint copies, each halved by the same node split: N·B/2 when the
    # node count is even; with an odd count each copy's odd endpoint is left out
    per_copy = nodes * w.rails if topology == Topology.RAIL_OPTIMIZED else n
    assert plan.bisection_gbps == pytest.approx(w.copies * (per_copy // 2) * b)
    if nodes % 2 == 0:
        assert plan.bisection_gbps == pytest.approx(n * b / 2)
