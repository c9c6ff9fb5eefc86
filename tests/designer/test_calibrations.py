"""Calibration profiles end to end: page, API, sweeps, CLI; bad logs are field errors, never a 500."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cluster.calibrate_cli import main as cli_main
from designer.models import CalibrationProfile
from designer.sweeps import SweepSpecError, create_sweep
from tests.designer.conftest import make_design

LOGS = Path(__file__).parents[1] / "topology" / "data" / "nccl_logs"
A3 = (LOGS / "a3mega-h100-2x8-all_reduce.txt").read_text()
SYNTH = (LOGS / "h100-1x8-all_gather-synthetic.txt").read_text()
A3_FABRIC = {"nic_gbps": 200, "switch_model": "SN5600-400G", "switch_radix": 128, "topology": "rail_optimized"}


@pytest.fixture
def a3_design(alice):
    return make_design(alice, **A3_FABRIC)


def client_for(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def test_upload_a_log_and_see_measured_vs_model(a3_design):
    c = client_for(a3_design.owner)
    form = c.get(f"/designs/{a3_design.pk}/calibrations/new/")
    assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.content.decode()
    r = c.post(
        f"/designs/{a3_design.pk}/calibrations/new/",
        {"name": "A3 Mega, 2 nodes", "collective": "all_reduce", "column": "out_of_place",
         "log_file": SimpleUploadedFile("a3.log", A3.encode(), content_type="text/plain")},
    )  # fmt: skip
    assert r.status_code == 302, r.content.decode()[:2000]
    profile = CalibrationProfile.objects.get()
    assert profile.log_filename == "a3.log" and profile.log_text == A3 and len(profile.log_sha256) == 64
    assert 85 <= profile.parameters["latency_offset_us"] <= 125
    page = c.get(r["Location"]).content.decode()
    for needle in (
        "chart-busbw",
        "chart-time",
        "calibration-rows",
        profile.log_sha256,
        "ztan-mig-235z",
        "bw_efficiency",
    ):
        assert needle in page, needle
    assert c.get(f"/calibrations/{profile.pk}/log.txt").content.decode() == A3
    design_page = c.get(f"/designs/{a3_design.pk}/").content.decode()
    assert "A3 Mega, 2 nodes" in design_page and "calibration-list" in design_page


@pytest.mark.parametrize(
    ("post", "field", "words"),
    [
        ({"log_text": "hello"}, "log", "no result rows"),
        ({"log_text": A3, "collective": "all_gather"}, "collective", "redop"),
        ({"log_text": SYNTH, "collective": "all_reduce"}, "collective", "all_gather_perf"),
        ({"log_text": A3, "name": ""}, "name", "name"),
        ({"log_text": A3, "gpus": "lots"}, "gpus", "whole number"),
        ({"log_text": A3, "column": "fastest"}, "column", "one of"),
        ({"log_text": A3, "gpus": "12"}, "gpus", "the log lists 16 ranks, not 12"),
    ],
)
def test_bad_logs_are_field_errors_on_the_form(a3_design, post, field, words):
    data = {"name": "x", "collective": "all_reduce", "column": "out_of_place", **post}
    r = client_for(a3_design.owner).post(f"/designs/{a3_design.pk}/calibrations/new/", data)
    body = r.content.decode()
    assert r.status_code == 400 and f"<b>{field}</b>" in body and words in body, body[body.find("errors") :][:600]
    assert not CalibrationProfile.objects.exists()


def test_a_binary_upload_and_a_duplicate_name_are_refused(a3_design):
    c = client_for(a3_design.owner)
    url = f"/designs/{a3_design.pk}/calibrations/new/"
    r = c.post(url, {"name": "x", "log_file": SimpleUploadedFile("x.bin", b"\xff\xfe\x00\x81")})
    assert r.status_code == 400 and "<b>log_file</b>" in r.content.decode()
    assert c.post(url, {"name": "same", "log_text": A3}).status_code == 302
    again = c.post(url, {"name": "same", "log_text": A3})
    assert again.status_code == 400 and "already have a calibration named" in again.content.decode()


def test_api_create_errors_and_privacy(a3_design, bob):
    c = client_for(a3_design.owner)
    ok = c.post("/api/v1/calibrations/", {"design": a3_design.pk, "name": "api", "log": A3},
                content_type="application/json")  # fmt: skip
    assert ok.status_code == 201, ok.content
    body = ok.json()
    assert body["parameters"]["bw_efficiency"] > 0 and body["result"]["provenance"]["ranks"] == 16
    bad = c.post("/api/v1/calibrations/", {"design": a3_design.pk, "name": "bad", "log": A3, "collective": "broadcast"},
                 content_type="application/json")  # fmt: skip
    assert bad.status_code == 422 and "collective" in bad.json()["errors"]
    malformed = c.post("/api/v1/calibrations/", {"design": a3_design.pk, "name": "m", "log": A3, "gpus": "two"},
                       content_type="application/json")  # fmt: skip
    assert malformed.status_code == 400
    other = client_for(bob)
    assert other.get(f"/api/v1/calibrations/{body['id']}/").status_code == 404
    assert other.get("/api/v1/calibrations/").json()["results"] == []
    assert other.get(f"/calibrations/{body['id']}/").status_code == 404
    assert c.get(f"/api/v1/calibrations/?design={a3_design.pk}").json()["count"] == 1
    assert c.delete(f"/api/v1/calibrations/{body['id']}/").status_code == 204


def test_a_sweep_runs_on_the_calibrated_model(a3_design, bob, monkeypatch):
    monkeypatch.setattr("designer.sweeps.enqueue", lambda chunks: 0)
    c = client_for(a3_design.owner)
    c.post(f"/designs/{a3_design.pk}/calibrations/new/", {"name": "a3", "log_text": A3, "collective": "all_reduce"})
    profile = CalibrationProfile.objects.get()
    spec = {"collectives": ["all_reduce"], "max_bytes": 1024}
    bare = create_sweep(a3_design.owner, a3_design.head, spec)
    calibrated = create_sweep(a3_design.owner, a3_design.head, {**spec, "calibration": profile.pk})
    assert "bw_efficiency" not in bare.grid["fabrics"][0]
    assert calibrated.grid["fabrics"][0]["latency_offset_us"] == profile.parameters["latency_offset_us"]
    assert calibrated.name.endswith("(calibrated)")
    form = c.get(f"/designs/{a3_design.pk}/sweeps/new/?calibration={profile.pk}").content.decode()
    assert 'id="sweep-calibration"' in form and "selected" in form
    for value, owner in ((999_999, a3_design.owner), (profile.pk, bob), ("x; drop", a3_design.owner)):
        with pytest.raises(SweepSpecError) as exc:
            create_sweep(owner, a3_design.head, {**spec, "calibration": value})
        assert list(exc.value.errors) == ["calibration"]


def test_cli_calibrates_and_refuses_with_field_lines(tmp_path):
    req = tmp_path / "a3.yaml"
    req.write_text("gpu_count: 2048\ncompute_fabric:\n  nic_gbps: 200\n  switch_model: SN5600-400G\n"
                   "  topology: rail_optimized\n")  # fmt: skip
    log = tmp_path / "a3.log"
    log.write_text(A3)
    out, err = io.StringIO(), io.StringIO()
    assert cli_main([str(req), str(log)], out, err) == 0
    assert "GM error: bare model" in out.getvalue() and "8,589,934,592" in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert cli_main([str(req), str(log), "--collective", "all_gather"], out, err) == 1
    assert "--collective:" in err.getvalue()
    log.write_bytes(b"\xff\xfe")
    assert cli_main([str(req), str(log)], io.StringIO(), err := io.StringIO()) == 1 and "UTF-8" in err.getvalue()
    assert cli_main([str(req), str(tmp_path / "missing.log")], io.StringIO(), err := io.StringIO()) == 1
