"""Design searches on Celery (designer/searches.py): chunks, idempotent rows, reaping, cancel and re-run, the
report equal to the one-process search, a candidate saved as a revision with the same figures, and a real
worker on the embedded broker."""

from __future__ import annotations

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.test import Client

from cluster.search import parse_spec, run_search
from designer.celery import app
from designer.search_models import DesignSearch, DesignSearchChunk
from designer.searches import (
    SearchSpecError,
    all_rows,
    claim_chunk,
    create_search,
    current_catalog,
    evaluate_range,
    reap_stale_search_chunks,
    rerun_search,
    run_search_chunk,
    save_candidate,
    search_progress,
    spec_of,
    store_chunk,
)
from tests.designer.conftest import make_design

SPEC = {
    "vary": {"topology": ["rail_optimized", "fat_tree", "dragonfly_plus"], "oversubscription": [1, 2]},
    "constraints": {"min_bisection_tbyte_s": 1},
    "objectives": ["capex_usd"],
}


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """Chunks enqueued, recorded instead of sent (the tests run them)."""
    ids: list[int] = []
    monkeypatch.setattr("designer.searches.enqueue", lambda qs: ids.extend(qs.values_list("pk", flat=True)) or 0)
    return ids


def run_all(search: DesignSearch) -> None:
    for pk in search.chunks.values_list("pk", flat=True):
        run_search_chunk(pk)


def test_chunks_give_the_one_process_report(alice_design, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        search = create_search(alice_design.owner, alice_design.head, SPEC, chunk_size=2)
    assert search.total_candidates == 6 and search.chunks.count() == 3 and len(sent) == 3
    run_all(search)
    search.refresh_from_db()
    assert search.status == "done" and search.done_candidates == 6
    spec = parse_spec(search.base, SPEC)
    expected, rows = run_search(spec, current_catalog())
    assert all_rows(search) == rows
    assert search.feasible_candidates == expected["counts"]["feasible"] > 0
    assert search.report["fronts"] == expected["fronts"] and search.report["ranking"] == expected["ranking"]
    assert len(search.report["points"]) == search.feasible_candidates
    p = search_progress(search)
    assert p["fraction_done"] == 1.0 and p["eta_s"] is None


def test_a_chunk_computed_twice_is_stored_and_counted_once(alice_design, sent):
    search = create_search(alice_design.owner, alice_design.head, SPEC, chunk_size=2)
    chunk = search.chunks.get(number=0)
    assert claim_chunk(chunk.pk, "A")
    DesignSearchChunk.objects.filter(pk=chunk.pk).update(lease_until="2000-01-01T00:00Z")  # A was killed
    assert claim_chunk(chunk.pk, "B")
    rows = evaluate_range(spec_of(search), chunk.start, chunk.stop, current_catalog())
    assert store_chunk(chunk, rows)  # B
    assert not store_chunk(chunk, rows)  # A, late: not counted
    search.refresh_from_db()
    assert search.done_candidates == 2
    assert run_search_chunk(chunk.pk) == "skipped"  # a re-delivered message does nothing
    # a chunk whose worker died holding it: re-enqueued by the reaper, then done once
    second = search.chunks.get(number=1)
    DesignSearchChunk.objects.filter(pk=second.pk).update(status="running", lease_until="2000-01-01T00:00Z")
    sent.clear()
    reap_stale_search_chunks(search.pk)
    assert second.pk in sent
    assert run_search_chunk(second.pk) == "done"
    run_search_chunk(search.chunks.get(number=2).pk)
    search.refresh_from_db()
    assert search.status == "done" and search.done_candidates == 6
    assert [r["i"] for r in all_rows(search)] == list(range(6))


def test_cancel_and_rerun(alice_design, sent):
    search = create_search(alice_design.owner, alice_design.head, SPEC, chunk_size=2)
    c = Client()
    c.force_login(alice_design.owner)
    assert c.post(f"/searches/{search.pk}/cancel/").status_code == 302
    search.refresh_from_db()
    assert search.status == "cancelled"
    assert run_search_chunk(search.chunks.first().pk) == "skipped"
    again = rerun_search(search, alice_design.owner)
    assert again.pk != search.pk and again.spec == search.spec and again.status == "pending"


def test_the_candidate_count_is_refused_on_its_field(alice_design, settings, sent):
    settings.SEARCH_MAX_CANDIDATES = 5
    with pytest.raises(SearchSpecError) as exc:
        create_search(alice_design.owner, alice_design.head, SPEC)
    assert "6 candidates (3 topology × 2 oversubscription)" in exc.value.errors["vary"][0]
    assert DesignSearch.objects.count() == 0 and sent == []


def test_a_saved_candidate_evaluates_to_its_figures_exactly(alice_design, sent):
    search = create_search(alice_design.owner, alice_design.head, SPEC, chunk_size=3)
    run_all(search)
    search.refresh_from_db()
    picks = [r for r in search.report["ranking"]][:2]
    revs = [save_candidate(search, r["i"], alice_design.owner) for r in picks]
    for rev, row in zip(revs, picks, strict=True):
        summary = rev.results["summary"]
        f = row["f"]
        assert str(summary["capex_usd"]) == f["capex_usd"] and str(summary["tco_usd"]) == f["tco_usd"]
        assert summary["facility_kw"] == f["facility_kw"] and summary["rack_count"] == f["rack_count"]
        assert summary["compute_switch_count"] == f["compute_switch_count"]
        assert round(summary["compute_bisection_tbyte_s"], 6) == f["bisection_tbyte_s"]
        assert rev.topology == row["combo"].get("topology", rev.topology)
    c = Client()
    c.force_login(alice_design.owner)
    page = c.get(f"/compare/?r={revs[0].pk}&r={revs[1].pk}")
    assert page.status_code == 200
    with pytest.raises(SearchSpecError) as exc:
        save_candidate(search, 99, alice_design.owner)
    assert "candidate" in exc.value.errors


@pytest.mark.django_db(transaction=True)
def test_search_end_to_end_on_a_real_worker(django_user_model):
    user = django_user_model.objects.create_user("searcher", password="x-long-pass-1")
    design = make_design(user)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        search = create_search(user, design.head, SPEC, chunk_size=2)
        deadline = time.time() + 120
        while (p := search_progress(search))["status"] in ("pending", "running"):
            assert time.time() < deadline, p
            time.sleep(0.2)
    assert p["status"] == "done" and p["done_candidates"] == 6, p
    assert set(DesignSearchChunk.objects.filter(search=search).values_list("status", flat=True)) == {"done"}


def test_a_report_lost_with_its_worker_is_written_by_the_beat_not_by_a_poll(alice_design, sent, monkeypatch):
    from designer.searches import reap_stale_search_chunks_task

    monkeypatch.setattr("designer.searches.INLINE_REPORT_CANDIDATES", 1)  # a poll leaves this search's report alone
    monkeypatch.setattr("designer.searches.finish_if_complete", lambda pk: None)  # the last worker dies first
    search = create_search(alice_design.owner, alice_design.head, SPEC, chunk_size=3)
    run_all(search)
    monkeypatch.undo()
    monkeypatch.setattr("designer.searches.INLINE_REPORT_CANDIDATES", 1)
    monkeypatch.setattr("designer.searches.enqueue", lambda qs: 0)
    assert search_progress(search)["status"] == "running"  # every chunk done, no report: the poll does not write it
    reap_stale_search_chunks_task()
    search.refresh_from_db()
    assert search.status == "done" and search.report["counts"]["feasible"] == search.feasible_candidates
