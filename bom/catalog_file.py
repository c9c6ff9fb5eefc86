"""The built-in catalog's data file (bom/data/catalog.toml) read into PartSpecs, and its rules (pure: no Django).

A malformed file is refused with a CatalogDataError naming the row (its number and sku) and the field; the
sourcing rules (every part has a source URL and date, a generic part says why, part numbers are unique) are
``source_problems``, which the loader applies too, so a built-in part without a source never loads.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from bom.parts import CableMedia, PartKind, PartSpec

GENERIC = "generic"
REQUIRED = ("sku", "kind", "vendor", "description", "unit_price_usd", "price_source", "manufacturer",
            "source_url", "source_date")  # fmt: skip
# purchase fields a price book sets, never the catalog file
NOT_IN_FILE = {"currency", "price_date", "lead_time_weeks", "quote_reference", "list_price_usd", "discount_pct"}
_FIELDS = {f.name: f for f in fields(PartSpec) if f.name not in NOT_IN_FILE}


class CatalogDataError(ValueError):
    """The catalog file is malformed: the message names the row and the field."""


@dataclass(frozen=True)
class CatalogFile:
    version: int
    price_book: dict[str, Any]
    parts: tuple[PartSpec, ...]


def read_catalog(path: Path, provenance: Mapping[str, str], today: date | None = None) -> CatalogFile:
    """The file at ``path`` as PartSpecs; ``provenance`` fills the {NAME}s of price_source. Raises
    CatalogDataError on a malformed file or a part that breaks the sourcing rules."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogDataError(f"{path.name}: {exc}") from None
    version = data.get("catalog_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CatalogDataError(f"{path.name}: catalog_version must be a whole number ≥ 1, got {version!r}")
    book = data.get("price_book")
    if not isinstance(book, dict):
        raise CatalogDataError(f"{path.name}: no [price_book] table")
    rows = data.get("part")
    if not isinstance(rows, list) or not rows:
        raise CatalogDataError(f"{path.name}: no [[part]] rows")
    parts = tuple(part_from_row(n, row, provenance) for n, row in enumerate(rows, 1))
    problems = source_problems(parts, today)
    if problems:
        raise CatalogDataError(f"{path.name}: " + "; ".join(problems))
    return CatalogFile(version, dict(book), parts)


def part_from_row(n: int, row: Any, provenance: Mapping[str, str]) -> PartSpec:
    """One [[part]] row (the ``n``-th) as a PartSpec, every field checked."""
    if not isinstance(row, dict):
        raise CatalogDataError(f"part {n}: not a table")
    where = f"part {n} ({row.get('sku', 'no sku')!r})"
    unknown = sorted(set(row) - set(_FIELDS))
    if unknown:
        raise CatalogDataError(f"{where}: unknown field {unknown[0]!r}")
    missing = [name for name in REQUIRED if name not in row]
    if missing:
        raise CatalogDataError(f"{where}: field {missing[0]!r} is missing")
    values = {name: _value(where, name, value, provenance) for name, value in row.items()}
    return PartSpec(**values)


def _value(where: str, name: str, value: Any, provenance: Mapping[str, str]) -> Any:
    """A row's field as the PartSpec holds it (Decimal money, enums), or CatalogDataError naming it."""
    try:
        if name == "unit_price_usd":
            return _money(value)
        if name == "kind":
            return PartKind(value)
        if name == "media":
            return CableMedia(value) if value else ""
        if name == "price_source":
            return str(value).format_map(provenance)
    except (ValueError, KeyError, InvalidOperation, TypeError) as exc:
        raise CatalogDataError(f"{where}: field {name!r}: {exc!r} ({value!r})") from None
    _check_type(where, name, value)
    return value


def _money(value: Any) -> Decimal:
    if not isinstance(value, str):
        raise ValueError('money is written as a string, e.g. "65000"')
    amount = Decimal(value)
    if not amount.is_finite() or amount < 0:
        raise ValueError("not a price ≥ 0")
    return amount


def _check_type(where: str, name: str, value: Any) -> None:
    default = _FIELDS[name].default
    kinds: tuple[type, ...] = (str,)
    if isinstance(default, bool):
        kinds = (bool,)
    elif isinstance(default, float):
        kinds = (int, float)  # 400 or 6.5: kept as written, as the Python catalog had them
    elif isinstance(default, int):
        kinds = (int,)
    if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
        raise CatalogDataError(f"{where}: field {name!r} must be {kinds[0].__name__}, got {value!r}")
    if int in kinds and value < 0:
        raise CatalogDataError(f"{where}: field {name!r} must be ≥ 0, got {value!r}")


def source_problems(parts: Iterable[PartSpec], today: date | None = None) -> list[str]:
    """What breaks the sourcing rules, one message per part and rule, each naming the part: a source URL
    (http/https) and an ISO source date not after ``today``; a generic part, or a part without a maker's
    number, says why; a maker's part number belongs to one part."""
    today = today or date.today()
    parts = list(parts)
    problems = [p for part in parts for p in _part_problems(part, today)]
    seen: dict[str, str] = {}
    for part in parts:
        number = part.mfr_part_number.casefold()
        if number and number in seen:
            problems.append(f"{part.sku}: mfr_part_number {part.mfr_part_number!r} is also {seen[number]}'s")
        seen.setdefault(number, part.sku)
    return problems


TEXT_LIMITS = {
    "sku": 60, "vendor": 60, "description": 300, "breakout": 40, "form_factor": 20,
    "manufacturer": 60, "mfr_part_number": 60, "source_url": 300, "generic_reason": 300,
}  # fmt: skip
"""Characters each free-text field of a part may hold — bom.models.Part's columns take their max_length from here
(PostgreSQL refuses longer text where SQLite stores it, so the file is checked before any database sees it)."""


def _part_problems(part: PartSpec, today: date) -> list[str]:
    out = [
        f"{part.sku}: {name} is {len(getattr(part, name))} characters, at most {limit} fit"
        for name, limit in TEXT_LIMITS.items()
        if len(getattr(part, name)) > limit
    ]
    url = urlparse(part.source_url)
    if url.scheme not in ("http", "https") or not url.netloc:
        out.append(f"{part.sku}: source_url must be an http(s) address, got {part.source_url!r}")
    try:
        read_on = date.fromisoformat(part.source_date)
        if read_on > today:
            out.append(f"{part.sku}: source_date {part.source_date} is in the future")
    except ValueError:
        out.append(f"{part.sku}: source_date must be an ISO date (YYYY-MM-DD), got {part.source_date!r}")
    if not part.manufacturer.strip():
        out.append(f"{part.sku}: manufacturer is empty (name the maker, or 'generic' with a generic_reason)")
    elif not part.generic_reason.strip() and (part.manufacturer == GENERIC or not part.mfr_part_number):
        what = "generic" if part.manufacturer == GENERIC else "without a mfr_part_number"
        out.append(f"{part.sku}: {what} but no generic_reason says why")
    if part.manufacturer == GENERIC and part.mfr_part_number:
        out.append(f"{part.sku}: generic but has a mfr_part_number ({part.mfr_part_number!r})")
    return out


def generic_where_named(parts: Iterable[PartSpec]) -> list[str]:
    """Generic parts without a generic_reason whose kind has a named maker elsewhere in ``parts``."""
    parts = list(parts)
    named = {p.kind for p in parts if p.manufacturer not in ("", GENERIC)}
    return [
        f"{p.sku}: generic, but other {p.kind.value} parts name their maker, and no generic_reason says why"
        for p in parts
        if p.manufacturer == GENERIC and p.kind in named and not p.generic_reason.strip()
    ]
