"""GPU failures in the simulator (scheduling/failures.py): Daly's interval, the failure stream, lost work
by hand, and the node-hour books on random queues (busy + idle + down = capacity; busy = productive +
lost + checkpoint + restart)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling import SchedulerInputError
from scheduling.carbon import CarbonPolicy
from scheduling.failures import HOURS_PER_YEAR, FailureModel, daly_interval_h, failure_stream
from scheduling.simulator import report, simulate
from scheduling.tidal import TidalPolicy
from scheduling.workload import SEED_TABLE_14_24, Jobs, generate_jobs


def test_daly_interval_by_hand():
    """τ = √(2 δ M) − δ: δ = 0.1 h, M = 100 h → √20 − 0.1 = 4.3721 h; δ ≥ M/2 → τ = M."""
    assert daly_interval_h(0.1, 100.0) == pytest.approx(math.sqrt(20) - 0.1)
    assert daly_interval_h(60.0, 100.0) == 100.0
    # Young's √(2 δ M) is the limit for δ ≪ M: within δ of it
    assert abs(daly_interval_h(1 / 60, 5_000.0) - math.sqrt(2 * 5_000 / 60)) == pytest.approx(1 / 60)


def test_failure_rates_and_the_seed_s6_figure():
    """AFR 2 % per GPU: λ = −ln(0.98) ÷ 8,766 h = 2.3047e-6 /h per GPU. Seed S6 says 1–5 % AFR and "a 10k-GPU
    cluster sees several failures a day"; 10,000 × 1–5 %/yr is 0.28–1.40 a day — "several" needs higher
    rates or counts every interruption (Meta, Llama 3 §3.3.4: 419 unexpected interruptions in 54 days on
    16k GPUs ≈ 7.8 a day), so the model takes the AFR as given and says what it implies."""
    m = FailureModel(afr=0.02)
    assert m.gpu_rate_per_h() == pytest.approx(-math.log(0.98) / 8766.0)
    assert HOURS_PER_YEAR == 8766.0
    per_day = 10_000 * FailureModel(afr=0.05).gpu_rate_per_h() * 24
    assert 1.35 < per_day < 1.45
    times, nodes = failure_stream(FailureModel(afr=0.05, seed=3), 1250, 8, 365.25 * 24)
    # Poisson count over a year on 10,000 GPUs: mean 513 (−ln 0.95 × 10⁴), sd ≈ 22.6
    assert abs(times.size - (-math.log(0.95) * 10_000)) < 5 * 22.6
    assert np.all(np.diff(times) >= 0) and nodes.min() >= 0 and nodes.max() < 1250
    again = failure_stream(FailureModel(afr=0.05, seed=3), 1250, 8, 365.25 * 24)
    assert np.array_equal(times, again[0]) and np.array_equal(nodes, again[1])


def _one_job(monkeypatch, fail_at: list[tuple[float, int]], model: FailureModel, gpus_per_node: int):
    monkeypatch.setattr(
        "scheduling.simulator.failure_stream",
        lambda *a: (np.array([t for t, _ in fail_at]), np.array([x for _, x in fail_at], dtype=np.int64)),
    )
    jobs = Jobs(
        np.array([0.0]), np.array([gpus_per_node]), np.array([10.0]), np.zeros(1, np.int64), np.ones(1, np.int64)
    )
    return jobs, simulate(jobs, node_count=2, gpus_per_node=gpus_per_node, horizon_h=100.0, failures=model)


def test_a_failure_loses_the_work_since_the_last_checkpoint(monkeypatch):
    """2 nodes of 64 GPUs, AFR 99.9 %: node rate 64 × −ln(0.001) ÷ 8,766 = 0.05044 /h, M = 19.83 h; δ = 0.5 h
    → τ = √(2·0.5·19.83) − 0.5 = 3.953 h, stretch 1 + δ/τ = 1.1265. A 10 h job on node 0 fails at t = 5:
    work done 5 ÷ 1.1265 = 4.439 h, one checkpoint saved 3.953 h, 0.486 h lost; it restarts at once on
    node 1 with 10 − 3.953 = 6.047 h of work: ends at 5 + 0.5 (restart) + 6.047 × 1.1265 = 12.312 h.
    The simulator keeps whole seconds (one rule: round half to even): τ = 14,230.4 → 14,230 s; work done 18,000 ÷
    1.1264896 = 15,978.84 → 15,979 s, saved 14,230 s, lost 1,749 s; left 36,000 − 14,230 = 21,770 s, whose wall is
    21,770 × 1.1264896 = 24,523.68 → 24,524 s: it ends at 18,000 + 1,800 + 24,524 = 44,324 s (12.31222 h)."""
    m = FailureModel(afr=0.999, repair_h=24.0, checkpoint_write_h=0.5, restart_h=0.5)
    rate = 64 * -math.log(0.001) / 8766.0
    tau = math.sqrt(2 * 0.5 / rate) - 0.5
    stretch = 1 + 0.5 / tau
    assert tau == pytest.approx(3.953, abs=1e-3)
    jobs, res = _one_job(monkeypatch, [(5.0, 0)], m, 64)
    saved = math.floor(5 / stretch / tau) * tau
    assert res.start_h[0] == 0.0 and res.restarts.tolist() == [1]
    assert res.end_h[0] == 44_324 / 3600 == pytest.approx(5 + 0.5 + (10 - saved) * stretch, abs=1 / 3600)
    f = res.failures
    assert f["lost_node_h"] == 1_749 / 3600 == pytest.approx(5 / stretch - saved, abs=1 / 3600)
    assert f["productive_node_h"] == pytest.approx(10.0)  # every hour of work done exactly once in the end
    assert f["restart_node_h"] == pytest.approx(0.5)
    assert f["down_node_h"] == pytest.approx(24.0) and f["failures_killing_a_job"] == 1
    busy = f["productive_node_h"] + f["lost_node_h"] + f["checkpoint_node_h"] + f["restart_node_h"]
    assert busy == pytest.approx(res.busy_integral_node_h) == pytest.approx(float(res.end_h[0]))
    rep = report(res, jobs, ["x"])
    assert rep["busy_node_h"] + rep["idle_node_h"] + rep["down_node_h"] == pytest.approx(200.0)
    assert "productive node-hours" in rep["derivations"]["goodput_frac"]


def test_a_failure_on_an_idle_node_or_a_node_already_down(monkeypatch):
    """Node 1 idle fails at t = 1 (out until 25); it fails again at 2 (already down: no effect); the job on
    node 0 runs its 10 h of work untouched (× stretch: 36,000 s × 1.00039213 = 36,014.12 → 36,014 s)."""
    m = FailureModel(afr=0.02, repair_h=24.0)
    _, res = _one_job(monkeypatch, [(1.0, 1), (2.0, 1)], m, 8)
    assert res.restarts.tolist() == [0] and res.failures["failures"] == 2
    assert res.failures["failures_on_a_node_already_down"] == 1
    assert res.failures["down_node_h"] == pytest.approx(24.0)
    assert res.end_h[0] == 36_014 / 3600 == pytest.approx(10 * m.stretch(1, 8), abs=0.5 / 3600)


def test_a_job_waits_for_repairs_when_too_many_nodes_are_down(monkeypatch):
    """A 2-node job on a 2-node cluster: node 1 fails at t = 3 during it; the job cannot restart until the
    node is back at 3 + 5 = 8."""
    monkeypatch.setattr("scheduling.simulator.failure_stream",
                        lambda *a: (np.array([3.0]), np.array([1], dtype=np.int64)))  # fmt: skip
    m = FailureModel(afr=0.02, repair_h=5.0, restart_h=0.0)
    jobs = Jobs(np.array([0.0]), np.array([16]), np.array([10.0]), np.zeros(1, np.int64), np.ones(1, np.int64))
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=100.0, failures=m)
    st_ = m.stretch(2, 8)
    assert res.end_h[0] == pytest.approx(8.0 + (10 - 0.0) * st_)  # τ ≫ 3 h: nothing was checkpointed
    assert res.queue_h[0] == pytest.approx(5.0)


@st.composite
def queues(draw):
    n = draw(st.integers(1, 30))
    submit = np.sort(np.array(draw(st.lists(st.floats(0, 150), min_size=n, max_size=n))))
    gpus = np.array(draw(st.lists(st.integers(1, 48), min_size=n, max_size=n)), dtype=np.int64)
    hours = np.array(draw(st.lists(st.floats(0.5, 80), min_size=n, max_size=n)))
    prio = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    model = FailureModel(afr=draw(st.sampled_from([0.3, 0.9, 0.999])), repair_h=draw(st.sampled_from([2.0, 24.0])),
                         checkpoint_write_h=draw(st.sampled_from([0.05, 0.5])), restart_h=0.25,
                         seed=draw(st.integers(0, 10**6)))  # fmt: skip
    policy = draw(st.sampled_from(["fifo", "easy"]))
    spread = np.array(draw(st.lists(st.sampled_from([1.0, 1.25, 2.0]), min_size=n, max_size=n)))
    extra = {"leaf_nodes": draw(st.sampled_from([0, 2, 3])), "spread": spread if draw(st.booleans()) else None,
             "preempt": policy == "easy" and draw(st.booleans())}  # fmt: skip
    if draw(st.booleans()):  # tidal sharing with an inference peak (scheduling/tidal.py)
        extra["tidal"] = TidalPolicy(tuple(float(draw(st.sampled_from([0, 8, 24]))) if h % 6 == 0 else 0.0
                                           for h in range(24)))  # fmt: skip
    if draw(st.booleans()):  # carbon-aware deferral of some jobs (scheduling/carbon.py)
        profile = tuple(100.0 if 10 <= h < 16 else 500.0 for h in range(24))
        extra["carbon"] = CarbonPolicy(profile, 200.0, draw(st.sampled_from([3.0, 30.0])), 1.0)
        extra["deferrable"] = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    return Jobs(submit, gpus, hours, np.zeros(n, np.int64), prio), model, policy, extra


@given(queues())
@settings(max_examples=120, deadline=None)
def test_node_hours_balance_and_no_node_is_used_twice_or_while_down(case):
    jobs, model, policy, extra = case
    horizon = 250.0
    res = simulate(jobs, node_count=6, gpus_per_node=8, horizon_h=horizon, policy=policy, failures=model, record=True,
                   **extra)  # fmt: skip
    f, cap = res.failures, 6 * horizon
    down, busy = f["down_node_h"], res.busy_integral_node_h
    assert busy + down + f.get("inference_node_h", 0.0) <= cap + 1e-6
    parts = ("productive_node_h", "lost_node_h", "checkpoint_node_h", "restart_node_h", "network_wait_node_h")
    assert sum(f[k] for k in parts) == pytest.approx(busy, rel=1e-9, abs=1e-6)
    assert min(f["lost_node_h"], f["checkpoint_node_h"], f["productive_node_h"]) >= -1e-9
    # gangs: every run holds the whole job; a node is in one run at a time and never while it is in repair
    busy: dict[int, list[tuple[float, float]]] = {}
    for j, nodes, start, end in res.segments:
        assert len(set(nodes)) == len(nodes) == -(-int(jobs.gpus[j]) // 8)
        for x in nodes:
            busy.setdefault(x, []).append((start, horizon if math.isnan(end) else end))
    for down, back, x in res.outages + res.inference_spans:
        busy.setdefault(x, []).append((down, back))
    for spans in busy.values():
        spans.sort()
        assert all(a_end <= b_start + 1e-9 for (_, a_end), (b_start, _) in itertools.pairwise(spans))
    again = simulate(jobs, node_count=6, gpus_per_node=8, horizon_h=horizon, policy=policy, failures=model, **extra)
    assert np.array_equal(res.start_h, again.start_h, equal_nan=True) and res.failures == again.failures
    rep = report(res, jobs, ["all"])
    little = rep["little"]
    assert little["queue_length_mean"] == pytest.approx(little["arrival_rate_per_h"] * little["wait_h_mean"], abs=1e-9)


def test_without_failures_nothing_changes():
    """AFR 0: no failure, no checkpoint (τ = ∞, stretch 1): the same starts as the plain simulation."""
    jobs = generate_jobs(SEED_TABLE_14_24, cluster_gpus=2000, load=0.85, horizon_h=24 * 60, seed=4)
    plain = simulate(jobs, node_count=250, gpus_per_node=8, horizon_h=24 * 60)
    zero = simulate(jobs, node_count=250, gpus_per_node=8, horizon_h=24 * 60, failures=FailureModel(afr=0.0))
    assert np.array_equal(plain.start_h, zero.start_h, equal_nan=True)
    assert zero.failures["failures"] == 0 and zero.failures["lost_node_h"] == 0


def test_seed_profile_with_failures_loses_work_and_goodput():
    """The seed workload, 2,000 GPUs, 120 days, AFR 5 %: failures happen, jobs restart, goodput < utilization."""
    jobs = generate_jobs(SEED_TABLE_14_24, cluster_gpus=2000, load=0.85, horizon_h=24 * 120, seed=2)
    res = simulate(jobs, node_count=250, gpus_per_node=8, horizon_h=24 * 120, failures=FailureModel(afr=0.05, seed=2))
    rep = report(res, jobs, [c.name for c in SEED_TABLE_14_24.classes])
    f = rep["failures"]
    # 2,000 GPUs × −ln(0.95) per year × 120 days ≈ 33.7 failures expected
    assert 15 <= f["failures"] <= 55 and f["failures_killing_a_job"] >= 1
    assert 0 < f["goodput_frac"] < rep["utilization_frac"]
    assert sum(c["restarts"] for c in rep["classes"]) == f["failures_killing_a_job"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"afr": 1.0}, "failures.afr"),
        ({"afr": -0.1}, "failures.afr"),
        ({"afr": 0.02, "repair_h": 0}, "failures.repair_h"),
        ({"afr": 0.02, "checkpoint_write_h": float("nan")}, "failures.checkpoint_write_h"),
        ({"afr": 0.02, "restart_h": -1}, "failures.restart_h"),
        ({"afr": True}, "failures.afr"),
    ],
)
def test_bad_failure_inputs_name_the_field(kwargs, field):
    with pytest.raises(SchedulerInputError) as exc:
        FailureModel(**kwargs)
    assert field in exc.value.errors


def test_a_critical_job_preempts_lower_classes_by_hand():
    """4 nodes. t=0: Q1 (queued, 2 nodes, 50 h) and Q2 (queued, 2 nodes, 50 h) start. t=10: C (critical,
    3 nodes, 5 h) arrives: the most recently started lower-class jobs are preempted until 3 nodes are free —
    Q2 (started at 0 like Q1, but later in order… both started at 0: the later-numbered first) and then Q1;
    C runs 10–15, then Q1 and Q2 restart (0.5 h restart each) with their 40 h of work left: end at 55.5."""
    jobs = Jobs(np.array([0.0, 0.0, 10.0]), np.array([16, 16, 24]), np.array([50.0, 50.0, 5.0]),
                np.array([0, 0, 1]), np.array([1, 1, 2]))  # fmt: skip
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200.0, preempt=True, restart_h=0.5)
    assert res.start_h.tolist() == [0.0, 0.0, 10.0]
    assert res.end_h.tolist() == pytest.approx([55.5, 55.5, 15.0])
    assert res.preempted.tolist() == [1, 1, 0]
    f = res.failures
    assert f["preemptions"] == 2 and f["lost_node_h"] == 0  # checkpointed on the signal
    assert f["restart_node_h"] == pytest.approx(2 * 0.5 * 2)
    assert f["productive_node_h"] == pytest.approx(2 * 50 * 2 + 5 * 3)
    rep = report(res, jobs, ["queued", "critical"])
    assert rep["classes"][0]["preemptions"] == 2 and rep["classes"][1]["preemptions"] == 0
    # without preemption C waits for a job to end at 50
    plain = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200.0)
    assert plain.start_h[2] == 50.0


def test_preemption_only_when_it_frees_enough_and_never_of_its_own_class():
    """C (critical) needs 4 nodes at t = 1; 2 are held by critical A until 20, 2 by queued B until 30.
    Preempting B at 1 frees only 2: nothing is preempted then. At 20 A ends: preempting B now frees
    enough, so C starts at 20 (not 30) and B restarts after C; A, of C's class, is never preempted."""
    jobs = Jobs(np.array([0.0, 0.0, 1.0]), np.array([16, 16, 32]), np.array([20.0, 30.0, 5.0]),
                np.zeros(3, dtype=np.int64), np.array([2, 1, 2]))  # fmt: skip
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200.0, preempt=True, restart_h=0.0)
    assert res.preempted.tolist() == [0, 1, 0] and res.start_h[2] == 20.0
    assert res.end_h[1] == pytest.approx(25.0 + 10.0)  # B: 20 h of work done before 20, 10 h after C
    with pytest.raises(SchedulerInputError) as exc:
        simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=10.0, policy="fifo", preempt=True)
    assert "preempt" in exc.value.errors


def test_seed_profile_with_preemption_cuts_the_critical_wait():
    """The seed workload, 120 days: with preemption the critical class (pretraining) waits less at p95,
    and the preempted classes pay for it in restarts."""
    jobs = generate_jobs(SEED_TABLE_14_24, cluster_gpus=2000, load=0.9, horizon_h=24 * 120, seed=5)
    names = [c.name for c in SEED_TABLE_14_24.classes]
    base = report(simulate(jobs, node_count=250, gpus_per_node=8, horizon_h=24 * 120), jobs, names)
    pre = report(simulate(jobs, node_count=250, gpus_per_node=8, horizon_h=24 * 120, preempt=True), jobs, names)
    assert pre["classes"][0]["wait_h_p95"] < base["classes"][0]["wait_h_p95"]
    assert pre["failures"]["preemptions"] >= 1 and pre["classes"][0]["preemptions"] == 0


def test_failure_model_defaults_bounds_and_stream_edges():
    """Defaults: repair 24 h, δ = 60 s (the storage plane's default checkpoint window), restart 0.25 h, seed 1;
    each bound is inclusive where the message says so; δ = M/2 takes τ = M; AFR 0 gives no failures."""
    from scheduling.failures import work_checkpointed

    m = FailureModel(afr=0.02)
    assert (m.repair_h, m.checkpoint_write_h, m.restart_h, m.seed) == (24.0, 1 / 60, 0.25, 1)
    FailureModel(afr=0.02, repair_h=24 * 365, checkpoint_write_h=24, restart_h=24)  # the upper bounds hold
    FailureModel(afr=0.0, restart_h=0)
    for kwargs in ({"repair_h": 24 * 365 + 1}, {"checkpoint_write_h": 24.01}, {"checkpoint_write_h": 0},
                   {"restart_h": 24.1}, {"afr": "0.1"}):  # fmt: skip
        with pytest.raises(SchedulerInputError):
            FailureModel(**{"afr": 0.02, **kwargs})
    assert daly_interval_h(50.0, 100.0) == 100.0  # δ = M/2: the interval is M
    times, nodes = failure_stream(FailureModel(afr=0.0), 10, 8, 100.0)
    assert times.size == nodes.size == 0 and nodes.dtype == np.int64
    # a dense stream on 2 nodes of 1,000 GPUs at AFR 99.9 %: ≈ 79 failures in 50 h, from hour 0, on both nodes
    times, nodes = failure_stream(FailureModel(afr=0.999, seed=7), 2, 1000, 50.0)
    assert times.min() < 1.0 and times.max() < 50.0 and set(nodes.tolist()) == {0, 1}
    assert work_checkpointed(7.5, 2.5) == 7.5 and work_checkpointed(7.4, 2.5) == 5.0
    assert work_checkpointed(3.0, math.inf) == 3.0


def test_repair_time_of_a_year_is_the_limit():
    """repair_h: above 0 and at most a year, 24 × 365 = 8,760 h."""
    assert FailureModel(afr=0.02, repair_h=8760.0).repair_h == 8760.0
    with pytest.raises(SchedulerInputError) as exc:
        FailureModel(afr=0.02, repair_h=8760.5)
    assert exc.value.errors == {"failures.repair_h": "hours out of service, above 0 and at most a year; got 8760.5"}


def test_daly_interval_below_and_at_half_the_mtbf():
    """δ = 0.4 h, M = 1 h: δ < M/2, so τ = √(2 × 0.4 × 1) − 0.4 = 0.8944 − 0.4 = 0.4944 h; δ = 0.5 h = M/2: τ = M."""
    assert daly_interval_h(0.4, 1.0) == pytest.approx(0.4944272, rel=1e-6)
    assert daly_interval_h(0.5, 1.0) == 1.0


def test_interval_on_the_seed_cluster_by_hand():
    """AFR 2 % on 250 nodes × 8 GPUs, a year of 8,766 h (365.25 days): λ = 2,000 × −ln(0.98) ÷ 8,766 h = 2,000 ×
    0.0202027 ÷ 8,766 = 0.0046093 /h, M = 216.95 h; δ = 60 s = 1/60 h: τ = √(2 × 1/60 × 216.95) − 1/60 = 2.6892 −
    0.0167 = 2.6725 h, and a job's wall time per hour of work is 1 + δ/τ = 1.00624. Without failures (AFR 0) there
    is nothing to checkpoint against: τ = ∞ and the stretch is exactly 1."""
    m = FailureModel(afr=0.02)
    assert m.interval_h(250, 8) == pytest.approx(2.6725, rel=1e-4)
    assert m.stretch(250, 8) == pytest.approx(1.006236, rel=1e-6)
    none = FailureModel(afr=0.0)
    assert math.isinf(none.interval_h(250, 8)) and none.stretch(250, 8) == 1.0


def test_failures_start_at_time_zero():
    """AFR 90 % on 10,000 nodes × 8 GPUs over 100 h: λ = 80,000 × ln 10 ÷ 8,766 = 21.0 /h → ≈ 2,101 failures,
    the first within half an hour (P(none in 0.5 h) = e^−10.5), none before 0 or at/after the horizon."""
    times, nodes = failure_stream(FailureModel(afr=0.9), 10_000, 8, 100.0)
    assert abs(len(times) - 2101) < 5 * math.sqrt(2101)
    assert 0 <= times[0] < 0.5 and times[-1] < 100.0
    assert nodes.min() >= 0 and nodes.max() < 10_000


def test_a_slow_failure_rate_still_fails():
    """AFR 2 % on 250 nodes × 8 GPUs: 2,000 × 0.0202027 ÷ 8,766 = 0.00461 failures an hour — below one an hour,
    yet over 10,000 h ≈ 46 of them."""
    times, _ = failure_stream(FailureModel(afr=0.02), 250, 8, 10_000.0)
    assert abs(len(times) - 46.1) < 5 * math.sqrt(46.1)


def test_repair_time_must_be_above_zero():
    assert FailureModel(afr=0.02, repair_h=0.5).repair_h == 0.5
    with pytest.raises(SchedulerInputError) as exc:
        FailureModel(afr=0.02, repair_h=0)
    assert exc.value.errors == {"failures.repair_h": "hours out of service, above 0 and at most a year; got 0"}
