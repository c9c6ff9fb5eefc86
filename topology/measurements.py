"""Published nccl-tests measurements against the collective model: the golden table and its error.

The rows (tests/topology/data/nccl_measurements.csv) are public measurements, each with its source:
vendor result pages, maintainers' statements and logs in NCCL / nccl-tests issue threads. The model is
run on each row's fabric with nothing fitted to it; the error is reported per size class as the
geometric mean of |model ÷ measured| (so +10 % and −10 % count alike) and the bias as the geometric
mean of model ÷ measured.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

from topology.collectives import Algorithm, Collective, Fabric, collective_cost

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
    )


def compare(path: Path = DATA) -> list[Comparison]:
    """Every measurement beside the model's figure for it."""
    out = []
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            coll, size = Collective(row["collective"]), int(row["size_bytes"])
            algs = None if row["algorithm"] == "auto" else (Algorithm(row["algorithm"]),)
            f = _fabric(row)
            cost = collective_cost(coll, float(size), f, algorithms=algs)
            if row["time_us"]:
                measured, model, unit = float(row["time_us"]), float(cost.time_us), "µs"
            else:
                measured, model, unit = float(row["busbw_gbyte_s"]), float(cost.busbw_gbyte_s), "GB/s busbw"
            out.append(Comparison(row["source"], row["system"], coll.value, size, measured, model, unit,
                                  f"{cost.algorithm}/{cost.protocol}"))  # fmt: skip
    return out


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
