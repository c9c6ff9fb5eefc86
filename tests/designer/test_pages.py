from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from designer.models import Design, DesignRevision
from tests.designer.conftest import form_data, make_design


@pytest.mark.django_db
def test_landing_lists_demo_designs_after_load_demo(client):
    call_command("load_demo", password="demo-pass-1")
    r = client.get("/")
    assert r.status_code == 200
    body = r.content.decode()
    assert "Seed 2,000-GPU H100 cluster" in body
    assert "TPU-v4-like 3D torus" in body
    call_command("load_demo")  # idempotent: one design per example file, loaded once
    examples = len(list((Path(settings.BASE_DIR) / "examples").glob("*.yaml")))
    assert Design.objects.filter(owner__username="demo").count() == examples == 8


@pytest.mark.django_db
def test_a_changed_example_gives_its_demo_a_new_revision(tmp_path):
    """A machine upgraded to a release whose example changed (e.g. the seed's scheduler split) shows the new
    figures: the demo design gets a revision, the old one stays; an unchanged example adds none."""
    import shutil

    shutil.copy(Path(settings.BASE_DIR) / "examples" / "seed-2000-gpu.yaml", tmp_path / "seed.yaml")
    call_command("load_demo", examples=tmp_path)
    d = Design.objects.get(owner__username="demo")
    assert d.revisions.count() == 1
    call_command("load_demo", examples=tmp_path)
    assert d.revisions.count() == 1
    text = (tmp_path / "seed.yaml").read_text().replace("kubernetes_node_count: 50", "kubernetes_node_count: 40")
    (tmp_path / "seed.yaml").write_text(text)
    call_command("load_demo", examples=tmp_path)
    assert d.revisions.count() == 2
    assert d.head.results["scheduler"]["kubernetes_node_count"] == 40
    assert d.revisions.get(number=1).results["scheduler"]["kubernetes_node_count"] == 50


@pytest.mark.django_db
def test_shared_link_page_renders_for_anyone(client):
    call_command("load_demo", password="demo-pass-1")
    d = Design.objects.filter(owner__username="demo").with_head().get(head_name="Seed 2,000-GPU H100 cluster")
    r = client.get(f"/s/{d.share_token}/")
    assert r.status_code == 200
    body = r.content.decode()
    assert "How each compute figure was derived" in body
    assert "50.00 TB/s" in body
    assert "chart-data" in body
    # every tab of the shared page leads to a section that page has (sweeps and workload are the owner's)
    tabs = re.findall(r'<a href="#([\w-]+)"', body.split('<nav class="tabs">')[1].split("</nav>")[0])
    assert tabs and all(f'id="{t}"' in body for t in tabs), [t for t in tabs if f'id="{t}"' not in body]
    assert client.get("/s/not-a-token/").status_code == 404


def test_new_design_saves_revision_one(client, alice):
    client.force_login(alice)
    r = client.post("/designs/new/", form_data(name="My cluster"))
    assert r.status_code == 302
    d = Design.objects.get(owner=alice)
    assert d.revisions.count() == 1
    rev = d.revisions.get()
    assert rev.name == "My cluster" and rev.number == 1 and rev.author == alice
    assert rev.results["compute_fabric"]["switch_count"] == 96
    page = client.get(r["Location"])
    assert page.status_code == 200 and "My cluster" in page.content.decode()


def test_edit_creates_new_immutable_revision(client, alice, alice_design):
    client.force_login(alice)
    r = client.post(f"/designs/{alice_design.pk}/edit/", form_data(oversubscription="2", message="2:1"))
    assert r.status_code == 302
    revs = list(alice_design.revisions.order_by("number"))
    assert [x.number for x in revs] == [1, 2]
    assert revs[0].oversubscription == 1.0 and revs[1].oversubscription == 2.0
    assert revs[1].message == "2:1"
    hist = client.get(f"/designs/{alice_design.pk}/history/").content.decode()
    assert "r1" in hist and "r2" in hist
    with pytest.raises(Exception, match="immutable"):
        revs[0].save()
    with pytest.raises(Exception, match="immutable"):
        revs[0].delete()
    old = client.get(f"/designs/{alice_design.pk}/r/1/")
    assert "not the latest" in old.content.decode()


def test_preset_prefills_form(client, alice):
    client.force_login(alice)
    body = client.get("/designs/new/?preset=gb200-nvl72").content.decode()
    assert 'value="GB200 NVL72, 8 racks"' in body
    assert "preset-values" in body


def test_list_search_and_sort(client, alice):
    make_design(alice, name="Alpha small", gpu_count=64)
    make_design(alice, name="Beta big", gpu_count=4096)
    client.force_login(alice)
    body = client.get("/designs/?q=beta").content.decode()
    assert "Beta big" in body and "Alpha small" not in body
    body = client.get("/designs/?sort=-gpus").content.decode()
    assert body.index("Beta big") < body.index("Alpha small")
    body = client.get("/designs/?sort=name").content.decode()
    assert body.index("Alpha small") < body.index("Beta big")


def test_clone_delete_restore(client, alice, alice_design):
    client.force_login(alice)
    r = client.post(f"/designs/{alice_design.pk}/clone/")
    copy = Design.objects.exclude(pk=alice_design.pk).get(owner=alice)
    assert copy.head.name.endswith("(copy)")
    assert client.get(f"/designs/{copy.pk}/delete/").status_code == 200  # confirmation page
    r = client.post(f"/designs/{copy.pk}/delete/")
    assert r.status_code == 302
    copy.refresh_from_db()
    assert copy.deleted_at is not None
    assert copy.revisions.count() == 1  # soft: nothing lost
    listed = client.get("/designs/").context["designs"]
    assert copy.pk not in [d.pk for d in listed]
    assert "(copy)" in client.get("/designs/trash/").content.decode()
    assert client.get(f"/designs/{copy.pk}/").status_code == 404
    client.post(f"/designs/{copy.pk}/restore/")
    assert client.get(f"/designs/{copy.pk}/").status_code == 200


def test_compare_two_designs_highlights_differences(client, alice):
    a = make_design(alice, name="A")
    b = make_design(alice, name="B", oversubscription=2)
    client.force_login(alice)
    r = client.get(f"/compare/?d={a.pk}&d={b.pk}")
    assert r.status_code == 200
    rows = {row.key: row for row in r.context["rows"]}
    assert rows["compute_fabric.oversubscription"].differs
    cell = rows["compute_fabric.oversubscription"].cells[1]
    assert cell.delta == 1.0 and cell.delta_pct == pytest.approx(100.0)
    assert not rows["gpu_count"].differs
    assert rows["compute_fabric.tiers.leaf.oversubscription_ratio"].differs
    assert "compare-chart" in r.content.decode()
    assert client.get(f"/compare/?d={a.pk}").status_code == 302  # need 2–4


def test_compare_revisions(client, alice, alice_design):
    client.force_login(alice)
    client.post(f"/designs/{alice_design.pk}/edit/", form_data(gpu_count="4000"))
    ids = list(DesignRevision.objects.filter(design=alice_design).values_list("pk", flat=True))
    r = client.get("/compare/?" + "&".join(f"r={i}" for i in ids))
    rows = {row.key: row for row in r.context["rows"]}
    assert rows["gpu_count"].differs


@pytest.mark.django_db
def test_health_reports_database(client):
    r = client.get("/health/")
    assert r.status_code == 200
    assert r.json() == {"database": "ok"}


def test_tokens_page_shows_key_once_and_stores_hash(client, alice):
    client.force_login(alice)
    r = client.post("/accounts/tokens/", {"name": "ci", "expires_in_days": 30, "read_only": "on"})
    key = r.context["new_key"]
    assert key.startswith("cd_")
    token = alice.api_tokens.get()
    assert token.read_only and key not in token.key_hash
    again = client.get("/accounts/tokens/").content.decode()
    assert key not in again
    bad = client.post("/accounts/tokens/", {"name": "x", "expires_in_days": 0})
    assert "greater than or equal to 1" in bad.content.decode()


@pytest.mark.parametrize("preset", ["h100-8x400g", "superpod-4su", "fat-tree-16k", "gb200-nvl72"])
def test_every_preset_evaluates(alice, preset):
    d = make_design(alice, preset)
    r = d.head.results
    assert r["compute_fabric"]["switch_count"] > 0 and r["bom"]["total_usd"]
    if preset == "gb200-nvl72":
        racks = r["power"]["racks"]
        assert racks["nodes_per_rack"] == 18 and racks["compute_rack_count"] == 8  # 576 GPUs = 8 NVL72 racks
        assert r["power"]["cooling"]["cooling_type"] == "direct_to_chip"
    if preset == "fat-tree-16k":
        assert [t["switch_count"] for t in r["compute_fabric"]["tiers"]] == [512, 512, 256]


def test_the_gb200_page_reads(client, alice):
    """The GB200 NVL72 preset's page: the NVLink plane's trays and spines are priced inside the rack (each $0,
    "included in the rack-scale system"), so its card says where its cost is, not "Nvlink $0"; the growth option
    writes its extra as +$…; the collectives' sizes are binary (1 MiB = 1,048,576 B, not Django's "1.0 MB");
    the rail view of 8 SUs of 18 nodes each draws no colour bar (a bar 17.5–18.5 says nothing) but the value;
    the capping chart's right axis ticks on its own round steps."""
    design = make_design(alice, "gb200-nvl72")
    client.force_login(alice)
    page = client.get(f"/designs/{design.pk}/")
    body = page.content.decode()
    cards = {card["label"]: card for card in page.context["plane_cards"]}
    assert list(cards) == ["NVLink", "Compute", "Storage", "Management", "Infrastructure"]
    assert cards["NVLink"]["value"] == "in the rack price"
    assert cards["NVLink"]["detail"] == (
        "72 × NVLink switch tray + 8 × NVLink spine: included in the rack-scale system (priced with its compute trays)"
    )
    assert cards["Compute"]["value"] == f"${Decimal(design.head.results['bom']['totals_usd']['compute']):,.0f}"
    assert "Nvlink" not in body and '<div class="k">NVLink</div><div class="v">in the rack price</div>' in body
    growth = design.head.results["compute_fabric"]["growth_option"]
    assert f"= +${Decimal(growth['extra_usd']):,.2f} for the growth headroom" in body and "$+" not in body
    assert "1 MiB (1,048,576 B)" in body and "4 GiB (4,294,967,296 B)" in body
    assert "1.0 MB" not in body and "4.0 GB" not in body
    charts = page.context["charts"]
    rail = charts["rail"]
    assert rail["data"][0]["showscale"] is False
    assert rail["layout"]["title"]["text"].endswith("(4 rails × 8 SUs; all equal: 18 nodes a cell)")
    right = charts["capping"]["layout"]["yaxis2"]
    assert right["tickmode"] == "auto" and right["tickformat"] == ",d" and right["showgrid"] is False


def test_compare_rows_are_keyed_not_dumped(client, alice):
    a = make_design(alice, name="A")
    b = make_design(alice, name="B", oversubscription=2)
    client.force_login(alice)
    rows = {row.key: row for row in client.get(f"/compare/?d={a.pk}&d={b.pk}").context["rows"]}
    assert rows["bom.lines.compute.switch (leaf).QM9700.quantity"].cells[0].value == 64
    assert rows["bom.lines.compute.switch (spine).QM9700.quantity"].differs  # 2:1 buys fewer spines
    assert "collectives.rows.all_reduce.4294967296.busbw_gbyte_s" in rows
    assert "power.capping.points.count" in rows
    assert all(len(str(c.value)) < 500 for row in rows.values() for c in row.cells)


def test_diagrams_draw_groups_and_pods_not_a_full_mesh(db):
    """Dragonfly+: leaves wire to their own group's spines, groups meet over global arcs; 3-tier: pods."""
    from designer.charts import compute_diagram
    from designer.services import evaluate_flat

    dfly = compute_diagram(
        evaluate_flat({"gpu_count": 16384, "topology": "dragonfly_plus", "leaves_per_group": 16}).result
    )
    lines = [t for t in dfly["data"] if t.get("mode") == "lines"]
    leaf_spine = lines[1]
    assert sum(1 for x in leaf_spine["x"] if x is None) == 8  # 8 boxes, one line each: aligned, not 8 × 8
    assert any("global: 16 per group pair" in a["text"] for a in dfly["layout"]["annotations"])
    ft = compute_diagram(evaluate_flat({"gpu_count": 16384, "topology": "fat_tree", "tiers": 3}).result)
    # eight boxes of one label each: the label is said once, beside the row (#38.4), and in every box's hover
    captions = " ".join(ft["layout"]["yaxis"]["ticktext"])
    assert "each box: 2 pods: 64 leaves" in captions and "each box: 2 pods: 64 spines" in captions
    hovers = [t for trace in ft["data"] if trace.get("mode") == "markers" for t in trace["hovertext"]]
    assert "leaf: 2 pods: 64 leaves" in hovers
