"""The design search (cluster/search.py, cluster/pareto.py): hand-derived answers, empty fronts, the Pareto
property, spec refusals on their fields, and a candidate re-planned on its own giving the same figures."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bom.parts import PartKind
from bom.plan import Catalog
from cluster.pareto import dominates, pareto_front
from cluster.pipeline import plan_cluster
from cluster.search import (
    MAX_CANDIDATES,
    SearchSpecError,
    candidate_flat,
    parse_spec,
    plan_figures,
    run_search,
)
from cluster.validate import validate_flat

CATALOG = Catalog.built_in()
PART = {p.sku: p for p in CATALOG.parts}


def base_flat(gpus: int) -> dict:
    return validate_flat({"gpu_count": gpus, "switch_model": "QM9700"}).flat()


def row_of(rows: list[dict], spec, **combo) -> dict:
    """The row of the candidate whose varied values include ``combo`` (and is not a duplicate)."""
    hits = [r for r in rows if r["s"] != "duplicate" and combo.items() <= spec.combo(r["i"]).items()]
    assert len(hits) == 1, hits
    return hits[0]


def clos_switches(endpoints: int, k: int) -> tuple[int, ...]:
    """The non-blocking folded Clos rule (Al-Fares et al., SIGCOMM 2008, with a k-port switch): a leaf has k/2
    ports down and k/2 up; 2 tiers hold at most k × k/2 endpoints (k leaves under k/2 spines of k ports); beyond
    that a pod is k/2 leaves under k/2 spines (k/2 × k/2 endpoints) and the cores take every spine's k/2 uplinks."""
    half = k // 2
    leaves = -(-endpoints // half)
    if endpoints <= k * half:
        return leaves, -(-leaves * half // k)
    pods = -(-endpoints // (half * half))
    spines = pods * half
    return leaves, spines, spines * half // k


def switch_usd(row_plan) -> Decimal:
    return sum(
        (
            ln.unit_price_usd * ln.quantity
            for ln in row_plan.bom.lines
            if ln.plane == "compute" and ln.kind == PartKind.SWITCH
        ),
        Decimal(0),
    )


def test_4096_gpus_two_rail_groups_beat_shared_spines_and_the_fat_tree_by_hand():
    """4,096 H100 GPUs (512 nodes × 8 NICs = 4,096 endpoints), QM9700 (64 × 400G), 1:1.

    Hand rule (clos_switches, k = 64): 2 tiers hold 64 × 32 = 2,048 endpoints.
    - rail-optimized, 2 rail groups: 4 rails × 512 = 2,048 endpoints a group → 2 tiers: 64 leaves + 32 spines
      a group, 192 switches; links 4,096 node + 2 × 64 × 32 = 4,096 leaf–spine = 8,192;
    - rail-optimized, shared spines (1 group): 4,096 > 2,048 → 3 tiers: 128 leaves, 4 pods × 32 = 128 spines,
      128 × 32 ÷ 64 = 64 cores = 320 switches, 4,096 + 4,096 + 4,096 = 12,288 links;
    - fat-tree, 2 tiers: refused on gpu_count (4,096 > 2,048); 3 tiers: the same 320 switches as shared spines.
    Cheapest: the 2-group rail design: 128 fewer QM9700s (128 × the catalog's $65,000 = $8.32M) and 4,096 fewer
    switch-to-switch links (each ≥ 2 transceivers); the node-side links are 4,096 in each (their media by reach
    may differ by cable length, which the assertion on the network gap would catch)."""
    spec = parse_spec(
        base_flat(4096),
        {"vary": {"topology": ["rail_optimized", "fat_tree"], "rail_groups": [1, 2], "tiers": [2, 3]}},
    )
    report, rows = run_search(spec, CATALOG)
    price = PART["QM9700"].unit_price_usd
    g2 = row_of(rows, spec, topology="rail_optimized", rail_groups=2, tiers=2)
    g1 = row_of(rows, spec, topology="rail_optimized", rail_groups=1, tiers=3)
    ft2 = row_of(rows, spec, topology="fat_tree", tiers=2, rail_groups=1)
    ft3 = row_of(rows, spec, topology="fat_tree", tiers=3, rail_groups=1)
    assert 2 * sum(clos_switches(2048, 64)) == 192 == g2["f"]["compute_switch_count"]
    assert sum(clos_switches(4096, 64)) == 320 == g1["f"]["compute_switch_count"] == ft3["f"]["compute_switch_count"]
    assert (g2["f"]["compute_link_count"], g1["f"]["compute_link_count"]) == (8192, 12288)
    assert ft2["s"] == "refused" and "gpu_count" in ft2["why"]
    assert row_of(rows, spec, topology="rail_optimized", rail_groups=1, tiers=2)["s"] == "refused"
    # the switch lines are the hand counts at the catalog's price
    for row, count in ((g2, 192), (g1, 320), (ft3, 320)):
        assert switch_usd(plan_cluster(validate_flat(candidate_flat(spec, row["i"])), CATALOG)) == count * price
    assert report["best"]["i"] == g2["i"] and report["best"]["decided_by"] == "capex_usd"
    # 128 fewer switches and 4,096 fewer links: the network gap is at least the switches' (links cost ≥ 0)
    gap = Decimal(g1["f"]["network_usd"]) - Decimal(g2["f"]["network_usd"])
    assert gap >= 128 * price
    assert report["refusals"]["field:gpu_count"]["count"] == 2  # fat-tree and shared-spine rails at 2 tiers
    assert report["counts"] == {"feasible": 4, "excluded": 0, "refused": 2, "duplicate": 2}  # + 2 groups at 3 tiers


def test_2048_gpus_1to1_three_families_tie_on_switches_and_cabling_decides():
    """The issue's case: 2,048 GPUs = 2,048 endpoints = exactly 2 tiers of k = 64 (64 × 32): every family buys
    64 leaves + 32 spines = 96 QM9700 ($6.24M); shared spines, 2 rail groups and the 2-tier fat-tree differ
    only in their cables and optics, so the cheapest is the one whose network BOM is cheapest."""
    spec = parse_spec(
        base_flat(2048),
        {"vary": {"topology": ["rail_optimized", "fat_tree"], "rail_groups": [1, 2], "tiers": [2]}},
    )
    report, rows = run_search(spec, CATALOG)
    live = [r for r in rows if r["s"] == "feasible"]
    assert len(live) == 3
    assert clos_switches(2048, 64) == (64, 32)
    assert {r["f"]["compute_switch_count"] for r in live} == {96}
    cheapest = min(live, key=lambda r: (Decimal(r["f"]["network_usd"]), r["i"]))
    assert report["best"]["i"] == cheapest["i"]
    # same switches, GPUs, storage and power rule: the CapEx gap is the network BOM's gap and what it draws
    assert all(Decimal(r["f"]["capex_usd"]) >= Decimal(cheapest["f"]["capex_usd"]) for r in live)


def test_constraints_excluding_everything_give_an_empty_front_with_reasons_counted():
    spec = parse_spec(
        base_flat(2048),
        {
            "vary": {"topology": ["rail_optimized", "fat_tree", "dragonfly_plus"], "oversubscription": [1, 2]},
            "constraints": {"max_capex_usd": 1000, "min_bisection_tbyte_s": 10_000},
        },
    )
    report, _ = run_search(spec, CATALOG)
    assert report["counts"]["feasible"] == 0
    assert report["fronts"] == {"cost_bisection_power": [], "cost_allreduce": []}
    assert report["ranking"] == [] and report["best"] is None
    planned = report["counts"]["excluded"]
    assert planned == 6 - report["counts"]["refused"] - report["counts"]["duplicate"] > 0
    assert report["refusals"]["constraint:max_capex_usd"]["count"] == planned
    assert report["refusals"]["constraint:min_bisection_tbyte_s"]["count"] == planned
    assert "capex_usd" in report["refusals"]["constraint:max_capex_usd"]["example"]


def test_an_axis_that_does_not_apply_to_a_family_is_planned_once():
    spec = parse_spec(base_flat(2048), {"vary": {"topology": ["fat_tree", "dragonfly_plus"], "rail_groups": [1, 2, 4]}})
    flats = [candidate_flat(spec, i) for i in range(spec.candidate_count)]
    assert sum(f is None for f in flats) == 4  # rail groups 2 and 4 on both non-rail families
    assert all(f["rail_groups"] == spec.base["rail_groups"] for f in flats if f is not None)


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        ({"vary": {"gpu_count": [1, 2]}}, "vary.gpu_count", "cannot vary"),
        ({"vary": {"topology": ["ring"]}}, "vary.topology", "ring"),
        ({"vary": {"rail_groups": []}}, "vary.rail_groups", "non-empty"),
        ({"vary": {"oversubscription": [0.5]}}, "vary.oversubscription", "0.5"),
        ({"constraints": {"max_capex_usd": "lots"}}, "constraints.max_capex_usd", "finite number"),
        ({"constraints": {"max_price": 1}}, "constraints.max_price", "unknown constraint"),
        ({"objectives": ["speed"]}, "objectives", "unknown objective"),
        ({"allreduce_bytes": "big"}, "allreduce_bytes", "message size"),
        ({"vary": {}, "colour": 1}, "colour", "unknown key"),
    ],
)
def test_a_bad_spec_is_refused_on_its_field(raw, field, words):
    with pytest.raises(SearchSpecError) as exc:
        parse_spec(base_flat(2048), raw)
    assert field in exc.value.errors and words in " ".join(exc.value.errors[field])


def test_the_candidate_count_is_refused_above_the_limit_before_any_work():
    vary = {
        "oversubscription": list(range(1, 41)),
        "rail_groups": [1, 2, 4, 8],
        "tiers": [2, 3],
        "bom_media": ["by_reach", "all_optics"],
        "cooling_type": ["air", "air_containment", "direct_to_chip", "immersion"],
        "nic_planes": [1, 2],
        "agg_oversubscription": [1, 2],
        "topology": ["rail_optimized", "fat_tree"],
    }  # 40 × 4 × 2 × 2 × 4 × 2 × 2 × 2 = 20,480
    with pytest.raises(SearchSpecError) as exc:
        parse_spec(base_flat(2048), {"vary": vary})
    assert "20,480 candidates" in exc.value.errors["vary"][0] and f"{MAX_CANDIDATES:,}" in exc.value.errors["vary"][0]
    vary["oversubscription"] = vary["oversubscription"][:39]  # 19,968: accepted
    assert parse_spec(base_flat(2048), {"vary": vary}).candidate_count == 19_968


def test_a_candidate_replanned_on_its_own_gives_its_figures_exactly():
    spec = parse_spec(
        base_flat(2048), {"vary": {"topology": ["fat_tree", "dragonfly_plus"], "oversubscription": [1, 3]}}
    )
    _, rows = run_search(spec, CATALOG)
    lengths = {p.sku: float(p.length_m) for p in CATALOG.parts}
    for row in rows:
        if row["s"] != "feasible":
            continue
        plan = plan_cluster(validate_flat(candidate_flat(spec, row["i"])), CATALOG)
        assert plan_figures(plan, spec.allreduce_bytes, lengths) == row["f"]
        summary = plan.result()["summary"]  # what a saved revision stores
        assert str(summary["capex_usd"]) == row["f"]["capex_usd"] and str(summary["tco_usd"]) == row["f"]["tco_usd"]
        assert summary["facility_kw"] == row["f"]["facility_kw"]


points = st.lists(st.tuples(*(st.integers(0, 20) for _ in range(3))), min_size=0, max_size=60)
senses = st.tuples(*(st.sampled_from(["min", "max"]) for _ in range(3)))


@settings(max_examples=200, deadline=None)
@given(points, senses)
def test_the_front_holds_every_non_dominated_point_and_no_dominated_one(pts, sns):
    front = pareto_front(pts, sns)
    on = set(front)
    for i in front:
        assert not any(dominates(pts[j], pts[i], sns) for j in range(len(pts)))
    for i in set(range(len(pts))) - on:
        assert any(dominates(pts[j], pts[i], sns) for j in front)


def test_a_real_search_front_is_not_dominated_by_any_feasible_candidate():
    spec = parse_spec(
        base_flat(2048),
        {"vary": {"topology": ["rail_optimized", "fat_tree", "dragonfly_plus"], "oversubscription": [1, 2, 3]}},
    )
    report, rows = run_search(spec, CATALOG)
    live = [r for r in rows if r["s"] == "feasible"]
    axes = (("capex_usd", "min"), ("bisection_tbyte_s", "max"), ("facility_kw", "min"))
    vec = {r["i"]: [float(r["f"][k]) for k, _ in axes] for r in live}
    front = report["fronts"]["cost_bisection_power"]
    assert front
    for i in front:
        assert not any(dominates(vec[j], vec[i], [s for _, s in axes]) for j in vec)


def test_a_workload_target_is_checked_on_the_finalists_with_the_simulators_own_figure():
    from cluster.simulation import simulate_design

    raw = {"vary": {"topology": ["rail_optimized", "fat_tree"], "oversubscription": [1, 2]}}
    base = base_flat(2048)
    first = parse_spec(
        base, {**raw, "workload_target": {"job_class": "pretraining", "p95_wait_h": 1e6, "finalists": 2}}
    )
    report, _ = run_search(first, CATALOG)
    simulated = report["workload_target"]["finalists"]
    assert set(r["i"] for r in report["ranking"][:2]) <= set(simulated)
    for row in report["ranking"]:
        if row["i"] not in simulated:
            assert "p95_wait_h" not in row  # not a finalist: not claimed
            continue
        own = simulate_design(plan_cluster(validate_flat(candidate_flat(first, row["i"])), CATALOG), split=False)
        p95 = next(c["wait_h_p95"] for c in own["classes"] if c["name"] == "pretraining")
        assert row["p95_wait_h"] == p95 and row["meets_workload"]
    assert report["best"]["i"] == report["ranking"][0]["i"]
    # a target below every finalist's wait: none meets it, counted, and no best is named
    lowest = min(r["p95_wait_h"] for r in report["ranking"] if r["i"] in simulated)
    strict = parse_spec(base, {**raw, "workload_target": {"job_class": "pretraining", "p95_wait_h": lowest / 2}})
    report, _ = run_search(strict, CATALOG)
    assert report["best"] is None
    assert report["refusals"]["workload:p95_wait_h"]["count"] == len(report["workload_target"]["finalists"])


@pytest.mark.parametrize(
    ("target", "field"),
    [
        ({"job_class": "chess", "p95_wait_h": 1}, "workload_target.job_class"),
        ({"job_class": "pretraining", "p95_wait_h": -1}, "workload_target.p95_wait_h"),
        ({"job_class": "pretraining", "p95_wait_h": 1, "finalists": 99}, "workload_target.finalists"),
        ("soon", "workload_target"),
    ],
)
def test_a_bad_workload_target_is_refused_on_its_field(target, field):
    with pytest.raises(SearchSpecError) as exc:
        parse_spec(base_flat(2048), {"workload_target": target})
    assert field in exc.value.errors
