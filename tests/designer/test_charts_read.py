"""#38.4 charts that read, checked on the figure dicts: the capacity chart's TCO bars on their own titled axis
and the ★ answer as a marker of its own (no text on a curve); sweeps drawn whole in small multiples of ≤ 10
lines with distinct colours and a selector; the Dragonfly+ diagram's labels apart and inside the figure."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import pytest

from designer.charts import NOMINAL_WIDTH_PX, PANEL_SERIES, Line, compute_diagram, panelled_chart, text_width_px
from designer.simulation_charts import capacity_charts


def _capacity_result(answer: int | None, waits: tuple[float, ...] = (300.0, 120.0, 40.0, 0.0)) -> dict[str, Any]:
    sizes = [1600, 2000, 2400, 2800]
    rows = [
        {
            "size": s,
            "tco_usd": str(50_000_000 + 10_000 * s),
            "cost_per_gpu_hour_usd": "2.10",
            "report": {"utilization_frac": 0.9 - 0.1 * i, "classes": [{"name": "fine-tuning", "wait_h_p95": w}]},
        }
        for i, (s, w) in enumerate(zip(sizes, waits, strict=True))
    ]
    rows.insert(0, {"size": 1200, "error": "its batch partition is smaller than the largest job"})
    target = {"job_class": "fine-tuning", "p95_wait_h": 100.0, "min_utilization": 0.0}
    return {"rows": rows, "answer_size": answer, "inputs": {"target": target}}


def _trace_named(fig: dict[str, Any], start: str) -> dict[str, Any]:
    return next(t for t in fig["data"] if str(t.get("name", "")).startswith(start))


def test_capacity_tco_bars_have_their_own_titled_axis_and_the_answer_is_a_star():
    fig = capacity_charts(_capacity_result(2400))["capacity"]
    bars = _trace_named(fig, "5-year TCO")
    axis = "yaxis" + bars["yaxis"][1:]
    assert bars["type"] == "bar" and axis not in ("yaxis", "yaxis2")  # not the wait's, not the utilization's
    assert fig["layout"][axis]["title"]["text"] == "5-year TCO [$M]"
    assert bars["y"] == pytest.approx([66.0, 70.0, 74.0, 78.0])  # (50 M + 10 k × size) ÷ 1 M; the 1,200 row failed
    assert bars.get("textangle") == 0 and bars["textposition"] == "outside"  # level labels above the bars
    star = _trace_named(fig, "★ the answer: 2,400 GPUs")
    assert star["marker"]["symbol"] == "star" and star["x"] == [2400] and star["y"] == [40.0]
    assert star["mode"] == "markers"
    # no text sits on a curve: the target is a legend line, nothing is annotated inside the plot
    assert not fig["layout"].get("annotations") and not fig["layout"].get("shapes")
    assert _trace_named(fig, "target: p95 ≤ 100 h")["y"] == [100.0, 100.0]
    assert fig["layout"]["yaxis"]["title"]["text"] == "p95 wait [h]"  # 300 h is within 20 × the target: linear
    assert fig["layout"]["yaxis2"]["title"]["text"] == "utilization [%]"


def test_capacity_without_an_answer_draws_no_star_and_far_waits_go_log():
    fig = capacity_charts(_capacity_result(None, waits=(5000.0, 1500.0, 400.0, 150.0)))["capacity"]
    assert not any("★" in str(t.get("name")) for t in fig["data"])
    assert "no size meets the target" in fig["layout"]["title"]["text"]
    assert fig["layout"]["yaxis"]["type"] == "log"  # 5,000 h > 20 × 100 h
    # every log tick labelled in full, none a bare step digit ("5" for 5,000 h): 1, 2, 5 per decade, from the
    # target's 100 h (the lowest value drawn; every wait is above the floor 100 h ÷ 100 = 1 h) to the 5,000 h wait
    y = fig["layout"]["yaxis"]
    assert y["tickvals"] == [100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0]
    assert y["ticktext"] == ["100", "200", "500", "1,000", "2,000", "5,000"]
    assert all(float(text.replace(",", "")) == v for v, text in zip(y["tickvals"], y["ticktext"], strict=True))
    wait = _trace_named(fig, "fine-tuning p95 wait")
    assert [c[2] for c in wait["customdata"]] == [5000.0, 1500.0, 400.0, 150.0]  # the hover keeps the true waits


def _visible_by_panel(fig: dict[str, Any], mask: list[bool]) -> dict[str, list[dict[str, Any]]]:
    panels: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for trace, shown in zip(fig["data"], mask, strict=True):
        if shown:
            panels[trace.get("yaxis", "y")].append(trace)
    return panels


def _masks(fig: dict[str, Any]) -> list[list[bool]]:
    menus = fig["layout"].get("updatemenus")
    if not menus:
        return [[t.get("visible", True) is not False for t in fig["data"]]]
    return [b["args"][0]["visible"] for b in menus[0]["buttons"]]


def _lines(pairs: list[str], nodes: list[int], ratios: list[int], by_ratio: bool) -> list[Line]:
    return [
        Line(pair, f"{n} nodes · {r}:1", [8.0, 64.0], [1.0, float(n)], panel=f"{r}:1" if by_ratio else "")
        for pair in pairs
        for r in ratios
        for n in nodes
    ]


NODES = [16, 32, 64, 100, 128, 250, 256, 512, 1024, 2048]


@pytest.mark.parametrize(
    ("nodes", "ratios", "by_ratio", "panels", "views"),
    [
        (NODES, [1, 2, 3], True, 3, 4),  # the 30 variants: a panel per ratio, a view per pair
        (NODES, [1, 2, 3], False, 3, 4),  # no shared value: split evenly in order, 10 + 10 + 10
        ([*NODES, 4096, 8192], [1, 2, 3, 4, 5, 6], True, 6, 8),  # 72 variants: 12 a ratio, too many, so 8 + 8 + …
    ],
)
def test_sweep_lines_are_small_multiples_of_at_most_ten_distinct_colours(nodes, ratios, by_ratio, panels, views):
    pairs = ["all_reduce · auto", "all_reduce · ring", "all_to_all · auto", "all_to_all · ring"]
    fig = panelled_chart(_lines(pairs, nodes, ratios, by_ratio), "busbw", ("message size", "busbw"), "%{y}")
    masks = _masks(fig)
    assert len(masks) == views and len(fig["data"]) == len(pairs) * len(nodes) * len(ratios)  # nothing dropped
    seen: set[int] = set()
    for mask in masks:
        by_panel = _visible_by_panel(fig, mask)
        assert 1 <= len(by_panel) <= panels
        for traces in by_panel.values():
            assert len(traces) <= PANEL_SERIES
            colours = [t["line"]["color"] for t in traces]
            assert len(set(colours)) == len(colours), colours  # no colour twice in a panel
            legends = {t.get("legend", "legend") for t in traces}
            assert len(legends) == 1  # a panel's own legend
        seen |= {i for i, m in enumerate(mask) if m}
    names = {fig["data"][i]["name"] for i in seen}
    assert {f"{n} nodes · {r}:1" for n in nodes for r in ratios} <= names  # every variant is in some view
    assert len(seen) == len(fig["data"])  # and every line of every pair
    if by_ratio and len(nodes) <= PANEL_SERIES:
        first = _visible_by_panel(fig, masks[0])
        assert {t["name"] for t in first["y"]} == {f"{n} nodes · 1:1" for n in nodes}  # 16 … 2,048 nodes together


def test_a_few_lines_share_one_panel_and_need_no_selector():
    lines = _lines(["all_reduce · auto", "all_to_all · auto"], [16, 64], [1, 2], True)
    fig = panelled_chart(lines, "busbw", ("message size", "busbw"), "%{y}")
    assert "updatemenus" not in fig["layout"] or not fig["layout"]["updatemenus"]
    assert [t["name"] for t in fig["data"]][:2] == [
        "all_reduce · auto · 16 nodes · 1:1",
        "all_reduce · auto · 64 nodes · 1:1",
    ]
    assert len({t["line"]["color"] for t in fig["data"]}) == 8


def _labels_apart(fig: dict[str, Any]) -> None:
    """Box labels of one row keep a 12-pixel gap at the narrowest width the page draws; link notes fit the
    right margin."""
    notes = fig["layout"].get("annotations", [])
    rows: dict[float, list[dict[str, Any]]] = defaultdict(list)
    for note in (n for n in notes if n.get("name") == "box"):
        rows[note["y"]].append(note)
    for row in rows.values():
        row.sort(key=lambda n: n["x"])
        for a, b in itertools.pairwise(row):
            widths = text_width_px(a["text"], a["font"]["size"]) + text_width_px(b["text"], b["font"]["size"])
            gap = (b["x"] - a["x"]) * NOMINAL_WIDTH_PX - widths / 2
            assert gap >= 12, (a["text"], b["text"], gap)
    right = fig["layout"]["margin"]["r"]
    for note in (n for n in notes if n.get("name") == "link"):
        assert text_width_px(note["text"], note["font"]["size"]) + 0.02 * NOMINAL_WIDTH_PX <= right, note["text"]


@pytest.mark.django_db
def test_the_dragonfly_plus_labels_do_not_run_together_or_off_the_figure():
    from cluster.validate import load_requirements_file, validate
    from designer.services import evaluate_flat
    from tests.conftest import EXAMPLES

    flat = validate(load_requirements_file(EXAMPLES / "dragonfly-plus-8k.yaml")).flat()
    fig = compute_diagram(evaluate_flat(flat).result)
    _labels_apart(fig)
    boxes = [n for n in fig["layout"]["annotations"] if n.get("name") == "box"]
    assert [n["text"] for n in boxes] == ["8,192 NICs in 1,024 nodes"]  # leaves and spines: eight alike, said once
    captions = fig["layout"]["yaxis"]["ticktext"]
    assert "<b>spine</b> (256)<br>each box: 1 group: 32 spines" in captions  # beside its row
    links = [n["text"] for n in fig["layout"]["annotations"] if n.get("name") == "link"]
    assert "4,088 links × 400G<br>global: 146 per group pair" in links  # wrapped, not cut off


@pytest.mark.django_db
@pytest.mark.parametrize("example", ["superpod-4su-h100", "fat-tree-16k-3tier", "roce-24k-pods-1to7",
                                     "b300-spectrum-twin-plane-8su", "seed-2000-gpu"])  # fmt: skip
def test_every_examples_diagrams_keep_their_labels_apart(example):
    from cluster.validate import load_requirements_file, validate
    from designer.charts import management_diagram, storage_diagram
    from designer.services import evaluate_flat
    from tests.conftest import EXAMPLES

    result = evaluate_flat(validate(load_requirements_file(EXAMPLES / f"{example}.yaml")).flat()).result
    for draw in (compute_diagram, storage_diagram, management_diagram):
        _labels_apart(draw(result))


def test_rail_labels_that_differ_stay_on_their_boxes_and_wrap():
    from designer.charts import layered_diagram

    rows = [
        {"label": "endpoints", "count": 1024, "kind": "endpoint", "unit": "NICs", "boxes": 1},
        {"label": "leaf", "count": 32, "kind": "leaf", "unit": "leaves", "boxes": 8,
         "labels": [f"rail {r}: 4 leaves" for r in range(8)]},
    ]  # fmt: skip
    fig = layered_diagram(rows, [{"lower": 0, "upper": 1, "count": 1024, "gbps": 400}], "t")
    boxes = [n for n in fig["layout"]["annotations"] if n.get("name") == "box"]
    assert [n["text"] for n in boxes][1:3] == ["rail 0:<br>4 leaves", "rail 1:<br>4 leaves"]
    assert all(n["bgcolor"].startswith("rgba(255,255,255") for n in boxes)  # wires do not run through them
    _labels_apart(fig)


def test_a_class_name_is_text_not_markup_in_the_capacity_chart():
    result = _capacity_result(2400)
    result["inputs"]["target"]["job_class"] = "<a href='x'>ft</a>"
    for r in result["rows"][1:]:
        r["report"]["classes"][0]["name"] = "<a href='x'>ft</a>"
    fig = capacity_charts(result)["capacity"]
    assert "&lt;a href=&#x27;x&#x27;&gt;ft&lt;/a&gt; p95 wait" in {t["name"] for t in fig["data"]}
    assert "<a" not in fig["layout"]["title"]["text"]
