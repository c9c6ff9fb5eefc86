"""The live form reads the catalog on every keystroke. Rows equal to the last ones read give the same catalog object
(its memos then hit), and any change to a row — however it was written: save(), a bulk update(), a quote's field —
gives a new catalog priced from the new rows (a stale price on a purchase order is worse than 3 ms)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from bom.models import Part, Price, PriceBook, Quote, catalog_rows, catalog_specs
from designer.services import current_catalog

pytestmark = pytest.mark.django_db


def _qm9700(catalog):
    return next(p for p in catalog.parts if p.sku == "QM9700")


def test_equal_rows_give_the_same_catalog_object():
    assert current_catalog() is current_catalog()


def test_a_bulk_update_of_a_price_gives_a_new_catalog_with_the_new_price():
    """update() sends no signal and touches no timestamp a stamp could read: the rows themselves differ."""
    before = current_catalog()
    book = PriceBook.current()
    Price.objects.filter(price_book=book, part__sku="QM9700").update(list_price_usd=Decimal("12345.67"))
    after = current_catalog()
    assert after is not before
    assert _qm9700(after).unit_price_usd == Decimal("12345.67") and _qm9700(before).unit_price_usd != Decimal(
        "12345.67"
    )
    assert current_catalog() is after


def test_a_quote_or_part_changed_in_place_gives_a_new_catalog():
    """A quote's supplier (it is in every line's price source) and a part's description are rows the catalog reads."""
    book = PriceBook.current()
    quote = Quote.objects.create(price_book=book, reference="Q-1", supplier="First GmbH", quoted_on=date(2026, 11, 2))
    Price.objects.filter(price_book=book, part__sku="QM9700").update(quote=quote)
    first = current_catalog()
    assert _qm9700(first).price_source.startswith("quote Q-1 from First GmbH of 2026-11-02: ")
    Quote.objects.filter(pk=quote.pk).update(supplier="Second GmbH")
    second = current_catalog()
    assert second is not first and _qm9700(second).price_source.startswith("quote Q-1 from Second GmbH")
    Part.objects.filter(sku="QM9700").update(description="renamed in SQL")
    third = current_catalog()
    assert third is not second and _qm9700(third).description == "renamed in SQL"


def test_specs_from_rows_are_those_of_the_catalog_read_afresh():
    """The catalog kept is the one made of its rows: equal, field by field, to the specs read from the database now."""
    assert list(current_catalog().parts) == catalog_specs(PriceBook.current())
    assert catalog_rows(PriceBook.current()) == catalog_rows(PriceBook.current())
