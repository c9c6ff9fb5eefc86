"""Sweep pages: start, progress (polled), cancel, re-run, results and downloads."""

from __future__ import annotations

import csv
import io
import json
import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from designer import charts
from designer.access import visible_design
from designer.models import Sweep, SweepPoint
from designer.sweeps import (
    SweepSpecError,
    cancel_sweep,
    create_sweep,
    rerun_sweep,
    sweep_progress,
)
from topology.collectives import Algorithm, Collective, assumptions


def owned_sweep(user, pk: int) -> Sweep:
    try:
        return Sweep.objects.get(pk=pk, owner=user)
    except Sweep.DoesNotExist:
        raise Http404("no such sweep") from None


def spec_from_form(post) -> dict:
    spec: dict = {
        "collectives": post.getlist("collectives") or ["all_reduce"],
        "algorithms": post.getlist("algorithms") or ["auto"],
        "min_bytes": post.get("min_bytes", "8"),
        "max_bytes": post.get("max_bytes", str(16 * 2**30)),
        "factor": post.get("factor", "2"),
    }
    vary = {}
    for name in ("node_count", "oversubscription", "nic_gbps", "topology"):
        raw = post.get(f"vary_{name}", "").strip()
        if raw:
            vary[name] = [v.strip() for v in raw.split(",") if v.strip()]
    spec["vary"] = vary
    return spec


@login_required
@require_http_methods(["GET", "POST"])
def sweep_new(request: HttpRequest, pk: int) -> HttpResponse:
    design = visible_design(request.user, pk)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        spec = spec_from_form(request.POST)
        try:
            sweep = create_sweep(request.user, design.head, spec, name=request.POST.get("name", "").strip())
        except SweepSpecError as exc:
            errors = exc.errors
        else:
            messages.success(request, f"Sweep started: {sweep.total_points:,} points.")
            return redirect("sweep-detail", pk=sweep.pk)
    return render(
        request,
        "designer/sweep_new.html",
        {
            "design": design,
            "errors": errors,
            "post": request.POST,
            "collectives": [c.value for c in Collective],
            "algorithms": ["auto"] + [a.value for a in Algorithm],
        },
    )


@login_required
def sweep_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sweep = owned_sweep(request.user, pk)
    ctx = {"sweep": sweep, "progress": sweep_progress(sweep), "assumptions": assumptions()}
    if sweep.done_points:
        ctx["charts"] = charts.sweep_charts(sweep)
    return render(request, "designer/sweep_detail.html", ctx)


@login_required
def sweep_progress_json(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(sweep_progress(owned_sweep(request.user, pk)))


@login_required
@require_POST
def sweep_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    cancel_sweep(owned_sweep(request.user, pk))
    return redirect("sweep-detail", pk=pk)


@login_required
@require_POST
def sweep_rerun(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        new = rerun_sweep(owned_sweep(request.user, pk), request.user)
    except SweepSpecError as exc:
        messages.error(request, str(exc))
        return redirect("sweep-detail", pk=pk)
    return redirect("sweep-detail", pk=new.pk)


def finite(point: dict) -> dict:
    """JSON has no Infinity: a collective an algorithm cannot run has time null."""
    for key in ("time_us", "algbw_gbyte_s", "busbw_gbyte_s"):
        if not math.isfinite(point[key]):
            point[key] = None
    return point


POINT_FIELDS = (
    "index",
    "fabric_index",
    "collective",
    "size_bytes",
    "requested",
    "time_us",
    "algbw_gbyte_s",
    "busbw_gbyte_s",
    "algorithm",
    "protocol",
)


@login_required
def sweep_download(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    sweep = owned_sweep(request.user, pk)
    rows = SweepPoint.objects.filter(sweep=sweep).order_by("index").values_list(*POINT_FIELDS)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow((*POINT_FIELDS, "fabric"))
        for row in rows.iterator(chunk_size=10000):
            w.writerow((*row, sweep.fabric_labels[row[1]] if row[1] < len(sweep.fabric_labels) else ""))
        resp = HttpResponse(buf.getvalue(), content_type="text/csv")
    elif fmt == "json":
        data = {
            "sweep": sweep.pk,
            "name": sweep.name,
            "fabrics": sweep.grid["fabrics"],
            "labels": sweep.fabric_labels,
            "points": [finite(dict(zip(POINT_FIELDS, r, strict=True))) for r in rows.iterator(chunk_size=10000)],
        }
        resp = HttpResponse(json.dumps(data), content_type="application/json")
    else:
        raise Http404("no such format")
    resp["Content-Disposition"] = f'attachment; filename="sweep-{sweep.pk}.{fmt}"'
    return resp
