"""A design search in a real browser, on a real worker: start it from a design, the progress bar, the Pareto
charts (a click on a point picks its candidate), the equal-budget table, a candidate saved as a revision and two
candidates in the compare page. Screenshots: test-artifacts/search-page.png, search-compare.png; in /tmp/shots/ (or
$CHART_SHOTS) also search-pareto.png, search-allreduce.png and search-equal-budget.png."""

from __future__ import annotations

import os
from pathlib import Path

from celery.contrib.testing.worker import start_worker

from tests.browser.test_journey import ARTIFACTS, _sign_up, page, pytestmark  # noqa: F401

SHOTS = Path(os.environ.get("CHART_SHOTS", "/tmp/shots"))


def test_search_page_front_save_and_compare(page, django_user_model):  # noqa: F811
    from designer.celery import app
    from designer.search_models import DesignSearch
    from designer.services import create_design, evaluate_flat

    _sign_up(page, "ivan")
    ev = evaluate_flat({"gpu_count": 2048, "name": "Search base"})
    design = create_design(django_user_model.objects.get(username="ivan"), ev.requirements, ev)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        page.goto(f"{page.base}/designs/{design.pk}/")
        page.click("#new-search")
        page.check("input[name=vary_topology][value=rail_optimized]")
        page.check("input[name=vary_topology][value=fat_tree]")
        page.check("input[name=vary_topology][value=dragonfly_plus]")
        page.fill("input[name=vary_oversubscription]", "1, 2, 3")
        page.fill("input[name=vary_rail_groups]", "1, 2")
        page.click("#start-search")
        page.wait_for_url("**/searches/*/")
        assert page.locator("#progress-bar").count() == 1
        page.wait_for_function("document.getElementById('progress-status').textContent === 'done'", timeout=120_000)
        page.wait_for_selector("#chart-front .main-svg")
        page.wait_for_selector("#chart-allreduce .main-svg")
    search = DesignSearch.objects.get()
    front = search.report["fronts"]["cost_bisection_power"]
    assert front and page.locator("#equal-budget tbody tr").count() >= 1
    assert "Rail-optimized" in page.inner_text("#equal-budget")  # the family as the ranked table names it
    # the bar reached 100 %, every feasible candidate is a point, both charts share one facility-kW colour scale
    bar = page.eval_on_selector("#progress-bar", "e => e.getBoundingClientRect().width / e.parentElement.clientWidth")
    assert bar > 0.99, bar
    feasible = search.report["counts"]["feasible"]
    assert page.locator("#chart-front .scatterlayer .point").count() == feasible
    scales = [page.text_content(f"#chart-{c} .colorbar") for c in ("front", "allreduce")]
    assert scales[0] == scales[1], scales
    assert "CapEx" in page.inner_text("#ranking-title")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chart-front").screenshot(path=str(SHOTS / "search-pareto.png"))
    page.locator("#chart-allreduce").screenshot(path=str(SHOTS / "search-allreduce.png"))
    page.locator("#equal-budget").screenshot(path=str(SHOTS / "search-equal-budget.png"))
    # a click on a front point picks its candidate (plotly's own click event, as a mouse click raises it)
    page.evaluate(
        "(i) => document.getElementById('chart-front').emit('plotly_click', {points: [{customdata: [i, 0]}]})",
        search.report["ranking"][0]["i"],
    )
    first = page.locator(f"#cand-{search.report['ranking'][0]['i']} input[type=checkbox]")
    assert first.is_checked()
    page.screenshot(path=str(ARTIFACTS / "search-page.png"), full_page=True)
    page.screenshot(path=str(SHOTS / "search-page.png"), full_page=True)
    second = page.locator(f"#cand-{search.report['ranking'][1]['i']} input[type=checkbox]")
    second.check()
    page.click("#compare-candidates")
    page.wait_for_url("**/compare/?r=*")
    assert page.locator("#compare-summary").count() == 1
    page.screenshot(path=str(ARTIFACTS / "search-compare.png"), full_page=False)
    page.screenshot(path=str(SHOTS / "search-compare.png"), full_page=False)
    # each column says which candidate it is (the revision's message), not only "Search base r2"
    heads = page.inner_text("#compare-summary thead")
    assert (
        f"candidate {search.report['ranking'][0]['i']}" in heads
        and f"candidate {search.report['ranking'][1]['i']}" in heads
    )
    assert design.revisions.count() == 3  # the base and the two candidates, each saved once
    saved = design.revisions.order_by("number")[1]
    assert str(saved.results["summary"]["capex_usd"]) == search.report["ranking"][0]["f"]["capex_usd"]
