"""A design's simulation report (cluster/simulation.py) on the k = 4 fat-tree drawn by hand: 16 nodes of 8 GPUs,
Kubernetes on the last 4, so the batch partition gpu-large is 12 nodes (96 GPUs) of the design's 16."""

from __future__ import annotations

import numpy as np
import pytest

from cluster.pipeline import plan_cluster
from cluster.simulation import _policies, batch_of, make_jobs, simulate_design
from cluster.validate import validate
from scheduling import SchedulerInputError

FABRIC = {"topology": "fat_tree", "nics_per_node": 1, "switch_radix": 4, "switch_model": "", "tiers": 3}
CLASSES = "short,100,8,16,8,1,3,queued"  # 1–2 node jobs of 1–3 h, all of the offered GPU-hours


def _plan(**workload):
    data = {"node_count": 16, "gpus_per_node": 8, "compute_fabric": FABRIC, "scheduler": {"kubernetes_node_count": 4},
            "workload": {"classes": CLASSES, "days": 60, **workload}}  # fmt: skip
    return plan_cluster(validate(data))


def test_failures_take_the_workloads_rate_and_the_designs_checkpoint_window():
    """AFR 2 % → 0.02 a year; the checkpoint write is the design's storage window in hours (seconds ÷ 3,600)."""
    plan = _plan(afr_pct=2, repair_h=12, restart_h=0.5)
    w, b = plan.requirements.workload, batch_of(plan)
    jobs, profile = make_jobs(w, b)
    f = _policies(plan, w, b, profile, jobs)["failures"]
    assert (f.afr, f.repair_h, f.restart_h) == (0.02, 12, 0.5)
    assert f.checkpoint_write_h == pytest.approx(plan.requirements.checkpoint.window_s / 3600)
    plain = _plan()
    assert _policies(plain, plain.requirements.workload, b, profile, jobs)["failures"] is None  # AFR 0: none


def test_report_curves_and_progress():
    """The wait CDF of each class at every 2nd percentile, 0 to 100 (51 points, from the shortest wait to the
    longest); the timeline in 180 bins over the 60 days (8 h each); progress climbs to 1 in three stages: the
    batch run to 0.6, the pooled run to 0.9 (16 nodes > 12), then done."""
    seen: list[float] = []
    out = simulate_design(_plan(offered_load_pct=90), progress=seen.append)
    cdf = out["wait_cdf"][0]
    assert cdf["percentiles"] == list(range(0, 101, 2)) and len(cdf["wait_h"]) == 51
    assert cdf["wait_h"] == sorted(cdf["wait_h"]) and cdf["wait_h"][0] >= 0
    assert out["timeline"]["bin_h"] == pytest.approx(8.0) and len(out["timeline"]["busy_nodes"]) == 180
    assert seen[-1] == 1.0 and seen == sorted(seen)
    batch = [x for x in seen if x <= 0.6]
    assert batch and all(0.6 <= x <= 0.9 for x in seen[len(batch) : -1])
    assert out["split"]["design_nodes"] == 16 and out["split"]["batch_nodes"] == 12
    assert np.isclose(out["inputs"]["offered_load_frac"], 0.9)


# --- jobs: generated from the workload's figures, or a trace's -------------------------------------------------

TWO_CLASSES = "train,60,8,16,8,1,3,critical,,0.3\nsweep,40,8,8,8,1,2,queued"


def test_generated_jobs_take_the_load_as_a_fraction_and_the_days_as_hours():
    """90 % → load 0.9; 60 days → a 1,440 h horizon; jobs per day only when the arrival says so."""
    from scheduling.workload import generate_jobs

    plan = _plan(offered_load_pct=90, jobs_per_day=50)
    w, b = plan.requirements.workload, batch_of(plan)
    jobs, profile = make_jobs(w, b)
    same = generate_jobs(profile, cluster_gpus=96, load=0.9, horizon_h=1440, seed=w.seed)
    assert np.array_equal(jobs.submit_h, same.submit_h) and np.array_equal(jobs.gpus, same.gpus)
    per_day = _plan(arrival="jobs_per_day", jobs_per_day=50)
    jobs, _ = make_jobs(per_day.requirements.workload, b)
    same = generate_jobs(profile, cluster_gpus=96, load=0.85, horizon_h=1440, seed=w.seed, jobs_per_day=50)
    assert np.array_equal(jobs.submit_h, same.submit_h)
    assert 50 * 60 * 0.8 < len(jobs) < 50 * 60 * 1.2  # ≈ 3,000 jobs in 60 days


TRACE = "submit_h,gpus,hours,class\n0,8,1,train\n0.5,16,2,other\n1,8,1,train\n"


def test_a_replayed_trace_gets_one_class_per_name_with_the_designs_comm_fraction():
    """Trace classes in first-seen order, equal shares (½ each); 'train' keeps the design's all-to-all
    fraction 0.3, 'other' (not a design class) has none. No arrival rates for a trace."""
    plan = _plan(classes=TWO_CLASSES)
    jobs, profile = make_jobs(plan.requirements.workload, batch_of(plan), TRACE)
    assert len(jobs) == 3 and profile.name == "a replayed trace"
    assert [(c.name, c.share, c.comm_fraction) for c in profile.classes] == [("train", 0.5, 0.3), ("other", 0.5, 0.0)]
    out = simulate_design(plan, trace_text=TRACE, split=False)
    assert out["arrivals"] is None and out["inputs"]["offered_load_frac"] is None and out["inputs"]["jobs"] == 3


def test_an_acme_trace_is_read_as_acme():
    acme = (
        "user,gpu_num,type,state,submit_time,duration\n"
        "u1,8,Pretrain,COMPLETED,2023-01-01T00:00:00+00:00,3600\n"
        "u2,16,SFT,COMPLETED,2023-01-01T01:00:00+00:00,7200\n"
    )
    plan = _plan()
    jobs, profile = make_jobs(plan.requirements.workload, batch_of(plan), acme, "acme")
    assert jobs.gpus.tolist() == [8, 16] and jobs.submit_h.tolist() == [0.0, 1.0]
    assert [c.name for c in profile.classes] == ["Pretrain", "SFT"]
    with pytest.raises(SchedulerInputError) as exc:
        make_jobs(plan.requirements.workload, batch_of(plan), acme, "slurm")
    assert exc.value.errors == {"trace_format": "ours or acme"}


# --- arrivals, inputs, the split ---------------------------------------------------------------------------------


def test_arrival_rates_per_class():
    """λ = ρ × C × share ÷ (E[GPUs] × E[hours]) per hour, × 24 per day. 'train': 0.9 × 96 × 0.6 ÷ (12 × 2 ÷ ln 3)
    (8 or 16 GPUs, log-uniform 1–3 h: E = (3 − 1)/ln 3 = 1.8205 h) = 2.373 /h = 56.95 /day; 'sweep': 8 GPUs,
    1–2 h (E = 1/ln 2 = 1.4427 h): 0.9 × 96 × 0.4 ÷ (8 × 1.4427) = 2.9944 /h = 71.87 /day."""
    import math

    out = simulate_design(_plan(classes=TWO_CLASSES, offered_load_pct=90, days=10), split=False)
    train, sweep = out["arrivals"]
    assert train["jobs_per_day"] == pytest.approx(0.9 * 96 * 0.6 / (12 * 2 / math.log(3)) * 24, rel=1e-9)
    assert sweep["jobs_per_day"] == pytest.approx(0.9 * 96 * 0.4 / (8 * 1 / math.log(2)) * 24, rel=1e-9)
    assert train["derivation"].endswith("= 0.9 × 96 × 0.6 ÷ (12.0 × 1.8 h) = 56.95 jobs/day")
    assert (train["name"], train["share_frac"], train["sla"]) == ("train", 0.6, "critical")
    i = out["inputs"]
    assert i["afr"] == 0.0 and i["a2a_fraction"] == 0.3 and i["days"] == 10


def test_the_inputs_state_the_failure_rate_as_a_fraction():
    out = simulate_design(_plan(afr_pct=2, days=10), split=False)
    assert out["inputs"]["afr"] == 0.02


def test_the_split_effect_compares_the_same_classes():
    """12 batch nodes of the design's 16: the other 4 pooled in; one row per class, the split run's p95 wait
    beside the pooled run's."""
    out = simulate_design(_plan(classes=TWO_CLASSES, offered_load_pct=90, days=20))
    split = out["split"]
    assert [r["name"] for r in split["classes"]] == ["train", "sweep"]
    assert [r["split_wait_h_p95"] for r in split["classes"]] == [c["wait_h_p95"] for c in out["classes"]]
    assert "(the 4 nodes outside the batch partition gpu-large pooled in)" in split["derivation"]
    assert simulate_design(_plan(days=5), split=False)["split"] is None


def test_no_split_effect_when_the_batch_partition_is_the_whole_design():
    data = {"node_count": 16, "gpus_per_node": 8, "compute_fabric": FABRIC,
            "workload": {"classes": CLASSES, "days": 5}}  # fmt: skip
    plan = plan_cluster(validate(data))
    assert batch_of(plan).node_count == batch_of(plan).design_nodes == 16
    assert simulate_design(plan)["split"] is None


# --- the wait CDF, by hand -------------------------------------------------------------------------------------


def test_wait_cdf_counts_started_jobs_only():
    """Class 0: jobs submitted at 0, 1, 2 h and started at 1, 1, 5 h → waits 1, 0, 3 h; a fourth never started
    (NaN) and a fifth starts exactly at the 10 h horizon (not within it). Class 1 has no started job."""
    from types import SimpleNamespace

    from cluster.simulation import CDF_QUANTILES, _wait_cdf

    res = SimpleNamespace(
        start_h=np.array([1.0, 1.0, 5.0, np.nan, 10.0, np.nan]),
        horizon_h=10.0,
        submit_s=np.array([0, 3600, 7200, 10800, 14400, 0]),
    )  # the run's whole seconds
    jobs = SimpleNamespace(submit_h=np.array([0.0, 1.0, 2.0, 3.0, 4.0, 0.0]), cls=np.array([0, 0, 0, 0, 0, 1]))
    a, b = _wait_cdf(res, jobs, ["a", "b"])
    assert a["jobs"] == 3 and a["wait_h"][0] == 0.0 and a["wait_h"][-1] == 3.0
    assert a["wait_h"][CDF_QUANTILES.index(50)] == 1.0  # the median of 0, 1, 3
    assert len(CDF_QUANTILES) == 51 and CDF_QUANTILES[-1] == 100
    assert b == {"name": "b", "jobs": 0, "percentiles": list(range(0, 101, 2)), "wait_h": []}


def test_progress_stages():
    from cluster.simulation import _stage

    seen: list[float] = []
    stage = _stage(seen.append, 0.2, 0.6)
    stage(0.5)
    stage(2.0)  # a run that overshoots still ends its stage at 0.6
    assert seen == [pytest.approx(0.4), pytest.approx(0.6)]
    assert _stage(None, 0, 1) is None


# --- carbon-aware deferral ---------------------------------------------------------------------------------------

HOURLY = ",".join(["400"] * 12 + ["100"] * 12)


def test_carbon_policy_charges_each_gpu_its_share_of_the_facility():
    """The design's facility kW over its 128 GPUs; critical classes are never deferred unless chosen."""
    plan = _plan(classes=TWO_CLASSES, carbon_hourly_g_per_kwh=HOURLY, days=5)
    w, b = plan.requirements.workload, batch_of(plan)
    jobs, profile = make_jobs(w, b)
    kw = _policies(plan, w, b, profile, jobs)
    assert kw["carbon"].kw_per_gpu == pytest.approx(float(plan.result()["summary"]["facility_kw"]) / 128, rel=1e-12)
    assert kw["carbon"].intensity_g_per_kwh == (400.0,) * 12 + (100.0,) * 12
    train = jobs.cls == 0  # critical
    assert not kw["deferrable"][train].any() and kw["deferrable"][~train].all()
    chosen = _policies(plan, w, b, profile, jobs, ["train"])["deferrable"]
    assert np.array_equal(chosen, train)
    with pytest.raises(SchedulerInputError) as exc:
        _policies(plan, w, b, profile, jobs, ["train", "eval", "serve"])
    assert exc.value.errors == {"carbon.classes": "unknown class 'eval'; the classes: train, sweep"}  # the first
    out = simulate_design(plan, split=False)
    assert out["carbon"] is not None


# --- the capacity search ------------------------------------------------------------------------------------------


def test_capacity_at_the_designs_own_size_is_the_designs_simulation():
    """Same jobs, same batch nodes, same policy and placement: the curve's row at 128 GPUs is the design's
    own report; the progress runs through the three sizes in order and ends at 1."""
    from cluster.simulation import capacity_design
    from scheduling.capacity import Target

    plan = _plan(offered_load_pct=80, days=60)  # long enough for progress reports within each run
    own = simulate_design(plan, split=False)
    seen: list[float] = []
    cap = capacity_design(plan, Target("short", 100), [96, 112, 128], progress=seen.append)
    row = cap["rows"][-1]
    assert row["size"] == 128 and row["batch_nodes"] == 12
    assert row["report"]["classes"] == own["classes"] and row["report"]["utilization_frac"] == own["utilization_frac"]
    assert seen == sorted(seen) and seen[-1] == 1.0 and max(seen) <= 1.0
    assert any(1 / 3 < x < 1 for x in seen[:-1]) and any(2 / 3 < x < 1 for x in seen[:-1])


def test_capacity_refuses_a_size_whose_batch_partition_is_smaller_than_the_largest_job():
    """A workload of 16- or 24-GPU jobs replayed on the design re-planned at 48 GPUs (6 nodes, 4 for Kubernetes:
    a 16-GPU batch partition) and 56 GPUs (24 GPUs: the largest job just fits)."""
    from cluster.simulation import capacity_design
    from scheduling.capacity import Target

    plan = _plan(days=10)
    big = plan.requirements.workload.__class__(
        **{**plan.requirements.workload.__dict__, "classes": "big,100,16,24,8,1,3,queued"}
    )
    cap = capacity_design(plan, Target("big", 100), [48, 56], workload=big)
    small, fits = cap["rows"]
    assert small["error"] == "its batch partition (16 GPUs) is smaller than the largest job (24 GPUs)"
    assert "error" not in fits and fits["batch_nodes"] == 3


def test_check_run_refuses_what_a_run_would_refuse():
    from cluster.simulation import check_run
    from scheduling.capacity import Target

    r = _plan(days=5).requirements  # the requirements alone: check_run plans nothing and makes no job
    assert check_run(r, target=Target("short", 100))["classes"] == ["short"]  # candidate sizes: fine
    for kwargs, field in (
        (
            {"target": Target("short", 100), "trace_text": TRACE.replace("train", "short").replace("other", "short")},
            "trace",
        ),
        ({"target": Target("long", 100)}, "target.job_class"),
        ({"target": Target("short", 100), "sizes": [12]}, "gpus"),
    ):
        with pytest.raises(SchedulerInputError) as exc:
            check_run(r, **kwargs)
        assert list(exc.value.errors) == [field]


def test_candidate_sizes_are_refused_as_bools_even_for_one_gpu_nodes():
    from cluster.simulation import check_sizes

    check_sizes([1, 2], 1)
    with pytest.raises(SchedulerInputError):
        check_sizes([True], 1)
    check_sizes(list(range(8, 8 * 25, 8)), 8)  # 24 sizes
    with pytest.raises(SchedulerInputError):
        check_sizes(list(range(8, 8 * 26, 8)), 8)  # 25


def test_carbon_counts_the_runs_inside_the_window():
    """A constant 100 g/kWh (under the 200 g threshold: nothing deferred): every busy node-hour inside the 5-day
    window emits 8 GPUs × kW per GPU × 100 g/kWh; the jobs still running at 120 h stop counting there."""
    plan = _plan(offered_load_pct=95, days=5, carbon_hourly_g_per_kwh=",".join(["100"] * 24))
    out = simulate_design(plan, split=False)
    c = out["carbon"]
    assert c["t_co2"] == pytest.approx(out["busy_node_h"] * 8 * c["kw_per_gpu"] * 100 / 1e6, rel=1e-9)
    assert c["saved_t_co2"] == 0.0


def test_progress_without_the_split_run_goes_to_0_9_then_1():
    """No pooled run: the batch run takes the progress to 0.9 at most, then the report is done (1.0)."""
    seen: list[float] = []
    simulate_design(_plan(offered_load_pct=90, days=60), progress=seen.append, split=False)
    assert seen[-1] == 1.0 and len(seen) > 2
    assert all(0 <= x <= 0.9 for x in seen[:-1]) and seen == sorted(seen)
