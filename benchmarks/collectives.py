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


def _fabrics() -> tuple[dict, ...]:
    return tuple(
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


def model_speed() -> None:
    fabrics = _fabrics()
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


ROUNDS = 3  # 1 worker, 2 workers, 1, 2, …: the machine's drift lands on both counts alike


def _model_pass(args: tuple[dict, int]) -> float:
    grid_dict, passes = args
    grid = SweepGrid.from_dict(grid_dict)
    t0 = time.perf_counter()
    for _ in range(passes):
        for a in range(0, grid.point_count, 50_000):
            evaluate_chunk(grid, a, min(a + 50_000, grid.point_count))
    return time.perf_counter() - t0


def cpu_scaling(rounds: int = 5) -> float:
    """This machine's own two-process ceiling: the bare model twice in one process vs once in
    each of two processes at the same time (no database, no broker). Median of `rounds`."""
    import multiprocessing
    import statistics

    sizes = tuple(sizes_bytes(8, 2**34, 1.0008))  # ≈ 645 k points: ≈ 0.3 s a pass, like the sweep's 1 M
    grid = SweepGrid(_fabrics(), ("all_reduce", "all_gather", "all_to_all"), sizes, ("auto",))
    gd = grid.to_dict()
    ratios = []
    with multiprocessing.get_context("fork").Pool(2) as pool:
        for _ in range(rounds):
            one = _model_pass((gd, 2))
            t0 = time.perf_counter()
            pool.map(_model_pass, [(gd, 1), (gd, 1)])
            ratios.append(one / (time.perf_counter() - t0))
    print(
        f"  this machine, bare model only: two processes {statistics.median(ratios):.2f}× one "
        f"(median of {rounds}; each {min(ratios):.2f}–{max(ratios):.2f}×; {os.cpu_count()} cores)"
    )
    return statistics.median(ratios)


def sweep_wall_time() -> None:
    """A ~1 M-point sweep end to end, each setup in its own process (benchmarks/sweep_e2e.py),
    1 and 2 workers interleaved for ROUNDS rounds; the figures are medians over the rounds."""
    import json
    import statistics

    setups = ["embedded"] + (["services"] if services_up() else [])
    print("\n1M-point sweep end to end (create → every chunk stored), beside the bare model on the same grid")
    cpu_scaling()
    results: dict[tuple[str, int], list[dict]] = {}
    for setup in setups:
        for _ in range(ROUNDS):
            for workers in (1, 2):
                out = subprocess.run(
                    [sys.executable, str(ROOT / "benchmarks" / "sweep_e2e.py"), setup, str(workers)],
                    cwd=ROOT, capture_output=True, text=True, timeout=900,
                )  # fmt: skip
                for line in out.stdout.splitlines():
                    if line.startswith("RESULT "):
                        results.setdefault((setup, workers), []).append(json.loads(line.removeprefix("RESULT ")))
                    else:
                        print(line)
                if out.returncode:
                    print(f"  {setup} {workers} worker(s): failed ({out.returncode}): {out.stderr.strip()[-400:]}")
    for setup in setups:
        one, two = results.get((setup, 1), []), results.get((setup, 2), [])
        if one and two:
            share = statistics.median(r["rate"] / r["model_rate"] for r in one)
            rate1, rate2 = statistics.median(r["rate"] for r in one), statistics.median(r["rate"] for r in two)
            pairs = [b["rate"] / a["rate"] for a, b in zip(one, two, strict=False)]
            shares = ", ".join(f"{r['rate'] / r['model_rate']:.0%}" for r in one)
            print(
                f"  {setup}: one worker {share:.0%} of the bare model (goal ≥ 25 %; rounds {shares}); "
                f"two workers {rate2 / rate1:.2f}× one "
                f"(goal ≥ 1.8×; medians of {len(one)} and {len(two)} runs of 3; per round "
                f"{', '.join(f'{x:.2f}×' for x in pairs)})"
            )
    if not services_up():
        print("  PostgreSQL + Redis: skipped (needs them on 127.0.0.1, as in production)")


if __name__ == "__main__":
    golden_table()
    model_speed()
    sweep_wall_time()
