"""The floor plan's rules by hand (bom/layout.py): positions, distances, standard lengths, names, rack capacity."""

from __future__ import annotations

import pytest

from bom.layout import (
    RackLayout,
    index_in_row,
    panels_for,
    rack_key,
    rack_name,
    rack_of_key,
    row_name,
    standard_length_m,
    switches_per_rack,
)


@pytest.fixture
def L() -> RackLayout:
    """The defaults: 4 nodes a rack, 10 racks a row, 0.6 m racks, 2.4 m rows, 3 m slack, 16 switches/leaves, 8
    servers (made in the test, not at collection: a mutant of RackLayout's defaults must see it)."""
    return RackLayout()


@pytest.mark.parametrize(
    ("needed", "bought"),
    [(0.5, 1), (1.0, 1), (1.001, 2), (4.9999999999, 5), (5.0, 5), (5.2, 7), (499.0, 500), (500.0, 500),
     (500.5, 501), (700.0, 700),
     # one need inside every step of the grid 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500 m
     (1.5, 2), (2.5, 3), (4.0, 5), (6.0, 7), (8.0, 10), (12.0, 15), (17.0, 20), (25.0, 30), (40.0, 50),
     (60.0, 70), (85.0, 100), (120.0, 150), (175.0, 200), (250.0, 300), (400.0, 500)],
)  # fmt: skip
def test_standard_lengths(needed, bought):
    """The next standard length at or above the need (exactly 1 m buys 1 m); past 500 m, whole metres. The grid is
    bom/layout.py's stock lengths; the part chooser then buys the shortest catalogue cable at least that long."""
    assert standard_length_m(needed) == bought


@pytest.mark.parametrize(
    "field", ["nodes_per_rack", "racks_per_row", "switches_per_network_rack", "leaves_per_network_rack",
              "storage_per_rack", "servers_per_rack"],
)  # fmt: skip
def test_every_count_is_at_least_one(field):
    with pytest.raises(ValueError, match=f"{field} must be at least 1"):
        RackLayout(**{field: 0})
    RackLayout(**{field: 1})


def test_lengths_must_be_positive_and_slack_may_be_zero():
    for field in ("rack_width_m", "row_pitch_m"):
        with pytest.raises(ValueError, match=f"{field} must be positive"):
            RackLayout(**{field: 0})
    with pytest.raises(ValueError, match="slack_m must be ≥ 0"):
        RackLayout(slack_m=-0.1)
    assert RackLayout(slack_m=0).cable_length_m((0, 0), (0, 0)) == 1  # 0 m still buys the shortest cable


def test_positions(L):
    """Node 39 is in rack 9 (4 a rack) = row 0, column 9; node 40 opens row 1. 40 nodes fill one row of 10 racks, 41
    need a second; no nodes still make a row. Each row has its own network racks (rows_per_network_group 1: row
    3's stand at (3, 10)); with rows_per_network_group 2, rows 2 and 3 share row 2's, (2, 10). The 16th leaf of
    row 2 stands in column 10 (its network rack), the 17th in column 11. Storage: 8 a rack from the
    infrastructure row; 80 fill a row. 9 storage servers take ⌈9 ÷ 8⌉ = 2 racks, the last holding 1 of 8: room
    for ⌊(1 − 1 ÷ 8) × 8⌋ = 7 management servers there (rack 1), the 8th opens rack 2, 8 a rack; 80 storage
    servers fill 10 racks, no room. Spine row −1, 16 switches a rack."""
    assert (L.node_position(39), L.node_position(40)) == ((0, 9), (1, 0))
    assert (L.compute_rows(0), L.compute_rows(40), L.compute_rows(41)) == (1, 1, 2)
    assert (L.row_network_rack(2), L.row_network_rack(3), L.row_network_rack(4)) == ((2, 10), (3, 10), (4, 10))
    paired = RackLayout(rows_per_network_group=2)
    assert (paired.row_network_rack(2), paired.row_network_rack(3), paired.row_network_rack(4)) == (
        (2, 10),
        (2, 10),
        (4, 10),
    )
    assert (L.leaf_rack(2, 15), L.leaf_rack(2, 16)) == ((2, 10), (2, 11))
    assert (L.storage_position(5, 7), L.storage_position(5, 8), L.storage_position(5, 80)) == ((5, 0), (5, 1), (6, 0))
    # servers 0–6 in the last storage rack (rack 1), 7–14 in rack 2, the 16th (index 15) opens rack 3
    assert tuple(L.server_position(5, 9, i) for i in (0, 6, 7, 14, 15)) == ((5, 1), (5, 1), (5, 2), (5, 2), (5, 3))
    assert RackLayout(management_in_storage_racks=False).server_position(5, 9, 0) == (5, 2)  # racks of their own
    assert L.server_position(5, 80, 8) == (6, 1)  # 10 storage racks fill row 5; server rack 11 is row 6, column 1
    assert (L.spine_row_rack(15), L.spine_row_rack(16)) == ((-1, 0), (-1, 1))


def test_distances_and_cable_lengths(L):
    """(0, 0) to (2, 3): 2 rows × 2.4 m + 3 racks × 0.6 m = 6.6 m, + 3 m slack = 9.6 → a 10 m cable."""
    assert L.distance_m((0, 0), (2, 3)) == pytest.approx(6.6)
    assert L.cable_length_m((0, 0), (2, 3)) == 10
    assert L.cable_length_m((2, 3), (0, 0)) == 10
    assert [RackLayout.rack_distance((0, 1), b) for b in [(0, 1), (0, 2), (0, 0), (1, 1), (0, 3)]] == [0, 1, 1, 2, 2]


def test_rack_keys_and_names():
    """Rows from −1: (−1, 0) is key 0, (0, 5) is 2²⁴ + 5; names count from 1, the spine row is N."""
    assert (rack_key(-1, 0), rack_key(0, 5)) == (0, 2**24 + 5)
    assert (rack_of_key(0), rack_of_key(2**24 + 5), rack_of_key(rack_key(7, 12))) == ((-1, 0), (0, 5), (7, 12))
    assert (row_name(-1), row_name(0), row_name(10)) == ("N", "01", "11")
    assert (rack_name((2, 10)), rack_name((-1, 1))) == ("R03-11", "RN-02")


def test_panels_and_switches_per_rack():
    """Panels: ⌈ends ÷ 24⌉ (0, 1, 2 for 0, 24, 25). A 42U rack of 1U switches with a 1U cable manager each and no
    trunks holds 21; with 32 trunk ports a switch: 12 × 2 + ⌈384 ÷ 24⌉ = 40 ≤ 42 but 13 × 2 + ⌈416 ÷ 24⌉ = 44 —
    12. A 2U switch in a 2U rack still counts as 1 (the elevation reports that it does not fit)."""
    assert (panels_for(0), panels_for(24), panels_for(25)) == (0, 1, 2)
    assert switches_per_rack(42, 1, 0) == 21
    assert switches_per_rack(42, 1, 32) == 12
    assert switches_per_rack(2, 2, 0) == 1


def test_index_in_row():
    """Items in rows [0, 1, 0, 1, 0]: each one's place in its row [0, 0, 1, 1, 2]; row 1 already holding 5: +5."""
    assert index_in_row([0, 1, 0, 1, 0]).tolist() == [0, 0, 1, 1, 2]
    assert index_in_row([0, 1, 0, 1, 0], {1: 5}).tolist() == [0, 5, 1, 6, 2]
