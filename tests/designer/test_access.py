"""Another user cannot read, edit, list or compare a design they were not given (page and API)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.designer.conftest import form_data, make_design


@pytest.fixture
def as_bob(bob):
    c = Client()
    c.force_login(bob)
    return c


PAGES = [
    "/designs/{pk}/",
    "/designs/{pk}/history/",
    "/designs/{pk}/edit/",
    "/designs/{pk}/share/",
    "/designs/{pk}/delete/",
    "/designs/{pk}/r/1/",
]


@pytest.mark.parametrize("page", PAGES)
def test_stranger_gets_404_on_pages(as_bob, alice_design, page):
    assert as_bob.get(page.format(pk=alice_design.pk)).status_code == 404


def test_stranger_cannot_post_changes(as_bob, alice_design):
    pk = alice_design.pk
    assert as_bob.post(f"/designs/{pk}/edit/", form_data()).status_code == 404
    assert as_bob.post(f"/designs/{pk}/delete/").status_code == 404
    assert as_bob.post(f"/designs/{pk}/clone/").status_code == 404
    assert as_bob.post(f"/designs/{pk}/restore/").status_code == 404
    assert alice_design.revisions.count() == 1
    alice_design.refresh_from_db()
    assert alice_design.deleted_at is None


def test_stranger_does_not_see_it_listed_or_compared(as_bob, bob, alice_design):
    mine = make_design(bob, name="Bob's")
    body = as_bob.get("/designs/").content.decode()
    assert "Bob&#x27;s" in body and alice_design.head.name not in body
    assert as_bob.get(f"/compare/?d={mine.pk}&d={alice_design.pk}").status_code == 404
    rev = alice_design.head.pk
    assert as_bob.get(f"/compare/?d={mine.pk}&r={rev}").status_code == 404


def test_api_stranger_gets_404(as_bob, alice_design):
    pk = alice_design.pk
    assert as_bob.get(f"/api/v1/designs/{pk}/").status_code == 404
    assert as_bob.get(f"/api/v1/designs/{pk}/revisions/").status_code == 404
    assert (
        as_bob.patch(f"/api/v1/designs/{pk}/", {"requirements": {}}, content_type="application/json").status_code == 404
    )
    assert as_bob.delete(f"/api/v1/designs/{pk}/").status_code == 404
    assert as_bob.post(f"/api/v1/designs/{pk}/clone/").status_code == 404
    assert all(d["id"] != pk for d in as_bob.get("/api/v1/designs/").json()["results"])
    assert as_bob.get(f"/api/v1/compare/?d={pk}&d={pk}").status_code == 404


def test_shared_user_reads_but_cannot_edit(as_bob, bob, alice, alice_design):
    alice_design.shared_with.add(bob)
    pk = alice_design.pk
    assert as_bob.get(f"/designs/{pk}/").status_code == 200
    assert (
        "Edit" not in as_bob.get(f"/designs/{pk}/").content.decode().split('<nav class="tabs">')[0].split("actions")[-1]
    )
    assert as_bob.get(f"/designs/{pk}/edit/").status_code == 404
    assert as_bob.post(f"/designs/{pk}/delete/").status_code == 404
    assert as_bob.get(f"/api/v1/designs/{pk}/").status_code == 200
    assert (
        as_bob.patch(f"/api/v1/designs/{pk}/", {"requirements": {}}, content_type="application/json").status_code == 404
    )
    assert "(shared)" in as_bob.get("/designs/").content.decode()
    # a shared user may clone into a design of their own
    r = as_bob.post(f"/designs/{pk}/clone/")
    assert r.status_code == 302


def test_share_by_link_and_turn_off(client, alice, alice_design):
    c = Client()
    c.force_login(alice)
    c.post(f"/designs/{alice_design.pk}/share/", {"action": "link-on"})
    alice_design.refresh_from_db()
    token = alice_design.share_token
    assert token and client.get(f"/s/{token}/").status_code == 200
    c.post(f"/designs/{alice_design.pk}/share/", {"action": "link-off"})
    assert client.get(f"/s/{token}/").status_code == 404


def test_share_with_unknown_user_is_a_field_error(alice, alice_design):
    c = Client()
    c.force_login(alice)
    r = c.post(f"/designs/{alice_design.pk}/share/", {"username": "nobody"})
    assert "no user with that name" in r.content.decode()


def test_anonymous_is_sent_to_login(client, alice_design):
    r = client.get(f"/designs/{alice_design.pk}/")
    assert r.status_code == 302 and "/accounts/login/" in r["Location"]
    assert client.get("/api/v1/designs/").status_code in (401, 403)
    assert client.get("/api/v1/schema/").status_code in (401, 403)


def test_a_sharee_compares_the_owners_revisions(alice, bob, alice_design):
    """Revisions of a design shared with bob: bob may open and compare them (page and API)."""
    from designer.services import evaluate_flat, save_revision

    r2 = evaluate_flat({**alice_design.head.requirements(), "oversubscription": 2})
    save_revision(alice_design, alice, r2.requirements, r2, "2:1")
    alice_design.shared_with.add(bob)
    c = Client()
    c.force_login(bob)
    ids = list(alice_design.revisions.order_by("number").values_list("pk", flat=True))
    assert c.get(f"/compare/?r={ids[0]}&r={ids[1]}").status_code == 200
    api = c.get(f"/api/v1/compare/?r={ids[1]}&r={ids[0]}").json()
    assert [col["revision"] for col in api["columns"]] == [1, 2]
    alice_design.shared_with.remove(bob)
    assert c.get(f"/compare/?r={ids[0]}&r={ids[1]}").status_code == 404
