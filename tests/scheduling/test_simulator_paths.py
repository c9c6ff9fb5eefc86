"""The simulator's less travelled paths by hand (scheduling/simulator.py): the head after a preemption, the wall
time backfill plans with under checkpoints, requeues and spread, stale heap entries of killed jobs, repairs in
order, the tidal hour by hour, the timeline over many bins and what the report counts at the window's edge.

Failures are scripted (``failure_stream`` replaced by a list), so every time below is derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduling.failures import FailureModel
from scheduling.simulator import report, simulate
from scheduling.tidal import TidalPolicy
from scheduling.workload import Jobs


def _jobs(submit, nodes, hours, priority=None, gpus_per_node=8) -> Jobs:
    n = len(submit)
    prio = np.ones(n, dtype=np.int64) if priority is None else np.array(priority, dtype=np.int64)
    gpus = np.array(nodes, dtype=np.int64) * gpus_per_node
    return Jobs(np.array(submit, float), gpus, np.array(hours, float), np.zeros(n, dtype=np.int64), prio)


def _script(monkeypatch, failures: list[tuple[float, int]]) -> None:
    times = np.array([t for t, _ in failures], dtype=float)
    nodes = np.array([x for _, x in failures], dtype=np.int64)
    monkeypatch.setattr("scheduling.simulator.failure_stream", lambda *a: (times, nodes))


# --- after a preemption ----------------------------------------------------------------------------------------


def test_the_critical_head_starts_first_then_what_fits_at_once():
    """4 nodes. X (best-effort, 4 nodes, 100 h) runs from 0; W (queued class, 2 nodes, 5 h) waits from 1; Z
    (critical, 2 nodes, 3 h) comes at 2 and preempts X. The queue is then Z, W, X: Z starts at 2 on 2 nodes and W
    fits the other 2 exactly, so it starts at 2 too (not at Z's end, 5). X restarts when W ends at 7 with 98 h
    left: 7 + 0.25 + 98 = 105.25."""
    jobs = _jobs([0, 1, 2], [4, 2, 2], [100, 5, 3], priority=[0, 1, 2])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200, preempt=True)
    assert res.start_h.tolist() == [0.0, 2.0, 2.0]
    assert res.end_h.tolist() == [pytest.approx(105.25), 7.0, 5.0]


def test_after_a_preemption_the_critical_head_is_the_one_started():
    """As above with W on 3 nodes: Z (the head) starts at 2 on 2 of the 4 nodes freed; W needs 3 of the 2 left and
    waits for Z's end at 5; X for W's end at 10. Starting the second in line instead (W at 2) would make the
    critical job wait for it."""
    jobs = _jobs([0, 1, 2], [4, 3, 2], [100, 5, 3], priority=[0, 1, 2])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200, preempt=True)
    assert res.start_h.tolist() == [0.0, 5.0, 2.0]
    assert res.end_h.tolist() == [pytest.approx(10 + 0.25 + 98), 10.0, 5.0]


def test_after_a_preemption_backfill_goes_on():
    """4 nodes. X (best-effort, 4 nodes, 100 h) runs from 0; Q1 (queued, 3 nodes, 10 h) waits from 0.5, Q2
    (queued, 1 node, 1 h) from 1. Z (critical, 2 nodes, 3 h) at 2 preempts X and starts; Q1 needs 3 of the 2 left.
    Q1's shadow is Z's end, 5 (4 free, 1 spare): Q2 ends by then (2 + 1 = 3), so it is backfilled at 2 — not held
    until 5. Q1 starts at 5; X restarts when Q1 ends at 15: 15 + 0.25 + 98 = 113.25."""
    jobs = _jobs([0, 0.5, 1, 2], [4, 3, 1, 2], [100, 10, 1, 3], priority=[0, 1, 1, 2])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200, preempt=True)
    assert res.start_h.tolist() == [0.0, 5.0, 2.0, 2.0]
    assert res.end_h[0] == pytest.approx(113.25)


def test_the_victims_are_taken_until_enough_is_free_and_no_more():
    """6 nodes. A, B, C (best-effort, 2 nodes, 50 h) start at 0, 1, 2; Z (critical, 2 nodes) at 3 needs one victim:
    C, the one started last. A and B run on (they are not preempted once enough is free)."""
    jobs = _jobs([0, 1, 2, 3], [2, 2, 2, 2], [50, 50, 50, 1], priority=[0, 0, 0, 2])
    res = simulate(jobs, node_count=6, gpus_per_node=8, horizon_h=200, preempt=True)
    assert res.preempted.tolist() == [0, 0, 1, 0]
    assert res.end_h[:2].tolist() == [50.0, 51.0]


# --- the wall time backfill plans with ---------------------------------------------------------------------------


def test_backfill_plans_with_the_checkpoint_stretch(monkeypatch):
    """8 GPUs a node, AFR 99.9 %, δ = 0.5 h (no failure happens: the stream is empty). A node fails at
    λ = 8 × −ln(0.001) ÷ 8,766 = 0.0063044 /h. 3 nodes: M = 52.87 h, τ = √(2 · 0.5 · 52.87) − 0.5 = 6.771 h,
    stretch 1 + 0.5/6.771 = 1.07384; 1 node: M = 158.6 h, τ = 12.095 h, stretch 1.04134.
    4 nodes: A (3 nodes, 10 h) runs 0 → 10.738; B (4 nodes) heads the queue from 1: shadow 10.738, no spare node.
    C (1 node) at 2 may start only if it ends by 10.738: 8.6 h × 1.04134 = 8.956 h does not (8.6 ÷ 1.04134 =
    8.26 h would), 8.3 h × 1.04134 = 8.643 h does. Time is whole seconds: A's wall is 36,000 s × 1.0738384 =
    38,658.18 s → 38,658 s (half to even), so B starts at 38,658 s ÷ 3,600."""
    _script(monkeypatch, [])
    model = FailureModel(afr=0.999, checkpoint_write_h=0.5)
    rate = 8 * -math.log(0.001) / 8766.0
    st3 = 1 + 0.5 / (math.sqrt(2 * 0.5 / (3 * rate)) - 0.5)
    assert st3 == pytest.approx(1.07384, abs=1e-5)
    for hours, backfilled in ((8.6, False), (8.3, True)):
        jobs = _jobs([0, 1, 2], [3, 4, 1], [10, 5, hours])
        res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100, failures=model)
        assert res.start_h[1] == pytest.approx(10 * st3, abs=0.5 / 3600) and res.start_h[1] == 38_658 / 3600
        assert bool(res.start_h[2] == 2.0) is backfilled, hours


def test_backfill_plans_with_the_spread_run_time():
    """Spread factors (the run-time factor of a job spanning leaf groups) count in the backfill plan even for a
    job that may fit one group: 4 nodes, A (3 nodes, 10 h) then B (4 nodes) heading the queue at 1 — shadow 10,
    no spare; C (1 node, 5 h, factor 2) at 2 is planned at 10 h: 2 + 10 > 10, so it waits (at 5 h it would go)."""
    jobs = _jobs([0, 1, 2], [3, 4, 1], [10, 5, 5])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100, spread=np.array([1.0, 1.0, 2.0]))
    assert res.start_h.tolist() == [0.0, 10.0, 15.0]
    plain = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100)
    assert plain.start_h.tolist() == [0.0, 10.0, 2.0]


def test_a_requeued_job_is_planned_with_its_restart_and_what_is_left(monkeypatch):
    """5 nodes, the stretches of the test above (1 node 1.04134, 3 nodes 1.07384), restart 2 h. H (3 nodes, 10 h)
    runs on nodes 0–2 until 10.738, A (1 node, 8 h) on node 3; node 3 fails at 1 (back at 101): A has done
    1 ÷ 1.04134 = 0.96 h of work, none checkpointed (τ = 12.1 h), and queues again behind C (critical, 4 nodes,
    1 h, from 0.5 — no preemption) with node 4 free. C's shadow is H's end, 4 free = C's need, no spare: A may go
    now only if 1 + 2 (restart) + 8 × 1.04134 = 11.33 ≤ 10.738 — no (without the restart, 9.33, or without the
    stretch, 10.68, it would), so A restarts when C ends. With spread 2 on A the plan is 1 + 2 + 16.66 (as
    2 + 8.33 ÷ 2 it would go): A waits too, then runs its 8 h unspread (one node spans no group).
    In whole seconds: H's wall 36,000 × 1.0738384 = 38,658.18 → 38,658 s; A's work at the failure 3,600 ÷ 1.04134 =
    3,457.08 → 3,457 s, τ = 43,540.9 → 43,541 s, nothing saved: A restarts with 28,800 s of work, 7,200 + 28,800 ×
    1.04134 = 7,200 + 29,990.61 → 29,991 s after C's end."""
    _script(monkeypatch, [(1.0, 3)])
    model = FailureModel(afr=0.999, checkpoint_write_h=0.5, repair_h=100.0, restart_h=2.0)
    st1 = model.stretch(1, 8)
    assert st1 == pytest.approx(1.04134, abs=1e-5)
    jobs = _jobs([0, 0, 0.5], [3, 1, 4], [10, 8, 1], priority=[1, 1, 2])
    for spread in (None, np.array([1.0, 2.0, 1.0])):
        res = simulate(jobs, node_count=5, gpus_per_node=8, horizon_h=200, failures=model, spread=spread)
        assert res.start_h[2] == 38_658 / 3600
        assert res.end_h[1] == (round(res.end_h[2] * 3600) + 7_200 + 29_991) / 3600  # restarted when C ended
        assert res.end_h[1] == pytest.approx(res.end_h[2] + 2 + 8 * st1, abs=0.5 / 3600)


# --- stale entries and repairs ------------------------------------------------------------------------------------


def test_the_shadow_skips_the_old_end_of_a_killed_job(monkeypatch):
    """4 nodes, AFR 2 %, repair 100 h. A (1 node, 10 h) runs on node 0 from 0; node 0 fails at 1: A restarts at
    once on node 1 and ends at 1 + 0.25 + 10 × 1.0004 ≈ 11.25 (its old end, ≈ 10.004, stays in the heap, stale).
    X (3 nodes) heads the queue from 2 with nodes 2–3 free: its shadow is A's new end (3 free, no spare), so Y
    (1 node, 50 h, at 3) may not start — it would delay X. X starts at A's end, Y when X ends. In whole seconds:
    A's second wall is 900 + 36,000 × 1.00039213 = 900 + 36,014.12 → 36,914 s, so it ends at 3,600 + 36,914 =
    40,514 s."""
    _script(monkeypatch, [(1.0, 0)])
    model = FailureModel(afr=0.02, repair_h=100.0)
    jobs = _jobs([0, 2, 3], [1, 3, 1], [10, 20, 50])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=300, failures=model)
    assert res.end_h[0] == 40_514 / 3600 == pytest.approx(1.25 + 10 * model.stretch(1, 8), abs=0.5 / 3600)
    assert res.start_h[1] == pytest.approx(res.end_h[0])
    assert res.start_h[2] == pytest.approx(res.end_h[1])


def test_the_first_repair_brings_its_node_back_first(monkeypatch):
    """2 idle nodes fail at 1 and 2, each out for 5 h (back at 6 and 7). A 1-node job arriving at 3 starts when
    the first is back, at 6."""
    _script(monkeypatch, [(1.0, 0), (2.0, 1)])
    jobs = _jobs([3], [1], [1])
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=50, failures=FailureModel(afr=0.02, repair_h=5.0))
    assert res.start_h.tolist() == [6.0]


# --- tidal sharing hour by hour -------------------------------------------------------------------------------------


def test_the_tide_hour_by_hour_and_the_newest_best_effort_job_gives_way():
    """3 nodes, 8 GPUs a node; inference wants 8 GPUs (1 node) in hour 0 and 16 (2 nodes) in hour 3, none else.
    Hour 0: 1 node held from 0 (before any job arrives) to 1. Best-effort A (1 node, 10 h) starts at 1.5, B at 2.
    Hour 3: 2 nodes wanted, 1 free: the most recently started, B, is preempted (1 h of work kept); both free nodes
    are held until 4, when B restarts: 4 + 0.25 + 9 = 13.25; A ends at 11.5. In a 20 h window (hour 0 comes again
    at 24) the held node-hours are 1 × 1 + 2 × 1 = 3."""
    demand = tuple(8.0 if h == 0 else 16.0 if h == 3 else 0.0 for h in range(24))
    jobs = _jobs([1.5, 2.0], [1, 1], [10, 10], priority=[0, 0])
    res = simulate(jobs, node_count=3, gpus_per_node=8, horizon_h=20, tidal=TidalPolicy(demand))
    assert res.preempted.tolist() == [0, 1]
    assert res.end_h.tolist() == [11.5, pytest.approx(13.25)]
    assert res.failures["inference_node_h"] == pytest.approx(3.0)
    assert sorted(res.inference_spans) == [(0.0, 1.0, 0), (3.0, 4.0, 1), (3.0, 4.0, 2)]  # A on 0, B on 1


# --- the timeline and the report at the edges ------------------------------------------------------------------------


def test_the_timeline_covers_every_bin():
    """8 bins of 1 h; one node of two busy from 0 to 6: busy 1, 1, 1, 1, 1, 1, 0, 0 (the bins past the fourth
    as well)."""
    res = simulate(_jobs([0], [1], [6]), node_count=2, gpus_per_node=8, horizon_h=8, timeline_bins=8)
    assert res.timeline["busy_nodes"] == [1.0] * 6 + [0.0, 0.0]
    assert res.timeline["bin_h"] == 1.0


def test_a_job_ending_at_the_horizon_is_completed_and_one_node_jobs_have_no_pod_share():
    """A 10 h job in a 10 h window ends at the horizon: completed, stretch 1. A class of one-node jobs has no
    multi-node job: no one-group or one-pod share (None, not NaN)."""
    jobs = _jobs([0], [1], [10])
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=10, leaf_nodes=1)
    row = report(res, jobs, ["all"])["classes"][0]
    assert (row["completed"], row["stretch_mean"]) == (1, 1.0)
    assert row["one_group_frac"] is None and row["one_pod_frac"] is None


def test_a_job_preempted_near_its_end_restarts_with_what_is_left():
    """4 nodes. X (best-effort, 4 nodes, 2.5 h) from 0; Z (critical, 2 nodes, 3 h) at 2 preempts it with 0.5 h of
    work left (checkpointed on the signal). X restarts when Z ends at 5: 5 + 0.25 + 0.5 = 5.75."""
    jobs = _jobs([0, 2], [4, 2], [2.5, 3], priority=[0, 2])
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=50, preempt=True)
    assert res.end_h.tolist() == [pytest.approx(5.75), 5.0]


def test_a_held_job_is_looked_at_every_hour():
    """Carbon-aware deferral, dirty (500 g/kWh) except hours 10–15 (100), threshold 200: a deferrable job submitted
    alone at 3:00 is looked at on every hour boundary (4, 5, …) and starts at 10:00, the first clean hour."""
    from scheduling.carbon import CarbonPolicy

    policy = CarbonPolicy(tuple(100.0 if 10 <= h < 16 else 500.0 for h in range(24)), 200.0, 20.0, 1.0)
    res = simulate(_jobs([3.0], [1], [1]), node_count=1, gpus_per_node=8, horizon_h=48, carbon=policy,
                   deferrable=np.array([True]))  # fmt: skip
    assert res.start_h.tolist() == [10.0]
