"""A supplier's quote round trip (#38.2): an xlsx made here applied to a new price-book version (matched by part
number and by alias, the unknown line listed), the design re-priced from it as a new revision, its quoted lines at
the quoted net price, the share of dollars still an assumption lower than before."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
import xlsxwriter
from django.test import Client

from bom.models import PriceBook, Quote, SupplierAlias
from tests.designer.conftest import make_design


def quote_xlsx(rows: list[list[object]]) -> io.BytesIO:
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True})
    ws = wb.add_worksheet()
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            ws.write(r, c, v)
    wb.close()
    buf.seek(0)
    buf.name = "acme-quote.xlsx"
    return buf


def _line(bom: dict, sku: str) -> dict:
    return next(ln for ln in bom["lines"] if ln["sku"] == sku and not ln.get("spare"))


@pytest.mark.django_db
def test_quote_round_trip_reprices_the_design(django_user_model):
    buyer = django_user_model.objects.create_user("buyer", password="x-long-pass-1", is_staff=True)
    design = make_design(buyer)
    before = design.head.results["bom"]
    book = PriceBook.current()
    assert before["price_book"]["id"] == book.pk
    priced = [ln for ln in before["lines"] if ln["price_is_assumption"] and Decimal(ln["extended_price_usd"]) > 0]
    by_value = sorted(priced, key=lambda ln: Decimal(ln["extended_price_usd"]), reverse=True)
    direct, aliased = by_value[0]["sku"], by_value[1]["sku"]
    SupplierAlias.objects.create(supplier="ACME Networks", supplier_sku="ACME-7781", part_id=_part_id(aliased))
    # quoted below today's prices, so the parts the design chose stay the cheapest choice: the same lines re-priced
    list_direct = (Decimal(_line(before, direct)["unit_price_usd"]) * Decimal("0.95")).quantize(Decimal("0.01"))
    net_direct = (list_direct * Decimal("0.90")).quantize(Decimal("0.01"))  # 10 % discount off the quoted list
    net_aliased = (Decimal(_line(before, aliased)["unit_price_usd"]) * Decimal("0.80")).quantize(Decimal("0.01"))
    rows = [
        ["MPN", "Qty", "Unit price", "Currency", "Discount %", "Lead time (weeks)"],
        [direct, 10, str(list_direct), "USD", 10, 12],
        ["ACME-7781", 100, str(net_aliased), "USD", 0, 4],  # their SKU for our part
        ["ACME-NOT-OURS", 1, 5, "USD", 0, ""],
    ]
    c = Client()
    c.force_login(buyer)
    r = c.post(
        "/catalog/quotes/new/",
        {"price_book": book.pk, "supplier": "ACME Networks", "reference": "Q-2026-0412", "quoted_on": "2026-12-01",
         "file": quote_xlsx(rows)},
    )  # fmt: skip
    assert r.status_code == 302, r.content.decode()[:2000]
    quote = Quote.objects.get(reference="Q-2026-0412")
    new_book = quote.price_book
    assert (new_book.name, new_book.version) == (book.name, book.version + 1) and PriceBook.current() == new_book
    page = c.get(r["Location"]).content.decode()
    assert "2 line(s) matched" in page and "1 line(s) unmatched" in page and "ACME-NOT-OURS" in page
    assert f"alias ACME-7781 → {aliased}" in page
    old = new_book.prices.get(part__sku=direct)
    assert (old.list_price_usd, old.discount_pct, old.lead_time_weeks, old.is_assumption) == (
        list_direct, Decimal("10.00"), 12, False
    )  # fmt: skip
    assert book.prices.get(part__sku=direct).is_assumption  # the old version is untouched

    r = c.post(f"/designs/{design.pk}/reprice/")
    assert r.status_code == 302 and "/compare/?r=" in r["Location"]
    design.refresh_from_db()
    after = design.revisions.order_by("-number").first().results["bom"]
    assert after["price_book"]["id"] == new_book.pk
    assert Decimal(_line(after, direct)["unit_price_usd"]) == net_direct
    assert Decimal(_line(after, aliased)["unit_price_usd"]) == net_aliased
    assert not _line(after, direct)["price_is_assumption"]
    assert after["assumption_share"] < before["assumption_share"]
    # by hand: the assumed dollars fall by exactly the two lines' old extended prices
    drop = sum(Decimal(ln["extended_price_usd"]) for ln in before["lines"] if ln["sku"] in (direct, aliased))
    assert Decimal(before["assumption_usd"]) - Decimal(after["assumption_usd"]) == drop
    assert c.get(r["Location"]).status_code == 200  # the two revisions side by side


@pytest.mark.django_db
def test_a_bad_quote_is_refused_whole_and_only_staff_apply_quotes(django_user_model):
    buyer = django_user_model.objects.create_user("buyer2", password="x-long-pass-1", is_staff=True)
    book = PriceBook.current()
    versions = PriceBook.objects.count()
    c = Client()
    c.force_login(buyer)
    rows = [["MPN", "Unit price"], ["X-1", "ten dollars"], ["X-2", "-5"]]
    r = c.post("/catalog/quotes/new/", {"price_book": book.pk, "supplier": "ACME", "reference": "Q-1",
                                        "quoted_on": "2026-12-01", "file": quote_xlsx(rows)})  # fmt: skip
    assert r.status_code == 200
    errors = r.context["form"].errors["file"]
    assert (
        "row 2, unit_price: 'ten dollars' is not a number" in errors
        and "row 3, unit_price: -5.00 is negative" in errors
    )
    assert PriceBook.objects.count() == versions  # nothing applied
    plain = django_user_model.objects.create_user("viewer", password="x-long-pass-1")
    c.force_login(plain)
    assert c.get("/catalog/quotes/new/").status_code == 302  # to the admin login: catalog writes are staff's


def _part_id(sku: str) -> int:
    from bom.models import Part

    return Part.objects.get(sku=sku).pk
