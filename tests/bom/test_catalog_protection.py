"""Issue #32: shared catalog data is not one staff token away from empty. Deleting what planning or
saved designs rely on is refused (409 in the API, the admin's delete pages list why); an empty book
never prices designs; every change says who made it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.admin.models import CHANGE, DELETION, LogEntry
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory

from bom.models import Part, Price, PriceBook
from tests.designer.conftest import make_design
from tests.designer.test_api import token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("sam", password="pw-sam-12345", is_staff=True, is_superuser=True)


def assert_plans_with_prices(user, book: PriceBook) -> None:
    bom = make_design(user).head.results["bom"]
    assert bom["price_book"]["id"] == book.pk and Decimal(bom["total_usd"]) > 0


def test_a_staff_token_cannot_delete_the_current_price_book(staff, alice):
    c, _ = token_client(staff)
    book = PriceBook.current()
    prices = book.prices.count()
    r = c.delete(f"/api/v1/price-books/{book.pk}/")
    assert r.status_code == 409
    body = r.json()
    assert body["code"] == "price_book_current"
    assert any(f"{book} is the current price book" in m for m in body["errors"]["non_field_errors"])
    assert any("no active price book" in m for m in body["errors"]["non_field_errors"])  # the only active one
    assert PriceBook.objects.filter(pk=book.pk).exists() and book.prices.count() == prices
    assert_plans_with_prices(alice, book)


def test_empty_active_books_never_price_designs(staff, alice):
    c, _ = token_client(staff)
    book = PriceBook.current()
    for i in range(4):  # newer, active, and without a single price
        r = c.post("/api/v1/price-books/", {"name": f"Empty {i}", "currency": "USD"}, content_type="application/json")
        assert r.status_code == 201 and r.json()["is_active"] is True
    assert PriceBook.current() == book
    assert_plans_with_prices(alice, book)


def test_deleting_the_last_active_book_is_refused(staff):
    c, _ = token_client(staff)
    PriceBook.objects.update(is_active=False)
    empty = PriceBook.objects.create(name="Empty", is_active=True)  # active, but not current (no prices)
    assert PriceBook.current() is None
    r = c.delete(f"/api/v1/price-books/{empty.pk}/")
    assert r.status_code == 409 and r.json()["code"] == "price_book_last_active"
    assert PriceBook.objects.filter(pk=empty.pk).exists()


def test_a_book_saved_revisions_were_priced_from_is_retired_not_deleted(staff, alice):
    c, _ = token_client(staff)
    old = PriceBook.current()
    make_design(alice)
    new = old.new_version(note="Q1")
    assert PriceBook.current() == new
    r = c.delete(f"/api/v1/price-books/{old.pk}/")
    assert r.status_code == 409 and r.json()["code"] == "price_book_in_use"
    assert "1 saved design revision(s) were priced from" in r.json()["errors"]["non_field_errors"][0]
    # the soft delete: retire it, and bring it back
    assert (
        c.patch(f"/api/v1/price-books/{old.pk}/", {"is_active": False}, content_type="application/json").status_code
        == 200
    )
    assert (
        c.patch(f"/api/v1/price-books/{old.pk}/", {"is_active": True}, content_type="application/json").status_code
        == 200
    )
    assert PriceBook.objects.get(pk=old.pk).prices.count() == new.prices.count()


def test_retiring_the_last_active_book_with_prices_is_refused(staff):
    c, _ = token_client(staff)
    book = PriceBook.current()
    r = c.patch(f"/api/v1/price-books/{book.pk}/", {"is_active": False}, content_type="application/json")
    assert r.status_code == 409 and r.json()["code"] == "price_book_last_active"
    assert PriceBook.objects.get(pk=book.pk).is_active


def test_an_unused_inactive_book_may_be_deleted_and_the_history_says_by_whom(staff):
    c, _ = token_client(staff)
    spare = PriceBook.current().new_version(note="spare")
    PriceBook.objects.filter(pk=spare.pk).update(is_active=False)
    assert c.delete(f"/api/v1/price-books/{spare.pk}/").status_code == 204
    assert not PriceBook.objects.filter(pk=spare.pk).exists()
    entry = LogEntry.objects.get(action_flag=DELETION, object_id=str(spare.pk))
    assert entry.user == staff and entry.object_repr == str(spare)


def test_a_priced_part_is_not_deleted_an_unpriced_one_is(staff):
    c, _ = token_client(staff)
    part = Part.objects.get(sku="QM9700")
    r = c.delete(f"/api/v1/parts/{part.pk}/")
    assert r.status_code == 409 and r.json()["code"] == "part_priced"
    assert "QM9700 is priced in 1 price book(s)" in r.json()["errors"]["non_field_errors"][0]
    assert Price.objects.filter(part=part).exists()
    new = c.post(
        "/api/v1/parts/", {"sku": "X-1", "kind": "switch", "description": "x"}, content_type="application/json"
    ).json()
    assert c.delete(f"/api/v1/parts/{new['id']}/").status_code == 204


def test_a_price_change_records_the_staff_user(staff, alice):
    c, _ = token_client(staff)
    price = PriceBook.current().prices.get(part__sku="QM9700")
    r = c.patch(f"/api/v1/prices/{price.pk}/", {"discount_pct": 5}, content_type="application/json")
    assert r.status_code == 200 and r.json()["changed_by"] == "sam" and r.json()["changed_at"]
    price.refresh_from_db()
    assert price.changed_by == staff and price.changed_at is not None
    assert LogEntry.objects.filter(action_flag=CHANGE, object_id=str(price.pk), user=staff).exists()
    # everyone reads the catalog; only staff see who changed it
    reader = Client()
    reader.force_login(alice)
    seen = reader.get(f"/api/v1/prices/{price.pk}/").json()
    assert seen["changed_by"] is None and seen["changed_at"]
    # a new version is stamped too
    r = c.post(f"/api/v1/price-books/{price.price_book_id}/new-version/", {}, content_type="application/json")
    assert r.status_code == 201 and r.json()["changed_by"] == "sam"


def test_the_admin_refuses_the_same_deletes(staff):
    c = Client()
    c.force_login(staff)
    book = PriceBook.current()
    r = c.post(f"/admin/bom/pricebook/{book.pk}/delete/", {"post": "yes"})
    assert r.status_code == 200 and "is the current price book" in r.content.decode()
    r = c.post("/admin/bom/pricebook/", {"action": "delete_selected", "_selected_action": [book.pk], "post": "yes"})
    assert r.status_code == 200 and "is the current price book" in r.content.decode()
    part = Part.objects.get(sku="QM9700")
    r = c.post(f"/admin/bom/part/{part.pk}/delete/", {"post": "yes"})
    assert r.status_code == 200 and "QM9700 is priced in" in r.content.decode()
    assert PriceBook.objects.filter(pk=book.pk).exists() and Part.objects.filter(pk=part.pk).exists()
    spare = book.new_version()
    PriceBook.objects.filter(pk=spare.pk).update(is_active=False)
    assert c.post(f"/admin/bom/pricebook/{spare.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not PriceBook.objects.filter(pk=spare.pk).exists()


def test_an_admin_save_records_who_changed_it(staff):
    part = Part.objects.get(sku="QM9700")
    request = RequestFactory().post("/admin/")
    request.user = staff
    admin.site._registry[Part].save_model(request, part, None, True)
    part.refresh_from_db()
    assert part.changed_by == staff and part.changed_at is not None
    c = Client()
    c.force_login(staff)
    for page in (f"/admin/bom/part/{part.pk}/change/", f"/admin/bom/pricebook/{PriceBook.current().pk}/change/"):
        r = c.get(page)
        assert r.status_code == 200 and "Changed by" in r.content.decode()
    assert c.get("/admin/bom/pricebook/").status_code == 200
