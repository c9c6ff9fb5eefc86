"""`manage.py evaluate`: examples evaluate, bad files give field-level errors."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import EXAMPLES

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("evaluate", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_example_evaluates_and_verifies(path: Path):
    data = json.loads(run(str(path), "--format", "json", "--verify"))
    fabric = data["compute_fabric"]
    assert fabric["verification"]["ok"], fabric["verification"]["problems"]
    assert fabric["verification"]["bisection_max_flow_gbps"] == pytest.approx(fabric["bisection_gbps"])
    # every dimensional key carries its unit
    assert {"bisection_gbps", "bisection_tbyte_s", "endpoint_gbps"} <= fabric.keys()
    assert data["schema_version"] == 2
    assert {"storage", "management", "summary"} <= data.keys()


def test_seed_2000_json_figures():
    data = json.loads(run(str(EXAMPLES / "seed-2000-gpu.yaml"), "--format", "json"))
    f = data["compute_fabric"]
    assert data["cluster"]["node_count"] == 250
    assert [t["switch_count"] for t in f["tiers"]] == [64, 32]
    assert f["link_count"] == 4048 and f["link_end_count"] == 8096
    assert f["sizing"]["aggregate_bandwidth_tbyte_s"] == 100.0


def test_table_format_shows_tiers_and_derivations():
    text = run(str(EXAMPLES / "seed-2000-gpu.yaml"))
    assert "leaf" in text and "spine" in text
    assert "How each figure was derived" in text
    assert "32 × 400G down" in text


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "req.yaml"
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    ("yaml_text", "field", "message"),
    [
        ("gpu_count: 2001\n", "gpu_count", "multiple of 8"),
        ("gpus_per_node: 8\n", "gpu_count", "give gpu_count or node_count"),
        ("gpu_count: -8\n", "gpu_count", "too small; allowed: 1 to"),
        (
            "gpu_count: 64\ncompute_fabric: {topology: ring}\n",
            "compute_fabric.topology",
            "not a valid choice",
        ),
        (
            "gpu_count: 64\ncompute_fabric: {oversubscription: 0.5}\n",
            "compute_fabric.oversubscription",
            "0.5 is too small; allowed: 1 to 64",
        ),
        (
            "gpu_count: 64\ncompute_fabric: {nic_gbps: 800, switch_model: QM9700}\n",
            "compute_fabric.nic_gbps",
            "faster than the 400G",
        ),
        (
            "gpu_count: 64\ncompute_fabric: {switch_model: QM9700, switch_radix: 32}\n",
            "compute_fabric.switch_radix",
            "QM9700 has 64 here",
        ),
        ("gpu_count: 80000\ncompute_fabric: {tiers: 2}\n", "gpu_count", "2-tier"),
        ("gpu_count: 64\nstorage: {raid_data_drives: 30}\n", "storage.raid_data_drives", "needs 32 drives"),
        ("gpu_count: 64\nstorage: {bogus: 1}\n", "storage.bogus", "unknown field"),
        ("gpu_count: 64\nmanagement: {nodes_per_tor: 40}\n", "management.nodes_per_tor", "at most 24"),
        ("gpu_count: 640\nstorage: {switch_count: 1}\n", "storage.switch_count", "access ports"),
        ("node_count: 3\ngpu_count: 64\n", "node_count", "not gpu_count 64"),
        (
            "gpu_count: 64\ngpus_per_node: 8\ncompute_fabric: {topology: torus_3d, torus_dims: [4, 4, 5]}\n",
            "compute_fabric.torus_dims",
            "80 chips",
        ),
        ("- just\n- a list\n", "non_field_errors", "mapping"),
        ("gpu_count: [unclosed\n", "file", "not valid YAML"),
    ],
)
def test_bad_requirements_name_the_field(tmp_path, yaml_text, field, message):
    with pytest.raises(CommandError) as exc:
        run(str(write(tmp_path, yaml_text)))
    text = str(exc.value)
    assert f"  {field}: " in text
    assert message in text


def test_missing_file(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run(str(tmp_path / "nope.yaml"))
