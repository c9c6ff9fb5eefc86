"""Simulation pages: start a run (simulation or capacity search), its progress (polled), its report and
charts, a json download, cancel; and side-by-side comparison of runs between designs or revisions."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from designer import simulation_charts as charts
from designer.access import visible_design
from designer.models import SimulationRun
from designer.simulations import SimulationInputError, cancel_run, create_run, run_progress

MAX_COMPARED = 6


def owned_run(user, pk: int) -> SimulationRun:
    try:
        return SimulationRun.objects.select_related("design", "revision").get(pk=pk, owner=user)
    except SimulationRun.DoesNotExist:
        raise Http404("no such simulation") from None


def _trace_from(request: HttpRequest) -> tuple[str | None, str, dict[str, list[str]]]:
    upload = request.FILES.get("trace_file")
    if upload is None:
        return None, "", {}
    raw = upload.read(5 * 2**20 + 1)
    try:
        return raw.decode("utf-8-sig"), upload.name, {}
    except UnicodeDecodeError:
        return None, upload.name, {"trace": [f"{upload.name} is not UTF-8 text (a CSV file)"]}


@login_required
@require_http_methods(["GET", "POST"])
def simulation_new(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the design's runs and the forms; POST: start one (field errors on the page, nothing queued)."""
    design = visible_design(request.user, pk)
    errors: dict[str, list[str]] = {}
    post = request.POST
    if request.method == "POST":
        trace, trace_name, errors = _trace_from(request)
        kind = post.get("kind", "simulate")
        if not errors:
            try:
                run = create_run(
                    request.user,
                    design.head,
                    kind=kind,
                    name=post.get("name", ""),
                    trace_text=trace,
                    trace_format=post.get("trace_format") or "ours",
                    trace_name=trace_name,
                    target={
                        "job_class": post.get("job_class", ""),
                        "p95_wait_h": post.get("p95_wait_h", ""),
                        "min_utilization": post.get("min_utilization", ""),
                    }
                    if kind == "capacity"
                    else None,
                    gpus=post.get("gpus", ""),
                    fabric=_fabric_from(post) if kind == "simulate" else None,
                )
            except SimulationInputError as exc:
                errors = exc.errors
            else:
                about = "about " if run.params.get("jobs_expected") else ""
                messages.success(request, f"{run.name} queued: {about}{run.params['jobs']:,} jobs.")
                return redirect("simulation-detail", pk=run.pk)
    head = design.head
    workload = head.requirements()
    return render(
        request,
        "designer/simulation_new.html",
        {
            "design": design,
            "errors": errors,
            "post": post,
            "workload": workload,
            "classes": _class_rows(workload),
            "runs": design.simulations.filter(owner=request.user)[:50],
            "fabric_rows": _fabric_rows(post, workload),
        },
    )


FABRIC_LABELS = {"leaf": "Leaf switch", "spine": "Spine switch", "nic": "NIC", "optic": "Optic (transceiver)",
                 "cable": "Cable"}  # fmt: skip


def _fabric_from(post) -> dict:
    """The simulate form's fabric AFR and repair fields: a number as typed, a blank one left to its default; text
    that is not a number goes through as it is, to be refused on its own key (fabric.<kind>.afr_pct …)."""
    out: dict = {}
    for kind in FABRIC_LABELS:
        for field in ("afr_pct", "repair_h"):
            text = (post.get(f"fabric_{kind}_{field}") or "").strip()
            if not text:
                continue
            try:
                value = float(text)
            except ValueError:
                value = text
            out.setdefault(kind, {})[field] = value
    return out


def _fabric_rows(post, workload: dict) -> list[dict]:
    from scheduling.failures import fabric_defaults

    defaults = fabric_defaults()
    return [{"kind": k, "label": label, "afr_pct": post.get(f"fabric_{k}_afr_pct", defaults[k]["afr_pct"]),
             "repair_h": post.get(f"fabric_{k}_repair_h", workload.get("wl_repair_h", 24.0)),
             "source": defaults[k]["source"]} for k, label in FABRIC_LABELS.items()]  # fmt: skip


def _class_rows(flat: dict) -> list[dict]:
    from scheduling.workload import SEED_TABLE_14_24, class_dict, parse_classes

    text = flat.get("wl_classes") or ""
    classes = parse_classes(text) if text.strip() else SEED_TABLE_14_24.classes
    return [class_dict(c) for c in classes]


@login_required
def simulation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = owned_run(request.user, pk)
    ctx = {"run": run, "progress": run_progress(run), "result": run.result}
    if run.result:
        ctx["charts"] = (
            charts.capacity_charts(run.result)
            if run.kind == SimulationRun.Kind.CAPACITY
            else charts.simulation_charts(run.result)
        )
        if run.kind == SimulationRun.Kind.CAPACITY:
            ctx["target_rows"] = _capacity_rows(run.result)
    return render(request, "designer/simulation_detail.html", ctx)


def _capacity_rows(result: dict) -> list[dict]:
    t = result["inputs"]["target"]["job_class"]
    rows = []
    for r in result["rows"]:
        rep = r.get("report")
        cls = next((c for c in rep["classes"] if c["name"] == t), {}) if rep else {}
        rows.append(
            {
                **r,
                "utilization_frac": rep["utilization_frac"] if rep else None,
                "wait_h_p95": cls.get("wait_h_p95"),
                "waiting_at_end": cls.get("waiting_at_end"),
            }
        )
    return rows


@login_required
def simulation_progress_json(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(run_progress(owned_run(request.user, pk)))


@login_required
def simulation_result_json(request: HttpRequest, pk: int) -> HttpResponse:
    run = owned_run(request.user, pk)
    if run.result is None:
        raise Http404("no result yet")
    body = {
        "id": run.pk,
        "name": run.name,
        "kind": run.kind,
        "design": run.design_id,
        "revision": run.revision.number if run.revision else None,
        "params": run.params,
        "result": run.result,
    }
    resp = HttpResponse(json.dumps(body, indent=1), content_type="application/json")
    resp["Content-Disposition"] = f'attachment; filename="simulation-{run.pk}.json"'
    return resp


@login_required
@require_POST
def simulation_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    cancel_run(owned_run(request.user, pk))
    return redirect("simulation-detail", pk=pk)


@login_required
def simulation_compare(request: HttpRequest) -> HttpResponse:
    """Finished simulations side by side (``?run=1&run=2``, your own): utilization, goodput, waits per class."""
    ids = []
    for raw in request.GET.getlist("run"):
        if not (raw.isascii() and raw.isdigit() and len(raw) < 19):
            messages.error(request, f"{raw!r} is not a simulation id")
            continue
        ids.append(int(raw))
    runs = list(
        SimulationRun.objects.filter(
            owner=request.user,
            pk__in=ids[:MAX_COMPARED],
            kind=SimulationRun.Kind.SIMULATE,
            status=SimulationRun.Status.DONE,
        ).select_related("design", "revision")
    )
    runs.sort(key=lambda r: (r.created_at, r.pk))  # oldest first: each later run reads as a change to the first
    missing = [i for i in ids[:MAX_COMPARED] if i not in {r.pk for r in runs}]
    if missing:
        messages.warning(request, f"not compared (not yours, not a finished simulation): {missing}")
    if len(ids) > MAX_COMPARED:
        messages.warning(request, f"only the first {MAX_COMPARED} runs are compared")
    table = comparison(runs) if runs else None
    return render(
        request,
        "designer/simulation_compare.html",
        {
            "runs": runs,
            "table": table,
            "charts": charts.compare_simulation_charts(runs) if runs else None,
            "choices": SimulationRun.objects.filter(
                owner=request.user, kind=SimulationRun.Kind.SIMULATE, status=SimulationRun.Status.DONE
            ).select_related("design")[:100],
            "ids": ids,
        },
    )


PCT = {"offered load", "GPU AFR", "utilization", "goodput"}


def comparison(runs: list[SimulationRun]) -> dict:
    """Rows of figures, a column per run: the inputs, then utilization, goodput and waits; a row whose
    values are not all the same is marked (``differs``); shares are shown as percentages (``pct``)."""
    cols = [charts.run_label(r) for r in runs]
    rows: list[tuple[str, list]] = []
    inputs = (("partition", "partition"), ("gpus", "batch GPUs"), ("days", "days"),
              ("offered_load_frac", "offered load"), ("policy", "policy"), ("preempt", "preemption"),
              ("afr", "GPU AFR"), ("jobs", "jobs"), ("profile", "workload"))  # fmt: skip
    for key, label in inputs:
        rows.append((label, [r.result["inputs"].get(key) for r in runs]))
    rows.append(("utilization", [r.result["utilization_frac"] for r in runs]))
    rows.append(("goodput", [r.result.get("failures", {}).get("goodput_frac") for r in runs]))
    names = list(dict.fromkeys(c["name"] for r in runs for c in r.result["classes"]))
    for name in names:
        for q in ("p50", "p95", "p99"):
            rows.append((f"{name}: wait {q} [h]", [_class(r, name, f"wait_h_{q}") for r in runs]))
        rows.append((f"{name}: inside one leaf group", [_class(r, name, "one_group_frac") for r in runs]))
    out = []
    for label, values in rows:
        pct = label in PCT or label.endswith("inside one leaf group")
        changes = deltas(values, pct=pct, unit=" h" if "[h]" in label else "")
        out.append({"label": label, "values": values, "differs": len({repr(v) for v in values}) > 1, "pct": pct,
                    "deltas": changes, "cells": list(zip(values, changes, strict=True))})  # fmt: skip
    return {"columns": cols, "rows": out, "derivations": [r.result["derivations"]["utilization_frac"] for r in runs]}


def deltas(values: list, *, pct: bool, unit: str = "") -> list[str | None]:
    """Each run's change from the first (oldest) run: "+1.5 pp" for shares, "−2.3 h" for waits, "+128" for counts;
    None for the first column, for text and yes/no rows, and where either value is missing."""
    first = values[0] if values else None
    out: list[str | None] = [None]
    for v in values[1:]:
        numeric = all(isinstance(x, int | float) and not isinstance(x, bool) for x in (first, v))
        if not numeric:
            out.append(None)
            continue
        d = (v - first) * (100 if pct else 1)
        text = f"{abs(d):,.2f} pp" if pct else (f"{abs(d):,}" if isinstance(d, int) else f"{abs(d):,.4g}{unit}")
        out.append("±0" if d == 0 else ("+" if d > 0 else "−") + text)
    return out


def _class(run: SimulationRun, name: str, key: str):
    row = next((c for c in run.result["classes"] if c["name"] == name), None)
    return None if row is None else row.get(key)
