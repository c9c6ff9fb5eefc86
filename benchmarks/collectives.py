"""Collective model speed (`make bench`): points per second per core, vectorised vs the scalar
oracle; and a 1M-point sweep's wall time with 1 and 2 real workers.

The sweep part needs PostgreSQL + Redis (the production setup); it is skipped, saying so,
when they do not answer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
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
    from topology.measurements import class_errors, compare

    print("Collective model against published nccl-tests measurements (no fitting)")
    for c in class_errors(compare()):
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
    if not services_up():
        print("\n1M-point sweep: skipped (needs PostgreSQL and Redis on 127.0.0.1, as in production)")
        return
    db = "designer_bench"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "designer.settings",
        "SECRET_KEY": "bench",
        "DEBUG": "0",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{db}",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13",
        "CELERY_RESULT_BACKEND": "redis://127.0.0.1:6379/12",
        "VAR_DIR": tempfile.mkdtemp(prefix="bench-sweep-"),
    }
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True)
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"CREATE DATABASE {db}"], check=True)
    subprocess.run(["redis-cli", "-n", "13", "flushdb"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    os.environ.update(env)
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from designer.models import Sweep
    from designer.requirements import validate_flat
    from designer.services import create_design, evaluate_flat
    from designer.sweeps import create_sweep

    user, _ = get_user_model().objects.get_or_create(username="bench")
    r = validate_flat({"gpu_count": 2048})
    design = create_design(user, r, evaluate_flat(r))
    spec = {
        "collectives": ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"],
        "algorithms": ["auto", "ring"],
        "min_bytes": 1,
        "max_bytes": 2**34,
        "factor": 1.017,
        "vary": {
            "node_count": [8, 16, 32, 48, 64, 96, 128, 192, 250],
            "oversubscription": [1, 1.5, 2, 3],
            "nic_gbps": [200, 400],
        },
    }
    print("\n1M-point sweep (PostgreSQL + Redis, chunks of 20,000 points)")
    for workers in (1, 2):
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "designer",
                    "worker",
                    "--concurrency",
                    "1",
                    "--hostname",
                    f"bench{i}@%h",
                    "--loglevel",
                    "WARNING",
                ],
                cwd=ROOT,
                env=env,
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for i in range(workers)
        ]
        time.sleep(3)
        t0 = time.perf_counter()
        sweep = create_sweep(user, design.head, spec, chunk_points=20000)
        while Sweep.objects.get(pk=sweep.pk).status not in ("done", "failed", "cancelled"):
            time.sleep(0.5)
        wall = time.perf_counter() - t0
        s = Sweep.objects.get(pk=sweep.pk)
        print(
            f"  {workers} worker(s): {s.total_points:,} points, {s.status}, {wall:.1f} s "
            f"= {s.total_points / wall:,.0f} points/s"
        )
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=30)


if __name__ == "__main__":
    golden_table()
    model_speed()
    sweep_wall_time()
