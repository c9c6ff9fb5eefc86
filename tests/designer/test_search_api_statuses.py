"""/api/v1/searches/ answers only the statuses its schema documents (the two schemathesis findings of #36): a spec
with an empty-string key is a field-level 400; saving a candidate into a design the user cannot write is a 403
(the search is theirs, the design is not: a demo or another's shared design), documented; a bad candidate 422."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from designer.models import Design
from designer.searches import create_search

SPEC = {"vary": {"topology": ["rail_optimized", "fat_tree"]}}


def post(c: Client, url: str, body):
    return c.post(url, json.dumps(body), content_type="application/json")


@pytest.fixture
def schema(admin_client) -> dict:
    r = admin_client.get("/api/v1/schema/?format=json")
    assert r.status_code == 200
    return r.json()


def documented(schema: dict, path: str, method: str) -> set[int]:
    return {int(code) for code in schema["paths"][path][method]["responses"]}


@pytest.mark.parametrize(
    "spec",
    [
        {"": 1},
        {"vary": {"": [1]}},
        {"constraints": {"": 1}},
        {"objectives": [""]},
        {"objectives": [{}]},  # schemathesis: an unhashable name (was a 500)
        {"vary": {"tiers": [[]]}},
        {"allreduce_bytes": ""},
        {"workload_target": {"": 1}},
        {"vary": {"topology": ["rail_optimized"]}, "": None},
    ],
)
def test_empty_keys_and_values_outside_the_schema_are_400(alice_design, spec, schema):
    c = Client()
    c.force_login(alice_design.owner)
    r = post(c, "/api/v1/searches/", {"design": alice_design.pk, "spec": spec})
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    assert list(errors) == ["spec"] and errors["spec"] and all(isinstance(m, str) for m in errors["spec"])
    assert 400 in documented(schema, "/api/v1/searches/", "post")


def test_a_well_formed_spec_the_search_refuses_is_422_field_by_field(alice_design, schema):
    """Inside the schema, refused by the engine: an empty topology value, a tier count of 9."""
    c = Client()
    c.force_login(alice_design.owner)
    r = post(c, "/api/v1/searches/", {"design": alice_design.pk, "spec": {"vary": {"topology": [""], "tiers": [9]}}})
    assert r.status_code == 422 and set(r.json()["errors"]) == {"vary.topology", "vary.tiers"}
    spec = schema["components"]["schemas"]["SearchCreateRequest"]["properties"]["spec"]
    assert spec["additionalProperties"] is False and "tiers" in spec["properties"]["vary"]["properties"]


def test_saving_into_a_design_the_user_cannot_write_is_403(alice_design, bob, schema, monkeypatch):
    monkeypatch.setattr("designer.searches.enqueue", lambda qs: 0)
    search = create_search(bob, alice_design.head, SPEC)  # bob's search of alice's design (shared with him, say)
    assert not Design.objects.get(pk=alice_design.pk).can_edit(bob)
    c = Client()
    c.force_login(bob)
    r = post(c, f"/api/v1/searches/{search.pk}/save/", {"candidate": 0})
    assert r.status_code == 403, r.content
    assert "revision" in r.json()["detail"]
    assert {201, 403, 404, 422} <= documented(schema, "/api/v1/searches/{id}/save/", "post")
    assert 422 in documented(schema, "/api/v1/searches/", "post")
