"""Thin Celery tasks: take ids, call services, return plain data."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="designer.ping")
def ping() -> str:
    """Liveness check: a worker that answers 'pong' is consuming from the broker."""
    return "pong"


@shared_task(name="designer.run_chunk", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_chunk(chunk_id: int) -> str:
    """Compute one chunk of a sweep; idempotent (see designer/sweeps.py).

    Its return value is never read (progress and points live in the database), so it is not
    stored: a result write per chunk made two embedded workers 0.97 s instead of 0.81 s on the
    1 M-point bench sweep (the file backend's writes, benchmarks/sweep_e2e.py)."""
    from designer.sweeps import run_chunk as run

    return run(chunk_id, worker=run_chunk.request.hostname or "")


@shared_task(name="designer.reap_stale_chunks")
def reap_stale_chunks() -> int:
    """Re-enqueue chunks of every open sweep whose lease went stale (run by beat)."""
    from designer.sweeps import reap_stale_chunks as reap

    return reap()


@shared_task(name="designer.run_simulation", acks_late=True, reject_on_worker_lost=True)
def run_simulation(run_id: int) -> str:
    """Compute one simulation run or capacity search; claimed once (see designer/simulations.py)."""
    from designer.simulations import run_simulation as run

    return run(run_id)


@shared_task(name="designer.reap_stale_simulations")
def reap_stale_simulations() -> int:
    """Re-enqueue runs whose message was lost or whose worker died (run by beat)."""
    from designer.simulations import reap_stale_runs

    return reap_stale_runs()


@shared_task(name="designer.run_export", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_export(job_id: int) -> str:
    """Build one large export into the database; claimed once (see designer/export_jobs.py)."""
    from designer.export_jobs import run_export as run

    return run(job_id)


@shared_task(name="designer.reap_export_jobs")
def reap_export_jobs() -> int:
    """Re-enqueue lost or dead export jobs; delete finished ones past EXPORT_JOB_TTL_S (run by beat)."""
    from designer.export_jobs import reap

    return reap()
