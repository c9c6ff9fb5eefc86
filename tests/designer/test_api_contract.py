"""The API takes what its schema says (issue #14): JSON types, exact amounts, 400 vs 422 vs 409.

400: a value is malformed — wrong JSON type, out of range, unknown field (the schema says so).
422: every value is well-formed; a rule between fields or the planner refuses (the schema cannot say).
409: a catalog value collides with a stored row. All answers: ``{"errors": {field: [message, …]}}``.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.test import Client

from bom.models import Part, Price, PriceBook
from cluster.requirements import FIELDS
from designer.models import Design
from tests.conftest import EXAMPLES
from tests.designer.test_api import token_client


def post(c, url, body, method="post"):
    return getattr(c, method)(url, body, content_type="application/json")


@pytest.fixture
def api(alice):
    return token_client(alice)[0]


@pytest.fixture
def staff(db):
    user = get_user_model().objects.create_user("sam", password="pw-sam-123", is_staff=True)
    return token_client(user)[0]


def test_a_malformed_value_is_400_a_refused_combination_422(api):
    typed_as_text = post(api, "/api/v1/evaluate/", {"requirements": {"gpu_count": "2000"}})
    assert typed_as_text.status_code == 400
    assert "not a whole number" in typed_as_text.json()["errors"]["gpu_count"][0]
    odd = post(api, "/api/v1/evaluate/", {"requirements": {"gpu_count": 2001}})
    assert odd.status_code == 422 and "whole nodes of 8" in odd.json()["errors"]["gpu_count"][0]
    both = post(api, "/api/v1/evaluate/", {"requirements": {"gpu_count": 2001, "compute_fabric": {"nic_gbps": "x"}}})
    assert both.status_code == 400  # one malformed value makes the request malformed; every error is listed
    assert set(both.json()["errors"]) == {"gpu_count", "compute_fabric.nic_gbps"}


def test_a_design_that_does_not_fit_its_switch_is_422(api):
    r = post(
        api,
        "/api/v1/evaluate/",
        # 2 tiers of 64-port switches reach 64 leaves × 32 nodes per rail group at most: 25,000 nodes do not fit
        {"requirements": {"gpu_count": 200_000, "compute_fabric": {"switch_model": "QM9700", "tiers": 2}}},
    )
    assert r.status_code == 422, r.content


def test_zero_watt_servers_are_a_field_error_not_a_crash(api):
    # Schemathesis (seed 14, CI) found this body: storage and management servers of 0 W made the floor
    # plan divide by zero (500) before the power plan could refuse them.
    power = {"storage_node_power_w": 0.0, "mgmt_node_power_w": 0.0, "rack_u": 1, "node_u": 1, "rack_budget_kw": 0.1}
    body = {"requirements": {"gpu_count": 1, "gpus_per_node": 1, "gpu_model": "B200", "power": power}}
    r = post(api, "/api/v1/evaluate/", body)
    assert r.status_code == 422, r.content
    errors = r.json()["errors"]
    # on the fields the user typed (the rack planner's kW names are not requirement fields)
    assert set(errors) == {"power.storage_node_power_w", "power.mgmt_node_power_w"}, errors
    assert errors["power.storage_node_power_w"] == ["must be positive, got 0.0"]


def test_amounts_arrive_exactly_as_written(api):
    r = post(api, "/api/v1/designs/", {"requirements": {"gpu_count": 16, "power": {"electricity_usd_per_kwh": 0.0815}}})
    assert r.status_code == 201, r.content
    stored = Design.objects.get(pk=r.json()["id"]).head.requirements()["electricity_usd_per_kwh"]
    assert stored == Decimal("0.0815")  # a JSON number parsed as a Decimal, never through a float
    for bad in (0.08155, "0.080000", "8e-2", "-0.1", 11):
        r = post(
            api, "/api/v1/evaluate/", {"requirements": {"gpu_count": 16, "power": {"electricity_usd_per_kwh": bad}}}
        )
        assert r.status_code == 400, (bad, r.content)
    assert (
        post(
            api, "/api/v1/evaluate/", {"requirements": {"gpu_count": 16, "tco": {"gpu_node_price_usd": "250000.5"}}}
        ).status_code
        == 200
    )


def test_the_body_is_checked_whole_and_every_fault_reported(api):
    r = post(api, "/api/v1/designs/", {"requirement": {"gpu_count": 16}, "message": 5})
    assert r.status_code == 400
    assert set(r.json()["errors"]) == {"requirement", "requirements", "message"}
    nulls = post(api, "/api/v1/evaluate/", {"requirements": {"gpu_count": 16, "notes": None, "node_count": None}})
    assert nulls.status_code == 400 and set(nulls.json()["errors"]) == {"notes", "node_count"}
    assert post(api, "/api/v1/evaluate/", {"requirements": {"gpu_count": 16, "storage": None}}).status_code == 200
    assert post(api, "/api/v1/evaluate/", "[1, 2]").status_code == 400


def test_json_types_are_not_coerced(api):
    for field, value in (
        (("cluster", "gpu_count"), 16.5),
        (("compute_fabric", "nic_gbps"), "400"),
        (("compute_fabric", "topology"), " fat_tree"),
        (("tco", "node_price_includes_nics"), "yes"),
        (("cluster", "name"), 7),
        (("compute_fabric", "torus_dims"), [4, 4.5, 4]),
    ):
        body = {"gpu_count": 16}
        section, key = field
        if section == "cluster":
            body[key] = value
        else:
            body[section] = {key: value}
        r = post(api, "/api/v1/evaluate/", {"requirements": body})
        assert r.status_code == 400, (field, value, r.content)


def test_patch_with_node_count_replaces_the_gpu_count(api):
    pk = post(api, "/api/v1/designs/", {"requirements": {"gpu_count": 16}}).json()["id"]
    r = post(api, f"/api/v1/designs/{pk}/", {"requirements": {"node_count": 4}}, method="patch")
    assert r.status_code == 200, r.content
    assert r.json()["head"]["requirements"]["gpu_count"] == 32


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_file_is_accepted_as_json_by_the_strict_api(api, name):
    body = yaml.safe_load((EXAMPLES / name).read_text())
    r = post(api, "/api/v1/evaluate/", {"requirements": body})
    assert r.status_code == 200, r.content


def test_the_schema_states_every_requirement_field(api):
    schema = api.get("/api/v1/schema/?format=json").json()
    comps = schema["components"]["schemas"]
    req = comps["Requirements"]
    assert req["additionalProperties"] is False
    assert req["anyOf"] == [{"required": ["gpu_count"]}, {"required": ["node_count"]}]
    listed = {k for k, v in req["properties"].items() if "properties" not in v} | {
        f"{k}.{sub}" for k, v in req["properties"].items() if "properties" in v for sub in v["properties"]
    }
    assert {f.path for f in FIELDS} | {"node_count"} == listed
    price = req["properties"]["power"]["properties"]["electricity_usd_per_kwh"]
    assert price["oneOf"][0]["multipleOf"] == 0.0001 and price["oneOf"][1]["pattern"].startswith("^([0-9]{1,1}")
    ops = schema["paths"]["/api/v1/designs/"]["post"]
    assert ops["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/RequirementsInput")
    assert "422" in ops["responses"] and "422" in schema["paths"]["/api/v1/evaluate/"]["post"]["responses"]
    assert "409" in schema["paths"]["/api/v1/parts/"]["post"]["responses"]
    assert "/api/v1/schema/" not in schema["paths"]


def test_compare_needs_two_to_four_revisions_422(api, alice_design):
    r = api.get(f"/api/v1/compare/?d={alice_design.pk}")
    assert r.status_code == 422
    assert api.get("/api/v1/compare/?d=0").status_code == 400


@pytest.mark.django_db
def test_catalog_fields_take_their_json_types(staff):
    part = Part.objects.order_by("pk").first()
    r = post(staff, f"/api/v1/parts/{part.pk}/", {"description": 5}, method="patch")
    assert r.status_code == 400 and "description" in r.json()["errors"]
    r = post(staff, f"/api/v1/parts/{part.pk}/", {"description": "   "}, method="patch")
    assert r.status_code == 400
    r = post(staff, f"/api/v1/parts/{part.pk}/", {"port_count": "64"}, method="patch")
    assert r.status_code == 400
    r = post(staff, f"/api/v1/parts/{part.pk}/", {"power_w": 4e9}, method="patch")
    assert r.status_code == 400  # beyond the stated 10 MW bound


@pytest.mark.django_db
def test_catalog_duplicates_are_409_missing_rows_422(staff):
    a, b = Part.objects.order_by("pk")[:2]
    r = post(staff, f"/api/v1/parts/{a.pk}/", {"sku": b.sku}, method="patch")
    assert r.status_code == 409 and "sku" in r.json()["errors"]
    price = Price.objects.order_by("pk").first()
    body = {"price_book": 10**6, "part": price.part_id, "list_price_usd": "1.00", "source_note": "quote Q-1"}
    r = post(staff, "/api/v1/prices/", body)
    assert r.status_code == 422 and "price_book" in r.json()["errors"]
    body = {"price_book": price.price_book_id, "part": price.part_id, "list_price_usd": "1.00", "source_note": "q"}
    assert post(staff, "/api/v1/prices/", body).status_code == 409  # that book already prices that part
    body["price_book"] = "1"
    assert post(staff, "/api/v1/prices/", body).status_code == 400  # an id is a JSON integer


@pytest.mark.django_db
def test_catalog_amounts_are_exact_and_bounded(staff):
    price = Price.objects.order_by("pk").first()
    r = post(staff, f"/api/v1/prices/{price.pk}/", {"list_price_usd": 600.5, "discount_pct": "12.5"}, method="patch")
    assert r.status_code == 200, r.content
    assert r.json()["list_price_usd"] == "600.50" and r.json()["unit_price_usd"] == "525.44"  # 600.50 × 0.875
    for bad in (
        {"list_price_usd": "600.005"},
        {"discount_pct": 100.01},
        {"discount_pct": ""},
        {"list_price_usd": True},
    ):
        assert post(staff, f"/api/v1/prices/{price.pk}/", bad, method="patch").status_code == 400, bad


@pytest.mark.django_db
def test_price_book_currency_and_read_only_version(staff):
    book = PriceBook.objects.order_by("pk").first()
    assert post(staff, f"/api/v1/price-books/{book.pk}/", {"currency": "usd"}, method="patch").status_code == 400
    r = post(staff, f"/api/v1/price-books/{book.pk}/", {"currency": "EUR", "version": 99}, method="patch")
    assert r.status_code == 200 and r.json()["currency"] == "EUR" and r.json()["version"] == book.version
    assert post(staff, f"/api/v1/price-books/{book.pk}/new-version/", {"note": {}}).status_code == 400


def test_unauthenticated_client_gets_401_not_a_form_error():
    assert Client().post("/api/v1/evaluate/", {}, content_type="application/json").status_code in (401, 403)


@pytest.mark.django_db
def test_a_source_url_is_what_the_schema_pattern_says_so_a_duplicate_sku_alone_is_409(staff):
    """The fuzzer found POST/PUT/PATCH /parts/ refusing schema-valid addresses (format uri ≠ Django's URLValidator)
    with 400 next to the 409 a duplicate SKU gets: the address rule is now one pattern, the schema's and the
    server's, matched to the end (a trailing newline is not "the end")."""
    import re

    schema = staff.get("/api/v1/schema/?format=json").json()
    url_schema = schema["components"]["schemas"]["PartRequest"]["properties"]["source_url"]
    pattern = next(b["pattern"] for b in url_schema["oneOf"] if "pattern" in b)
    a, b = Part.objects.order_by("pk")[:2]
    for good in ("https://docs.nvidia.com/networking/display/x?y=1#z", "http://t.o.vbwsouydRF#é"):
        assert re.fullmatch(pattern, good)
        r = post(staff, f"/api/v1/parts/{a.pk}/", {"source_url": good}, method="patch")
        assert r.status_code == 200, r.content
    for bad in ("ftp://a.bc", "http://0", "https://a.bc/x\n", "https://a.bc/x\x1e", "https://a b.com", "0"):
        assert not re.fullmatch(pattern, bad)
        r = post(staff, f"/api/v1/parts/{a.pk}/", {"source_url": bad}, method="patch")
        assert r.status_code == 400 and "source_url" in r.json()["errors"], (bad, r.content)
    r = post(staff, f"/api/v1/parts/{a.pk}/", {"sku": b.sku, "source_url": "https://t.o.4.vbw#x"}, method="patch")
    assert r.status_code == 409, r.content


@pytest.mark.django_db
def test_the_simulation_fabric_field_is_typed_in_the_schema_with_the_servers_bounds(api):
    """POST /simulations/ `fabric` was an untyped JSON value, so [null, null] was schema-valid and refused (400):
    the schema now says what parse_fabric_rates takes — part kind → AFR 0 ≤ % < 100 or {afr_pct, repair_h ∈ (0,
    8760]} — and nothing else."""
    schema = api.get("/api/v1/schema/?format=json").json()
    fabric = schema["components"]["schemas"]["SimulationCreateRequest"]["properties"]["fabric"]
    assert fabric["type"] == "object" and fabric["additionalProperties"] is False
    assert set(fabric["properties"]) == {"leaf", "spine", "nic", "optic", "cable"}
    afr, obj = fabric["properties"]["leaf"]["oneOf"]
    assert (afr["minimum"], afr["maximum"], afr["exclusiveMaximum"]) == (0, 100, True)
    repair = obj["properties"]["repair_h"]
    assert (repair["minimum"], repair["exclusiveMinimum"], repair["maximum"]) == (0, True, 8760)
