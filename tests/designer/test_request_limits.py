"""The largest sweep, search and export a request may ask for are accepted and queued; one step above is refused on
its field (issue #38 item 3). Nothing here is timed (house rule): the request times at these sizes, p50/p99 of 20,
are in benchmarks/bounds.py (sweep, search) and benchmarks/exports.py (export of 102,400 GPUs)."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from designer import export_jobs, services
from designer.models import ExportJob, Sweep, SweepChunk
from designer.search_models import DesignSearch, DesignSearchChunk
from topology.sweep import MAX_POINTS

COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"]
AT_VARIANTS = {"node_count": list(range(8, 129, 8)), "oversubscription": [float(k) for k in range(1, 65)]}  # 1,024
OVER = [1 + k / 4 for k in range(50)]


@pytest.fixture
def api(alice):
    c = Client()
    c.force_login(alice)
    return c


def sweep_spec(sizes: int, vary: dict) -> dict:
    lo, hi = 8, 16 * 2**30
    factor = (hi / lo) ** (1 / (sizes - 1)) * (1 - 1e-12)  # exactly ``sizes`` sizes from 8 B to 16 GiB
    return {"collectives": COLLECTIVES, "min_bytes": lo, "max_bytes": hi, "factor": factor, "vary": vary}


@pytest.fixture
def sent(monkeypatch) -> dict[str, list]:
    """What the sweep's queueing sends: the run_chunk group (``direct``) or the one fan-out task (``fanout``)."""
    calls: dict[str, list] = {"direct": [], "fanout": []}
    monkeypatch.setattr("designer.sweeps._send", lambda ids: calls["direct"].append(list(ids)))
    monkeypatch.setattr("designer.sweeps.send_chunks_task.delay", lambda ids: calls["fanout"].append(list(ids)))
    return calls


def test_the_largest_sweep_is_accepted_and_queued_by_one_message(api, alice_design, settings, sent,
                                                                 django_capture_on_commit_callbacks):  # fmt: skip
    sizes = MAX_POINTS // (settings.SWEEP_MAX_VARIANTS * len(COLLECTIVES))  # 3,906
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post("/api/v1/sweeps/", {"design": alice_design.pk, "spec": sweep_spec(sizes, AT_VARIANTS)},
                     content_type="application/json")  # fmt: skip
    assert r.status_code == 201, r.json()
    sweep = Sweep.objects.get()
    assert sweep.total_points == 1024 * 5 * sizes == 19_998_720 <= MAX_POINTS
    chunks = list(SweepChunk.objects.filter(sweep=sweep).order_by("pk").values_list("pk", flat=True))
    assert len(chunks) == -(-sweep.total_points // settings.SWEEP_CHUNK_POINTS) == 400
    assert sent == {"direct": [], "fanout": [chunks]}  # one message in the request; the worker fans out
    assert SweepChunk.objects.filter(sweep=sweep, enqueued_at__isnull=True).count() == 0  # the reaper can resend


def test_a_small_sweep_sends_its_chunks_itself(api, alice_design, sent, django_capture_on_commit_callbacks):
    spec = {"collectives": ["all_reduce"], "max_bytes": 1024, "vary": {"node_count": [8, 16]}}
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post("/api/v1/sweeps/", {"design": alice_design.pk, "spec": spec},
                        content_type="application/json").status_code == 201  # fmt: skip
    assert sent["fanout"] == [] and len(sent["direct"]) == 1 and len(sent["direct"][0]) == SweepChunk.objects.count()


@pytest.mark.parametrize(
    ("sizes", "vary", "says"),
    [
        (3907, AT_VARIANTS, "20,003,840 points is more than the 20,000,000 a sweep may have"),
        (8, {**AT_VARIANTS, "node_count": list(range(8, 137, 8))}, "1,088 variants"),
    ],
)
def test_one_step_above_the_largest_sweep_is_refused_on_its_field(api, alice_design, sent, sizes, vary, says):
    r = api.post("/api/v1/sweeps/", {"design": alice_design.pk, "spec": sweep_spec(sizes, vary)},
                 content_type="application/json")  # fmt: skip
    assert r.status_code == 400 and says in r.json()["errors"]["vary"][0], r.json()
    assert not Sweep.objects.exists() and sent == {"direct": [], "fanout": []}


def search_body(design, axis: int) -> dict:
    vary = {"oversubscription": OVER, "agg_oversubscription": [1 + k / 4 for k in range(axis)],
            "topology": ["rail_optimized", "fat_tree"], "tiers": [2, 3], "nic_planes": [1, 2]}  # fmt: skip
    return {"design": design.pk, "spec": {"vary": vary, "objectives": ["capex_usd"]}}


def test_the_largest_search_is_accepted_and_queued(api, alice_design, settings, monkeypatch,
                                                   django_capture_on_commit_callbacks):  # fmt: skip
    queued: list[int] = []
    monkeypatch.setattr("designer.searches.enqueue", lambda qs: queued.extend(qs.values_list("pk", flat=True)) or 0)
    assert settings.SEARCH_MAX_CANDIDATES == 50 * 50 * 8
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post("/api/v1/searches/", search_body(alice_design, 50), content_type="application/json")
    assert r.status_code == 201, r.json()
    search = DesignSearch.objects.get()
    assert search.total_candidates == settings.SEARCH_MAX_CANDIDATES
    chunks = sorted(DesignSearchChunk.objects.filter(search=search).values_list("pk", flat=True))
    assert len(chunks) == 20_000 // settings.SEARCH_CHUNK_CANDIDATES and sorted(queued) == chunks


def test_one_step_above_the_largest_search_is_refused_on_its_field(api, alice_design, monkeypatch):
    monkeypatch.setattr("designer.searches.enqueue", lambda qs: pytest.fail("queued"))
    r = api.post("/api/v1/searches/", search_body(alice_design, 51), content_type="application/json")
    assert r.status_code == 422 and "20,400 candidates" in r.json()["errors"]["vary"][0], r.json()
    assert not DesignSearch.objects.exists()


@override_settings(EXPORT_INLINE_MAX_LINKS=1000)  # the 2,000-GPU design (5,727 links) stands for 100k GPUs
def test_an_export_of_a_design_at_the_gpu_ceiling_is_queued_not_built(api, alice_design, monkeypatch, settings,
                                                                       django_capture_on_commit_callbacks):  # fmt: skip
    """Exports have no refusal: any design a request may plan (MAX_REQUEST_GPUS) is exported, above
    EXPORT_INLINE_MAX_LINKS by a job. The request reads the saved link count and queues; it builds nothing."""

    def refuse(*a, **k):
        raise AssertionError("an export was built in the request")

    for name in ("_export_bom", "revision_floor", "cabling_stream", "export_bom", "evaluate_requirements"):
        monkeypatch.setattr(services, name, refuse)
    queued: list[int] = []
    monkeypatch.setattr(export_jobs, "enqueue", queued.append)
    head = alice_design.head
    head.results["bom"]["link_count"] = 415_132 * settings.MAX_REQUEST_GPUS // 102_400  # as if at the ceiling
    type(head).objects.filter(pk=head.pk).update(results=head.results)  # revisions are immutable to save()
    for fmt in export_jobs.HEAVY_EXPORTS:
        with django_capture_on_commit_callbacks(execute=True):
            r = api.get(f"/api/v1/designs/{alice_design.pk}/{fmt}")
        assert r.status_code == 202 and r.json()["size_links"] == head.results["bom"]["link_count"], fmt
    assert sorted(queued) == sorted(ExportJob.objects.values_list("pk", flat=True)) and len(queued) == 6
