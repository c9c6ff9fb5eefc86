"""Every request bounded (issue #32, item 3): sweep grids, simulations and capacity searches are sized from
the spec alone and refused before anything is built; the same GPU ceiling (settings.MAX_REQUEST_GPUS) holds
for the form, the API, sweep variants and capacity candidates, the command line refuses above its own
(``cluster.gpu_count``'s maximum).

No timed assertions here (house rule): each test patches what the old code built in the request — the
variant planner, the design planner, the job generator — to fail if called. Response times and the
worker's memory at each limit are measured by ``benchmarks/bounds.py`` (``make bench``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml
from django.test import Client

from cluster import capacity_cli
from designer.models import SimulationRun, Sweep, SweepChunk
from designer.services import create_design, evaluate_flat
from designer.simulations import run_simulation
from scheduling import SchedulerInputError
from scheduling.workload import MAX_JOBS, JobClass, Profile, arrival_rates_per_h, generate_jobs
from tests.conftest import EXAMPLES
from tests.designer.test_simulations import seed_flat

TINY = {  # one-GPU, one-hour jobs: 0.85 × 1,600 batch GPUs ÷ 1 GPU-h = 1,360 jobs an hour
    "name": "tiny",
    "share_pct": 100,
    "min_gpus": 1,
    "max_gpus": 1,
    "granularity_gpus": 1,
    "min_hours": 1,
    "max_hours": 1,
    "sla": "queued",
}
CUBE = {  # the finding's repro: 64 × 64 × 64 = 262,144 variants (each list within MAX_VALUES)
    "node_count": list(range(1, 65)),
    "oversubscription": [float(k) for k in range(1, 65)],
    "nic_gbps": list(range(50, 3201, 50)),
}


def refuse(*_a, **_k):
    raise AssertionError("built in the request")


@pytest.fixture
def api(alice):
    c = Client()
    c.force_login(alice)
    return c


def post_sweep(api, design, vary: dict) -> dict:
    r = api.post(
        "/api/v1/sweeps/",
        {"design": design.pk, "spec": {"collectives": ["all_reduce"], "max_bytes": 1024, "vary": vary}},
        content_type="application/json",
    )
    return {**r.json(), "http": r.status_code}


# --- sweeps -------------------------------------------------------------------------------------------


def test_the_64_cube_sweep_is_refused_before_any_variant_is_planned(api, alice_design, monkeypatch):
    """Was 127 s, 1.6 GB and a 27.7 MB response: every variant planned in the request."""
    assert [len(v) for v in CUBE.values()] == [64, 64, 64]
    monkeypatch.setattr("designer.sweeps.fabric_for", refuse)
    got = post_sweep(api, alice_design, CUBE)
    assert got["http"] == 400
    assert got["errors"] == {
        "vary": [
            "262,144 variants (64 node_count × 64 oversubscription × 64 nic_gbps) is more than the 1,024 a sweep "
            "may plan (SWEEP_MAX_VARIANTS)"
        ]
    }
    assert not Sweep.objects.exists() and not SweepChunk.objects.exists()


def test_a_sweep_at_the_variant_limit_is_accepted_and_one_more_is_refused(api, alice_design, monkeypatch):
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    at_limit = {"node_count": list(range(8, 129, 8)), "oversubscription": [float(k) for k in range(1, 65)]}
    got = post_sweep(api, alice_design, at_limit)
    assert got["http"] == 201, got
    assert len(got["variants"]) == 1024 and got["total_points"] == 1024 * 8
    monkeypatch.setattr("designer.sweeps.fabric_for", refuse)
    over = post_sweep(api, alice_design, {**at_limit, "node_count": list(range(8, 137, 8))})
    assert over["http"] == 400 and "1,088 variants" in over["errors"]["vary"][0]
    assert Sweep.objects.count() == 1


def test_planned_gpus_over_all_variants_are_bounded(alice_design, settings, monkeypatch):
    """Four variants at the ceiling (4 × 262,144 = SWEEP_MAX_PLANNED_GPUS) plan; one node more does not."""
    from designer.sweeps import SweepSpecError, resolve_spec

    r = alice_design.head.requirements()
    grid, labels, _ = resolve_spec(r, {"vary": {"node_count": [32768], "oversubscription": [1, 2, 3, 4]}})
    assert len(grid.fabrics) == 4 and labels[0].startswith("262,144 GPUs")
    monkeypatch.setattr("designer.sweeps.fabric_for", refuse)
    with pytest.raises(SweepSpecError) as exc:
        resolve_spec(r, {"vary": {"node_count": [32768, 1], "oversubscription": [1, 2, 3, 4]}})
    assert exc.value.errors == {
        "vary": [
            "8 variants plan 1,048,608 GPUs in all, more than the 1,048,576 a sweep may plan "
            "(SWEEP_MAX_PLANNED_GPUS): fewer or smaller node counts"
        ]
    }


def test_a_sweep_variant_above_the_gpu_ceiling_is_refused(api, alice_design, settings, monkeypatch):
    """32,769 nodes × 8 GPUs = 262,152 GPUs: over MAX_REQUEST_GPUS (the old sweep bound was 1,048,576)."""
    assert alice_design.head.requirements()["gpus_per_node"] == 8
    monkeypatch.setattr("designer.sweeps.fabric_for", refuse)
    got = post_sweep(api, alice_design, {"node_count": [16, 32769]})
    assert got["http"] == 400
    assert got["errors"] == {
        "vary.node_count": [
            "32,769 nodes × 8 GPUs is 262,152 GPUs, more than MAX_REQUEST_GPUS (262,144): at most 32,768 nodes"
        ]
    }
    settings.MAX_REQUEST_GPUS = 1024  # the same setting, not a sweep constant
    got = post_sweep(api, alice_design, {"node_count": [129]})
    assert "more than MAX_REQUEST_GPUS (1,024): at most 128 nodes" in got["errors"]["vary.node_count"][0]
    page = api.post(
        f"/designs/{alice_design.pk}/sweeps/new/", {"collectives": ["all_reduce"], "vary_node_count": "129"}
    )
    assert page.status_code == 200 and "MAX_REQUEST_GPUS (1,024)" in page.content.decode()
    assert not Sweep.objects.exists()


# --- simulations --------------------------------------------------------------------------------------


def tiny_design(user, days: float):
    flat = seed_flat(classes=[TINY], days=days)
    return create_design(user, flat, evaluate_flat(flat))


def tiny_rate_per_day() -> float:
    """Jobs a day the tiny class makes on the seed's 1,600 batch GPUs at its 85 % (the Poisson mean)."""
    return float(arrival_rates_per_h(Profile((JobClass("tiny", 1.0, 1, 1, 1, 1.0, 1.0),)), 1600, 0.85).sum()) * 24


def post_run(api, design, **body) -> dict:
    r = api.post("/api/v1/simulations/", {"design": design.pk, **body}, content_type="application/json")
    return {**r.json(), "http": r.status_code}


def test_a_simulation_over_the_job_limit_is_refused_before_any_job_is_made(api, alice, monkeypatch):
    """Was 18 s and 0.9 GB in the POST just under the limit (the jobs were made to be counted)."""
    design = tiny_design(alice, days=200)  # 200 × 32,640 = 6,528,000 expected jobs
    monkeypatch.setattr("cluster.simulation.generate_jobs", refuse)
    monkeypatch.setattr("designer.simulations.plan_cluster", refuse)
    got = post_run(api, design)
    assert got["http"] == 422
    assert got["errors"] == {
        "workload.days": [
            "about 6,528,000 jobs in 200 days (the expected count); a run makes at most 5,000,000 (simulate fewer days)"
        ]
    }
    assert not SimulationRun.objects.exists()


def test_a_simulation_just_under_the_limit_is_queued_and_its_jobs_are_made_by_the_worker(api, alice, monkeypatch):
    days = int(MAX_JOBS / tiny_rate_per_day())  # 153 days: 4,993,920 expected jobs
    design = tiny_design(alice, days=days)
    monkeypatch.setattr("cluster.simulation.generate_jobs", refuse)
    monkeypatch.setattr("designer.simulations.plan_cluster", refuse)
    got = post_run(api, design)
    assert got["http"] == 201, got
    assert got["params"]["jobs"] == round(tiny_rate_per_day() * days) and got["params"]["jobs_expected"] is True
    assert 0.99 * MAX_JOBS < got["params"]["jobs"] <= MAX_JOBS
    made = []

    def few(profile, **kw):  # the worker makes the jobs (an hour of them here, so the test stays short)
        made.append(kw)
        return generate_jobs(profile, **{**kw, "horizon_h": 1.0})

    monkeypatch.undo()
    monkeypatch.setattr("cluster.simulation.generate_jobs", few)
    assert run_simulation(got["id"]) == "done"
    assert made and made[0]["horizon_h"] == days * 24 and made[0]["cluster_gpus"] == 1600


def test_the_worker_stops_with_a_clear_error_when_the_draw_is_over_the_limit(api, alice, monkeypatch):
    """The limit is enforced on the expected count (a Poisson mean); a draw above it stops the worker."""
    profile = Profile((JobClass("tiny", 1.0, 1, 1, 1, 1.0, 1.0),))
    expected = tiny_rate_per_day()  # 32,640
    monkeypatch.setattr("scheduling.workload.MAX_JOBS", round(expected))
    seed = next(s for s in range(50) if __import__("numpy").random.default_rng(s).poisson(expected) > expected)
    with pytest.raises(SchedulerInputError) as exc:
        generate_jobs(profile, cluster_gpus=1600, load=0.85, horizon_h=24.0, seed=seed)
    assert "jobs drawn (expected 32,640); a run makes at most 32,640" in exc.value.errors["horizon_h"]
    flat = seed_flat(classes=[TINY], days=1, seed=seed)
    design = create_design(alice, flat, evaluate_flat(flat))
    got = post_run(api, design)  # the expected count is at the limit: queued
    assert got["http"] == 201 and got["params"]["jobs"] == 32_640
    run = SimulationRun.objects.get(pk=got["id"])
    assert run_simulation(run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == "failed" and "jobs drawn (expected 32,640); a run makes at most 32,640" in run.error


# --- capacity searches --------------------------------------------------------------------------------


def capacity(api, design, gpus) -> dict:
    return post_run(api, design, kind="capacity", target={"job_class": "fine-tuning", "p95_wait_h": 100}, gpus=gpus)


@pytest.mark.parametrize("gpus", [10_000_000, 10_000_008, 262_152])
def test_capacity_candidates_above_max_request_gpus_are_refused(api, alice, monkeypatch, gpus):
    design = create_design(alice, seed_flat(), evaluate_flat(seed_flat()))
    monkeypatch.setattr("cluster.simulation.generate_jobs", refuse)
    monkeypatch.setattr("designer.simulations.plan_cluster", refuse)
    got = capacity(api, design, [2000, gpus])
    assert got["http"] == 422, got
    assert got["errors"] == {
        "gpus": [f"{gpus:,} GPUs is more than MAX_REQUEST_GPUS (262,144), the most a candidate may have"]
    }
    at = capacity(api, design, [2000, 262_144])
    assert at["http"] == 201 and at["params"]["sizes"] == [2000, 262_144]


def test_capacity_work_is_bounded_by_jobs_times_candidates(api, alice, monkeypatch):
    design = tiny_design(alice, days=100)  # 3,264,000 expected jobs × 7 candidates > 20,000,000
    monkeypatch.setattr("cluster.simulation.generate_jobs", refuse)
    got = post_run(
        api, design, kind="capacity", target={"job_class": "tiny", "p95_wait_h": 1}, gpus=[8 * k for k in range(1, 8)]
    )
    assert got["http"] == 422
    assert got["errors"]["gpus"][0].startswith("about 3,264,000 jobs × 7 candidates is 22,848,000 simulated jobs")


def test_the_capacity_cli_refuses_above_its_own_ceiling(tmp_path: Path, monkeypatch):
    """The command line plans up to cluster.gpu_count's maximum (10,000,000), and names it."""
    data = yaml.safe_load((EXAMPLES / "seed-2000-gpu.yaml").read_text())
    path = tmp_path / "seed.yaml"
    path.write_text(yaml.safe_dump(data))
    monkeypatch.setattr("cluster.simulation.generate_jobs", refuse)
    out, err = io.StringIO(), io.StringIO()
    code = capacity_cli.main([str(path), "--class", "fine-tuning", "--gpus", "2000,10000008"], out, err)
    assert code == 1
    assert "--gpus: 10,000,008 GPUs is more than cluster.gpu_count's maximum (10,000,000)" in err.getvalue()
