"""#38.3: a sweep's size before it is started — points, chunks and an estimated time on the form, from the same
resolution as the sweep itself; nothing is stored, bad specs are field errors."""

from __future__ import annotations

import pytest
from django.test import Client

from designer.models import Sweep
from tests.designer.conftest import make_design

FORM = {
    "collectives": ["all_reduce", "all_to_all"],
    "algorithms": ["auto", "ring"],
    "min_bytes": "8",
    "max_bytes": "1 GiB",
    "factor": "4",
    "vary_node_count": "16, 64, 250",
    "vary_oversubscription": "1, 2",
}


@pytest.mark.django_db
def test_the_size_is_the_sweeps_own_by_hand(django_user_model, settings):
    """3 node counts × 2 ratios = 6 variants; sizes 8 B ×4 up to 1 GiB: 8·4^k ≤ 2^30 → k = 0…13, 14 sizes;
    6 × 2 collectives × 14 × 2 algorithms = 336 points; chunks of 100 → ⌈336 ÷ 100⌉ = 4; at the default
    100 points/s (no finished sweep yet) 3.4 s."""
    settings.SWEEP_CHUNK_POINTS = 100
    settings.SWEEP_POINTS_PER_S_ESTIMATE = 100
    user = django_user_model.objects.create_user("sizer", password="x-long-pass-1")
    design = make_design(user)
    c = Client()
    c.force_login(user)
    r = c.post(f"/designs/{design.pk}/sweeps/size.json", FORM)
    assert r.status_code == 200, r.content
    d = r.json()
    assert (d["variants"], d["points"], d["chunks"], d["estimated_s"]) == (6, 336, 4, 3.4)
    assert "6 variant(s) × 2 collective(s) × 14 size(s) × 2 algorithm(s) = 336 points" in d["derivation"]
    assert Sweep.objects.count() == 0  # nothing stored
    started = c.post(f"/designs/{design.pk}/sweeps/new/", FORM)
    assert started.status_code == 302 and Sweep.objects.get().total_points == d["points"]
    page = c.get(f"/designs/{design.pk}/sweeps/new/").content.decode()
    assert 'id="sweep-size"' in page and "sweeps/size.json" in page and "designer/sweep.js" in page


@pytest.mark.django_db
def test_a_bad_spec_is_field_errors_and_other_users_designs_are_not_sized(django_user_model):
    owner = django_user_model.objects.create_user("owner", password="x-long-pass-1")
    other = django_user_model.objects.create_user("other", password="x-long-pass-1")
    design = make_design(owner)
    c = Client()
    c.force_login(owner)
    bad = c.post(f"/designs/{design.pk}/sweeps/size.json", {**FORM, "factor": "1", "vary_topology": "ring_bus"})
    assert bad.status_code == 400
    errors = bad.json()["errors"]
    assert "factor" in errors and "vary.topology" in errors
    assert c.get(f"/designs/{design.pk}/sweeps/size.json").status_code == 405
    c.force_login(other)
    assert c.post(f"/designs/{design.pk}/sweeps/size.json", FORM).status_code == 404
