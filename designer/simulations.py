"""Simulation runs, the service side: a request checked and queued, a worker's claim, progress, result.

The database is the source of truth. A run is claimed by a conditional UPDATE (pending → running), so a
message delivered twice computes once; its worker writes progress and a heartbeat at most every
PROGRESS_WRITE_S; a run whose message was lost (pending too long) or whose worker died (heartbeat
stale) is queued again by :func:`reap_stale_runs` — called by the worker's beat and by every progress
poll — up to MAX_ATTEMPTS times. The formulas are cluster/simulation.py's; nothing is computed here.
"""

from __future__ import annotations

import math
import time
from datetime import timedelta
from decimal import Decimal
from typing import Any

from celery import shared_task
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from cluster.pipeline import plan_cluster
from cluster.requirements import Requirements
from cluster.simulation import GpuCeiling, capacity_design, check_run, parse_fabric_rates, simulate_design
from cluster.validate import RequirementsError
from designer.models import DesignRevision, SimulationRun
from designer.services import current_catalog
from scheduling import SchedulerInputError
from scheduling.capacity import Target

MAX_TRACE_CHARS = 5 * 2**20  # a trace replayed from the web or the API (the CLI reads any size)
MAX_NAME = 200
PROGRESS_WRITE_S = 0.5
PENDING_STALE_S = 60.0
RUNNING_STALE_S = 120.0
MAX_ATTEMPTS = 3
OPEN = (SimulationRun.Status.PENDING, SimulationRun.Status.RUNNING)


class SimulationInputError(ValueError):
    """Field errors of a run request (its own fields, or the requirement fields the run refuses)."""

    def __init__(self, errors: dict[str, list[str]], unprocessable: bool = False):
        self.errors = errors
        self.unprocessable = unprocessable  # well-formed, but the design's workload or the target refuses
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


def _number(raw: Any, name: str, errors: dict[str, list[str]], default: float, lo: float, hi: float) -> float:
    if raw in (None, ""):
        return default
    try:
        x = float(raw) if not isinstance(raw, bool) else math.nan
    except (TypeError, ValueError):
        x = math.nan
    if not (math.isfinite(x) and lo <= x <= hi):
        errors[name] = [f"a number from {lo:g} to {hi:g}, got {raw!r}"]
        return default
    return x


def _sizes(raw: Any, errors: dict[str, list[str]]) -> list[int] | None:
    """Candidate GPU counts: a list of whole numbers, or text with commas; empty = 0.6–1.6 × the design's."""
    if raw in (None, "", []):
        return None
    items = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else None
    out = []
    for item in items or [None]:
        text = str(item).strip() if not isinstance(item, bool) and item is not None else ""
        if not (text.isascii() and text.isdigit() and len(text) <= 18):  # the ceiling is checked with the design
            errors["gpus"] = [f"whole GPU counts (a list, or text with commas), got {raw!r}"]
            return None
        out.append(int(text))
    return out


def parse_request(kind: Any, name: Any, target: Any, gpus: Any, trace_text: Any, trace_format: Any) -> dict:
    """The run's own fields, checked; SimulationInputError names every bad one."""
    errors: dict[str, list[str]] = {}
    if kind not in SimulationRun.Kind.values:
        errors["kind"] = [f"one of {', '.join(SimulationRun.Kind.values)}"]
    name = name.strip() if isinstance(name, str) else ""
    if len(name) > MAX_NAME:
        errors["name"] = [f"at most {MAX_NAME} characters"]
    out: dict[str, Any] = {
        "kind": kind,
        "name": name,
        "target": None,
        "sizes": None,
        "trace_text": None,
        "trace_format": trace_format or "ours",
    }
    if trace_text not in (None, ""):
        if not isinstance(trace_text, str):
            errors["trace"] = ["the trace's text (CSV)"]
        elif len(trace_text) > MAX_TRACE_CHARS:
            errors["trace"] = [f"{len(trace_text):,} characters; a run may replay {MAX_TRACE_CHARS:,} (use the CLI)"]
        else:
            out["trace_text"] = trace_text
    if out["trace_format"] not in ("ours", "acme"):
        errors["trace_format"] = ["ours or acme"]
    if kind == SimulationRun.Kind.CAPACITY:
        t = target if isinstance(target, dict) else {}
        if target is not None and not isinstance(target, dict):
            errors["target"] = ["a mapping: job_class, p95_wait_h, min_utilization"]
        job_class = t.get("job_class")
        if not isinstance(job_class, str) or not job_class.strip():
            errors["target.job_class"] = ["the class the target is for, e.g. pretraining"]
        p95 = _number(t.get("p95_wait_h"), "target.p95_wait_h", errors, 24.0, 0, 87_600)
        util = _number(t.get("min_utilization"), "target.min_utilization", errors, 0.0, 0, 0.999)
        if not any(k.startswith("target") for k in errors):
            out["target"] = Target(job_class.strip(), p95, util)
        out["sizes"] = _sizes(gpus, errors)
    if errors:
        raise SimulationInputError(errors)
    return out


def _plan(flat: dict[str, Any]):
    return plan_cluster(Requirements.from_flat(flat), current_catalog())


def request_ceiling() -> GpuCeiling:
    """The largest design a run started from the web or the API may plan (every candidate of a capacity search)."""
    from django.conf import settings

    return GpuCeiling(settings.MAX_REQUEST_GPUS, "MAX_REQUEST_GPUS")


def create_run(user, revision: DesignRevision, **request: Any) -> SimulationRun:
    """Check the request against the revision's requirements and queue it. Bounded: the design is not planned
    and no job is made here (the worker does both); a generated workload is sized by its expected job count."""
    req = parse_request(
        request.get("kind", "simulate"),
        request.get("name", ""),
        request.get("target"),
        request.get("gpus"),
        request.get("trace_text"),
        request.get("trace_format"),
    )
    flat = revision.requirements()
    fabric = None
    if req["kind"] == SimulationRun.Kind.SIMULATE:
        fabric = _fabric(request.get("fabric"), Requirements.from_flat(flat).workload.repair_h)
    try:
        summary = check_run(
            Requirements.from_flat(flat),
            trace_text=req["trace_text"],
            trace_format=req["trace_format"],
            target=req["target"],
            sizes=req["sizes"],
            ceiling=request_ceiling(),
            fabric=fabric,
        )
    except SchedulerInputError as exc:
        raise SimulationInputError({k: [v] for k, v in exc.errors.items()}, unprocessable=True) from None
    except RequirementsError as exc:
        raise SimulationInputError(exc.nested(), unprocessable=True) from None
    kind = req["kind"]
    default = f"{'Capacity search' if kind == 'capacity' else 'Simulation'} of r{revision.number}"
    params = {
        "jobs": summary["jobs"],
        "jobs_expected": summary["jobs_expected"],  # the Poisson mean of a generated workload; the report has the count
        "profile": summary["profile"],
        "classes": summary["classes"],
        "trace_format": req["trace_format"],
        "trace_name": str(request.get("trace_name") or "")[:255],
    }
    if fabric is not None:
        params["fabric"] = fabric  # kind → {afr_pct, repair_h}: what the worker simulates (a run without: GPU only)
    if req["target"] is not None:
        t = req["target"]
        params |= {
            "target": {"job_class": t.job_class, "p95_wait_h": t.p95_wait_h, "min_utilization": t.min_utilization},
            "sizes": req["sizes"],
        }
    with transaction.atomic():
        run = SimulationRun.objects.create(
            owner=user,
            design=revision.design,
            revision=revision,
            name=req["name"] or default,
            kind=kind,
            params=params,
            requirements=_plain(flat),
            trace_text=req["trace_text"] or "",
        )
        transaction.on_commit(lambda: enqueue(run.pk))
    return run


def _fabric(raw: Any, repair_h: float) -> dict:
    """The run's fabric AFRs and repair times (None: the cited defaults), each bad value refused on its own key."""
    try:
        return parse_fabric_rates(raw, repair_h)
    except SchedulerInputError as exc:
        raise SimulationInputError({k: [v] for k, v in exc.errors.items()}) from None


def enqueue(run_id: int) -> None:
    SimulationRun.objects.filter(pk=run_id).update(enqueued_at=timezone.now())
    run_simulation_task.delay(run_id)


def _plain(x: Any) -> Any:
    """JSON-safe: Decimal → str, non-finite floats → None, tuples → lists (the report is already plain)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, Decimal):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if hasattr(x, "item") and not isinstance(x, str):  # a numpy scalar
        return _plain(x.item())
    return x


class _Cancelled(Exception):
    pass


def _progress_writer(run_id: int):
    """A callback that writes progress and the heartbeat at most every PROGRESS_WRITE_S, and stops the
    run (raises) once it has been cancelled."""
    last = [0.0]

    def write(frac: float) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_WRITE_S and frac < 1.0:
            return
        last[0] = now
        n = SimulationRun.objects.filter(pk=run_id, status=SimulationRun.Status.RUNNING).update(
            progress_frac=max(0.0, min(1.0, frac)), heartbeat_at=timezone.now()
        )
        if n == 0:
            raise _Cancelled

    return write


def claim(run_id: int) -> bool:
    now = timezone.now()
    return bool(
        SimulationRun.objects.filter(pk=run_id, status=SimulationRun.Status.PENDING).update(
            status=SimulationRun.Status.RUNNING, started_at=now, heartbeat_at=now, attempts=F("attempts") + 1
        )
    )


def run_simulation(run_id: int) -> str:
    """Compute one run (the Celery task's body); a run already claimed, done or cancelled is left alone."""
    if not claim(run_id):
        return "skipped"
    run = SimulationRun.objects.get(pk=run_id)
    progress = _progress_writer(run_id)
    try:
        plan = _plan(run.requirements)
        if run.kind == SimulationRun.Kind.CAPACITY:
            t = run.params["target"]
            target = Target(t["job_class"], t["p95_wait_h"], t["min_utilization"])
            result = capacity_design(
                plan, target, run.params.get("sizes"), progress=progress, ceiling=request_ceiling()
            )
        else:
            result = simulate_design(
                plan,
                trace_text=run.trace_text or None,
                trace_format=run.params.get("trace_format", "ours"),
                progress=progress,
                fabric=run.params.get("fabric"),
            )
    except _Cancelled:
        return "cancelled"
    except (SchedulerInputError, RequirementsError) as exc:
        _finish(run_id, SimulationRun.Status.FAILED, error=f"refused: {exc}")
        return "failed"
    except Exception as exc:
        _finish(run_id, SimulationRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    _finish(run_id, SimulationRun.Status.DONE, result=_plain(result))
    return "done"


def _finish(run_id: int, status: str, *, result: Any = None, error: str = "") -> None:
    fields: dict[str, Any] = {"status": status, "finished_at": timezone.now(), "error": error}
    if status == SimulationRun.Status.DONE:
        fields |= {"result": result, "progress_frac": 1.0}
    SimulationRun.objects.filter(pk=run_id, status=SimulationRun.Status.RUNNING).update(**fields)


def cancel_run(run: SimulationRun) -> None:
    SimulationRun.objects.filter(pk=run.pk, status__in=OPEN).update(
        status=SimulationRun.Status.CANCELLED, finished_at=timezone.now()
    )


def reap_stale_runs(run_id: int | None = None) -> int:
    """Queue again the runs whose message was lost or whose worker died; fail those past MAX_ATTEMPTS."""
    now = timezone.now()
    qs = SimulationRun.objects.filter(pk=run_id) if run_id is not None else SimulationRun.objects.all()
    lost = qs.filter(status=SimulationRun.Status.PENDING, enqueued_at__lt=now - timedelta(seconds=PENDING_STALE_S))
    dead = qs.filter(status=SimulationRun.Status.RUNNING, heartbeat_at__lt=now - timedelta(seconds=RUNNING_STALE_S))
    count = 0
    for run in dead.filter(attempts__gte=MAX_ATTEMPTS):
        SimulationRun.objects.filter(pk=run.pk, status=SimulationRun.Status.RUNNING).update(
            status=SimulationRun.Status.FAILED,
            finished_at=now,
            error=f"the worker stopped {run.attempts} times while running it (no heartbeat for {RUNNING_STALE_S:g} s)",
        )
    for run in dead.filter(attempts__lt=MAX_ATTEMPTS):
        if SimulationRun.objects.filter(
            pk=run.pk, status=SimulationRun.Status.RUNNING, heartbeat_at=run.heartbeat_at
        ).update(status=SimulationRun.Status.PENDING, progress_frac=0.0):
            enqueue(run.pk)
            count += 1
    for run in lost.filter(Q(attempts__lt=MAX_ATTEMPTS)):
        enqueue(run.pk)
        count += 1
    return count


def run_progress(run: SimulationRun) -> dict[str, Any]:
    if run.status in OPEN:
        reap_stale_runs(run.pk)
        run.refresh_from_db()
    now = timezone.now()
    elapsed = ((run.finished_at or now) - run.started_at).total_seconds() if run.started_at else 0.0
    frac = run.progress_frac
    eta = elapsed * (1 - frac) / frac if run.status == SimulationRun.Status.RUNNING and frac > 0.02 else None
    return {
        "id": run.pk,
        "status": run.status,
        "fraction_done": frac,
        "elapsed_s": round(elapsed, 1),
        "eta_s": None if eta is None else round(eta, 1),
        "attempts": run.attempts,
        "error": run.error,
    }


# --- the Celery tasks (registered by name; designer/tasks.py lists them for the worker) ---------------------


@shared_task(name="designer.run_simulation", acks_late=True, reject_on_worker_lost=True)
def run_simulation_task(run_id: int) -> str:
    """Compute one simulation run or capacity search; claimed once (see :func:`run_simulation`)."""
    return run_simulation(run_id)


@shared_task(name="designer.reap_stale_simulations")
def reap_stale_simulations_task() -> int:
    """Re-enqueue runs whose message was lost or whose worker died (run by beat)."""
    return reap_stale_runs()
