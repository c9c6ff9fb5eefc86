"""The test database the suite runs on carries every migration of the app (and `make mutation` warms up on it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import designer

pytestmark = pytest.mark.django_db


def test_every_migration_is_applied():
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    files = sorted(p.stem for p in (Path(designer.__file__).parent / "migrations").glob("0*.py"))
    assert ("designer", files[-1]) in leaves  # one line of migrations, ending at the newest file
    assert executor.migration_plan(leaves) == []  # nothing left to apply
