"""Production mode (PostgreSQL + Redis): kill a worker mid-sweep; the sweep still completes exactly once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from designer.models import Sweep, SweepChunk, SweepChunkResult
from designer.sweeps import create_sweep, iter_results, sweep_progress
from tests.designer.conftest import make_design

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def start_worker(name: str) -> subprocess.Popen:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "designer.settings",
        "SECRET_KEY": "kill-test",
        "DEBUG": "0",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_RESULT_BACKEND": settings.CELERY_RESULT_BACKEND,
        "SWEEP_LEASE_S": str(settings.SWEEP_LEASE_S),
        "VAR_DIR": tempfile.mkdtemp(prefix=f"worker-{name}-"),
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "designer",
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            "1",
            "--hostname",
            f"{name}@%h",
            "--loglevel",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def test_killed_worker_mid_sweep_loses_and_duplicates_nothing(django_user_model, settings):
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert connection.vendor == "postgresql"
    settings.SWEEP_LEASE_S = 4
    user = django_user_model.objects.create_user("killer", password="x-long-pass-1")
    design = make_design(user)
    spec = {
        "collectives": ["all_reduce", "all_gather", "all_to_all"],
        "algorithms": ["auto", "ring"],
        "min_bytes": 1,
        "max_bytes": 2**34,
        "factor": 1.1,
        "vary": {"node_count": [8, 16, 32, 64, 128, 250], "oversubscription": [1, 1.5, 2, 3]},
    }
    a = start_worker("a")
    b = None
    try:
        sweep = create_sweep(user, design.head, spec, chunk_points=1500)
        total = sweep.total_points
        chunks = sweep.chunks.count()
        assert chunks >= 20
        deadline = time.time() + 120
        # kill it mid-sweep while it holds a chunk (running in the DB), not between two chunks: the worker is
        # frozen (SIGSTOP) before its leases are read, so what is read is what it holds when it dies — on a busy
        # machine it could otherwise finish the chunk between the look and the kill
        while True:
            while not (
                Sweep.objects.get(pk=sweep.pk).done_points >= total // 8
                and SweepChunk.objects.filter(sweep=sweep, status="running").exists()
            ):
                assert time.time() < deadline, "worker a never got going"
                time.sleep(0.01)
            os.killpg(a.pid, signal.SIGSTOP)
            # the leases the frozen worker holds: observed now, so the recovery below is proven on them, not
            # inferred from an attempt count a slow machine could also reach by an expired lease
            held = {
                c["pk"]: c["attempts"]
                for c in SweepChunk.objects.filter(sweep=sweep, status="running").values("pk", "attempts", "worker")
                if c["worker"].startswith("a@")
            }
            if held:
                break
            os.killpg(a.pid, signal.SIGCONT)  # between two chunks: let it take the next one
            assert time.time() < deadline, "worker a never held a chunk when looked at"
        kill(a)
        killed_at = Sweep.objects.get(pk=sweep.pk).done_points
        assert killed_at < total
        assert held, "worker a held no lease when it was killed"
        b = start_worker("b")
        deadline = time.time() + 240
        while True:
            p = sweep_progress(Sweep.objects.get(pk=sweep.pk))  # polling runs the reaper, as the page does
            if p["status"] == "done":
                break
            assert p["status"] == "running", p
            assert time.time() < deadline, p
            time.sleep(0.5)
    finally:
        kill(a)
        if b is not None:
            kill(b)
    sweep.refresh_from_db()
    assert sweep.done_points == total
    # one result row per chunk, and the stored columns hold every index exactly once
    assert SweepChunkResult.objects.filter(sweep=sweep).count() == SweepChunk.objects.filter(sweep=sweep).count()
    indexes = [int(i) for res in iter_results(sweep) for i in res.index]
    assert len(indexes) == total and sorted(indexes) == list(range(total))
    assert set(SweepChunk.objects.filter(sweep=sweep).values_list("status", flat=True)) == {"done"}
    # every chunk the killed worker held was taken again after the kill and finished by worker b
    for chunk in SweepChunk.objects.filter(pk__in=held):
        assert chunk.attempts > held[chunk.pk], (chunk.pk, chunk.attempts, held[chunk.pk])
        assert chunk.worker.startswith("b@"), chunk.worker
