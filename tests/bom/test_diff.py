"""Issue #10 §5: the BOM diff by manufacturer part number (bom/diff.py, bom/diff_export.py), on the page,
in the API and as xlsx."""

from __future__ import annotations

import io
from decimal import Decimal

import openpyxl
import pytest
import yaml

from bom.diff import ADDED, CHANGED, REMOVED, SAME, bom_diff, diff_summary
from bom.diff_export import diff_xlsx
from tests.conftest import EXAMPLES


def _line(sku, qty, unit, *, plane="compute", spare=False, line_id="", manufacturer="NVIDIA"):
    return {
        "line_id": line_id, "plane": plane, "category": "c", "sku": sku, "description": f"{sku} part",
        "manufacturer": manufacturer, "quantity": qty, "spare": spare,
        "extended_price_usd": str(Decimal(unit) * qty),
    }  # fmt: skip


# Hand case: base buys 10 + 1 spare leaves at $100, 40 cables at $2.50, 3 PDUs at $1,000;
# the other buys 12 + 1 spare leaves ($100), the same 40 cables, no PDUs and 5 new optics at $7.
BASE = {"lines": [
    _line("LEAF", 10, "100", line_id="COM-001"), _line("LEAF", 1, "100", spare=True, line_id="COM-002"),
    _line("CAB", 40, "2.50", line_id="COM-003"), _line("PDU", 3, "1000", plane="infrastructure", line_id="INF-001"),
]}  # fmt: skip
OTHER = {"lines": [
    _line("LEAF", 12, "100", line_id="COM-001"), _line("LEAF", 1, "100", spare=True, line_id="COM-002"),
    _line("CAB", 40, "2.50", line_id="COM-003"), _line("OPT", 5, "7", line_id="COM-004"),
]}  # fmt: skip


def test_hand_case_statuses_quantities_and_costs():
    rows = {r.sku: r for r in bom_diff([BASE, OTHER])}
    assert list(rows) == ["LEAF", "CAB", "PDU", "OPT"]  # the base's order, then the new parts
    leaf = rows["LEAF"]
    assert (leaf.totals[0].quantity, leaf.totals[0].spares, leaf.totals[0].cost_usd) == (11, 1, Decimal("1100"))
    assert leaf.totals[0].derivation == "COM-001 + COM-002"
    assert (leaf.status(1), leaf.quantity_delta(1), leaf.cost_delta_usd(1)) == (CHANGED, 2, Decimal("200"))
    assert (rows["CAB"].status(1), rows["CAB"].cost_delta_usd(1)) == (SAME, Decimal("0"))
    assert (rows["PDU"].status(1), rows["PDU"].quantity_delta(1), rows["PDU"].cost_delta_usd(1)) == (
        REMOVED, -3, Decimal("-3000"),
    )  # fmt: skip
    assert rows["PDU"].totals[1].derivation == "not in this BOM"
    assert (rows["OPT"].status(1), rows["OPT"].quantity_delta(1), rows["OPT"].cost_delta_usd(1)) == (
        ADDED, 5, Decimal("35"),
    )  # fmt: skip
    s = diff_summary(list(rows.values()), 1)
    # 1,200 + 100 + 100 + 35 (= 1,435) against 1,100 + 100 + 3,000 (= 4,200): −2,765
    assert s == {ADDED: 1, REMOVED: 1, CHANGED: 1, SAME: 1, "cost_delta_usd": Decimal("-2765")}


def test_two_to_four_boms():
    with pytest.raises(ValueError, match="2 to 4"):
        bom_diff([BASE])
    with pytest.raises(ValueError, match="2 to 4"):
        bom_diff([BASE] * 5)


def _example_bom(name: str) -> dict:
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate

    return plan_cluster(validate(yaml.safe_load((EXAMPLES / name).read_text()))).result()["bom"]


@pytest.fixture(scope="module")
def example_boms():
    return [_example_bom(n) for n in ("seed-2000-gpu.yaml", "fat-tree-2048-1p5to1.yaml", "superpod-4su-h100.yaml")]


def test_money_and_units_are_conserved_on_real_boms(example_boms):
    rows = bom_diff(example_boms)
    for i, bom in enumerate(example_boms):
        assert sum(r.totals[i].cost_usd for r in rows) == Decimal(bom["total_usd"])
        assert sum(r.totals[i].quantity for r in rows) == sum(ln["quantity"] for ln in bom["lines"])
        assert sum(len(r.totals[i].line_ids) for r in rows) == len(bom["lines"])  # every line counted once
    for i in (1, 2):
        s = diff_summary(rows, i)
        assert s["cost_delta_usd"] == Decimal(example_boms[i]["total_usd"]) - Decimal(example_boms[0]["total_usd"])
        assert sum(s[k] for k in (ADDED, REMOVED, CHANGED, SAME)) == len(rows)
    same = bom_diff([example_boms[0], example_boms[0]])
    assert {r.status(1) for r in same} == {SAME}


def test_the_xlsx_caches_what_its_formulas_compute(example_boms):
    rows = bom_diff(example_boms[:2])
    data = diff_xlsx(rows, ["#1 r1", "#2 r1"])
    ws = openpyxl.load_workbook(io.BytesIO(data), data_only=True)["BOM diff"]
    formulas = openpyxl.load_workbook(io.BytesIO(data))["BOM diff"]
    header = [c.value for c in ws[3]]
    assert header[:9] == ["Part number", "Manufacturer", "Description", "#1 r1 qty", "#1 r1 spares",
                          "#1 r1 extended", "#2 r1 qty", "#2 r1 spares", "#2 r1 extended"]  # fmt: skip
    assert header[9:12] == ["Δ qty #2 r1", "Δ cost #2 r1", "Status #2 r1"]
    for r, row in enumerate(rows, start=4):
        assert ws.cell(r, 1).value == row.sku
        assert ws.cell(r, 10).value == row.quantity_delta(1) and ws.cell(r, 12).value == row.status(1)
        assert formulas.cell(r, 11).value == f"=I{r}-F{r}"
    total_r = len(rows) + 4
    assert ws.cell(total_r, 1).value == "Total"
    assert Decimal(str(ws.cell(total_r, 6).value)) == Decimal(example_boms[0]["total_usd"])
    expected = Decimal(example_boms[1]["total_usd"]) - Decimal(example_boms[0]["total_usd"])
    assert Decimal(str(round(ws.cell(total_r, 11).value, 2))) == expected


@pytest.mark.django_db
def test_libreoffice_recalculates_the_diff(tmp_path, example_boms):
    from tests.bom.test_xlsx_libreoffice_examples import _recalculate_on_load, _with_cell

    rows = bom_diff(example_boms[:2])
    data = diff_xlsx(rows, ["#1", "#2"])
    first_cost = rows[0].totals[1].cost_usd  # I4: the second BOM's extended cost of the first part
    calc = _recalculate_on_load(_with_cell(data, 0, "I4", first_cost + 1000), tmp_path)["BOM diff"]
    total_r = len(rows) + 4
    values = {row[0]: row for row in calc.iter_rows(min_row=4, values_only=True)}
    expected = Decimal(example_boms[1]["total_usd"]) - Decimal(example_boms[0]["total_usd"]) + 1000
    assert Decimal(str(round(values["Total"][10], 2))) == expected
    assert Decimal(str(round(values[rows[0].sku][10], 2))) == rows[0].cost_delta_usd(1) + 1000
    assert total_r == len(values) + 3


@pytest.mark.django_db
def test_page_api_and_download(client, alice, bob):
    from tests.designer.conftest import make_design
    from tests.designer.test_api import token_client

    a = make_design(alice, name="A")
    b = make_design(alice, name="B", oversubscription=2)
    client.force_login(alice)
    page = client.get(f"/compare/?d={a.pk}&d={b.pk}")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="bom-diff"' in html and "BOM diff xlsx" in html
    diffs = page.context["bom_diff"]
    assert all(d["differs"] for d in diffs) and page.context["bom_diff_same"] > 0
    assert diffs and all(f'data-sku="{d["row"].sku}"' in html for d in diffs)
    xlsx = client.get(f"/compare/bom-diff.xlsx?d={a.pk}&d={b.pk}")
    assert xlsx.status_code == 200 and xlsx["Content-Type"].startswith("application/vnd.openxmlformats")
    assert openpyxl.load_workbook(io.BytesIO(xlsx.content)).sheetnames == ["BOM diff"]
    assert client.get(f"/compare/bom-diff.xlsx?d={a.pk}").status_code == 400

    api, _ = token_client(alice, read_only=True)
    body = api.get(f"/api/v1/compare/?d={a.pk}&d={b.pk}").json()["bom_diff"]
    ba, bb = a.head.results["bom"], b.head.results["bom"]
    assert body["against_first"][0]["cost_delta_usd"] == str(Decimal(bb["total_usd"]) - Decimal(ba["total_usd"]))
    assert sum(Decimal(r["cost_usd"][1]) for r in body["rows"]) == Decimal(bb["total_usd"])
    assert all(r["status"][0] is None for r in body["rows"])
    got = api.get(f"/api/v1/compare/bom-diff.xlsx?d={a.pk}&d={b.pk}")
    assert got.status_code == 200 and got.content[:2] == b"PK"
    assert api.get(f"/api/v1/compare/bom-diff.xlsx?d={a.pk}").status_code == 422
    bob_api, _ = token_client(bob)
    assert bob_api.get(f"/api/v1/compare/bom-diff.xlsx?d={a.pk}&d={b.pk}").status_code == 404
