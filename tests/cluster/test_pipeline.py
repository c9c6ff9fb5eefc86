"""The pipeline runs without Django: the CLI needs no settings, no database and no SECRET_KEY."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cluster.pipeline import plan_cluster
from cluster.validate import RequirementsError, validate_flat
from tests.cluster.test_console import cluster_designer
from tests.conftest import EXAMPLES, ROOT

PURE = ["cluster.pipeline", "cluster.cli", "bom.plan", "bom.link_table", "bom.export", "power.plan", "topology.graph"]
PURE += ["cluster.scheduler_files", "scheduling.calculators", "scheduling.cli"]


def _bare_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_pure_packages_do_not_import_django():
    code = (
        f"import sys\nfor m in {PURE!r}: __import__(m)\nprint(sorted(m for m in sys.modules if m.startswith('django')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_bare_env(), check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_cli_evaluates_every_example_without_debug_or_secret_key(path: Path, tmp_path: Path):
    cmd = [cluster_designer(), "evaluate", str(path), "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=_bare_env(), cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["bom"]["price_book"]["built_in"] is True
    assert data["summary"]["gpu_count"] == data["cluster"]["gpu_count"]


def test_cli_refusal_exits_1_with_one_line_per_field(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("gpu_count: 2001\ncompute_fabric: {nic_gbps: fast}\n")
    out = subprocess.run(
        [cluster_designer(), "evaluate", str(bad)],
        capture_output=True,
        text=True,
        env=_bare_env(),
        cwd=ROOT,
    )
    assert out.returncode == 1
    assert "  compute_fabric.nic_gbps: 'fast' is not a number" in out.stderr


def test_engine_refusals_land_on_the_typed_field():
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate_flat({"gpu_count": 80000, "tiers": 2}))
    assert "2-tier" in " ".join(exc.value.errors["gpu_count"])


def test_plan_result_matches_the_seed_design():
    """Seed D1/D4 (seed-figures.md): 250 nodes, 64 leaves + 32 spines, 4,048 links."""
    plan = plan_cluster(validate_flat({"gpu_count": 2000}))
    res = plan.result()
    assert res["cluster"]["node_count"] == 250
    assert [t["switch_count"] for t in res["compute_fabric"]["tiers"]] == [64, 32]
    assert res["compute_fabric"]["link_count"] == 4048
    assert res["summary"]["switch_count"] == 96 + plan.storage.switch_count + 34 + 2


def test_cli_refuses_a_floor_plan_no_catalog_part_reaches(tmp_path: Path):
    """1,024 nodes, 4 a rack, in rows of 200 racks: a row is 200 × 0.6 m = 120 m long, and a node's BMC cable runs
    along it to its management ToR in the row's network rack, past the 30 m of the longest Cat6 cord in the
    built-in catalog. (A deep floor no longer gets there: the hall folds its rows, bom/layout.py hall_layout.)"""
    far = tmp_path / "far.yaml"
    far.write_text("gpu_count: 8192\nbom: {racks_per_row: 200}\n")
    out = subprocess.run(
        [cluster_designer(), "evaluate", str(far)], capture_output=True, text=True, env=_bare_env(), cwd=ROOT
    )
    assert out.returncode == 1
    assert "  bom.racks_per_row: management BMC–ToR links of " in out.stderr and "no Cat6 cord that long" in out.stderr


def test_a_fabric_too_big_for_its_switch_names_the_switches_that_fit():
    """100,000 GPUs on 64-port QM9700 with the spines shared by all rails (rail_groups = 1): 3 tiers reach
    64 pods × 32 leaves of 4 SUs × 32 nodes × 8 rails = 65,536 endpoints, too few; a 128-port
    SN5600-400G reaches 128³ ÷ 4 = 524,288, and the 144-port Q3400 (800G ports) fits too, so the refusal
    names both — and that automatic rail groups make it fit on the QM9700 (2 groups of 4 rails: pods of
    8 SUs, 64 pods × 256 nodes = 16,384 ≥ 12,500 nodes)."""
    with pytest.raises(RequirementsError) as exc:
        plan_cluster(validate_flat({"gpu_count": 100000, "rail_groups": 1}))
    message = exc.value.errors["gpu_count"][0]
    assert "65,536 endpoints" in message and "it fits with" in message
    assert "SN5600-400G (3 tiers" in message and "Q3400 (3 tiers" in message
    assert "QM9700 (" not in message  # the model that does not fit is not offered
    assert "with automatic rail groups it fits on this switch (2 groups, 3 tiers" in message
