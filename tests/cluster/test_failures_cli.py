"""`cluster-designer failures` on the seed example: every switch class, the Monte Carlo, refusals by flag."""

from __future__ import annotations

import json
import subprocess

from tests.cluster.test_console import cluster_designer
from tests.conftest import EXAMPLES


def test_failures_of_the_seed_design():
    """The seed's fabric: a spine failure costs at most 1/S of the bisection (exactly 1/S only where the uplinks are
    the bottleneck; the seed's partial scalable unit leaves spare uplink), a leaf takes its NIC ports; the JSON counts
    every switch once across the classes."""
    cmd = [cluster_designer(), "failures", str(EXAMPLES / "seed-2000-gpu.yaml"), "--samples", "50", "--format", "json"]
    out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    assert sum(r["switches"] for r in out["single_failures"]) == out["switch_count"]
    spines = [r for r in out["single_failures"] if r["tier"] == "spine"]
    s = sum(r["switches"] for r in spines)
    assert spines and all(0 < r["bisection_lost_frac"] <= 1 / s + 1e-12 for r in spines)
    leaves = [r for r in out["single_failures"] if r["tier"] == "leaf"]
    assert all(r["nic_ports_cut_off"] > 0 and r["nodes_degraded"] == r["nic_ports_cut_off"] for r in leaves)
    mc = out["monte_carlo"]
    assert mc["k"] == 4 and mc["samples"] == 50 and mc["ci95_gbps"][0] <= mc["mean_left_gbps"] <= mc["ci95_gbps"][1]
    assert sum(mc["histogram"]["counts"]) == 50
    bad = subprocess.run([*cmd[:3], "--k", "0"], capture_output=True, text=True)
    assert bad.returncode == 1 and "--k: 0 failures: from 1 to" in bad.stderr
