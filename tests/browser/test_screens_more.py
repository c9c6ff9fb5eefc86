"""Screens a demanding new user looks at that the other browser tests did not photograph (issues #34, #38): the
calculators page with every calculator run, the xlsx export's Checks sheet as LibreOffice prints it (its count the
design page's count), and the 16k-GPU demo design (examples/fat-tree-16k-3tier.yaml, what `load_demo` loads) with
its hall drawing. Screenshots: /tmp/shots/ (or $CHART_SHOTS) and test-artifacts/."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.browser.test_journey import ARTIFACTS, _sign_up, page, pytestmark  # noqa: F401

SHOTS = Path(os.environ.get("CHART_SHOTS", "/tmp/shots"))
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
PDFTOPPM = shutil.which("pdftoppm")


def _shot(pg_or_locator, name: str, **kw) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    ARTIFACTS.mkdir(exist_ok=True)
    pg_or_locator.screenshot(path=str(SHOTS / name), **kw)
    shutil.copyfile(SHOTS / name, ARTIFACTS / name)


def test_every_calculator_answers_on_the_page(page):  # noqa: F811
    from scheduling.calculators import CALCULATORS

    _sign_up(page, "calc")
    page.goto(f"{page.base}/tools/")
    assert page.locator("section.tool").count() == len(CALCULATORS)
    _shot(page, "tools-page.png", full_page=True)
    for name in CALCULATORS:
        # the seed's figures as given: every calculator answers them, with a derivation per figure
        page.goto(f"{page.base}/tools/#tool-{name}")
        page.locator(f"#tool-{name} button[type=submit]").click()
        page.wait_for_selector(f"#result-{name}")
        rows = page.locator(f"#result-{name} tbody tr")
        assert rows.count() >= 1, name
        assert page.locator(f"#tool-{name} .error").count() == 0, page.inner_text(f"#tool-{name}")
        cells = [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]
        assert all(value.strip() or how.strip() for value, how in cells), (name, cells)  # no empty row
        assert any(value.strip() for value, _ in cells), (name, cells)  # figures
        assert any(how.strip() for _, how in cells), (name, cells)  # and how they were derived
        _shot(page.locator(f"#tool-{name}"), f"tools-{name}.png")


@pytest.mark.skipif(not (SOFFICE and PDFTOPPM), reason="LibreOffice or poppler's pdftoppm is not installed")
def test_the_xlsx_checks_sheet_prints_the_page_count(page, django_user_model, tmp_path):  # noqa: F811
    """The design page says "n check(s) fail of N"; the Checks sheet of its bom.xlsx, printed by LibreOffice, says
    the same and lists the n failing checks (the RED design of tests/designer/test_one_check_list.py)."""
    import openpyxl

    from designer.services import create_design, evaluate_flat
    from tests.designer.test_one_check_list import COUNT, RED

    _sign_up(page, "checker")
    ev = evaluate_flat({**RED, "name": "Red checks"})
    design = create_design(django_user_model.objects.get(username="checker"), ev.requirements, ev)
    page.goto(f"{page.base}/designs/{design.pk}/")
    failing = int(page.get_attribute("#check-count", "data-failing"))
    total = int(page.get_attribute("#check-count", "data-total"))
    assert f"{failing} check(s) fail of {total}" in page.inner_text("#check-count")
    assert failing >= 4 and page.locator("#check-list li.bad").count() == failing
    _shot(page.locator("#checks"), "checks-design-page.png")

    resp = page.request.get(f"{page.base}/designs/{design.pk}/export/bom.xlsx?revision=1")
    assert resp.ok and resp.headers["content-type"].startswith("application/vnd.openxmlformats")
    wb = openpyxl.load_workbook(io.BytesIO(resp.body()))
    assert wb.sheetnames[0] == "Checks"
    ws = wb["Checks"]
    assert COUNT.findall(ws["A1"].value) == [(str(failing), str(total))]
    listed = [r for r in ws.iter_rows(min_row=4, values_only=True) if r[0]]
    assert len(listed) == failing
    only = tmp_path / "checks.xlsx"  # printed as exported: its print settings are bom.export._checks_sheet's
    only.write_bytes(resp.body())
    cmd = [SOFFICE, f"-env:UserInstallation=file://{tmp_path / 'profile'}", "--headless", "--convert-to", "pdf",
           "--outdir", str(tmp_path), str(only)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=240)
    pdf = tmp_path / "checks.pdf"
    first_page = ["pdftotext", "-layout", "-f", "1", "-l", "1", str(pdf), "-"]
    text = subprocess.run(first_page, capture_output=True, text=True, timeout=60).stdout
    if text:  # poppler-utils ships pdftotext with pdftoppm
        flat = re.sub(r"\s+", " ", text)
        # page 1 is the Checks sheet, whole: the banner uncut, every column (Check the last), each message's end
        assert f"{failing} check(s) fail of {total}: review them before ordering from this BOM" in flat
        assert "Field" in flat and "Section" in flat and "Check" in flat
        # each message's words in order, its end included (other columns interleave; "256-GPU" may wrap at "-")
        words = iter(re.split(r"[\s-]+", flat))
        for row in listed:
            assert all(word in words for word in re.split(r"[\s-]+", str(row[1]))), row[1]
    subprocess.run([PDFTOPPM, "-png", "-r", "90", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "checks")],
                   check=True, timeout=60)  # fmt: skip
    (png,) = tmp_path.glob("checks*.png")
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(png, SHOTS / "xlsx-checks-sheet.png")
    shutil.copyfile(png, ARTIFACTS / "xlsx-checks-sheet.png")


def test_the_16k_demo_design_and_its_hall(page, django_user_model):  # noqa: F811
    from cluster.validate import load_requirements_file, validate
    from designer.services import create_design, evaluate_flat
    from tests.conftest import EXAMPLES

    _sign_up(page, "hall")
    flat = validate(load_requirements_file(EXAMPLES / "fat-tree-16k-3tier.yaml")).flat()
    design = create_design(django_user_model.objects.get(username="hall"), flat, evaluate_flat(flat))
    page.goto(f"{page.base}/designs/{design.pk}/")
    page.wait_for_selector("#chart-compute .main-svg")
    assert "16,384" in page.inner_text(".lede")
    _shot(page, "design-16k-demo.png", full_page=False)
    page.click("#hall summary")
    page.wait_for_selector("#hall-drawing svg")
    racks = page.locator("#hall-drawing svg rect").count()
    assert racks > 100  # rows of racks drawn, not an empty frame
    _shot(page.locator("#hall"), "hall-16k-demo.png")
