"""The live link table keeps a switch's links to NICs as runs (bom.link_table.nic_runs): a row for links that are
alike in all the BOM reads but the NIC port. It must count exactly as the table of a row a link does — the same
classes, the same modules per switch, the same links moved by the odd-port pairing — and fall back to a row a link
where a twin-port NIC cage is bought (two ports of one cage must then be told apart)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from bom.build import _counted_table, count_links, pair_odd_ports
from bom.build import _Grouped as Grouped
from bom.link_table import NO_DEVICE, nic_runs

from .test_link_table import rows


def test_runs_by_hand():
    """Six links to two switches (3 and 5), racks A = 0 and B = 1, NIC ports node × 256 + port:

    - switch 3: r1 (A, port 1), r4 (A, port 257): one run of 2, its first r1;
    - switch 5, in port order: r0 (A, 0), r2 (A, 256), r3 (B, 512), r5 (A, 768): r0 + r2 one run (2 links), r3 alone
      (another rack), r5 alone — the same rack as r0 but after r3 in port order: a run that took it would no longer
      be the least of the switch's links after one is taken off (the pairing takes the least port first)."""
    switch = np.array([5, 3, 5, 5, 3, 5])
    rack = np.array([0, 0, 0, 1, 0, 0])
    nic = np.array([0, 1, 256, 512, 257, 768])
    first, weight = nic_runs(switch, [rack], np.ones(6, dtype=np.int64), nic)
    assert first.tolist() == [1, 0, 3, 5]
    assert weight.tolist() == [2, 2, 1, 1]


def test_a_column_of_one_value_ends_no_run_and_one_that_differs_once_ends_one():
    """The six links above with a column of one value beside the rack (a segment, a speed): the same runs. A column
    that differs only at r5 (a 2nd speed there) ends a run there — r5 is alone already; one differing at r2 splits
    switch 5's first run: r0, r2, r3, r5 each alone."""
    switch = np.array([5, 3, 5, 5, 3, 5])
    rack = np.array([0, 0, 0, 1, 0, 0])
    nic = np.array([0, 1, 256, 512, 257, 768])
    ones = np.ones(6, dtype=np.int64)
    for same in ([rack, np.full(6, 7)], [np.full(6, 7), rack], [rack, np.array([4, 4, 4, 4, 4, 9])]):
        first, weight = nic_runs(switch, same, ones, nic)
        assert first.tolist() == [1, 0, 3, 5] and weight.tolist() == [2, 2, 1, 1]
    first, weight = nic_runs(switch, [np.full(6, 7), rack, np.array([4, 4, 9, 4, 4, 4])], ones, nic)
    assert first.tolist() == [1, 0, 2, 3, 5] and weight.tolist() == [2, 1, 1, 1, 1]


def test_runs_follow_the_port_order_where_the_chunk_does_not():
    """A node's two planes' ports leave the fabric plane-major (port 0, 2, then 1, 3 of NIC-major numbering): rows
    out of port order are put in it before runs are made — switch 7's ports 0, 1 in rack A, 2 in rack B, 3 in A:
    runs (0, 1), (2), (3), whatever order the rows came in; weights summed (a row of 2 links counts 2)."""
    switch = np.array([7, 7, 7, 7])
    nic = np.array([0, 2, 1, 3])
    rack = np.array([0, 1, 0, 0])
    first, weight = nic_runs(switch, [rack], np.array([1, 1, 2, 1]), nic)
    assert first.tolist() == [0, 1, 3]  # ports 0 (+ 1: row 2), 2 (row 1), 3 (row 3)
    assert weight.tolist() == [1 + 2, 1, 1]


def test_links_without_port_numbers_are_runs_as_generated():
    """Storage and management NICs have no port number (−1): a switch's links alike in every column are one run."""
    switch = np.array([2, 2, 4, 2])
    rack = np.array([0, 0, 0, 1])
    first, weight = nic_runs(switch, [rack], np.ones(4, dtype=np.int64), np.full(4, NO_DEVICE))
    assert first.tolist() == [0, 3, 2] and weight.tolist() == [2, 1, 1]
    first, weight = nic_runs(switch[:2], [rack[:2]], np.array([1, 3]), None)  # two links are a run too; one is one
    assert first.tolist() == [0] and weight.tolist() == [4]
    first, weight = nic_runs(switch[:1], [rack[:1]], np.array([5]), None)
    assert first.tolist() == [0] and weight.tolist() == [5]


def _table_of(flat: dict):
    from bom.plan import Catalog, chooser_for, floor_plan, link_table
    from cluster.pipeline import plan_planes
    from cluster.requests import bom_request, resolve
    from cluster.validate import validate_flat

    r = resolve(validate_flat(flat))
    p, req, catalog = plan_planes(r), bom_request(r), Catalog.built_in()
    layout = floor_plan(req, p.fabric, p.storage, p.management, catalog).layout
    return link_table(p.fabric, p.storage, p.management, req.shape, layout), chooser_for(req, catalog)


def _moves(t, chooser) -> list[tuple]:
    """The pairing's moves as the links they take (no row numbers: the two tables number rows differently)."""
    g = Grouped.of(t)
    from bom.build import _nic_cage_width, _probe

    parts = [chooser.parts(_probe(t, g.speeds, row)) for row in g.classes.tolist()]
    width = _nic_cage_width(t, g.classes, parts)
    out = []
    for r, p in pair_odd_ports(t, chooser, g, parts, width):
        ends = tuple(t.devices[d] if d != NO_DEVICE else "" for d in (int(t.a_dev[r]), int(t.z_dev[r])))
        out.append((t.segments[t.segment[r]], int(t.length_m[r]), *ends, p.a_module, p.z_module, p.cable.sku))
    return out


def _counted(t, chooser) -> tuple:
    c = count_links(t, chooser)
    cables = {(plane, sku): entry[1] for plane, by_sku in c.cables.items() for sku, entry in by_sku.items()}
    modules = {key: entry[1] for key, entry in c.modules.items()}
    return cables, modules, dict(c.media), c.trunks, c.trunk_ends, c.cages


def test_a_table_of_runs_counts_and_pairs_as_a_row_a_link():
    """16,384 GPUs on SN5600 (128 × 400G): 17 links moved by the pairing, all to NICs. The table of runs is smaller,
    holds the same links, and gives the same BOM counts and the same moves as the table of a row a link."""
    t, chooser = _table_of({"gpu_count": 16384, "switch_model": "SN5600-400G", "switch_radix": 128,
                            "switch_port_gbps": 400, "storage_node_count": 200, "storage_switch_radix": 64,
                            "storage_switch_port_gbps": 400})  # fmt: skip
    one_a_link = t.unmerged()
    assert t.plane.size < 0.7 * one_a_link.plane.size
    assert rows(t) == rows(one_a_link)
    assert Counter(t.weight.tolist()) != Counter(one_a_link.weight.tolist())
    moves = _moves(t, chooser)
    assert len(moves) == 17
    assert moves == _moves(one_a_link, chooser)
    assert _counted(t, chooser) == _counted(one_a_link, chooser)


def test_a_twin_port_nic_cage_is_counted_a_row_a_link():
    """Twin-port NIC cages: two ports of one cage share a module, so the table counted is the one of a row a link;
    with single-port cages, the table of runs itself."""
    twin, chooser = _table_of({"gpu_count": 2048, "nic_cage": "osfp_twin"})
    assert twin.unmerged is not None and _counted_table(twin, chooser) is twin.unmerged()
    single, chooser = _table_of({"gpu_count": 2048, "nic_cage": "osfp_single"})
    assert _counted_table(single, chooser) is single
    assert single.plane.size < single.unmerged().plane.size
