"""Applying a supplier's quote to a price book (the Django side of bom/quote_import.py).

A quote is applied to a *new version* of the book, never to the book in place: saved design revisions keep
the prices they were made with, and the new version becomes the current book (it is the newest active one), so
a design re-evaluated afterwards is priced from it. Every matched line sets that part's list price, discount,
lead time and quote reference, and stops being an assumption; the quote keeps its lines as read (matched to
which part, and the unmatched ones) so the version page can list them. A file with any bad value is refused
whole, with every bad value named — half a quote applied is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db import transaction

from bom.models import Part, Price, PriceBook, Quote, SupplierAlias
from bom.quote_import import QuoteFileError, QuoteMatch, RowError, match_lines, parse_quote, read_rows


class QuoteRefused(ValueError):
    """Field errors for the upload form: ``errors`` maps a form field (file, reference, …) to messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


@dataclass(frozen=True)
class Applied:
    book: PriceBook
    quote: Quote
    match: QuoteMatch


def read_and_match(book: PriceBook, data: bytes, filename: str, supplier: str) -> QuoteMatch:
    """The quote's lines matched to the catalog (by sku, the maker's part number, then the supplier's aliases);
    nothing saved."""
    try:
        lines, errors = parse_quote(read_rows(data, filename), book.currency)
    except QuoteFileError as exc:
        raise QuoteRefused({"file": [str(exc)]}) from None
    if errors:
        raise QuoteRefused({"file": [str(e) for e in errors[:50]] + _more(errors)})
    aliases = dict(SupplierAlias.objects.filter(supplier__iexact=supplier).values_list("supplier_sku", "part__sku"))
    numbers = dict(Part.objects.exclude(mfr_part_number="").values_list("mfr_part_number", "sku"))
    return match_lines(lines, Part.objects.values_list("sku", flat=True), aliases, part_numbers=numbers)


def _more(errors: list[RowError]) -> list[str]:
    return [f"… and {len(errors) - 50} more"] if len(errors) > 50 else []


def apply_quote(
    book: PriceBook, data: bytes, filename: str, *, supplier: str, reference: str, quoted_on: date, user=None
) -> Applied:
    """A new version of ``book`` with the quote's matched lines as its prices; refused whole on any bad value."""
    supplier, reference = supplier.strip(), reference.strip()
    errors: dict[str, list[str]] = {}
    if not supplier:
        errors["supplier"] = ["who quoted: the supplier's name"]
    if not reference:
        errors["reference"] = ["the supplier's quote number, e.g. Q-2026-0412"]
    if errors:
        raise QuoteRefused(errors)
    match = read_and_match(book, data, filename, supplier)
    if not match.matched:
        why = (
            f"none of its {len(match.unmatched)} line(s) is a part of the catalog or an alias of {supplier}'s: "
            "add aliases (supplier SKU → our part number) first"
        )
        raise QuoteRefused({"file": [why]})
    valid = [m.line.valid_until for m in match.matched if m.line.valid_until]
    with transaction.atomic():
        new = book.new_version(note=f"quote {reference} from {supplier} applied to {book}", user=user)
        quote = Quote(
            price_book=new,
            reference=reference[:60],
            supplier=supplier[:100],
            quoted_on=quoted_on,
            valid_until=min(valid) if valid else None,
            note=f"uploaded as {filename[:200]}",
            report=_report(match),
        )
        quote.stamp(user)
        quote.full_clean()
        quote.save()
        parts = {p.sku: p for p in Part.objects.filter(sku__in=[m.sku for m in match.matched])}
        for m in match.matched:
            price = Price.objects.filter(price_book=new, part=parts[m.sku]).first() or Price(
                price_book=new, part=parts[m.sku]
            )
            price.list_price_usd = m.line.unit_price
            price.discount_pct = m.line.discount_pct
            price.lead_time_weeks = m.line.lead_time_weeks
            price.quote = quote
            price.is_assumption = False
            price.source_note = f"{reference} row {m.line.row} ({m.how})"[:300]
            price.stamp(user)
            price.full_clean()
            price.save()
    return Applied(new, quote, match)


def _report(match: QuoteMatch) -> dict:
    def line(x) -> dict:
        return {
            "row": x.row,
            "part_number": x.part_number,
            "unit_price": str(x.unit_price),
            "discount_pct": str(x.discount_pct),
            "quantity": x.quantity,
            "lead_time_weeks": x.lead_time_weeks,
            "description": x.description,
        }

    return {
        "matched": [{**line(m.line), "sku": m.sku, "how": m.how} for m in match.matched],
        "unmatched": [line(u) for u in match.unmatched],
    }
