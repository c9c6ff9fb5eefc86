"""A real Celery worker on the configured broker answers the ping task.

Default run: the embedded filesystem broker (no server). The production-mode suite
(`make test-services`) runs the same test on Redis.
"""

from __future__ import annotations

import pytest
from celery.contrib.testing.worker import start_worker

from designer.celery import app
from designer.tasks import ping


@pytest.fixture(scope="module")
def worker():
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10) as w:
        yield w


def test_worker_answers_ping(worker):
    assert ping.delay().get(timeout=20) == "pong"


@pytest.mark.services
def test_worker_answers_ping_on_services(worker):
    from django.conf import settings

    assert settings.CELERY_BROKER_URL.startswith(("redis://", "amqp://"))
    assert ping.delay().get(timeout=20) == "pong"


@pytest.mark.services
@pytest.mark.django_db
def test_database_is_postgresql():
    from django.db import connection

    assert connection.vendor == "postgresql"
