"""Fabric failures in the queue simulator (issue #37 item 2): per part class AFRs join the GPU failures.

Hand derivations are in each test; the figures of the cited defaults are re-derived from the sources' raw counts."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy.stats import poisson

from cluster.cli import evaluate_file
from cluster.simulation import default_fabric_rates, no_fabric_rates, parse_fabric_rates, simulate_design
from scheduling import SchedulerInputError
from scheduling.failures import FailureModel, PartClass, fabric_defaults, fabric_stream
from scheduling.simulator import report, simulate
from scheduling.workload import Jobs
from tests.conftest import EXAMPLES

YEAR_H = 365.25 * 24


def test_the_cited_defaults_re_derived_by_hand():
    """NIC: Llama 3 Table 5, 7 NIC interruptions in 54 days on 16,384 NICs:
    λ = 7 ÷ (16,384 × 54 ÷ 365.25) = 7 ÷ 2,422.3 = 0.0028898 /yr ⇒ AFR = 1 − e^−λ = 0.2886 % → 0.29 %.
    Optic, cable: 35 switch/cable interruptions less the ToRs' expected 1,024 × 0.051293 × 0.147844 = 7.7654
    ⇒ 27.2346 ÷ 2,422.3 node-link-years = 0.011243 /yr per link ÷ 3 parts = 0.0037478 ⇒ AFR 0.3741 % → 0.37 %.
    Leaf 5 %, spine 10 %: Gill et al. 2011 as published."""
    d = fabric_defaults()
    assert d["nic"]["afr_pct"] == 0.29 and d["optic"]["afr_pct"] == 0.37 and d["cable"]["afr_pct"] == 0.37
    assert d["leaf"]["afr_pct"] == 5.0 and d["spine"]["afr_pct"] == 10.0
    assert "7.77 expected" in d["optic"]["source"] and "0.00375/yr" in d["optic"]["source"]
    assert all(v["source"] for v in d.values())


def test_1000_leaves_at_2_pct_make_about_20_failures_a_year_within_the_poisson_interval():
    """1,000 leaves (one per group) × λ = −ln(1 − 0.02) = 0.020203 /yr × 1 yr = 20.20 expected failures.
    One seed's count lies in the Poisson 99.9 % interval [7, 37]; over 400 seeds the mean is 20.20 ± 4 σ with
    σ = √(20.20 ÷ 400) = 0.225."""
    expected = 1000 * -math.log(0.98)
    assert expected == pytest.approx(20.2027, abs=1e-4)
    counts = []
    for seed in range(400):
        m = FailureModel(afr=0.0, seed=seed, fabric=(PartClass("leaf", "group", 1, 0.02),))
        t, c, x = fabric_stream(m, node_count=1000, group_count=1000, horizon_h=YEAR_H)
        assert (np.diff(t) >= 0).all() and ((x >= 0) & (x < 1000)).all() and (c == 0).all()
        counts.append(len(t))
    lo, hi = poisson.ppf(0.0005, expected), poisson.ppf(0.9995, expected)
    assert (lo, hi) == (7, 37)
    assert lo <= counts[0] <= hi
    assert abs(np.mean(counts) - expected) < 4 * math.sqrt(expected / 400)
    again = fabric_stream(
        FailureModel(afr=0.0, seed=0, fabric=(PartClass("leaf", "group", 1, 0.02),)), 1000, 1000, YEAR_H
    )
    assert len(again[0]) == counts[0]  # seeded: the same draw


def test_per_node_and_fabric_rates_scale_with_what_they_sit_on():
    """8 NICs per node on 100 nodes at AFR 1 − e^−1 (λ = 1 /yr) over 10 years: 8 × 100 × 1 × 10 = 8,000 expected;
    32 spines at λ = 1 /yr: 320; counts within 5 σ (σ = √mean)."""
    afr = 1 - math.exp(-1)
    m = FailureModel(afr=0.0, seed=7, fabric=(PartClass("nic", "node", 8, afr), PartClass("spine", "fabric", 32, afr)))
    _, c, x = fabric_stream(m, node_count=100, group_count=5, horizon_h=10 * YEAR_H)
    nic, spine = int((c == 0).sum()), int((c == 1).sum())
    assert abs(nic - 8000) < 5 * math.sqrt(8000) and abs(spine - 320) < 5 * math.sqrt(320)
    assert (x[c == 1] == -1).all() and x[c == 0].max() < 100


def _jobs(n: int, gpus: int, hours: float) -> Jobs:
    return Jobs(np.zeros(n), np.full(n, gpus), np.full(n, hours), np.zeros(n, np.int64), np.ones(n, np.int64))


def _run_with(monkeypatch, events, fabric, jobs, node_count=4, groups=(0, 0, 1, 1)):
    """``events``: (time h, class index, target) injected as the fabric stream; no GPU failures."""
    monkeypatch.setattr("scheduling.simulator.fabric_stream", lambda *a: (
        np.array([e[0] for e in events], dtype=float), np.array([e[1] for e in events], dtype=np.int64),
        np.array([e[2] for e in events], dtype=np.int64)))  # fmt: skip
    m = FailureModel(afr=0.0, repair_h=24.0, restart_h=0.0, fabric=fabric, group_nodes=2)
    return simulate(jobs, node_count=node_count, gpus_per_node=8, horizon_h=200.0, failures=m, groups=list(groups))


def test_a_leaf_failure_interrupts_every_job_under_it_and_takes_its_nodes_out(monkeypatch):
    """4 nodes in 2 leaf groups {0, 1}, {2, 3}; three 1-node jobs and... here: job A on 2 nodes (group 0 by best
    fit), job B on 2 nodes (group 1). The leaf of group 0 fails at 10 h with a 5 h repair: A is interrupted (B is
    not), nodes 0 and 1 are out 10–15 h: 2 × 5 = 10 node-hours down; A restarts at 15 h."""
    leaf = PartClass("leaf", "group", 1, 0.5, repair_h=5.0)
    res = _run_with(monkeypatch, [(10.0, 0, 0)], (leaf,), _jobs(2, 16, 50.0))
    f = res.fabric["leaf"]
    assert f["events"] == 1 and f["jobs_interrupted"] == 1 and f["nodes_taken_out"] == 2
    assert f["down_node_h"] == pytest.approx(10.0)
    assert res.restarts.tolist() == [1, 0]
    assert res.failures["down_node_h"] == pytest.approx(10.0)
    assert res.fabric["gpu"]["events"] == 0
    rep = report(res, _jobs(2, 16, 50.0), ["a"])
    assert rep["fabric_failures"]["fabric_jobs_interrupted"] == 1 and rep["fabric_failures"]["fabric_share_frac"] == 1


def test_with_a_huge_leaf_afr_every_job_under_a_leaf_is_interrupted():
    """5,000 leaves a group at AFR 90 % (λ = −ln 0.1 = 2.3026 /yr each): a group loses a leaf 5,000 × 2.3026 ÷
    8,766 h = 1.313 times an hour, so every job (four 2-node jobs of 20 h, each inside a group) is interrupted —
    its first hour alone survives with probability e^−1.313 = 27 %, its 20 h with e^−26."""
    leaf = PartClass("leaf", "group", 5000, 0.9, repair_h=0.5)
    m = FailureModel(afr=0.0, restart_h=0.0, fabric=(leaf,), group_nodes=2, seed=3)
    jobs = _jobs(4, 16, 20.0)
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200.0, failures=m, groups=[0, 0, 1, 1])
    assert (res.restarts >= 1).all()
    assert res.fabric["leaf"]["jobs_interrupted"] >= 4


def test_a_node_part_interrupts_only_its_node_and_a_spine_interrupts_nothing(monkeypatch):
    """An optic of node 2 fails at 10 h (repair 3 h): job B (nodes 2, 3) is interrupted, node 2 is down 3 node-h,
    A runs on; a spine fails at 20 h: counted, no job stops, nothing goes down."""
    optic = PartClass("optic", "node", 2, 0.01, repair_h=3.0)
    spine = PartClass("spine", "fabric", 4, 0.1, repair_h=24.0)
    res = _run_with(monkeypatch, [(10.0, 0, 2), (20.0, 1, -1)], (optic, spine), _jobs(2, 16, 50.0))
    assert res.restarts.tolist() == [0, 1]
    assert res.fabric["optic"]["jobs_interrupted"] == 1 and res.fabric["optic"]["down_node_h"] == pytest.approx(3.0)
    assert res.fabric["spine"]["events"] == 1 and res.fabric["spine"]["jobs_interrupted"] == 0
    assert res.fabric["spine"]["down_node_h"] == 0 and res.failures["down_node_h"] == pytest.approx(3.0)


def test_a_leaf_failure_over_a_node_already_down_keeps_it_out_until_the_later_repair(monkeypatch):
    """Node 0's NIC fails at 10 h (repair 24 h → 34 h); its leaf fails at 12 h (repair 30 h → 42 h): node 0 is out
    10–42 h (24 + 8 = 32 node-h), node 1 12–42 h (30 node-h): 62 node-hours down in all, booked 24 to the NIC
    and 8 + 30 = 38 to the leaf."""
    nic = PartClass("nic", "node", 1, 0.01, repair_h=24.0)
    leaf = PartClass("leaf", "group", 1, 0.05, repair_h=30.0)
    res = _run_with(monkeypatch, [(10.0, 0, 0), (12.0, 1, 0)], (nic, leaf), _jobs(1, 8, 1.0))
    assert res.failures["down_node_h"] == pytest.approx(62.0)
    assert res.fabric["nic"]["down_node_h"] == pytest.approx(24.0)
    assert res.fabric["leaf"]["down_node_h"] == pytest.approx(38.0)
    assert sorted(res.outages) == [(10.0, 34.0, 0), (12.0, 42.0, 1), (34.0, 42.0, 0)]


def test_zero_fabric_afr_is_the_gpu_only_result_exactly():
    """The GPU stream is drawn from its own generator: fabric classes at AFR 0 change nothing — every start, end,
    restart and node-hour book is the same as without them."""
    rng = np.random.default_rng(5)
    n = 300
    jobs = Jobs(np.sort(rng.uniform(0, 2000, n)), rng.choice([8, 16, 32, 64], n), rng.uniform(1, 100, n),
                np.zeros(n, np.int64), rng.integers(0, 3, n))  # fmt: skip
    kw = {"node_count": 32, "gpus_per_node": 8, "horizon_h": 3000.0, "groups": [x // 8 for x in range(32)]}
    base = simulate(jobs, failures=FailureModel(afr=0.3, seed=5), **kw)
    zeros = tuple(PartClass(k, per, 2, 0.0) for k, per in (("leaf", "group"), ("nic", "node"), ("spine", "fabric")))
    same = simulate(jobs, failures=FailureModel(afr=0.3, seed=5, fabric=zeros, group_nodes=8), **kw)
    assert np.array_equal(base.start_h, same.start_h, equal_nan=True)
    assert np.array_equal(base.end_h, same.end_h, equal_nan=True)
    assert base.failures == same.failures and base.restarts.tolist() == same.restarts.tolist()
    assert base.failures["failures"] > 0  # GPU failures did happen
    # with fabric failures on, the result differs (the test can fail)
    on = tuple(dataclasses.replace(p, afr=0.5) for p in zeros)
    moved = simulate(jobs, failures=FailureModel(afr=0.3, seed=5, fabric=on, group_nodes=8), **kw)
    assert moved.failures["down_node_h"] > base.failures["down_node_h"]


def test_the_checkpoint_interval_counts_the_fabric_rate():
    """A 4-node job, 8 GPUs a node, groups of 2: λ = 4 × (8 λ_gpu + 2 λ_nic) + ⌈4 ÷ 2⌉ × λ_leaf with λ = −ln(1 − AFR)
    ÷ 8,766 h; τ = √(2 δ M) − δ, M = 1 ÷ λ."""
    lam = lambda afr: -math.log1p(-afr) / YEAR_H  # noqa: E731
    m = FailureModel(afr=0.02, checkpoint_write_h=0.1, group_nodes=2,
                     fabric=(PartClass("nic", "node", 2, 0.01), PartClass("leaf", "group", 1, 0.05)))  # fmt: skip
    rate = 4 * (8 * lam(0.02) + 2 * lam(0.01)) + 2 * lam(0.05)
    assert m.job_rate_per_h(4, 8) == pytest.approx(rate, rel=1e-12)
    assert m.interval_h(4, 8) == pytest.approx(math.sqrt(2 * 0.1 / rate) - 0.1, rel=1e-12)
    assert FailureModel(afr=0.02, checkpoint_write_h=0.1).interval_h(4, 8) > m.interval_h(4, 8)


@pytest.mark.parametrize(
    "raw, key, text",
    [
        ({"leaf": -1}, "fabric.leaf.afr_pct", "got -1"),
        ({"leaf": 100}, "fabric.leaf.afr_pct", "below 100"),
        ({"spine": 150.0}, "fabric.spine.afr_pct", "got 150.0"),
        ({"nic": float("nan")}, "fabric.nic.afr_pct", "got nan"),
        ({"optic": "2"}, "fabric.optic.afr_pct", "got '2'"),
        ({"cable": {"repair_h": -3}}, "fabric.cable.repair_h", "got -3"),
        ({"cable": {"mttr": 3}}, "fabric.cable.mttr", "unknown field"),
        ({"switch": 1}, "fabric.switch", "unknown part kind"),
        ("on", "fabric", "a mapping"),
    ],
)
def test_bad_fabric_rates_are_refused_on_their_field(raw, key, text):
    with pytest.raises(SchedulerInputError) as exc:
        parse_fabric_rates(raw, 24.0)
    assert key in exc.value.errors and text in exc.value.errors[key]


def test_fabric_rates_keep_the_defaults_of_the_kinds_not_given():
    got = parse_fabric_rates({"leaf": 2, "nic": {"repair_h": 4}}, 12.0)
    assert got["leaf"] == {"afr_pct": 2.0, "repair_h": 12.0} and got["nic"] == {"afr_pct": 0.29, "repair_h": 4.0}
    assert got["spine"]["afr_pct"] == 10.0 and parse_fabric_rates(None, 12.0) == default_fabric_rates(12.0)


@pytest.fixture(scope="module")
def seed_plan():
    return evaluate_file(EXAMPLES / "seed-2000-gpu.yaml")


def test_the_seed_design_with_zero_fabric_afrs_is_its_gpu_only_report(seed_plan):
    w = dataclasses.replace(seed_plan.requirements.workload, days=60, afr_pct=3.0)
    gpu = simulate_design(seed_plan, workload=w, split=False)
    zero = simulate_design(seed_plan, workload=w, split=False, fabric=no_fabric_rates(24.0))
    assert zero["inputs"].pop("fabric") is not None and gpu["inputs"].pop("fabric", None) is None
    assert json.dumps(gpu, sort_keys=True, default=str) == json.dumps(zero, sort_keys=True, default=str)


def test_the_seed_designs_part_counts_and_the_fabric_share(seed_plan):
    """Seed: 250 nodes, 64 leaves in 8 groups (scalable units of 32 nodes × 8 rails) = 8 leaves per group; the
    batch partition's 200 nodes lie in 7 groups: 56 leaves simulated. 2,000 NICs ÷ 250 = 8 a node; 1,840 optical
    node links × 2 ÷ 250 = 14.72 optics a node (160 node links are active copper); 2,000 cables ÷ 250 = 8.
    32 spines; 2,048 leaf–spine links: 4,096 uplink optics, 2,048 uplink cables (bandwidth only).
    Expected leaf failures in 60 days: 56 × −ln 0.95 × 60 ÷ 365.25 = 56 × 0.051293 × 0.164271 = 0.4718."""
    w = dataclasses.replace(seed_plan.requirements.workload, days=60)
    out = simulate_design(seed_plan, workload=w, split=False, fabric=default_fabric_rates(24.0))
    rows = {r["name"]: r for r in out["inputs"]["fabric"]}
    assert rows["leaf"]["count"] == 8 and rows["leaf"]["parts_simulated"] == 56
    assert rows["nic"]["count"] == 8 and rows["optic"]["count"] == pytest.approx(14.72)
    assert rows["cable"]["count"] == 8 and rows["spine"]["count"] == 32
    assert rows["uplink optic"]["count"] == 4096 and rows["uplink cable"]["count"] == 2048
    assert rows["leaf"]["failures_expected"] == pytest.approx(56 * -math.log(0.95) * 60 / 365.25)
    f = out["fabric_failures"]
    causes = {c["cause"]: c for c in f["causes"]}
    assert set(causes) == {"gpu", "leaf", "spine", "nic", "optic", "cable", "uplink optic", "uplink cable"}
    assert causes["spine"]["jobs_interrupted"] == 0 and causes["uplink optic"]["down_node_h"] == 0
    assert f["fabric_cost_node_h"] == pytest.approx(sum(c["cost_node_h"] for n, c in causes.items() if n != "gpu"))
    assert 0 <= f["fabric_share_frac"] <= 1 and "bandwidth only" in f["derivation"]
    books = out["busy_node_h"] + out["idle_node_h"] + out["down_node_h"]
    assert books == pytest.approx(out["capacity_node_h"])
