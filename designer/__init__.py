"""The Django project package and main app; the only place that touches ORM, HTTP and Celery."""

from designer.celery import app as celery_app

__all__ = ["celery_app"]
