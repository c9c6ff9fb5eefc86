"""Thin Celery tasks: take ids or plain data, call services, return plain data."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="designer.ping")
def ping() -> str:
    """Liveness check: a worker that answers 'pong' is consuming from the broker."""
    return "pong"
