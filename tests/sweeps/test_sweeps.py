"""Sweeps end to end with a real Celery worker on the configured broker (embedded by default)."""

from __future__ import annotations

import json
import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.test import Client

from designer.celery import app
from designer.models import Sweep, SweepChunk, SweepChunkResult
from designer.sweeps import (
    SweepSpecError,
    claim_chunk,
    complete_chunk,
    create_sweep,
    iter_results,
    reap_stale_chunks,
    resolve_spec,
    run_chunk,
    store_chunk_results,
    sweep_progress,
)
from tests.designer.conftest import make_design
from topology.sweep import SweepGrid, evaluate_chunk, evaluate_chunk_scalar

SPEC = {
    "collectives": ["all_reduce", "all_to_all"],
    "algorithms": ["auto", "ring"],
    "min_bytes": 8,
    "max_bytes": 2**30,
    "factor": 4,
    "vary": {"node_count": [16, 64, 250], "oversubscription": [1, 2]},
}


def strict_json(token: str):
    raise ValueError(f"{token} is not JSON")


def streamed(response) -> str:
    assert response.status_code == 200 and response.streaming
    return b"".join(response.streaming_content).decode()


def stored_indexes(sweep: Sweep) -> list[int]:
    return [int(i) for res in iter_results(sweep) for i in res.index]


def wait_done(sweep: Sweep, timeout_s: float = 60) -> dict:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        p = sweep_progress(sweep)
        if p["status"] not in ("pending", "running"):
            return p
        time.sleep(0.2)
    raise AssertionError(f"sweep not finished: {sweep_progress(sweep)}")


def test_grid_points_match_the_scalar_oracle(alice_design):
    grid, labels, variants = resolve_spec(alice_design.head.requirements(), SPEC)
    assert grid.point_count == 6 * 2 * 14 * 2 and len(labels) == len(variants) == 6
    assert variants[1] == {"node_count": 16, "oversubscription": 2.0}
    res = evaluate_chunk(grid, 0, grid.point_count)
    oracle = evaluate_chunk_scalar(grid, 0, grid.point_count)
    for i in range(grid.point_count):
        assert res.time_us[i] == pytest.approx(oracle[i]["time_us"], rel=1e-9)
        assert res.algorithm[i] == oracle[i]["algorithm"]
    assert SweepGrid.from_dict(grid.to_dict()) == grid


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"collectives": ["gossip"]}, "collectives"),
        ({"algorithms": ["magic"]}, "algorithms"),
        ({"min_bytes": 0}, "min_bytes"),
        ({"min_bytes": 100, "max_bytes": 10}, "min_bytes"),
        ({"factor": 1}, "factor"),
        ({"factor": 1.0000001}, "factor"),  # 10^8 sizes: counted, never built (issue #14: 7 s, +1.3 GB)
        ({"factor": "nan"}, "factor"),
        ({"min_bytes": 8.5}, "min_bytes"),
        ({"vary": {"node_count": [1.5]}}, "vary.node_count"),  # was silently 1
        ({"vary": {"node_count": [5_000_000]}}, "vary.node_count"),  # was 11.5 s, 4.2 GB
        ({"vary": {"node_count": [10**12]}}, "vary.node_count"),  # was a MemoryError (500)
        ({"vary": {"nic_gbps": [float("inf")]}}, "vary.nic_gbps"),
        ({"vary": {"node_count": list(range(1, 200))}}, "vary.node_count"),
        ({"vary": {"colour": [1]}}, "vary.colour"),
        ({"vary": {"node_count": []}}, "vary.node_count"),
        ({"vary": {"node_count": ["many"]}}, "vary.node_count"),
        ({"vary": {"oversubscription": [0.5]}}, "vary.oversubscription"),
        ({"vary": {"topology": ["hypercube"]}}, "vary.topology"),
        ({"vary": {"node_count": [10**7]}}, "vary.node_count"),
        ({"vary": {"node_count": [16, 32], "oversubscription": [1, 2]}, "factor": 1.001}, "factor"),
        ({"max_bytes": "16Gb"}, "max_bytes"),  # bits: refused on the field that said it
        ({"min_bytes": "lots"}, "min_bytes"),
        ({"max_bytes": "2 TiB"}, "max_bytes"),
        ({"min_bytes": "1 GiB", "max_bytes": "1 MiB"}, "min_bytes"),
    ],
)
def test_bad_specs_name_the_field(alice_design, spec, field):
    with pytest.raises(SweepSpecError) as exc:
        resolve_spec(alice_design.head.requirements(), spec)
    assert field in exc.value.errors


def test_sizes_with_units_are_understood(alice_design):
    r = alice_design.head.requirements()
    grid, _, _ = resolve_spec(r, {"min_bytes": "1 MiB", "max_bytes": "16 GiB", "factor": 4})
    assert grid.sizes_bytes[0] == 2**20 and grid.sizes_bytes[-1] == 16 * 2**30
    grid, _, _ = resolve_spec(r, {"min_bytes": "1MB", "max_bytes": "16GB", "factor": 2})
    assert grid.sizes_bytes[0] == 10**6 and grid.sizes_bytes[-1] == 10**6 * 2**13  # 8.192 GB ≤ 16 GB < 16.384 GB
    with pytest.raises(SweepSpecError) as exc:
        resolve_spec(r, {"max_bytes": "16Gb"})
    assert list(exc.value.errors) == ["max_bytes"] and "16G or 16 GiB" in exc.value.errors["max_bytes"][0]


@pytest.mark.django_db(transaction=True)
def test_sweep_end_to_end_on_a_real_worker(django_user_model):
    user = django_user_model.objects.create_user("sweeper", password="x-long-pass-1")
    design = make_design(user)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        sweep = create_sweep(user, design.head, SPEC, chunk_points=100)
        p = wait_done(sweep)
    assert p["status"] == "done", p
    assert p["done_points"] == p["total_points"] == sweep.total_points == 336
    assert stored_indexes(sweep) == list(range(336))
    assert set(SweepChunk.objects.filter(sweep=sweep).values_list("status", flat=True)) == {"done"}
    c = Client()
    c.force_login(user)
    page = c.get(f"/sweeps/{sweep.pk}/").content.decode()
    assert "chart-busbw" in page and "chart-heatmap" in page and "chart-gpus" in page
    assert "370.8" in page  # assumptions shown
    rate = page.split('id="progress-rate">')[1].split("<")[0]
    assert rate.replace(",", "").isdigit()  # whole points per second, grouped — never "16036.5"
    assert 'id="progress-eta">—</span></p>' in page  # a finished sweep has no ETA, and no "— s"
    # ring cannot run all-to-all: those points have no time, and the JSON must still be JSON
    chart_json = page.split('id="chart-data" type="application/json">')[1].split("</script>")[0]
    json.loads(chart_json, parse_constant=strict_json)
    data = json.loads(streamed(c.get(f"/sweeps/{sweep.pk}/points.json")), parse_constant=strict_json)
    assert any(p["time_us"] is None and p["algorithm"] == "none" for p in data["points"])
    assert [p["index"] for p in data["points"]] == list(range(336))
    assert data["points"][-1]["node_count"] == 250 and data["points"][-1]["oversubscription"] == 2.0
    csv = streamed(c.get(f"/sweeps/{sweep.pk}/points.csv")).splitlines()
    assert len(csv) == 337
    # one column per varied parameter, holding the value as asked
    assert csv[0].split(",")[:4] == ["index", "fabric_index", "node_count", "oversubscription"]
    assert csv[1].split(",")[2:4] == ["16", "1.0"] and csv[-1].split(",")[2:4] == ["250", "2.0"]
    # legends show the asked-for values: "16 nodes · 2:1", whatever the built end-to-end ratio
    assert "16 nodes · 2:1" in page and "250 nodes · 1:1" in page
    api = c.get(f"/api/v1/sweeps/{sweep.pk}/points/?limit=5").json()
    assert len(api["points"]) == 5 and api["points"][0]["index"] == 0


def test_chunks_are_idempotent_and_stale_chunks_are_reaped(alice_design, settings, monkeypatch):
    sent: list[int] = []
    monkeypatch.setattr(
        "designer.sweeps.enqueue", lambda chunks: sent.extend(chunks.values_list("pk", flat=True)) or len(sent)
    )
    sweep = create_sweep(alice_design.owner, alice_design.head, SPEC, chunk_points=100)
    chunk = sweep.chunks.first()
    assert run_chunk(chunk.pk) == "done"
    # a re-delivered message for a finished chunk does nothing
    assert run_chunk(chunk.pk) == "skipped"
    # a chunk whose worker died: running with a lease in the past → re-enqueued, then done once
    second = sweep.chunks.get(number=1)
    SweepChunk.objects.filter(pk=second.pk).update(status="running", lease_until="2000-01-01T00:00Z", attempts=1)
    sent.clear()
    assert reap_stale_chunks(sweep.pk) >= 1 and second.pk in sent
    assert run_chunk(second.pk) == "done"
    # a slow worker A and its replacement B on the same chunk: both store, one counts
    third = sweep.chunks.get(number=2)
    assert claim_chunk(third.pk, "A")
    SweepChunk.objects.filter(pk=third.pk).update(lease_until="2000-01-01T00:00Z")  # A's lease runs out
    assert claim_chunk(third.pk, "B")
    third.refresh_from_db()
    store_chunk_results(third)
    assert complete_chunk(third)  # B finishes first
    first_blob = bytes(SweepChunkResult.objects.get(chunk=third).data)
    store_chunk_results(third)  # A finishes late: overwrites the same row with the same numbers
    assert not complete_chunk(third)  # …and is not counted
    sweep.refresh_from_db()
    assert SweepChunkResult.objects.filter(sweep=sweep).count() == 3
    assert bytes(SweepChunkResult.objects.get(chunk=third).data) == first_blob
    assert stored_indexes(sweep) == list(range(300))
    assert sweep.done_points == 300


def test_cancel_and_rerun(alice_design, monkeypatch):
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    c = Client()
    c.force_login(alice_design.owner)
    r = c.post(
        f"/designs/{alice_design.pk}/sweeps/new/",
        {
            "collectives": ["all_reduce"],
            "algorithms": ["auto"],
            "min_bytes": "8",
            "max_bytes": "1048576",
            "factor": "2",
            "vary_node_count": "16, 32",
        },
    )
    assert r.status_code == 302
    sweep = Sweep.objects.get()
    assert sweep.total_points == 2 * 18
    c.post(f"/sweeps/{sweep.pk}/cancel/")
    sweep.refresh_from_db()
    assert sweep.status == "cancelled"
    assert run_chunk(sweep.chunks.first().pk) == "skipped"
    r = c.post(f"/sweeps/{sweep.pk}/rerun/")
    assert Sweep.objects.count() == 2 and r.status_code == 302
    bad = c.post(f"/designs/{alice_design.pk}/sweeps/new/", {"collectives": ["all_reduce"], "min_bytes": "0"})
    assert bad.status_code == 200 and "min_bytes" in bad.content.decode()


def test_sweeps_are_private(alice_design, bob, monkeypatch):
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    sweep = create_sweep(alice_design.owner, alice_design.head, {"collectives": ["all_reduce"]})
    c = Client()
    c.force_login(bob)
    assert c.get(f"/sweeps/{sweep.pk}/").status_code == 404
    assert c.get(f"/sweeps/{sweep.pk}/progress.json").status_code == 404
    assert c.get(f"/api/v1/sweeps/{sweep.pk}/").status_code == 404
    assert c.get("/api/v1/sweeps/").json()["results"] == []
    r = c.post("/api/v1/sweeps/", {"design": alice_design.pk, "spec": {}}, content_type="application/json")
    assert r.status_code == 404


def test_api_create_and_errors(alice_design, monkeypatch):
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    c = Client()
    c.force_login(alice_design.owner)
    r = c.post(
        "/api/v1/sweeps/",
        {"design": alice_design.pk, "spec": {"collectives": ["broadcast"], "max_bytes": 1024}},
        content_type="application/json",
    )
    assert r.status_code == 201 and r.json()["total_points"] == 8
    bad = c.post(
        "/api/v1/sweeps/", {"design": alice_design.pk, "spec": {"collectives": ["x"]}}, content_type="application/json"
    )
    assert bad.status_code == 400 and "collectives" in bad.json()["errors"]


def test_design_shows_collectives_at_a_glance(alice_design):
    c = Client()
    c.force_login(alice_design.owner)
    body = c.get(f"/designs/{alice_design.pk}/").content.decode()
    assert "Collectives at a glance" in body and "370.8" in body
    rows = alice_design.head.results["collectives"]["rows"]
    big = next(r for r in rows if r["collective"] == "all_reduce" and r["size_bytes"] == 2**32)
    assert big["busbw_gbyte_s"] > 300 and big["algorithm"] in ("collnet_direct", "nvls", "nvls_tree", "ring")


def test_queued_chunks_of_a_busy_sweep_are_not_resent(alice_design, settings, monkeypatch):
    """Issue #14: 349 redundant deliveries in one kill test — pending chunks waiting behind busy
    workers were taken for lost. Only a sweep with no progress for a whole lease has lost messages."""
    from datetime import timedelta

    from django.utils import timezone

    sent: list[int] = []
    monkeypatch.setattr(
        "designer.sweeps.enqueue", lambda chunks: sent.extend(chunks.values_list("pk", flat=True)) or len(sent)
    )
    sweep = create_sweep(alice_design.owner, alice_design.head, SPEC, chunk_points=50)
    long_ago = timezone.now() - timedelta(seconds=settings.SWEEP_LEASE_S * 3)
    SweepChunk.objects.filter(sweep=sweep).update(enqueued_at=long_ago)
    first = sweep.chunks.get(number=0)
    assert claim_chunk(first.pk, "A")  # a worker holds a live lease: the sweep is progressing
    sent.clear()
    assert reap_stale_chunks(sweep.pk) == 0 and sent == []
    # the worker finished long ago and nothing moved since: the queued messages are taken for lost
    SweepChunk.objects.filter(pk=first.pk).update(status="done", lease_until=None, finished_at=long_ago)
    assert reap_stale_chunks(sweep.pk) == sweep.chunks.count() - 1


def test_a_chunk_with_a_live_lease_cannot_be_claimed_again(alice_design):
    """Two workers must never run one chunk at the same time: the second claim waits for the lease."""
    sweep = create_sweep(alice_design.owner, alice_design.head, SPEC, chunk_points=100)
    chunk = sweep.chunks.first()
    assert claim_chunk(chunk.pk, "A")
    assert not claim_chunk(chunk.pk, "B")
    SweepChunk.objects.filter(pk=chunk.pk).update(lease_until="2000-01-01T00:00Z")  # A's lease ran out
    assert claim_chunk(chunk.pk, "B")
    chunk.refresh_from_db()
    assert chunk.worker == "B" and chunk.attempts == 2


def test_gpu_the_collective_model_refuses_is_a_field_error(alice_design):
    """MI300X runs RCCL, which the model does not cover: the sweep is refused on gpu_model, not a 500."""
    from designer.sweeps import SweepSpecError, resolve_spec

    r = dict(alice_design.head.requirements())
    r["gpu_model"] = "MI300X"
    with pytest.raises(SweepSpecError) as err:
        resolve_spec(r, {"collectives": ["all_reduce"], "min_bytes": 8, "max_bytes": 64})
    assert "gpu_model" in err.value.errors and "RCCL" in err.value.errors["gpu_model"][0]


def test_the_sweep_page_shows_the_designs_network_class_and_host_overhead(alice_design, monkeypatch):
    """Issue #35.1: the sweep's assumptions lead with the swept design's network class and host overhead (the
    two inputs of the collective model a user sets), as the design page does."""
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    sweep = create_sweep(alice_design.owner, alice_design.head, {"collectives": ["all_reduce"]})
    c = Client()
    c.force_login(alice_design.owner)
    page = c.get(f"/sweeps/{sweep.pk}/").content.decode()
    assert "Network class:" in page and "Host overhead:" in page and "µs per call" in page
