"""/api/v1/searches/: start (field errors on the spec), progress and report, rows, save a candidate, cancel."""

from __future__ import annotations

import json

from django.test import Client

from designer.searches import run_search_chunk

SPEC = {"vary": {"topology": ["rail_optimized", "fat_tree"], "oversubscription": [1, 2]}}


def client_for(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def post(c: Client, url: str, body: dict):
    return c.post(url, json.dumps(body), content_type="application/json")


def test_api_start_errors_rows_save_and_cancel(alice_design, bob, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(
        "designer.searches.enqueue", lambda qs: [run_search_chunk(pk) for pk in qs.values_list("pk", flat=True)] and 0
    )
    c = client_for(alice_design.owner)
    bad = post(
        c, "/api/v1/searches/", {"design": alice_design.pk, "spec": {"vary": {"tiers": [9]}, "objectives": ["x"]}}
    )
    assert bad.status_code == 400 and "objectives" in " ".join(bad.json()["errors"]["spec"])  # outside the schema
    refused = post(c, "/api/v1/searches/", {"design": alice_design.pk, "spec": {"vary": {"tiers": [9]}}})
    assert refused.status_code == 422 and set(refused.json()["errors"]) == {"vary.tiers"}  # well-formed, refused
    missing = post(c, "/api/v1/searches/", {"design": alice_design.pk, "revision": 9, "spec": SPEC})
    assert missing.status_code == 422 and "revision" in missing.json()["errors"]
    with django_capture_on_commit_callbacks(execute=True):
        r = post(c, "/api/v1/searches/", {"design": alice_design.pk, "spec": SPEC})
    assert r.status_code == 201, r.content
    pk = r.json()["id"]
    body = c.get(f"/api/v1/searches/{pk}/").json()
    assert body["status"] == "done" and body["progress"]["done_candidates"] == 4
    best = body["report"]["best"]
    rows = c.get(f"/api/v1/searches/{pk}/rows/?offset=1&limit=2").json()["rows"]
    assert [row["i"] for row in rows] == [1, 2]
    saved = post(c, f"/api/v1/searches/{pk}/save/", {"candidate": best["i"]})
    assert saved.status_code == 201 and str(saved.json()["summary"]["capex_usd"]) == best["f"]["capex_usd"]
    assert post(c, f"/api/v1/searches/{pk}/save/", {"candidate": 99}).status_code == 422
    assert post(c, f"/api/v1/searches/{pk}/cancel/", {}).json()["status"] == "done"  # finished: nothing to cancel
    assert client_for(bob).get(f"/api/v1/searches/{pk}/").status_code == 404
