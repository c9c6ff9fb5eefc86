"""The phases page (#37.1): phases stored on the design by its owner, both strategies' tables and chart, each
phase's BOM and cut-sheet deltas (read back from the files), access as every design page, refusals on the field.

The design is the 2 → 4 → 8 SU DGX H100 build-out of tests/cluster/test_phases.py (its figures derived there):
end-state core 0 re-patches and 24 more QM9700 spines on day 1 ($1,560,000); cheapest day 1 510 + 1,023."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from django.test import Client

from tests.designer.conftest import make_design

PHASES = "day 1, 2026-01-01, 2 SU\ngrow, 2027-01-01, 4 SU\n=full, 2028-01-01, 8 SU"


def _design(user):
    return make_design(user, "superpod-4su", gpu_count=2048)


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.mark.django_db
def test_owner_plans_phases_and_reads_both_strategies(alice):
    design = _design(alice)
    c = _client(alice)
    empty = c.get(f"/designs/{design.pk}/phases/")
    assert empty.status_code == 200 and empty.context["report"] is None and 'id="phase-form"' in empty.content.decode()
    post = c.post(f"/designs/{design.pk}/phases/", {"phases": PHASES})
    assert post.status_code == 302
    design.refresh_from_db()
    assert [p["size"] for p in design.phases] == [2, 4, 8] and design.phases[2]["name"] == "=full"
    page = c.get(f"/designs/{design.pk}/phases/")
    html = page.content.decode()
    report = page.context["report"]
    assert report["strategies"]["end_state"]["repatch_count"] == 0
    assert report["strategies"]["cheapest"]["repatch_count"] == 510 + 1023
    assert report["extra_day1_usd"] == "1560000.00"
    assert 'id="chart-phases"' in html and 'id="phases-end_state"' in html and 'id="repatches-cheapest-2"' in html
    assert "+$1,560,000" in html and "spine 1,536 of 2,048" in html  # day 1's dark spine ports
    assert "leaf0001</td><td>p35</td><td>spine0001</td><td>p3</td><td>spine0002</td><td>p1" in html
    fig = page.context["charts"]["phases"]
    assert fig["layout"]["barmode"] == "stack" and len(fig["data"][0]["x"][1]) == 6  # 3 phases × 2 strategies
    assert "open-phases" in c.get(f"/designs/{design.pk}/").content.decode()


@pytest.mark.django_db
def test_phase_exports_are_the_deltas(alice):
    design = _design(alice)
    sizes = (("day 1", "2026-01-01", 2), ("grow", "2027-01-01", 4), ("=full", "2028-01-01", 8))
    design.phases = [{"name": n, "date": d, "size": s, "unit": "su"} for n, d, s in sizes]
    design.save()
    c = _client(alice)
    base = f"/designs/{design.pk}/phases"
    bom = c.get(f"{base}/end_state/2/bom.csv")
    assert bom.status_code == 200 and bom["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(bom.content.decode())))
    qm = [r for r in rows if r["sku"] == "QM9700" and r["spare"] == "False"]
    assert [(r["category"], r["quantity"]) for r in qm] == [("switch (leaf)", "16")]  # 16 leaves, no spine
    book = openpyxl.load_workbook(io.BytesIO(c.get(f"{base}/end_state/1/bom.xlsx").content))
    compute = book["Compute"]
    header = [cell.value for cell in compute[1]]
    part, cat, q, spare = (header.index(h) for h in ("Part number", "Category", "Quantity", "Spare"))
    lines = [r for r in compute.iter_rows(min_row=2, values_only=True) if r[part]]
    assert {r[spare] for r in lines} == {"yes", ""}  # a spare line says yes
    qty = {(r[part], r[cat]): r[q] for r in lines if r[spare] != "yes"}
    assert qty[("QM9700", "switch (spine)")] == 32 and qty[("QM9700", "switch (leaf)")] == 16
    sheet = openpyxl.load_workbook(io.BytesIO(c.get(f"{base}/cheapest/2/cut-sheet.xlsx").content))["Cut-sheet delta"]
    values = list(sheet.iter_rows(min_row=3, values_only=True))
    assert sum(1 for r in values if r[0] == "re-patch" and r[4] == "compute") == 510
    text = c.get(f"{base}/cheapest/3/cut-sheet.csv").content.decode()
    moved = [r for r in csv.DictReader(io.StringIO(text)) if r["change"] == "re-patch"]
    assert len(moved) == 1023 and all(r["was_z_device"].startswith("spine") for r in moved)
    full = openpyxl.load_workbook(io.BytesIO(c.get(f"{base}/end_state/3/bom.xlsx").content))
    named = [cell for ws in full for row in ws.iter_rows() for cell in row if "=full" in str(cell.value or "")]
    assert named and all(cell.data_type == "s" for cell in named)  # the user's "=full" stays text
    assert c.get(f"{base}/end_state/4/bom.csv").status_code == 404
    assert c.get(f"{base}/nope/1/bom.csv").status_code == 404
    assert c.get(f"{base}/end_state/1/bom.pdf").status_code == 404


@pytest.mark.django_db
def test_only_the_owner_changes_phases_and_strangers_see_nothing(alice, bob):
    design = _design(alice)
    design.phases = [{"name": "a", "date": "2026-01-01", "size": 2, "unit": "su"}]
    design.save()
    stranger = _client(bob)
    assert stranger.get(f"/designs/{design.pk}/phases/").status_code == 404
    assert stranger.post(f"/designs/{design.pk}/phases/", {"phases": PHASES}).status_code == 404
    assert stranger.get(f"/designs/{design.pk}/phases/end_state/1/bom.csv").status_code == 404
    design.shared_with.add(bob)
    page = stranger.get(f"/designs/{design.pk}/phases/")
    assert (
        page.status_code == 200
        and page.context["report"] is not None
        and 'id="phase-form"' not in page.content.decode()
    )
    assert stranger.get(f"/designs/{design.pk}/phases/end_state/1/cut-sheet.csv").status_code == 200
    assert stranger.post(f"/designs/{design.pk}/phases/", {"phases": PHASES}).status_code == 404
    design.refresh_from_db()
    assert [p["name"] for p in design.phases] == ["a"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text, message",
    [
        ("a, 2026-01-01, 4 SU\nb, 2027-01-01, 2 SU", "phase 2 (b): 512 GPUs is not more than phase 1's 1,024"),
        ("a, 2026-02-30, 2 SU", "phase 1 (a): '2026-02-30' is not a date (YYYY-MM-DD)"),
        ("a, 2026-01-01, 9 SU", "phase 1 (a): 9 SU = 2,304 GPUs, beyond the design's 2,048 GPUs"),
        ("a, 2026-01-01", "phase 1: 'a, 2026-01-01' is not NAME, DATE, SIZE"),
    ],
)
def test_bad_phases_are_refused_on_the_field(alice, text, message):
    design = _design(alice)
    page = _client(alice).post(f"/designs/{design.pk}/phases/", {"phases": text})
    assert page.status_code == 200 and message in page.context["errors"]["phases"]
    assert 'id="phase-errors"' in page.content.decode()
    design.refresh_from_db()
    assert design.phases == []
