"""Issue #14's defects, one test each (each failed on the main this session started from)."""

from __future__ import annotations

import io
from datetime import timedelta

import openpyxl
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from bom.models import Part, Price, PriceBook
from designer.models import ApiToken, Design
from designer.sweeps import create_sweep
from tests.designer.conftest import make_design
from tests.designer.test_api import token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("sam", password="pw-sam-12345", is_staff=True)


def test_a_read_only_staff_token_cannot_write_the_catalog(staff):
    c, _ = token_client(staff, read_only=True)
    price = Price.objects.first()
    part = Part.objects.first()
    book = PriceBook.current()
    assert (
        c.patch(f"/api/v1/prices/{price.pk}/", {"discount_pct": 5}, content_type="application/json").status_code == 403
    )
    assert c.patch(f"/api/v1/parts/{part.pk}/", {"vendor": "x"}, content_type="application/json").status_code == 403
    assert c.post(f"/api/v1/price-books/{book.pk}/new-version/", {}, content_type="application/json").status_code == 403
    assert c.get("/api/v1/parts/").status_code == 200


def test_bearer_tokens_are_accepted(alice):
    _, key = ApiToken.issue(alice, "t", timezone.now() + timedelta(days=1))
    assert Client(HTTP_AUTHORIZATION=f"Bearer {key}").get("/api/v1/designs/").status_code == 200


def test_creating_a_price_book_and_a_bad_new_version_body_are_not_server_errors(staff):
    c = Client()
    c.force_login(staff)
    r = c.post(
        "/api/v1/price-books/", {"name": "Quotes", "version": 1, "currency": "USD"}, content_type="application/json"
    )
    assert r.status_code == 201, r.content
    book = PriceBook.current()
    r = c.post(f"/api/v1/price-books/{book.pk}/new-version/", "[1, 2]", content_type="application/json")
    assert r.status_code == 400 and "JSON object" in r.json()["errors"]["non_field_errors"][0]


@pytest.mark.parametrize("query", ["r=²&r=1", "d=²&d=1", "d=99999999999999999999&d=1"])
def test_unicode_digits_and_huge_ids_are_not_server_errors(alice, query):
    c = Client()
    c.force_login(alice)
    assert c.get(f"/api/v1/compare/?{query}").status_code == 400
    assert c.get(f"/compare/?{query}").status_code == 404


def test_bad_ids_in_exports_sweeps_and_owner_forms(alice, alice_design):
    c = Client()
    c.force_login(alice)
    assert c.get(f"/api/v1/designs/{alice_design.pk}/bom.json?revision=²").status_code == 400
    assert c.get(f"/designs/{alice_design.pk}/export/bom.json?revision=²").status_code == 404
    assert c.get("/api/v1/sweeps/?design=²").status_code == 400
    assert c.get("/api/v1/sweeps/?design=99999999999999999999").status_code == 400
    assert c.post("/accounts/tokens/", {"action": "revoke", "token_id": "abc"}).status_code in (200, 302)
    r = c.post(f"/designs/{alice_design.pk}/share/", {"action": "remove", "user_id": "abc"})
    assert r.status_code == 302


def test_a_former_sharee_cannot_rerun_a_sweep(alice, bob):
    design = make_design(alice)
    design.shared_with.add(bob)
    sweep = create_sweep(bob, design.head, {"collectives": ["all_reduce"], "min_bytes": 8, "max_bytes": 64})
    design.shared_with.remove(bob)
    c = Client()
    c.force_login(bob)
    r = c.post(f"/api/v1/sweeps/{sweep.pk}/rerun/")
    assert r.status_code == 400 and "no longer read" in r.json()["errors"]["design"][0]


def test_health_sends_no_task_for_anonymous_callers(client, monkeypatch):
    sent = []
    monkeypatch.setattr("designer.tasks.ping.delay", lambda: sent.append(1))
    r = client.get("/health/?worker=1")
    assert r.status_code == 200 and sent == [] and "worker" not in r.json()


def test_login_lockout_after_five_failures_even_with_the_right_password(client, alice):
    for _ in range(5):
        assert client.post("/accounts/login/", {"username": "alice", "password": "wrong"}).status_code == 200
    r = client.post("/accounts/login/", {"username": "alice", "password": "pw-alice-123"})
    assert r.status_code == 429 and "Too many failed sign-ins" in r.content.decode()
    assert "_auth_user_id" not in client.session


def test_new_token_page_is_not_cached(alice):
    c = Client()
    c.force_login(alice)
    r = c.post("/accounts/tokens/", {"name": "ci", "expires_in_days": 30})
    assert r["Cache-Control"] == "no-store"


def test_making_a_share_link_shows_no_false_error(alice, alice_design):
    c = Client()
    c.force_login(alice)
    r = c.post(f"/designs/{alice_design.pk}/share/", {"action": "link-on"})
    assert r.status_code == 302
    assert Design.objects.get(pk=alice_design.pk).share_token


def test_the_shared_link_workbook_does_not_name_the_author(client, alice, alice_design):
    token = alice_design.enable_link_sharing()
    content = client.get(f"/s/{token}/export/bom.xlsx").content
    summary = openpyxl.load_workbook(io.BytesIO(content))["Summary"]
    assert "alice" not in str(summary["B2"].value) and summary["B2"].value.startswith("r1")


def test_a_design_beyond_the_request_budget_is_refused_before_any_work(alice, monkeypatch):
    """10 M GPUs took 456 s and 3.6 GB in one request: now it is refused before the pipeline runs."""
    import resource

    def no_planning(*a, **k):
        raise AssertionError("the pipeline ran for a design beyond the budget")

    monkeypatch.setattr("designer.services.plan_cluster", no_planning)
    c = Client()
    c.force_login(alice)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = c.post("/api/v1/evaluate/", {"requirements": {"gpu_count": 10_000_000}}, content_type="application/json")
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert r.status_code == 422 and "more than the 262,144 a request may plan" in r.json()["errors"]["gpu_count"][0]
    assert grown_mb < 50


def test_unrouted_api_paths_answer_json_404(alice, settings):
    settings.DEBUG = False
    c = Client()
    c.force_login(alice)
    r = c.get("/api/v1/designs/0.5/revisions/")
    assert r.status_code == 404 and r["Content-Type"].startswith("application/json")
    assert c.get("/no-such-page/")["Content-Type"].startswith("text/html")


def test_the_schema_documents_token_auth_errors_and_pages(alice):
    c = Client()
    c.force_login(alice)
    schema = c.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert schema["components"]["securitySchemes"]["tokenAuth"]["name"] == "Authorization"
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            assert {"401", "403", "404"} <= set(op["responses"]), (method, path)
    listing = schema["paths"]["/api/v1/designs/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert listing == {"$ref": "#/components/schemas/DesignPage"}
    page = schema["components"]["schemas"]["DesignPage"]["properties"]
    assert {"count", "next", "previous", "results"} <= set(page)
    clone = schema["paths"]["/api/v1/designs/{id}/clone/"]["post"]["responses"]
    assert "201" in clone
