"""Collective model speed (`make bench`): points per second per core, vectorised vs the scalar
oracle; and a 1M-point sweep's wall time with 1 and 2 real workers.

The sweep part needs PostgreSQL + Redis (the production setup); it is skipped, saying so,
when they do not answer.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from topology.collectives import Fabric  # noqa: E402
from topology.sweep import SweepGrid, evaluate_chunk, evaluate_chunk_scalar, sizes_bytes  # noqa: E402


def model_speed() -> None:
    fabrics = tuple(
        {
            "gpus_per_node": 8,
            "node_count": n,
            "nvlink_gbyte_s": 370.8,
            "nics_per_node": 8,
            "nic_gbps": 400.0,
            "sharp": True,
            "oversubscription": o,
            "pods": 8,
            "rail_optimized": True,
        }
        for n in (16, 64, 256, 1024)
        for o in (1.0, 2.0)
    )
    Fabric(**fabrics[0])
    grid = SweepGrid(fabrics, ("all_reduce", "all_gather", "all_to_all"), tuple(sizes_bytes(8, 2**34, 1.05)), ("auto",))
    t0 = time.perf_counter()
    res = evaluate_chunk(grid, 0, grid.point_count)
    vec_s = time.perf_counter() - t0
    n_scalar = min(3000, grid.point_count)
    t0 = time.perf_counter()
    evaluate_chunk_scalar(grid, 0, n_scalar)
    sc_s = time.perf_counter() - t0
    vec_rate, sc_rate = len(res) / vec_s, n_scalar / sc_s
    print("Collective model, one core")
    print(f"  vectorised: {len(res):,} points in {vec_s:.3f} s = {vec_rate:,.0f} points/s")
    print(f"  scalar oracle: {n_scalar:,} points in {sc_s:.3f} s = {sc_rate:,.0f} points/s")
    print(f"  ratio: {vec_rate / sc_rate:,.0f}×")


def golden_table() -> None:
    """The published-measurement comparison (tests/topology/test_collective_measurements.py) per size class."""
    from topology.measurements import class_errors, compare, held_out

    for title, rows in (
        ("bare model, nothing fitted", compare()),
        ("calibrated per curve on its other rows (leave-one-out)", held_out()),
    ):
        print(f"Collective model against published nccl-tests measurements — {title}")
        for c in class_errors(rows):
            print(f"  {c['size_class']:<16} {c['rows']:>3} rows  GM |error| {c['error_frac']:6.1%}  "
                  f"bias {c['bias_frac']:+6.1%}  worst {c['worst_frac']:5.0%}")  # fmt: skip


def services_up() -> bool:
    try:
        import psycopg
        import redis

        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=1).ping()
        psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", connect_timeout=2).close()
        return True
    except Exception:
        return False


def sweep_wall_time() -> None:
    """A ~1 M-point sweep end to end, each setup in its own process (benchmarks/sweep_e2e.py)."""
    import json

    setups = [("embedded", 1), ("embedded", 2)]
    if services_up():
        setups += [("services", 1), ("services", 2)]
    print("\n1M-point sweep end to end (create → every chunk stored), beside the bare model on the same grid")
    results: dict[tuple[str, int], dict] = {}
    for setup, workers in setups:
        out = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "sweep_e2e.py"), setup, str(workers)],
            cwd=ROOT, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        for line in out.stdout.splitlines():
            if line.startswith("RESULT "):
                results[(setup, workers)] = json.loads(line.removeprefix("RESULT "))
            else:
                print(line)
        if out.returncode:
            print(f"  {setup} {workers} worker(s): failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    for setup in ("embedded", "services"):
        one, two = results.get((setup, 1)), results.get((setup, 2))
        if one and two:
            print(
                f"  {setup}: one worker {one['rate'] / one['model_rate']:.0%} of the bare model (goal ≥ 25 %); "
                f"two workers {two['rate'] / one['rate']:.2f}× one (goal ≥ 1.8×; {os.cpu_count()} cores here)"
            )
    if not services_up():
        print("  PostgreSQL + Redis: skipped (needs them on 127.0.0.1, as in production)")


if __name__ == "__main__":
    golden_table()
    model_speed()
    sweep_wall_time()
