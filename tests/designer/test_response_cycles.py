"""A rendered API response is freed with the request, not left in cycles for the collector (designer.api.cycles)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from designer.api.cycles import detach
from tests.gc_garbage import cyclic_garbage


def _answer_dicts(objects: list) -> list[dict]:
    """The evaluate answer's top-level dicts among ``objects``."""
    return [o for o in objects if isinstance(o, dict) and "schema_version" in o and "bom" in o]


def _post(client: Client, url: str) -> int:
    r = client.post(url, {"gpu_count": 256}, content_type="application/json")
    status = r.status_code
    r.__dict__.pop("json", None)  # the test client's own ``response.json`` closure is a cycle a server never makes
    return status


@pytest.mark.django_db
def test_the_evaluate_answer_is_not_left_to_the_collector(django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_user("cycles"))
    assert _post(client, "/api/v1/evaluate/?layout=flat") == 200  # the first request imports and loads
    with cyclic_garbage() as found:
        assert _post(client, "/api/v1/evaluate/?layout=flat") == 200
    assert _answer_dicts(found()) == []


@pytest.mark.django_db
def test_without_the_middleware_it_would_be(django_user_model, settings):
    """The test above can fail: with the middleware out, DRF's cycles keep the answer for the collector."""
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if not m.endswith("DetachRenderedResponseMiddleware")]
    client = Client()
    client.force_login(django_user_model.objects.create_user("cycles"))
    assert _post(client, "/api/v1/evaluate/?layout=flat") == 200
    with cyclic_garbage() as found:
        assert _post(client, "/api/v1/evaluate/?layout=flat") == 200
    assert len(_answer_dicts(found())) == 1


class _View:
    pass


def _response(view: _View, data: dict) -> Response:
    r = Response(data)
    r.accepted_renderer, r.accepted_media_type = JSONRenderer(), "application/json"
    r.renderer_context = {"view": view, "request": None}
    view.response = r
    return r


def test_detach_drops_only_a_rendered_responses_references():
    view = _View()
    pending = _response(view, {"a": 1})
    detach(pending)  # not rendered yet: its renderer still needs all of it
    assert pending.renderer_context["view"] is view and view.response is pending
    pending.render()
    assert pending.renderer_context["response"] is pending  # DRF's own cycle
    detach(pending)
    assert pending.renderer_context == {"request": None} and pending.content == b'{"a":1}'
    assert not hasattr(view, "response")
    other = _response(_View(), {"b": 2})
    other.renderer_context["view"] = view
    view.response = pending  # the view answered with another response: kept
    detach(other.render())
    assert view.response is pending
    detach(object())  # no renderer context (a plain Django response): nothing to do
