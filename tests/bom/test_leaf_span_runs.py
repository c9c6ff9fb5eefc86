"""bom.link_table.leaf_span_runs: a rail-optimized Clos's links to NICs as runs worked out from each leaf's span of
nodes, without a row a link — the same table, column for column, as the runs nic_runs makes of a row a link."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bom.link_table as lt
from benchmarks.bom import SCALES
from tests.conftest import EXAMPLES
from topology.spec import ClosWiring


def test_runs_by_hand():
    """2 rails, SUs of 4 nodes, a leaf per SU and rail (4 down ports), 8 nodes, 3 nodes a rack — racks {0, 1, 2},
    {3, 4, 5}, {6, 7}; endpoint = node × 2 + rail:

    - SU 0 rail 0, nodes [0, 4): runs [0, 3) and [3, 4) — first rows 0 × 2 + 0 = 0 and 3 × 2 + 0 = 6, 3 and 1 links;
    - SU 0 rail 1: rows 1 and 7, 3 and 1 links;
    - SU 1 rail 0, nodes [4, 8): runs [4, 6) and [6, 8) — rows 8 and 12, 2 and 2 links; rail 1: rows 9 and 13."""
    w = ClosWiring(
        tiers=2, endpoint_count=16, rails=2, node_count=8, su_nodes=4, leaves_per_su_rail=1, leaf_down=4, leaf_up=1,
        leaves_per_pod=4, aggs_per_pod=1, leaf_to_agg_links=1,
    )  # fmt: skip
    e = SimpleNamespace(endpoint_count=16, node_tier=np.array([-1] * 16 + [0] * 4 + [1]))
    sw_dev = np.array([-1] * 16 + [10, 11, 12, 13, 14])
    e.u = np.zeros(16 + 4)  # 16 links to NICs, 4 leaf–spine links
    first, links, others = lt.leaf_span_runs(SimpleNamespace(wiring=w), e, 2, sw_dev, nodes_per_rack=3)
    assert first.tolist() == [0, 6, 1, 7, 8, 12, 9, 13]
    assert links.tolist() == [3, 1, 3, 1, 2, 2, 2, 2]
    assert others.tolist() == [16, 17, 18, 19]
    assert lt.leaf_span_runs(SimpleNamespace(wiring=w), e, 4, sw_dev, 3) is None  # 4 ports a node on 2 rails: no
    shuffled = sw_dev.copy()
    shuffled[16:18] = [11, 10]  # leaves not in device order: nic_runs' order is not the spans'
    assert lt.leaf_span_runs(SimpleNamespace(wiring=w), e, 2, shuffled, 3) is None
    # 2 reserved slots and 2 leaves an SU and rail (2 down ports): the first SU's first leaves hold no node, so the
    # spans (3 a rail) number fewer leaves than the edge list has (4 a rail): not the spans' runs
    w = ClosWiring(
        tiers=2, endpoint_count=12, rails=2, node_count=6, su_nodes=4, leaves_per_su_rail=2, leaf_down=2, leaf_up=1,
        leaves_per_pod=8, aggs_per_pod=1, leaf_to_agg_links=1, reserved_slots=2,
    )  # fmt: skip
    e = SimpleNamespace(endpoint_count=12, node_tier=np.array([-1] * 12 + [0] * 8 + [1]), u=np.zeros(12 + 8))
    assert lt.leaf_span_runs(SimpleNamespace(wiring=w), e, 2, np.arange(21) + 10, 3) is None


def _tables(flat: dict, monkeypatch) -> tuple[object, object, int]:
    """The link table of runs with the spans' runs and without (nic_runs over a row a link), and how often the
    spans gave them."""
    from bom.plan import Catalog, floor_plan
    from cluster.pipeline import plan_planes
    from cluster.requests import bom_request, resolve
    from cluster.validate import validate_flat

    r = resolve(validate_flat(flat))
    p, req = plan_planes(r), bom_request(r)
    layout = floor_plan(req, p.fabric, p.storage, p.management, Catalog.built_in()).layout
    real, used = lt.leaf_span_runs, []

    def spying(*args, **kw):
        runs = real(*args, **kw)
        used.append(runs is not None)
        return runs

    monkeypatch.setattr(lt, "leaf_span_runs", spying)
    fast = lt.plane_link_table(p.fabric, p.storage, p.management, req.shape, layout)
    monkeypatch.setattr(lt, "leaf_span_runs", lambda *a, **k: None)
    slow = lt.plane_link_table(p.fabric, p.storage, p.management, req.shape, layout)
    monkeypatch.setattr(lt, "leaf_span_runs", real)
    return fast, slow, sum(used)


def _same(fast, slow) -> None:
    for name in ("planes", "segments", "roles", "devices"):
        assert getattr(fast, name) == getattr(slow, name), name
    for name in lt._COLUMNS:
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


DESIGNS = {
    **{f"scale {gpus}": flat for gpus, flat in SCALES.items()},
    "H100 12,288": {"gpu_count": 12288, "gpu_model": "H100-SXM5"},
    "SN5600 98,304": {"gpu_count": 98304, "switch_model": "SN5600-400G", "switch_radix": 128, "switch_port_gbps": 400},
    "2 rail groups": {"gpu_count": 4096, "rail_groups": 2},
    "2 NIC planes": {"gpu_count": 4096, "nic_planes": 2},
    "fat-tree": {"gpu_count": 4096, "topology": "fat_tree"},
    "fat-tree, 1 NIC a node": {"gpu_count": 1024, "topology": "fat_tree", "nics_per_node": 1},  # 1 rail: no spans
}


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_the_same_table_as_runs_of_a_row_a_link(name, monkeypatch):
    fast, slow, used = _tables(DESIGNS[name], monkeypatch)
    _same(fast, slow)
    assert fast.plane.size < fast.unmerged().plane.size  # runs, either way: fewer rows than links to NICs
    assert used == (not name.startswith("fat-tree"))  # rail-optimized, in one copy or several (rail groups, NIC planes)


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_the_same_table(example, monkeypatch):
    from cluster.pipeline import plan_planes
    from cluster.requests import bom_request, resolve
    from cluster.validate import load_requirements_file, validate

    r = resolve(validate(load_requirements_file(EXAMPLES / example)))
    from bom.plan import Catalog, floor_plan

    p, req = plan_planes(r), bom_request(r)
    layout = floor_plan(req, p.fabric, p.storage, p.management, Catalog.built_in()).layout
    fast = lt.plane_link_table(p.fabric, p.storage, p.management, req.shape, layout)
    monkeypatch.setattr(lt, "leaf_span_runs", lambda *a, **k: None)
    _same(fast, lt.plane_link_table(p.fabric, p.storage, p.management, req.shape, layout))


@settings(max_examples=40, deadline=None)
@given(
    nodes=st.integers(2, 600),
    gpus_per_node=st.sampled_from([4, 8]),
    nodes_per_rack=st.integers(1, 9),
    racks_per_row=st.integers(2, 16),
)
def test_rail_optimized_shapes_give_the_same_table(nodes, gpus_per_node, nodes_per_rack, racks_per_row):
    flat = {
        "gpu_count": nodes * gpus_per_node,
        "gpus_per_node": gpus_per_node,
        "nics_per_node": gpus_per_node,
        "nodes_per_rack": nodes_per_rack,
        "racks_per_row": racks_per_row,
    }
    with pytest.MonkeyPatch.context() as monkeypatch:
        try:
            fast, slow, _used = _tables(flat, monkeypatch)
        except Exception as exc:  # a shape the engines refuse (a field error): nothing to compare
            from cluster.requirements import RequirementsError

            if isinstance(exc, RequirementsError | ValueError):
                return
            raise
        _same(fast, slow)
        _same_leaves(flat, monkeypatch)


def _planned(flat: dict):
    from bom.plan import Catalog, floor_plan
    from cluster.pipeline import plan_planes
    from cluster.requests import bom_request, resolve
    from cluster.validate import validate_flat

    r = resolve(validate_flat(flat))
    p, req = plan_planes(r), bom_request(r)
    return p, req, floor_plan(req, p.fabric, p.storage, p.management, Catalog.built_in()).layout


def _same_leaves(flat: dict, monkeypatch) -> bool:
    """The compute leaves' positions with each leaf's first node read from the spans and from the links; whether
    the spans gave them."""
    import bom.links as links
    from topology.graph import fabric_edges

    p, req, layout = _planned(flat)
    e = fabric_edges(p.fabric)
    spans = links.span_first_nodes(p.fabric, e, req.shape.fabric_ports_per_node) is not None
    links._LEAVES.clear()
    fast = links.compute_leaf_positions(p.fabric, req.shape, layout, e)
    links._LEAVES.clear()
    monkeypatch.setattr(links, "span_first_nodes", lambda *a: None)
    slow = links.compute_leaf_positions(p.fabric, req.shape, layout, e)
    monkeypatch.undo()
    links._LEAVES.clear()
    assert len(fast) == len(slow) == 3
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    return spans


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_leaf_positions_from_the_spans_are_those_from_the_links(name, monkeypatch):
    """bom.links.span_first_nodes: each leaf's first node read from the spans places every leaf where its first
    link to a NIC does (bom.links.leaf_positions) — leaf ids, rows and columns."""
    assert _same_leaves(DESIGNS[name], monkeypatch) == (not name.startswith("fat-tree"))
