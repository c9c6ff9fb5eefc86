"""The catalog file's text limits are the database's: a generic_reason of 301 characters passed SQLite and failed
PostgreSQL's migration (varchar(300)), so the validator refuses it by name first."""

from __future__ import annotations

from dataclasses import replace

from bom.catalog import DEFAULT_PARTS
from bom.catalog_file import TEXT_LIMITS, source_problems
from bom.models import Part


def test_limits_are_the_models_max_lengths():
    for name, limit in TEXT_LIMITS.items():
        assert Part._meta.get_field(name).max_length == limit, name


def test_a_reason_one_character_too_long_is_named():
    part = replace(DEFAULT_PARTS[0], generic_reason="x" * 301)
    assert f"{part.sku}: generic_reason is 301 characters, at most 300 fit" in source_problems([part])
    assert not [p for p in source_problems([replace(part, generic_reason="x" * 300)]) if "characters" in p]
