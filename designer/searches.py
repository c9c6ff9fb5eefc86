"""Design searches, the service side: spec → candidates → chunks → tasks; leases, idempotent rows, reaping,
progress, the report, saving a candidate as a revision. The search itself is pure (cluster/search.py).

As for sweeps (designer/sweeps.py): a chunk is claimed by an atomic UPDATE that sets a lease; its rows are
written by the conditional UPDATE running → done, so a chunk computed twice (a worker killed mid-chunk, its lease
run out, the chunk re-sent) is stored and counted once; chunks whose lease went stale or whose message was lost
are re-enqueued by :func:`reap_stale_search_chunks` (the beat, every eighth chunk, every progress poll). The
worker that finishes the last chunk writes the report (any worker may: it is computed from the stored rows).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cluster.search import (
    SearchSpec,
    SearchSpecError,
    candidate_flat,
    chunks,
    evaluate_flat,
    evaluate_range,
    parse_spec,
    report,
)
from designer.chunk_leases import ChunkJobs, rerun_refusal
from designer.search_models import DesignSearch, DesignSearchChunk

Status = DesignSearch.Status
OPEN = (Status.PENDING, Status.RUNNING)


def pack_rows(rows: list[dict[str, Any]]) -> bytes:
    return zlib.compress(json.dumps(rows, separators=(",", ":")).encode(), 6)


def unpack_rows(blob: bytes | memoryview | None) -> list[dict[str, Any]]:
    return [] if blob is None else json.loads(zlib.decompress(bytes(blob)))


def spec_of(search: DesignSearch) -> SearchSpec:
    return parse_spec(search.base, search.spec, limit=settings.SEARCH_MAX_CANDIDATES)


def check_budget(base: dict[str, Any]) -> None:
    """Every candidate has the base design's GPUs: one within MAX_REQUEST_GPUS plans within a request's budget."""
    gpus, ceiling = int(base["gpu_count"]), settings.MAX_REQUEST_GPUS
    if gpus > ceiling:
        raise SearchSpecError(
            {"design": [f"{gpus:,} GPUs is more than the {ceiling:,} a request may plan (MAX_REQUEST_GPUS); "
                        "search it with `cluster-designer search FILE.yaml`"]}
        )  # fmt: skip


def create_search(user, revision, spec: dict[str, Any], name: str = "", chunk_size: int | None = None):
    """Check the spec (field errors; the candidate count against SEARCH_MAX_CANDIDATES), store the search and its
    chunks, and enqueue them once the transaction commits. Nothing is planned here."""
    base = json.loads(json.dumps(revision.requirements(), cls=DjangoJSONEncoder))  # Decimal → str, as JSON keeps it
    check_budget(base)
    parsed = parse_spec(base, spec, limit=settings.SEARCH_MAX_CANDIDATES)
    size = chunk_size or settings.SEARCH_CHUNK_CANDIDATES
    with transaction.atomic():
        search = DesignSearch.objects.create(
            owner=user,
            design=revision.design,
            revision=revision,
            name=name or f"{revision.name} r{revision.number}: search over {', '.join(k for k, _ in parsed.vary)}",
            spec=spec,
            base=base,
            total_candidates=parsed.candidate_count,
            chunk_candidates=size,
        )
        DesignSearchChunk.objects.bulk_create(
            DesignSearchChunk(search=search, number=i, start=a, stop=b)
            for i, (a, b) in enumerate(chunks(parsed.candidate_count, size))
        )
        transaction.on_commit(lambda: enqueue(search.chunks.filter(status=Status.PENDING)))
    return search


def enqueue(qs) -> int:
    from celery import group

    ids = list(qs.values_list("pk", flat=True))
    if not ids:
        return 0
    DesignSearchChunk.objects.filter(pk__in=ids).update(enqueued_at=timezone.now())
    group(run_search_chunk_task.s(pk) for pk in ids).apply_async()
    return len(ids)


SEARCHES = ChunkJobs(DesignSearch, DesignSearchChunk, "search", lambda chunks: enqueue(chunks))


def claim_chunk(chunk_id: int, worker: str = "") -> bool:
    return SEARCHES.claim(chunk_id, worker)


def store_chunk(chunk: DesignSearchChunk, rows: list[dict[str, Any]]) -> bool:
    """running → done with its rows, counted once however many workers computed the chunk."""
    feasible = sum(r["s"] == "feasible" for r in rows)
    with transaction.atomic():
        done = DesignSearchChunk.objects.filter(pk=chunk.pk, status=Status.RUNNING).update(
            status=Status.DONE, rows=pack_rows(rows), feasible_count=feasible, finished_at=timezone.now()
        )
        if done:
            DesignSearch.objects.filter(pk=chunk.search_id).update(
                done_candidates=F("done_candidates") + chunk.size,
                feasible_candidates=F("feasible_candidates") + feasible,
            )
    return bool(done)


def current_catalog():
    from designer.services import current_catalog as catalog

    return catalog()


REAP_EVERY_CHUNKS = 8


def run_search_chunk(chunk_id: int, worker: str = "") -> str:
    """Claim, evaluate the chunk's candidates, store them with the done mark, finish the search if it was the last.
    Safe to run twice."""
    if not claim_chunk(chunk_id, worker):
        return "skipped"
    chunk = DesignSearchChunk.objects.select_related("search").get(pk=chunk_id)
    search = chunk.search
    if search.status not in OPEN:
        DesignSearchChunk.objects.filter(pk=chunk_id).update(status=Status.CANCELLED)
        return "cancelled"
    DesignSearch.objects.filter(pk=search.pk, status=Status.PENDING).update(
        status=Status.RUNNING, started_at=timezone.now()
    )
    try:
        rows = evaluate_range(spec_of(search), chunk.start, chunk.stop, current_catalog())
    except Exception as exc:
        SEARCHES.release(chunk_id, exc)
        raise
    store_chunk(chunk, rows)
    finish_if_complete(search.pk)
    if chunk.number % REAP_EVERY_CHUNKS == 0:
        reap_stale_search_chunks(search.pk)
    return "done"


def all_rows(search: DesignSearch) -> list[dict[str, Any]]:
    """Every stored row in index order (one chunk's blob at a time)."""
    out: list[dict[str, Any]] = []
    for pk in search.chunks.order_by("start").values_list("pk", flat=True):
        blob = DesignSearchChunk.objects.filter(pk=pk).values_list("rows", flat=True).first()
        out.extend(unpack_rows(blob))
    return out


def chart_points(rows: list[dict[str, Any]]) -> list[list[Any]]:
    """Every feasible candidate for the charts: [index, CapEx $, bisection TB/s, facility kW, all-reduce µs]."""
    keep = [r for r in rows if r["s"] == "feasible"]
    return [[r["i"], float(r["f"]["capex_usd"]), r["f"]["bisection_tbyte_s"], r["f"]["facility_kw"],
             r["f"]["allreduce_time_us"]] for r in keep]  # fmt: skip


def finish_if_complete(search_id: int) -> None:
    search = DesignSearch.objects.get(pk=search_id)
    if search.status not in OPEN or search.chunks.exclude(status=Status.DONE).exists():
        return
    spec = spec_of(search)
    rows = all_rows(search)
    catalog = current_catalog()
    base_row = evaluate_flat(spec, dict(spec.base), catalog)
    out = report(spec, rows, base_row, catalog=catalog)
    out["points"] = chart_points(rows)
    DesignSearch.objects.filter(pk=search_id, status__in=OPEN).update(
        status=Status.DONE, report=out, finished_at=timezone.now()
    )


def reap_stale_search_chunks(search_id: int | None = None) -> int:
    """Re-enqueue chunks whose lease expired (a killed worker) or whose message was lost (ChunkJobs.reap)."""
    return SEARCHES.reap(search_id)


def cancel_search(search: DesignSearch) -> None:
    SEARCHES.cancel(search)


def rerun_search(search: DesignSearch, user) -> DesignSearch:
    """Run the same spec again on the same revision — while its user may still read the design."""
    refusal = rerun_refusal(search, user, "search")
    if refusal:
        raise SearchSpecError(refusal)
    return create_search(user, search.revision, search.spec, name=search.name, chunk_size=search.chunk_candidates)


INLINE_REPORT_CANDIDATES = 2_000  # a poll may write a small report itself (≈ 0.1 s); larger ones are a worker's


def search_progress(search: DesignSearch) -> dict[str, Any]:
    """Progress; polling also re-sends stale chunks. A finished search's report is written by the worker that
    stores its last chunk (or the beat's reaper, if that worker died first); a poll writes it only when it is
    small and needs no simulation, so a request never does a search's heavy work."""
    if search.status in OPEN:
        reap_stale_search_chunks(search.pk)
        light = search.total_candidates <= INLINE_REPORT_CANDIDATES and not search.spec.get("workload_target")
        if light:
            finish_if_complete(search.pk)
        search.refresh_from_db()
    now = timezone.now()
    elapsed = ((search.finished_at or now) - search.started_at).total_seconds() if search.started_at else 0.0
    rate = search.done_candidates / elapsed if elapsed > 0 else 0.0
    remaining = search.total_candidates - search.done_candidates
    return {
        "id": search.pk,
        "status": search.status,
        "done_candidates": search.done_candidates,
        "feasible_candidates": search.feasible_candidates,
        "total_candidates": search.total_candidates,
        "fraction_done": search.done_candidates / search.total_candidates if search.total_candidates else 1.0,
        "candidates_per_s": round(rate, 1),
        "eta_s": round(remaining / rate, 1) if rate > 0 and search.status == Status.RUNNING else None,
        "error": search.error,
    }


class DesignNotWritable(SearchSpecError):
    """Saving a candidate into a design the user may read but not change (the API answers 403, as for any write the
    user is not allowed; the page shows the message)."""


def save_candidate(search: DesignSearch, index: int, user, message: str = ""):
    """Candidate ``index`` as a new revision of the search's design (its own evaluation: the same figures)."""
    from designer.services import evaluate_flat as evaluate
    from designer.services import save_revision

    if search.design is None or not search.design.can_edit(user):
        raise DesignNotWritable(
            {"design": ["you cannot add a revision to this design (not yours, or deleted): clone it and search that"]}
        )
    spec = spec_of(search)
    if not 0 <= index < spec.candidate_count:
        raise SearchSpecError({"candidate": [f"no candidate {index} (0 … {spec.candidate_count - 1})"]})
    flat = candidate_flat(spec, index)
    if flat is None:
        raise SearchSpecError({"candidate": [f"candidate {index} duplicates another (an axis its family ignores)"]})
    message = message or f"search {search.pk}, candidate {index}"
    return save_revision(search.design, user, flat, evaluate(flat), message=message)


# --- the Celery tasks (registered by name; designer/tasks.py lists them for the worker) ---------------------


@shared_task(name="designer.run_search_chunk", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_search_chunk_task(chunk_id: int) -> str:
    """Evaluate one chunk of a design search; idempotent (see :func:`run_search_chunk`)."""
    return run_search_chunk(chunk_id, worker=run_search_chunk_task.request.hostname or "")


@shared_task(name="designer.reap_stale_search_chunks")
def reap_stale_search_chunks_task() -> int:
    """The beat: re-send stale chunks, and write the report of any search whose chunks are all done (its last
    worker died between storing the chunk and writing the report)."""
    for pk in (
        DesignSearch.objects.filter(status__in=OPEN).exclude(chunks__status__in=OPEN).values_list("pk", flat=True)
    ):
        finish_if_complete(pk)
    return reap_stale_search_chunks()
