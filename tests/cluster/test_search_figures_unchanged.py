"""The search's fast path changes no figure (issue #36, speed): ~20 diverse candidates evaluated one after another
— sharing every remembered sub-result (bom.plan.Recent: floor plans, link tables, roles; bom.build.CHOOSERS; the
halls), collectives table skipped, the counted grouping of bom.build.group_rows — give exactly the figures of the
slow reference path: each candidate planned alone with every memo emptied, its BOM counted from per-cable records
(``cables=True``), its figures from the full BOM and power dicts; and the same full result as a fresh counts-only
plan."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import bom.build as build
import bom.plan as plan_mod
from bom.plan import Catalog
from cluster.pipeline import plan_cluster
from cluster.search import (
    _CatalogLengths,
    allreduce_figures,
    candidate_flat,
    evaluate_range,
    figures_of,
    parse_spec,
)
from cluster.validate import RequirementsError, validate_flat

SPEC = {
    "vary": {
        "topology": ["rail_optimized", "fat_tree", "dragonfly_plus", "torus_3d"],
        "rail_groups": [1, 2],
        "tiers": [2, 3],
        "oversubscription": [1, 2],
        "bom_media": ["by_reach", "all_optics"],
        "cooling_type": ["air", "direct_to_chip"],
    }
}


def forget() -> None:
    for memo in (plan_mod.FLOORS, plan_mod.TABLES, plan_mod.ROLES, plan_mod.BOMS):
        memo.clear()
    build.CHOOSERS.clear()
    plan_mod._HALLS.clear()


def reference_figures(plan, size: int, lengths: dict[str, float]) -> dict:
    """cluster.search.plan_figures as it was: the summary from the full BOM and power dicts."""
    s = plan.summary(plan.bom.to_dict(), plan.power.to_dict())
    cables = [lengths.get(ln.sku, 0.0) for ln in plan.bom.lines if ln.plane == "compute" and ln.category == "cable"]
    t_us, busbw, _ = allreduce_figures(plan, size)
    return figures_of(s, plan.fabric, cables, t_us, busbw)


def test_fast_figures_equal_the_slow_reference():
    catalog = Catalog.built_in()
    spec = parse_spec(validate_flat({"gpu_count": 2048}).flat(), SPEC)
    planned = [i for i in range(spec.candidate_count) if candidate_flat(spec, i) is not None]
    picks = planned[:: max(1, len(planned) // 20)][:20]
    forget()
    rows = [evaluate_range(spec, i, i + 1, catalog)[0] for i in picks]  # one after another: the memos shared
    assert plan_mod.FLOORS.hits + plan_mod.TABLES.hits > 0  # the fast path did reuse something
    lengths = _CatalogLengths.of(catalog).length_m
    statuses = set()
    for i, row in zip(picks, rows, strict=True):
        statuses.add(row["s"])
        forget()
        try:
            slow = plan_cluster(validate_flat(candidate_flat(spec, i)), catalog, cables=True)
        except RequirementsError as exc:  # a refusal must be the same refusal
            assert row["s"] == "refused", (i, exc)
            continue
        assert row["s"] in ("feasible", "excluded"), (i, row)
        assert row["f"] == reference_figures(slow, spec.allreduce_bytes, lengths), i
        forget()
        fresh = plan_cluster(validate_flat(candidate_flat(spec, i)), catalog).result()
        again = plan_cluster(validate_flat(candidate_flat(spec, i)), catalog).result()  # every memo warm
        assert again == fresh, i
    assert "feasible" in statuses and len(rows) == 20


@pytest.mark.parametrize("n, high", [(50, 3), (2_000, 40), (300, 10**6)])  # counted, counted, sorted
def test_group_rows_counted_or_sorted_gives_np_unique_groups(n: int, high: int):
    rng = np.random.default_rng(n)
    cols = [rng.integers(0, high, n), rng.integers(0, 5, n)]
    first, inverse = build.group_rows(cols)
    key = cols[0] * 5 + cols[1]
    _, ref_first, ref_inverse = np.unique(key, return_index=True, return_inverse=True)
    assert first.tolist() == ref_first.tolist() and inverse.tolist() == ref_inverse.reshape(-1).tolist()


def test_an_equal_catalog_shares_the_remembered_bom_a_repriced_one_does_not():
    """The live form reads a new catalog object per request (bom.plan.same_catalog): an equal one is served the
    remembered BOM (the same result), a catalog with one price changed counts and prices its own."""
    forget()
    r = validate_flat({"gpu_count": 2048})
    catalog = Catalog.built_in()
    first = plan_cluster(r, catalog)
    hits = plan_mod.BOMS.hits
    assert plan_cluster(r, Catalog.built_in()).result() == first.result()
    assert plan_mod.BOMS.hits == hits + 1
    sku = first.bom.lines[0].sku
    parts = tuple(replace(p, unit_price_usd=p.unit_price_usd + 1) if p.sku == sku else p for p in catalog.parts)
    repriced = plan_cluster(r, Catalog(parts, catalog.price_book))
    assert repriced.bom.total_usd() > first.bom.total_usd()
    assert [(ln.sku, ln.quantity) for ln in repriced.bom.lines] == [(ln.sku, ln.quantity) for ln in first.bom.lines]
