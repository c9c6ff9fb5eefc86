"""The sweep grid's sizes, bounds and chunks (topology/sweep.py), by hand."""

from __future__ import annotations

import pytest

from topology.sweep import MAX_POINTS, SweepGrid, sizes_bytes

FABRIC = {"gpus_per_node": 8, "node_count": 2, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 400.0}


def test_sizes_are_nccl_tests_steps_with_the_end_included():
    """-b 1 -e 1000 -f 10: 1, 10, 100, 1000 (the end is a size when a step lands on it, as in nccl-tests); one size
    when -b = -e; a factor just above 1 gives every byte while rounding keeps sizes whole."""
    assert sizes_bytes(1, 1000, 10) == [1, 10, 100, 1000]
    assert sizes_bytes(1, 999, 10) == [1, 10, 100]
    assert sizes_bytes(64, 64) == [64]
    assert sizes_bytes(8, 64) == [8, 16, 32, 64]  # the default factor is 2
    assert sizes_bytes(3, 3 * 1.1**5, 1.1) == [3, 3, 4, 4, 4, 5]  # 3 × 1.1^k rounded; the last step lands on the end


@pytest.mark.parametrize(("lo", "hi", "factor"), [(0, 10, 2), (10, 9, 2), (1, 10, 1.0), (1, 10, 0.5)])
def test_sizes_refuse_an_empty_or_endless_range(lo, hi, factor):
    with pytest.raises(ValueError, match="need 1 ≤ min ≤ max and factor > 1"):
        sizes_bytes(lo, hi, factor)


def test_a_sweep_may_have_exactly_the_point_limit():
    """1,000 fabrics × 5 collectives × 4,000 sizes = 20,000,000 points: allowed; 4,001 sizes: 20,005,000, refused."""
    assert MAX_POINTS == 20_000_000
    colls = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
    grid = SweepGrid((FABRIC,) * 1000, colls, tuple(range(1, 4001)))
    assert grid.point_count == 20_000_000 and grid.shape == (1000, 5, 4000, 1)
    with pytest.raises(ValueError) as exc:
        SweepGrid((FABRIC,) * 1000, colls, tuple(range(1, 4002)))
    assert str(exc.value) == "20,005,000 points is more than the 20,000,000 a sweep may have"


def test_chunks_cover_every_point_once():
    """3 sizes × 2 collectives × 2 algorithms = 12 points in chunks of 5: [0, 5), [5, 10), [10, 12)."""
    grid = SweepGrid((FABRIC,), ("all_reduce", "all_gather"), (1, 2, 4), ("auto", "ring"))
    assert grid.chunks(5) == [(0, 5), (5, 10), (10, 12)]
    assert grid.chunks(12) == [(0, 12)] and grid.chunks(100) == [(0, 12)]
    assert SweepGrid.from_dict(grid.to_dict()) == grid


@pytest.mark.parametrize(
    "bad",
    [
        {"fabrics": ()},
        {"collectives": ()},
        {"sizes_bytes": ()},
        {"algorithms": ()},
        {"collectives": ("all_sum",)},
        {"algorithms": ("spiral",)},
    ],
)
def test_a_grid_refuses_an_empty_axis_or_an_unknown_name(bad):
    args = {"fabrics": (FABRIC,), "collectives": ("all_reduce",), "sizes_bytes": (8,), "algorithms": ("auto",), **bad}
    with pytest.raises(ValueError):
        SweepGrid(**args)


def test_vectorised_points_match_the_scalar_oracle_with_more_collectives_than_algorithms():
    """5 collectives × 2 algorithms × 2 fabrics: every (fabric, collective, algorithm) group of points is
    evaluated apart (its key must not collide with another's) — each point equals the scalar oracle's."""
    from topology.sweep import evaluate_chunk, evaluate_chunk_scalar

    colls = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
    grid = SweepGrid((FABRIC, {**FABRIC, "node_count": 16}), colls, (8, 2**20, 2**30), ("auto", "ring"))
    res = evaluate_chunk(grid, 0, grid.point_count)
    oracle = evaluate_chunk_scalar(grid, 0, grid.point_count)
    assert [str(a) for a in res.algorithm] == [o["algorithm"] for o in oracle]
    assert res.time_us.tolist() == pytest.approx([o["time_us"] for o in oracle], rel=1e-9)


def test_labels_fit_a_byte_and_pickles_are_never_read():
    """256 distinct labels take codes 0–255; a 257th does not fit a byte. A stored blob holding Python objects
    (a pickle) is refused on read, not unpickled."""
    import io
    import zlib

    import numpy as np

    from topology.sweep import _codes, unpack_chunk

    names, codes = _codes(np.array([f"l{i:03d}" for i in range(256)], dtype=object))
    assert len(names) == 256 and codes.max() == 255
    with pytest.raises(ValueError, match="257 distinct labels do not fit a uint8 code"):
        _codes(np.array([f"l{i:03d}" for i in range(257)], dtype=object))
    grid = SweepGrid((FABRIC,), ("all_reduce",), (8,))
    buf = io.BytesIO()
    objects = np.array([{"x": 1}], dtype=object)
    code = np.zeros(1, np.uint8)
    np.savez(buf, range=np.array([0, 1]), time_us=np.array([1.0]), algorithm_names=objects, algorithm=code,
             protocol_names=np.array(["ll"]), protocol=code)  # fmt: skip
    with pytest.raises(ValueError, match="allow_pickle"):
        unpack_chunk(grid, b"SWC2" + zlib.compress(buf.getvalue()))


def test_a_size_of_forty_characters_is_read():
    from topology.sweep import parse_size_bytes

    assert parse_size_bytes("0" * 39 + "8") == 8 and parse_size_bytes("0" * 40 + "8") is None
