"""Saves that change nothing make no revision; history says what each revision changed; demos are open."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import override_settings

from designer.forms import RequirementsForm
from tests.designer.conftest import make_design


def head_form_data(design) -> dict:
    form = RequirementsForm(initial=design.head.requirements())
    return {name: ("" if form[name].value() is None else form[name].value()) for name in form.fields}


def test_a_save_with_no_change_makes_no_revision(client, alice, alice_design):
    client.force_login(alice)
    r = client.post(f"/designs/{alice_design.pk}/edit/", head_form_data(alice_design), follow=True)
    assert r.status_code == 200
    assert alice_design.revisions.count() == 1
    assert "no new revision" in r.content.decode()


def test_api_patch_with_no_change_keeps_the_revision(client, alice, alice_design):
    client.force_login(alice)
    r = client.patch(
        f"/api/v1/designs/{alice_design.pk}/", {"requirements": {"gpu_count": 2000}}, content_type="application/json"
    )
    assert r.status_code == 200 and r.json()["head"]["number"] == 1
    r = client.patch(
        f"/api/v1/designs/{alice_design.pk}/",
        {"requirements": {"compute_fabric": {"oversubscription": 2}}},
        content_type="application/json",
    )
    assert r.json()["head"]["number"] == 2


def test_history_names_the_fields_each_revision_changed(client, alice, alice_design):
    client.force_login(alice)
    data = head_form_data(alice_design)
    data.update(oversubscription="2", storage_node_count="12")
    assert client.post(f"/designs/{alice_design.pk}/edit/", data).status_code == 302
    page = client.get(f"/designs/{alice_design.pk}/history/").content.decode()
    assert "compute_fabric.oversubscription</code> 1.0 → 2.0" in page
    assert "storage.node_count</code> 8 → 12" in page
    assert "first revision" in page


def test_signed_in_users_see_open_and_clone_the_demos(client, bob):
    demo_user = get_user_model().objects.create_user("demo", password="x")
    demo = make_design(demo_user)
    client.force_login(bob)
    listing = client.get("/designs/").content.decode()
    assert f'/designs/{demo.pk}/"' in listing and "Demo designs" in listing
    assert client.get(f"/designs/{demo.pk}/").status_code == 200
    r = client.post(f"/designs/{demo.pk}/clone/")
    assert r.status_code == 302
    assert bob.designs.count() == 1
    assert client.get(f"/designs/{demo.pk}/edit/").status_code == 404  # read-only: only the owner edits


def test_other_users_designs_stay_hidden(client, alice, bob, alice_design):
    client.force_login(bob)
    assert client.get(f"/designs/{alice_design.pk}/").status_code == 404
    assert client.post(f"/designs/{alice_design.pk}/clone/").status_code == 404


def test_a_revision_keeps_choose_for_me_fields_empty(client, alice):
    client.force_login(alice)
    r = client.post("/api/v1/designs/", {"requirements": {"gpu_count": 32768}}, content_type="application/json")
    head = r.json()["head"]
    assert head["requirements"]["storage"]["node_count"] is None
    assert head["results"]["storage"]["storage_node_count"] == 66
    pk = r.json()["id"]
    assert client.get(f"/api/v1/designs/{pk}/bom.json").status_code == 200
    with override_settings(EXPORT_INLINE_MAX_LINKS=10**9):  # ≈ 130k links: a background job by default
        assert client.get(f"/designs/{pk}/export/cabling.csv").status_code == 200
