"""A supplier's quote file read and matched against the catalog (pure: no Django).

A quote arrives as a spreadsheet (xlsx) or csv with one line per part: the manufacturer part number (or the
supplier's own SKU), quantity, unit price, currency, discount, lead time and validity. Column names vary by
supplier, so each column is found by the names suppliers use for it (``COLUMNS``). Every value is checked
and a bad one is an error naming its row and column — nothing is guessed. Lines are matched to catalog parts
by the catalog's part number (sku), then by the maker's orderable part number the catalog gives a part
(mfr_part_number), then through the supplier's alias table (their SKU → our part number); lines that match
nothing are listed, never dropped. Money is Decimal; a quote in another currency than the price book's is
refused line by line (no exchange rate is assumed).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

MAX_QUOTE_BYTES = 5 * 1024 * 1024
MAX_QUOTE_LINES = 5_000

COLUMNS: dict[str, tuple[str, ...]] = {
    "part_number": (
        "part number",
        "manufacturer part number",
        "mfr part number",
        "mpn",
        "pn",
        "sku",
        "item",
        "part",
        "supplier sku",
    ),
    "quantity": ("quantity", "qty", "quoted quantity"),
    "unit_price": ("unit price", "price", "unit cost", "net price", "unit price (usd)"),
    "currency": ("currency", "ccy", "cur"),
    "discount_pct": ("discount", "discount %", "discount pct", "discount (%)"),
    "lead_time_weeks": ("lead time", "lead time (weeks)", "lead time weeks", "lead time [weeks]", "lt (weeks)"),
    "valid_until": ("valid until", "validity", "expires", "expiry", "quote valid until"),
    "description": ("description", "desc"),
}
REQUIRED = ("part_number", "unit_price")


class QuoteFileError(ValueError):
    """The file as a whole cannot be read (format, size, header): one message on the upload field."""


@dataclass(frozen=True)
class QuoteLine:
    row: int  # the spreadsheet's row number (header = 1), as the supplier sees it
    part_number: str
    unit_price: Decimal
    quantity: int | None
    currency: str
    discount_pct: Decimal
    lead_time_weeks: int | None
    valid_until: date | None
    description: str = ""


@dataclass(frozen=True)
class RowError:
    row: int
    column: str
    message: str

    def __str__(self) -> str:
        return f"row {self.row}, {self.column}: {self.message}"


@dataclass(frozen=True)
class Matched:
    line: QuoteLine
    sku: str  # the catalog part the line prices
    how: str  # "part number", "manufacturer part number <number> → <sku>" or "alias <supplier sku> → <sku>"


@dataclass(frozen=True)
class QuoteMatch:
    matched: tuple[Matched, ...]
    unmatched: tuple[QuoteLine, ...]
    errors: tuple[RowError, ...]


def read_rows(data: bytes, filename: str) -> list[list[str]]:
    """The file's cells as text rows: xlsx (first sheet) or csv (UTF-8, with or without BOM)."""
    if len(data) > MAX_QUOTE_BYTES:
        raise QuoteFileError(f"{len(data):,} bytes is more than the {MAX_QUOTE_BYTES:,} a quote file may have")
    name = filename.lower()
    if name.endswith(".xlsx") or data[:2] == b"PK":
        return _xlsx_rows(data)
    if name.endswith((".csv", ".txt")) or not name:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise QuoteFileError("the csv is not UTF-8 text; save it as 'CSV UTF-8'") from None
        return [row for row in csv.reader(io.StringIO(text))]
    raise QuoteFileError(f"{filename!r}: a quote is an .xlsx or .csv file")


def _xlsx_rows(data: bytes) -> list[list[str]]:
    from zipfile import BadZipFile

    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (BadZipFile, OSError, KeyError, ValueError) as exc:
        raise QuoteFileError(f"not a readable xlsx workbook ({type(exc).__name__})") from None
    ws = wb.worksheets[0]
    rows = []
    for values in ws.iter_rows(values_only=True):
        rows.append([_cell_text(v) for v in values])
        if len(rows) > MAX_QUOTE_LINES + 1:
            break
    wb.close()
    return rows


def _cell_text(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, datetime):
        return v.date().isoformat()
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def _norm(name: str) -> str:
    return re.sub(r"\s+", " ", name.strip().lower().replace("_", " "))


def header_map(header: list[str]) -> dict[str, int]:
    """Our column name → its index, from the names suppliers use; a missing required column is a file error."""
    found: dict[str, int] = {}
    for i, cell in enumerate(header):
        key = _norm(cell)
        for ours, names in COLUMNS.items():
            if key in names and ours not in found:
                found[ours] = i
    missing = [c for c in REQUIRED if c not in found]
    if missing:
        wanted = "; ".join(f"{c}: one of {', '.join(repr(n) for n in COLUMNS[c][:4])}" for c in missing)
        raise QuoteFileError(f"the first row names no column for {wanted} (it has: {', '.join(header) or 'nothing'})")
    return found


def parse_quote(rows: list[list[str]], book_currency: str) -> tuple[list[QuoteLine], list[RowError]]:
    """Header + lines → quote lines and every bad value (all at once, by row and column)."""
    if not rows:
        raise QuoteFileError("the file is empty")
    cols = header_map(rows[0])
    body = [(n, r) for n, r in enumerate(rows[1:], start=2) if any(c.strip() for c in r)]
    if len(body) > MAX_QUOTE_LINES:
        raise QuoteFileError(f"more than {MAX_QUOTE_LINES:,} lines; split the quote")
    lines: list[QuoteLine] = []
    errors: list[RowError] = []
    seen: dict[str, int] = {}
    for n, row in body:
        line, bad = _line(n, row, cols, book_currency)
        if line is not None and line.part_number.casefold() in seen:
            bad.append(RowError(n, "part_number", f"{line.part_number} is quoted again (first on row "
                                f"{seen[line.part_number.casefold()]}); one price per part"))  # fmt: skip
            line = None
        errors.extend(bad)
        if line is not None and not bad:
            seen[line.part_number.casefold()] = n
            lines.append(line)
    return lines, errors


def _get(row: list[str], cols: Mapping[str, int], name: str) -> str:
    i = cols.get(name)
    return row[i].strip() if i is not None and i < len(row) and row[i] is not None else ""


def _line(n: int, row: list[str], cols: Mapping[str, int], book_currency: str) -> tuple[QuoteLine | None, list]:
    bad: list[RowError] = []
    pn = _get(row, cols, "part_number")
    if not pn:
        bad.append(RowError(n, "part_number", "empty"))
    elif len(pn) > 60 or any(ord(ch) < 32 for ch in pn):
        bad.append(RowError(n, "part_number", "a part number is at most 60 printable characters"))
    price = _decimal(n, "unit_price", _get(row, cols, "unit_price"), bad, required=True)
    if price is not None and price < 0:
        bad.append(RowError(n, "unit_price", f"{price} is negative"))
    disc = _decimal(n, "discount_pct", _get(row, cols, "discount_pct").rstrip("%").strip(), bad) or Decimal(0)
    if not Decimal(0) <= disc <= Decimal(100):
        bad.append(RowError(n, "discount_pct", f"{disc} is not a percentage from 0 to 100"))
    qty = _whole(n, "quantity", _get(row, cols, "quantity"), bad, maximum=10_000_000)
    lead = _whole(n, "lead_time_weeks", re.sub(r"\s*(weeks?|wks?|w)$", "", _get(row, cols, "lead_time_weeks"),
                                                flags=re.I), bad, maximum=260)  # fmt: skip
    currency = _get(row, cols, "currency").upper() or book_currency
    if currency != book_currency:
        bad.append(RowError(n, "currency", f"quoted in {currency}; the price book is in {book_currency} — "
                            "convert the quote or apply it to a book in that currency"))  # fmt: skip
    valid = _date(n, _get(row, cols, "valid_until"), bad)
    if bad or price is None:
        return None, bad
    line = QuoteLine(n, pn, price, qty, currency, disc, lead, valid, _get(row, cols, "description")[:300])
    return line, bad


def _decimal(n: int, col: str, text: str, bad: list[RowError], required: bool = False) -> Decimal | None:
    if not text:
        if required:
            bad.append(RowError(n, col, "empty"))
        return None
    cleaned = text.replace(",", "").replace("$", "").strip()
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        bad.append(RowError(n, col, f"{text!r} is not a number"))
        return None
    if not value.is_finite():
        bad.append(RowError(n, col, f"{text!r} is not a number"))
        return None
    return value.quantize(Decimal("0.01"))


def _whole(n: int, col: str, text: str, bad: list[RowError], maximum: int) -> int | None:
    if not text:
        return None
    if not re.fullmatch(r"\d{1,9}", text):
        bad.append(RowError(n, col, f"{text!r} is not a whole number"))
        return None
    value = int(text)
    if value > maximum:
        bad.append(RowError(n, col, f"{value:,} is more than {maximum:,}"))
        return None
    return value


def _date(n: int, text: str, bad: list[RowError]) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        bad.append(RowError(n, "valid_until", f"{text!r} is not a date (YYYY-MM-DD)"))
        return None


def match_lines(
    lines: Iterable[QuoteLine],
    skus: Iterable[str],
    aliases: Mapping[str, str],
    errors: Iterable[RowError] = (),
    part_numbers: Mapping[str, str] | None = None,
) -> QuoteMatch:
    """Each line to a catalog part: by its sku, else by the maker's orderable part number the catalog gives the
    part (``part_numbers``: mfr_part_number → sku), else by the supplier's alias (their SKU → our part number);
    all case-insensitive; the rest unmatched."""
    by_key = {s.casefold(): s for s in skus}
    by_number = {k.casefold(): v for k, v in (part_numbers or {}).items() if k and v.casefold() in by_key}
    alias_key = {k.casefold(): v for k, v in aliases.items()}
    matched: list[Matched] = []
    unmatched: list[QuoteLine] = []
    for line in lines:
        key = line.part_number.casefold()
        if key in by_key:
            matched.append(Matched(line, by_key[key], "part number"))
        elif key in by_number:
            sku = by_key[by_number[key].casefold()]
            matched.append(Matched(line, sku, f"manufacturer part number {line.part_number} → {sku}"))
        elif key in alias_key and alias_key[key].casefold() in by_key:
            sku = by_key[alias_key[key].casefold()]
            matched.append(Matched(line, sku, f"alias {line.part_number} → {sku}"))
        else:
            unmatched.append(line)
    return QuoteMatch(tuple(matched), tuple(unmatched), tuple(errors))
