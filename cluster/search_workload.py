"""A design search's optional workload target, checked on the finalists only (pure: no Django).

``workload_target: {job_class: pretraining, p95_wait_h: 24, finalists: 8}``: the queue simulator
(cluster/simulation.py ``simulate_design``, the design's own workload on its batch partition, placement by its
fabric's leaf groups and pods) runs on the finalists — the ``finalists`` best ranked feasible candidates and, per
family, the candidates the equal-budget and equal-power views name — and each gets its class's p95 wait. A
finalist above the target is marked (``meets_workload: false``), counted under ``workload:p95_wait_h`` and skipped
by ``best``. Candidates outside the finalists are not simulated: the search does not claim they meet it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bom.plan import Catalog
from cluster.pipeline import plan_cluster
from cluster.requirements import Requirements
from cluster.validate import RequirementsError, validate_flat
from cluster.workload import profile_of
from scheduling import SchedulerInputError

MAX_FINALISTS = 16
DEFAULT_FINALISTS = 8


def parse_target(raw: Any, base: Mapping[str, Any], errors: dict[str, list[str]]) -> tuple[str, float, int] | None:
    """(job class, p95 wait [h], finalists) from a spec's ``workload_target``, or None; errors on its fields."""
    if raw in (None, {}, ""):
        return None
    if not isinstance(raw, Mapping):
        errors["workload_target"] = ["a mapping: job_class, p95_wait_h and optionally finalists"]
        return None
    names = [c.name for c in profile_of(Requirements.from_flat(dict(base)).workload).classes]
    job_class = raw.get("job_class")
    if job_class not in names:
        errors["workload_target.job_class"] = [f"one of the design's classes: {', '.join(names)}"]
    try:
        wait = float(raw.get("p95_wait_h"))
    except (TypeError, ValueError):
        wait = math.nan
    if not math.isfinite(wait) or wait < 0:
        errors["workload_target.p95_wait_h"] = ["a number of hours ≥ 0"]
    count = raw.get("finalists", DEFAULT_FINALISTS)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_FINALISTS:
        errors["workload_target.finalists"] = [f"a whole number from 1 to {MAX_FINALISTS}"]
    if any(k.startswith("workload_target") for k in errors):
        return None
    return str(job_class), wait, int(count)


def finalists(report: dict[str, Any], count: int) -> list[int]:
    """The best ``count`` ranked candidates, then the ones the equal-budget and equal-power views name."""
    picked = [r["i"] for r in report["ranking"][:count]]
    for view in ("equal_budget", "equal_power"):
        for e in report[view]:
            picked += [e[k] for k in ("best_bisection_candidate", "best_allreduce_candidate") if e[k] is not None]
    return list(dict.fromkeys(picked))


def p95_wait_h(flat: dict[str, Any], job_class: str, catalog: Catalog) -> tuple[float | None, str]:
    """The class's p95 queue wait [h] on this design, and how it was reached (or why not)."""
    from cluster.simulation import simulate_design

    try:
        plan = plan_cluster(validate_flat(flat), catalog)
        rep = simulate_design(plan, split=False)
    except (RequirementsError, SchedulerInputError) as exc:
        return None, f"not simulated: {exc}"
    row = next((c for c in rep["classes"] if c["name"] == job_class), None)
    if row is None or row.get("wait_h_p95") is None:
        return None, f"no {job_class} job finished in the simulated horizon"
    jobs = rep.get("inputs", {}).get("jobs")
    return float(row["wait_h_p95"]), f"queue simulator: {jobs} jobs of the design's workload on its batch partition"


def apply_target(report: dict[str, Any], waits: dict[int, tuple[float | None, str]], target: tuple[str, float, int]):
    """Mark the simulated finalists in the ranking and the equal views; ``best`` becomes the best that meets it."""
    job_class, limit, _ = target
    failed = 0
    for row in report["ranking"]:
        if row["i"] in waits:
            wait, why = waits[row["i"]]
            row["p95_wait_h"], row["p95_why"] = wait, why
            row["meets_workload"] = wait is not None and wait <= limit
            failed += not row["meets_workload"]
    for view in ("equal_budget", "equal_power"):
        for e in report[view]:
            best = e["best_bisection_candidate"]
            e["p95_wait_h"] = waits.get(best, (None, ""))[0] if best is not None else None
    if failed:
        report["refusals"]["workload:p95_wait_h"] = {
            "count": failed,
            "example": f"{job_class} p95 wait above {limit:g} h (finalists simulated: {len(waits)})",
        }
    ok = [r for r in report["ranking"] if r.get("meets_workload")]
    report["best"] = ok[0] if ok else None
    report["workload_target"] = {"job_class": job_class, "p95_wait_h": limit, "finalists": sorted(waits)}
