"""Issue #15: the queue simulator — Erlang C, Little's law, no node given twice, gangs all-or-nothing,
node-hours conserved, determinism, and a plain reference implementation as the oracle."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from scheduling import SchedulerInputError
from scheduling.reference import reference_starts
from scheduling.simulator import job_seconds, report, simulate
from scheduling.workload import SEED_TABLE_14_24, JobClass, Jobs, Profile, generate_jobs


def erlang_c_wait_h(c: int, a: float, mean_service_h: float) -> float:
    """M/M/c mean wait in the queue: Wq = C(c, a) ÷ (c μ − λ), C from the Erlang B recursion
    B(0) = 1, B(k) = a B(k−1) ÷ (k + a B(k−1)); C = B ÷ (1 − (a/c)(1 − B)) (Kleinrock, Queueing Systems I, §3.5)."""
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    erlang_c = b / (1 - (a / c) * (1 - b))
    mu = 1 / mean_service_h
    return erlang_c / (c * mu - a * mu)


@pytest.mark.parametrize("load", [0.5, 0.7, 0.9])
def test_fifo_on_single_gpu_jobs_matches_erlang_c(load):
    """Single-GPU jobs, Poisson arrivals, exponential 1 h services, FIFO on c = 16 GPUs: the simulated mean
    wait lies in the 99 % batch-means confidence interval (30 batches after a 5 % warm-up) of the Erlang C
    value. The Erlang value is not a tuning target: the test fails if the queue keeps time wrongly."""
    c, horizon_h = 16, 40_000.0 if load < 0.9 else 60_000.0
    profile = Profile((JobClass("x", 1.0, 1, 1, 1, 1.0, 1.0, duration="exponential"),))
    jobs = generate_jobs(profile, cluster_gpus=c, load=load, horizon_h=horizon_h, seed=11)
    res = simulate(jobs, node_count=c, gpus_per_node=1, horizon_h=horizon_h, policy="fifo")
    done = ~np.isnan(res.start_h)
    waits = (res.start_h - jobs.submit_h)[done]
    waits = waits[len(waits) // 20 :]
    batches = np.array([b.mean() for b in np.array_split(waits, 30)])
    half = stats.t.ppf(0.995, len(batches) - 1) * batches.std(ddof=1) / np.sqrt(len(batches))
    expected = erlang_c_wait_h(c, load * c, 1.0)
    assert abs(batches.mean() - expected) <= half, (batches.mean(), expected, half)
    assert half < 0.4 * expected  # the interval is tight enough to mean something (±30 % at 0.5, ±5 % at 0.9)


def _random_jobs(draw, n_max=40):
    n = draw(st.integers(1, n_max))
    submit = np.sort(np.array(draw(st.lists(st.floats(0, 200, allow_nan=False), min_size=n, max_size=n))))
    gpus = np.array(draw(st.lists(st.integers(1, 64), min_size=n, max_size=n)))
    hours = np.array(draw(st.lists(st.floats(0.5, 120, allow_nan=False), min_size=n, max_size=n)))
    prio = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    return Jobs(submit, gpus.astype(np.int64), hours, np.zeros(n, dtype=np.int64), prio.astype(np.int64))


@st.composite
def workloads(draw):
    return _random_jobs(draw), draw(st.sampled_from(["fifo", "easy"])), draw(st.sampled_from([0, 2, 4]))


@given(workloads())
@settings(max_examples=150, deadline=None)
def test_invariants_and_the_reference_oracle(case):
    """On random small queues (8 nodes of 8 GPUs): every start time equals the reference implementation's;
    no node is held by two jobs at once; a job gets exactly ⌈GPUs ÷ 8⌉ nodes (all or nothing); busy
    node-hours integrated event by event = the per-job sum, and busy + idle = capacity; Little's law."""
    jobs, policy, leaf = case
    horizon = 300.0
    res = simulate(jobs, node_count=8, gpus_per_node=8, horizon_h=horizon, policy=policy, leaf_nodes=leaf, record=True)
    # the simulator keeps time in whole seconds (its one rounding rule, job_seconds): the oracle runs on the same
    # whole seconds, in exact integer arithmetic, and its starts ÷ 3,600 are the simulator's hours
    submit_s, run_s = job_seconds(jobs)
    ref = reference_starts(
        submit_s.tolist(), (-(-jobs.gpus // 8)).tolist(), run_s.tolist(), jobs.priority.tolist(),
        node_count=8, horizon_h=int(horizon * 3600), policy=policy,
    )  # fmt: skip
    ours = [None if np.isnan(s) else float(s) for s in res.start_h]
    assert ours == [None if s is None else s / 3600 for s in ref]
    # no node twice: each node's intervals are disjoint
    held: dict[int, list[tuple[float, float]]] = {}
    for j, nodes in res.allocations:
        assert nodes.size == -(-int(jobs.gpus[j]) // 8) and len(set(nodes.tolist())) == nodes.size
        for x in nodes.tolist():
            held.setdefault(x, []).append((float(res.start_h[j]), float(res.end_h[j])))
    for spans in held.values():
        spans.sort()
        assert all(a_end <= b_start + 1e-9 for (_, a_end), (b_start, _) in itertools.pairwise(spans))
    rep = report(res, jobs, ["all"])
    started = ~np.isnan(res.start_h) & (res.start_h < horizon)
    per_job = np.where(started, np.clip(np.minimum(res.end_h, horizon) - res.start_h, 0, None) * res.nodes, 0.0)
    assert float(per_job.sum()) == pytest.approx(res.busy_integral_node_h, rel=1e-9, abs=1e-6)
    assert rep["busy_node_h"] == res.busy_integral_node_h
    assert rep["busy_node_h"] + rep["idle_node_h"] == pytest.approx(rep["capacity_node_h"])
    # crossing node-hours are busy ones (core ⊂ spine); idle-while-waiting is idle time; no groups, no crossing
    assert -1e-9 <= res.core_node_h <= res.spine_node_h <= res.busy_integral_node_h + 1e-9
    assert -1e-9 <= res.idle_waiting_node_h <= rep["idle_node_h"] + 1e-9
    assert leaf or res.spine_node_h == 0
    little = rep["little"]
    assert little["queue_length_mean"] == pytest.approx(
        little["arrival_rate_per_h"] * little["wait_h_mean"], rel=1e-9, abs=1e-9
    )


def test_easy_backfill_by_hand():
    """4 nodes. t=0: A takes 3 nodes for 10 h. t=1: B wants 4 nodes (head, must wait for A: shadow t=10,
    no spare node then). t=2: C wants 1 node for 5 h: ends at 7 ≤ 10, so EASY starts it at 2; D (t=3, 1 node,
    20 h) would end after 10 and there is no spare node at 10: it waits. FIFO starts C only after B."""
    jobs = Jobs(
        np.array([0.0, 1.0, 2.0, 3.0]), np.array([24, 32, 8, 8]), np.array([10.0, 5.0, 5.0, 20.0]),
        np.zeros(4, dtype=np.int64), np.ones(4, dtype=np.int64),
    )  # fmt: skip
    easy = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100, policy="easy")
    fifo = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100, policy="fifo")
    assert easy.start_h.tolist() == [0.0, 10.0, 2.0, 15.0]
    assert fifo.start_h.tolist() == [0.0, 10.0, 15.0, 15.0]


def test_spare_nodes_count_every_job_ending_at_the_shadow_time():
    """8 nodes (hypothesis found it). t=0: A takes 3 nodes for 2 h and B (6 nodes) heads the queue; five
    1-node jobs backfill the rest (four for 1 h, one for 1.5 h), four more run from t=1 to t=2. At t=1.5
    one node is free; at the shadow
    time t=2 A and the four C end together: 1 + 3 + 4 = 8 free, B takes 6, so 2 are spare. A 1-node,
    1-hour job D (ends 2.5 > 2) may start at 1.5 on a spare node. Counting only up to the job that makes
    B fit (A, then one C: 1 + 3 + 1 + 1 = 6) left no spare and held D until 2."""
    gpus = [24, 48, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]
    hours = [2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5, 1.0, 1.0, 1.0, 1.0, 1.0]
    n = len(gpus)
    jobs = Jobs(np.zeros(n), np.array(gpus), np.array(hours), np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64))
    res = simulate(jobs, node_count=8, gpus_per_node=8, horizon_h=100, policy="easy")
    assert res.start_h.tolist() == [0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.5]
    ref = reference_starts([0.0] * n, [g // 8 for g in gpus], hours, [1] * n, node_count=8, horizon_h=100,
                           policy="easy")  # fmt: skip
    assert ref == res.start_h.tolist()


def test_a_job_larger_than_a_group_goes_to_the_pod_that_holds_it_and_the_books_follow():
    """8 nodes: 4 leaf groups of 2 in 2 pods (groups 0–1 in pod 0, 2–3 in pod 1). t=0: A (1 node, 10 h)
    best-fits group 0 (node 0). t=1: B (3 nodes, 4 h) fits no group; pod 0 has 3 free, pod 1 has 4: the
    best-fitting pod is pod 0, so B takes nodes 1, 2, 3 — across groups (the spine), inside a pod (not
    the core). Most-free-groups-first over the whole fabric would have put it across both pods.
    Books: spine = 3 nodes × 4 h = 12 node-h, core 0; no one waits, so no idle-while-waiting."""
    jobs = Jobs(np.array([0.0, 1.0]), np.array([8, 24]), np.array([10.0, 4.0]), np.zeros(2, dtype=np.int64),
                np.ones(2, dtype=np.int64))  # fmt: skip
    res = simulate(jobs, node_count=8, gpus_per_node=8, horizon_h=20, groups=[0, 0, 1, 1, 2, 2, 3, 3],
                   pods=[0, 0, 1, 1], record=True)  # fmt: skip
    assert [sorted(n.tolist()) for _, n in res.allocations] == [[0], [1, 2, 3]]
    assert res.in_one_group.tolist() == [True, False] and res.in_one_pod.tolist() == [True, True]
    assert res.spine_node_h == pytest.approx(12.0) and res.core_node_h == 0.0 and res.idle_waiting_node_h == 0.0
    rep = report(res, jobs, ["all"])
    assert rep["spine_gpu_h"] == pytest.approx(96.0) and rep["classes"][0]["one_pod_frac"] == 1.0
    flat = simulate(jobs, node_count=8, gpus_per_node=8, horizon_h=20, leaf_nodes=2, record=True)
    assert sorted(flat.allocations[1][1].tolist()) == [2, 3, 4]  # one pod of consecutive groups: fullest first
    with pytest.raises(SchedulerInputError):
        simulate(jobs, node_count=8, gpus_per_node=8, horizon_h=20, groups=[0, 0, 1])


def test_fragmentation_and_stretch_by_hand():
    """4 nodes. A takes 3 for 10 h at t=0; B (4 nodes, 5 h) arrives at t=1 and waits until 10 while one node
    idles: 9 idle node-hours while a job waits (72 GPU-h). Stretch = (end − submit) ÷ run time: A 1, B
    (15 − 1) ÷ 5 = 2.8."""
    jobs = Jobs(np.array([0.0, 1.0]), np.array([24, 32]), np.array([10.0, 5.0]), np.array([0, 1]),
                np.ones(2, dtype=np.int64))  # fmt: skip
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=30)
    assert res.idle_waiting_node_h == pytest.approx(9.0)
    rep = report(res, jobs, ["a", "b"])
    assert rep["idle_waiting_gpu_h"] == pytest.approx(72.0)
    assert rep["classes"][0]["stretch_mean"] == pytest.approx(1.0)
    assert rep["classes"][1]["stretch_mean"] == pytest.approx(2.8) and rep["classes"][1]["completed"] == 1


def test_priority_puts_critical_first():
    """EASY orders the queue by SLA class: a critical job submitted after a queued one starts first."""
    jobs = Jobs(np.array([0.0, 1.0, 2.0]), np.array([32, 32, 32]), np.array([10.0, 10.0, 10.0]),
                np.zeros(3, dtype=np.int64), np.array([1, 1, 2]))  # fmt: skip
    res = simulate(jobs, node_count=4, gpus_per_node=8, horizon_h=100, policy="easy")
    assert res.start_h.tolist() == [0.0, 20.0, 10.0]


def test_seed_profile_is_deterministic_and_sane():
    """The seed's Table 14-24 on the 2,000-GPU design (250 nodes of 8) at 85 % offered load for a year."""
    kw = {"cluster_gpus": 2000, "load": 0.85, "horizon_h": 8760.0}
    a = generate_jobs(SEED_TABLE_14_24, seed=3, **kw)
    b = generate_jobs(SEED_TABLE_14_24, seed=3, **kw)
    assert np.array_equal(a.submit_h, b.submit_h) and np.array_equal(a.gpus, b.gpus)
    ra = simulate(a, node_count=250, gpus_per_node=8, horizon_h=8760.0, leaf_nodes=32)
    rb = simulate(b, node_count=250, gpus_per_node=8, horizon_h=8760.0, leaf_nodes=32)
    assert np.array_equal(ra.start_h, rb.start_h, equal_nan=True)
    rep = report(ra, a, [c.name for c in SEED_TABLE_14_24.classes])
    assert 0.6 < rep["utilization_frac"] <= 0.85 + 0.05  # cannot run more than offered (plus the window's edge)
    # the offered GPU-hours split as the shares say (±25 % on a year of a few hundred jobs per class)
    offered = {c: float((a.gpus * a.hours)[a.cls == i].sum()) for i, c in enumerate("abcd")}
    total = sum(offered.values())
    for (c, v), share in zip(offered.items(), (0.4, 0.3, 0.2, 0.1), strict=True):
        assert abs(v / total - share) < 0.25 * share + 0.05, (c, v / total)


def test_profile_refusals():
    bad = Profile((JobClass("a", 0.6, 8, 64, 8, 1, 2), JobClass("b", 0.3, 8, 4096, 8, 1, 2)))
    with pytest.raises(SchedulerInputError) as e:
        generate_jobs(bad, cluster_gpus=2000, load=0.8, horizon_h=100, seed=1)
    assert "add up to 90 %, not 100 %" in e.value.errors["classes"]
    assert "larger than the 2,000-GPU cluster" in e.value.errors["classes.1.max_gpus"]
    with pytest.raises(SchedulerInputError) as e:
        generate_jobs(SEED_TABLE_14_24, cluster_gpus=2000, load=0.8, horizon_h=-1, seed=1)
    assert "horizon_h" in e.value.errors
    neg = Profile((JobClass("a", 1.0, 8, 64, 8, -1, 2),))
    with pytest.raises(SchedulerInputError) as e:
        generate_jobs(neg, cluster_gpus=2000, load=0.8, horizon_h=100, seed=1)
    assert "classes.0.min_hours" in e.value.errors


def test_simulate_cli_on_the_seed_design():
    """`cluster-designer simulate` runs pure (no Django), on the seed design's batch partition (200 nodes, 1,600 GPUs),
    placing into its 32-node SU leaf groups; a bad option is refused on the option's name."""
    import json
    import subprocess

    from tests.cluster.test_console import cluster_designer
    from tests.conftest import EXAMPLES, ROOT

    cmd = [cluster_designer(), "simulate", str(EXAMPLES / "seed-2000-gpu.yaml"), "--days", "60"]
    out = subprocess.run([*cmd, "--format", "json"], cwd=ROOT, capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert (
        data["inputs"]["nodes"] == 200 and data["inputs"]["gpus"] == 1600 and data["inputs"]["leaf_group_nodes"] == 32
    )
    assert [c["name"] for c in data["classes"]] == [
        "pretraining",
        "fine-tuning",
        "small-model",
        "hyper-parameter search",
    ]
    little = data["little"]
    assert little["queue_length_mean"] == pytest.approx(little["arrival_rate_per_h"] * little["wait_h_mean"])
    # fabric failures are on by default at the cited AFRs (issue #37); off with --no-fabric-failures
    assert data["fabric_failures"]["causes"][0]["cause"] == "gpu" and data["inputs"]["fabric"][0]["afr_pct"] == 5.0
    off = json.loads(subprocess.run([*cmd, "--no-fabric-failures", "--format", "json"], cwd=ROOT, capture_output=True,
                                    text=True, check=True).stdout)  # fmt: skip
    assert "fabric_failures" not in off and "failures" not in off
    neg = subprocess.run([*cmd, "--fabric-afr-pct", "leaf=-2"], cwd=ROOT, capture_output=True, text=True)
    assert neg.returncode == 1 and "fabric.leaf.afr_pct: a percentage per part per year" in neg.stderr
    bad = subprocess.run([*cmd[:-1], "0"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 1 and "--days (workload.days): 0.0 is too small; allowed: 1 to 3,650" in bad.stderr
    failing = subprocess.run([*cmd, "--afr-pct", "5", "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    f = json.loads(failing.stdout)["failures"]
    assert f["failures"] >= 1 and f["goodput_frac"] < json.loads(failing.stdout)["utilization_frac"]
    assert "productive node-hours" in f["derivation"]
    pre = json.loads(subprocess.run([*cmd, "--preempt", "--format", "json"], cwd=ROOT, capture_output=True,
                                    text=True, check=True).stdout)  # fmt: skip
    assert pre["inputs"]["preempt"] and pre["classes"][0]["wait_h_p95"] <= data["classes"][0]["wait_h_p95"]
    fifo = subprocess.run([*cmd, "--preempt", "--policy", "fifo"], cwd=ROOT, capture_output=True, text=True)
    assert fifo.returncode == 1 and (
        "--preempt (workload.preempt): preemption orders the queue by class: use the easy policy" in fifo.stderr
    )
    tapered = [cluster_designer(), "simulate", str(EXAMPLES / "fat-tree-2048-1p5to1.yaml"), "--days", "60"]
    moe = json.loads(subprocess.run([*tapered, "--a2a-fraction", "0.3", "--format", "json"], cwd=ROOT,
                                    capture_output=True, text=True, check=True).stdout)  # fmt: skip
    assert moe["inputs"]["spread_factor_max"] > 1 and moe["failures"]["network_wait_node_h"] > 0
    flat = json.loads(subprocess.run([*cmd, "--a2a-fraction", "0.3", "--format", "json"], cwd=ROOT,
                                     capture_output=True, text=True, check=True).stdout)  # fmt: skip
    assert flat["inputs"]["spread_factor_max"] == 1.0  # the seed design is 1:1: spreading costs nothing
    acme = ROOT / "tests" / "scheduling" / "data" / "acme-seren-layout-sample.csv"
    replay = json.loads(subprocess.run([*cmd, "--trace", str(acme), "--trace-format", "acme", "--format", "json"],
                                       cwd=ROOT, capture_output=True, text=True, check=True).stdout)  # fmt: skip
    assert replay["inputs"]["jobs"] == 5 and replay["inputs"]["offered_load_frac"] is None
    assert [c["name"] for c in replay["classes"]] == ["Pretrain", "Eval", "SFT", "Debug"]
    no_cols = subprocess.run([*cmd, "--trace", str(acme)], cwd=ROOT, capture_output=True, text=True)
    assert no_cols.returncode == 1 and "trace: missing column(s) submit_h, gpus, hours, class" in no_cols.stderr
    profile = ",".join("150" if 9 <= h < 17 else "450" for h in range(24))
    # GPU failures only (no fabric failures): the deferral's saving is compared on the same failure-free jobs
    gpu_only = [*cmd, "--carbon-profile", profile, "--no-fabric-failures", "--format", "json"]
    green = json.loads(subprocess.run(gpu_only, cwd=ROOT, capture_output=True, text=True, check=True).stdout)["carbon"]
    assert green["saved_t_co2"] > 0 and green["wait_added_h_mean"] > 0 and green["deferrable_jobs"] > 0
    assert green["t_co2_without_deferral"] - green["t_co2"] == pytest.approx(green["saved_t_co2"])
    bad_profile = subprocess.run([*cmd, "--carbon-profile", "1,2,3"], cwd=ROOT, capture_output=True, text=True)
    assert bad_profile.returncode == 1 and (
        "--carbon-profile (workload.carbon_hourly_g_per_kwh): 24 numbers ≥ 0 separated by commas" in bad_profile.stderr
    )
    bad_class = subprocess.run([*cmd, "--carbon-profile", profile, "--defer-classes", "nope"], cwd=ROOT,
                               capture_output=True, text=True)  # fmt: skip
    assert bad_class.returncode == 1 and "--defer-classes: unknown class 'nope'" in bad_class.stderr
    demand = ",".join("400" if 9 <= h < 21 else "100" for h in range(24))
    tide = json.loads(subprocess.run([*cmd, "--inference-demand", demand, "--format", "json"], cwd=ROOT,
                                     capture_output=True, text=True, check=True).stdout)  # fmt: skip
    split = tide["busy_node_h"] + tide["inference_node_h"] + tide["idle_node_h"] + tide["down_node_h"]
    assert tide["inference_node_h"] > 0 and split == pytest.approx(tide["capacity_node_h"])
    bad_tide = subprocess.run([*cmd, "--inference-demand", "1,2"], cwd=ROOT, capture_output=True, text=True)
    assert bad_tide.returncode == 1 and (
        "--inference-demand (workload.inference_demand_gpus): 24 numbers ≥ 0" in bad_tide.stderr
    )
    refused = subprocess.run([*cmd, "--afr-pct", "150"], cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode == 1 and (
        "--afr-pct (workload.afr_pct): 150.0 is too large; allowed: 0 to 100" in refused.stderr
    )
    # one convention: the flag is percent, as the file's afr_pct; the old fraction flag is refused by name
    old = subprocess.run([*cmd, "--afr", "0.02"], cwd=ROOT, capture_output=True, text=True)
    assert old.returncode == 2 and "--afr took a fraction" in old.stderr and "--afr-pct 2 for --afr 0.02" in old.stderr


def test_simulate_cli_refuses_a_bad_workload_in_the_file(tmp_path):
    """A file whose classes do not add up to 100 % (or do not fit the batch partition) is refused on
    workload.classes before anything runs; a file without a workload gets the seed's Table 14-24."""
    import subprocess

    import yaml

    from tests.cluster.test_console import cluster_designer
    from tests.conftest import EXAMPLES, ROOT

    cli = cluster_designer()
    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    data["workload"]["classes"][0]["share_pct"] = 50
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    out = subprocess.run([cli, "simulate", str(bad), "--days", "10"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1 and "workload.classes: the shares add up to 110 %, not 100 %" in out.stderr
    data["workload"]["classes"][0].update(share_pct=40, max_gpus=1664)
    bad.write_text(yaml.safe_dump(data))
    out = subprocess.run([cli, "capacity", str(bad), "--days", "10"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1 and "1,664 GPUs is larger than the 1,600-GPU cluster" in out.stderr
    del data["workload"]
    bad.write_text(yaml.safe_dump(data))
    out = subprocess.run([cli, "simulate", str(bad), "--days", "10"], cwd=ROOT, capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert "the seed's Table 14-24 (the design gives no job classes)" in out.stdout
