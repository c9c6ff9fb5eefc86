"""topology.clos.rail_leaf_spans and the two figures read from it without a per-endpoint array — each leaf's pod
(leaf_pod_ids) and the endpoints of each half per leaf (bisection.clos_halves) — equal the endpoint-by-endpoint
counts (endpoint_leaf_ids) over every small wiring: reserved slots, partial SUs, leaf blocks of several SUs,
several leaves per SU and rail; and through plan_fabric for rail-optimized and fat-tree requests."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from topology import FabricRequest, FabricRequestError, Topology, plan_fabric
from topology.bisection import _halves, clos_halves
from topology.clos import endpoint_leaf_ids, leaf_count_of, leaf_pod_ids, rail_leaf_spans
from topology.spec import ClosWiring


def pods_by_endpoint(w: ClosWiring) -> list[int]:
    """The per-endpoint reference: the SU of each leaf's first endpoint, ÷ SUs per pod."""
    ep_leaf = endpoint_leaf_ids(w)
    first = np.zeros(leaf_count_of(w), dtype=np.int64)
    idx = np.arange(w.endpoint_count, dtype=np.int64)
    first[ep_leaf[::-1]] = idx[::-1]
    su = (first // w.rails + w.reserved_slots) // w.su_nodes
    return (su // (w.leaves_per_pod // (w.rails * w.leaves_per_su_rail))).tolist()


def wirings():
    """As topology.rail_optimized sizes a leaf of ``cap`` down ports: ⌈su ÷ cap⌉ leaves per SU and rail, each
    using ⌈su ÷ per⌉ ports, or (uplinks for the full leaf) min(su, cap)."""
    shapes = itertools.product((1, 2, 3), (1, 2, 4, 5, 6), (1, 2, 3, 4, 8), (False, True), (1, 3, 7, 16), (0, 1))
    for rails, su, cap, full, nodes, reserved in shapes:
        if reserved >= su:
            continue
        per = -(-su // cap)
        down = min(su, cap) if full else -(-su // per)
        yield ClosWiring(
            tiers=3, endpoint_count=nodes * rails, rails=rails, node_count=nodes, su_nodes=su,
            leaves_per_su_rail=per, leaf_down=down, leaf_up=1, leaves_per_pod=rails * per * 2, aggs_per_pod=1,
            leaf_to_agg_links=1, reserved_slots=reserved,
        )  # fmt: skip


def test_spans_give_the_per_endpoint_pods_and_halves():
    fast = 0
    for w in wirings():
        fast += check_wiring(w)
    assert fast > 500  # most wirings take the span path (the rest: an empty first leaf, counted per endpoint)


def check_wiring(w: ClosWiring) -> bool:
    leaves = leaf_count_of(w)
    spans = rail_leaf_spans(w)
    assert spans is not None
    ep_leaf = endpoint_leaf_ids(w)
    # reserved slots may empty a leaf of the first SU: leaf_count_of still counts it (the callers fall back)
    assert spans[0].size == int(ep_leaf.max()) + 1 <= leaves
    # each leaf's node span holds exactly its endpoints
    node_of = np.arange(w.endpoint_count) // w.rails
    for leaf, (_, rail, lo, hi) in enumerate(zip(*spans, strict=True)):
        mine = np.flatnonzero(ep_leaf == leaf)
        assert node_of[mine].tolist() == list(range(lo, hi)) and set((mine % w.rails).tolist()) == {rail}, w
    assert leaf_pod_ids(w).tolist() == pods_by_endpoint(w), w
    a, b = clos_halves(w, leaves)
    ra, rb = _halves(ep_leaf, leaves)
    assert a.tolist() == ra.tolist() and b.tolist() == rb.tolist(), w
    return spans[0].size == leaves


def test_fat_tree_halves_by_leaf_span():
    for n, down in itertools.product((1, 5, 8, 13, 64, 65), (1, 2, 3, 4, 8)):
        w = ClosWiring(tiers=2, endpoint_count=n, rails=1, node_count=n, su_nodes=0, leaves_per_su_rail=1,
                       leaf_down=down, leaf_up=1, leaves_per_pod=1, aggs_per_pod=1, leaf_to_agg_links=1)  # fmt: skip
        leaves = leaf_count_of(w)
        a, b = clos_halves(w, leaves)
        ra, rb = _halves(endpoint_leaf_ids(w), leaves)
        assert (a.tolist(), b.tolist()) == (ra.tolist(), rb.tolist()), (n, down)


def test_a_wiring_that_is_not_node_major_falls_back():
    """No generator builds one; the spans refuse it and the callers count endpoint by endpoint."""
    w = ClosWiring(tiers=3, endpoint_count=7, rails=2, node_count=4, su_nodes=2, leaves_per_su_rail=1, leaf_down=2,
                   leaf_up=1, leaves_per_pod=4, aggs_per_pod=1, leaf_to_agg_links=1)  # fmt: skip
    assert rail_leaf_spans(w) is None
    a, b = clos_halves(w, leaf_count_of(w))
    ra, rb = _halves(endpoint_leaf_ids(w), leaf_count_of(w))
    assert (a.tolist(), b.tolist()) == (ra.tolist(), rb.tolist())


@pytest.mark.parametrize(
    "kw",
    [
        dict(node_count=12800, switch_radix=128, switch_port_gbps=400),  # the bench's 100k GPUs, 3 tiers
        dict(node_count=2048, switch_radix=64, scalable_unit_nodes=32, tiers=3, pod_nodes=128),
        dict(node_count=1000, switch_radix=64, scalable_unit_nodes=20, reserved_node_slots=3, tiers=3),
        dict(node_count=517, switch_radix=32, scalable_unit_nodes=40, tiers=3, oversubscription=2),
        dict(node_count=250, switch_radix=64, scalable_unit_nodes=12, uplinks_for_full_leaf=True),
    ],
)
@pytest.mark.parametrize("topology", [Topology.RAIL_OPTIMIZED, Topology.FAT_TREE])
def test_plans_agree_with_the_per_endpoint_counts(topology: Topology, kw: dict):
    if topology == Topology.FAT_TREE:
        kw = {k: v for k, v in kw.items() if k not in ("scalable_unit_nodes", "reserved_node_slots")}
    try:
        plan = plan_fabric(FabricRequest(topology=topology, nics_per_node=8, **kw))
    except FabricRequestError:
        pytest.skip("not a fabric")
    w = dataclass_one_copy(plan.wiring)
    leaves = leaf_count_of(w)
    a, b = clos_halves(w, leaves)
    ra, rb = _halves(endpoint_leaf_ids(w), leaves)
    assert (a.tolist(), b.tolist()) == (ra.tolist(), rb.tolist())
    if w.tiers == 3 and w.su_nodes:
        assert leaf_pod_ids(w).tolist() == pods_by_endpoint(w)


def dataclass_one_copy(w: ClosWiring) -> ClosWiring:
    import dataclasses

    return dataclasses.replace(w, copies=1, planes=1)


def test_spans_are_remembered_read_only_and_equal_to_fresh_ones():
    """rail_leaf_spans remembers each wiring's spans (a live evaluate asks ≈ 12 times): the same arrays for an equal
    wiring, read-only (no caller can change what the next one reads), and those worked out afresh."""
    from topology.clos import _rail_leaf_spans

    for w in list(wirings())[:40]:
        spans = rail_leaf_spans(w)
        again = rail_leaf_spans(ClosWiring(**{f: getattr(w, f) for f in w.__dataclass_fields__}))  # equal, not same
        fresh = _rail_leaf_spans(w)
        assert spans is not None and fresh is not None and again is spans
        assert all(not a.flags.writeable for a in spans)
        assert all(np.array_equal(a, b) for a, b in zip(spans, fresh, strict=True))
        with pytest.raises(ValueError):
            spans[2][0] = -1
