"""Migration 0008: sweep points stored one row per point move into column blobs — nothing lost."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("designer", "0007_scheduler_section")]
AFTER = [("designer", "0008_sweep_columnar_results")]
GRID = {
    "fabrics": [{"gpus_per_node": 8, "node_count": 16, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 400}],
    "collectives": ["all_reduce", "all_to_all"],
    "sizes_bytes": [8, 64, 512],
    "algorithms": ["auto"],
}


@pytest.fixture(autouse=True)
def _back_to_the_latest_schema():
    """The test migrates the database back and forth: leave it at the latest migrations for the tests after it."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_points_become_chunk_blobs_and_a_partial_chunk_is_recomputed(django_user_model):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User").objects.create(username="m")
    Sweep, Chunk, Point = (old.get_model("designer", m) for m in ("Sweep", "SweepChunk", "SweepPoint"))
    sweep = Sweep.objects.create(owner_id=user.pk, name="s", spec={}, grid=GRID, total_points=6, done_points=6)
    full = Chunk.objects.create(sweep=sweep, number=0, start=0, stop=4, status="done")
    partial = Chunk.objects.create(sweep=sweep, number=1, start=4, stop=6, status="done")
    rows = [  # index, collective, size, time_us (the last of chunk 1 is missing: a crash mid-write)
        (0, "all_reduce", 8, 20.5), (1, "all_reduce", 64, 21.0), (2, "all_reduce", 512, float("inf")),
        (3, "all_to_all", 8, 30.25), (4, "all_to_all", 64, 31.0),
    ]  # fmt: skip
    for i, coll, size, t in rows:
        Point.objects.create(sweep=sweep, index=i, fabric_index=0, collective=coll, size_bytes=size, requested="auto",
                             time_us=t, algbw_gbyte_s=size / t / 1e3, busbw_gbyte_s=2 * size / t / 1e3,
                             algorithm="ring" if t != float("inf") else "none", protocol="LL")  # fmt: skip
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    from designer.models import Sweep as NewSweep
    from designer.models import SweepChunk, SweepChunkResult
    from designer.sweeps import iter_results

    new = NewSweep.objects.get(pk=sweep.pk)
    assert SweepChunkResult.objects.filter(sweep=new).count() == 1
    (res,) = list(iter_results(new))
    assert res.index.tolist() == [0, 1, 2, 3]
    assert res.time_us.tolist() == [20.5, 21.0, float("inf"), 30.25]
    assert res.algorithm.tolist() == ["ring", "ring", "none", "ring"] and res.collective[3] == "all_to_all"
    assert SweepChunk.objects.get(pk=full.pk).status == "done"
    assert SweepChunk.objects.get(pk=partial.pk).status == "pending"  # computed again, not kept half
    assert new.done_points == 4
