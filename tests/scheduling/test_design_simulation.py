"""cluster/simulation.py and cluster/workload.py on real designs: where the workload runs, what the report
states of its inputs, the capacity search's candidates, and errors under the fields a user typed.
(Written against `make mutation` survivors: each assertion fails on one of them.)"""

from __future__ import annotations

import dataclasses
import math

import pytest

from cluster.cli import evaluate_file
from cluster.simulation import MAX_CANDIDATES, _h, candidate_sizes, check_sizes, simulate_design
from cluster.workload import batch_of, mapped
from scheduling import SchedulerInputError
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def seed():
    return evaluate_file(EXAMPLES / "seed-2000-gpu.yaml")


def test_the_batch_partition_and_its_leaf_groups_come_from_the_fabric_plan(seed):
    """The seed: 200 batch nodes (gpu001–gpu200; 50 Kubernetes nodes after them) in the rail-optimized SUs of
    32 nodes — groups 0–5 full, the seventh holds the last 8 batch nodes; one pod (2 tiers)."""
    b = batch_of(seed)
    groups, pods, pod_count = b.hierarchy
    assert (b.node_count, b.gpus, b.design_nodes, b.leaf_nodes) == (200, 1600, 250, 32)
    assert groups[0] == groups[31] == 0 and groups[32] == 1 and groups[199] == 6 and len(groups) == 200
    assert pods == (0,) * 7 and pod_count == b.pod_count == 1
    assert len(b.design_hierarchy[0]) == 250 and b.placement(pooled=True)["groups"][249] == 7
    three_tier = batch_of(evaluate_file(EXAMPLES / "fat-tree-16k-3tier.yaml"))
    assert three_tier.pod_count == 16 and len(set(three_tier.hierarchy[0])) == 512
    torus = batch_of(evaluate_file(EXAMPLES / "torus-tpu-v4-4096.yaml"))
    assert torus.hierarchy is None and torus.pod_count == 1 and torus.placement()["groups"] is None
    assert torus.leaf_nodes == 0  # no switches, no leaf groups to pack into


def test_the_report_states_its_inputs(seed):
    """Offered load as a share (85 % → 0.85), no network slowdown without all-to-all (factor 1), and with
    jobs per day the load those jobs offer: Σ λ_c E[GPU-h]_c ÷ C."""
    w = dataclasses.replace(seed.requirements.workload, days=30)
    out = simulate_design(seed, workload=w, split=False)
    i = out["inputs"]
    assert i["offered_load_frac"] == pytest.approx(0.85) and i["spread_factor_max"] == 1.0 and i["pods"] == 1
    per_day = dataclasses.replace(w, arrival="jobs_per_day", jobs_per_day=2.0)
    load = simulate_design(seed, workload=per_day, split=False)["inputs"]["offered_load_frac"]
    # 2 jobs/day split by share ÷ E[GPU-h]: Σ shares ÷ Σ (share_k ÷ E_k) × 2/24 ÷ 1,600 GPUs
    e = [768 * (2160 - 168) / math.log(2160 / 168), 160 * (336 - 24) / math.log(14),
         36 * (168 - 24) / math.log(7), 80 * (72 - 24) / math.log(3)]  # fmt: skip
    shares = [0.4, 0.3, 0.2, 0.1]
    expected = (2 / 24) / sum(s / x for s, x in zip(shares, e, strict=True)) / 1600
    assert load == pytest.approx(expected, rel=1e-9)
    from cluster.simulation import capacity_design
    from scheduling.capacity import Target

    cap = capacity_design(seed, Target("fine-tuning", 100), [1600], workload=per_day)
    assert cap["inputs"]["offered_load_frac"] == pytest.approx(expected, rel=1e-9)  # not the unused 85 %


def test_checkpoints_take_the_designs_write_window_in_hours(seed):
    """AFR 5 %: a 60 s checkpoint window (1/60 h) against MTBFs of days costs well under 5 % of the busy time
    (Daly: δ/τ with τ = √(2δM) − δ); read as 60 hours it would cost most of it."""
    w = dataclasses.replace(seed.requirements.workload, days=60, afr_pct=5.0)
    out = simulate_design(seed, workload=w, split=False)
    assert out["failures"]["checkpoint_node_h"] < 0.05 * out["busy_node_h"]


def test_capacity_candidates_and_their_limits():
    assert candidate_sizes(2000, 8) == [1200, 1600, 2000, 2400, 2800, 3200]  # 0.6–1.6 × in whole nodes
    assert candidate_sizes(8, 8) == [8, 16]
    check_sizes([8 * k for k in range(1, MAX_CANDIDATES + 1)], 8)
    for bad in ([], [8 * k for k in range(1, MAX_CANDIDATES + 2)], [12], [True], [0]):
        with pytest.raises(SchedulerInputError):
            check_sizes(bad, 8)


def test_errors_land_on_the_fields_a_user_typed():
    exc = mapped(SchedulerInputError({"classes.1.max_gpus": "too big", "horizon_h": "too long", "trace": "t"}))
    assert exc.errors == {"workload.classes": "class 2: max_gpus too big", "workload.days": "too long", "trace": "t"}
    assert mapped(SchedulerInputError({"classes": "shares"})).errors == {"workload.classes": "shares"}
    assert mapped(SchedulerInputError({"classes.x": "odd"})).errors == {"classes.x": "odd"}
    assert _h(None) == "—" and _h(1234.56) == "1,234.6 h"
