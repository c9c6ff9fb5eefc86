"""Every example design's full workbook (planes, cut sheet, racks, drawings, TCO) and BOM csv, checked
against the app's own Decimal figures and recalculated by LibreOffice (issue #10, "Must show").

For each example: the cached values XlsxWriter stored (what previewers, pandas and openpyxl
``data_only`` read) equal the app's totals — every plane subtotal, the BOM total, the TCO's CapEx,
OpEx and 5-year total; the csv's lines sum to its total row, which is the app's total. Then the first
compute line's list price is raised by $1,000 in the file's XML (the cached values stay, stale), and
LibreOffice — told to recalculate every xlsx on load (``OOXMLRecalcMode`` = 0 in a private profile,
as the issue prescribes) — must move the line's net, its extended price, the plane subtotal, the
BOM total and, where the TCO's network line is the BOM's, the CapEx and 5-year total by exactly
quantity × the new net's change. A formula that reads a typed copy instead of its source, or a
cached value that is not the formula's, fails here.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from decimal import ROUND_HALF_UP, Decimal

import openpyxl
import pytest
import yaml

from bom.export import PLANE_TITLES
from designer.services import create_design, evaluate, export_bom
from tests.bom.test_xlsx_libreoffice import SOFFICE
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.django_db

RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""


def _money(value) -> Decimal:
    assert value is not None, "no value in the cell"
    return Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _recalculate_on_load(data: bytes, tmp_path) -> openpyxl.Workbook:
    import os
    import subprocess

    if SOFFICE is None:
        if os.environ.get("CI"):
            pytest.fail("LibreOffice (soffice) is not installed: CI needs it to recalculate the exported xlsx")
        pytest.skip("LibreOffice is not installed (under CI this fails instead)")
    profile = tmp_path / "profile"
    (profile / "user").mkdir(parents=True)
    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_ALWAYS)
    src = tmp_path / "edited.xlsx"
    src.write_bytes(data)
    cmd = [SOFFICE, f"-env:UserInstallation=file://{profile}", "--headless", "--calc", "--convert-to"]
    cmd += ["xlsx:Calc MS Excel 2007 XML", "--outdir", str(tmp_path / "out"), str(src)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return openpyxl.load_workbook(tmp_path / "out" / src.name, data_only=True, read_only=True)


def _with_cell(data: bytes, sheet_index: int, ref: str, value: Decimal) -> bytes:
    """The workbook with one number cell's value replaced in the sheet's XML; nothing else touched."""
    name = f"xl/worksheets/sheet{sheet_index + 1}.xml"
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            body = src.read(item.filename)
            if item.filename == name:
                text, n = re.subn(rf'(<c r="{ref}"[^>]*><v>)[^<]*(</v>)', rf"\g<1>{value}\g<2>", body.decode())
                assert n == 1, f"{ref} not found as a number in {name}"
                body = text.encode()
            dst.writestr(item, body)
    return out.getvalue()


def _cells(ws, *refs: str) -> list:
    return [ws[ref].value for ref in refs]


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_recalculates_to_the_apps_figures(alice, tmp_path, name):
    ev = evaluate(yaml.safe_load((EXAMPLES / name).read_text()))
    revision = create_design(alice, ev.requirements, ev).head
    bom, tco = revision.results["bom"], revision.results["power"]["tco"]
    data, _, _ = export_bom(revision, "bom.xlsx")

    cached = openpyxl.load_workbook(io.BytesIO(data), data_only=True, read_only=True)
    summary = [tuple(r) for r in cached["Summary"].iter_rows(values_only=True)]
    by_label = {r[0]: r[1] for r in summary if r and r[0]}
    for plane, total in bom["totals_usd"].items():
        assert _money(by_label[PLANE_TITLES[plane]]) == Decimal(total), plane
    assert _money(by_label["BOM total"]) == Decimal(bom["total_usd"])
    t = {(r[0], r[1]): r[2] for r in cached["TCO"].iter_rows(min_row=2, values_only=True)}
    assert _money(t[("Total", "CapEx")]) == Decimal(tco["capex_usd"])
    assert _money(t[("Total", "OpEx per year")]) == Decimal(tco["opex_usd_per_year"])
    assert _money(t[("Total", f"{tco['years']}-year total")]) == Decimal(tco["total_usd"])

    text, _, _ = export_bom(revision, "bom.csv")
    rows = [r for r in csv.DictReader(line for line in io.StringIO(text.decode()) if not line.startswith("#"))]
    total_row = rows.pop()
    assert total_row["line_id"] == "total" and Decimal(total_row["extended_price_usd"]) == Decimal(bom["total_usd"])
    assert sum(Decimal(r["extended_price_usd"]) for r in rows) == Decimal(bom["total_usd"])

    line = bom["lines"][0]
    title = PLANE_TITLES[line["plane"]]
    sheet = cached.sheetnames.index(title)
    qty, list_price = cached[title]["G2"].value, Decimal(line["list_price_usd"])
    discount = Decimal(line["discount_pct"])
    net = lambda p: (p * (1 - discount / 100)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)  # noqa: E731
    delta = qty * (net(list_price + 1000) - net(list_price))
    assert delta > 0
    calc = _recalculate_on_load(_with_cell(data, sheet, "J2", list_price + 1000), tmp_path)

    ws = calc[title]
    k2, l2 = _cells(ws, "L2", "M2")  # net and extended
    assert _money(k2) == net(list_price + 1000)
    assert _money(l2) == Decimal(line["extended_price_usd"]) + delta
    lines_in_plane = sum(1 for ln in bom["lines"] if ln["plane"] == line["plane"])
    assert _money(ws[f"M{lines_in_plane + 2}"].value) == Decimal(bom["totals_usd"][line["plane"]]) + delta
    s = calc["Summary"]
    assert _money(s[f"B{_row_ro(s, 'BOM total')}"].value) == Decimal(bom["total_usd"]) + delta
    network = next(c for c in tco["capex"] if c["name"] == "Network")
    moves = delta if network["derivation"].startswith("the BOM") else 0
    t2 = {(r[0], r[1]): r[2] for r in calc["TCO"].iter_rows(min_row=2, values_only=True)}
    assert _money(t2[("CapEx", "Network")]) == Decimal(network["amount_usd"]) + moves
    assert _money(t2[("Total", "CapEx")]) == Decimal(tco["capex_usd"]) + moves
    assert _money(t2[("Total", f"{tco['years']}-year total")]) == Decimal(tco["total_usd"]) + moves


def _row_ro(ws, label: str) -> int:
    return next(i for i, r in enumerate(ws.iter_rows(values_only=True), start=1) if r and r[0] == label)


def test_the_cell_edit_reaches_only_the_cell(tmp_path):
    """The XML edit the test relies on: one value changes, the workbook still opens, the formulas stay."""
    from bom.export import bom_xlsx

    bom = {
        "lines": [
            {"plane": "compute", "category": "switch", "sku": "X", "description": "d", "quantity": 3,
             "unit_price_usd": "10.00", "extended_price_usd": "30.00", "price_source": "s",
             "price_is_assumption": True, "spare": False, "derivation": "3"}
        ],
        "totals_usd": {"compute": "30.00"}, "total_usd": "30.00", "link_count": 0, "link_end_count": 0,
        "checks": [],
    }  # fmt: skip
    data = _with_cell(bom_xlsx(bom, design_name="x"), 1, "J2", Decimal("12.5"))
    wb = openpyxl.load_workbook(io.BytesIO(data))
    assert wb["Compute"]["J2"].value == 12.5 and wb["Compute"]["L2"].value == "=ROUND(J2*(1-K2/100),2)"
