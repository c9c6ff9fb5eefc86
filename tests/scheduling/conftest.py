"""Fixtures of the designer tests (users) for the scheduler pages."""

from tests.designer.conftest import alice, bob  # noqa: F401
