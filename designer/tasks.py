"""The Celery tasks, by name: Celery's autodiscovery imports this module, which registers them all.

Each task is defined beside the service it calls (designer/sweeps.py, simulations.py, export_jobs.py), so a
service enqueues its own task without importing this module: tasks → services only, no import circle. The
tasks stay thin: take ids, call the service, return plain data.
"""

from __future__ import annotations

from celery import shared_task

from designer.export_jobs import reap_export_jobs_task as reap_export_jobs
from designer.export_jobs import run_export_task as run_export
from designer.searches import reap_stale_search_chunks_task as reap_stale_search_chunks
from designer.searches import run_search_chunk_task as run_search_chunk
from designer.simulations import reap_stale_simulations_task as reap_stale_simulations
from designer.simulations import run_simulation_task as run_simulation
from designer.sweeps import reap_stale_chunks_task as reap_stale_chunks
from designer.sweeps import run_chunk_task as run_chunk
from designer.sweeps import send_chunks_task as send_sweep_chunks

__all__ = [
    "ping",
    "reap_export_jobs",
    "reap_stale_chunks",
    "reap_stale_search_chunks",
    "reap_stale_simulations",
    "run_chunk",
    "run_export",
    "run_search_chunk",
    "run_simulation",
    "send_sweep_chunks",
]


@shared_task(name="designer.ping")
def ping() -> str:
    """Liveness check: a worker that answers 'pong' is consuming from the broker."""
    return "pong"
