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

from topology.collectives import NCCL_ALGORITHMS, Algorithm, Collective, Fabric, collective_cost

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
