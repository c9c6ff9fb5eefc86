"""#38.4: a 30-variant sweep up to 2,048 nodes draws every variant — no "first 8 of 30" — as small multiples of
≤ 10 lines (a panel per ratio) and a selector per collective · algorithm, run eagerly chunk by chunk."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from designer.charts import PANEL_SERIES, sweep_charts
from designer.sweeps import create_sweep, run_chunk
from tests.designer.conftest import make_design

NODES = [16, 32, 64, 100, 128, 250, 256, 512, 1024, 2048]
SPEC = {
    "collectives": ["all_reduce", "all_to_all"],
    "algorithms": ["auto"],
    "min_bytes": 2**20,
    "max_bytes": 2**30,
    "factor": 4,
    "vary": {"node_count": NODES, "oversubscription": [1, 2, 3]},
}


@pytest.mark.django_db
def test_a_30_variant_sweep_draws_every_variant_ten_to_a_panel(django_user_model, monkeypatch):
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    user = django_user_model.objects.create_user("charts", password="x-long-pass-1")
    sweep = create_sweep(user, make_design(user).head, SPEC, chunk_points=100)
    for chunk in sweep.chunks.all():
        assert run_chunk(chunk.pk) == "done"
    sweep.refresh_from_db()
    charts = sweep_charts(sweep)
    expected = {f"{n} nodes · {r}:1" for n in NODES for r in (1, 2, 3)}
    for key in ("busbw", "time"):
        fig = charts[key]
        assert "first" not in fig["layout"]["title"]["text"]  # nothing left out
        buttons = fig["layout"]["updatemenus"][0]["buttons"]
        assert [b["label"] for b in buttons] == ["all_reduce · auto", "all_to_all · auto"]
        for b in buttons:
            shown = [t for t, v in zip(fig["data"], b["args"][0]["visible"], strict=True) if v]
            assert {t["name"] for t in shown} == expected  # all 30 in every view, 2,048 nodes included
            panels: dict[str, list[str]] = {}
            for t in shown:
                panels.setdefault(t.get("yaxis", "y"), []).append(t["line"]["color"])
            assert len(panels) == 3 and all(len(c) == len(set(c)) <= PANEL_SERIES for c in panels.values())
        first = [t for t, v in zip(fig["data"], buttons[0]["args"][0]["visible"], strict=True) if v]
        assert [t["name"] for t in first if t.get("yaxis", "y") == "y"] == [f"{n} nodes · 1:1" for n in NODES]
    gpus = charts["gpus"]
    assert len(gpus["data"]) == 6 and len({t["line"]["color"] for t in gpus["data"]}) == 6  # 2 collectives × 3 ratios
    assert len(charts["heatmap"]["data"][0]["y"]) == 30
    c = Client()
    c.force_login(user)
    page = c.get(f"/sweeps/{sweep.pk}/").content.decode()
    data = json.loads(page.split('id="chart-data" type="application/json">')[1].split("</script>")[0])
    assert "2048 nodes · 3:1" in {t["name"] for t in data["busbw"]["data"]}


@pytest.mark.django_db
def test_a_sweep_too_big_to_draw_whole_keeps_every_variant_and_drops_pairs(django_user_model, monkeypatch):
    """With room for one pair's points only, every variant of the first pair is drawn, the title says so."""
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    monkeypatch.setattr("designer.charts.DRAWN_POINTS", 30 * 6)  # 30 variants × 6 sizes: one pair
    user = django_user_model.objects.create_user("charts2", password="x-long-pass-1")
    sweep = create_sweep(user, make_design(user).head, SPEC, chunk_points=100)
    for chunk in sweep.chunks.all():
        run_chunk(chunk.pk)
    charts = sweep_charts(sweep)
    fig = charts["busbw"]
    assert "1 of 2 collective · algorithm pairs" in fig["layout"]["title"]["text"]
    assert len(fig["data"]) == 30 and all(t["hovertemplate"].startswith("all_reduce · auto") for t in fig["data"])
    assert len(charts["gpus"]["data"]) == 6  # the largest size of every pair is still drawn against GPUs
