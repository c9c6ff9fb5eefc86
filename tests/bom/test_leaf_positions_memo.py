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
