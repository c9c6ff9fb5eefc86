"""Test settings: the base settings with a test secret key and a private var/ folder.

The private VAR_DIR keeps the test run's SQLite file and embedded broker apart from a
`make run` worker on the same checkout. Services (DATABASE_URL, CELERY_BROKER_URL)
still come from the environment, as in production.
"""

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="designer-test-"))

from designer.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # a file, not shared-cache memory: a worker thread writes while the test reads (WAL)
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}  # noqa: F405

# pages render without a collected manifest; tests/designer/test_deploy.py collects one the production way
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405

# no cross-test memo: a rolled-back test may reuse a revision id (tests/designer/test_caching.py uses a real cache)
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
