"""The exported xlsx recalculated by a real spreadsheet program (LibreOffice, headless), not by our reading of it.

The workbook is opened with openpyxl, one list price is raised by $1,000 (no discount on the
planning book), and it is saved — which drops every cached value, so nothing but the formulas
is left. LibreOffice then opens it, computes and saves it again; the figures it wrote are read
back (openpyxl ``data_only``). They must equal what the app computed, plus exactly
quantity × $1,000 wherever that line flows: its extended price, its plane's subtotal, the BOM
total on the Summary, the TCO's network CapEx (the planes' subtotals; racks and PDUs count as
facility works), CapEx and 5-year total.

Debian's ``libreoffice-calc`` is installed by ``.ci/ensure-libreoffice`` (as chromium is for the
browser tests); under CI a missing LibreOffice fails the test instead of skipping it.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from decimal import Decimal

import openpyxl
import pytest

from tests.designer.conftest import make_design

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


def _recalculate(path, out_dir) -> openpyxl.Workbook:
    if SOFFICE is None:
        if os.environ.get("CI"):
            pytest.fail("LibreOffice (soffice) is not installed: CI needs it to recalculate the exported xlsx")
        pytest.skip("LibreOffice is not installed (under CI this fails instead)")
    profile = out_dir / "profile"
    cmd = [
        SOFFICE,
        f"-env:UserInstallation=file://{profile}",
        "--headless",
        "--calc",
        "--convert-to",
        "xlsx:Calc MS Excel 2007 XML",
        "--outdir",
        str(out_dir / "out"),
        str(path),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=240)
    return openpyxl.load_workbook(out_dir / "out" / path.name, data_only=True)


def _row(ws, label: str, col: str = "A") -> int:
    return next(r for r in range(1, ws.max_row + 1) if ws[f"{col}{r}"].value == label)


@pytest.mark.django_db
def test_libreoffice_recalculates_the_bom_and_tco_as_the_app_does(alice, tmp_path):
    from designer.services import export_bom

    revision = make_design(alice).head  # network CapEx left to the BOM (the preset's default)
    content, _, _ = export_bom(revision, "bom.xlsx")
    wb = openpyxl.load_workbook(io.BytesIO(content))
    comp = wb["Compute"]
    qty = comp["G2"].value
    assert comp["K2"].value == 0  # no discount on the planning book: list + $1,000 = net + $1,000
    comp["J2"].value = comp["J2"].value + 1000  # one list price, $1,000 more
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)  # openpyxl writes formulas only: no cached value survives
    assert openpyxl.load_workbook(edited, data_only=True)["Compute"]["M2"].value is None

    calc = _recalculate(edited, tmp_path)
    bom = revision.results["bom"]
    delta = Decimal(qty) * 1000

    def money(value) -> Decimal:
        assert value is not None, "LibreOffice left the formula without a value"
        return Decimal(str(round(value, 2)))

    c = calc["Compute"]
    line = bom["lines"][0]
    assert money(c["L2"].value) == Decimal(line["unit_price_usd"]) + 1000
    assert money(c["M2"].value) == Decimal(line["extended_price_usd"]) + delta
    assert money(c[f"M{c.max_row}"].value) == Decimal(bom["totals_usd"]["compute"]) + delta
    summary = calc["Summary"]
    assert money(summary[f"B{_row(summary, 'BOM total')}"].value) == Decimal(bom["total_usd"]) + delta

    tco = revision.results["power"]["tco"]
    t = calc["TCO"]  # columns: section, line, USD
    network = next(c for c in tco["capex"] if c["name"] == "Network")  # the planes' subtotals, not racks/PDUs
    assert money(t[f"C{_row(t, 'Network', 'B')}"].value) == Decimal(network["amount_usd"]) + delta
    assert money(t[f"C{_row(t, 'CapEx', 'B')}"].value) == Decimal(tco["capex_usd"]) + delta
    assert money(t[f"C{_row(t, '5-year total', 'B')}"].value) == Decimal(tco["total_usd"]) + delta
