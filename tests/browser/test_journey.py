"""A new user's journey in a real browser (Playwright driving Debian's chromium).

Screenshots of the design page and the compare page are saved in test-artifacts/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() and not os.environ.get("CI"),
        reason="Debian's chromium is not installed (under CI this fails instead)",
    ),
]


@pytest.fixture
def page(live_server):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        # the harness evaluates script strings (wait_for_function): let it past the CSP;
        # test_pages_work_under_the_content_security_policy runs with the policy enforced
        pg = browser.new_context(bypass_csp=True, viewport={"width": 1300, "height": 900}).new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.base = live_server.url  # type: ignore[attr-defined]
        yield pg
        browser.close()
        assert not errors, f"JavaScript errors: {errors}"


def test_new_user_journey(page):
    base = page.base
    # sign up
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", "carol")
    page.fill("#id_password1", "a-long-pass-phrase-42")
    page.fill("#id_password2", "a-long-pass-phrase-42")
    page.click("button[type=submit]")
    page.wait_for_url("**/designs/new/")

    # load a preset: live figures follow
    page.select_option("#preset", "superpod-4su")
    page.wait_for_function("document.getElementById('live-figures').textContent.includes('32 leaf + 16 spine')")

    # an invalid value shows the field error, live and on submit
    page.fill("#id_oversubscription", "0.5")
    page.wait_for_function("document.getElementById('error-oversubscription').textContent.includes('too small')")
    page.click("#save-button")
    assert "too small; allowed: 1 to 64" in page.inner_text("#error-oversubscription")

    # fix it and save
    page.fill("#id_oversubscription", "1")
    page.click("#save-button")
    page.wait_for_url("**/designs/*/")
    page.wait_for_selector("#chart-compute .main-svg")
    page.wait_for_selector("#chart-rail .main-svg")
    assert "SuperPOD-like 4-SU H100" in page.inner_text("h1")
    page.screenshot(path=str(ARTIFACTS / "design-page.png"), full_page=True)
    design_url = page.url

    # the rack elevations: open, the drawing loads, zoom in
    page.click("#elevations summary")
    page.wait_for_function("document.getElementById('elevation-drawing').naturalWidth > 0", timeout=60_000)
    before = page.eval_on_selector("#elevation-drawing", "img => img.getBoundingClientRect().width")
    page.click("#elevations [data-zoom='1.25']")
    after = page.eval_on_selector("#elevation-drawing", "img => img.getBoundingClientRect().width")
    assert after > before
    page.locator("#elevations").screenshot(path=str(ARTIFACTS / "rack-elevations.png"))

    # change and save again: revision 2
    page.click("#edit-link")
    page.fill("#id_gpu_count", "2048")
    page.fill("input[name=message]", "grow to 256 nodes")
    page.click("#save-button")
    page.wait_for_url(design_url)
    assert "revision 2" in page.inner_text(".lede")

    # history, then compare the two revisions
    page.click("#history-link")
    boxes = page.locator("#history-table input[type=checkbox]")
    assert boxes.count() == 2
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.click("#compare-revisions")
    page.wait_for_selector("#chart-compare .main-svg")
    assert page.locator("#compare-table tr.differs").count() > 0
    page.screenshot(path=str(ARTIFACTS / "compare-revisions.png"), full_page=True)

    # a second design (clone), then compare the two designs from the list
    page.goto(design_url)
    page.click("text=Clone")
    page.wait_for_selector("#chart-compute .main-svg")
    page.goto(f"{base}/designs/")
    checks = page.locator("#design-table input[type=checkbox]")
    assert checks.count() == 2
    checks.nth(0).check()
    checks.nth(1).check()
    page.click("#compare-button")
    page.wait_for_selector("#chart-compare .main-svg")
    page.click("#compare-all summary")
    page.check("#only-diffs")
    page.screenshot(path=str(ARTIFACTS / "compare-page.png"), full_page=True)
    assert page.locator("#compare-table tr.differs").count() > 0


def _sign_up(page, name: str) -> None:
    page.goto(f"{page.base}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password1", "a-long-pass-phrase-42")
    page.fill("#id_password2", "a-long-pass-phrase-42")
    page.click("button[type=submit]")
    page.wait_for_url("**/designs/new/")


def test_presets_reset_what_they_do_not_set_and_the_panel_marks_stale_figures(page):
    from designer.presets import preset_values
    from designer.services import evaluate_flat

    _sign_up(page, "dave")
    page.select_option("#preset", "gb200-nvl72")
    page.wait_for_function("document.getElementById('live-figures').textContent.includes('direct to chip')")
    assert page.input_value("#id_rack_budget_kw") == "140"
    page.select_option("#preset", "h100-8x400g")
    # the H100 preset does not set node power, node height, rack budget or PUE: they are back to the defaults
    assert page.input_value("#id_node_power_w") == ""
    assert page.input_value("#id_node_u") == "8"
    assert page.input_value("#id_rack_budget_kw") == ""  # empty: what the cooling type holds
    assert page.input_value("#id_pue") == ""
    h100 = {k: v for k, v in preset_values()["h100-8x400g"].items() if k != "_set"}
    racks = evaluate_flat(h100).result["power"]["racks"]["rack_count"]
    page.wait_for_function(
        f"document.getElementById('live-figures').textContent.includes('{racks:,} (')", timeout=10_000
    )
    assert "preset-set" in page.get_attribute("#wrap-gpu_count", "class")
    assert "preset-set" not in page.get_attribute("#wrap-node_u", "class")
    assert "every other field is back to its default" in page.inner_text("#preset-note")

    page.fill("#id_gpu_count", "-5")
    page.wait_for_selector("#live-figures.stale")
    assert "gpu_count: -5 is too small" in page.inner_text("#live-errors")
    assert page.is_visible("#live-stale")
    page.screenshot(path=str(ARTIFACTS / "live-panel-stale.png"), full_page=False)
    page.fill("#id_gpu_count", "2000")
    page.wait_for_function("!document.getElementById('live-figures').classList.contains('stale')")
    assert page.inner_text("#live-errors") == ""


def test_compare_shows_the_cost_delta_in_the_first_screenful(page, django_user_model):
    from designer.services import create_design, evaluate_flat

    _sign_up(page, "erin")
    erin = django_user_model.objects.get(username="erin")
    a = evaluate_flat({"gpu_count": 2000})
    b = evaluate_flat({"gpu_count": 2000, "oversubscription": 2})
    da, db = create_design(erin, a.requirements, a), create_design(erin, b.requirements, b)
    page.goto(f"{page.base}/compare/?d={db.pk}&d={da.pk}")
    row = page.locator('#compare-summary tr[data-label="Network BOM"]')
    box = row.bounding_box()
    assert box is not None and box["y"] + box["height"] < 900, box
    cost_a, cost_b = a.plan.bom.total_usd(), b.plan.bom.total_usd()
    text = row.inner_text()
    assert f"${cost_a:,.0f}" in text and f"${cost_b:,.0f}" in text  # oldest (1:1) first
    assert f"−${cost_a - cost_b:,.0f}" in text
    page.screenshot(path=str(ARTIFACTS / "compare-summary.png"), full_page=False)

    # the BOM by part number: 2:1 buys fewer spines and trunk optics than 1:1; its xlsx downloads
    diff = page.locator("#bom-diff")
    assert diff.locator("tr.differs").count() > 0
    assert "changed" in diff.inner_text()
    diff.screenshot(path=str(ARTIFACTS / "compare-bom-diff.png"))
    with page.expect_download() as dl:
        page.click("#download-bom-diff")
    assert dl.value.suggested_filename == "bom-diff.xlsx"


def test_unchecking_a_box_reaches_the_live_figures(page):
    _sign_up(page, "fay")
    page.select_option("#preset", "h100-8x400g")
    page.wait_for_function("document.getElementById('live-figures').textContent.includes('Network BOM')")
    before = page.inner_text("#live-figures")
    page.click("summary:has-text('Total cost of ownership')")
    page.uncheck("#id_node_price_includes_nics")  # now the BOM buys the compute NICs: the network cost rises
    page.wait_for_function(f"document.getElementById('live-figures').innerText !== {before!r}")
    assert page.inner_text("#live-figures") != before


def test_pages_work_under_the_content_security_policy(live_server, django_user_model):
    """With the CSP enforced: the form's live figures, the design page's plotly charts, no violation."""
    from playwright.sync_api import sync_playwright

    from designer.services import create_design, evaluate_flat

    user = django_user_model.objects.create_user("csp", password="a-long-pass-phrase-42")
    ev = evaluate_flat({"gpu_count": 2000})
    design = create_design(user, ev.requirements, ev)
    violations: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        page.on("pageerror", lambda e: violations.append(str(e)))
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("#id_username", "csp")
        page.fill("#id_password", "a-long-pass-phrase-42")
        page.click("button[type=submit]")
        page.wait_for_url("**/designs/")
        page.goto(f"{live_server.url}/designs/{design.pk}/")
        page.wait_for_selector("#chart-compute .main-svg")
        page.goto(f"{live_server.url}/designs/new/")
        page.wait_for_selector("#live-figures dt")
        browser.close()
    assert violations == []


def test_collectives_section_shows_nccl_estimates_or_says_why_not(page, django_user_model):
    """An H100 design lists the NCCL v2.30.7-1 picks (NVLS all-reduce at 4 GiB on Quantum switches);
    an MI300X design says the model does not cover RCCL instead of showing H100 figures."""
    from designer.services import create_design, evaluate_flat

    _sign_up(page, "fiona")
    fiona = django_user_model.objects.get(username="fiona")
    h100 = evaluate_flat({"gpu_count": 1024})
    amd = evaluate_flat({"gpu_count": 64, "gpu_model": "MI300X"})
    d_h100, d_amd = create_design(fiona, h100.requirements, h100), create_design(fiona, amd.requirements, amd)
    page.goto(f"{page.base}/designs/{d_h100.pk}/#collectives")
    section = page.locator("#collectives")
    assert "NCCL v2.30.7-1 rules" in section.inner_text()
    first = page.locator("#collectives-table tbody tr").nth(2).inner_text()  # all_reduce, 4 GiB
    assert "nvls" in first and "Simple" in first, first
    section.screenshot(path=str(ARTIFACTS / "collectives-h100.png"))
    page.goto(f"{page.base}/designs/{d_amd.pk}/#collectives")
    refused = page.locator("#collectives-refused").inner_text()
    assert "MI300X runs another library (RCCL)" in refused
    assert page.locator("#collectives-table").count() == 0
    page.locator("#collectives").screenshot(path=str(ARTIFACTS / "collectives-mi300x.png"))


def test_calibrate_from_an_nccl_tests_log_and_sweep_with_it(page, django_user_model):
    """Upload the real A3 Mega log on a design's page, see the three curves, start a calibrated sweep;
    a log of another collective comes back as a field error on the form."""
    from designer.services import create_design, evaluate_flat

    log = Path(__file__).parents[1] / "topology" / "data" / "nccl_logs" / "a3mega-h100-2x8-all_reduce.txt"
    _sign_up(page, "gwen")
    gwen = django_user_model.objects.get(username="gwen")
    res = evaluate_flat({"gpu_count": 2048, "nic_gbps": 200, "switch_model": "SN5600-400G", "switch_radix": 128})
    design = create_design(gwen, res.requirements, res)
    page.goto(f"{page.base}/designs/{design.pk}/#calibrations")
    page.click("#new-calibration")
    page.fill("input[name=name]", "A3 Mega, 2 nodes")
    page.select_option("select[name=collective]", "all_gather")
    page.set_input_files("input[name=log_file]", str(log))
    page.click("#start-calibration")
    errors = page.locator("#calibration-errors").inner_text()
    assert "collective" in errors and "redop 'sum'" in errors, errors
    page.select_option("select[name=collective]", "all_reduce")
    page.set_input_files("input[name=log_file]", str(log))
    page.click("#start-calibration")
    page.wait_for_selector("#chart-busbw .main-svg")
    assert "t = " in page.locator("#calibration-derivation").inner_text()
    after = int(page.locator("#error-after").inner_text().split()[0])
    before = int(page.locator("#error-before").inner_text().split()[0])
    assert after < 20 < before, (before, after)
    page.screenshot(path=str(ARTIFACTS / "calibration-a3mega.png"), full_page=True)
    page.click("#calibrated-sweep")
    assert "A3 Mega, 2 nodes" in page.locator("#sweep-calibration option:checked").inner_text()
