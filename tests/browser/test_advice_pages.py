"""The advice pages in a real browser, as a buyer and an architect reach them: the phases page (both strategies,
the re-patch list), the failure page (single failures, Monte Carlo), the supplier-quote upload and its result,
the GB200 NVL72 and 16k-GPU design pages with the hall drawing. Screenshots: test-artifacts/phases-page.png,
failures-page.png, quote-upload.png, quote-result.png, design-gb200.png, design-16k.png, hall-16k.png."""

from __future__ import annotations

from tests.browser.test_journey import ARTIFACTS, _sign_up, page, pytestmark  # noqa: F401


def _design(user, **flat):
    from designer.services import create_design, evaluate_flat

    ev = evaluate_flat(flat)
    return create_design(user, ev.requirements, ev)


def test_phases_and_failure_pages(page, django_user_model):  # noqa: F811
    _sign_up(page, "petra")
    user = django_user_model.objects.get(username="petra")
    # 2,048 H100 on the default rail-optimized QM9700 fabric: 8 SUs of 32 nodes (tests/cluster/test_phases.py)
    design = _design(user, gpu_count=2048, name="Phased 2k")
    page.goto(f"{page.base}/designs/{design.pk}/")
    page.click("#open-phases")
    page.wait_for_url("**/phases/")
    page.fill("#id_phases", "day 1, 2027-01-15, 2 SU\ngrowth, 2028-01-15, 4 SU\nfull, 2029-01-15, 8 SU")
    page.click("#phase-form button[type=submit]")
    page.wait_for_selector("#chart-phases .main-svg")
    # the end-state core re-patches nothing; the cheapest day 1 re-stripes 510 + 1,023 leaf uplinks (derived by
    # hand in tests/cluster/test_phases.py)
    assert page.inner_text("#fig-extra-day1").startswith("+$")  # the 24 spines bought early, and what they bring
    cheapest = page.inner_text("body")
    assert "510" in cheapest and "1,023" in cheapest
    page.screenshot(path=str(ARTIFACTS / "phases-page.png"), full_page=True)

    page.goto(f"{page.base}/designs/{design.pk}/failures/?k=4&samples=50&seed=1")  # within the page's 1 s budget
    page.wait_for_selector("#single-failures tbody tr")
    page.wait_for_selector("#chart-failures .main-svg")
    assert page.locator("#single-failures tbody tr").count() >= 2  # leaf and spine at least
    assert "bisection" in page.inner_text("#monte-carlo")
    page.screenshot(path=str(ARTIFACTS / "failures-page.png"), full_page=True)


def test_quote_upload_names_matched_and_unmatched_lines(page, django_user_model, tmp_path):  # noqa: F811
    _sign_up(page, "quinn")
    django_user_model.objects.filter(username="quinn").update(is_staff=True)
    from bom.models import load_default_catalog

    load_default_catalog()  # the built-in book (idempotent; a live-server test's flush may have emptied it)
    quote = tmp_path / "acme-quote.csv"
    # one line by the catalog's sku, one by NVIDIA's orderable number (MQM9700-NS2F = the QM9700,
    # bom/data/catalog.toml), one the catalog does not know
    quote.write_text(
        "Part number,Qty,Unit price,Currency,Lead time (weeks)\n"
        "MMA4Z00-NS,1000,1450.00,USD,6\n"
        "MQM9700-NS2F,40,29500.00,USD,10\n"
        "ACME-UNKNOWN-1,5,10.00,USD,1\n",
        encoding="utf-8",
    )
    page.goto(f"{page.base}/catalog/quotes/new/")
    page.select_option("#id_price_book", index=1)  # the built-in book (index 0 is "---------")
    page.fill("#id_supplier", "ACME <Networks> & Co")
    page.fill("#id_reference", "Q-2026-0042")
    page.set_input_files("#id_file", str(quote))
    page.screenshot(path=str(ARTIFACTS / "quote-upload.png"), full_page=True)
    page.click("#apply-quote")
    page.wait_for_url("**/catalog/quotes/*/")
    body = page.inner_text("body")
    assert "ACME-UNKNOWN-1" in body and "MQM9700-NS2F" in body
    assert "<Networks>" in body  # user text shown as text, not markup
    page.screenshot(path=str(ARTIFACTS / "quote-result.png"), full_page=True)


def test_gb200_and_16k_design_pages_with_the_hall(page, django_user_model):  # noqa: F811
    from designer.presets import preset_values

    _sign_up(page, "gina")
    user = django_user_model.objects.get(username="gina")
    values = {k: v for k, v in preset_values()["gb200-nvl72"].items() if not k.startswith("_")}
    gb200 = _design(user, **values)
    page.goto(f"{page.base}/designs/{gb200.pk}/")
    page.wait_for_selector("#chart-compute .main-svg")
    assert "OSFP-1.6T-2xDR4" in page.text_content("body")  # twin-port 1.6T modules on the Q3400s
    # the NVLink plane is priced in the rack; the rail view of equal SUs draws no colour bar; the capping chart's
    # right axis ticks at round totals of its own (not 598.8, 631.8 synced to the left axis's grid)
    assert "in the rack price" in page.inner_text("#bom .cards")
    assert page.locator("#chart-rail .colorbar").count() == 0
    page.wait_for_selector("#chart-capping .y2tick text")
    right = [t.replace(",", "") for t in page.locator("#chart-capping .y2tick text").all_text_contents()]
    assert len(right) >= 3 and all(t.isdigit() and int(t) % 10 == 0 for t in right), right
    page.screenshot(path=str(ARTIFACTS / "design-gb200.png"), full_page=True)

    big = _design(user, gpu_count=16384, name="16k default")
    page.goto(f"{page.base}/designs/{big.pk}/")
    page.wait_for_selector("#chart-compute .main-svg")
    page.screenshot(path=str(ARTIFACTS / "design-16k.png"), full_page=False)
    page.click("#hall summary")
    page.wait_for_selector("#hall-drawing svg")
    page.locator("#hall").screenshot(path=str(ARTIFACTS / "hall-16k.png"))
