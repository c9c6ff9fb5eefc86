"""Exports: xlsx with live formulas (read back with openpyxl), csv, downloads, formula injection."""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal

import openpyxl
import pytest
from django.test import Client

from bom.export import bom_csv, bom_xlsx, safe_text
from tests.designer.conftest import make_design


def _eval(ws, ref: str, wb, overrides: dict, depth=0):
    """A tiny evaluator for the formulas we write (F2*K2, ROUND(I2*(1-J2/100),2), C13+C15*C14, SUM(L2:L9),
    'Sheet'!L9, 'A'!L2+'B'!L3); LibreOffice recalculates the real thing in test_xlsx_libreoffice.py."""
    assert depth < 20
    sheet_ref = re.fullmatch(r"'?([^'!]+)'?!([A-Z]+\d+)", ref)
    if sheet_ref:
        return _eval(wb[sheet_ref.group(1)], sheet_ref.group(2), wb, overrides, depth + 1)
    key = (ws.title, ref)
    value = overrides.get(key, ws[ref].value)
    if isinstance(value, str) and value.startswith("="):
        expr = value[1:]
        net = re.fullmatch(r"ROUND\(([A-Z]+\d+)\*\(1-([A-Z]+\d+)/100\),2\)", expr)  # list less discount
        if net:
            listed, discount = (_eval(ws, ref, wb, overrides, depth + 1) for ref in net.groups())
            return round(float(listed) * (1 - float(discount) / 100), 2)
        m = re.fullmatch(r"SUM\(([A-Z]+)(\d+):([A-Z]+)(\d+)\)", expr)
        if m:
            col, a, _, b = m.groups()
            return sum(_eval(ws, f"{col}{i}", wb, overrides, depth + 1) or 0 for i in range(int(a), int(b) + 1))
        if re.fullmatch(r"[A-Z]+\d+(?:[+*][A-Z]+\d+)+", expr):  # arithmetic on cells: C13+C15*C14
            values = {ref: _eval(ws, ref, wb, overrides, depth + 1) for ref in re.findall(r"[A-Z]+\d+", expr)}
            return eval(re.sub(r"[A-Z]+\d+", lambda m: repr(float(values[m.group(0)])), expr))
        terms = expr.split("+")  # a sum of (sheet-qualified) cells: 'Compute'!F21+'Storage'!F22
        if len(terms) > 1 and all(re.fullmatch(r"('?[^'!+]+'?!)?[A-Z]+\d+", t) for t in terms):
            return sum(float(_eval(ws, t, wb, overrides, depth + 1) or 0) for t in terms)
        return _eval(ws, expr, wb, overrides, depth + 1)
    return value


@pytest.fixture
def seed_revision(alice):
    d = make_design(alice, name='=HYPERLINK("http://evil.example","click")', notes="+SUM(1,2)")
    return d.head


def test_xlsx_has_formulas_totals_and_reads_back(alice, seed_revision):
    from designer.services import export_bom

    content, ctype, filename = export_bom(seed_revision, "bom.xlsx")
    assert filename.endswith("-r1-bom.xlsx") and "spreadsheetml" in ctype
    wb = openpyxl.load_workbook(io.BytesIO(content))
    names = wb.sheetnames
    rack_types = [n for n in names if n.startswith("Rack type ")]
    assert names == [
        "Summary",
        "Compute",
        "Storage",
        "Management",
        "Infrastructure",
        "Cabling plan",
        "Racks",
        *rack_types,
        "Price book",
        "TCO",
    ]
    assert rack_types and "Checks" not in names  # every rack holds its devices
    comp = wb["Compute"]
    assert [c.value for c in comp[1]][:13] == [
        "Line",
        "Manufacturer",
        "Mfr part number",
        "Part number",
        "Description",
        "Category",
        "Quantity",
        "Unit",
        "Currency",
        "List price",
        "Discount %",
        "Net unit price",
        "Extended net",
    ]
    assert comp["A2"].value == "COM-001" and comp["H2"].value == "each" and comp["I2"].value == "USD"
    assert comp["L2"].value == "=ROUND(J2*(1-K2/100),2)"
    assert comp["M2"].value == "=G2*L2"
    last = comp.max_row
    assert comp[f"M{last}"].value == f"=SUM(M2:M{last - 1})"
    assert comp.freeze_panes == "E2"
    assert comp["J2"].number_format == "$#,##0.00"
    summary = wb["Summary"]
    grand_row = next(r for r in range(1, 20) if summary[f"A{r}"].value == "BOM total")
    assert summary[f"B{grand_row}"].value.startswith("=SUM(")
    total = _eval(summary, f"B{grand_row}", wb, {})
    bom = seed_revision.results["bom"]
    assert Decimal(str(round(total, 2))) == Decimal(bom["total_usd"])
    # cached values for readers that do not recalculate
    cached = openpyxl.load_workbook(io.BytesIO(content), data_only=True)
    assert Decimal(str(round(cached["Summary"][f"B{grand_row}"].value, 2))) == Decimal(bom["total_usd"])
    # editing one unit price re-totals through the formulas
    qty, listed, discount = comp["G2"].value, comp["J2"].value, comp["K2"].value
    assert discount == 0  # the planning book has no discounts: a $1,000 higher list is $1,000 net
    new_total = _eval(summary, f"B{grand_row}", wb, {("Compute", "J2"): listed + 1000})
    assert new_total == pytest.approx(total + qty * 1000)
    # cabling plan: one row per link, A-end ↔ Z-end
    cab = wb["Cabling plan"]
    assert [c.value for c in cab[1]][:15] == [
        "Label",
        "Plane",
        "Segment",
        "A row",
        "A rack",
        "A U",
        "A device",
        "A port",
        "A module",
        "Z row",
        "Z rack",
        "Z U",
        "Z device",
        "Z port",
        "Z module",
    ]
    assert cab.max_row - 1 == bom["link_count"]
    assert cab["A2"].value == "C-000001"
    prov = wb["Price book"]
    assert "Default planning prices v1" in prov["B1"].value


def test_user_text_never_becomes_a_formula(seed_revision):
    from designer.services import export_bom

    content, _, _ = export_bom(seed_revision, "bom.xlsx")
    ws = openpyxl.load_workbook(io.BytesIO(content))["Summary"]
    assert ws["B1"].data_type == "s"
    assert ws["B1"].value == '=HYPERLINK("http://evil.example","click")'
    assert ws["B3"].data_type == "s" and ws["B3"].value == "+SUM(1,2)"


def test_csv_neutralises_formula_text():
    for bad in ("=1+1", "+cmd", "-2+3", "@SUM(A1)"):
        assert safe_text(bad) == "'" + bad
    assert safe_text("QM9700") == "QM9700" and safe_text(12) == 12
    bom = {
        "lines": [
            {
                "plane": "compute",
                "category": "switch",
                "sku": "=EVIL()",
                "description": "@x",
                "quantity": 1,
                "unit_price_usd": "1.00",
                "extended_price_usd": "1.00",
                "spare": False,
                "derivation": "-1",
                "price_source": "+x",
                "price_is_assumption": True,
            }
        ],
        "total_usd": "1.00",
        "link_count": 0,
        "link_end_count": 0,
    }
    rows = list(csv.reader(io.StringIO(bom_csv(bom))))
    assert rows[1][5] == "'=EVIL()" and rows[1][6] == "'@x" and rows[1][-1] == "'-1"
    x = bom_xlsx({**bom, "checks": []}, design_name="=2+2")
    ws = openpyxl.load_workbook(io.BytesIO(x))["Compute"]
    assert ws["D2"].value == "=EVIL()" and ws["D2"].data_type == "s"


def test_downloads_page_api_and_shared_link(alice, bob, seed_revision):
    design = seed_revision.design
    c = Client()
    c.force_login(alice)
    for fmt, ctype in (
        ("bom.xlsx", "spreadsheetml"),
        ("bom.csv", "text/csv"),
        ("cabling.csv", "text/csv"),
        ("bom.json", "application/json"),
        ("racks.csv", "text/csv"),
        ("netbox.zip", "application/zip"),
    ):
        r = c.get(f"/designs/{design.pk}/export/{fmt}?revision=1")
        assert r.status_code == 200 and ctype in r["Content-Type"], fmt
        assert "attachment" in r["Content-Disposition"]
        r = c.get(f"/api/v1/designs/{design.pk}/{fmt}")
        assert r.status_code == 200 and ctype in r["Content-Type"], fmt
    streamed = c.get(f"/designs/{design.pk}/export/cabling.csv")
    assert streamed.streaming  # the header leaves before the cut sheet is planned
    chunks = iter(streamed.streaming_content)
    header = next(chunks).decode()
    assert header.startswith("label,plane,segment,a_row,a_rack,a_u,a_device")
    body = header + b"".join(chunks).decode()
    first = list(csv.reader(io.StringIO(body)))[1]
    assert first[0] == "C-000001" and first[6].startswith("cn")
    assert first[3:6] == ["01", "R01-01", "1"]  # A end: row 01, rack R01-01, U1 (the first node, bottom up)
    assert c.get(f"/designs/{design.pk}/export/nope.txt").status_code == 404
    stranger = Client()
    stranger.force_login(bob)
    assert stranger.get(f"/designs/{design.pk}/export/bom.csv").status_code == 404
    assert stranger.get(f"/api/v1/designs/{design.pk}/bom.xlsx").status_code == 404
    token = design.enable_link_sharing()
    assert Client().get(f"/s/{token}/export/bom.csv").status_code == 200
    page = c.get(f"/designs/{design.pk}/").content.decode()
    assert "Download xlsx" in page and "bom-table" in page


def test_a_failing_check_leads_every_export():
    """A design with a failing check: the xlsx opens on a Checks sheet, the csv starts with it."""
    from bom.export import bom_csv, bom_xlsx
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate_flat

    bom = plan_cluster(validate_flat({"gpu_count": 2000, "growth_headroom_pct": 20})).result()["bom"]
    wb = openpyxl.load_workbook(io.BytesIO(bom_xlsx(bom, design_name="x")))
    assert wb.sheetnames[0] == "Checks" and wb.active.title == "Checks"
    assert "check(s) fail" in wb["Checks"]["A1"].value
    assert "growth headroom" in wb["Checks"]["B4"].value
    assert bom_csv(bom).startswith("# CHECK FAILED (growth_headroom_pct): compute leaf:")
    # printed as exported (tests/browser/test_screens_more.py prints it untouched): landscape, one page wide and
    # any number tall, the banner merged over the four columns, the message column wrapped and wider than the rest
    ws = wb["Checks"]
    assert ws.page_setup.orientation == "landscape"
    assert ws.sheet_properties.pageSetUpPr.fitToPage is True
    fit_width_pages = 1 if ws.page_setup.fitToWidth is None else ws.page_setup.fitToWidth  # absent: OOXML's default 1
    assert (fit_width_pages, ws.page_setup.fitToHeight) == (1, 0)
    assert [str(r) for r in ws.merged_cells.ranges] == ["A1:D1"]
    messages = [row[1] for row in ws.iter_rows(min_row=4, max_col=2) if row[0].value]
    assert messages and all(cell.alignment.wrap_text for cell in messages)
    assert not ws["A4"].alignment.wrap_text  # field names stay on one line
    # LibreOffice does not grow a wrapped row itself: each row is 15 pt a line, lines = the message wrapped at B's width
    import textwrap

    for cell in messages:
        lines = len(textwrap.wrap(cell.value, width=int(ws.column_dimensions["B"].width)))
        assert ws.row_dimensions[cell.row].height == 15 * lines and lines >= 2, (cell.value, lines)
    widths_chars = [ws.column_dimensions[col].width for col in "ABCD"]
    assert widths_chars[1] == max(widths_chars) and sum(widths_chars) <= 140  # ~ a landscape page at 100%
    assert ws.print_title_rows == "$3:$3"  # the header row repeats on every printed page
    clean = plan_cluster(validate_flat({"gpu_count": 2000})).result()["bom"]
    assert openpyxl.load_workbook(io.BytesIO(bom_xlsx(clean, design_name="x"))).sheetnames[0] == "Summary"
    assert bom_csv(clean).startswith("line_id,plane,category,manufacturer,mfr_part_number,sku,")


def test_tco_sheet_totals_carry_their_values_and_follow_the_bom():
    """Issue #10: readers that do not recalculate saw a TCO of $0; the network line was a typed number."""
    from bom.export import bom_xlsx, tco_sheet
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate_flat

    res = plan_cluster(validate_flat({"gpu_count": 2000})).result()
    content = bom_xlsx(res["bom"], design_name="x", extra_sheets=tco_sheet(res))
    cached = openpyxl.load_workbook(io.BytesIO(content), data_only=True)["TCO"]
    values = {row[1].value: row[2].value for row in cached.iter_rows(min_row=2)}
    assert Decimal(str(round(values["5-year total"], 2))) == Decimal(res["power"]["tco"]["total_usd"])
    assert Decimal(str(round(values["Network"], 2))) == Decimal(res["power"]["tco"]["capex"][2]["amount_usd"])
    formulas = openpyxl.load_workbook(io.BytesIO(content))["TCO"]
    network = next(r[2].value for r in formulas.iter_rows(min_row=2) if r[1].value == "Network")
    assert network == "='Compute'!M{}+'Storage'!M{}+'Management'!M{}".format(
        *(openpyxl.load_workbook(io.BytesIO(content))[s].max_row for s in ("Compute", "Storage", "Management"))
    )


def test_editing_a_bom_price_flows_into_the_tco_total():
    from bom.export import bom_xlsx, tco_sheet
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate_flat

    res = plan_cluster(validate_flat({"gpu_count": 2000})).result()
    wb = openpyxl.load_workbook(io.BytesIO(bom_xlsx(res["bom"], design_name="x", extra_sheets=tco_sheet(res))))
    ws = wb["TCO"]
    total_row = next(r for r in range(2, ws.max_row + 1) if str(ws[f"B{r}"].value).endswith("-year total"))
    total = _eval(ws, f"C{total_row}", wb, {})
    assert total == pytest.approx(float(res["power"]["tco"]["total_usd"]), abs=1)
    qty, listed = wb["Compute"]["G2"].value, wb["Compute"]["J2"].value
    edited = _eval(ws, f"C{total_row}", wb, {("Compute", "J2"): listed + 1000})
    assert edited == pytest.approx(total + qty * 1000, abs=1)


def _cells(data: bytes, data_only: bool = False) -> dict[str, list[tuple]]:
    """Every sheet's cells: the formulas as written, or (``data_only``) the values cached with them."""
    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=data_only)
    return {name: [tuple(r) for r in wb[name].iter_rows(values_only=True)] for name in wb.sheetnames}


def test_above_the_limit_the_cut_sheet_is_its_own_workbook_and_the_rest_is_unchanged(seed_revision, monkeypatch):
    """Issue #38 item 3: bom.xlsx carries the per-cable cut sheet up to WORKBOOK_CUT_SHEET_MAX_ROWS cables (inclusive);
    above, every other sheet keeps its cells (formulas and cached values alike) and the Summary says where the cut
    sheet went; cabling.xlsx has the very "Cabling plan" sheet the full workbook had."""
    from bom import export
    from designer.services import _export_bom, current_catalog

    cables = seed_revision.results["bom"]["link_count"]
    monkeypatch.setattr(export, "WORKBOOK_CUT_SHEET_MAX_ROWS", cables)
    with_it = _export_bom(seed_revision, "bom.xlsx", current_catalog())[0]
    monkeypatch.setattr(export, "WORKBOOK_CUT_SHEET_MAX_ROWS", cables - 1)
    without = _export_bom(seed_revision, "bom.xlsx", current_catalog())[0]
    for data_only in (False, True):
        full, brief = _cells(with_it, data_only), _cells(without, data_only)
        assert "Cabling plan" in full and len(full["Cabling plan"]) == cables + 1
        assert list(brief) == [name for name in full if name != "Cabling plan"]
        for name in brief:
            if name != "Summary":
                assert brief[name] == full[name], name
        contents = [r for r in brief["Summary"] if r[0] == "Contents"]
        assert len(contents) == 1 and f"{cables:,} cables" in contents[0][1] and "cabling.xlsx" in contents[0][1]
        blank = [tuple(None for _ in r) if r[0] == "Contents" else r for r in brief["Summary"]]
        assert blank == full["Summary"]  # the Contents line is the one difference (the full one has none)

    own, ctype, filename = _export_bom(seed_revision, "cabling.xlsx", current_catalog())
    assert filename.endswith("-cabling.xlsx") and ctype.startswith("application/vnd.openxmlformats")
    sheets = _cells(own)
    assert list(sheets) == ["Cabling plan", "About"] and sheets["Cabling plan"] == full["Cabling plan"]
    assert sheets["About"][0] == ("Design", seed_revision.name)  # user text as a string, never a formula


def test_workbook_cut_sheet_limit_is_inclusive():
    from bom.export import WORKBOOK_CUT_SHEET_MAX_ROWS, workbook_cut_sheet

    at = [{}] * WORKBOOK_CUT_SHEET_MAX_ROWS
    assert workbook_cut_sheet(at) == (at, "")
    rows, note = workbook_cut_sheet([*at, {}])
    assert rows is None and f"{WORKBOOK_CUT_SHEET_MAX_ROWS + 1:,} cables" in note and "cabling.csv" in note


def test_every_plane_sheet_and_the_csv_carry_the_makers_part_number():
    """Issue #38: a purchase order is cut from the export, so each line names the maker and the maker's orderable
    number (mfr_part_number) beside the catalog's own part number; the formulas still point at the price columns."""
    from bom.catalog import DEFAULT_PARTS
    from bom.export import PLANE_HEADERS, bom_csv, bom_xlsx
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate_flat

    by_sku = {p.sku: p for p in DEFAULT_PARTS}
    bom = plan_cluster(validate_flat({"gpu_count": 2000})).result()["bom"]
    expected = {(ln["sku"], by_sku[ln["sku"]].mfr_part_number) for ln in bom["lines"] if ln["sku"] in by_sku}
    assert any(number for _, number in expected)  # the plan buys parts that have a maker's number
    assert ("QM9700", "MQM9700-NS2F") in expected

    rows = list(csv.DictReader(io.StringIO(bom_csv(bom))))
    lines = [r for r in rows if r["line_id"] != "total"]
    assert list(rows[0])[3:6] == ["manufacturer", "mfr_part_number", "sku"]
    assert {(r["sku"], r["mfr_part_number"]) for r in lines if r["sku"] in by_sku} == expected
    qm = next(r for r in lines if r["sku"] == "QM9700")
    assert (qm["manufacturer"], qm["mfr_part_number"]) == ("NVIDIA", "MQM9700-NS2F")

    wb = openpyxl.load_workbook(io.BytesIO(bom_xlsx(bom, design_name="x")))
    planes = {ln["plane"] for ln in bom["lines"]}
    sheets = [wb[s] for s in ("Compute", "Storage", "Management", "Infrastructure") if s.lower() in planes]
    assert len(sheets) == len(planes) >= 3
    seen = set()
    for ws in sheets:
        header = [c.value for c in ws[1]]
        assert header == list(PLANE_HEADERS), ws.title
        maker, number, part = (header.index(h) for h in ("Manufacturer", "Mfr part number", "Part number"))
        assert (maker, number, part) == (1, 2, 3)
        body = [r for r in ws.iter_rows(min_row=2, values_only=True) if r[0]]
        assert len(body) == sum(1 for ln in bom["lines"] if ln["plane"] == ws.title.lower())
        for r in body:
            if r[part] in by_sku:
                assert r[number] == by_sku[r[part]].mfr_part_number, (ws.title, r[part])
                assert r[maker] == (by_sku[r[part]].manufacturer or by_sku[r[part]].vendor), (ws.title, r[part])
            seen.add((r[part], r[number]))
        row = 2  # the formulas reference quantity G, list J, discount K, net L, extended M
        assert ws[f"L{row}"].value == f"=ROUND(J{row}*(1-K{row}/100),2)"
        assert ws[f"M{row}"].value == f"=G{row}*L{row}"
        assert ws[f"M{ws.max_row}"].value == f"=SUM(M2:M{ws.max_row - 1})"
        assert isinstance(ws[f"G{row}"].value, int) and isinstance(ws[f"J{row}"].value, int | float)
    assert seen == {(r["sku"], r["mfr_part_number"]) for r in lines}
    assert ("QM9700", "MQM9700-NS2F") in seen
