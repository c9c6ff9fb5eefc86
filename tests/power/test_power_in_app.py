"""Power refusals reach the form as field errors; the power section shows on the design page."""

from __future__ import annotations

import io

import openpyxl
import pytest
from django.test import Client

from tests.designer.conftest import form_data, make_design


@pytest.mark.parametrize(
    ("overrides", "field", "text"),
    [
        ({"pue": "0.9"}, "pue", "too small; allowed: 1 to 5"),
        ({"node_power_w": "0"}, "node_power_w", "too small"),
        ({"node_power_w": "10000", "rack_budget_kw": "5"}, "rack_budget_kw", "cannot hold even one 10 kW node"),
        (
            {"node_power_w": "10000", "rack_budget_kw": "50", "cooling_type": "air"},
            "cooling_type",
            "air cooling holds about 41 kW per rack",
        ),
        ({"coolant_return_c": "30"}, "coolant_return_c", "warmer than the supply"),
        ({"electricity_usd_per_kwh": "-1"}, "electricity_usd_per_kwh", "too small"),
    ],
)
def test_form_refusals(alice, overrides, field, text):
    c = Client()
    c.force_login(alice)
    r = c.post("/designs/new/", form_data(**overrides))
    assert r.status_code == 200
    assert text in " ".join(r.context["form"].errors.get(field, [])), r.context["form"].errors


def test_design_page_and_xlsx_show_power_and_tco(alice):
    d = make_design(alice)
    c = Client()
    c.force_login(alice)
    body = c.get(f"/designs/{d.pk}/").content.decode()
    for text in ("Power, racks, cooling and cost", "chart-power", "chart-tco", "chart-capping", "Cost per GPU-hour"):
        assert text in body
    content = c.get(f"/designs/{d.pk}/export/bom.xlsx").content
    wb = openpyxl.load_workbook(io.BytesIO(content))
    ws = wb["TCO"]
    rows = {ws.cell(r, 2).value: r for r in range(2, ws.max_row + 1)}
    cap, opex, years, total = rows["CapEx"], rows["OpEx per year"], rows["Years"], rows["5-year total"]
    assert ws.cell(cap, 3).value == "=SUM(C2:C8)"
    assert ws.cell(opex, 3).value == "=SUM(C9:C12)"
    assert ws.cell(total, 3).value == f"=C{cap}+C{years}*C{opex}"
    from tests.bom.test_exports import _eval

    tco = d.head.results["power"]["tco"]
    assert _eval(ws, f"C{total}", wb, {}) == pytest.approx(float(tco["total_usd"]))
    # raising one CapEx line in the sheet raises the total by the same amount
    assert _eval(ws, f"C{total}", wb, {("TCO", "C2"): ws["C2"].value + 1000}) == pytest.approx(
        float(tco["total_usd"]) + 1000
    )


def test_compare_includes_power_and_tco(alice):
    a = make_design(alice, name="A")
    b = make_design(alice, name="B", pue=1.3)
    c = Client()
    c.force_login(alice)
    rows = {row.key: row for row in c.get(f"/compare/?d={a.pk}&d={b.pk}").context["rows"]}
    assert rows["power.facility.facility_kw"].differs
    assert rows["power.tco.total_usd"].differs
    assert rows["summary.tco_usd"].differs
