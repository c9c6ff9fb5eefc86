"""designer/api/renderers.py: the live evaluate's JSON is what DRF's JSONRenderer writes, written by orjson."""

from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from decimal import Decimal

import numpy as np
import pytest
from django.utils.functional import lazy
from rest_framework.renderers import JSONRenderer

from cluster.validate import load_requirements_file, validate
from designer.api.renderers import FastJSONRenderer
from tests.conftest import EXAMPLES


def _both(data, accepted: str | None = None) -> tuple[bytes, bytes]:
    return FastJSONRenderer().render(data, accepted, {}), JSONRenderer().render(data, accepted, {})


@pytest.fixture
def orjson_only(monkeypatch):
    """DRF's renderer made unusable: what renders now went through orjson, not the fallback. Returns the real
    renderer's bytes for data, taken before."""
    real = JSONRenderer.render

    def refuse(*_args, **_kw):
        raise AssertionError("the fallback ran")

    def drf(data) -> bytes:
        return real(JSONRenderer(), data, None, {})

    monkeypatch.setattr(JSONRenderer, "render", refuse)
    return drf


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_evaluates_to_the_same_bytes(example, orjson_only):
    from cluster.pipeline import plan_cluster

    result = plan_cluster(validate(load_requirements_file(EXAMPLES / example))).result()
    fast = FastJSONRenderer().render(result, None, {})
    assert fast == orjson_only(result) and len(fast) > 10_000


def test_what_orjson_writes_otherwise_goes_to_drfs_encoder(orjson_only):
    """Datetimes (DRF: ISO 8601, +00:00 as Z), Decimals, numpy scalars and arrays,
    lazy strings, UUIDs, integer keys, tuples, non-ASCII text and the two JavaScript line separators."""
    lazy_text = lazy(lambda: "lazy ✓", str)()
    data = {
        "when": dt.datetime(2026, 12, 7, 11, 30, 15, 123456, tzinfo=dt.UTC),
        "day": dt.date(2026, 12, 7),
        "at": dt.time(9, 5, 1, 500),
        "price_usd": Decimal("55000.10"),
        "count": np.int64(7),
        "share": np.float64(0.25),
        "row": np.arange(3),
        "label": lazy_text,
        "id": uuid.UUID(int=1),
        1: ("a", 2),
        "text": "1 × 2 → 3, line\u2028separator\u2029paragraph",
    }
    fast = FastJSONRenderer().render(data, None, {})
    assert fast == orjson_only(data)
    assert b"\\u2028" in fast and b"\\u2029" in fast
    assert json.loads(fast)["when"] == "2026-12-07T11:30:15.123456Z"


def test_what_orjson_cannot_write_drf_does():
    fast, drf = _both({"huge": 2**70, "fine": 1})  # beyond 64 bits
    assert fast == drf == b'{"huge":1180591620717411303424,"fine":1}'


def test_indented_json_on_request_is_drfs():
    fast, drf = _both({"a": [1, 2]}, "application/json; indent=2")
    assert fast == drf == b'{\n  "a": [\n    1,\n    2\n  ]\n}'


def test_nothing_is_empty_and_the_one_difference_is_nan():
    assert FastJSONRenderer().render(None) == b""
    assert FastJSONRenderer().render({"x": math.nan, "y": math.inf}) == b'{"x":null,"y":null}'
    with pytest.raises(ValueError):
        JSONRenderer().render({"x": math.nan})  # DRF's strict JSON: a 500


def test_the_live_evaluate_answers_with_it(alice):
    from django.test import Client

    c = Client()
    c.force_login(alice)
    r = c.post("/api/v1/evaluate/?layout=flat", {"gpu_count": 256}, content_type="application/json")
    assert r.status_code == 200 and type(r.accepted_renderer) is FastJSONRenderer
    assert r.content == JSONRenderer().render(r.json())
