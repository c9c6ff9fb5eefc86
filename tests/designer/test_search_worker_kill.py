"""Production mode (PostgreSQL + Redis): a worker killed with SIGKILL mid-search; the search still completes with
every candidate evaluated and stored once (the workers and helpers of tests/sweeps/test_worker_kill.py)."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.db import connection

from designer.search_models import DesignSearch, DesignSearchChunk
from designer.searches import all_rows, create_search, search_progress
from tests.designer.conftest import make_design
from tests.sweeps.test_worker_kill import kill, start_worker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

SPEC = {
    "vary": {
        "topology": ["rail_optimized", "fat_tree"],
        "rail_groups": [1, 2],
        "oversubscription": [1, 1.5, 2, 3],
        "bom_media": ["by_reach", "all_optics"],
        "cooling_type": ["air", "air_containment", "direct_to_chip", "immersion"],
    },
    "objectives": ["capex_usd"],
}  # 128 candidates, 32 of them duplicates (rail groups on the fat-tree)


def freeze_holding_a_chunk(proc, search: DesignSearch, deadline: float) -> dict[int, int]:
    """SIGSTOP the worker once it holds a chunk (running in the DB) past an eighth of the search: the leases it
    holds then are what it holds when it dies."""
    while True:
        while not (
            DesignSearch.objects.get(pk=search.pk).done_candidates >= search.total_candidates // 8
            and DesignSearchChunk.objects.filter(search=search, status="running").exists()
        ):
            assert time.time() < deadline, "worker a never got going"
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGSTOP)
        held = {
            c["pk"]: c["attempts"]
            for c in DesignSearchChunk.objects.filter(search=search, status="running").values(
                "pk", "attempts", "worker"
            )
            if c["worker"].startswith("a@")
        }
        if held:
            return held
        os.killpg(proc.pid, signal.SIGCONT)
        assert time.time() < deadline, "worker a never held a chunk when looked at"


def test_killed_worker_mid_search_loses_and_duplicates_nothing(django_user_model, settings):
    assert settings.CELERY_BROKER_URL.startswith("redis://") and connection.vendor == "postgresql"
    settings.SWEEP_LEASE_S = 4
    user = django_user_model.objects.create_user("search-killer", password="x-long-pass-1")
    design = make_design(user, gpu_count=4096)
    a, b = start_worker("a"), None
    try:
        search = create_search(user, design.head, SPEC, chunk_size=4)
        total = search.total_candidates
        assert total == 128 and search.chunks.count() == 32
        held = freeze_holding_a_chunk(a, search, time.time() + 120)
        kill(a)
        assert DesignSearch.objects.get(pk=search.pk).done_candidates < total
        b = start_worker("b")
        deadline = time.time() + 240
        while (p := search_progress(DesignSearch.objects.get(pk=search.pk)))["status"] != "done":
            assert p["status"] == "running" and time.time() < deadline, p
            time.sleep(0.5)
    finally:
        kill(a)
        if b is not None:
            kill(b)
    search.refresh_from_db()
    assert search.done_candidates == total
    assert [r["i"] for r in all_rows(search)] == list(range(total))  # every candidate once, in order
    assert search.report["counts"]["duplicate"] == 32
    assert sum(search.report["counts"].values()) == total
    for chunk in DesignSearchChunk.objects.filter(pk__in=held):
        assert chunk.attempts > held[chunk.pk] and chunk.worker.startswith("b@"), (chunk.pk, chunk.worker)
