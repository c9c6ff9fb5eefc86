"""Cell text of the csv exports (the BOM, the cut sheet, the rack elevations, NetBox): what every writer shares,
below them all so none of them imports another for it."""

from __future__ import annotations

from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: Any) -> Any:
    """Neutralise spreadsheet formula injection in csv: prefix a quote to risky leading characters."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value
