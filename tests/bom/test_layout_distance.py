"""RackLayout.distance_m (one pair, plain Python: the cut sheet asks it twice per cable) gives the very floats
of distances_m (numpy, the link table's), in a hall of blocks, for spine-row and compute-row racks alike."""

from __future__ import annotations

import itertools

from bom.layout import RackLayout, hall_slots

HALL = RackLayout(
    hall_slots=tuple(hall_slots(2, 3, 2, 4, 2, 9)),  # 2 spine rows then 9 rows, 4 deep, in blocks left/middle/right
    spine_rows=2,
    slot_racks=12,
    rack_width_m=0.6,
    row_pitch_m=2.4,
)


def test_one_pair_is_the_array_path_to_the_bit():
    assert len(HALL.hall_slots) == 11
    racks = [(row, col) for row in range(-1, 13) for col in (0, 1, 5, 11, 12, 13, 23, 30)]  # rows past the plan too
    for a, b in itertools.product(racks, racks[::3]):
        one = HALL.distance_m(a, b)
        arrays = float(HALL.distances_m(a[0], a[1], b[0], b[1]))
        assert one == arrays, (a, b, one, arrays)


def test_a_hall_is_not_one_block():
    """The hall path is taken (a row in the next block is further than the one-block formula says)."""
    flat = RackLayout(rack_width_m=0.6, row_pitch_m=2.4)
    assert HALL.distance_m((0, 0), (8, 0)) != flat.distance_m((0, 0), (8, 0))


def test_cable_lengths_looked_up_per_rack_are_each_links_own():
    """bom.link_table.cable_lengths_m works positions out once per rack of the box a chunk's racks span and looks
    them up per link: the same lengths as RackLayout.cable_length_m link by link — through the box (many links,
    few racks: a chunk of node–leaf links) and per link (a box with more racks than links), scalars broadcast."""
    import numpy as np

    from bom.link_table import cable_lengths_m

    rng = np.random.default_rng(7)
    for layout in (HALL, RackLayout(rack_width_m=0.6, row_pitch_m=2.4)):
        for n, rows, cols in ((5_000, (-1, 12), (0, 30)), (40, (-1, 400), (0, 900))):  # the box path, then per link
            ar, zr = rng.integers(*rows, n), rng.integers(*rows, n)
            ac, zc = rng.integers(*cols, n), rng.integers(*cols, n)
            want = [layout.cable_length_m(a, z) for a, z in zip(zip(ar, ac), zip(zr, zc), strict=True)]
            assert cable_lengths_m(layout, ar, ac, zr, zc).tolist() == want
        spine = cable_lengths_m(layout, ar, ac, -1, 3)  # every link to one spine-row rack
        assert spine.tolist() == [layout.cable_length_m((a, c), (-1, 3)) for a, c in zip(ar, ac, strict=True)]


def test_cable_lengths_by_the_metre_are_the_standard_lengths():
    """cable_lengths_m looks a length up in a table a whole metre a row: the same as bom.layout.standard_length_m's
    binary search for every needed length — whole metres (a length needed exactly is bought), a hair above and
    below them, between, zero, and past the longest standard length (⌈needed⌉)."""
    import numpy as np

    from bom.layout import STANDARD_LENGTHS_M, standard_length_m
    from bom.link_table import cable_lengths_m

    layout = RackLayout(slack_m=0.0)
    whole = np.arange(0, STANDARD_LENGTHS_M[-1] + 40, dtype=float)
    needed = np.concatenate([whole, whole + 1e-12, whole + 1e-6, whole - 1e-6, whole + 0.5, [0.3, 499.99, 500.01, 1e4]])
    needed = needed[needed >= 0]
    zero = np.zeros(needed.size)
    got = cable_lengths_m(layout, None, None, None, None, xy=(needed, zero, zero, zero))
    assert got.dtype == np.int64
    assert got.tolist() == [standard_length_m(x) for x in needed.tolist()]
    assert standard_length_m(500.01) == 501 and standard_length_m(5.0) == 5 and standard_length_m(5.000001) == 7
