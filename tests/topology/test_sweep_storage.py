"""Column-wise chunk storage and message-size parsing (topology/sweep.py)."""

from __future__ import annotations

import numpy as np
import pytest

from topology.sweep import SweepGrid, evaluate_chunk, pack_chunk, parse_size_bytes, sizes_bytes, unpack_chunk

FABRIC = {"gpus_per_node": 8, "node_count": 16, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 400.0}
GRID = SweepGrid(
    (FABRIC, {**FABRIC, "node_count": 64, "oversubscription": 2.0}),
    ("all_reduce", "all_to_all", "broadcast"),
    tuple(sizes_bytes(1, 2**34, 4)),
    ("auto", "ring", "tree"),
)


@pytest.mark.parametrize(("start", "stop"), [(0, GRID.point_count), (7, 200), (199, 200), (50, 50)])
def test_a_packed_chunk_reads_back_exactly(start, stop):
    res = evaluate_chunk(GRID, start, stop)
    back = unpack_chunk(GRID, pack_chunk(res))
    for name in res.__dataclass_fields__:
        a, b = getattr(res, name), getattr(back, name)
        assert a.shape == b.shape, name
        if a.dtype.kind == "f":  # bit for bit, infinities (an algorithm that cannot run) included
            assert np.array_equal(a.view(np.int64), b.view(np.int64)), name
        else:
            assert [str(x) for x in a] == [str(x) for x in b], name


def test_storage_is_compact_and_checked():
    res = evaluate_chunk(GRID, 0, GRID.point_count)
    blob = pack_chunk(res)
    assert len(blob) < 10 * len(res)  # one float64 (the time) + 2 uint8 codes a point, before compression
    with pytest.raises(ValueError, match="magic"):
        unpack_chunk(GRID, b"XXXX" + blob[4:])
    small = SweepGrid(GRID.fabrics[:1], GRID.collectives, GRID.sizes_bytes, GRID.algorithms)
    with pytest.raises(ValueError, match="does not fit"):
        unpack_chunk(small, blob)  # a blob from a bigger grid is refused, not misread


@pytest.mark.parametrize(
    ("text", "size_bytes"),
    [
        ("16 GiB", 16 * 2**30),
        ("16GiB", 16 * 2**30),
        ("16G", 16 * 2**30),  # nccl-tests -e 16G (src/common.cu parsesize: binary)
        ("16g", 16 * 2**30),
        ("16GB", 16 * 10**9),  # SI
        ("1.5K", 1536),
        ("128 MiB", 2**27),
        ("4 kB", 4000),
        ("8", 8),
        ("8 B", 8),
        (8, 8),
        (8.0, 8),
        ("1 TiB", 2**40),
    ],
)
def test_sizes_with_units_are_understood(text, size_bytes):
    assert parse_size_bytes(text) == size_bytes


@pytest.mark.parametrize("text", ["16Gb", "16Gi", "0.5", "2.5 B", "1e3", "", "lots", "-8", 8.5, True, None, "1" * 41])
def test_what_is_not_a_size_is_refused(text):
    assert parse_size_bytes(text) is None


def test_a_first_format_blob_still_reads():
    """Blobs stored before algbw/busbw were derived at read time ("SWC1": all three floats stored) read back as
    they were stored; the derived columns of the current format equal them bit for bit."""
    import io
    import zlib

    res = evaluate_chunk(GRID, 0, GRID.point_count)
    buf = io.BytesIO()
    names = {}
    for col in ("algorithm", "protocol"):
        labels = sorted({str(x) for x in getattr(res, col)})
        names[col] = (np.asarray(labels), np.array([labels.index(str(x)) for x in getattr(res, col)], dtype=np.uint8))
    np.savez(
        buf,
        range=np.array([0, len(res)], dtype=np.int64),
        time_us=res.time_us,
        algbw_gbyte_s=res.algbw_gbyte_s,
        busbw_gbyte_s=res.busbw_gbyte_s,
        algorithm_names=names["algorithm"][0],
        algorithm=names["algorithm"][1],
        protocol_names=names["protocol"][0],
        protocol=names["protocol"][1],
    )
    old = unpack_chunk(GRID, b"SWC1" + zlib.compress(buf.getvalue(), 1))
    new = unpack_chunk(GRID, pack_chunk(res))
    for name in ("time_us", "algbw_gbyte_s", "busbw_gbyte_s"):
        assert np.array_equal(getattr(old, name).view(np.int64), getattr(res, name).view(np.int64)), name
        assert np.array_equal(getattr(new, name).view(np.int64), getattr(old, name).view(np.int64)), name
    assert list(old.algorithm) == list(res.algorithm)
