"""A design's collective model calibrated to an nccl-tests log from the cluster (pure, no Django).

The model is evaluated on the design's fabric *at the log's GPU count* (a 16-GPU test on a
2,048-GPU design is compared with the model of 2 nodes of that design, not of 256), the two
calibration parameters are fitted (topology/calibration.py), and every row comes back with the
measured, model and calibrated busbw so the chart and the table show the same numbers.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import numpy as np

from cluster.collectives import collective_fabric
from cluster.requirements import Requirements
from topology.calibration import IDENTITY, Calibration, CalibrationError, fit_calibration
from topology.collectives import Collective, Fabric, collective_cost
from topology.nccl_logs import LogError, NcclTestsLog, check_collective, parse_nccl_tests

COLUMNS = ("out_of_place", "in_place", "best")


class CalibrationInputError(ValueError):
    """Field → messages, as the form, the API and the CLI show them."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


def _gpu_token(gpu_model: str) -> str:
    return gpu_model.split("-")[0].upper()


def log_fabric(r: Requirements, ranks: int) -> dict[str, Any]:
    """The design's collective fabric holding `ranks` GPUs: whole nodes, or part of one node."""
    g = r.cluster.gpus_per_node
    if ranks >= g:
        if ranks % g:
            raise CalibrationInputError({"log": [f"{ranks} ranks do not fill whole {g}-GPU nodes of this design"]})
        fabric, _ = collective_fabric(r, {"node_count": ranks // g})
        return fabric
    fabric, _ = collective_fabric(r, {"node_count": 1})
    nics = max(1, fabric["nics_per_node"] * ranks // fabric["gpus_per_node"])
    return {**fabric, "gpus_per_node": ranks, "node_count": 1, "nics_per_node": nics}


def _ranks(log: NcclTestsLog, gpus: int | None) -> int:
    if gpus is not None:
        if log.ranks is not None and log.ranks != gpus:
            raise CalibrationInputError({"gpus": [f"the log lists {log.ranks} ranks, not {gpus}"]})
        return gpus
    if log.ranks is None:
        raise CalibrationInputError({"gpus": ["the log does not list its ranks ('#  Rank' lines): give the GPU count"]})
    return log.ranks


def calibrate(
    r: Requirements, text: str, collective: str, column: str = "out_of_place", gpus: int | None = None
) -> dict[str, Any]:
    """Parse, check, evaluate the model at the log's sizes and GPU count, fit; a JSON-safe result."""
    if collective not in [c.value for c in Collective]:
        raise CalibrationInputError({"collective": [f"one of {', '.join(c.value for c in Collective)}"]})
    if column not in COLUMNS:
        raise CalibrationInputError({"column": [f"one of {', '.join(COLUMNS)}"]})
    try:
        log = parse_nccl_tests(text)
        ranks = _ranks(log, gpus)
        check_collective(log, Collective(collective), ranks)
        measured = log.measured(column)
    except (LogError, CalibrationError) as exc:
        raise CalibrationInputError({exc.field: [str(exc)]}) from None
    token = _gpu_token(r.cluster.gpu_model)
    if log.gpu_names and not any(re.search(rf"\b{re.escape(token)}\b", n.upper()) for n in log.gpu_names):
        raise CalibrationInputError(
            {"log": [f"the log ran on {', '.join(log.gpu_names)}; this design has {r.cluster.gpu_model}"]}
        )
    try:
        fabric = log_fabric(r, ranks)
        sizes = np.array([m[0] for m in measured], dtype=float)

        def model(cal: Calibration):
            return collective_cost(Collective(collective), sizes, Fabric.from_dict({**fabric, **cal.to_dict()}))

        bare = model(IDENTITY)
        fit = fit_calibration([m[1] for m in measured], lambda cal: model(cal).time_us)
        calibrated = model(fit.calibration)
    except CalibrationInputError:
        raise
    except CalibrationError as exc:
        raise CalibrationInputError({exc.field: [str(exc)]}) from None
    except ValueError as exc:  # the model or the fabric planner refuses this design at the log's size
        raise CalibrationInputError({"design": [str(exc)]}) from None
    return _result(log, measured, bare, calibrated, fit, fabric, collective, column, ranks, text)


def _result(log, measured, bare, calibrated, fit, fabric, collective, column, ranks, text) -> dict[str, Any]:
    cal = fit.calibration
    rows = []
    for i, (size, t_meas, _alg, bus_meas) in enumerate(measured):
        rows.append(
            {
                "size_bytes": size,
                "measured_time_us": t_meas,
                "measured_busbw_gbyte_s": bus_meas,
                "model_time_us": round(float(bare.time_us[i]), 4),
                "model_busbw_gbyte_s": round(float(bare.busbw_gbyte_s[i]), 4),
                "model_choice": f"{bare.algorithm[i]}/{bare.protocol[i]}",
                "calibrated_time_us": round(float(calibrated.time_us[i]), 4),
                "calibrated_busbw_gbyte_s": round(float(calibrated.busbw_gbyte_s[i]), 4),
                "calibrated_choice": f"{calibrated.algorithm[i]}/{calibrated.protocol[i]}",
            }
        )
    return {
        "collective": collective,
        "column": column,
        "parameters": cal.to_dict(),
        "derivation": cal.derivation(),
        "error_before": round(fit.error_before, 4),
        "error_after": round(fit.error_after, 4),
        "evaluations": fit.evaluations,
        "rows": rows,
        "fabric": fabric,
        "provenance": {
            "ranks": ranks,
            "hosts": list(log.hosts),
            "gpu_names": list(log.gpu_names),
            "nccl_tests_version": log.version,
            "binary": log.binary,
            "header": log.header,
            "avg_busbw_gbyte_s": log.avg_busbw_gbyte_s,
            "rows": len(log.rows),
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
        },
    }
