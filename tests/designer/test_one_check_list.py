"""Issue #34 item 6: one list of checks.

Every section's checks (fabric, storage, BOM, racks, power, scheduler, workload, RoCE) are collected in one place,
cluster/pipeline.py ClusterPlan.checks(), stored with the revision as ``result["checks"]``; the design page, the
live panel (the evaluate API), the REST API and every export show that list: the same checks, the same count.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import openpyxl
import pytest

from cluster.pipeline import CHECK_SECTIONS, failing
from designer.presets import PRESETS
from tests.designer.conftest import make_design

pytestmark = pytest.mark.django_db

# 256 GPUs: a rack budget of 11 kW holds one 10.2 kW node, but the floor plan is told 4 a rack (racks); a 20 %
# growth headroom target on non-blocking leaves with no free port (bom); 200GbE storage NICs on 100G storage
# switch ports (storage)
RED = {
    "gpu_count": 256,
    "rack_budget_kw": 11,
    "nodes_per_rack": 4,
    "growth_headroom_pct": 20,
    "storage_switch_radix": 32,
    "storage_switch_port_gbps": 100,
}
COUNT = re.compile(r"(\d+) check\(s\) fail of (\d+)")


def _readme_failing(data: bytes, name: str) -> tuple[tuple[int, int], list[str]]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        (readme,) = [n for n in z.namelist() if n.endswith(name)]
        text = z.read(readme).decode()
    (count,) = COUNT.findall(text)
    return (int(count[0]), int(count[1])), [ln.split("): ", 1)[1] for ln in text.splitlines() if "[FAIL]" in ln]


def test_every_consumer_shows_the_same_list(client, alice):
    design = make_design(alice, **RED)
    client.force_login(alice)
    stored = design.head.results["checks"]
    bad = failing(stored)
    messages = [c["message"] for c in bad]
    sections = {c["section"] for c in bad}
    assert {"storage", "bom", "racks"} <= sections and len(bad) >= 4
    assert [c["section"] for c in stored] == sorted((c["section"] for c in stored), key=CHECK_SECTIONS.index)
    assert {"fabric", "workload"} <= {c["section"] for c in stored}
    n, total = len(bad), len(stored)

    # the design page: one Checks section, its count and its list
    page = client.get(f"/designs/{design.pk}/").content.decode()
    assert f'data-failing="{n}" data-total="{total}"' in page
    (listing,) = re.findall(r'<ul class="checks" id="check-list">(.*?)</ul>', page, re.S)
    assert listing.count('<li class="bad"') == n and page.count('<li class="bad"') == n

    # the REST API: the checks endpoint, the BOM endpoint and the revision's results
    api = client.get(f"/api/v1/designs/{design.pk}/checks/").json()
    assert (api["failing_count"], api["count"]) == (n, total) and api["checks"] == stored
    assert client.get(f"/api/v1/designs/{design.pk}/bom/").json()["checks"] == stored
    assert client.get(f"/api/v1/designs/{design.pk}/").json()["head"]["results"]["checks"] == stored
    # the live panel: the evaluate API the form calls, on the same values
    body = {k: "" if v is None else str(v) for k, v in {**PRESETS["h100-8x400g"]["values"], **RED}.items()}
    live = client.post("/api/v1/evaluate/?layout=flat", body, content_type="application/json")
    assert live.status_code == 200, live.content
    assert [c["message"] for c in failing(live.json()["checks"])] == messages

    # the full and the BOM-only workbooks: the Checks sheet lists the failing ones, the banner counts them
    for fmt in ("bom.xlsx", "bom-only.xlsx"):
        wb = openpyxl.load_workbook(io.BytesIO(client.get(f"/designs/{design.pk}/export/{fmt}").content))
        assert wb.sheetnames[0] == "Checks" and wb.active.title == "Checks"
        ws = wb["Checks"]
        assert COUNT.findall(ws["A1"].value) == [(str(n), str(total))]
        rows = [r for r in ws.iter_rows(min_row=4, values_only=True) if r[0]]
        assert [r[1] for r in rows] == messages and {r[2] for r in rows} == sections

    # bom.csv: the count line, then one comment line per failing check; bom.json carries the list
    text = client.get(f"/designs/{design.pk}/export/bom.csv").content.decode()
    head = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert COUNT.findall(head[0]) == [(str(n), str(total))]
    assert [ln.split("): ", 1)[1] for ln in head[1:]] == messages
    assert next(csv.reader(io.StringIO(text.split("\n", n + 1)[-1])))[0] == "line_id"
    assert json.loads(client.get(f"/designs/{design.pk}/export/bom.json").content)["checks"] == stored

    # the NetBox and Slurm zips' README
    netbox = client.get(f"/designs/{design.pk}/export/netbox.zip").content
    assert _readme_failing(netbox, "README.txt") == ((n, total), messages)
    slurm = client.get(f"/designs/{design.pk}/export/slurm.zip").content
    assert _readme_failing(slurm, "README.txt") == ((n, total), messages)


def test_a_green_design_says_so_everywhere(client, alice):
    design = make_design(alice)
    client.force_login(alice)
    stored = design.head.results["checks"]
    assert failing(stored) == [] and len(stored) >= 5
    page = client.get(f"/designs/{design.pk}/").content.decode()
    assert f'data-failing="0" data-total="{len(stored)}"' in page
    assert client.get(f"/api/v1/designs/{design.pk}/checks/").json()["failing_count"] == 0
    wb = openpyxl.load_workbook(io.BytesIO(client.get(f"/designs/{design.pk}/export/bom-only.xlsx").content))
    assert "Checks" not in wb.sheetnames and wb.active.title == "Summary"
    assert client.get(f"/designs/{design.pk}/export/bom.csv").content.decode().startswith("line_id,")  # no comment
    slurm = client.get(f"/designs/{design.pk}/export/slurm.zip").content
    assert _readme_failing(slurm, "README.txt") == ((0, len(stored)), [])


def test_a_revision_saved_before_the_list_gathers_it_from_its_sections(client, alice):
    """A stored result without ``checks`` (saved before the list existed): the storage, BOM/racks and RoCE checks it
    carries, in the list's order — the page, the API and the exports agree on it too."""
    from designer.models import DesignRevision

    design = make_design(alice, **RED)
    rev = design.head
    results = dict(rev.results)
    stored = results.pop("checks")
    DesignRevision.objects.filter(pk=rev.pk).update(results=results)
    client.force_login(alice)
    gathered = client.get(f"/api/v1/designs/{design.pk}/checks/").json()["checks"]
    assert gathered == [c for c in stored if c["section"] not in ("fabric", "workload")]
    page = client.get(f"/designs/{design.pk}/").content.decode()
    assert f'data-failing="{len(failing(gathered))}"' in page


def test_the_command_lines_workbook_shows_the_same_list(tmp_path, alice):
    """`cluster-designer evaluate --xlsx`: its Checks sheet is the plan's one list too (cluster/cli.write_xlsx)."""
    from cluster.cli import write_xlsx
    from cluster.pipeline import plan_cluster
    from cluster.validate import validate_flat

    design = make_design(alice, **RED)
    stored = design.head.results["checks"]
    plan = plan_cluster(validate_flat(design.head.requirements()))
    out = tmp_path / "cli.xlsx"
    write_xlsx(plan, plan.result(), out)
    ws = openpyxl.load_workbook(out)["Checks"]
    assert COUNT.findall(ws["A1"].value) == [(str(len(failing(stored))), str(len(stored)))]
    rows = [r for r in ws.iter_rows(min_row=4, values_only=True) if r[0]]
    assert [r[1] for r in rows] == [c["message"] for c in failing(stored)]
