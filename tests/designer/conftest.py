from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from designer.presets import PRESETS
from designer.requirements import validate_flat
from designer.services import create_design, evaluate_flat


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


def make_design(user, preset: str = "h100-8x400g", **overrides):
    values = {k: v for k, v in PRESETS[preset]["values"].items() if v is not None}
    values.update(overrides)
    req = validate_flat(values)
    return create_design(user, req, evaluate_flat(req))


@pytest.fixture
def alice_design(alice):
    return make_design(alice)


def form_data(**overrides) -> dict:
    """A complete, valid form POST (every requirement field as the browser sends it)."""
    from designer.forms import RequirementsForm

    form = RequirementsForm(initial={k: v for k, v in PRESETS["h100-8x400g"]["values"].items()})
    data = {}
    for name in form.fields:
        value = form[name].value()
        data[name] = "" if value is None else value
    data.update(overrides)
    return data
