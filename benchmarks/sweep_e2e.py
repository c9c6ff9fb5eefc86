"""One end-to-end sweep benchmark run (called by benchmarks/collectives.py, once per setup).

    python benchmarks/sweep_e2e.py embedded 1     # SQLite + the filesystem broker (the defaults)
    python benchmarks/sweep_e2e.py services 2     # PostgreSQL + Redis, two worker processes

Creates a fresh database, a design and a ~1 M-point sweep; starts N real Celery workers
(one process each); measures the wall time from "create" to "every chunk stored"; then the
bare model time on the very same grid in this process (topology.sweep.evaluate_chunk over all
points, no storage), and prints both on one line so the ratio is measured, not remembered.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPEC = {
    "collectives": ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"],
    "algorithms": ["auto", "ring"],
    "min_bytes": 1,
    "max_bytes": "16 GiB",
    "factor": 1.017,
    "vary": {
        "node_count": [8, 16, 32, 48, 64, 96, 128, 192, 250],
        "oversubscription": [1, 1.5, 2, 3],
        "nic_gbps": [200, 400],
    },
}
REPEATS = 3
RESULT: dict = {}


def environment(setup: str) -> dict[str, str]:
    var = tempfile.mkdtemp(prefix=f"bench-sweep-{setup}-")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "designer.settings", "SECRET_KEY": "bench", "DEBUG": "0",
           "VAR_DIR": var}  # fmt: skip
    for key in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        env.pop(key, None)
    if setup == "services":
        db = "designer_bench"
        subprocess.run(
            ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True
        )
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"CREATE DATABASE {db}"], check=True)
        subprocess.run(["redis-cli", "-n", "13", "flushdb"], check=True, stdout=subprocess.DEVNULL)
        env |= {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{db}",
            "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13",
            "CELERY_RESULT_BACKEND": "redis://127.0.0.1:6379/12",
        }
    return env


def start_workers(env: dict[str, str], n: int) -> list[subprocess.Popen]:
    cmd = [sys.executable, "-m", "celery", "-A", "designer", "worker", "--concurrency", "1", "--loglevel", "WARNING"]
    return [
        subprocess.Popen(
            [*cmd, "--hostname", f"bench{i}@%h"],
            cwd=ROOT,
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(n)
    ]


def timeline(sweep, wall0: float, create_s: float, wall_s: float) -> dict[str, float]:
    """Where one run's wall time went, from the chunks' own timestamps (claim = lease end − lease).

    create: validating, planning and enqueueing (create_sweep returns; a worker may already have
    claimed a chunk by then); first claim: from the clock's start; busy: the workers' summed
    claim → finished time (the rest of their time is fetching the next message and idling); tail:
    from the last chunk's finish to the bench seeing the sweep done (its 0.05 s poll included)."""
    from django.conf import settings

    chunks = list(sweep.chunks.values_list("lease_until", "finished_at", "worker"))
    claims = [lease.timestamp() - settings.SWEEP_LEASE_S for lease, _, _ in chunks]
    finishes = [fin.timestamp() for _, fin, _ in chunks]
    return {
        "create_s": create_s,
        "first_claim_s": min(claims) - wall0,
        "busy_s": sum(f - c for c, f in zip(claims, finishes, strict=True)),
        "tail_s": wall0 + wall_s - max(finishes),
        "workers_seen": len({w for _, _, w in chunks}),
    }


def main(setup: str, workers: int) -> None:
    env = environment(setup)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    os.environ.update(env)
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from designer.models import Sweep, SweepChunkResult
    from designer.requirements import validate_flat
    from designer.services import create_design, evaluate_flat
    from designer.sweeps import create_sweep, resolve_spec
    from topology.sweep import evaluate_chunk

    user, _ = get_user_model().objects.get_or_create(username="bench")
    r = validate_flat({"gpu_count": 2048})
    design = create_design(user, r, evaluate_flat(r))
    procs = start_workers(env, workers)
    runs: list[tuple[float, float, Sweep]] = []
    timelines: list[dict[str, float]] = []
    try:
        from designer.celery import app

        deadline = time.time() + 60
        while len(app.control.ping(timeout=1.0) or []) < workers:  # every worker consuming before the clock starts
            if time.time() > deadline:
                raise SystemExit(f"{setup}: the workers did not answer a ping in 60 s")
        for _ in range(REPEATS):
            t0, wall0 = time.perf_counter(), time.time()
            sweep = create_sweep(user, design.head, SPEC)
            create_s = time.perf_counter() - t0
            while Sweep.objects.get(pk=sweep.pk).status not in ("done", "failed", "cancelled"):
                time.sleep(0.05)
            wall_s = time.perf_counter() - t0
            runs.append((wall_s, create_s, Sweep.objects.get(pk=sweep.pk)))
            timelines.append(timeline(sweep, wall0, create_s, wall_s))
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            p.wait(timeout=60)
    grid, _, _ = resolve_spec(design.head.requirements(), SPEC)
    chunk = runs[0][2].chunk_points
    model_s = float("inf")
    for _ in range(REPEATS):  # best of n: the bare model's speed, not this machine's noise
        t0 = time.perf_counter()
        for a in range(0, grid.point_count, chunk):
            evaluate_chunk(grid, a, min(a + chunk, grid.point_count))
        model_s = min(model_s, time.perf_counter() - t0)
    walls = sorted(w for w, _, _ in runs)
    median_s, best_s = walls[len(walls) // 2], walls[0]
    s = runs[0][2]
    assert all(r[2].status == "done" and r[2].done_points == r[2].total_points for r in runs), [
        r[2].status for r in runs
    ]
    stored_mb = sum(SweepChunkResult.objects.filter(sweep=s).values_list("stored_bytes", flat=True)) / 1e6
    rate, model_rate = s.total_points / median_s, grid.point_count / model_s
    print(
        f"  {setup:<8} {workers} worker(s): {s.total_points:,} points, median of {REPEATS} {median_s:5.2f} s "
        f"(best {best_s:5.2f} s) = {rate:9,.0f} points/s; bare model {model_rate:9,.0f} points/s (one core) "
        f"→ end-to-end / model {rate / model_rate:5.1%}; {max(c for _, c, _ in runs):.2f} s of it validating and "
        f"planning {len(grid.fabrics)} variants; {stored_mb:.1f} MB stored in {s.chunks.count()} chunks"
    )
    t = timelines[[w for w, _, _ in runs].index(median_s)]
    print(
        f"    median run: create returned at {t['create_s']:.2f} s, first chunk claimed at {t['first_claim_s']:.2f} s, "
        f"workers busy {t['busy_s']:.2f} s in all ({t['busy_s'] / workers:.2f} s each if even; {t['workers_seen']} "
        f"took chunks), done seen {t['tail_s']:.2f} s after the last chunk"
    )
    RESULT.update(setup=setup, workers=workers, median_s=median_s, rate=rate, model_rate=model_rate, **t)
    if setup == "embedded":
        shutil.rmtree(env["VAR_DIR"], ignore_errors=True)


if __name__ == "__main__":
    import json

    main(sys.argv[1], int(sys.argv[2]))
    print("RESULT " + json.dumps(RESULT))
