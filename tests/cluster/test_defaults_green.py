"""Issue #34 item 5: every default opens green.

Every preset (designer/presets.py), every demo design (`load_demo`: the examples it loads) and every
examples/*.yaml passes all its checks — the design's one list (cluster/pipeline.py ClusterPlan.checks),
every section's — and its workload can be simulated on its batch partition: cluster.simulation.check_run,
everything a run would refuse, checked without planning a run or drawing a job. A preset whose fields
contradict each other is refused on the form with field errors and never saved.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from cluster.pipeline import checks_of, failing, plan_cluster
from cluster.simulation import check_run
from cluster.validate import load_requirements_file, validate, validate_flat
from designer.presets import PRESETS, preset_values
from scheduling import SchedulerInputError
from tests.conftest import EXAMPLES


def _preset(key: str):
    return validate_flat({k: v for k, v in preset_values()[key].items() if k != "_set"})


def _reds(name: str, r) -> list[str]:
    """What is red about one default: its failing checks, and what a simulation of it would refuse."""
    plan = plan_cluster(r)
    result = plan.result()
    out = [f"{name}: {c['section']} · {c['name']} ({c['field']}): {c['message']}" for c in failing(result["checks"])]
    assert result["checks"] == plan.checks() == checks_of(result)
    assert {c["section"] for c in result["checks"]} >= {"storage", "bom", "workload"}
    try:
        run = check_run(r)
    except SchedulerInputError as exc:
        out += [f"{name}: simulation refused: {field}: {message}" for field, message in exc.errors.items()]
    else:
        assert run["jobs"] > 0 and run["gpus"] >= max(_largest_class(plan), 1)
    return out


def _largest_class(plan) -> int:
    from cluster.workload import profile_of

    return max(c.max_gpus for c in profile_of(plan.requirements.workload).classes)


@pytest.mark.django_db
def test_every_preset_demo_and_example_opens_green():
    """0 failing checks and a workload that fits its batch partition, for all of them (every red one listed)."""
    examples = sorted(EXAMPLES.glob("*.yaml"))
    assert len(examples) >= 8 and len(PRESETS) >= 4
    reds: list[str] = []
    for key in PRESETS:
        reds += _reds(f"preset {key}", _preset(key))
    for path in examples:
        reds += _reds(path.name, validate(load_requirements_file(path)))
    # the demo: what `load_demo` loads, saved through the services (the current catalog), read back as stored
    assert sorted(p.name for p in Path(settings.EXAMPLES_DIR).glob("*.yaml")) == [p.name for p in examples]
    call_command("load_demo", verbosity=0)
    from designer.models import DEMO_USERNAME, Design

    demos = [d.head for d in Design.objects.filter(owner__username=DEMO_USERNAME).with_head()]
    assert len(demos) == len(examples)
    for head in demos:
        reds += [f"demo {head.name}: {c['section']} · {c['message']}" for c in failing(checks_of(head.results))]
        assert any(c["section"] == "workload" for c in head.results["checks"])
    assert reds == []


def test_the_fixes_are_the_published_figures():
    """The causes, fixed where they were: the seed example's storage NICs match its 100GbE ToRs (the chapter's
    2 × 200GbE would negotiate down to 100G: the rule is right, the example contradicted itself); the Spectrum-4
    examples give the leaf's 160 MB buffer, so the RoCE sheet places XOFF below the buffer share and above ECN
    Kmax; the SuperPOD-like preset and example run a Table 14-24 whose largest job fits 1,016 GPUs."""
    seed = validate(load_requirements_file(EXAMPLES / "seed-2000-gpu.yaml"))
    assert seed.storage.node_nic_gbps == seed.storage.switch_port_gbps == 100
    for name in ("b300-spectrum-twin-plane-8su.yaml", "roce-24k-pods-1to7.yaml"):
        r = validate(load_requirements_file(EXAMPLES / name))
        assert r.scheduler.roce_switch_buffer_mb == 160
        roce = plan_cluster(r).result()["roce"]
        assert roce["xoff_bytes"] > roce["ecn_kmax_bytes"] and all(c["ok"] for c in roce["checks"])
    superpod = plan_cluster(_preset("superpod-4su"))
    (workload,) = [c for c in superpod.checks() if c["section"] == "workload"]
    assert workload["ok"] and "the largest 960 GPUs" in workload["message"] and "(1,016 GPUs)" in workload["message"]


def test_a_default_workload_that_does_not_fit_is_a_failing_check_not_a_surprise_after_saving():
    """Without job classes a simulation runs the seed's Table 14-24 (a 1,024-GPU class): on 1,016 GPUs the design
    saves, and its workload check fails saying so and what to change; given classes that do not fit still refuse
    the design on the field (cluster/workload.py check_fits_batch)."""
    values = {k: v for k, v in preset_values()["superpod-4su"].items() if k != "_set"}
    plan = plan_cluster(validate_flat({**values, "wl_classes": ""}))
    (check,) = [c for c in plan.checks() if c["section"] == "workload"]
    assert not check["ok"] and check["field"] == "wl_classes"
    assert "1,024 GPUs is larger than the 1,016-GPU cluster" in check["message"]
    assert "give job classes that fit it" in check["message"]


def _form_data(key: str, **overrides) -> dict:
    from designer.forms import RequirementsForm

    values = {k: v for k, v in preset_values()[key].items() if k != "_set"}
    form = RequirementsForm(initial=values)
    data = {name: "" if form[name].value() is None else form[name].value() for name in form.fields}
    data = {k: v for k, v in data.items() if v is not False}  # an unchecked box is absent from a POST
    return {**data, **overrides}


@pytest.mark.django_db
@pytest.mark.parametrize("key", list(PRESETS))
def test_a_preset_saves_through_the_form_and_a_contradicting_one_is_refused_on_its_fields(key):
    """The form is where a preset goes (it only fills the fields): each preset saves as it is, green; the same
    preset with a contradiction (a job class larger than its batch partition) comes back with the error on the
    field and nothing is saved."""
    from designer.models import Design

    user = get_user_model().objects.create_user("p", password="pw-preset-123")
    client = Client()
    client.force_login(user)
    saved = client.post("/designs/new/", _form_data(key))
    assert saved.status_code == 302, saved.context["form"].errors if saved.context else saved
    design = Design.objects.get(owner=user)
    assert failing(checks_of(design.head.results)) == []
    gpus = preset_values()[key]["gpu_count"]
    bad = client.post("/designs/new/", _form_data(key, wl_classes=f"huge, 100, 8, {gpus + 8}, 8, 1, 2, queued"))
    assert bad.status_code == 200 and Design.objects.filter(owner=user).count() == 1
    errors = bad.context["form"].errors
    assert "wl_classes" in errors and "larger than" in " ".join(errors["wl_classes"])
