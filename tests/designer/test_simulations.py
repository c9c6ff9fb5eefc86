"""Workload simulations and capacity searches as background runs: pages, API, progress, access, errors.

The figures themselves are the pure model's (tests/scheduling); here: what a run stores is what
cluster/simulation.py computes for the revision, runs are checked before they are queued (field errors,
nothing queued), a user sees only their own runs, a lost or dead run is queued again, and a cancelled
one stops."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from django.test import Client
from django.utils import timezone

from cluster.pipeline import plan_cluster
from cluster.requirements import Requirements
from cluster.simulation import default_fabric_rates, simulate_design
from cluster.validate import load_requirements_file, validate
from designer.celery import app
from designer.models import SimulationRun
from designer.services import create_design, evaluate_flat, save_revision
from designer.simulations import (
    MAX_ATTEMPTS,
    RUNNING_STALE_S,
    SimulationInputError,
    claim,
    create_run,
    reap_stale_runs,
    run_progress,
    run_simulation,
)
from tests.conftest import EXAMPLES

ACME = EXAMPLES.parent / "tests" / "scheduling" / "data" / "acme-seren-layout-sample.csv"


def seed_flat(**workload) -> dict:
    data = load_requirements_file(EXAMPLES / "seed-2000-gpu.yaml")
    data["workload"] = {**data["workload"], "days": 120, **workload}
    return validate(data).flat()


def seed_design(user, **workload):
    flat = seed_flat(**workload)
    return create_design(user, flat, evaluate_flat(flat))


def wait_done(run: SimulationRun, timeout_s: float = 90) -> dict:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        run.refresh_from_db()
        p = run_progress(run)
        if p["status"] not in ("pending", "running"):
            return p
        time.sleep(0.2)
    raise AssertionError(f"run not finished: {run_progress(run)}")


@pytest.mark.django_db(transaction=True)
def test_simulate_and_capacity_on_a_real_worker(django_user_model):
    """The seed design's workload (Table 14-24, 120 days at 85 %) from the page; a capacity search from the API."""
    user = django_user_model.objects.create_user("sim", password="x-long-pass-1")
    design = seed_design(user)
    c = Client()
    c.force_login(user)
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        r = c.post(f"/designs/{design.pk}/simulations/", {"kind": "simulate", "name": "seed 120 d"})
        assert r.status_code == 302, r.content.decode()[:2000]
        run = SimulationRun.objects.get(owner=user, kind="simulate")
        assert r["Location"] == f"/simulations/{run.pk}/"
        api = c.post(
            "/api/v1/simulations/",
            {
                "design": design.pk,
                "kind": "capacity",
                "gpus": [1600, 2400],
                "target": {"job_class": "fine-tuning", "p95_wait_h": 100},
            },
            content_type="application/json",
        )
        assert api.status_code == 201, api.json()
        cap = SimulationRun.objects.get(pk=api.json()["id"])
        assert wait_done(run)["status"] == "done"
        assert wait_done(cap)["status"] == "done", cap.error
    run.refresh_from_db()
    cap.refresh_from_db()
    # what the worker stored is what the pure model computes for the revision
    plan = plan_cluster(Requirements.from_flat(design.head.requirements()))
    # a run from the page simulates fabric failures at the cited defaults (issue #37), each part out for 24 h
    assert run.params["fabric"] == default_fabric_rates(24.0)
    expected = json.loads(json.dumps(simulate_design(plan, fabric=run.params["fabric"])))
    assert run.result["classes"] == expected["classes"] and run.result["split"] == expected["split"]
    assert run.result["inputs"]["nodes"] == 200 and run.result["inputs"]["design_nodes"] == 250
    assert run.progress_frac == 1.0 and run.attempts == 1
    # node-hour books and Little's law hold on the stored report
    res = run.result
    assert res["busy_node_h"] + res["idle_node_h"] + res["down_node_h"] + res["inference_node_h"] == pytest.approx(
        res["capacity_node_h"]
    )
    lit = res["little"]
    assert lit["queue_length_mean"] == pytest.approx(lit["arrival_rate_per_h"] * lit["wait_h_mean"])
    # the timeline's time-average busy nodes is the utilization
    tl = res["timeline"]
    assert sum(tl["busy_nodes"]) / len(tl["busy_nodes"]) / 200 == pytest.approx(res["utilization_frac"])
    page = c.get(f"/simulations/{run.pk}/").content.decode()
    for needle in (
        "chart-timeline",
        "chart-cdf",
        "chart-split",
        "class-table",
        "arrival-table",
        "split-derivation",
        "busy node-hours ÷ (200 nodes × 2,880 h)",
        "card-fabric-share",
        "fabric-failures",
        "fabric-parts",
    ):
        assert needle in page, needle
    body = json.loads(c.get(f"/simulations/{run.pk}/result.json").content)
    assert body["result"]["classes"] == run.result["classes"]
    # capacity: the same answer as the pure search (1,600 misses 100 h; 2,400 meets it)
    assert [row["size"] for row in cap.result["rows"]] == [1600, 2400]
    assert cap.result["answer_size"] == 2400 and cap.result["rows"][0]["meets"] is False
    assert "chart-capacity" in c.get(f"/simulations/{cap.pk}/").content.decode()
    got = c.get(f"/api/v1/simulations/{cap.pk}/").json()
    assert got["status"] == "done" and got["result"]["answer_size"] == 2400 and got["progress"]["fraction_done"] == 1
    listed = c.get(f"/api/v1/simulations/?design={design.pk}").json()
    assert listed["count"] == 2 and "result" not in listed["results"][0]


@pytest.mark.django_db
def test_bad_requests_are_field_errors_and_nothing_is_queued(alice):
    design = seed_design(alice)
    c = Client()
    c.force_login(alice)
    cases = [  # (body, status, field, text)
        (
            {"kind": "capacity", "target": {"job_class": "nope", "p95_wait_h": 24}},
            422,
            "target.job_class",
            "one of the classes: pretraining",
        ),
        (
            {"kind": "capacity", "target": {"job_class": "fine-tuning", "p95_wait_h": 24}, "gpus": [2001]},
            422,
            "gpus",
            "each a whole number of 8-GPU nodes",
        ),
        ({"kind": "capacity"}, 422, "target", "needs a target"),  # a rule between fields (kind, target)
        ({"kind": "capacity", "target": {"job_class": "fine-tuning", "p95_wait_h": -1}}, 400, "target.p95_wait_h", ""),
        ({"kind": "capacity", "target": {"job_class": "ft", "p95_wait_h": 9}, "gpus": ["x"]}, 400, "gpus.0", ""),
        ({"kind": "teleport"}, 400, "kind", ""),
        ({"trace": "a,b\n1,2\n"}, 422, "trace", "missing column(s) submit_h, gpus, hours, class"),
        ({"trace": "submit_h,gpus,hours,class\n0,8,-1,a\n"}, 422, "trace.row 1.hours", ""),
        ({"trace": "submit_h,gpus,hours,class\n0,4000,1,a\n"}, 422, "trace", "larger than the 1,600 GPUs"),
        ({"trace_format": "slurm"}, 400, "trace_format", ""),
        ({"fabric": {"leaf": -1}}, 400, "fabric.leaf.afr_pct", "from 0 and below 100; got -1"),
        ({"fabric": {"nic": {"afr_pct": 150}}}, 400, "fabric.nic.afr_pct", "below 100; got 150"),
        ({"fabric": {"optic": {"repair_h": 0}}}, 400, "fabric.optic.repair_h", "above 0"),
        ({"fabric": {"router": 1}}, 400, "fabric.router", "unknown part kind"),
        ({"fabric": [1, 2]}, 400, "fabric", "a mapping of part kind"),
    ]
    for extra, code, field, text in cases:
        r = c.post("/api/v1/simulations/", {"design": design.pk, **extra}, content_type="application/json")
        assert r.status_code == code, (extra, r.status_code, r.content[:300])
        errors = r.json().get("errors", r.json())
        assert field in errors, (extra, errors)
        assert text in " ".join(errors[field]) if isinstance(errors[field], list) else True
    page = c.post(
        f"/designs/{design.pk}/simulations/", {"kind": "capacity", "job_class": "fine-tuning", "p95_wait_h": "soon"}
    )
    assert page.status_code == 200 and "target.p95_wait_h" in page.content.decode()
    page = c.post(f"/designs/{design.pk}/simulations/", {"kind": "simulate", "fabric_leaf_afr_pct": "nan",
                                                         "fabric_cable_afr_pct": "lots"})  # fmt: skip
    text = page.content.decode()
    assert page.status_code == 200 and "fabric.leaf.afr_pct" in text and "got nan" in text
    assert "fabric.cable.afr_pct" in text and "got &#x27;lots&#x27;" in text
    assert SimulationRun.objects.count() == 0


@pytest.mark.django_db
def test_a_workload_larger_than_the_batch_partition_is_refused_when_saved_and_when_run(alice):
    """A design whose classes do not fit is refused on save (the pipeline checks); one that gives no classes
    gets the seed's Table 14-24 at run time, refused on a 64-GPU cluster with the reason."""
    flat = seed_flat(
        classes=[
            {
                "name": "huge",
                "share_pct": 100,
                "min_gpus": 8,
                "max_gpus": 1608,
                "granularity_gpus": 8,
                "min_hours": 1,
                "max_hours": 2,
                "sla": "queued",
            }
        ]
    )
    with pytest.raises(Exception) as exc:
        evaluate_flat(flat)
    assert "1,608 GPUs is larger than the 1,600-GPU cluster (its batch partition gpu-large)" in str(exc.value)
    small = validate({"gpu_count": 64}).flat()
    design = create_design(alice, small, evaluate_flat(small))
    with pytest.raises(SimulationInputError) as refused:
        create_run(alice, design.head, kind="simulate")
    assert refused.value.unprocessable
    assert "1,024 GPUs is larger than the 64-GPU cluster" in refused.value.errors["workload.classes"][0]


@pytest.mark.django_db
def test_runs_are_their_owners_only(alice, bob):
    design = seed_design(alice)
    run = create_run(alice, design.head, kind="simulate")
    c = Client()
    c.force_login(bob)
    assert c.get(f"/simulations/{run.pk}/").status_code == 404
    assert c.get(f"/simulations/{run.pk}/progress.json").status_code == 404
    assert c.get(f"/api/v1/simulations/{run.pk}/").status_code == 404
    assert c.get("/api/v1/simulations/").json()["count"] == 0
    assert c.post(f"/simulations/{run.pk}/cancel/").status_code == 404
    assert c.get(f"/designs/{design.pk}/simulations/").status_code == 404  # alice's design is not shared with bob


@pytest.mark.django_db
def test_claimed_once_reaped_when_dead_failed_after_the_limit_and_cancel_stops(alice, monkeypatch):
    monkeypatch.setattr("designer.simulations.enqueue", lambda run_id: None)
    design = seed_design(alice)
    run = create_run(alice, design.head, kind="simulate")
    assert claim(run.pk) and not claim(run.pk)  # a message delivered twice computes once
    stale = timezone.now() - timedelta(seconds=RUNNING_STALE_S + 1)
    SimulationRun.objects.filter(pk=run.pk).update(heartbeat_at=stale)
    assert reap_stale_runs() == 1
    run.refresh_from_db()
    assert run.status == "pending" and run.attempts == 1
    SimulationRun.objects.filter(pk=run.pk).update(status="running", attempts=MAX_ATTEMPTS, heartbeat_at=stale)
    reap_stale_runs()
    run.refresh_from_db()
    assert run.status == "failed" and f"stopped {MAX_ATTEMPTS} times" in run.error
    other = create_run(alice, design.head, kind="simulate")
    c = Client()
    c.force_login(alice)
    c.post(f"/simulations/{other.pk}/cancel/")
    assert run_simulation(other.pk) == "skipped"  # a cancelled run is not computed
    other.refresh_from_db()
    assert other.status == "cancelled" and other.result is None


@pytest.mark.django_db
def test_compare_two_revisions_side_by_side(alice):
    """Preemption off (r1) and on (r2): the comparison marks the rows that differ; pretraining's p95 wait
    with preemption is no longer than without."""
    design = seed_design(alice)
    flat = seed_flat(preempt=True)
    save_revision(design, alice, flat, evaluate_flat(flat), "preempt")
    runs = []
    for rev in design.revisions.order_by("number"):
        run = create_run(alice, rev, kind="simulate")
        assert run_simulation(run.pk) == "done"
        runs.append(SimulationRun.objects.get(pk=run.pk))
    c = Client()
    c.force_login(alice)
    r = c.get(f"/simulations/compare/?run={runs[1].pk}&run={runs[0].pk}")  # asked newest first …
    assert r.status_code == 200
    rows = {row["label"]: row for row in r.context["table"]["rows"]}
    assert rows["preemption"]["values"] == [False, True] and rows["preemption"]["differs"]  # … shown oldest first
    assert not rows["batch GPUs"]["differs"]
    off, on = rows["pretraining: wait p95 [h]"]["values"]
    assert on <= off
    # each later run carries its change from the first, in the row's unit
    sign = "±0" if on == off else "−"
    assert rows["pretraining: wait p95 [h]"]["deltas"][0] is None
    assert rows["pretraining: wait p95 [h]"]["deltas"][1].startswith(sign)
    assert rows["preemption"]["deltas"] == [None, None]  # yes/no has no difference to show
    page = r.content.decode()
    assert "chart-compare_cdf" in page and 'class="differs"' in page
    assert c.get("/simulations/compare/?run=abc").status_code == 200  # a bad id is a message, not a 500


def test_compare_deltas_by_hand():
    """The change from the first run, by hand: shares in percentage points, waits in hours, counts whole."""
    from designer.simulation_views import deltas

    assert deltas([0.80, 0.825, 0.80], pct=True) == [None, "+2.50 pp", "±0"]
    assert deltas([10.0, 7.5], pct=False, unit=" h") == [None, "−2.5 h"]
    assert deltas([1024, 1152], pct=False) == [None, "+128"]
    assert deltas([None, 3.0], pct=False) == [None, None]
    assert deltas(["easy", "fifo"], pct=False) == [None, None]
