"""Published nccl-tests measurements against the collective model: the golden table and its error.

The rows (tests/topology/data/nccl_measurements.csv) are public measurements, each with its source:
vendor result pages, maintainers' statements and logs in NCCL / nccl-tests issue threads. The model is
run on each row's fabric with nothing fitted to it; the error is reported per size class as the
geometric mean of |model ÷ measured| (so +10 % and −10 % count alike) and the bias as the geometric
mean of model ÷ measured.

:func:`held_out` answers a second question — how close the model gets once calibrated to a cluster
(topology/calibration.py, the fit a user runs on their own nccl-tests log) — without fitting any row
to itself: each row of a measured curve is predicted by a calibration fitted on the *other* rows of
the same curve (leave-one-out). Rows whose curve has too few others to fit keep the bare model.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from topology.calibration import MIN_ROWS, CalibrationError, fit_calibration
from topology.collective_inputs import host_overhead_us, network_efficiency, network_latency_us
from topology.collectives import Algorithm, Collective, Fabric, bus_factor, collective_cost

DATA = Path(__file__).resolve().parent.parent / "tests" / "topology" / "data" / "nccl_measurements.csv"
MIB = 2**20
SIZE_CLASSES = (("< 1 MiB", 0, MIB), ("1 MiB – 64 MiB", MIB, 64 * MIB), ("≥ 64 MiB", 64 * MIB, math.inf))


@dataclass(frozen=True)
class Comparison:
    source: str
    system: str
    collective: str
    size_bytes: int
    measured: float  # busbw [GB/s], or time [µs] when the row gives a time
    model: float
    unit: str  # "GB/s busbw" or "µs"
    algorithm: str

    @property
    def ratio(self) -> float:
        """Model ÷ measured, as a speed: > 1 means the model is optimistic."""
        return self.model / self.measured if self.unit != "µs" else self.measured / self.model


def _fabric(row: dict) -> Fabric:
    return Fabric(
        gpus_per_node=int(row["gpus_per_node"]),
        node_count=int(row["node_count"]),
        nvlink_gbyte_s=float(row["nvlink_gbyte_s"]),
        nics_per_node=int(row["nics_per_node"]),
        nic_gbps=float(row["nic_gbps"]),
        nvls=row["nvls"] == "1",
        sharp=row["sharp"] == "1",
        rail_optimized=row["rail_optimized"] == "1",
        arch=row["arch"],
        nic_efficiency=network_efficiency(row.get("network") or "infiniband"),
        host_overhead_us=host_overhead_us(row.get("platform") or "bare_metal"),
        net_latency_us=network_latency_us(row.get("network") or "infiniband"),
    )


def _rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _cost(row: dict, fabric: Fabric, sizes=None):
    """The model on the row's fabric, at its size (or at ``sizes``: every size of its curve)."""
    algs = None if row["algorithm"] == "auto" else (Algorithm(row["algorithm"]),)
    size = float(row["size_bytes"]) if sizes is None else sizes
    return collective_cost(Collective(row["collective"]), size, fabric, algorithms=algs)


def _comparison(row: dict, cost, note: str = "") -> Comparison:
    if row["time_us"]:
        measured, model, unit = float(row["time_us"]), float(cost.time_us), "µs"
    else:
        measured, model, unit = float(row["busbw_gbyte_s"]), float(cost.busbw_gbyte_s), "GB/s busbw"
    return Comparison(row["source"], row["system"], row["collective"], int(row["size_bytes"]), measured, model,
                      unit, f"{cost.algorithm}/{cost.protocol}{note}")  # fmt: skip


def measured_time_us(row: dict) -> float:
    """A row's measured time: its time column, or size × bus factor ÷ busbw (nccl-tests PERFORMANCE.md)."""
    if row["time_us"]:
        return float(row["time_us"])
    ranks = int(row["gpus_per_node"]) * int(row["node_count"])
    factor = float(bus_factor(Collective(row["collective"]), ranks))
    return int(row["size_bytes"]) * factor / float(row["busbw_gbyte_s"]) / 1000.0  # B ÷ (GB/s) = ns


def compare(path: Path = DATA) -> list[Comparison]:
    """Every measurement beside the model's figure for it."""
    return [_comparison(row, _cost(row, _fabric(row))) for row in _rows(path)]


def held_out(path: Path = DATA) -> list[Comparison]:
    """Every measurement beside the model *calibrated on the other rows of its curve* (leave-one-out).

    A curve is one system's rows of one collective and algorithm choice. Row i is predicted by
    fit_calibration (the fit the calibration page runs) on the curve's rows other than i; a curve with
    fewer than MIN_ROWS others keeps the bare model for each row (marked "bare"). No row's own figure
    enters the calibration that predicts it."""
    rows = _rows(path)
    curves: dict[tuple[str, ...], list[int]] = {}
    for i, row in enumerate(rows):  # a curve: one system (so one fabric), one collective, one algorithm choice
        key = tuple(v for k, v in row.items() if k not in ("source", "size_bytes", "busbw_gbyte_s", "time_us"))
        curves.setdefault(key, []).append(i)
    out: list[Comparison | None] = [None] * len(rows)
    for members in curves.values():
        first, fabric = rows[members[0]], _fabric(rows[members[0]])
        sizes = np.array([float(rows[i]["size_bytes"]) for i in members])
        measured = np.array([measured_time_us(rows[i]) for i in members])

        def curve(cal, fabric=fabric, sizes=sizes, first=first):
            return _cost(first, replace(fabric, **cal.to_dict()), sizes)

        for k, i in enumerate(members):
            row, others = rows[i], np.arange(len(members)) != k
            if others.sum() < MIN_ROWS:
                out[i] = _comparison(row, _cost(row, fabric), " (bare: curve too short to fit)")
                continue
            try:
                fit = fit_calibration(measured[others], lambda cal, o=others: np.asarray(curve(cal).time_us)[o])
            except CalibrationError as exc:
                out[i] = _comparison(row, _cost(row, fabric), f" (bare: {exc})")
                continue
            cal = fit.calibration
            out[i] = _comparison(
                row,
                _cost(row, replace(fabric, **cal.to_dict())),
                f" · cal. on {int(others.sum())}: e={cal.bw_efficiency:.3g}, +{cal.latency_offset_us:.3g} µs",
            )
    return [c for c in out if c is not None]


def class_errors(rows: list[Comparison]) -> list[dict]:
    """Per size class: rows, geometric-mean |error| and bias (model ÷ measured)."""
    table = []
    for name, lo, hi in SIZE_CLASSES:
        logs = [math.log(r.ratio) for r in rows if lo <= r.size_bytes < hi]
        if not logs:
            continue
        table.append({
            "size_class": name,
            "rows": len(logs),
            "error_frac": math.exp(sum(abs(v) for v in logs) / len(logs)) - 1,
            "bias_frac": math.exp(sum(logs) / len(logs)) - 1,
            "worst_frac": math.exp(max(abs(v) for v in logs)) - 1,
        })  # fmt: skip
    return table


def report(rows: list[Comparison] | None = None) -> str:
    """The golden table as text: each row, then the error per size class."""
    rows = compare() if rows is None else rows
    lines = [f"{'system':<62} {'collective':<14} {'size':>12} {'measured':>10} {'model':>10} unit  model pick"]
    for r in rows:
        lines.append(f"{r.system[:62]:<62} {r.collective:<14} {r.size_bytes:>12,} {r.measured:>10.2f} "
                     f"{r.model:>10.2f} {r.unit:<10} {r.algorithm}")  # fmt: skip
    lines.append("")
    lines.append(f"{'size class':<16} {'rows':>5} {'GM |error|':>11} {'GM bias':>9} {'worst':>8}")
    for c in class_errors(rows):
        lines.append(f"{c['size_class']:<16} {c['rows']:>5} {c['error_frac']:>10.1%} {c['bias_frac']:>+9.1%} "
                     f"{c['worst_frac']:>7.0%}")  # fmt: skip
    return "\n".join(lines)
