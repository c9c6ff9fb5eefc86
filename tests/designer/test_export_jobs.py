"""Large exports are background jobs (issue #32, item 2): the request answers at once, one job per export.

The tests lower EXPORT_INLINE_MAX_LINKS so that the 2,000-GPU test design (5,727 links) is "large"."""

from __future__ import annotations

import csv
import io
import time
import zipfile
from datetime import timedelta

import openpyxl
import pytest
from django.test import Client, override_settings
from django.utils import timezone

from designer import export_jobs, services
from designer.models import ExportChunk, ExportJob
from designer.tasks import reap_export_jobs, run_export

HEAVY = ("bom.xlsx", "netbox.zip", "cabling.csv", "cabling.xlsx", "elevations.svg", "racks.csv")
SMALL = override_settings(EXPORT_INLINE_MAX_LINKS=1000)


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _body(resp) -> bytes:
    return b"".join(resp.streaming_content) if resp.streaming else resp.content


@pytest.fixture
def no_build_in_request(monkeypatch):
    """Every builder raises: a request that builds anything fails the test."""

    def refuse(*a, **k):
        raise AssertionError("an export was built in the request")

    for name in ("_export_bom", "revision_floor", "cabling_stream", "export_bom"):
        monkeypatch.setattr(services, name, refuse)
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)


def _inline(client, design, fmt) -> bytes:
    with override_settings(EXPORT_INLINE_MAX_LINKS=10**9):
        resp = client.get(f"/api/v1/designs/{design.pk}/{fmt}")
    assert resp.status_code == 200, resp.status_code
    return _body(resp)


def _same_content(fmt: str, a: bytes, b: bytes) -> None:
    if fmt.endswith(".xlsx"):  # the workbook's zip carries its own write time: compare every cell
        wa, wb = (openpyxl.load_workbook(io.BytesIO(x), read_only=True) for x in (a, b))
        assert wa.sheetnames == wb.sheetnames
        for name in wa.sheetnames:
            assert list(wa[name].iter_rows(values_only=True)) == list(wb[name].iter_rows(values_only=True)), name
    elif fmt == "netbox.zip":
        za, zb = zipfile.ZipFile(io.BytesIO(a)), zipfile.ZipFile(io.BytesIO(b))
        assert za.namelist() == zb.namelist()
        assert all(za.read(n) == zb.read(n) for n in za.namelist())
    elif fmt.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(b.decode())))
        assert rows == list(csv.reader(io.StringIO(a.decode()))) and len(rows) > 10
    else:
        assert a == b


def test_below_the_limit_the_export_is_served_in_the_request(alice, alice_design):
    """The default limit (6,000 links) keeps the 2,000-GPU design (5,727 links) inline, as before."""
    links = alice_design.head.results["bom"]["link_count"]
    assert links < 6000
    resp = _client(alice).get(f"/api/v1/designs/{alice_design.pk}/racks.csv")
    assert resp.status_code == 200 and resp["Content-Type"].startswith("text/csv")
    assert not ExportJob.objects.exists()
    with override_settings(EXPORT_INLINE_MAX_LINKS=links):  # the limit is inclusive
        assert _client(alice).get(f"/designs/{alice_design.pk}/export/racks.csv").status_code == 200


@SMALL
@pytest.mark.parametrize("fmt", HEAVY)
def test_above_the_limit_the_api_answers_202_at_once_with_the_job(alice, alice_design, no_build_in_request, fmt):
    c = _client(alice)  # answered without building anything (no_build_in_request); its time: benchmarks/exports.py
    resp = c.get(f"/api/v1/designs/{alice_design.pk}/{fmt}?revision=1")
    assert resp.status_code == 202, resp.status_code
    job = ExportJob.objects.get()
    body = resp.json()
    assert body["id"] == job.pk and body["format"] == fmt and body["status"] == "pending"
    assert body["size_links"] == alice_design.head.results["bom"]["link_count"]
    assert resp["Location"] == body["url"] and body["url"].endswith(f"/api/v1/exports/{job.pk}/")
    assert body["download_url"] is None
    again = c.get(f"/api/v1/designs/{alice_design.pk}/{fmt}")  # the same export: the same job
    assert again.status_code == 202 and again.json()["id"] == job.pk and ExportJob.objects.count() == 1


@SMALL
@pytest.mark.parametrize("fmt", HEAVY)
def test_the_job_builds_what_the_request_would_have_answered(alice, alice_design, fmt, monkeypatch):
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)
    c = _client(alice)
    job_id = c.get(f"/api/v1/designs/{alice_design.pk}/{fmt}").json()["id"]
    assert c.get(f"/api/v1/exports/{job_id}/download").status_code == 409  # not built yet
    assert run_export(job_id) == "done"
    assert run_export(job_id) == "skipped"  # a message delivered twice builds once
    job = ExportJob.objects.get(pk=job_id)
    assert job.status == "done" and job.progress_frac == 1.0 and job.attempts == 1
    status = c.get(f"/api/v1/exports/{job_id}/").json()
    assert status["status"] == "done" and status["download_url"].endswith(f"/api/v1/exports/{job_id}/download")
    redirect = c.get(f"/api/v1/designs/{alice_design.pk}/{fmt}")  # asked again once built: to the file
    assert redirect.status_code == 303 and redirect["Location"] == status["download_url"]
    resp = c.get(f"/api/v1/exports/{job_id}/download")
    assert resp.status_code == 200 and resp["Content-Disposition"].endswith(f'filename="{job.filename}"')
    data = _body(resp)
    assert len(data) == job.size_bytes == int(resp["Content-Length"])
    _same_content(fmt, _inline(c, alice_design, fmt), data)


@SMALL
def test_a_file_of_several_chunks_streams_back_whole(alice, alice_design, monkeypatch):
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)
    monkeypatch.setattr(export_jobs, "CHUNK_BYTES", 50_000)
    c = _client(alice)
    job_id = c.get(f"/api/v1/designs/{alice_design.pk}/cabling.csv").json()["id"]
    run_export(job_id)
    job = ExportJob.objects.get(pk=job_id)
    assert job.chunk_count == ExportChunk.objects.filter(job=job).count() > 5
    assert job.stored_bytes < job.size_bytes / 3  # csv compresses
    _same_content("cabling.csv", _inline(c, alice_design, "cabling.csv"), _body(c.get(f"/exports/{job_id}/download")))


@SMALL
def test_another_user_gets_404_on_the_job_its_progress_and_its_file(alice, bob, alice_design, monkeypatch):
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)
    job_id = _client(alice).get(f"/api/v1/designs/{alice_design.pk}/bom.xlsx").json()["id"]
    run_export(job_id)
    b = _client(bob)
    for url in (
        f"/api/v1/exports/{job_id}/",
        f"/api/v1/exports/{job_id}/download",
        f"/exports/{job_id}/",
        f"/exports/{job_id}/progress.json",
        f"/exports/{job_id}/download",
    ):
        assert b.get(url).status_code == 404, url
    assert Client().get(f"/exports/{job_id}/download").status_code == 302  # to the sign-in
    alice_design.shared_with.add(bob)  # shared with bob: he may read it, and the job
    assert b.get(f"/api/v1/exports/{job_id}/download").status_code == 200


@SMALL
def test_the_page_redirects_to_a_progress_page_that_polls_then_offers_the_file(
    alice, alice_design, no_build_in_request, monkeypatch
):
    c = _client(alice)
    resp = c.get(f"/designs/{alice_design.pk}/export/bom.xlsx")
    job = ExportJob.objects.get()
    assert resp.status_code == 302 and resp["Location"] == f"/exports/{job.pk}/"
    page = c.get(resp["Location"]).content.decode()
    assert 'id="progress-text"' in page and f'data-url="/exports/{job.pk}/progress.json"' in page
    assert "designer/export_job.js" in page and 'id="download-export"' not in page
    progress = c.get(f"/exports/{job.pk}/progress.json").json()
    assert progress["status"] == "pending" and progress["fraction_done"] == 0.0
    assert c.get(f"/exports/{job.pk}/download").status_code == 302  # not built: back to its page
    monkeypatch.undo()
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)
    run_export(job.pk)
    assert c.get(f"/exports/{job.pk}/progress.json").json()["status"] == "done"
    assert 'id="download-export"' in c.get(f"/exports/{job.pk}/").content.decode()
    again = c.get(f"/designs/{alice_design.pk}/export/bom.xlsx")
    assert again.status_code == 302 and again["Location"] == f"/exports/{job.pk}/download"


@SMALL
def test_the_design_page_says_its_large_downloads_are_jobs_and_embeds_no_drawing(alice, alice_design):
    page = _client(alice).get(f"/designs/{alice_design.pk}/").content.decode()
    assert 'id="export-background-note"' in page and 'id="elevation-drawing"' not in page
    with override_settings(EXPORT_INLINE_MAX_LINKS=10**6):
        page = _client(alice).get(f"/designs/{alice_design.pk}/").content.decode()
    assert 'id="export-background-note"' not in page and 'id="elevation-drawing"' in page


@SMALL
def test_shared_link_readers_get_their_own_job_without_the_author(alice, bob, alice_design, monkeypatch):
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)
    token = alice_design.enable_link_sharing()
    anon = Client()
    resp = anon.get(f"/s/{token}/export/bom.xlsx")
    job = ExportJob.objects.get()
    assert resp.status_code == 302 and resp["Location"] == f"/s/{token}/exports/{job.pk}/"
    assert not job.show_author and job.requested_by is None
    run_export(job.pk)
    data = _body(anon.get(f"/s/{token}/exports/{job.pk}/download"))
    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    cells = " ".join(str(v) for row in wb["Summary"].iter_rows(values_only=True) for v in row if v)
    assert "alice" not in cells
    alice_job = _client(alice).get(f"/api/v1/designs/{alice_design.pk}/bom.xlsx").json()["id"]
    assert alice_job != job.pk  # signed in: the author line, another file
    assert anon.get(f"/s/{token}/exports/{alice_job}/").status_code == 404  # not through the link
    assert anon.get(f"/s/wrong-token/exports/{job.pk}/progress.json").status_code == 404


@SMALL
def test_four_requests_at_once_queue_one_job(alice, bob, alice_design, monkeypatch):
    queued = []
    monkeypatch.setattr(export_jobs, "enqueue", queued.append)
    alice_design.shared_with.add(bob)
    with pytest.MonkeyPatch.context() as m:
        m.setattr("django.db.transaction.on_commit", lambda f, *a, **k: f())
        ids = {
            _client(u).get(f"/api/v1/designs/{alice_design.pk}/netbox.zip").json()["id"]
            for u in (alice, bob, alice, bob)
        }
    assert len(ids) == 1 and queued == list(ids)


@SMALL
def test_lost_and_dead_jobs_are_queued_again_failed_after_the_limit_and_old_files_deleted(
    alice, alice_design, monkeypatch
):
    queued = []
    monkeypatch.setattr(export_jobs, "enqueue", queued.append)
    job = export_jobs.request_export(alice_design.head, "racks.csv", show_author=True, user=alice)
    long_ago = timezone.now() - timedelta(hours=1)
    ExportJob.objects.filter(pk=job.pk).update(enqueued_at=long_ago)  # its message was lost
    assert reap_export_jobs() == 1 and queued == [job.pk]
    assert export_jobs.claim(job.pk) == 1
    assert export_jobs.claim(job.pk) is None  # running, heartbeat fresh: nobody else takes it
    ExportJob.objects.filter(pk=job.pk).update(heartbeat_at=long_ago)  # its worker died
    assert export_jobs.claim(job.pk) == 2  # a redelivered message takes it over
    ExportJob.objects.filter(pk=job.pk).update(heartbeat_at=long_ago, attempts=export_jobs.MAX_ATTEMPTS)
    export_jobs.reap()
    job.refresh_from_db()
    assert job.status == "failed" and "stopped" in job.error
    ExportJob.objects.filter(pk=job.pk).update(status="pending", attempts=0, error="", finished_at=None)
    assert run_export(job.pk) == "done"
    ExportJob.objects.filter(pk=job.pk).update(finished_at=long_ago)
    with override_settings(EXPORT_JOB_TTL_S=60):
        export_jobs.reap()
    assert not ExportJob.objects.exists() and not ExportChunk.objects.exists()


@SMALL
def test_an_expired_or_failed_job_is_built_again_when_asked(alice, alice_design, monkeypatch):
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)
    job = export_jobs.request_export(alice_design.head, "elevations.svg", show_author=True, user=alice)
    run_export(job.pk)
    ExportJob.objects.filter(pk=job.pk).update(finished_at=timezone.now() - timedelta(days=2))
    again = export_jobs.request_export(alice_design.head, "elevations.svg", show_author=True, user=alice)
    assert again.pk == job.pk and again.status == "pending" and not ExportChunk.objects.filter(job=job).exists()
    ExportJob.objects.filter(pk=job.pk).update(status="failed", finished_at=timezone.now())
    assert export_jobs.request_export(alice_design.head, "elevations.svg", show_author=True).status == "failed"


@SMALL
def test_a_failing_build_is_recorded(alice, alice_design, monkeypatch):
    monkeypatch.setattr(export_jobs, "enqueue", lambda job_id: None)
    job = export_jobs.request_export(alice_design.head, "netbox.zip", show_author=True, user=alice)
    monkeypatch.setattr(services, "revision_floor", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        run_export(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith("ZeroDivisionError")


@SMALL
def test_small_formats_stay_in_the_request_whatever_the_size(alice, alice_design):
    c = _client(alice)
    for fmt in ("bom-only.xlsx", "bom.csv", "bom.json", "slurm.zip"):
        assert c.get(f"/api/v1/designs/{alice_design.pk}/{fmt}").status_code == 200, fmt
    assert not ExportJob.objects.exists()


@SMALL
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_builds_the_export_once_for_four_requests(django_user_model):
    """The embedded broker and a real Celery worker: four requests, one job, one build, then the file."""
    from celery.contrib.testing.worker import start_worker

    from designer.celery import app
    from tests.designer.conftest import make_design

    user = django_user_model.objects.create_user("exporter", password="x-long-pass-1")
    design = make_design(user)
    c = _client(user)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        ids = {c.get(f"/api/v1/designs/{design.pk}/racks.csv").json()["id"] for _ in range(4)}
        assert len(ids) == 1
        (job_id,) = ids
        deadline = time.monotonic() + 60
        while (status := c.get(f"/api/v1/exports/{job_id}/").json())["status"] in ("pending", "running"):
            assert time.monotonic() < deadline, status
            time.sleep(0.1)
    assert status["status"] == "done" and status["attempts"] == 1, status
    _same_content("racks.csv", _inline(c, design, "racks.csv"), _body(c.get(status["download_url"])))


@SMALL
def test_a_workbook_without_its_cut_sheet_says_where_it_is(alice, alice_design, no_build_in_request, monkeypatch):
    """Above WORKBOOK_CUT_SHEET_MAX_ROWS cables the job page of bom.xlsx links the cut sheet's own workbook, and the
    design page offers it; at the limit neither note shows."""
    from designer import views

    cables = alice_design.head.results["bom"]["link_count"]
    c = _client(alice)
    job_page = c.get(c.get(f"/designs/{alice_design.pk}/export/bom.xlsx")["Location"]).content.decode()
    assert 'id="export-cut-sheet-note"' not in job_page  # 5,727 cables: within the default 20,000
    monkeypatch.setattr(views, "WORKBOOK_CUT_SHEET_MAX_ROWS", cables - 1)
    job_page = c.get(f"/exports/{ExportJob.objects.get().pk}/").content.decode()
    assert 'id="export-cut-sheet-note"' in job_page and f"its {cables:,} cables" in job_page
    assert f'href="/designs/{alice_design.pk}/export/cabling.xlsx?revision=1"' in job_page
    design_page = c.get(f"/designs/{alice_design.pk}/").content.decode()
    assert "Cabling plan xlsx" in design_page and "which is its own download" in design_page
