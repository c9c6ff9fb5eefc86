"""Every field's error at once (#38): two values that do not parse and a third the engine refuses — an 800G NIC on
the default 400G switch — give three errors in the form, the API and the CLI, not two then one."""

from __future__ import annotations

import subprocess

import pytest
import yaml

from designer.forms import RequirementsForm
from tests.cluster.test_console import cluster_designer
from tests.designer.test_api import token_client

NIC = "faster than the 400G switch ports"


@pytest.mark.django_db
def test_the_form_shows_the_engines_error_beside_the_bad_values():
    form = RequirementsForm(data={"name": "three faults", "gpu_count": "-8", "pue": "0.5", "nic_gbps": "800"})
    assert not form.is_valid()
    assert set(form.errors) >= {"gpu_count", "pue", "nic_gbps"}
    assert NIC in form.errors["nic_gbps"][0] and "too small" in form.errors["pue"][0]


@pytest.mark.django_db
def test_the_api_shows_the_engines_error_beside_the_bad_values(alice):
    c, _ = token_client(alice)
    body = {"requirements": {"gpu_count": -8, "compute_fabric": {"nic_gbps": 800}, "power": {"pue": 0.5}}}
    r = c.post("/api/v1/evaluate/", body, content_type="application/json")
    assert r.status_code == 400  # a malformed value is among them
    errors = r.json()["errors"]
    assert set(errors) >= {"gpu_count", "power.pue", "compute_fabric.nic_gbps"}
    assert NIC in errors["compute_fabric.nic_gbps"][0]


def test_a_refusal_on_a_field_that_was_itself_refused_is_not_doubled(tmp_path):
    """The CLI too; and a field whose value did not parse keeps its own message only."""
    f = tmp_path / "three.yaml"
    f.write_text(yaml.safe_dump({"gpu_count": -8, "compute_fabric": {"nic_gbps": 800}, "power": {"pue": 0.5}}))
    out = subprocess.run([cluster_designer(), "evaluate", str(f)], capture_output=True, text=True)
    assert out.returncode != 0
    assert "gpu_count" in out.stderr and "power.pue" in out.stderr and NIC in out.stderr
    g = tmp_path / "nic-bad.yaml"
    g.write_text(yaml.safe_dump({"gpu_count": 64, "compute_fabric": {"nic_gbps": -800}}))
    only = subprocess.run([cluster_designer(), "evaluate", str(g)], capture_output=True, text=True)
    assert only.returncode != 0 and NIC not in only.stderr and "nic_gbps" in only.stderr


@pytest.mark.django_db
def test_too_many_servers_for_a_request_is_a_field_error(alice):
    """99,999 login servers (schemathesis' PATCH that timed out at 30 s) are refused before planning, on the field."""
    c, _ = token_client(alice)
    body = {"requirements": {"gpu_count": 8, "management": {"login_node_count": 99_999}}}
    r = c.post("/api/v1/evaluate/", body, content_type="application/json")
    assert r.status_code == 422
    assert "more than the 10,000 a request may plan" in r.json()["errors"]["management.login_node_count"][0]
