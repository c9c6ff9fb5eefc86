"""Issue #34 item 4: a floor plan that holds at scale (bom/layout.py hall_layout), by hand.

One block (the spine row in front of the rows) while its longest run stays within 100 m; past it, blocks of rows
side by side round spine rows in the middle blocks, the rows in order as one snake; past what one hall holds,
halls side by side. Every link class with runs past the limit is a failing check naming the class and the fix.
The issue's figures, the 24,576-GPU RoCE example in one block: leaf–spine 500 m and management ToR–spine 686 m.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from bom.hall_svg import hall_svg
from bom.layout import (
    RackLayout,
    bare_switches_per_rack,
    hall_layout,
    hall_map,
    hall_slots,
    one_block_run_m,
    rack_key,
    rack_of_key,
    rack_of_key_arrays,
    reach_checks,
    su_row_racks,
)
from bom.link_table import NO_DEVICE, plane_link_table
from bom.plan import Catalog, _between_halls, _long_between_halls, cable_reach_checks, floor_plan
from cluster.pipeline import plan_planes, resolve
from cluster.requests import bom_request
from cluster.validate import load_requirements_file, validate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CATALOG = Catalog.built_in()


def _floor(r):
    r = resolve(r)
    planes = plan_planes(r)
    req = bom_request(r)
    floor = floor_plan(req, planes.fabric, planes.storage, planes.management, CATALOG)
    table = plane_link_table(planes.fabric, planes.storage, planes.management, req.shape, floor.layout)
    return floor, table


def _longest_by_class(table) -> dict[str, int]:
    out: dict[str, int] = {}
    for plane, segment, length in zip(
        table.plane.tolist(), table.segment.tolist(), table.length_m.tolist(), strict=True
    ):
        key = f"{table.planes[plane]} {table.segments[segment]}"
        out[key] = max(out.get(key, 0), length)
    return out


def test_one_block_while_it_holds():
    """The seed design's floor: 8 rows (7 compute + 1 infrastructure) of up to 13 racks (10 + 3 network), 7 spine
    racks: 8 × 2.4 m + (13 − 1) × 0.6 m + 3 m = 29.4 m ≤ 100 m: one block, the geometry of every golden so far."""
    layout = RackLayout()
    assert one_block_run_m(layout, 8, 13, 7) == pytest.approx(29.4)
    hall, why = hall_layout(layout, 8, 13, 7)
    assert hall.hall_slots == () and hall.distance_m((0, 0), (2, 3)) == pytest.approx(6.6)
    assert why == (
        "one block: the spine row in front of 8 rows of up to 13 racks; longest run 8 × 2.4 m + (13 − 1) × 0.6 m "
        "+ 3 m slack = 29.4 m ≤ 100 m"
    )


def test_the_hall_sentence_says_where_the_spine_rows_stand():
    """The 16,384-GPU default's hall (53 rows of up to 12 racks, 71 spine-row racks): one block would run
    53 × 2.4 m + (71 − 1) × 0.6 m + 3 m = 172.2 m; ⌈71 ÷ 12⌉ = 6 spine rows stand in one middle block 9 deep
    (⌈6 ÷ (9 − 1)⌉ = 1), not "6 spine rows, 6 a hall in 1 middle blocks". Two halls (100k GPUs: 315 rows of 13,
    938 spine-row racks): ⌈938 ÷ 13⌉ = 73 spine rows, ⌈73 ÷ 2⌉ = 37 in the first hall and 36 in the second."""
    _, why = hall_layout(RackLayout(), 53, 12, 71)
    assert why.startswith("one block would run 172.2 m > 100 m, so a hall of 7 blocks of up to 9 rows side by side")
    assert (
        "⌈71 spine-row racks ÷ 12⌉ = 6 spine rows, in the hall's ⌈6 ÷ (9 − 1)⌉ = 1 middle block behind its front "
        "row; the rows run in order as one snake through 3 blocks on the left, the middle block's front row and 3 "
        "blocks on the right;"
    ) in why
    assert "a hall in" not in why and "1 middle blocks" not in why
    _, two = hall_layout(RackLayout(), 315, 13, 938)
    assert "⌈73 spine rows ÷ 2⌉ = 37" in two
    assert (
        "⌈938 spine-row racks ÷ 13⌉ = 73 spine rows, up to 37 in each hall's ⌈37 ÷ (20 − 1)⌉ = 2 middle blocks "
        "behind their front row;"
    ) in two
    assert "the middle blocks' front row and 4 blocks on the right" in two


def test_the_snake_keeps_consecutive_rows_side_by_side():
    """1 left, 1 middle and 1 right block, 3 deep, 2 spine rows and 7 rows: spines behind the middle block's front
    row, (1, 1) and (1, 2); the rows down the left block (depth 2, 1, 0), across the middle's front (1, 0), up the
    right block (2, 0), (2, 1), (2, 2): each row a depth or a block from the one before."""
    slots = hall_slots(1, 1, 1, 3, 2, 7)
    assert slots == [(1, 1), (1, 2), (0, 2), (0, 1), (0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]
    rows = slots[2:]
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in pairwise(rows))


def test_positions_in_a_hall():
    """Slots 4 racks wide: a block is 4 × 0.6 + 1.2 = 3.6 m. Spine rack 2 (spine row 0, slot (1, 1)) stands at
    x = 3.6 + 2 × 0.6 = 4.8 m, y = 2.4 m; row 0's rack 3 (slot (0, 0)) at (1.8, 0): 3.0 + 2.4 = 5.4 m apart,
    + 3 m slack = 8.4 m → a 10 m cable."""
    hall = RackLayout(racks_per_row=3, hall_slots=((1, 1), (0, 0), (0, 1)), spine_rows=1, slot_racks=4)
    assert [float(v) for v in hall.position_m(-1, 2)] == pytest.approx([4.8, 2.4])
    assert [float(v) for v in hall.position_m(0, 3)] == pytest.approx([1.8, 0.0])
    assert hall.distance_m((-1, 2), (0, 3)) == pytest.approx(5.4)
    assert hall.cable_length_m((-1, 2), (0, 3)) == 10
    assert hall.distances_m(np.array([-1]), np.array([2]), np.array([0]), np.array([3])).tolist() == pytest.approx(
        [5.4]
    )


def test_a_layouts_slots_array_is_made_once_and_is_no_part_of_it():
    """position_m reads the slots as an array made once a layout: read-only, the same on every call, none of the
    layout's repr (the memos' keys) or equality; a layout made from it (replace) has its own slots."""
    hall = RackLayout(racks_per_row=3, hall_slots=((1, 1), (0, 0), (0, 1)), spine_rows=1, slot_racks=4)
    before = repr(hall)
    assert [float(v) for v in hall.position_m(-1, 2)] == pytest.approx([4.8, 2.4])
    slots = hall._slot_array
    assert slots.tolist() == [[1, 1], [0, 0], [0, 1]] and not slots.flags.writeable
    assert hall.position_m(0, 3) is not None and hall._slot_array is slots
    fresh = RackLayout(racks_per_row=3, hall_slots=((1, 1), (0, 0), (0, 1)), spine_rows=1, slot_racks=4)
    assert repr(hall) == before == repr(fresh) and hall == fresh and hash(hall) == hash(fresh)
    moved = replace(hall, hall_slots=((0, 1), (0, 0), (1, 1)))
    # spine rack 2 now in slot (0, 1): x = 0 × 3.6 + 2 × 0.6 = 1.2 m, y = 1 × 2.4 m
    assert [float(v) for v in moved.position_m(-1, 2)] == pytest.approx([1.2, 2.4])


def test_a_run_past_the_limit_is_a_failing_check_naming_the_class_and_the_fix():
    """3 links of 100 m hold, 2 of 150 m do not; between halls 500 m holds and 700 m does not."""
    within = ("compute", "leaf–spine", np.array([100, 150]), np.array([3, 2]), np.array([False, False]))
    between = ("compute", "spine–core", np.array([300, 700]), np.array([4, 1]), np.array([True, True]))
    fine = ("management", "BMC–ToR", np.array([30]), np.array([9]), np.array([False]))
    checks = reach_checks([within, between, fine], 100.0, 500.0)
    assert [c["ok"] for c in checks] == [False, False]
    assert checks[0]["message"].startswith(
        "compute leaf–spine: 2 of 5 links run past 100 m within a hall (longest 150 m bought) — fix: more nodes per "
        "rack or fewer racks per row for a denser hall, split the design into pods or halls of their own"
    )
    assert checks[1]["message"].startswith("compute spine–core: 1 of 5 links run past 500 m between halls (longest 700")
    assert checks[0]["name"] == "cable reach" and checks[0]["field"] == "racks_per_row"


def test_the_24k_roce_example_holds_within_100_m():
    """In one block: 155 rows (154 compute + 1 infrastructure) × 2.4 m + (501 spine racks − 1) × 0.6 m + 3 m =
    372 + 300 + 3 = 675.0 m (the issue's 500 m leaf–spine and 686 m ToR–spine runs). 501 spine-row racks, one
    switch each: 160 compute spines and cores + 196 storage spines + 128 storage cores + 17 management spines;
    the storage fabric's last pod (4 of 196 leaves) has 4 spines, not 32 (issue #34: 224 → 196 spines). In a
    hall of blocks (rows of 10 compute + 2 network racks) every class's longest bought run is ≤ 100 m, and no
    check fails."""
    floor, table = _floor(validate(load_requirements_file(EXAMPLES / "roce-24k-pods-1to7.yaml")))
    why = floor.racks.derivations["hall"]
    assert why.startswith("one block would run 675.0 m > 100 m, so a hall of ")
    assert "⌈501 spine-row racks ÷ 12⌉ = 42 spine rows" in why and "≤ 100 m" in why
    longest = _longest_by_class(table)
    assert max(longest.values()) <= 100
    assert longest["compute node–leaf"] <= 10 and longest["management BMC–ToR"] <= 30  # Cat6 cords stop at 30 m
    assert cable_reach_checks(table, floor.layout) == []
    m = hall_map(floor.layout, floor.racks.compute_rack_count, 7, {}, floor.racks.spine_rack_count)
    assert m["halls"] == 1 and m["blocks"] == len({b for b, _ in floor.layout.hall_slots})


def test_100k_gpus_take_two_halls_and_hold():
    """12,500 nodes → 3,125 compute racks in 313 rows + 2 infrastructure rows = 315, 938 spine-row racks → 73 spine
    rows of 13: one hall of them runs past 100 m, two of ⌈315 ÷ 2⌉ = 158 rows and ⌈73 ÷ 2⌉ = 37 spine rows hold;
    the runs between the halls (leaf–spine, spine–core: the spines are dealt out in order, not by pod) stay within
    single-mode fibre's 500 m."""
    floor, table = _floor(validate({"gpu_count": 100_000}))
    ends = [floor.layout.hall_of(*rack_of_key_arrays(k)) for k in (table.a_rack, table.z_rack)]
    between = ends[0] != ends[1]
    assert np.array_equal(_between_halls(table, floor.layout), between)  # its per-span grids: hall_of rack by rack
    # the trunks' halls by switch (each stands in one rack): the same as row by row, for every row between switches
    trunks = np.flatnonzero((table.a_dev != NO_DEVICE) & (table.z_dev != NO_DEVICE))
    assert table.one_rack_a_switch and trunks.size > 100_000
    assert np.array_equal(_long_between_halls(table, trunks, floor.layout), between[trunks])
    nic_rows = np.flatnonzero(table.a_dev == NO_DEVICE)[:500]  # a row with a NIC end: row by row
    assert np.array_equal(_long_between_halls(table, nic_rows, floor.layout), between[nic_rows])
    assert between.any() and table.length_m[between].max() <= 500 and table.length_m[~between].max() <= 100
    assert floor.racks.derivations["hall"].startswith("one block would run 1,321.2 m > 100 m, so 2 halls side by side")
    assert len(floor.layout.hall_starts) == 1
    assert cable_reach_checks(table, floor.layout) == []


@pytest.mark.parametrize("within_m, between_m", [(40.0, 150.0), (100.0, 60.0), (30.0, 500.0)])
def test_reach_checks_from_the_link_classes_are_those_of_every_row(within_m, between_m):
    """The checks are made from the BOM's link classes, with the rows that run between halls apart, their halls read
    only for runs past the shorter limit. Against the rule row by row — every row's own hall pair (hall_of), every
    row a class entry — on the 100k two-hall floor with limits tightened until links fail within a hall and between
    halls (between-hall runs here are 30–200 m), a between-hall limit shorter than the within-hall one, and one no
    run reaches."""
    from dataclasses import replace

    floor, table = _floor(validate({"gpu_count": 100_000}))
    layout = replace(floor.layout, max_run_m=within_m, between_halls_max_run_m=between_m)
    ends = [layout.hall_of(*rack_of_key_arrays(k)) for k in (table.a_rack, table.z_rack)]
    between = ends[0] != ends[1]
    key = table.plane * len(table.segments) + table.segment
    rows = [
        (table.planes[k // len(table.segments)], table.segments[k % len(table.segments)], table.length_m[key == k],
         table.weight[key == k], between[key == k])
        for k in np.unique(key).tolist()
    ]  # fmt: skip
    expected = reach_checks(rows, within_m, between_m)
    assert len(expected) >= 2 and expected == cable_reach_checks(table, layout)
    assert any("between halls" in c["message"] for c in expected) == (between_m < 200)


def test_the_hall_drawing_escapes_and_counts_every_rack():
    """Every rack of the 24k example drawn once (the rows' racks by role add up to the rack plan's), and text from
    anywhere escaped. 2,353 racks: the 2,381 of before less the 28 storage spines the sized last pod drops."""
    floor, _ = _floor(validate(load_requirements_file(EXAMPLES / "roce-24k-pods-1to7.yaml")))
    hall = floor.racks.to_dict()["hall"]
    assert sum(n for row in hall["rows"] for _, n in row["racks"]) == floor.racks.rack_count == 2353
    svg = hall_svg(hall)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count('<g class="row"') == len(hall["rows"])
    assert "Hall plan: 2,353 racks in " in svg
    evil = {**hall, "derivation": "<script>alert(1)</script>", "rows": hall["rows"][:1]}
    drawn = hall_svg(evil)
    assert "<script>" not in drawn and "&lt;script&gt;" in drawn
    assert hall_svg(None) == "" and hall_svg({}) == ""


def test_the_superpod_rules_by_hand():
    """One SU a row: 32 nodes ÷ 4 a rack = 8 racks (≤ 10 asked); 32 ÷ 5 does not divide, 8 > 6 does not fit.
    Bare switches packed in order: 16 + 8 of 1U and 2 of 2U fit 26 to a 42U rack (28U); 2U switches in a 5U
    rack go 2 to a rack (4U; 3 would need 6U)."""
    assert su_row_racks(32, 4, 10) == 8
    assert su_row_racks(32, 5, 10) is None and su_row_racks(32, 4, 6) is None and su_row_racks(None, 4, 10) is None
    assert bare_switches_per_rack(42, [1] * 24 + [2] * 2) == 26
    assert bare_switches_per_rack(5, [2, 2, 2]) == 2


def test_rack_keys_round_trip_through_the_array_form():
    """rack_of_key_arrays is rack_of_key over arrays (a shift and a mask for the power-of-two radix): every rack
    of the spine row (−1) and of rows 0…3, columns 0, 1 and 2^24 − 1 (the widest), back to its (row, column)."""
    racks = [(r, c) for r in (-1, 0, 1, 3) for c in (0, 1, 2**24 - 1)]
    keys = np.array([rack_key(r, c) for r, c in racks], dtype=np.int64)
    rows, cols = rack_of_key_arrays(keys)
    assert list(zip(rows.tolist(), cols.tolist(), strict=True)) == racks == [rack_of_key(int(k)) for k in keys]


def test_a_remembered_floor_keeps_its_hall_as_text_and_gives_each_caller_the_whole_hall():
    """floor_plan remembers a floor by its inputs (bom.plan.FLOORS) with the hall map as JSON text only — its rows
    are lists and dicts the garbage collector would scan on every full collection, 32 floors kept — and each
    caller, the first and a remembered one, gets the whole hall, its own copy."""
    import bom.plan as plan_mod

    plan_mod.FLOORS.clear()
    r = validate(load_requirements_file(EXAMPLES / "seed-2000-gpu.yaml"))
    first, _ = _floor(r)
    again, _ = _floor(r)
    assert plan_mod.FLOORS.hits >= 1 and len(plan_mod.FLOORS.items) == 1
    (kept, text), *_ = [value for _catalog, value, _cost in plan_mod.FLOORS.items.values()]
    assert kept.racks.hall == {} and len(text) > 100
    assert first.racks.hall == again.racks.hall and len(again.racks.hall["rows"]) == 8 + 1  # 8 rows, the spine row
    again.racks.hall["rows"].clear()
    assert _floor(r)[0].racks.hall == first.racks.hall  # a caller's copy, not the remembered one
    for example in ("roce-24k-pods-1to7.yaml", "b300-spectrum-twin-plane-8su.yaml"):  # blocks of spine rows; twin
        r = validate(load_requirements_file(EXAMPLES / example))  # planes: the first caller's hall (made, not read
        first, _ = _floor(r)  # back from the text) is what the text gives every later one
        assert plan_mod.FLOORS.misses and _floor(r)[0].racks.hall == first.racks.hall and first.racks.hall["rows"]
    plan_mod.FLOORS.clear()
    first, _ = _floor(validate({"gpu_count": 100_000}))  # two halls
    assert first.racks.hall["halls"] == 2 and _floor(validate({"gpu_count": 100_000}))[0].racks.hall == first.racks.hall


def test_the_depth_search_reads_each_blocks_end_slots_and_gets_the_same_runs_to_the_bit():
    """hall_layout tries every depth of every hall count (≈ 40 halls of hundreds of rows at 100k GPUs: 11 ms of a
    cold keystroke when the floor gains a row): each depth's longest run comes from bom.layout._end_slots — per
    block, the shallowest and deepest of its spine rows and of its other rows, worked out without the slot list —
    and is the plain rule's over every slot of hall_slots to the bit, over shapes with and without spine rows,
    partial last blocks, shallow holes and rows wider than a block; the end slots are slots of the hall."""
    from bom.layout import _end_slots, _hall_shape, _worst_to_spine_m

    layouts = [RackLayout(), RackLayout(racks_per_row=14, rack_width_m=0.6, row_pitch_m=2.4, aisle_m=1.8)]
    for spine_rows in (0, 1, 3, 7, 12):
        for row_count in (1, 2, 5, 17, 60, 161):
            for depth in (2, 3, 5, 9, 23):
                shape = _hall_shape(spine_rows, row_count, depth)
                every = hall_slots(*shape, depth, spine_rows, row_count)
                ends, spine = _end_slots(*shape, depth, spine_rows, row_count)
                assert {x for x, sp in zip(ends, spine) if sp} <= set(every[:spine_rows])
                assert {x for x, sp in zip(ends, spine) if not sp} <= set(every[spine_rows:])
                for layout in layouts:
                    for width in (4, 11, 16):
                        plain = _worst_to_spine_m(every, None, spine_rows, width, layout)
                        assert _worst_to_spine_m(ends, spine, spine_rows, width, layout) == plain
    ends, _spine = _end_slots(*_hall_shape(3, 161, 23), 23, 3, 161)
    # 7 blocks of rows two ends each (4 left, 3 right of 161 − 1 rows, 23 deep), the middle block's front row, and
    # its 3 spine rows' two ends: 17 slots, not 164
    assert len(ends) == 17 and sum(spine) == 2


def test_every_depth_at_once_is_each_depths_own_run_to_the_bit():
    """bom.layout._runs_by_depth works every depth's longest run out in one numpy pass (the snake's blocks and the
    middle blocks' spine rows of all depths as flat arrays): each the plain rule's over every slot of that depth's
    hall_slots, to the bit — with one spine row and many, rows that fill their blocks and rows that stop part way,
    halls shallower than their spine rows need, rows wider than a block."""
    from bom.layout import _deepest, _hall_shape, _runs_by_depth, _worst_to_spine_m

    layouts = [RackLayout(), RackLayout(racks_per_row=14, rack_width_m=0.6, row_pitch_m=2.4, aisle_m=1.8)]
    for spine_rows in (1, 2, 3, 7, 12, 40):
        for row_count in (1, 2, 5, 17, 60, 161, 330):
            for layout in layouts:
                depths = np.arange(2, min(row_count + spine_rows, _deepest(layout)) + 2)
                for width in (4, 11, 16):
                    runs = _runs_by_depth(layout, spine_rows, row_count, width, depths)
                    for d, run in zip(depths.tolist(), runs.tolist(), strict=True):
                        every = hall_slots(*_hall_shape(spine_rows, row_count, d), d, spine_rows, row_count)
                        plain = _worst_to_spine_m(every, None, spine_rows, width, layout)
                        assert run == plain, (spine_rows, row_count, d)


def test_a_100k_hall_is_the_one_its_rule_gives():
    """The hall of the 100k default's floor (≈ 330 rows 13 racks wide, 50 spine-row racks) by the plain rule — the
    best depth over every hall count from the full slot lists — is the one hall_layout picks."""
    from bom.layout import MAX_HALLS, _deepest, _hall_shape, _worst_to_spine_m

    layout = RackLayout()
    for row_count, width, spine_racks in ((330, 13, 50), (641, 12, 101)):
        hall, text = hall_layout(layout, row_count, width, spine_racks)
        spine_rows = -(-spine_racks // width)
        for halls in range(1, MAX_HALLS + 1):
            rows, spines = -(-row_count // halls), -(-spine_rows // halls)
            runs = []
            for d in range(2, min(rows + spines, _deepest(layout)) + 2):
                every = hall_slots(*_hall_shape(spines, rows, d), d, spines, rows)
                runs.append((_worst_to_spine_m(every, None, spines, width, layout), d))
            run, depth = min(runs)
            if run <= layout.max_run_m + 1e-9:
                break
        assert 1 + len(hall.hall_starts) == halls
        assert f"up to {depth} rows" in text and f"run {run:,.1f} m" in text
