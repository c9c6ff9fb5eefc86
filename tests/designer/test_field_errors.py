"""Every requirement field rejects bad values with a message — form, API and CLI alike; never a 500."""

from __future__ import annotations

import json

import pytest
from django.db import models as dj
from django.test import Client

from designer.models import REQUIREMENT_FIELDS, DesignRevision
from designer.requirements import field_path
from tests.designer.conftest import form_data

FIELDS = {f.name: f for f in DesignRevision._meta.local_fields if f.name in REQUIREMENT_FIELDS}


def bad_values(name: str) -> list[str]:
    f = FIELDS[name]
    if isinstance(f, dj.BooleanField):
        return ["maybe"]
    if f.choices:
        return ["not-a-choice"]
    if isinstance(f, dj.IntegerField):
        return ["abc", "-5", "2.5", "99999999999"]
    if isinstance(f, dj.FloatField | dj.DecimalField):
        return ["abc", "-1", "1e99"]
    if name == "torus_dims":
        return ["4x4", "axbxc"]
    if name == "name":
        return ["", "x" * 201]
    if name in ("sched_batch_partition", "sched_interactive_partition"):
        return ["", "Gpu Large", "-x", "x" * 32]
    if name == "sched_node_prefix":
        return ["", "GPU", "gpu-", "9gpu"]
    if name == "sched_tenants":
        return ["", "nlp", "nlp=50,cv=50", "NLP:100"]
    if name == "sched_mig_demand":
        return ["1g", "1g.10gb:7", "x=1"]
    if name == "wl_classes":  # malformed: too few columns, not a number, an unknown SLA (rules: the 422 cases below)
        return ["a, b", "x, 100, many, 8, 8, 1, 2, queued", "x, 100, 8, 8, 8, 1, 2, urgent"]
    if name in ("wl_inference_demand_gpus", "wl_carbon_hourly_g_per_kwh"):
        return ["1,2,3", ",".join(["5"] * 23 + ["-1"]), "a" * 24]
    return []


CASES = [(name, value) for name in REQUIREMENT_FIELDS for value in bad_values(name)]


def test_every_field_has_a_bad_value_case():
    covered = {name for name, _ in CASES}
    assert covered == set(REQUIREMENT_FIELDS) - {"notes"}


@pytest.fixture
def logged_in(alice):
    c = Client()
    c.force_login(alice)
    return c


# a checkbox sends only on or nothing: the form cannot carry a bad yes/no value (the API and files can)
FORM_CASES = [(name, value) for name, value in CASES if not isinstance(FIELDS[name], dj.BooleanField)]


@pytest.mark.parametrize(("name", "value"), FORM_CASES)
def test_form_rejects_with_field_message(logged_in, name, value):
    r = logged_in.post("/designs/new/", form_data(**{name: value}))
    assert r.status_code == 200, f"{name}={value!r} was accepted"
    errors = r.context["form"].errors
    assert name in errors and errors[name][0].strip()


@pytest.mark.parametrize(("name", "value"), CASES)
def test_api_evaluate_rejects_with_field_message(logged_in, name, value):
    body = form_data(**{name: value})
    r = logged_in.post("/api/v1/evaluate/?layout=flat", json.dumps(body, default=str), content_type="application/json")
    assert r.status_code == 400
    assert name in r.json()["errors"]


@pytest.mark.parametrize(("name", "value"), CASES[::3])
def test_api_create_reports_nested_path(logged_in, name, value):
    section, _, key = field_path(name).rpartition(".")
    reqs: dict = {"gpu_count": 2000}
    (reqs.setdefault(section, {}) if section else reqs)[key] = value
    r = logged_in.post("/api/v1/designs/", {"requirements": reqs}, content_type="application/json")
    assert r.status_code == 400
    assert field_path(name) in r.json()["errors"]


@pytest.mark.parametrize(
    ("overrides", "field", "text"),
    [
        ({"gpu_count": "2001"}, "gpu_count", "multiple of 8"),
        ({"nic_gbps": "800"}, "nic_gbps", "faster than the 400G"),
        ({"switch_model": "QM9700", "switch_radix": "32"}, "switch_radix", "QM9700 has 64"),
        ({"gpu_count": "80000", "tiers": "2"}, "gpu_count", "2-tier"),
        ({"topology": "torus_3d", "torus_dims": "4x4x4"}, "torus_dims", "64 chips"),
        ({"storage_switch_count": "2"}, "storage_switch_count", "access ports"),
        ({"mgmt_nodes_per_tor": "40"}, "mgmt_nodes_per_tor", "at most 24"),
        ({"storage_raid_data_drives": "30"}, "storage_raid_data_drives", "needs 32 drives"),
        ({"oversubscription": "0.5"}, "oversubscription", "too small; allowed: 1 to 64"),
        # the workload (§14.8.1): shares that do not add up, a class out of order, one larger than the batch
        # partition (the h100 preset: 2,000 GPUs, all in the batch partition), jobs per day not given
        ({"wl_classes": "a, 40, 8, 64, 8, 24, 72, queued"}, "wl_classes", "the shares add up to 40 %, not 100 %"),
        ({"wl_classes": "a, 100, 16, 8, 8, 1, 2, queued"}, "wl_classes", "class 1: min_gpus 1 ≤ min ≤ max GPUs"),
        (
            {"wl_classes": "a, 100, 8, 2008, 8, 1, 2, queued"},
            "wl_classes",
            "a: 2,008 GPUs is larger than the 2,000-GPU cluster (its batch partition gpu-large)",
        ),
        ({"wl_arrival": "jobs_per_day"}, "wl_jobs_per_day", "arrival is jobs per day: give how many"),
        ({"wl_preempt": "on", "wl_policy": "fifo"}, "wl_preempt", "use the easy policy"),
    ],
)
def test_cross_field_and_engine_errors_land_on_the_field(logged_in, overrides, field, text):
    r = logged_in.post("/designs/new/", form_data(**overrides))
    assert r.status_code == 200
    assert text in " ".join(r.context["form"].errors.get(field, [])), r.context["form"].errors
