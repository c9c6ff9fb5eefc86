"""#38.4 charts that read, looked at in a real browser: a capacity result (TCO bars on their own axis, the ★
answer drawn), a 30-variant sweep up to 2,048 nodes (every variant drawn, ≤ 10 lines a panel, a selector) and
the Dragonfly+ diagram (group labels apart). Screenshots: /tmp/shots/ (or $CHART_SHOTS)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.browser.test_journey import _sign_up, page, pytestmark  # noqa: F401

SHOTS = Path(os.environ.get("CHART_SHOTS", "/tmp/shots"))
NODES = [16, 32, 64, 100, 128, 250, 256, 512, 1024, 2048]


def _user(django_user_model, name: str):
    return django_user_model.objects.get(username=name)


def test_capacity_sweep_and_dragonfly_charts_read(page, django_user_model, monkeypatch):  # noqa: F811
    from cluster.pipeline import plan_cluster
    from cluster.requirements import Requirements
    from cluster.simulation import capacity_design
    from cluster.validate import load_requirements_file, validate
    from designer.models import SimulationRun
    from designer.services import create_design, evaluate_flat
    from designer.sweeps import create_sweep, run_chunk
    from scheduling.capacity import Target
    from tests.conftest import EXAMPLES

    SHOTS.mkdir(parents=True, exist_ok=True)
    _sign_up(page, "reader")
    user = _user(django_user_model, "reader")

    def design_of(name: str, **overrides):
        data = load_requirements_file(EXAMPLES / name)
        data.update(overrides)
        flat = validate(data).flat()
        return create_design(user, flat, evaluate_flat(flat))

    # the capacity search, computed here as the worker would
    seed = design_of("seed-2000-gpu.yaml")
    plan = plan_cluster(Requirements.from_flat(seed.head.requirements()))
    result = json.loads(json.dumps(capacity_design(plan, Target("fine-tuning", 100, 0.0)), default=str))
    run = SimulationRun.objects.create(owner=user, design=seed, revision=seed.head, name="capacity", kind="capacity",
                                       status="done", progress_frac=1.0, result=result)  # fmt: skip
    page.goto(f"{page.base}/simulations/{run.pk}/")
    page.wait_for_selector("#chart-capacity .main-svg")
    assert page.locator("#chart-capacity .point path").count() >= 1
    assert "5-year TCO [$M]" in page.inner_text("#chart-capacity")
    assert f"★ the answer: {result['answer_size']:,} GPUs" in page.inner_text("#chart-capacity")
    page.locator("#chart-capacity").screenshot(path=str(SHOTS / "capacity.png"))

    # a 30-variant sweep, run eagerly chunk by chunk
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    spec = {"collectives": ["all_reduce", "all_to_all"], "algorithms": ["auto", "ring"], "min_bytes": 8,
            "max_bytes": 2**30, "factor": 4, "vary": {"node_count": NODES, "oversubscription": [1, 2, 3]}}  # fmt: skip
    sweep = create_sweep(user, seed.head, spec, chunk_points=2000)
    for chunk in sweep.chunks.all():
        run_chunk(chunk.pk)
    page.goto(f"{page.base}/sweeps/{sweep.pk}/")
    page.wait_for_selector("#chart-busbw .main-svg")
    page.wait_for_function("document.getElementById('chart-busbw').offsetHeight > 900")
    busbw = page.inner_text("#chart-busbw")
    assert "2048 nodes · 3:1" in busbw and "16 nodes · 1:1" in busbw
    assert "all 10 lines coincide" in busbw  # NVLS all-reduce: one curve drawn ten times, and the legend says so
    assert "1G" not in busbw.split() and "1B" not in busbw.split()  # no "1B" (a billion) on a bytes axis
    page.locator("#chart-busbw").screenshot(path=str(SHOTS / "sweep-busbw.png"))
    assert page.locator("#chart-busbw .infolayer > g[class^=legend]").count() == 3  # a panel per ratio
    page.locator("#chart-busbw").screenshot(path=str(SHOTS / "sweep-busbw.png"))
    page.locator("#chart-busbw .updatemenu-header-group").click()
    page.locator("#chart-busbw .updatemenu-dropdown-button", has_text="all_to_all · auto").click()
    page.wait_for_timeout(500)
    legend = page.text_content("#chart-busbw .infolayer > g.legend") or ""
    assert "all_to_all · auto" in legend  # the selector switched the view
    page.locator("#chart-busbw").screenshot(path=str(SHOTS / "sweep-busbw-all-to-all.png"))
    page.locator("#chart-gpus").screenshot(path=str(SHOTS / "sweep-gpus.png"))
    page.screenshot(path=str(SHOTS / "sweep-page.png"), full_page=True)

    # the Dragonfly+ example's diagram, and every other example's layered diagrams
    for example in ("dragonfly-plus-8k", "superpod-4su-h100", "fat-tree-16k-3tier", "roce-24k-pods-1to7",
                    "b300-spectrum-twin-plane-8su"):  # fmt: skip
        design = design_of(f"{example}.yaml")
        page.goto(f"{page.base}/designs/{design.pk}/")
        for chart in ("compute", "storage", "management"):
            sel = f"#chart-{chart}"
            page.wait_for_selector(f"{sel} .main-svg")
            _labels_apart_and_inside(page, sel)
            shot = "dragonfly.png" if (example, chart) == ("dragonfly-plus-8k", "compute") else f"{example}-{chart}.png"
            page.locator(sel).screenshot(path=str(SHOTS / shot))


def _labels_apart_and_inside(pg, sel: str) -> None:
    """No two labels (box texts, row captions, link notes) overlap or come closer than 4 px side by side, and
    none runs past the figure's edges."""
    boxes = pg.eval_on_selector_all(
        f"{sel} .scatterlayer .textpoint text, {sel} .yaxislayer-above text, {sel} .annotation-text",
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; })",
    )
    edge = pg.eval_on_selector(
        f"{sel} .main-svg", "e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }"
    )
    assert boxes
    for b in boxes:
        assert edge[0] <= b[0] and b[1] <= edge[1], f"{sel}: a label runs off the figure: {b} vs {edge}"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a[1] + 4 <= b[0] or b[1] + 4 <= a[0] or a[3] <= b[2] or b[3] <= a[2]
            assert apart, f"{sel}: labels overlap or run together: {a} {b}"
