"""Large exports as background jobs: a request asks, a Celery worker builds, any web process streams it out.

An export that builds the floor plan (HEAVY_EXPORTS) of a revision with more links than
settings.EXPORT_INLINE_MAX_LINKS is not built in the request: the request finds or creates the one
ExportJob of that (revision, format, author line, catalog) and answers at once. The size measure is
the link count saved with the revision's BOM (the cut sheet's row count): reading it costs nothing,
planning a 100k-GPU floor takes seconds.

The database is the source of truth, as for simulation runs: a job is claimed by a conditional UPDATE
(pending → running, or running with a stale heartbeat), so a message delivered twice builds once; the
worker beats every HEARTBEAT_S from a thread while it builds; the file is written in one transaction
that first checks the job is still this attempt's, as zlib-compressed chunks of CHUNK_BYTES
(ExportChunk), and streamed out a chunk at a time — the same on SQLite and PostgreSQL, with the web
and the workers on any machines. :func:`reap` (beat, every minute, and every poll of an open job)
queues again lost or dead jobs and deletes finished ones after settings.EXPORT_JOB_TTL_S.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.http import StreamingHttpResponse
from django.utils import timezone

from designer.models import ExportChunk, ExportJob

HEAVY_EXPORTS = ("bom.xlsx", "netbox.zip", "cabling.csv", "cabling.xlsx", "racks.csv", "elevations.svg")
LINKS_PER_GPU_ESTIMATE = 5  # a revision saved without a BOM: 415,132 links at 102,400 GPUs is 4.05
CHUNK_BYTES = 1 << 20
HEARTBEAT_S = 10.0
RUNNING_STALE_S = 60.0
PENDING_STALE_S = 120.0
FAILED_RETRY_S = 60.0
MAX_ATTEMPTS = 3
Status = ExportJob.Status
OPEN = (Status.PENDING, Status.RUNNING)


def export_size_links(revision) -> int:
    """The links of a revision as saved with its BOM (no planning); an estimate from its GPUs otherwise."""
    count = ((revision.results or {}).get("bom") or {}).get("link_count")
    if isinstance(count, int):
        return count
    return (revision.gpu_count or 0) * LINKS_PER_GPU_ESTIMATE


def needs_job(revision, fmt: str) -> bool:
    return fmt in HEAVY_EXPORTS and export_size_links(revision) > settings.EXPORT_INLINE_MAX_LINKS


def request_export(revision, fmt: str, *, show_author: bool, user=None) -> ExportJob:
    """The job of this export: the one already asked for (restarted when expired, or failed a while ago)
    or a new one, queued once the request's transaction commits."""
    from designer.services import catalog_stamp, current_catalog

    key = {
        "revision": revision,
        "fmt": fmt,
        "show_author": show_author,
        "catalog_stamp": catalog_stamp(current_catalog()),
    }
    job = ExportJob.objects.filter(**key).first()
    if job is None:
        requester = user if user is not None and user.is_authenticated else None
        try:
            with transaction.atomic():
                job = ExportJob.objects.create(**key, requested_by=requester, size_links=export_size_links(revision))
        except IntegrityError:  # another request created it first
            job = ExportJob.objects.get(**key)
        else:
            job_id = job.pk
            transaction.on_commit(lambda: enqueue(job_id))
            return job
    return _restarted(job)


def _restarted(job: ExportJob) -> ExportJob:
    now = timezone.now()
    expired = job.status == Status.DONE and job.finished_at < now - timedelta(seconds=settings.EXPORT_JOB_TTL_S)
    retry = job.status in (Status.FAILED, Status.CANCELLED) and job.finished_at < now - timedelta(
        seconds=FAILED_RETRY_S
    )
    if job.status in OPEN:
        reap(job.pk)
    elif (expired or retry) and ExportJob.objects.filter(
        pk=job.pk, status=job.status, finished_at=job.finished_at
    ).update(status=Status.PENDING, stage="", progress_frac=0.0, attempts=0, error="", finished_at=None, chunk_count=0):
        ExportChunk.objects.filter(job_id=job.pk).delete()
        job_id = job.pk
        transaction.on_commit(lambda: enqueue(job_id))
    job.refresh_from_db()
    return job


def enqueue(job_id: int) -> None:
    ExportJob.objects.filter(pk=job_id).update(enqueued_at=timezone.now())
    run_export_task.delay(job_id)


# --- the worker's side -------------------------------------------------------------------------


class _Lost(Exception):
    """The job is no longer this attempt's (queued again after a stale heartbeat, or deleted)."""


def claim(job_id: int) -> int | None:
    """This attempt's number when the job was pending (or running with a dead worker), else None."""
    now = timezone.now()
    stale = now - timedelta(seconds=RUNNING_STALE_S)
    n = (
        ExportJob.objects.filter(pk=job_id, attempts__lt=MAX_ATTEMPTS)
        .filter(Q(status=Status.PENDING) | Q(status=Status.RUNNING, heartbeat_at__lt=stale))
        .update(
            status=Status.RUNNING,
            started_at=now,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            stage="starting",
            progress_frac=0.0,
        )
    )
    return ExportJob.objects.values_list("attempts", flat=True).get(pk=job_id) if n else None


def _progress_writer(job_id: int, attempt: int):
    def write(stage: str, frac: float) -> None:
        mine = ExportJob.objects.filter(pk=job_id, status=Status.RUNNING, attempts=attempt)
        if not mine.update(stage=stage[:40], progress_frac=max(0.0, min(1.0, frac)), heartbeat_at=timezone.now()):
            raise _Lost

    return write


def _heartbeat(job_id: int, attempt: int) -> threading.Event:
    """Beat every HEARTBEAT_S while the job builds (one stage of a 100k-GPU workbook takes a minute)."""
    stop = threading.Event()

    def beat() -> None:
        from django.db import connection

        try:
            while not stop.wait(HEARTBEAT_S):
                ExportJob.objects.filter(pk=job_id, status=Status.RUNNING, attempts=attempt).update(
                    heartbeat_at=timezone.now()
                )
        finally:
            connection.close()

    threading.Thread(target=beat, name=f"export-{job_id}-heartbeat", daemon=True).start()
    return stop


def run_export(job_id: int) -> str:
    """Build one export (the Celery task's body); a job claimed elsewhere, finished or gone is left alone."""
    attempt = claim(job_id)
    if attempt is None:
        return "skipped"
    job = ExportJob.objects.select_related("revision", "revision__author").get(pk=job_id)
    progress = _progress_writer(job_id, attempt)
    stop = _heartbeat(job_id, attempt)
    try:
        content, ctype, filename = _build(job, progress)
        pieces, size = _compressed(content)
        del content
        progress("storing", 0.95)
        _store(job_id, attempt, pieces, size_bytes=size, filename=filename, content_type=ctype)
    except _Lost:
        return "lost"
    except Exception as exc:
        ExportJob.objects.filter(pk=job_id, status=Status.RUNNING, attempts=attempt).update(
            status=Status.FAILED, finished_at=timezone.now(), error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    finally:
        stop.set()
    return "done"


def _build(job: ExportJob, progress) -> tuple[Iterable[bytes], str, str]:
    """(content as byte pieces, content type, filename): exactly what the request would have answered."""
    from designer.services import _export_bom, cabling_stream, current_catalog

    catalog = current_catalog()
    if job.fmt == "cabling.csv":  # streamed as in the request: the rows are never one string
        progress("floor plan", 0.05)
        chunks, filename = cabling_stream(job.revision, catalog)
        return (c.encode() for c in chunks), "text/csv", filename
    content, ctype, filename = _export_bom(
        job.revision, job.fmt, catalog, show_author=job.show_author, progress=progress
    )
    return [content], ctype, filename


def _compressed(pieces: Iterable[bytes]) -> tuple[list[bytes], int]:
    """The content cut into CHUNK_BYTES pieces, each zlib-compressed (level 1: fast); and its size."""
    out: list[bytes] = []
    buf = bytearray()
    size = 0
    for piece in pieces:
        buf += piece
        size += len(piece)
        while len(buf) >= CHUNK_BYTES:
            out.append(zlib.compress(bytes(buf[:CHUNK_BYTES]), 1))
            del buf[:CHUNK_BYTES]
    if buf or not out:
        out.append(zlib.compress(bytes(buf), 1))
    return out, size


def _store(job_id: int, attempt: int, pieces: list[bytes], **fields: Any) -> None:
    with transaction.atomic():
        mine = ExportJob.objects.select_for_update().filter(pk=job_id, status=Status.RUNNING, attempts=attempt)
        if mine.first() is None:
            raise _Lost
        ExportChunk.objects.filter(job_id=job_id).delete()
        for start in range(0, len(pieces), 8):
            batch = pieces[start : start + 8]
            ExportChunk.objects.bulk_create(
                ExportChunk(job_id=job_id, number=start + i, data=data) for i, data in enumerate(batch)
            )
        mine.update(
            status=Status.DONE,
            stage="done",
            progress_frac=1.0,
            finished_at=timezone.now(),
            chunk_count=len(pieces),
            stored_bytes=sum(len(p) for p in pieces),
            error="",
            **fields,
        )


def reap(job_id: int | None = None) -> int:
    """Queue again jobs whose message was lost or whose worker died (failing those past MAX_ATTEMPTS);
    with no ``job_id`` (beat) also delete the finished ones older than settings.EXPORT_JOB_TTL_S."""
    now = timezone.now()
    qs = ExportJob.objects.filter(pk=job_id) if job_id is not None else ExportJob.objects.all()
    dead = qs.filter(status=Status.RUNNING, heartbeat_at__lt=now - timedelta(seconds=RUNNING_STALE_S))
    dead.filter(attempts__gte=MAX_ATTEMPTS).update(
        status=Status.FAILED,
        finished_at=now,
        error=f"the worker stopped {MAX_ATTEMPTS} times while building it (no heartbeat for {RUNNING_STALE_S:g} s)",
    )
    count = 0
    for job in dead.filter(attempts__lt=MAX_ATTEMPTS):
        if ExportJob.objects.filter(pk=job.pk, status=Status.RUNNING, heartbeat_at=job.heartbeat_at).update(
            status=Status.PENDING, progress_frac=0.0, stage=""
        ):
            enqueue(job.pk)
            count += 1
    before = now - timedelta(seconds=PENDING_STALE_S)
    for pk in (
        qs.filter(Q(enqueued_at__lt=before) | Q(enqueued_at__isnull=True, created_at__lt=before))
        .filter(status=Status.PENDING)
        .values_list("pk", flat=True)
    ):
        enqueue(pk)
        count += 1
    if job_id is None:
        ttl = now - timedelta(seconds=settings.EXPORT_JOB_TTL_S)
        ExportJob.objects.exclude(status__in=OPEN).filter(finished_at__lt=ttl).delete()
    return count


# --- reading it back ---------------------------------------------------------------------------


def job_progress(job: ExportJob) -> dict[str, Any]:
    if job.status in OPEN:
        reap(job.pk)
        job.refresh_from_db()
    now = timezone.now()
    elapsed = ((job.finished_at or now) - job.started_at).total_seconds() if job.started_at else 0.0
    expires = job.finished_at + timedelta(seconds=settings.EXPORT_JOB_TTL_S) if job.status == Status.DONE else None
    return {
        "id": job.pk,
        "design": job.revision.design_id,
        "revision": job.revision.number,
        "format": job.fmt,
        "status": job.status,
        "stage": job.stage,
        "fraction_done": job.progress_frac,
        "elapsed_s": round(elapsed, 1),
        "attempts": job.attempts,
        "error": job.error,
        "size_links": job.size_links,
        "filename": job.filename,
        "size_bytes": job.size_bytes,
        "expires_at": expires.isoformat() if expires else None,
    }


def _chunks(job_id: int, count: int) -> Iterator[bytes]:
    """The file a chunk at a time: one row in memory, whichever the database."""
    for number in range(count):
        data = ExportChunk.objects.filter(job_id=job_id, number=number).values_list("data", flat=True).first()
        if data is None:  # restarted meanwhile: the file is gone
            return
        yield zlib.decompress(data)


def download_response(job: ExportJob) -> StreamingHttpResponse:
    """A finished job's file, streamed, with the headers the request would have given it."""
    resp = StreamingHttpResponse(_chunks(job.pk, job.chunk_count), content_type=job.content_type)
    disposition = "inline" if job.fmt == "elevations.svg" else "attachment"  # the drawing opens in the browser
    resp["Content-Disposition"] = f'{disposition}; filename="{job.filename}"'
    resp["Content-Length"] = str(job.size_bytes)
    return resp


def readable_job(user, pk: int) -> ExportJob:
    """A job of a design ``user`` may read (designer.access: anyone else gets 404)."""
    from django.http import Http404

    from designer.access import visible_design

    job = ExportJob.objects.select_related("revision").defer("revision__results").filter(pk=pk).first()
    if job is None:
        raise Http404("no such export")
    visible_design(user, job.revision.design_id)
    return job


def shared_job(token: str, pk: int) -> ExportJob:
    """A job of the design shared by ``token``, as its link's readers get it (no author names)."""
    from django.http import Http404

    job = (
        ExportJob.objects.select_related("revision")
        .defer("revision__results")  # a 100k-GPU revision's results are megabytes; a poll needs its number
        .filter(
            pk=pk,
            show_author=False,
            revision__design__share_token=token,
            revision__design__deleted_at__isnull=True,
        )
        .first()
    )
    if job is None or not token:
        raise Http404("no such export")
    return job


# --- the Celery tasks (registered by name; designer/tasks.py lists them for the worker) ---------------------


@shared_task(name="designer.run_export", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_export_task(job_id: int) -> str:
    """Build one large export into the database; claimed once (see :func:`run_export`)."""
    return run_export(job_id)


@shared_task(name="designer.reap_export_jobs")
def reap_export_jobs_task() -> int:
    """Re-enqueue lost or dead export jobs; delete finished ones past EXPORT_JOB_TTL_S (run by beat)."""
    return reap()
