"""Sweep grids: the cross product of fabrics × collectives × message sizes × algorithms.

A point's index is its position in that product (C order: fabric slowest, algorithm
fastest), so a chunk is just an index range and any worker can rebuild its points from
the sweep's spec — nothing but two integers travels in a task.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from topology.collectives import (
    NCCL_ALGORITHMS,
    Algorithm,
    Collective,
    Fabric,
    bandwidths_gbyte_s,
    collective_cost,
)

AUTO = "auto"
MAX_POINTS = 20_000_000


def sizes_bytes(min_bytes: int, max_bytes: int, factor: float = 2.0) -> list[int]:
    """Message sizes min, min·f, min·f², … ≤ max (nccl-tests -b/-e/-f)."""
    if min_bytes < 1 or max_bytes < min_bytes or factor <= 1:
        raise ValueError("need 1 ≤ min ≤ max and factor > 1")
    out, s = [], float(min_bytes)
    while s <= max_bytes * (1 + 1e-12):
        out.append(round(s))
        s *= factor
    return out


@dataclass(frozen=True)
class SweepGrid:
    fabrics: tuple[Mapping[str, Any], ...]  # Fabric keyword dicts (JSON-safe)
    collectives: tuple[str, ...]
    sizes_bytes: tuple[int, ...]
    algorithms: tuple[str, ...] = (AUTO,)

    def __post_init__(self) -> None:
        if not self.fabrics or not self.collectives or not self.sizes_bytes or not self.algorithms:
            raise ValueError("a sweep needs at least one fabric, collective, size and algorithm")
        for c in self.collectives:
            Collective(c)
        for a in self.algorithms:
            if a != AUTO:
                Algorithm(a)
        if self.point_count > MAX_POINTS:
            raise ValueError(f"{self.point_count:,} points is more than the {MAX_POINTS:,} a sweep may have")

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (len(self.fabrics), len(self.collectives), len(self.sizes_bytes), len(self.algorithms))

    @property
    def point_count(self) -> int:
        return math.prod(self.shape)

    def chunks(self, chunk_points: int) -> list[tuple[int, int]]:
        n = self.point_count
        return [(start, min(start + chunk_points, n)) for start in range(0, n, chunk_points)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "fabrics": [dict(f) for f in self.fabrics],
            "collectives": list(self.collectives),
            "sizes_bytes": list(self.sizes_bytes),
            "algorithms": list(self.algorithms),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SweepGrid:
        return cls(
            tuple(d["fabrics"]), tuple(d["collectives"]), tuple(d["sizes_bytes"]), tuple(d.get("algorithms", (AUTO,)))
        )


@dataclass(frozen=True)
class ChunkResult:
    index: np.ndarray
    fabric_index: np.ndarray
    collective: np.ndarray
    size_bytes: np.ndarray
    requested: np.ndarray
    time_us: np.ndarray
    algbw_gbyte_s: np.ndarray
    busbw_gbyte_s: np.ndarray
    algorithm: np.ndarray
    protocol: np.ndarray

    def __len__(self) -> int:
        return int(self.index.size)


def evaluate_chunk(grid: SweepGrid, start: int, stop: int) -> ChunkResult:
    """Compute points [start, stop) of the grid, vectorised per (fabric, collective, algorithm)."""
    idx = np.arange(start, stop, dtype=np.int64)
    fi, ci, si, ai = np.unravel_index(idx, grid.shape)
    sizes = np.asarray(grid.sizes_bytes, dtype=float)
    n = idx.size
    time_us = np.empty(n)
    algbw = np.empty(n)
    busbw = np.empty(n)
    algo = np.empty(n, dtype=object)
    proto = np.empty(n, dtype=object)
    keys = fi * (len(grid.collectives) * len(grid.algorithms)) + ci * len(grid.algorithms) + ai
    for key in np.unique(keys):
        mask = keys == key
        f = int(fi[mask][0])
        c = grid.collectives[int(ci[mask][0])]
        a = grid.algorithms[int(ai[mask][0])]
        algorithms = None if a == AUTO else (Algorithm(a),)
        if algorithms is None and Collective(c) != Collective.ALL_TO_ALL:
            algorithms = NCCL_ALGORITHMS
        fabric = Fabric.from_dict(dict(grid.fabrics[f]))
        cost = collective_cost(Collective(c), sizes[si[mask]], fabric, algorithms=algorithms)
        time_us[mask] = cost.time_us
        algbw[mask] = cost.algbw_gbyte_s
        busbw[mask] = cost.busbw_gbyte_s
        algo[mask] = cost.algorithm
        proto[mask] = cost.protocol
    return ChunkResult(
        index=idx,
        fabric_index=fi,
        collective=np.asarray(grid.collectives, dtype=object)[ci],
        size_bytes=sizes[si].astype(np.int64),
        requested=np.asarray(grid.algorithms, dtype=object)[ai],
        time_us=time_us,
        algbw_gbyte_s=algbw,
        busbw_gbyte_s=busbw,
        algorithm=algo,
        protocol=proto,
    )


def evaluate_chunk_scalar(grid: SweepGrid, start: int, stop: int) -> list[dict[str, Any]]:
    """The same points with the scalar oracle (for benchmarks and tests)."""
    from topology.collectives import scalar_cost

    out = []
    for i in range(start, stop):
        f, c, s, a = np.unravel_index(i, grid.shape)
        alg = grid.algorithms[a]
        algorithms = None if alg == AUTO else (Algorithm(alg),)
        out.append(
            scalar_cost(grid.collectives[c], float(grid.sizes_bytes[s]), dict(grid.fabrics[f]), algorithms=algorithms)
        )
    return out


def product_of(values: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the varied parameters, in a stable order."""
    combos: list[dict[str, Any]] = [{}]
    for name, options in values.items():
        combos = [{**c, name: v} for c in combos for v in options]
    return combos


# --- column-wise storage of a chunk's results -----------------------------------------------
# A chunk's points are stored as one compressed blob of columns, not one row per point: the
# grid coordinates (fabric, collective, size, requested algorithm) follow from the index and are
# never stored; what the model computed is. Format "SWC2": magic, then zlib(level 1) of an .npy
# archive (np.savez, allow_pickle=False on read) holding time_us (float64, exactly as computed),
# algorithm/protocol as uint8 codes plus their names, and the chunk's start/stop so a blob can be
# checked against the range it claims to hold. algbw and busbw are not stored: they follow from
# the time, the size and the rank count (collectives.bandwidths_gbyte_s, the formula the model
# itself uses, so they read back bit for bit) — a third of the bytes and of the compression work.
# "SWC1" blobs (time, algbw and busbw all stored) are still read.

CHUNK_MAGIC = b"SWC2"
CHUNK_MAGIC_V1 = b"SWC1"


def _codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels as uint8 codes into a sorted name list (a handful of names: no sort of the column)."""
    items = [str(v) for v in values.tolist()] if values.dtype != object else values.tolist()
    names = sorted(set(items))
    if len(names) > 256:  # codes 0 … 255
        raise ValueError(f"{len(names)} distinct labels do not fit a uint8 code")
    lookup = {name: i for i, name in enumerate(names)}
    codes = np.fromiter((lookup[v] for v in items), dtype=np.uint8, count=len(items))
    return np.asarray(names, dtype=str), codes


def pack_chunk(res: ChunkResult) -> bytes:
    """A chunk's computed columns as one compressed blob (see the format note above)."""
    import io
    import zlib

    start = int(res.index[0]) if len(res) else 0
    if len(res) and not np.array_equal(res.index, np.arange(start, start + len(res))):
        raise ValueError("a chunk holds one contiguous index range")
    alg_names, alg_codes = _codes(res.algorithm)
    proto_names, proto_codes = _codes(res.protocol)
    buf = io.BytesIO()
    np.savez(
        buf,
        range=np.array([start, start + len(res)], dtype=np.int64),
        time_us=res.time_us.astype(np.float64),
        algorithm_names=alg_names,
        algorithm=alg_codes,
        protocol_names=proto_names,
        protocol=proto_codes,
    )
    return CHUNK_MAGIC + zlib.compress(buf.getvalue(), 1)


def unpack_chunk(grid: SweepGrid, blob: bytes) -> ChunkResult:
    """The stored columns with the grid coordinates rebuilt from the index range."""
    import io
    import zlib

    blob = bytes(blob)
    if not blob.startswith((CHUNK_MAGIC, CHUNK_MAGIC_V1)):
        raise ValueError("not a stored sweep chunk (bad magic)")
    stored = ("time_us",) if blob.startswith(CHUNK_MAGIC) else ("time_us", "algbw_gbyte_s", "busbw_gbyte_s")
    with np.load(io.BytesIO(zlib.decompress(blob[len(CHUNK_MAGIC) :])), allow_pickle=False) as z:
        start, stop = (int(x) for x in z["range"])
        cols = {k: z[k] for k in stored}
        algorithm = z["algorithm_names"][z["algorithm"]].astype(object)
        protocol = z["protocol_names"][z["protocol"]].astype(object)
    if not 0 <= start <= stop <= grid.point_count or any(c.size != stop - start for c in cols.values()):
        raise ValueError(f"stored chunk [{start}, {stop}) does not fit the sweep's grid")
    idx = np.arange(start, stop, dtype=np.int64)
    fi, ci, si, ai = np.unravel_index(idx, grid.shape)
    sizes = np.asarray(grid.sizes_bytes, dtype=np.int64)[si]
    if len(stored) == 1:
        cols["algbw_gbyte_s"], cols["busbw_gbyte_s"] = _bandwidths(grid, fi, ci, sizes, cols["time_us"])
    return ChunkResult(
        index=idx,
        fabric_index=fi.astype(np.int64),
        collective=np.asarray(grid.collectives, dtype=object)[ci],
        size_bytes=sizes,
        requested=np.asarray(grid.algorithms, dtype=object)[ai],
        algorithm=algorithm,
        protocol=protocol,
        **cols,
    )


def _bandwidths(grid: SweepGrid, fi: np.ndarray, ci: np.ndarray, sizes: np.ndarray, time_us: np.ndarray):
    """algbw and busbw of stored times, per collective (its bus factor), from each point's size and rank count."""
    ranks = np.array([float(f["gpus_per_node"]) * float(f["node_count"]) for f in grid.fabrics])[fi]
    algbw, busbw = np.empty(time_us.size), np.empty(time_us.size)
    for k, name in enumerate(grid.collectives):
        m = ci == k
        algbw[m], busbw[m] = bandwidths_gbyte_s(Collective(name), sizes[m].astype(float), ranks[m], time_us[m])
    return algbw, busbw


def parse_size_bytes(value: Any) -> int | None:
    """A message size as a whole number of bytes, or None when it is not one.

    Accepts an integer, an integral float, digits, or a number with a unit:
    - B, or nothing: bytes;
    - one letter k, M, G, T (any case): binary, as nccl-tests reads -b/-e (src/common.cu
      parsesize, v2.19.6: "M=Mebibytes and G=Gibibytes"), so "16G" = 16·2^30;
    - KiB, MiB, GiB, TiB: binary (IEC), "16 GiB" = 17,179,869,184;
    - kB/KB, MB, GB, TB: decimal (SI), "16GB" = 16,000,000,000 — the parsed byte count is
      shown back, since nccl-tests would read "16GB" as 16 GiB (it looks at the first letter);
    - a lower-case b (bits) or any other unit is refused, and so is a fractional byte count."""
    import re
    from decimal import Decimal

    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if not isinstance(value, str) or len(value) > 40:
        return None
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:([kKmMgGtT])(i?)(B?)|(B?))\s*", value)
    if not m:
        return None
    number, letter, iec, b = Decimal(m.group(1)), m.group(2), m.group(3), m.group(4)
    if letter is None:
        scale = 1
    else:
        power = "kmgt".index(letter.lower()) + 1
        if iec and not b:  # "16Gi" is neither nccl-tests' nor IEC's spelling
            return None
        scale = 1000**power if b and not iec else 1024**power
    n = number * scale
    return int(n) if n == n.to_integral_value() else None
