"""`cluster-designer search` (cluster/search_cli.py): the same search without a server — JSON and CSV out,
progress on stderr, refusals one line per field."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

from cluster.search_cli import main
from tests.conftest import EXAMPLES

SEED = EXAMPLES / "seed-2000-gpu.yaml"
AXES = ["--vary", "topology=rail_optimized,fat_tree", "--vary", "oversubscription=1,2"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_json_report_names_the_cheapest_and_prices_the_network_from_each_bom():
    code, out, err = run(str(SEED), *AXES, "--min", "bisection_tbyte_s=40", "--objective", "capex_usd")
    assert code == 0, err
    report = json.loads(out)
    assert report["candidate_count"] == 4 and report["counts"]["feasible"] == 2  # 2:1 halves the bisection
    assert report["counts"]["excluded"] == 2
    assert report["refusals"]["constraint:min_bisection_tbyte_s"]["count"] == 2
    feasible = report["ranking"]
    assert [r["rank"] for r in feasible] == [1, 2]
    assert Decimal(feasible[0]["f"]["capex_usd"]) <= Decimal(feasible[1]["f"]["capex_usd"])
    # the seed fixes its network CapEx as given; the search prices each candidate's BOM, so they differ
    assert feasible[0]["f"]["network_usd"] != feasible[1]["f"]["network_usd"]
    assert "search: 4/4 candidates, 2 feasible" in err and "ETA" in err


def test_csv_has_one_line_per_candidate_with_the_varied_values_and_why():
    code, out, err = run(str(SEED), *AXES, "--max", "capex_usd=1", "--format", "csv", "--quiet")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 4
    assert {r["vary.topology"] for r in rows} == {"rail_optimized", "fat_tree"}
    assert all(r["status"] == "excluded" and r["why"].startswith("max_capex_usd: capex_usd") for r in rows)
    assert "none meets them" in err and "search:" in err and "candidates," not in err  # --quiet: no progress


def test_refusals_are_one_line_per_field_with_status_1():
    code, out, err = run(str(SEED), "--vary", "rail_groups=0", "--max", "price=3", "--vary", "oops")
    assert code == 1 and out == ""
    assert "  --vary: 'oops': write NAME=VALUE" in err
    code, _, err = run(str(SEED), "--vary", "rail_groups=zero", "--max", "price=3")
    assert code == 1
    assert "  vary.rail_groups:" in err and "  constraints.max_price: unknown constraint" in err


def test_out_file_and_spec_file(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text("vary:\n  topology: [fat_tree, dragonfly_plus]\nobjectives: [facility_kw]\n", encoding="utf-8")
    dest = tmp_path / "out.json"
    code, out, err = run(str(SEED), "--spec", str(spec), "--out", str(dest), "--quiet")
    assert code == 0 and out == "", err
    report = json.loads(dest.read_text(encoding="utf-8"))
    assert report["spec"]["objectives"] == ["facility_kw"] and report["candidate_count"] == 2


def test_a_workload_target_from_the_command_line():
    code, out, err = run(str(SEED), *AXES, "--workload-target", "pretraining=100000", "--finalists", "2", "--quiet")
    assert code == 0, err
    report = json.loads(out)
    assert report["workload_target"]["job_class"] == "pretraining" and report["workload_target"]["finalists"]
    assert report["ranking"][0]["meets_workload"] is True
    code, _, err = run(str(SEED), *AXES, "--workload-target", "chess=1")
    assert code == 1 and "  workload_target.job_class: one of the design's classes" in err
