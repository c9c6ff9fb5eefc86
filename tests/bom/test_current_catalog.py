"""The live form reads the catalog on every keystroke: one value, the database's write token (bom.models.CatalogWrites,
changed by its own triggers on every write to the catalog's tables). An unchanged token, or rows equal to the last
ones read, give the same catalog object (its memos then hit), and any change to a row — however it was written:
save(), a bulk update(), raw SQL, a quote's field, a delete — gives a new catalog priced from the new rows (a stale
price on a purchase order is worse than 3 ms). A write rolled back never lets a later write's token pass for it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from bom.models import CatalogWrites, Part, Price, PriceBook, Quote, catalog_rows, catalog_specs
from designer.services import current_catalog

pytestmark = pytest.mark.django_db


def _qm9700(catalog):
    return next(p for p in catalog.parts if p.sku == "QM9700")


def test_equal_rows_give_the_same_catalog_object():
    assert current_catalog() is current_catalog()


def test_a_bulk_update_of_a_price_gives_a_new_catalog_with_the_new_price():
    """update() sends no signal and touches no model timestamp; the database's trigger still moves the token."""
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


def test_an_unchanged_token_reads_one_value_not_the_rows():
    assert CatalogWrites.token_now() not in (None, 0)  # drawn at migration, not a constant two databases share
    first = current_catalog()
    with CaptureQueriesContext(connection) as queries:
        assert current_catalog() is first
    assert len(queries) == 1 and "catalogwrites" in queries[0]["sql"].lower()


def test_a_price_changed_in_raw_sql_or_a_part_deleted_moves_the_token():
    before_token, before = CatalogWrites.token_now(), current_catalog()
    book = PriceBook.current()
    qm = Part.objects.get(sku="QM9700")
    with connection.cursor() as cursor:
        table = Price._meta.db_table
        cursor.execute(f"UPDATE {table} SET list_price_usd = %s WHERE price_book_id = %s AND part_id = %s",
                       [Decimal("777.00"), book.pk, qm.pk])  # fmt: skip
    assert CatalogWrites.token_now() != before_token
    after = current_catalog()
    assert after is not before and _qm9700(after).unit_price_usd == Decimal("777.00")
    Part.objects.filter(sku="QM9700").delete()
    assert all(p.sku != "QM9700" for p in current_catalog().parts)


def test_a_write_rolled_back_cannot_lend_its_token_to_a_later_write():
    """A price written and read inside a transaction that then rolls back: the token goes back to the one before.
    A later, different write must not find the rolled-back write's catalog — with a counter it would (both writes
    the count + 1); the token is random (SQLite) or from a sequence (PostgreSQL): never one seen before."""
    current_catalog()
    book = PriceBook.current()
    prices = Price.objects.filter(price_book=book, part__sku="QM9700")
    with pytest.raises(RuntimeError), transaction.atomic():
        prices.update(list_price_usd=Decimal("1111.00"))
        assert _qm9700(current_catalog()).unit_price_usd == Decimal("1111.00")
        raise RuntimeError("rolled back")
    prices.update(list_price_usd=Decimal("2222.00"))
    assert _qm9700(current_catalog()).unit_price_usd == Decimal("2222.00")


def test_without_the_token_row_the_rows_are_read_every_time():
    """A flushed token table (no row): no token is trusted, the rows are read and compared as before."""
    first = current_catalog()
    CatalogWrites.objects.all().delete()
    assert CatalogWrites.token_now() is None
    assert current_catalog() is first  # equal rows: the kept catalog
    Price.objects.filter(price_book=PriceBook.current(), part__sku="QM9700").update(list_price_usd=Decimal("3.00"))
    assert _qm9700(current_catalog()).unit_price_usd == Decimal("3.00")


def test_a_truncate_moves_the_token_on_postgresql():
    """PostgreSQL's TRUNCATE fires no row trigger: the statement trigger on it moves the token all the same."""
    if connection.vendor != "postgresql":
        pytest.skip("TRUNCATE is PostgreSQL's (SQLite's DELETE without WHERE fires the row triggers)")
    before_token, before = CatalogWrites.token_now(), current_catalog()
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {Price._meta.db_table}")
    assert CatalogWrites.token_now() != before_token
    assert current_catalog() is not before
