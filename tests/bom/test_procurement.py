"""Issue #10: BOM columns a purchase order can be cut from, and supplier quotes on a price book version."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

import openpyxl
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from bom.models import Part, Price, PriceBook, Quote
from designer.services import evaluate_flat, export_bom
from tests.designer.conftest import make_design

pytestmark = pytest.mark.django_db


@pytest.fixture
def quoted_book():
    """The current book prices the QM9700 from a distributor's quote: list $30,000 less 15 % = $25,500, 12 weeks."""
    book = PriceBook.current()
    quote = Quote.objects.create(
        price_book=book,
        reference="Q-2026-0412",
        supplier="Example Distribution GmbH",
        quoted_on=date(2026, 11, 2),
        valid_until=date(2027, 1, 31),
    )
    Price.objects.filter(price_book=book, part__sku="QM9700").update(
        list_price_usd=Decimal("30000"), discount_pct=Decimal("15"), lead_time_weeks=12, quote=quote
    )
    return book


def _leaf_line(bom: dict) -> dict:
    return next(ln for ln in bom["lines"] if ln["sku"] == "QM9700" and not ln["spare"])


def test_a_line_priced_from_a_quote_says_so(quoted_book):
    bom = evaluate_flat({"gpu_count": 2000}).result["bom"]
    line = _leaf_line(bom)
    assert line["manufacturer"] == "NVIDIA" and line["unit_of_measure"] == "each" and line["currency"] == "USD"
    assert (line["list_price_usd"], line["discount_pct"], line["unit_price_usd"]) == ("30000.00", "15.00", "25500.00")
    assert line["extended_price_usd"] == str(Decimal("25500") * line["quantity"]) + ".00"
    assert line["lead_time_weeks"] == 12 and line["quote_reference"] == "Q-2026-0412"
    assert line["price_source"].startswith(
        "quote Q-2026-0412 from Example Distribution GmbH of 2026-11-02, valid until 2027-01-31: "
    )
    assert line["price_is_assumption"] is False
    assert line["price_date"] == "2026-11-02"  # the quote's date, not the book's
    others_dates = {ln["price_date"] for ln in bom["lines"] if ln["sku"] != "QM9700"}
    assert others_dates == {str(quoted_book.effective_date)}
    assert line["line_id"].startswith("COM-")
    others = [ln for ln in bom["lines"] if ln["sku"] != "QM9700"]
    assert all(ln["quote_reference"] == "" and ln["lead_time_weeks"] is None for ln in others)


def test_exports_carry_the_purchase_columns(alice, quoted_book):
    revision = make_design(alice).head
    content, _, _ = export_bom(revision, "bom.csv")
    rows = list(csv.DictReader(io.StringIO(content.decode())))
    row = next(r for r in rows if r["sku"] == "QM9700" and r["spare"] == "False")
    assert (row["manufacturer"], row["list_price_usd"], row["discount_pct"], row["unit_price_usd"]) == (
        "NVIDIA",
        "30000.00",
        "15.00",
        "25500.00",
    )
    assert (row["lead_time_weeks"], row["quote_reference"], row["currency"]) == ("12", "Q-2026-0412", "USD")
    assert row["mfr_part_number"] == "MQM9700-NS2F"  # the maker's orderable number beside the catalog's sku
    content, _, _ = export_bom(revision, "bom.xlsx")
    ws = openpyxl.load_workbook(io.BytesIO(content))["Compute"]
    r = next(i for i in range(2, ws.max_row) if ws[f"D{i}"].value == "QM9700")
    assert (ws[f"B{r}"].value, ws[f"C{r}"].value, ws[f"J{r}"].value, ws[f"K{r}"].value) == (
        "NVIDIA", "MQM9700-NS2F", 30000, 15
    )  # fmt: skip
    assert ws[f"L{r}"].value == f"=ROUND(J{r}*(1-K{r}/100),2)"
    assert (ws[f"R{r}"].value, ws[f"S{r}"].value) == (12, "Q-2026-0412")
    cached = openpyxl.load_workbook(io.BytesIO(content), data_only=True)["Compute"]
    assert cached[f"L{r}"].value == 25500


def test_half_a_cent_rounds_up_as_the_spreadsheet_does():
    """$1.25 less 50 % = $0.625: ROUND in a spreadsheet gives $0.63 (banker's rounding would give $0.62)."""
    book = PriceBook.current()
    price = Price(price_book=book, part=Part.objects.first(), list_price_usd=Decimal("1.25"), discount_pct=50)
    assert price.unit_price_usd == Decimal("0.63")


def test_a_new_version_keeps_the_quotes_and_their_prices(quoted_book):
    copy = quoted_book.new_version(note="next quarter")
    quote = copy.quotes.get()
    assert (quote.reference, quote.supplier, quote.valid_until) == (
        "Q-2026-0412",
        "Example Distribution GmbH",
        date(2027, 1, 31),
    )
    price = copy.prices.get(part__sku="QM9700")
    assert price.quote == quote and price.lead_time_weeks == 12  # the copy's own quote, not the old book's


def test_a_book_in_another_currency_fails_a_check():
    book = PriceBook.current()
    book.currency = "EUR"
    book.save()
    checks = evaluate_flat({"gpu_count": 2000}).result["bom"]["checks"]
    failing = [c for c in checks if not c["ok"] and c["field"] == "price_book"]
    assert failing and "in EUR, but the totals, power costs and TCO are in USD" in failing[0]["message"]


def _staff_client():
    user = get_user_model().objects.create_user("buyer", password="pw-buyer-123", is_staff=True)
    c = Client()
    c.force_login(user)
    return c


def test_quotes_through_the_api(quoted_book):
    c = _staff_client()
    other = quoted_book.new_version()
    body = {"price_book": other.pk, "reference": "Q-7", "supplier": "ACME", "quoted_on": "2026-11-20"}
    r = c.post("/api/v1/quotes/", body, content_type="application/json")
    assert r.status_code == 201, r.content
    q7 = r.json()["id"]
    bad_dates = {**body, "reference": "Q-8", "valid_until": "2026-11-01"}
    r = c.post("/api/v1/quotes/", bad_dates, content_type="application/json")
    assert r.status_code == 422 and "valid_until" in r.json()["errors"]
    assert c.post("/api/v1/quotes/", body, content_type="application/json").status_code == 409  # Q-7 again
    price = Price.objects.get(price_book=quoted_book, part__sku="QM9700")
    r = c.patch(f"/api/v1/prices/{price.pk}/", {"quote": q7}, content_type="application/json")
    assert r.status_code == 422 and "another price book" in r.json()["errors"]["quote"][0]
    r = c.patch(f"/api/v1/prices/{price.pk}/", {"lead_time_weeks": 8}, content_type="application/json")
    assert r.status_code == 200 and r.json()["lead_time_weeks"] == 8
    listed = c.get(f"/api/v1/quotes/?price_book={other.pk}").json()
    assert {q["reference"] for q in listed["results"]} == {"Q-2026-0412", "Q-7"}  # the copied quote too
    assert c.get("/api/v1/quotes/?price_book=abc").status_code == 400


def test_only_staff_write_quotes(alice, quoted_book):
    c = Client()
    c.force_login(alice)
    assert c.get("/api/v1/quotes/").status_code == 200
    body = {"price_book": quoted_book.pk, "reference": "Q-9", "supplier": "ACME", "quoted_on": "2026-11-20"}
    assert c.post("/api/v1/quotes/", body, content_type="application/json").status_code == 403


def test_bad_catalog_input_is_a_field_error_in_admin_and_api(quoted_book):
    """An unknown currency, a negative discount and a quote without a reference: field errors, never a save."""
    from django.contrib import admin as django_admin

    from bom.models import PriceBook as Book

    c = _staff_client()
    # API
    r = c.patch(f"/api/v1/price-books/{quoted_book.pk}/", {"currency": "XYZ"}, content_type="application/json")
    assert r.status_code == 400 and "not an ISO 4217 currency code" in r.json()["errors"]["currency"][0]
    r = c.patch(f"/api/v1/price-books/{quoted_book.pk}/", {"currency": "eur"}, content_type="application/json")
    assert r.status_code == 400 and "currency" in r.json()["errors"]
    assert (
        c.patch(f"/api/v1/price-books/{quoted_book.pk}/", {"currency": "EUR"}, content_type="application/json").json()[
            "currency"
        ]
        == "EUR"
    )
    price = Price.objects.get(price_book=quoted_book, part__sku="QM9700")
    r = c.patch(f"/api/v1/prices/{price.pk}/", {"discount_pct": -5}, content_type="application/json")
    assert r.status_code == 400 and "discount_pct" in r.json()["errors"]
    body = {"price_book": quoted_book.pk, "supplier": "ACME", "quoted_on": "2026-11-20"}
    r = c.post("/api/v1/quotes/", body, content_type="application/json")
    assert r.status_code == 400 and "reference" in r.json()["errors"]
    r = c.post("/api/v1/quotes/", {**body, "reference": ""}, content_type="application/json")
    assert r.status_code == 400 and "reference" in r.json()["errors"]
    # admin (the forms the admin builds for these models)
    for model, data, field in (
        (Book, {"name": "B", "version": 1, "currency": "XYZ", "effective_date": "2026-11-01"}, "currency"),
        (
            Price,
            {
                "price_book": quoted_book.pk,
                "part": price.part_id,
                "list_price_usd": "10",
                "discount_pct": "-5",
                "source_note": "x",
            },
            "discount_pct",
        ),
        (
            Quote,
            {"price_book": quoted_book.pk, "reference": "", "supplier": "ACME", "quoted_on": "2026-11-20"},
            "reference",
        ),
    ):
        model_admin = django_admin.site._registry.get(model)
        if model_admin is None:  # prices and quotes are edited inline on their book
            from django.forms import modelform_factory

            form = modelform_factory(model, fields="__all__")(data)
        else:
            form = model_admin.get_form(None)(data)
        assert not form.is_valid() and field in form.errors, (model, form.errors)


def test_a_procurement_client_fetches_a_revisions_bom_by_token(alice, bob, quoted_book):
    from tests.designer.test_api import token_client

    design = make_design(alice)
    first = design.head
    from designer.services import evaluate_flat as ev_flat
    from designer.services import revise

    revise(design, alice, {**first.requirements(), "gpu_count": 1024}, ev_flat({"gpu_count": 1024}), "smaller")
    c, _ = token_client(alice, read_only=True)  # no browser session: a read-only token
    r1 = c.get(f"/api/v1/designs/{design.pk}/bom/?revision=1")
    assert r1.status_code == 200, r1.content
    body = r1.json()
    assert body["revision"] == 1 and body["total_usd"] == first.results["bom"]["total_usd"]
    leaf = _leaf_line(body)
    assert (leaf["list_price_usd"], leaf["discount_pct"], leaf["unit_price_usd"]) == ("30000.00", "15.00", "25500.00")
    assert leaf["quote_reference"] == "Q-2026-0412" and leaf["lead_time_weeks"] == 12
    assert [ln["line_id"] for ln in body["lines"]] == [ln["line_id"] for ln in first.results["bom"]["lines"]]
    assert sum(Decimal(ln["extended_price_usd"]) for ln in body["lines"]) == Decimal(body["total_usd"])
    head = c.get(f"/api/v1/designs/{design.pk}/bom/").json()
    assert head["revision"] == 2 and head["total_usd"] != body["total_usd"]
    assert c.get(f"/api/v1/designs/{design.pk}/bom/?revision=9").status_code == 404
    assert c.get(f"/api/v1/designs/{design.pk}/bom/?revision=x").status_code == 400
    assert token_client(bob)[0].get(f"/api/v1/designs/{design.pk}/bom/").status_code == 404  # not bob's


def test_the_schema_documents_every_bom_column(alice):
    import yaml

    from bom.export import BOM_COLUMNS
    from tests.designer.test_api import token_client

    schema = yaml.safe_load(token_client(alice)[0].get("/api/v1/schema/").content)
    line = schema["components"]["schemas"]["BomLine"]
    assert set(line["properties"]) == set(BOM_COLUMNS)
    assert line["properties"]["list_price_usd"]["format"] == "decimal"
    op = schema["paths"]["/api/v1/designs/{id}/bom/"]["get"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/Bom")
    fmt = next(p for p in schema["paths"]["/api/v1/designs/{id}/{fmt}"]["get"]["parameters"] if p["name"] == "fmt")
    assert "bom-only.xlsx" in fmt["schema"]["enum"] and "cabling.csv" in fmt["schema"]["enum"]


def test_the_bom_only_workbook_has_the_lines_and_says_what_it_leaves_out(alice, quoted_book):
    revision = make_design(alice).head
    full = openpyxl.load_workbook(io.BytesIO(export_bom(revision, "bom.xlsx")[0]))
    brief = openpyxl.load_workbook(io.BytesIO(export_bom(revision, "bom-only.xlsx")[0]))
    assert "Cabling plan" in full.sheetnames and "Racks" in full.sheetnames
    assert "Cabling plan" not in brief.sheetnames and "Racks" not in brief.sheetnames
    for name in ("Summary", "Compute", "TCO", "Price book"):
        assert name in brief.sheetnames
        assert [[c.value for c in row] for row in brief[name].iter_rows()] == [
            [c.value for c in row] for row in full[name].iter_rows()
        ] or name == "Summary"
    contents = next(r for r in brief["Summary"].iter_rows() if r[0].value == "Contents")
    assert "cut sheet" in contents[1].value and "bom.xlsx" in contents[1].value
