"""The design search pages: the form's field errors, progress, the results (charts, ranking, equal views,
refusals), saving a candidate and comparing candidates, downloads, privacy and escaping."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from designer.search_models import DesignSearch
from designer.searches import run_search_chunk


@pytest.fixture
def sync(monkeypatch):
    """Chunks run at once in the request (no broker): what a worker would do."""

    def run_now(qs):
        for pk in list(qs.values_list("pk", flat=True)):
            run_search_chunk(pk)
        return 0

    monkeypatch.setattr("designer.searches.enqueue", run_now)


def client_for(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def start(c: Client, design, **extra) -> object:
    data = {"vary_topology": ["rail_optimized", "fat_tree"], "vary_oversubscription": "1, 2", **extra}
    data.setdefault("objective_1", "capex_usd")
    return c.post(f"/designs/{design.pk}/searches/new/", data)


def test_bad_values_come_back_on_their_fields(alice_design, sync):
    c = client_for(alice_design.owner)
    assert c.get(f"/designs/{alice_design.pk}/searches/new/").status_code == 200
    r = start(c, alice_design, vary_oversubscription="1, lots", max_capex_usd="cheap", target_p95_wait_h="-1")
    page = r.content.decode()
    assert r.status_code == 200 and DesignSearch.objects.count() == 0
    assert 'id="error-vary-oversubscription"' in page and "lots" in page
    assert 'id="error-max_capex_usd"' in page and "not a finite number" in page
    assert 'id="error-workload_targetp95_wait_h"' in page and "a number of hours" in page


@pytest.mark.django_db(transaction=True)
def test_results_page_save_and_compare(alice_design, sync):
    c = client_for(alice_design.owner)
    r = start(c, alice_design, min_bisection_tbyte_s="1")
    assert r.status_code == 302
    page = c.get(r.url).content.decode()
    search = DesignSearch.objects.get()
    assert search.status == "done"
    for marker in ('id="chart-front"', 'id="chart-allreduce"', 'id="ranking"', 'id="equal-budget"', 'id="equal-power"',
                   'id="refusals"', "candidates/s"):  # fmt: skip
        assert marker in page, marker
    figs = json.loads(page.split('id="chart-data" type="application/json">')[1].split("</script>")[0])
    front = figs["front"]["data"][1]
    assert front["name"] == "Pareto front" and all(len(cd) == 2 for cd in front["customdata"])
    ranking = search.report["ranking"]
    saved = c.post(f"/searches/{search.pk}/save/", {"candidate": str(ranking[0]["i"])})
    assert saved.status_code == 302 and "/r/" in saved.url
    head = alice_design.revisions.order_by("-number").first()
    assert str(head.results["summary"]["capex_usd"]) == ranking[0]["f"]["capex_usd"]
    # saving the same candidate again reuses its revision; 2 candidates open the compare page
    cmp = c.post(f"/searches/{search.pk}/compare/", {"candidate": [str(ranking[0]["i"]), str(ranking[1]["i"])]})
    assert cmp.status_code == 302 and cmp.url.startswith("/compare/?r=")
    assert alice_design.revisions.count() == 3  # the original, candidate 1 (saved once), candidate 2
    assert c.get(cmp.url).status_code == 200
    one = c.post(f"/searches/{search.pk}/compare/", {"candidate": "0"})
    assert one.status_code == 302 and alice_design.revisions.count() == 3
    csv_text = c.get(f"/searches/{search.pk}/rows.csv").content.decode()
    assert csv_text.splitlines()[0].startswith("index,status,vary.topology,vary.oversubscription")
    assert len(csv_text.splitlines()) == 1 + search.total_candidates
    assert c.get(f"/searches/{search.pk}/progress.json").json()["status"] == "done"


def test_searches_are_private_and_names_escaped(alice_design, bob, sync, django_capture_on_commit_callbacks):
    c = client_for(alice_design.owner)
    with django_capture_on_commit_callbacks(execute=True):
        r = start(c, alice_design, name="<script>alert(1)</script>", max_capex_usd="1")
    search = DesignSearch.objects.get()
    page = c.get(r.url).content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'id="empty-front"' in page and "constraint:max_capex_usd" in page
    other = client_for(bob)
    assert other.get(f"/searches/{search.pk}/").status_code == 404
    assert other.post(f"/searches/{search.pk}/save/", {"candidate": "0"}).status_code == 404
