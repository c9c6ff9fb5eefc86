"""Calibrating a design to a log (cluster/calibrate.py): the fabric the log ran on and the figures' precision."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster.calibrate import CalibrationInputError, calibrate, log_fabric
from cluster.requirements import Requirements

LOGS = Path(__file__).parents[1] / "topology" / "data" / "nccl_logs"


def test_a_log_on_part_of_a_node_sees_that_part():
    """The default design: nodes of 8 H100 with 8 NICs. 4 ranks ran on half a node: 4 GPUs and 8 × 4 ÷ 8 = 4 NICs
    of one node; 1 rank keeps 1 NIC (never 0); 16 ranks are 2 whole nodes; 12 ranks are not whole nodes."""
    r = Requirements()
    half = log_fabric(r, 4)
    assert (half["gpus_per_node"], half["node_count"], half["nics_per_node"]) == (4, 1, 4)
    one = log_fabric(r, 1)
    assert (one["gpus_per_node"], one["node_count"], one["nics_per_node"]) == (1, 1, 1)
    two = log_fabric(r, 16)
    assert (two["gpus_per_node"], two["node_count"], two["nics_per_node"]) == (8, 2, 8)
    with pytest.raises(CalibrationInputError) as exc:
        log_fabric(r, 12)
    assert exc.value.errors == {"log": ["12 ranks do not fill whole 8-GPU nodes of this design"]}


def test_figures_are_given_to_four_decimals():
    """Every model and calibrated figure of the result, and both errors, are rounded to 4 decimals — and not to 3
    (somewhere a fifth or fourth decimal shows)."""
    out = calibrate(Requirements(), (LOGS / "h100-1x8-all_gather-synthetic.txt").read_text(), "all_gather")
    keys = ("model_time_us", "model_busbw_gbyte_s", "calibrated_time_us", "calibrated_busbw_gbyte_s")
    for key in keys:
        values = [row[key] for row in out["rows"]]
        assert all(round(v, 4) == v for v in values), key
        assert any(round(v, 3) != v for v in values), key
    for key in ("error_before", "error_after"):
        assert round(out[key], 4) == out[key] and 0 <= out[key] < 1


def test_a_part_node_log_on_a_design_with_fewer_nics_than_gpus():
    """Nodes of 8 GPUs with 4 NICs: 3 ranks see ⌊4 × 3 ÷ 8⌋ = 1 NIC; 1 rank ⌊4 ÷ 8⌋ = 0 → still 1 NIC."""
    from cluster.validate import validate

    r = validate({"node_count": 4, "gpus_per_node": 8, "compute_fabric": {"nics_per_node": 4}})
    assert log_fabric(r, 3)["nics_per_node"] == 1 and log_fabric(r, 1)["nics_per_node"] == 1
    assert log_fabric(r, 6)["nics_per_node"] == 3
