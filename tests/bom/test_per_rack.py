"""bom.layout.per_rack: a function of (row, column) worked out once per rack and looked up equals the function
over every end — ends all behind the spine row, all in it, both, sparse and empty; plain floors and halls."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bom.layout import RackLayout, hall_layout, per_rack

PLAIN = RackLayout()
HALL = hall_layout(RackLayout(), 315, 13, 938)[0]  # two halls of blocks (tests/bom/test_layout_hall.py)


def _same(layout: RackLayout, row: np.ndarray, col: np.ndarray) -> None:
    got = per_rack(layout.position_m, row, col)
    want = layout.position_m(row, col)
    assert len(got) == 2
    for g, w in zip(got, want, strict=True):
        assert g.shape == row.shape and np.array_equal(g, np.broadcast_to(w, row.shape))


@settings(max_examples=150, deadline=None)
@given(
    ends=st.lists(st.tuples(st.integers(-1, 40), st.integers(0, 60)), max_size=80),
    spread=st.sampled_from([1, 50, 5_000]),  # 5,000: a box far larger than the ends, worked out end by end
    hall=st.booleans(),
)
def test_per_rack_equals_the_function_end_by_end(ends, spread, hall):
    layout = HALL if hall else PLAIN
    row = np.array([r for r, _ in ends], dtype=np.int64)
    col = np.array([c * spread for _, c in ends], dtype=np.int64)
    _same(layout, row, col)


def test_one_box_and_two():
    """Ends all behind the spine row (a chunk of NIC links), all in it, and both: the same values either way."""
    rng = np.random.default_rng(7)
    behind = (rng.integers(0, 30, 500), rng.integers(0, 40, 500))
    spine = (np.full(300, -1), rng.integers(0, 900, 300))
    both = (np.concatenate([behind[0], spine[0]]), np.concatenate([behind[1], spine[1]]))
    for layout in (PLAIN, HALL):
        for row, col in (behind, spine, both):
            _same(layout, np.asarray(row, dtype=np.int64), np.asarray(col, dtype=np.int64))
    empty = per_rack(PLAIN.position_m, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    assert [v.size for v in empty] == [0, 0]
