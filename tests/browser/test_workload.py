"""The workload journey in a real browser: edit the job classes in the table editor, simulate in the
background with a real worker, read the report and charts, search for a size, compare two revisions.

Screenshots in test-artifacts/: workload-editor.png, simulation.png, capacity.png, simulation-compare.png.
"""

from __future__ import annotations

from celery.contrib.testing.worker import start_worker

from tests.browser.test_journey import ARTIFACTS, _sign_up, page, pytestmark  # noqa: F401
from tests.conftest import EXAMPLES


def _seed_design(user):
    from cluster.validate import load_requirements_file, validate
    from designer.services import create_design, evaluate_flat

    data = load_requirements_file(EXAMPLES / "seed-2000-gpu.yaml")
    data["workload"]["days"] = 180
    flat = validate(data).flat()
    return create_design(user, flat, evaluate_flat(flat))


def _wait_done(pg) -> None:
    pg.wait_for_function("document.getElementById('progress-status').textContent === 'done'", timeout=90_000)


def test_workload_editor_simulation_capacity_and_compare(page, django_user_model):  # noqa: F811
    from designer.celery import app

    _sign_up(page, "hana")
    design = _seed_design(django_user_model.objects.get(username="hana"))
    base = page.base
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        # r1: simulate the seed's Table 14-24 as given
        page.goto(f"{base}/designs/{design.pk}/")
        page.click("#open-simulations")
        assert page.locator("#workload-classes tbody tr").count() == 4
        page.click("#start-simulation")
        page.wait_for_url("**/simulations/*/")
        _wait_done(page)
        page.wait_for_selector("#chart-timeline .main-svg")
        page.wait_for_selector("#chart-cdf .main-svg")
        assert "busy node-hours ÷ (200 nodes × 4,320 h)" in page.inner_text("#card-utilization")
        assert "the same" in page.inner_text("#split-derivation")
        page.screenshot(path=str(ARTIFACTS / "simulation.png"), full_page=True)
        first = page.url

        # the editor: four rows from the stored classes; a fifth class breaks the 100 % total, field error on save
        page.goto(f"{base}/designs/{design.pk}/edit/")
        page.locator("summary", has_text="Workload").click()
        rows = page.locator("#workload-table tbody tr")
        assert rows.count() == 4
        page.click("#workload-add")
        cells = rows.nth(4).locator("input")
        for i, v in enumerate(["inference-batch", "5", "8", "16", "8", "1", "4"]):
            cells.nth(i).fill(v)
        assert "shares add up to 105 %" in page.inner_text("#workload-total")
        page.locator("#wrap-wl_classes").screenshot(path=str(ARTIFACTS / "workload-editor.png"))
        page.click("#save-button")
        assert "the shares add up to 105 %, not 100 %" in page.inner_text("#error-wl_classes")
        # fix (the section with the error is open): drop the fifth class, switch preemption on, save r2
        page.locator("#workload-table tbody tr").nth(4).locator("button").click()
        page.check("#id_wl_preempt")
        page.fill("input[name=message]", "critical jobs preempt")
        page.click("#save-button")
        page.wait_for_url(f"**/designs/{design.pk}/")

        # r2: simulate, then a capacity search
        page.goto(f"{base}/designs/{design.pk}/simulations/")
        page.click("#start-simulation")
        page.wait_for_url("**/simulations/*/")
        _wait_done(page)
        second = page.url
        page.goto(f"{base}/designs/{design.pk}/simulations/")
        page.select_option("#capacity-class", "fine-tuning")
        page.fill("input[name=p95_wait_h]", "100")
        page.fill("input[name=gpus]", "1600, 2000, 2400")
        page.click("#start-capacity")
        page.wait_for_url("**/simulations/*/")
        _wait_done(page)
        page.wait_for_selector("#chart-capacity .main-svg")
        assert "2,400 is the smallest candidate that meets the target" in page.inner_text("#capacity-answer")
        page.screenshot(path=str(ARTIFACTS / "capacity.png"), full_page=True)

    # compare r1 and r2
    ids = [u.rstrip("/").rsplit("/", 1)[1] for u in (first, second)]
    page.goto(f"{base}/simulations/compare/?run={ids[0]}&run={ids[1]}")
    page.wait_for_selector("#chart-compare_cdf .main-svg")
    table = page.inner_text("#simulation-compare")
    assert "preemption" in table and "pretraining: wait p95 [h]" in table
    page.screenshot(path=str(ARTIFACTS / "simulation-compare.png"), full_page=True)
