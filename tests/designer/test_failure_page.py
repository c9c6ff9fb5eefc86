"""The failure page (#37.2): classes of single failures and the Monte Carlo chart; a run past the request budget is
refused on `samples` with the CLI command, never computed or clamped silently."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.designer.conftest import make_design


@pytest.mark.django_db
def test_failure_page_and_its_budget(alice, settings):
    design = make_design(alice)
    c = Client()
    c.force_login(alice)
    page = c.get(f"/designs/{design.pk}/failures/?k=2&samples=40&seed=3")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="single-failures"' in html and 'id="chart-failures"' in html and "40 draws of 2 distinct" in html
    report = page.context["report"]
    assert sum(r["switches"] for r in report["single_failures"]) == report["switch_count"]
    settings.FAILURE_REQUEST_MS = 1  # a budget no Monte Carlo of 100,000 samples fits
    over = c.get(f"/designs/{design.pk}/failures/?samples=100000")
    assert over.status_code == 200 and over.context["report"] is None
    assert "more than the 0.001 s a page may compute" in over.context["errors"]["samples"]
    assert "cluster-designer failures FILE.yaml --k 4 --samples 100000" in over.context["errors"]["samples"]
    bad = c.get(f"/designs/{design.pk}/failures/?k=abc")
    assert bad.context["errors"]["k"] == "'abc' is not a whole number"
    detail = c.get(f"/designs/{design.pk}/").content.decode()
    assert "open-failures" in detail
    growth = design.head.results["compute_fabric"].get("growth_option")
    assert growth is None or 'id="growth-option"' in detail  # the price of uplinks for the whole leaf, when it differs


@pytest.mark.django_db
def test_other_users_cannot_see_a_designs_failures(alice, bob):
    design = make_design(alice)
    c = Client()
    c.force_login(bob)
    assert c.get(f"/designs/{design.pk}/failures/").status_code == 404
