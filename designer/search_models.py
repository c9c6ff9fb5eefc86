"""Design searches (cluster/search.py on Celery): the search, and its chunks of candidates with their rows.

Imported by designer/models.py (one line), so Django registers them with the designer app. The database is the
source of truth, as for sweeps (designer/sweeps.py): a chunk is claimed with a lease by a conditional UPDATE; its
rows (zlib-compressed JSON, ≈ 60–120 bytes a candidate) are written by the same conditional UPDATE that marks it
done, so a chunk computed twice (a killed worker's lease ran out) is stored and counted once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class DesignSearch(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="design_searches")
    design = models.ForeignKey(
        "designer.Design", null=True, blank=True, on_delete=models.SET_NULL, related_name="searches"
    )
    revision = models.ForeignKey(
        "designer.DesignRevision", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name = models.CharField(max_length=200)
    spec = models.JSONField(help_text="what the user asked for: vary, constraints, objectives, allreduce_bytes")
    base = models.JSONField(help_text="the base revision's flat requirements, as the search used them")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    total_candidates = models.PositiveIntegerField(default=0)
    done_candidates = models.PositiveIntegerField(default=0)
    feasible_candidates = models.PositiveIntegerField(default=0)
    chunk_candidates = models.PositiveIntegerField(default=50)
    report = models.JSONField(null=True, blank=True, help_text="fronts, ranking, refusals, equal views (when done)")
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.name


class DesignSearchChunk(models.Model):
    Status = DesignSearch.Status

    search = models.ForeignKey(DesignSearch, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    feasible_count = models.PositiveIntegerField(default=0)
    rows = models.BinaryField(null=True, blank=True, help_text="zlib-compressed JSON list of the candidates' rows")

    class Meta:
        ordering = ["search", "number"]
        constraints = [models.UniqueConstraint(fields=["search", "number"], name="unique_search_chunk_number")]
        indexes = [models.Index(fields=["search", "status"])]

    @property
    def size(self) -> int:
        return self.stop - self.start
