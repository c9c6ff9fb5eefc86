"""Issue #16: the calculators page (/tools/) and POST /api/v1/tools/{name}/ — the seed's S1–S8 answers and
field errors for bad input, the same through the form and the API."""

from __future__ import annotations

import pytest

from scheduling.calculators import CALCULATORS, run
from tests.designer.test_api import token_client

pytestmark = pytest.mark.django_db


def test_every_calculator_answers_its_defaults():
    """The defaults are the seed's worked figures, so each default run states the seed's answer."""
    assert run("drf", {})["tasks"] == {"A": 3, "B": 2}  # S1
    assert run("drf", {})["left"] == {"gpu": "0", "cpu": "4"}
    shares = run("fair-tree", {})["shares"]
    assert shares["a/a1/x"] == 0.125 and shares["a"] == 0.5  # S2: depth 3 = F / 2^3
    assert run("packing", {})["repack"] is True  # S3: 31 / 64 < 50 %
    budget = run("error-budget", {})
    assert (budget["budget_min"], budget["burn_rate"], budget["page_threshold"], budget["page"]) == (
        "43.2",
        "20",
        "14.4",
        True,
    )  # fmt: skip  S4
    assert run("cost", {})["total_usd"] == "153600.00"  # S5
    assert run("mig", {})["instance_count"] == 38  # S7
    roce = run("roce", {})
    assert (roce["ecn_kmin_bytes"], roce["ecn_kmax_bytes"]) == (200_000, 400_000)  # S8
    assert set(CALCULATORS) == {"drf", "fair-tree", "packing", "error-budget", "cost", "mig", "roce"}


def test_page_shows_results_and_field_errors(client):
    page = client.get("/tools/")
    assert page.status_code == 200 and b'id="tool-mig"' in page.content
    r = client.get("/tools/", {"calc": "mig", "gpu_model": "H100-SXM5", "gpu_count": "8", "demand": "1g.10gb=57"})
    html = r.content.decode()
    assert 'data-field="demand"' in html and "short by 1 × 1g.10gb" in html
    r = client.get("/tools/", {"calc": "cost", "gpu_hours": "12800", "usd_per_gpu_hour": "8",
                               "storage_gb_hours": "1024000", "usd_per_gb_hour": "0.05"})  # fmt: skip
    page = r.content.decode()
    assert 'id="result-cost"' in page and "<th>total [USD]</th>" in page and "$153,600.00" in page  # not "total usd"
    r = client.get("/tools/", {"calc": "error-budget", "slo_pct": "abc"})
    assert 'data-field="slo_pct"' in r.content.decode()
    assert client.get("/tools/", {"calc": "nope"}).status_code == 404


def test_api(alice):
    c, _ = token_client(alice)
    r = c.post("/api/v1/tools/drf/", {"capacity": {"gpu": 9, "cpu": 18}, "users": [
        {"name": "A", "demand": {"gpu": 1, "cpu": 4}}, {"name": "B", "demand": {"gpu": 3, "cpu": 1}}]},
        content_type="application/json")  # fmt: skip
    assert r.status_code == 200 and r.json()["dominant_share"] == {"A": "2/3", "B": "2/3"}
    r = c.post("/api/v1/tools/mig/", {"gpu_model": "H100-SXM5", "gpu_count": 8, "demand": {"1g.10gb": 57}},
               content_type="application/json")  # fmt: skip
    assert r.status_code == 422 and "short by 1 × 1g.10gb" in r.json()["errors"]["demand"][0]
    r = c.post("/api/v1/tools/roce/", {"link_gbps": 400, "mtu_bytes": 9000}, content_type="application/json")
    assert r.status_code == 422 and "mtu_bytes" in r.json()["errors"]
    r = c.post("/api/v1/tools/cost/", {"gpu_hours": -1}, content_type="application/json")
    assert r.status_code == 422 and r.json()["errors"]["gpu_hours"] == ["must be 0 or more"]
    r = c.post("/api/v1/tools/cost/", {"gpu_hours": "12800"}, content_type="application/json")
    assert r.status_code == 400 and r.json()["errors"]["gpu_hours"] == ["must be number"]  # the schema's type
    r = c.post("/api/v1/tools/cost/", {"bogus": 1}, content_type="application/json")
    assert r.status_code == 400 and "unknown input" in r.json()["errors"]["bogus"][0]
    r = c.post("/api/v1/tools/cost/", [1, 2], content_type="application/json")
    assert r.status_code == 400
    assert c.post("/api/v1/tools/nope/", {}, content_type="application/json").status_code == 404
    r = c.post("/api/v1/tools/drf/", {"capacity": {"gpu": 1e9}, "users": [{"name": "A", "demand": {"gpu": 1}}]},
               content_type="application/json")  # fmt: skip
    assert r.status_code == 422 and "scale the units" in r.json()["errors"]["capacity"][0]  # bounded work
    schema = c.get("/api/v1/schema/?format=json").json()
    body = schema["paths"]["/api/v1/tools/cost/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body["additionalProperties"] is False and body["properties"]["gpu_hours"]["type"] == "number"


def test_cli_calculate(capsys):
    """`cluster-designer calculate` runs without Django, like `evaluate`."""
    import json
    import subprocess

    from tests.cluster.test_console import cluster_designer
    from tests.conftest import ROOT

    cli = cluster_designer()
    ok = subprocess.run([cli, "calculate", "cost"], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["total_usd"] == "153600.00"
    bad = subprocess.run(
        [cli, "calculate", "mig", "demand=1g.10gb=57"], cwd=ROOT, capture_output=True, text=True
    )
    assert bad.returncode == 1 and "  demand: 8 × H100-SXM5 cannot hold it: short by 1 × 1g.10gb" in bad.stderr
    users = subprocess.run(
        [cli, "calculate", "drf", "users=A: gpu=1\\nB: gpu=1, weight=3", "capacity=gpu=10"],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert json.loads(users.stdout)["tasks"] == {"A": 3, "B": 7}
