"""Issue #33, item 4: the queue simulator keeps exact time — every event time is a whole number of seconds, so
two jobs that end in the same second end at the same time and EASY backfill sees the tie as a tie.

The rule (scheduling/simulator.py, ``seconds``/``hours_to_s``/``job_seconds``): x hours → round half to even of
x × 3,600 seconds; a positive run time is at least 1 s; negative, NaN or infinite times are refused. A trace in
whole seconds and the same trace in hours (÷ 3,600) give the same starts, under FIFO and EASY."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling import SchedulerInputError
from scheduling.carbon import CarbonPolicy
from scheduling.failures import FailureModel
from scheduling.reference import reference_starts
from scheduling.simulator import _interval_s, _Timeline, hours_to_s, job_seconds, report, seconds, simulate
from scheduling.trace import acme_to_rows, parse_trace
from scheduling.workload import Jobs


def _jobs(submit_h, nodes, hours_h, priority=None, gpus_per_node=8) -> Jobs:
    n = len(submit_h)
    prio = np.ones(n, dtype=np.int64) if priority is None else np.array(priority, dtype=np.int64)
    return Jobs(np.array(submit_h, dtype=float), np.array(nodes, dtype=np.int64) * gpus_per_node,
                np.array(hours_h, dtype=float), np.zeros(n, dtype=np.int64), prio)  # fmt: skip


def _starts_s(res) -> list[int | None]:
    """The simulator's starts back in whole seconds (start_h is whole seconds ÷ 3,600)."""
    return [None if math.isnan(x) else round(x * 3600) for x in res.start_h.tolist()]


# --- the rule at the boundary ---------------------------------------------------------------------------------------


def test_the_rounding_rule_by_hand():
    """Half to even: 0.5 s → 0, 1.5 s → 2, 2.5 s → 2, 2.4999 s → 2, 2.5001 s → 3. Hours × 3,600: 1.1 h is
    3,960.0000000000005 s in binary → 3,960, (0.1 + 0.2) h is 1,080.0000000000002 s → 1,080; 1/3 h = 1,200 s;
    10 years of hours stay exact (315,576,000 s). A positive run time is at least 1 s (0.1 ms → 1 s); a submit
    time of 0.1 ms is 0 s."""
    assert [seconds(x) for x in (0.5, 1.5, 2.5, 2.4999, 2.5001)] == [0, 2, 2, 2, 3]
    assert 1.1 * 3600 != 3960 and hours_to_s(1.1, "x") == 3960
    assert (0.1 + 0.2) * 3600 != 1080 and hours_to_s(0.1 + 0.2, "x") == hours_to_s(0.3, "x") == 1080
    assert hours_to_s(1 / 3, "x") == 1200 and hours_to_s(87_660.0, "x") == 315_576_000
    assert hours_to_s(1e-7, "x", duration=True) == 1 and hours_to_s(1e-7, "x") == 0
    submit_s, run_s = job_seconds(_jobs([0.1, 1e-7, 2.5 / 3600], [1, 1, 1], [0.2, 1e-7, 0.3]))
    assert submit_s.tolist() == [360, 0, 2] and run_s.tolist() == [720, 1, 1080]  # numpy's rint: half to even too
    assert submit_s.dtype == run_s.dtype == np.int64


@pytest.mark.parametrize(
    ("submit", "hours", "key"),
    [
        ([-1.0], [1.0], "jobs.submit_h"),
        ([math.nan], [1.0], "jobs.submit_h"),
        ([math.inf], [1.0], "jobs.submit_h"),
        ([0.0], [0.0], "jobs.hours"),
        ([0.0], [-2.0], "jobs.hours"),
        ([0.0], [math.nan], "jobs.hours"),
        ([0.0], [math.inf], "jobs.hours"),
    ],
)
def test_bad_times_are_refused_not_clamped(submit, hours, key):
    """A negative, NaN or infinite time, or a run time not above 0, is a field error — never rounded or clamped."""
    with pytest.raises(SchedulerInputError) as exc:
        simulate(_jobs(submit, [1], hours), node_count=1, gpus_per_node=8, horizon_h=10)
    assert set(exc.value.errors) == {key}


@pytest.mark.parametrize("horizon", [-1.0, math.nan, math.inf, 0.0, 0.1 / 3600, True, "10"])
def test_a_bad_horizon_is_refused(horizon):
    """The window must be at least one whole second (0.1 s rounds to 0): refused on horizon_h, as are NaN, ∞,
    negatives and non-numbers."""
    with pytest.raises(SchedulerInputError) as exc:
        simulate(_jobs([0.0], [1], [1.0]), node_count=1, gpus_per_node=8, horizon_h=horizon)
    assert set(exc.value.errors) == {"horizon_h"}


# --- the tie that float hours got wrong -----------------------------------------------------------------------------


def test_a_same_second_tie_is_a_tie_for_easy_backfill():
    """2 nodes, EASY. A (1 node, 0.3 h) starts at 0 and ends at 0.3 h = 1,080 s. H (2 nodes, 1 h) arrives at
    0.05 h = 180 s: one node is free, H needs both, so H heads the queue with a reservation at its shadow time,
    A's end, 1,080 s — with no spare node then (2 free − 2 needed). C (1 node, 0.2 h) arrives at 0.1 h = 360 s; it
    fits now (1 node free) and may be backfilled only if it ends by the shadow time: 360 + 720 = 1,080 ≤ 1,080 s,
    so C starts at 360 s and ends with A in the same second; H starts at 1,080 s on both nodes, ends at 4,680 s.

    In float hours the same test is 0.1 + 0.2 = 0.30000000000000004 > 0.3: C "ends after" the shadow time and
    waits for H (C starts at 0.3 + 1 = 1.3 h) — the integer-second simulator and the float one disagree on a
    tie. The float reference loop shows the old answer; the simulator now gives the whole-second one. FIFO never
    backfills: C starts after H in both."""
    assert 0.1 + 0.2 > 0.3  # the binary sum that split the tie
    jobs = _jobs([0.0, 0.05, 0.1], [1, 2, 1], [0.3, 1.0, 0.2])
    easy = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=10, policy="easy")
    assert _starts_s(easy) == [0, 1080, 360]
    assert easy.start_h.tolist() == [0.0, 0.3, 0.1] and easy.end_h.tolist() == [0.3, 1.3, 0.3]
    # the float-hours oracle (scheduling/reference.py on floats) decides the tie the other way …
    nodes, prio = [1, 2, 1], [1, 1, 1]
    floats = reference_starts([0.0, 0.05, 0.1], nodes, [0.3, 1.0, 0.2], prio, node_count=2, horizon_h=10,
                              policy="easy")  # fmt: skip
    assert floats == [0.0, 0.3, 1.3]
    # … the same oracle on whole seconds agrees with the simulator
    ints = reference_starts([0, 180, 360], nodes, [1080, 3600, 720], prio, node_count=2, horizon_h=36_000,
                            policy="easy")  # fmt: skip
    assert ints == [0, 1080, 360] == _starts_s(easy)
    fifo = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=10, policy="fifo")
    assert _starts_s(fifo) == [0, 1080, 4680]


def test_jobs_ending_in_the_same_second_free_their_nodes_together():
    """1 + 1 nodes: X (0.1 h from 0.2 h) and Y (0.3 h from 0) both end at 1,080 s (0.2 + 0.1 is 0.30000000000000004
    in binary); Z (2 nodes) waits for both and starts at exactly 1,080 s — one event, not two 2.5e-8 s apart."""
    jobs = _jobs([0.0, 0.2, 0.25], [1, 1, 2], [0.3, 0.1, 1.0])
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=5, policy="fifo", record=True)
    assert _starts_s(res) == [0, 720, 1080] and res.end_h[0] == res.end_h[1] == res.start_h[2] == 0.3


# --- a trace in seconds and the same trace in hours ------------------------------------------------------------------


def _three_ways(submit_s, nodes, run_s, prio, node_count, horizon_s, policy):
    """Starts in whole seconds of: the simulator fed hours (÷ 3,600), the simulator fed the seconds as its time unit
    (the same numbers as hours: a run 3,600× longer, its own whole seconds exact), the reference on the ints."""
    hours = Jobs(np.array(submit_s) / 3600, np.array(nodes, dtype=np.int64) * 8, np.array(run_s) / 3600,
                 np.zeros(len(nodes), dtype=np.int64), np.array(prio, dtype=np.int64))  # fmt: skip
    as_units = Jobs(np.array(submit_s, float), hours.gpus, np.array(run_s, float), hours.cls, hours.priority)
    a = simulate(hours, node_count=node_count, gpus_per_node=8, horizon_h=horizon_s / 3600, policy=policy)
    b = simulate(as_units, node_count=node_count, gpus_per_node=8, horizon_h=float(horizon_s), policy=policy)
    ref = reference_starts(list(submit_s), list(nodes), list(run_s), list(prio), node_count=node_count,
                           horizon_h=horizon_s, policy=policy)  # fmt: skip
    b_starts = [None if math.isnan(x) else round(x) for x in b.start_h.tolist()]  # its "hours" are the seconds
    return _starts_s(a), b_starts, ref


# durations that are tenths and quarters of an hour tie often and do not add up exactly in binary hours
_SECONDS = st.one_of(st.integers(1, 40).map(lambda k: 360 * k), st.integers(1, 40).map(lambda k: 900 * k),
                     st.integers(1, 20_000))  # fmt: skip


@st.composite
def second_traces(draw):
    n = draw(st.integers(1, 40))
    submit = sorted(draw(st.lists(st.one_of(st.integers(0, 100).map(lambda k: 360 * k), st.integers(0, 36_000)),
                                  min_size=n, max_size=n)))  # fmt: skip
    run = draw(st.lists(_SECONDS, min_size=n, max_size=n))
    nodes = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
    prio = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return submit, nodes, run, prio, draw(st.sampled_from(["fifo", "easy"]))


@given(second_traces())
@settings(max_examples=200, deadline=None)
def test_a_trace_in_seconds_and_in_hours_start_the_same(case):
    """Random small traces in whole seconds (many ties: multiples of 0.1 h and 0.25 h) on 8 nodes for 20 h: the
    simulator fed hours (÷ 3,600), the simulator fed the seconds themselves, and the reference loop on the ints
    give the same start for every job, under FIFO and EASY."""
    submit, nodes, run, prio, policy = case
    a, b, ref = _three_ways(submit, nodes, run, prio, 8, 72_000, policy)
    assert a == b == ref


def _tied_trace(n: int, seed: int):
    """n jobs in whole seconds: arrivals every 0–0.6 h in steps of 36 s, run times of 0.1–4 h in steps of 0.1 h
    (a tie every few events), 1–8 nodes (about 96 % of 32 nodes offered), three classes."""
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.integers(0, 61, n) * 36).tolist()
    run = (rng.integers(1, 41, n) * 360).tolist()
    nodes = rng.integers(1, 9, n).tolist()
    prio = rng.integers(0, 3, n).tolist()
    return submit, nodes, run, prio


@pytest.mark.parametrize("policy", ["fifo", "easy"])
def test_a_fixed_trace_of_1500_jobs_starts_the_same_in_seconds_and_in_hours(policy):
    """1,500 jobs (seed 7) on 32 nodes: every start agrees three ways (as above). The float-hours reference on the
    same trace in hours disagrees on some EASY starts — this trace has ties float hours split; FIFO orders by
    submit time and does not look at run times, so it cannot disagree."""
    submit, nodes, run, prio = _tied_trace(1500, 7)
    horizon_s = submit[-1] + 3600
    a, b, ref = _three_ways(submit, nodes, run, prio, 32, horizon_s, policy)
    assert len(a) == 1500 and sum(x is not None for x in a) > 1000
    assert a == b == ref
    floats = reference_starts([s / 3600 for s in submit], nodes, [r / 3600 for r in run], prio, node_count=32,
                              horizon_h=horizon_s / 3600, policy=policy)  # fmt: skip
    differ = sum((x is None) != (y is None) or (x is not None and round(y * 3600) != x) for x, y in zip(a, floats))
    if policy == "easy":
        assert differ > 0  # the case has teeth: float hours decide some of its ties differently
    else:
        assert differ == 0


# --- what stays exact inside ----------------------------------------------------------------------------------------


def test_timeline_bins_of_a_fraction_of_a_second_are_exact():
    """A 10 s window in 3 bins of 3⅓ s: one of two nodes busy from 0 to 5 s. Bin 0 [0, 3⅓) is all busy (1.0), bin 1
    [3⅓, 6⅔) half of it (1⅔ s of 3⅓: 0.5), bin 2 none — exactly, with no bin edge rounded."""
    res = simulate(_jobs([0.0], [1], [5 / 3600]), node_count=2, gpus_per_node=8, horizon_h=10 / 3600, timeline_bins=3)
    assert res.timeline["busy_nodes"] == [1.0, 0.5, 0.0]
    assert res.timeline["bin_h"] == pytest.approx(10 / 3 / 3600)
    tl = _Timeline(3, 10)
    tl.add(0, 5, 1, 0, 0, 0)
    assert tl.sums[0] == [10, 5, 0]  # node-seconds × 3 bins: 3⅓ × 3 = 10, 1⅔ × 3 = 5


def test_failure_books_add_up_to_the_busy_node_seconds_exactly():
    """A seeded failure run (AFR 99.9 %, 4 nodes of 8 GPUs, 200 h, tied run times): the books are node-seconds
    (ints) — productive + lost + checkpoint + restart + network wait = busy, to the second; every event time of
    the run (starts, ends, outages) is a whole second."""
    submit, nodes, run, prio = _tied_trace(60, 3)
    jobs = Jobs(np.array(submit) / 3600, np.array([min(k, 4) for k in nodes], dtype=np.int64) * 8,
                np.array(run) / 3600, np.zeros(60, dtype=np.int64), np.array(prio, dtype=np.int64))  # fmt: skip
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=200, failures=FailureModel(afr=0.999, seed=4),
                   preempt=True, spread=np.full(60, 1.25), leaf_nodes=2, record=True)  # fmt: skip
    f = res.failures
    assert f["failures_killing_a_job"] >= 1 and f["preemptions"] + f["failures_killing_a_job"] >= 1
    parts = ("productive_node_h", "lost_node_h", "checkpoint_node_h", "restart_node_h", "network_wait_node_h")
    node_s = [f[k] * 3600 for k in parts]
    assert all(abs(x - round(x)) < 1e-6 for x in node_s)
    assert sum(round(x) for x in node_s) == round(res.busy_integral_node_h * 3600)
    times = [t for _, _, a, b in res.segments for t in (a, b) if not math.isnan(t)]
    times += [t for a, b, _ in res.outages for t in (a, b)]
    assert all(abs(t * 3600 - round(t * 3600)) < 1e-6 for t in times)
    rep = report(res, jobs, ["all"])
    little = rep["little"]
    assert little["queue_length_mean"] == pytest.approx(little["arrival_rate_per_h"] * little["wait_h_mean"], rel=1e-12)


def test_waits_are_measured_from_the_submit_second_the_run_used():
    """A job submitted at 1.0001 h (3,600.36 s → 3,600 s) onto an idle node starts at 3,600 s: the report measures
    its wait from the 3,600 s the run used — 0, not −0.36 s from the float submit — and its stretch is 1. A window
    of 1.0001 h is [0, 3,600 s) in whole seconds: the job, submitted at 3,600 s, has not arrived in it, and the
    report agrees with the run."""
    jobs = _jobs([1.0001], [1], [0.5])
    res = simulate(jobs, node_count=1, gpus_per_node=8, horizon_h=2)
    assert res.start_h.tolist() == [1.0] and res.submit_s.tolist() == [3600] and res.run_s.tolist() == [1800]
    row = report(res, jobs, ["all"])["classes"][0]
    assert row["wait_h_p50"] == 0.0 and row["stretch_mean"] == 1.0
    cut = simulate(jobs, node_count=1, gpus_per_node=8, horizon_h=1.0001)
    assert cut.horizon_h == 1.0 and report(cut, jobs, ["all"])["classes"][0]["jobs"] == 0


def test_an_acme_trace_in_whole_seconds_keeps_its_seconds():
    """AcmeTrace gives seconds; acme_to_rows writes hours to six decimals (3.6 ms), so every whole second comes back
    exactly at the simulator's boundary: 1 s → 0.000278 h → 1.0008 s → 1 s; 7 s, 3,601 s and 86,399 s likewise."""
    head = "user,gpu_num,type,state,submit_time,duration\n"
    rows = "".join(f"u,8,SFT,COMPLETED,2023-03-01 00:00:{k:02d}+00:00,{d}\n" for k, d in
                   ((0, 1), (1, 7), (2, 3601), (3, 86_399)))  # fmt: skip
    jobs, _, _ = parse_trace(acme_to_rows(head + rows))
    submit_s, run_s = job_seconds(jobs)
    assert submit_s.tolist() == [0, 1, 2, 3] and run_s.tolist() == [1, 7, 3601, 86_399]


# --- edges of the rule: a second, half a second, a negative fraction ------------------------------------------------


def test_a_negative_time_under_an_hour_is_refused():
    """−0.5 h and −1 ms are negative times too: refused on the field, never rounded to a time ≥ 0 (or to −1,800 s)."""
    for hours in (-0.5, -1e-9 / 3600):
        with pytest.raises(SchedulerInputError) as exc:
            hours_to_s(hours, "x")
        assert set(exc.value.errors) == {"x"}


def test_a_one_second_horizon_is_a_window():
    """1 s (1/3,600 h) is the shortest window: accepted, and the one job of 1 node runs in it for that second —
    1 busy node-second of 2 node-seconds."""
    res = simulate(_jobs([0.0], [1], [1.0]), node_count=2, gpus_per_node=8, horizon_h=1 / 3600)
    assert res.horizon_h == 1 / 3600 and res.start_h.tolist() == [0.0]
    assert round(res.busy_integral_node_h * 3600) == 1
    assert res.capacity_node_h * 3600 == pytest.approx(2)


def test_a_restart_shorter_than_half_a_second_still_takes_one():
    """1 node, preemption: best-effort B (1 h) starts at 0; critical C (1 h) arrives at 0.5 h = 1,800 s and preempts
    it (B keeps its 1,800 s of work: it checkpoints on the signal). C ends at 5,400 s; B restarts then. A restart of
    0.0001 h is 0.36 s, a positive duration, so at least 1 s: B ends at 5,400 + 1 + 1,800 = 7,201 s."""
    jobs = _jobs([0.0, 0.5], [1, 1], [1.0, 1.0], priority=[0, 2])
    res = simulate(jobs, node_count=1, gpus_per_node=8, horizon_h=10, preempt=True, restart_h=0.0001)
    assert _starts_s(res) == [0, 1800]
    assert res.preempted.tolist() == [1, 0] and res.restarts.tolist() == [1, 0]
    assert round(res.end_h[0] * 3600) == 7201 and round(res.end_h[1] * 3600) == 5400
    assert round(res.failures["restart_node_h"] * 3600) == 1


def test_a_repair_shorter_than_half_a_second_still_takes_one():
    """A seeded failure run (AFR 99.9 %, 4 nodes of 8 GPUs, 200 h) with repairs of 0.0001 h = 0.36 s: a positive
    duration, so every node is out of service for 1 s (not 0)."""
    res = simulate(_jobs([0.0], [1], [1.0]), node_count=4, gpus_per_node=8, horizon_h=200,
                   failures=FailureModel(afr=0.999, repair_h=0.0001, seed=4))  # fmt: skip
    assert res.failures["failures"] >= 1 and res.outages
    assert {round(b * 3600) - round(a * 3600) for a, b, _ in res.outages} == {1}
    assert round(res.failures["down_node_h"] * 3600) == len(res.outages)


def test_a_checkpoint_interval_is_at_least_one_second():
    """Daly's τ in whole seconds by the rule: 1 h → 3,600 s, 1.5 s → 2 s; 0.36 s rounds to 0 but an interval is at
    least 1 s (a zero one would checkpoint without end); no failures (τ = ∞) stays ∞."""
    assert _interval_s(1.0) == 3600 and _interval_s(1.5 / 3600) == 2
    assert _interval_s(0.0001) == 1 and _interval_s(0.4 / 3600) == 1
    assert _interval_s(math.inf) == math.inf


def test_a_deferral_deadline_one_second_after_an_event_is_kept():
    """2 nodes, every hour dirty (500 g/kWh > 200): D (deferrable, 1 node) is held from its submit at 0 until its
    limit, 0.5 h = 1,800 s. A (not deferrable, 1 node, 1,799 s) ends one second before: at 1,799 s D is still held
    and the loop's next wake-up is its deadline, 1,800 s — D starts then, not a second later."""
    jobs = _jobs([0.0, 0.0], [1, 1], [1799 / 3600, 1.0])
    carbon = CarbonPolicy((500.0,) * 24, threshold_g_per_kwh=200.0, max_defer_h=0.5, kw_per_gpu=1.0)
    res = simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=10, carbon=carbon,
                   deferrable=np.array([False, True]))  # fmt: skip
    assert _starts_s(res) == [0, 1800]
    assert round(res.end_h[0] * 3600) == 1799


@pytest.mark.parametrize("pace_two", [False, True])
def test_checkpoint_and_network_wait_split_the_overhead_by_hand(pace_two):
    """One 2-node job of 1 h (3,600 s of work) across two leaf groups of 1 node, with checkpoints (AFR 99.9 %, δ 6 h:
    stretch s = 1 + δ/τ) and a network spread f: its wall time is ⌊3,600 × s × f⌉ and the overhead over = wall −
    3,600 splits as (s − 1) f : f − 1 between checkpoint writes and network wait (the simulator's rule): checkpoint
    = ⌊over × (s − 1) f ÷ (s f − 1)⌉ seconds, on each of the 2 nodes. f = 2, and f = 2 ÷ s, a pace s × f of exactly
    2 (no special case). The seeded stream has no failure in the 30 h window."""
    model = FailureModel(afr=0.999, checkpoint_write_h=6.0, seed=1)
    s = model.stretch(2, 8)
    f = 2.0 / s if pace_two else 2.0
    assert s > 1.2
    if pace_two:
        assert s * f == 2.0
    res = simulate(_jobs([0.0], [2], [1.0]), node_count=2, gpus_per_node=8, horizon_h=30, leaf_nodes=1,
                   failures=model, spread=np.array([f]))  # fmt: skip
    assert res.failures["failures"] == 0.0
    wall = round(3600 * (s * f))
    over = wall - 3600
    ckpt = round(over * (s - 1) * f / (s * f - 1))
    assert round(res.end_h[0] * 3600) == wall
    assert round(res.failures["checkpoint_node_h"] * 3600) == 2 * ckpt
    assert round(res.failures["network_wait_node_h"] * 3600) == 2 * (over - ckpt)
    assert round(res.failures["productive_node_h"] * 3600) == 2 * 3600


def test_the_stretch_is_against_the_run_time_the_run_used():
    """A job of 0.0001 h (0.36 s) runs for 1 s — a positive run time is at least 1 s — alone, from its submit: it
    waited for nothing, so its completion-time stretch is 1 (1 s ÷ 1 s), not 1 s ÷ 0.36 s."""
    jobs = _jobs([0.0], [1], [0.0001])
    res = simulate(jobs, node_count=1, gpus_per_node=8, horizon_h=1)
    assert res.run_s.tolist() == [1] and round(res.end_h[0] * 3600) == 1
    row = report(res, jobs, ["all"])["classes"][0]
    assert row["completed"] == 1 and row["stretch_mean"] == 1.0


@pytest.mark.parametrize("spread", [[0.4, 1.0], [1.0, math.nan], [1.0, math.inf], [1.0]])
def test_a_spread_factor_below_one_or_not_one_a_job_is_refused(spread):
    """A job spread over leaf groups runs 1 + its all-to-all share × (taper − 1) ≥ 1 times as long
    (scheduling/network.py); a factor below 1 would book negative network wait (0.4 on a 3 s job: −4 node-seconds),
    so a direct caller's is refused on the field, as the other inputs are."""
    jobs = _jobs([0, 0], [2, 1], [3 / 3600, 1.0])
    with pytest.raises(SchedulerInputError) as e:
        simulate(jobs, node_count=2, gpus_per_node=8, horizon_h=10, leaf_nodes=1, spread=np.array(spread))
    assert "spread" in e.value.errors
