"""bom.links.compute_leaf_positions is asked three times a design (floor plan, link table, storage plane) and keeps
the last few answers by edge list, node shape and layout: an answer for another layout must never be served, and
asking for the rows of the leaves' first endpoints only must give the rows of every endpoint looked up."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bom.links import compute_leaf_positions, leaf_positions
from cluster.pipeline import plan_planes
from cluster.requests import bom_request, resolve
from cluster.validate import validate_flat
from topology.graph import fabric_edges


def _fresh(plan, shape, layout):
    """Every endpoint's row worked out, then looked up (the rule as written, no memo, no function)."""
    e = fabric_edges(plan)
    rows = np.asarray(layout.node_position(np.arange(e.endpoint_count) // shape.fabric_ports_per_node)[0])
    return leaf_positions(e, rows.astype(np.int64), layout)


def test_remembered_leaf_positions_are_those_of_the_layout_asked():
    r = resolve(validate_flat({"gpu_count": 2048, "nodes_per_rack": 4, "racks_per_row": 8}))
    p, req = plan_planes(r), bom_request(r)
    shape, layout = req.shape, req.layout
    other = replace(layout, nodes_per_rack=2, leaves_per_network_rack=3)
    for lay in (layout, other, layout, other):
        got = compute_leaf_positions(p.fabric, shape, lay)
        want = _fresh(p.fabric, shape, lay)
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        assert not any(a.flags.writeable for a in got)  # shared between callers: read-only
    a, b = compute_leaf_positions(p.fabric, shape, layout)[2], compute_leaf_positions(p.fabric, shape, other)[2]
    assert not np.array_equal(a, b)  # the two layouts place leaves apart: a memo keyed on the fabric alone fails


def test_a_hall_layout_is_served_the_positions_of_its_grid_and_they_are_its_own():
    """The floor plan asks before the hall is laid out, the link table after: one answer for both, as a rack's (row,
    column) is the same in a hall (it only places them on the floor). Checked against the rule worked out afresh
    for the hall layout itself — the compute leaves and the storage leaves of the 100k two-hall floor."""
    from bom.links import leaves_per_row, storage_access_rows, storage_leaf_positions
    from bom.plan import Catalog, floor_plan

    r = resolve(validate_flat({"gpu_count": 100_000, "storage_node_count": 64, "storage_switch_radix": 64}))
    p, req = plan_planes(r), bom_request(r)
    hall = floor_plan(req, p.fabric, p.storage, p.management, Catalog.built_in()).layout
    assert hall.hall_slots and hall.hall_starts  # two halls
    grid = replace(hall, hall_slots=(), spine_rows=0, slot_racks=0, hall_starts=())
    compute_leaf_positions(p.fabric, req.shape, grid)  # remembered for the grid first
    got = compute_leaf_positions(p.fabric, req.shape, hall)
    assert all(np.array_equal(a, b) for a, b in zip(got, _fresh(p.fabric, req.shape, hall), strict=True))
    rows = got[1]
    storage_leaf_positions(p.storage, req.shape, grid, rows)
    got = storage_leaf_positions(p.storage, req.shape, hall, rows)
    e = fabric_edges(p.storage.fabric)
    want = leaf_positions(e, storage_access_rows(req.shape, hall), hall, leaves_per_row(rows))
    assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
