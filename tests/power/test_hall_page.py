"""The design page shows the hall (issue #34 item 4): the plan view of every row, drawn from the stored result."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from designer.presets import PRESETS
from designer.requirements import validate_flat
from designer.services import create_design, evaluate_flat


@pytest.mark.django_db
def test_the_design_page_draws_the_hall_with_its_derivation():
    user = get_user_model().objects.create_user("hall", password="pw-hall-123")
    values = {k: v for k, v in PRESETS["superpod-4su"]["values"].items() if v is not None}
    req = validate_flat(values)
    design = create_design(user, req, evaluate_flat(req))
    client = Client()
    client.force_login(user)
    page = client.get(f"/designs/{design.pk}/").content.decode()
    drawing = re.search(r'<div class="elevation-scroll" id="hall-drawing">(.*?)</div>', page, re.S)
    assert drawing is not None
    svg = drawing.group(1)
    assert svg.strip().startswith("<svg") and "Hall plan: 38 racks in 6 rows, one hall" in svg
    assert svg.count('<g class="row"') == 6  # 4 SU rows, the infrastructure row, the spine row
    assert "one block: the spine row in front of 5 rows of up to 9 racks" in page
