"""The lease protocol of chunked background jobs — collective sweeps (designer/sweeps.py) and design searches
(designer/searches.py) — in one place.

A job is cut into chunks; each chunk is a Celery task that first *claims* its chunk (pending, or running with a
lease gone stale → running with a fresh lease, one attempt more), computes, and stores its result with the done
mark counted once. A worker killed mid-chunk leaves a stale lease; a lost message leaves a chunk pending. The
*reaper* (every progress poll, every few chunks, and Celery beat) sends both again, and fails the job once a
chunk has failed ``SWEEP_MAX_ATTEMPTS`` times. Statuses are the same five for every job and chunk model."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

PENDING, RUNNING, DONE, FAILED, CANCELLED = "pending", "running", "done", "failed", "cancelled"
OPEN = (PENDING, RUNNING)


@dataclass(frozen=True)
class ChunkJobs:
    """One kind of chunked job: its job and chunk models, the chunk's foreign key to its job (``job_field``), and
    how chunks are sent (``enqueue``: a queryset of chunks → how many were sent)."""

    job_model: type[models.Model]
    chunk_model: type[models.Model]
    job_field: str
    enqueue: Callable[[models.QuerySet], int]

    def claim(self, chunk_id: int, worker: str = "") -> bool:
        """Atomically take a pending chunk, or one whose lease went stale, with a fresh lease."""
        now = timezone.now()
        claimable = Q(status=PENDING) | Q(status=RUNNING, lease_until__lt=now)
        return bool(
            self.chunk_model.objects.filter(claimable, pk=chunk_id).update(
                status=RUNNING,
                lease_until=now + timedelta(seconds=settings.SWEEP_LEASE_S),
                attempts=F("attempts") + 1,
                worker=worker or socket.gethostname(),
            )
        )

    def release(self, chunk_id: int, exc: BaseException) -> None:
        """A chunk whose computation raised: pending again with the error (the reaper counts its attempts)."""
        self.chunk_model.objects.filter(pk=chunk_id, status=RUNNING).update(
            status=PENDING, error=f"{type(exc).__name__}: {exc}", lease_until=None
        )

    def reap(self, job_id: int | None = None) -> int:
        """Re-send chunks whose lease expired (a killed worker) or whose message was lost; chunks that failed
        ``SWEEP_MAX_ATTEMPTS`` times fail their job. A pending chunk is only taken for lost when its job shows no
        progress for a whole lease (no live lease, nothing finished): a chunk that merely waits in a busy queue is
        not sent twice. Returns the chunks sent."""
        now = timezone.now()
        lease = timedelta(seconds=settings.SWEEP_LEASE_S)
        job_id_field = f"{self.job_field}_id"
        chunks = self.chunk_model.objects
        qs = chunks.filter(**{f"{self.job_field}__status__in": OPEN})
        if job_id is not None:
            qs = qs.filter(**{job_id_field: job_id})
        busy = chunks.filter(Q(status=RUNNING, lease_until__gte=now) | Q(finished_at__gte=now - lease)).values(
            job_id_field
        )
        stale = qs.filter(
            Q(status=RUNNING, lease_until__lt=now)
            | (Q(status=PENDING, enqueued_at__lt=now - lease) & ~Q(**{f"{job_id_field}__in": busy}))
        )
        for chunk in stale.filter(attempts__gte=settings.SWEEP_MAX_ATTEMPTS):
            chunks.filter(pk=chunk.pk).update(status=FAILED)
            self.job_model.objects.filter(pk=getattr(chunk, job_id_field)).update(
                status=FAILED,
                finished_at=now,
                error=f"chunk {chunk.number} failed {chunk.attempts} times: {chunk.error or 'worker lost'}",
            )
        ids = list(stale.exclude(attempts__gte=settings.SWEEP_MAX_ATTEMPTS).values_list("pk", flat=True))
        if not ids:
            return 0
        # only chunks still stale at this instant are sent again (another reaper may have been faster)
        chunks.filter(pk__in=ids).filter(Q(status=RUNNING, lease_until__lt=now) | Q(status=PENDING)).update(
            status=PENDING, lease_until=None
        )
        return self.enqueue(chunks.filter(pk__in=ids, status=PENDING))

    def cancel(self, job: models.Model) -> None:
        """An open job cancelled; its chunks not yet claimed with it (running ones see it when they store)."""
        self.job_model.objects.filter(pk=job.pk, status__in=OPEN).update(status=CANCELLED, finished_at=timezone.now())
        self.chunk_model.objects.filter(**{self.job_field: job}, status=PENDING).update(status=CANCELLED)


def rerun_refusal(job, user, noun: str) -> dict[str, list[str]] | None:
    """Why ``user`` may not run ``job`` (a ``noun``: "sweep", "search") again — its revision is gone, or its design
    is no longer theirs to read (unsharing revokes it) — as field errors; None where they may."""
    from designer.models import Design

    if job.revision is None:
        return {"revision": [f"the design revision this {noun} ran on is gone"]}
    if not Design.objects.readable_by(user).filter(pk=job.revision.design_id).exists():
        return {"design": [f"you can no longer read the design this {noun} ran on"]}
    return None
