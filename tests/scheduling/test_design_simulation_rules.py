"""A design's simulation report (cluster/simulation.py) on the k = 4 fat-tree drawn by hand: 16 nodes of 8 GPUs,
Kubernetes on the last 4, so the batch partition gpu-large is 12 nodes (96 GPUs) of the design's 16."""

from __future__ import annotations

import numpy as np
import pytest

from cluster.pipeline import plan_cluster
from cluster.simulation import _policies, batch_of, make_jobs, simulate_design
from cluster.validate import validate

FABRIC = {"topology": "fat_tree", "nics_per_node": 1, "switch_radix": 4, "switch_model": "", "tiers": 3}
CLASSES = "short,100,8,16,8,1,3,queued"  # 1–2 node jobs of 1–3 h, all of the offered GPU-hours


def _plan(**workload):
    data = {"node_count": 16, "gpus_per_node": 8, "compute_fabric": FABRIC, "scheduler": {"kubernetes_node_count": 4},
            "workload": {"classes": CLASSES, "days": 60, **workload}}  # fmt: skip
    return plan_cluster(validate(data))


def test_failures_take_the_workloads_rate_and_the_designs_checkpoint_window():
    """AFR 2 % → 0.02 a year; the checkpoint write is the design's storage window in hours (seconds ÷ 3,600)."""
    plan = _plan(afr_pct=2, repair_h=12, restart_h=0.5)
    w, b = plan.requirements.workload, batch_of(plan)
    jobs, profile = make_jobs(w, b)
    f = _policies(plan, w, b, profile, jobs)["failures"]
    assert (f.afr, f.repair_h, f.restart_h) == (0.02, 12, 0.5)
    assert f.checkpoint_write_h == pytest.approx(plan.requirements.checkpoint.window_s / 3600)
    plain = _plan()
    assert _policies(plain, plain.requirements.workload, b, profile, jobs)["failures"] is None  # AFR 0: none


def test_report_curves_and_progress():
    """The wait CDF of each class at every 2nd percentile, 0 to 100 (51 points, from the shortest wait to the
    longest); the timeline in 180 bins over the 60 days (8 h each); progress climbs to 1 in three stages: the
    batch run to 0.6, the pooled run to 0.9 (16 nodes > 12), then done."""
    seen: list[float] = []
    out = simulate_design(_plan(offered_load_pct=90), progress=seen.append)
    cdf = out["wait_cdf"][0]
    assert cdf["percentiles"] == list(range(0, 101, 2)) and len(cdf["wait_h"]) == 51
    assert cdf["wait_h"] == sorted(cdf["wait_h"]) and cdf["wait_h"][0] >= 0
    assert out["timeline"]["bin_h"] == pytest.approx(8.0) and len(out["timeline"]["busy_nodes"]) == 180
    assert seen[-1] == 1.0 and seen == sorted(seen)
    batch = [x for x in seen if x <= 0.6]
    assert batch and all(0.6 <= x <= 0.9 for x in seen[len(batch) : -1])
    assert out["split"]["design_nodes"] == 16 and out["split"]["batch_nodes"] == 12
    assert np.isclose(out["inputs"]["offered_load_frac"], 0.9)
