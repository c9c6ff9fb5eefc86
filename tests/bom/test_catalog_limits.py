"""The catalog file's text limits are the database's (bom.models.Part takes its max_length from
bom.catalog_file.TEXT_LIMITS): a generic_reason of 301 characters passed SQLite and failed PostgreSQL's migration
(varchar(300)), so the validator refuses it by name first."""

from __future__ import annotations

from dataclasses import replace

from bom.catalog import DEFAULT_PARTS
from bom.catalog_file import TEXT_LIMITS, source_problems
from bom.models import Part


def test_limits_are_the_models_max_lengths_and_cover_every_free_text_column():
    for name, limit in TEXT_LIMITS.items():
        assert Part._meta.get_field(name).max_length == limit, name
    free_text = {
        f.name for f in Part._meta.get_fields() if getattr(f, "max_length", None) and not getattr(f, "choices", None)
    }
    assert free_text - {"extra_port_groups"} == set(TEXT_LIMITS)  # extra_port_groups: written from parsed groups


def test_a_reason_one_character_too_long_is_named():
    part = replace(DEFAULT_PARTS[0], generic_reason="x" * 301)
    assert f"{part.sku}: generic_reason is 301 characters, at most 300 fit" in source_problems([part])
    assert not [p for p in source_problems([replace(part, generic_reason="x" * 300)]) if "characters" in p]
