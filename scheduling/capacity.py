"""The capacity answer (pure): the smallest cluster of a design family that meets a queueing target.

One workload — generated for the design as given, or a trace — is replayed on every candidate size,
so sizes are compared on the same jobs. A size meets the target when the named class's p95 wait
(until first start, every job of the class that arrived) is at most ``p95_wait_h`` and the cluster's
utilization is at least ``min_utilization`` (a cluster bigger than the work needs idles). A size too
small to hold the largest job cannot run the workload at all. The search runs every candidate (the
curve is the answer's evidence) and picks the smallest size that meets the target.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scheduling import SchedulerInputError


@dataclass(frozen=True)
class Target:
    job_class: str
    p95_wait_h: float
    min_utilization: float = 0.0

    def __post_init__(self) -> None:
        errors = {}
        if not (isinstance(self.p95_wait_h, int | float) and math.isfinite(self.p95_wait_h) and self.p95_wait_h >= 0):
            errors["target.p95_wait_h"] = f"hours ≥ 0, got {self.p95_wait_h!r}"
        if not (isinstance(self.min_utilization, int | float) and 0 <= self.min_utilization < 1):
            errors["target.min_utilization"] = f"a share from 0 to below 1, got {self.min_utilization!r}"
        if errors:
            raise SchedulerInputError(errors)

    def check(self, rep: dict[str, Any]) -> tuple[bool, str]:
        """(met, why) for one simulation report."""
        row = next((c for c in rep["classes"] if c["name"] == self.job_class), None)
        if row is None:
            return False, f"no class {self.job_class!r}"
        p95 = row["wait_h_p95"]
        if row["waiting_at_end"] and (p95 is None or p95 <= self.p95_wait_h):
            # jobs still waiting at the end have waited at least until then: a p95 of the started ones hides them
            return False, f"{row['waiting_at_end']} {self.job_class} job(s) still waiting at the end"
        if p95 is not None and p95 > self.p95_wait_h:
            return False, f"{self.job_class} p95 wait {p95:.1f} h > {self.p95_wait_h:g} h"
        if rep["utilization_frac"] < self.min_utilization:
            return False, f"utilization {rep['utilization_frac']:.1%} < {self.min_utilization:.0%}"
        return True, f"{self.job_class} p95 wait {0 if p95 is None else p95:.1f} h ≤ {self.p95_wait_h:g} h"


def search(sizes: Sequence[int], run: Callable[[int], dict[str, Any]], target: Target) -> dict[str, Any]:
    """Run every size (ascending) and return the curve and the smallest size that meets the target.

    ``run(size)`` returns a row with at least ``report`` (a simulation report) or ``error`` (this size
    cannot run the workload: the reason)."""
    if not sizes:
        raise SchedulerInputError({"sizes": "give at least one candidate size"})
    if any(not isinstance(s, int) or s < 1 for s in sizes):
        raise SchedulerInputError({"sizes": "candidate sizes are whole numbers ≥ 1"})
    rows = []
    for size in sorted(set(sizes)):
        row = {"size": size, **run(size)}
        if "error" in row:
            row["meets"], row["why"] = False, row["error"]
        else:
            row["meets"], row["why"] = target.check(row["report"])
        rows.append(row)
    best = next((r for r in rows if r["meets"]), None)
    answer = (
        f"{best['size']:,} is the smallest candidate that meets the target ({best['why']})"
        if best
        else f"no candidate meets the target; the largest, {rows[-1]['size']:,}: {rows[-1]['why']}"
    )
    return {"rows": rows, "answer_size": best["size"] if best else None, "answer": answer}
