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
class Family:
    """A maker's product family for one role of part, as a cited page publishes it (a [[family]] row): the maker of
    every catalog part of that role — at a length the family is offered in — is known, so no such part is generic
    (:func:`generic_where_named`). ``match``: the PartSpec fields a part of the role has (``sku_prefix``: its sku
    starts so, for accessories, whose role is their prefix: "RACK-", "PDU-"); ``lengths_m``: the lengths offered
    (empty: the family is not sold by length)."""

    manufacturer: str
    name: str
    kind: PartKind
    match: tuple[tuple[str, Any], ...]
    lengths_m: tuple[float, ...]
    source_url: str
    source_date: str
    quote: str  # what the page says, short: the family, its role and lengths

    def covers(self, part: PartSpec) -> bool:
        if part.kind != self.kind or (self.lengths_m and part.length_m not in self.lengths_m):
            return False
        for name, value in self.match:
            if name == "sku_prefix":
                if not part.sku.startswith(value):
                    return False
            elif getattr(part, name) != value:
                return False
        return True


@dataclass(frozen=True)
class CatalogFile:
    version: int
    price_book: dict[str, Any]
    parts: tuple[PartSpec, ...]
    families: tuple[Family, ...] = ()


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
    family_rows = data.get("family", [])
    if not isinstance(family_rows, list):
        raise CatalogDataError(f"{path.name}: [[family]] must be an array of tables")
    families = tuple(family_from_row(n, row) for n, row in enumerate(family_rows, 1))
    problems = source_problems(parts, today) + [
        p for f in families for p in _family_problems(f, parts, today or date.today())
    ]
    if problems:
        raise CatalogDataError(f"{path.name}: " + "; ".join(problems))
    return CatalogFile(version, dict(book), parts, families)


_FAMILY_FIELDS = ("manufacturer", "name", "kind", "match", "lengths_m", "source_url", "source_date", "quote")


def _row_where(table: str, n: int, row: Any, key: str, known: Iterable[str], required: Iterable[str]) -> str:
    """A [[table]] row's name in messages ("part 3 ('QM9700')"), once the row is a table with only ``known`` fields
    and every ``required`` one — else CatalogDataError naming the row and the field."""
    if not isinstance(row, dict):
        raise CatalogDataError(f"{table} {n}: not a table")
    where = f"{table} {n} ({row.get(key, f'no {key}')!r})"
    unknown = sorted(set(row) - set(known))
    if unknown:
        raise CatalogDataError(f"{where}: unknown field {unknown[0]!r}")
    missing = [name for name in required if name not in row]
    if missing:
        raise CatalogDataError(f"{where}: field {missing[0]!r} is missing")
    return where


def family_from_row(n: int, row: Any) -> Family:
    """One [[family]] row (the ``n``-th) as a Family, every field checked."""
    where = _row_where("family", n, row, "name", _FAMILY_FIELDS, [f for f in _FAMILY_FIELDS if f != "lengths_m"])
    for name in ("manufacturer", "name", "source_url", "source_date", "quote"):
        if not isinstance(row[name], str) or not row[name].strip():
            raise CatalogDataError(f"{where}: field {name!r} must be text, got {row[name]!r}")
    try:
        kind = PartKind(row["kind"])
    except ValueError:
        raise CatalogDataError(f"{where}: field 'kind': not a part kind ({row['kind']!r})") from None
    match = row["match"]
    if not isinstance(match, dict) or not match:
        raise CatalogDataError(f"{where}: field 'match' must be a table of part fields, e.g. {{ media = \"dac\" }}")
    unknown = sorted(set(match) - set(_FIELDS) - {"sku_prefix"})
    if unknown:
        raise CatalogDataError(f"{where}: match field {unknown[0]!r} is not a part field")
    match = {name: v if name == "sku_prefix" else _value(f"{where}: match", name, v, {}) for name, v in match.items()}
    lengths = row.get("lengths_m", [])
    if not isinstance(lengths, list) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) and x > 0 for x in lengths
    ):
        raise CatalogDataError(f"{where}: field 'lengths_m' must be a list of lengths > 0, got {lengths!r}")
    return Family(
        row["manufacturer"], row["name"], kind, tuple(sorted(match.items())), tuple(lengths),
        row["source_url"], row["source_date"], row["quote"],
    )  # fmt: skip


def _family_problems(family: Family, parts: Iterable[PartSpec], today: date) -> list[str]:
    """A family row's source is checked as a part's is; a family no catalog part is of is a typo in its match."""
    label = f"family {family.name}"
    out = _source_problems(label, family.source_url, family.source_date, today)
    limit = TEXT_LIMITS["generic_reason"]  # the quote is a reason's kind of text
    if len(family.quote) > limit:
        out.append(f"{label}: quote is {len(family.quote)} characters, at most {limit} fit")
    if not any(family.covers(p) for p in parts):
        out.append(f"family {family.name}: no catalog part is of its role (match {dict(family.match)})")
    return out


def part_from_row(n: int, row: Any, provenance: Mapping[str, str]) -> PartSpec:
    """One [[part]] row (the ``n``-th) as a PartSpec, every field checked."""
    where = _row_where("part", n, row, "sku", _FIELDS, REQUIRED)
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
    out += _source_problems(part.sku, part.source_url, part.source_date, today)
    if not part.manufacturer.strip():
        out.append(f"{part.sku}: manufacturer is empty (name the maker, or 'generic' with a generic_reason)")
    elif not part.generic_reason.strip() and (part.manufacturer == GENERIC or not part.mfr_part_number):
        what = "generic" if part.manufacturer == GENERIC else "without a mfr_part_number"
        out.append(f"{part.sku}: {what} but no generic_reason says why")
    if part.manufacturer == GENERIC and part.mfr_part_number:
        out.append(f"{part.sku}: generic but has a mfr_part_number ({part.mfr_part_number!r})")
    return out


def _source_problems(label: str, source_url: str, source_date: str, today: date) -> list[str]:
    """A source is an http(s) address and the ISO date it was read, not after ``today``."""
    out = []
    url = urlparse(source_url)
    if url.scheme not in ("http", "https") or not url.netloc:
        out.append(f"{label}: source_url must be an http(s) address, got {source_url!r}")
    try:
        if date.fromisoformat(source_date) > today:
            out.append(f"{label}: source_date {source_date} is in the future")
    except ValueError:
        out.append(f"{label}: source_date must be an ISO date (YYYY-MM-DD), got {source_date!r}")
    return out


def part_role(part: PartSpec) -> tuple:
    """What a part is bought as, whoever makes it: an accessory by its sku prefix ("RACK-", "PDU-": how the BOM
    picks one), anything else by kind, medium, form factor, connector, port speed, ports per module and length."""
    if part.kind == PartKind.ACCESSORY:
        return (part.kind, part.sku.split("-", 1)[0])
    return (part.kind, part.media, part.form_factor, part.connector, part.port_gbps, part.ports_per_module,
            part.length_m)  # fmt: skip


def generic_where_named(parts: Iterable[PartSpec], families: Iterable[Family] = ()) -> list[str]:
    """Generic parts whose role has a named maker — another part of the same :func:`part_role` names its maker,
    or a maker's family (a [[family]] row, from the page it cites) is offered in that role — one message each. A
    generic_reason does not excuse one: name the maker (without a part number, saying why, where the page gives
    none for that length)."""
    parts, families = list(parts), list(families)
    named: dict[tuple, str] = {}
    for p in parts:
        if p.manufacturer not in ("", GENERIC):
            named.setdefault(part_role(p), f"{p.manufacturer} ({p.sku})")
    out = []
    for p in parts:
        if p.manufacturer != GENERIC:
            continue
        if part_role(p) in named:
            out.append(f"{p.sku}: generic, but a part of the same role names its maker: {named[part_role(p)]}")
        for f in families:
            if f.covers(p):
                out.append(f"{p.sku}: generic, but {f.manufacturer}'s {f.name} family is offered in its role "
                           f"({f.source_url})")  # fmt: skip
    return out
