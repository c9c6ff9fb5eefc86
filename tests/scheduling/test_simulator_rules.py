"""The simulator's parts by hand (scheduling/simulator.py): the free-node pool, the timeline bins, EASY backfill at
the shadow time, the preemption victim, progress reports and the report's percentiles and texts."""

from __future__ import annotations

import numpy as np
import pytest

from scheduling.failures import FailureModel
from scheduling.reference import reference_starts
from scheduling.simulator import PROGRESS_EVERY, _Pool, _Timeline, report, simulate
from scheduling.workload import Jobs


def _jobs(submit, gpus, hours, priority=None) -> Jobs:
    n = len(submit)
    prio = np.ones(n, dtype=np.int64) if priority is None else np.array(priority, dtype=np.int64)
    return Jobs(np.array(submit, float), np.array(gpus), np.array(hours, float), np.zeros(n, dtype=np.int64), prio)


# --- the pool ------------------------------------------------------------------------------------------------------


def test_pool_groups_of_consecutive_nodes_best_fit():
    """8 nodes in leaf groups of 4: {0–3}, {4–7}. take(3): both groups fit, the tie goes to group 0 → 0, 1, 2
    (group 0 keeps 1 free). take(2): only group 1 fits → 4, 5. take(2): group 1 (2 free) → 6, 7."""
    pool = _Pool(8, 4)
    assert pool.group_of == [0, 0, 0, 0, 1, 1, 1, 1] and pool.pod_free == [8]
    assert pool.take(3) == [0, 1, 2] and pool.count == [1, 4]
    assert pool.take(2) == [4, 5] and pool.take(2) == [6, 7]
    assert (pool.count, pool.pod_free, pool.free_count) == ([1, 0], [1], 1)
    assert _Pool(8, 0).group_of == [0] * 8  # no leaf size: one group of every node
    # groups of 3 with 2 and 3 free: a 2-node job takes the group it fills exactly (best fit), not the fuller one
    exact = _Pool(6, 3)
    assert exact.take(1) == [0] and exact.take(2) == [1, 2]


def test_pool_prefers_the_fullest_pod_that_holds_a_job():
    """8 nodes: groups of 2, pods {g0, g1} and {g2, g3}. take(1) → node 0 (group 0 best fits): pods hold 3 and 4
    free. take(3) fits no group; both pods hold 3 nodes, the fewest-free pod (pod 0, 3) wins, its fullest group
    first: group 1 (nodes 2, 3), then group 0 (node 1). Pods then hold 0 and 4."""
    pool = _Pool(8, 2, pods=[0, 0, 1, 1])
    assert pool.take(1) == [0] and pool.pod_free == [3, 4]
    assert pool.take(3) == [2, 3, 1] and pool.pod_free == [0, 4]
    assert pool.spans([2, 3, 1]) == (True, False)


def test_pool_spans_pods_when_no_pod_holds_the_job():
    """Pods {g0, g1}, {g2, g3} of 2-node groups, node 0 taken: pods hold 3 and 4. take(5): no pod holds 5, so
    the fullest groups of the whole fabric go first: groups 1, 2, 3 (2 each, lowest first) → 2, 3, 4, 5, 6."""
    pool = _Pool(8, 2, pods=[0, 0, 1, 1])
    pool.take(1)
    assert pool.take(5) == [2, 3, 4, 5, 6] and pool.pod_free == [1, 1]
    assert pool.spans([2, 3, 4, 5, 6]) == (True, True)


def test_pool_remove_and_give_keep_the_books():
    """A failed idle node leaves its group and pod; giving it back restores both."""
    pool = _Pool(8, 2, pods=[0, 0, 1, 1])
    pool.remove(5)
    assert (pool.count, pool.pod_free, pool.free_count) == ([2, 2, 1, 2], [4, 3], 7)
    pool.give([5])
    assert (pool.count, pool.pod_free, pool.free_count) == ([2, 2, 2, 2], [4, 4], 8)


# --- the timeline --------------------------------------------------------------------------------------------------


def test_timeline_splits_a_stretch_over_its_bins():
    """4 bins of 2 h over 8 h (the timeline takes whole seconds). 3 busy, 1 queued, 5 down, 2 held from t = 1 to
    5 h: bin 0 gets 1 h of it, bin 1 2 h, bin 2 1 h; averaged over a bin: busy 1.5, 3, 1.5, 0. A stretch past the
    horizon (7 to 10) fills bin 3's last hour only; an empty stretch adds nothing."""
    h = 3600
    tl = _Timeline(4, 8 * h)
    tl.add(1 * h, 5 * h, 3, 1, 5, 2)
    tl.add(7 * h, 10 * h, 4, 0, 0, 0)
    tl.add(6 * h, 6 * h, 100, 100, 100, 100)
    assert tl.to_dict() == {
        "bin_h": 2.0,
        "busy_nodes": [1.5, 3.0, 1.5, 2.0],
        "queued_jobs": [0.5, 1.0, 0.5, 0.0],
        "down_nodes": [2.5, 5.0, 2.5, 0.0],
        "inference_nodes": [1.0, 2.0, 1.0, 0.0],
    }


# --- EASY backfill at the shadow time ------------------------------------------------------------------------------


def test_a_backfill_ending_at_the_shadow_time_leaves_the_spare_node():
    """5 nodes. t=0: A takes 3 for 10 h. t=1: B (4 nodes) heads the queue: at its shadow time t=10 A's 3 nodes
    join the 2 free = 5, one spare. t=2: C (1 node, 8 h, ends at 10 = the shadow) and D (1 node, 20 h) arrive
    together. C ends by the shadow, so it starts without using the spare node; D runs past the shadow and takes
    the spare one: both start at 2. At 10, A and C end: 4 free for B. Had C been charged to the spare node, D
    would have waited for B (start 10)."""
    jobs = _jobs([0, 1, 2, 2], [24, 32, 8, 8], [10, 5, 8, 20])
    res = simulate(jobs, node_count=5, gpus_per_node=8, horizon_h=100)
    assert res.start_h.tolist() == [0.0, 10.0, 2.0, 2.0]
    assert reference_starts([0, 1, 2, 2], [3, 4, 1, 1], [10, 5, 8, 20], [1] * 4, node_count=5, horizon_h=100,
                            policy="easy") == [0.0, 10.0, 2.0, 2.0]  # fmt: skip
    # on 4 nodes there is no spare node at the shadow time: C still starts at 2, as it is done by t=10
    three = simulate(_jobs([0, 1, 2], [24, 32, 8], [10, 5, 8]), node_count=4, gpus_per_node=8, horizon_h=100)
    assert three.start_h.tolist() == [0.0, 10.0, 2.0]


# --- preemption ----------------------------------------------------------------------------------------------------


def test_preemption_requeues_the_most_recently_started_lower_job():
    """4 nodes. X (t=0) and Y (t=1) run 2 nodes each for 100 h (queued class); Z (critical, t=2, 2 nodes, 3 h)
    preempts the one started last, Y, runs 2 → 5, and Y restarts at 5 after its 0.25 h restart with 99 h of work
    left (it checkpointed on the signal): it ends at 5 + 0.25 + 99 = 104.25."""
    jobs = _jobs([0, 1, 2], [16, 16, 16], [100, 100, 3], priority=[1, 1, 2])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200, preempt=True)
    assert res.start_h.tolist() == [0.0, 1.0, 2.0]
    assert res.end_h.tolist() == [100.0, pytest.approx(104.25), 5.0]
    assert res.preempted.tolist() == [0, 1, 0]


# --- progress ------------------------------------------------------------------------------------------------------


def test_progress_is_reported_every_few_thousand_turns():
    """n single-node jobs arriving one by one make about 2n loop turns (an arrival, an end): one report per
    PROGRESS_EVERY turns, each a fraction of the horizon, never decreasing."""
    n = 3 * PROGRESS_EVERY
    jobs = _jobs(np.arange(n) * 0.5, [8] * n, [0.25] * n)
    seen: list[float] = []
    simulate(jobs, node_count=1, gpus_per_node=8, horizon_h=n, progress=seen.append)
    assert 4 <= len(seen) <= 2 * n // PROGRESS_EVERY + 1
    assert seen == sorted(seen) and seen[0] >= 0 and seen[-1] < 1


# --- the report ----------------------------------------------------------------------------------------------------


def test_report_wait_percentiles_by_hand():
    """One node, FIFO: P (t=0, 1 h), Q (t=0.5, 9 h), R (t=0.5, 1 h) run 0–1, 1–10, 10–11: waits 0, 0.5, 9.5.
    numpy's linear percentiles: p50 = 0.5; p95 at rank 0.95 × 2 = 1.9 → 0.5 + 0.9 × 9 = 8.6; p99 → 0.5 + 0.98 × 9
    = 9.32; mean 10/3. Stretch (end − submit) ÷ hours: 1, 9.5/9, 10.5; p95 = 9.5/9 + 0.9 × (10.5 − 9.5/9)."""
    jobs = _jobs([0, 0.5, 0.5], [8, 8, 8], [1, 9, 1])
    res = simulate(jobs, node_count=1, gpus_per_node=8, horizon_h=100, policy="fifo")
    row = report(res, jobs, ["all"])["classes"][0]
    assert (row["wait_h_p50"], row["wait_h_p95"], row["wait_h_p99"]) == (0.5, pytest.approx(8.6), pytest.approx(9.32))
    assert row["wait_h_mean"] == pytest.approx(10 / 3) and row["one_group_frac"] is None  # no multi-node job
    assert row["stretch_p95"] == pytest.approx(9.5 / 9 + 0.9 * (10.5 - 9.5 / 9))


def test_report_one_group_share_counts_two_node_jobs():
    """Leaf groups of 2 on 4 nodes: a 2-node job best-fits one group; a second 2-node job the other: both in one
    group, share 1.0 (two-node jobs are multi-node)."""
    jobs = _jobs([0, 0], [16, 16], [1, 1])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=10, leaf_nodes=2)
    assert report(res, jobs, ["all"])["classes"][0]["one_group_frac"] == 1.0


def test_report_of_a_window_nobody_arrived_in():
    """A job submitted after the horizon: no arrivals, no busy hours — zeros, and a 0.0 % share in the text."""
    jobs = _jobs([50], [8], [1])
    rep = report(simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=10), jobs, ["all"])
    assert rep["little"]["wait_h_mean"] == 0.0 and rep["utilization_frac"] == 0.0
    assert rep["derivations"]["spine_gpu_h"].startswith("0 of 0 busy node-hours (0.0%) ran on jobs spanning")


def test_without_leaf_groups_nothing_crosses_the_spine():
    """No groups given: the nodes are one group, so a 4-node job spans nothing (no spine or core node-hours)."""
    jobs = _jobs([0], [32], [2])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=10)
    assert (res.spine_node_h, res.core_node_h) == (0.0, 0.0)


def test_a_job_running_at_the_horizon_loses_nothing():
    """AFR 10⁻⁹ on 2 nodes × 8 GPUs for 10 h: no failure happens (expected 2 × 10⁻¹⁴), yet checkpoints are
    planned (τ finite). A 2-node, 100-hour job cut by the 10-hour window has done 10 h of work, all of it
    productive at the horizon — only a failure loses work since the last checkpoint."""
    jobs = _jobs([0], [16], [100])
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=10, failures=FailureModel(afr=1e-9))
    assert res.failures["failures"] == 0 and res.failures["lost_node_h"] == 0.0
    assert res.failures["productive_node_h"] + res.failures["checkpoint_node_h"] == pytest.approx(20.0)


def test_two_backfills_share_one_spare_node():
    """6 nodes. A takes 3 for 10 h; B (5 nodes) heads the queue: at t=10 6 are free, one spare. At t=2 come C
    (1 node, 8 h: done by 10), D and E (1 node, 20 h each: past 10). C starts without the spare; D takes it; E
    would need a second spare node and waits: B starts at 10 with A's and C's nodes, E when B ends at 15."""
    submit, nodes, hours = [0, 1, 2, 2, 2], [3, 5, 1, 1, 1], [10, 5, 8, 20, 20]
    res = simulate(_jobs(submit, [8 * k for k in nodes], hours), node_count=6, gpus_per_node=8, horizon_h=100)
    assert res.start_h.tolist() == [0.0, 10.0, 2.0, 2.0, 15.0]
    assert reference_starts(submit, nodes, hours, [1] * 5, node_count=6, horizon_h=100, policy="easy") == [
        0.0, 10.0, 2.0, 2.0, 15.0,
    ]  # fmt: skip


def test_plain_runs_have_no_failure_books_or_timeline():
    """Without failures, preemption, spread or tides nothing is booked; without bins no timeline."""
    res = simulate(_jobs([0], [8], [1]), node_count=1, gpus_per_node=8, horizon_h=10)
    assert (res.failures, res.outages, res.timeline) == (None, None, None)


def test_each_outage_lasts_the_repair_time():
    """AFR 90 % on 64 nodes × 8 GPUs for 1,000 h: 512 × ln 10 ÷ 8,766 × 1,000 ≈ 134 failures (a few on a node
    already down); each node is back 24 h (repair_h) after it went down."""
    res = simulate(_jobs([0], [8], [1]), node_count=64, gpus_per_node=8, horizon_h=1000,
                   failures=FailureModel(afr=0.9, repair_h=24.0))  # fmt: skip
    assert len(res.outages) > 100
    assert all(back - down == pytest.approx(24.0) for down, back, _ in res.outages)


def test_a_job_submitted_at_the_horizon_is_outside_the_window():
    """The window is [0, horizon): a job submitted at t = 10 of a 10-hour run has not arrived and never starts."""
    jobs = _jobs([0, 10], [8, 8], [1, 1])
    res = simulate(jobs, node_count=1, gpus_per_node=8, horizon_h=10)
    assert np.isnan(res.start_h[1]) and res.allocations is None and res.segments is None
    assert report(res, jobs, ["all"])["little"]["arrival_rate_per_h"] == pytest.approx(0.1)  # 1 job in 10 h


def test_cross_pod_books_and_texts_by_hand():
    """8 nodes, groups of 2 in pods {g0, g1}, {g2, g3}; one 5-node job for 2 h: no pod holds 5, so it spans both
    pods — 10 node-hours through the spine and the core (80 GPU-hours each), all 10 busy node-hours."""
    jobs = _jobs([0], [40], [2])
    res = simulate(
        jobs, node_count=8, gpus_per_node=8, horizon_h=10, groups=[0, 0, 1, 1, 2, 2, 3, 3], pods=[0, 0, 1, 1]
    )
    rep = report(res, jobs, ["all"])
    assert (rep["spine_gpu_h"], rep["core_gpu_h"]) == (pytest.approx(80.0), pytest.approx(80.0))
    assert rep["derivations"]["spine_gpu_h"] == (
        "10 of 10 busy node-hours (100.0%) ran on jobs spanning leaf groups (their traffic crosses the spine), "
        "10 on jobs spanning pods (it crosses the core)"
    )
    assert rep["classes"][0]["one_pod_frac"] == 0.0


def test_fragmentation_and_little_texts_by_hand():
    """4 nodes for 30 h. A takes 3 for 10 h at t=0; B (4 nodes, 5 h) waits from 1 to 10 beside 1 idle node: 9 idle
    node-hours × 8 GPUs = 72 GPU-h, 9 ÷ 120 node-hours = 7.5 % of the capacity. L = ∫ queue dt ÷ T = 9 ÷ 30 = 0.3;
    λ = 2 jobs ÷ 30 h, W = (0 + 9) ÷ 2 = 4.5 h: λW = 0.3."""
    jobs = _jobs([0, 1], [24, 32], [10, 5])
    rep = report(simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=30), jobs, ["all"])
    assert rep["derivations"]["idle_waiting_gpu_h"].startswith(
        "∫ idle nodes dt while a job waits = 9 node-h × 8 GPUs = 72 GPU-h (7.5% of the capacity)"
    )
    assert rep["derivations"]["little"] == (
        "L = ∫ queue dt ÷ T = 0.3 jobs; λ W = 0.06667/h × 4.5 h = 0.3 (time in the queue within the window)"
    )
