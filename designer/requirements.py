"""The designer's view of requirements: the pure validation path (cluster.validate) and the
flat ↔ nested layouts, under the names the pages, API and CLI use.

Requirements are stored flat (one column per field of cluster.requirements); files and the
API use a nested layout (``compute_fabric:``, ``storage:``, …). Errors come back under the
name the user typed (flat for the form, dotted for the API and CLI).
"""

from __future__ import annotations

from typing import Any

from cluster.requirements import FIELDS, Requirements, field_path
from cluster.validate import RequirementsError, flatten, from_form_strings, validate
from cluster.validate import validate_flat as validate_typed

LAYOUT: tuple[tuple[str, str, str], ...] = tuple((f.path_section, f.key, f.flat) for f in FIELDS)
SECTIONS = tuple(dict.fromkeys(f.path_section for f in FIELDS if f.path_section))

__all__ = [
    "LAYOUT",
    "SECTIONS",
    "Requirements",
    "RequirementsError",
    "field_path",
    "flatten",
    "from_form_strings",
    "nest",
    "validate",
    "validate_flat",
    "validate_typed",
]


def validate_flat(flat: dict[str, Any]) -> dict[str, Any]:
    """Flat raw values → the complete validated flat requirements (defaults filled in)."""
    return validate_typed(flat).flat()


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    """Complete flat requirements (a stored revision) → the nested file/API layout."""
    return Requirements.from_flat(flat).nested()
