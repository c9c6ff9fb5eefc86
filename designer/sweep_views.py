"""Sweep pages: start, progress (polled), cancel, re-run, results and downloads."""

from __future__ import annotations

import csv
import io
import json
import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from cluster.collectives import host_and_network_assumptions
from cluster.requirements import Requirements
from designer import charts
from designer.access import visible_design
from designer.models import Sweep
from designer.sweeps import (
    SweepSpecError,
    cancel_sweep,
    create_sweep,
    iter_results,
    rerun_sweep,
    sweep_progress,
    sweep_size,
    variant_label,
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
    if post.get("calibration"):
        spec["calibration"] = post.get("calibration")
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
            "calibrations": design.calibrations.filter(owner=request.user),
        },
    )


@login_required
@require_POST
def sweep_size_json(request: HttpRequest, pk: int) -> JsonResponse:
    """The sweep the form would start, before it starts: points, chunks, estimated time — or the field errors."""
    design = visible_design(request.user, pk)
    try:
        return JsonResponse(sweep_size(request.user, design.head, spec_from_form(request.POST)))
    except SweepSpecError as exc:
        return JsonResponse({"errors": exc.errors}, status=400)


def _sweep_assumptions(sweep: Sweep) -> list[str]:
    """The model's assumptions, led by the swept design's network class and host overhead (cited) when the
    revision it was run on is still there."""
    lines = list(assumptions())
    if sweep.revision is not None:
        lines = host_and_network_assumptions(Requirements.from_flat(sweep.revision.requirements())) + lines
    return lines


@login_required
def sweep_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sweep = owned_sweep(request.user, pk)
    asked = [variant_label(v) for v in sweep.variants] or [""] * len(sweep.fabric_labels)
    ctx = {
        "sweep": sweep,
        "progress": sweep_progress(sweep),
        "assumptions": _sweep_assumptions(sweep),
        "variants": list(zip(asked, sweep.fabric_labels, strict=False)),
    }
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


def varied_names(sweep: Sweep) -> list[str]:
    """The parameters this sweep varies, in the order asked (older sweeps stored none)."""
    return list(sweep.variants[0]) if sweep.variants else []


def point_dicts(sweep: Sweep, start: int = 0, stop: int | None = None):
    """Stored points as dicts in index order, with one key per varied parameter (as asked)."""
    names = varied_names(sweep)
    for res in iter_results(sweep, start, stop):
        cols = [getattr(res, f).tolist() for f in POINT_FIELDS]
        for row in zip(*cols, strict=True):
            point = dict(zip(POINT_FIELDS, row, strict=True))
            for name in names:
                point[name] = sweep.variants[point["fabric_index"]][name]
            yield finite(point)


def _csv_lines(sweep: Sweep):
    names = varied_names(sweep)
    header = (*POINT_FIELDS[:2], *names, *POINT_FIELDS[2:], "fabric")
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    labels = sweep.fabric_labels
    for res in iter_results(sweep):
        for i in range(len(res)):
            fi = int(res.fabric_index[i])
            asked = [sweep.variants[fi][n] for n in names]
            w.writerow(
                (
                    int(res.index[i]),
                    fi,
                    *asked,
                    res.collective[i],
                    int(res.size_bytes[i]),
                    res.requested[i],
                    repr(float(res.time_us[i])),
                    repr(float(res.algbw_gbyte_s[i])),
                    repr(float(res.busbw_gbyte_s[i])),
                    res.algorithm[i],
                    res.protocol[i],
                    labels[fi] if fi < len(labels) else "",
                )
            )
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    if buf.getvalue():
        yield buf.getvalue()


def _json_parts(sweep: Sweep):
    head = {
        "sweep": sweep.pk,
        "name": sweep.name,
        "fabrics": sweep.grid["fabrics"],
        "labels": sweep.fabric_labels,
        "variants": sweep.variants,
    }
    yield json.dumps(head)[:-1] + ', "points": ['
    first = True
    batch: list[str] = []
    for point in point_dicts(sweep):
        batch.append(json.dumps(point))
        if len(batch) >= 5000:
            yield ("" if first else ",") + ",".join(batch)
            first, batch = False, []
    if batch:
        yield ("" if first else ",") + ",".join(batch)
    yield "]}"


@login_required
def sweep_download(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """csv (one column per varied parameter) or json, streamed a chunk at a time."""
    sweep = owned_sweep(request.user, pk)
    if fmt == "csv":
        resp = StreamingHttpResponse(_csv_lines(sweep), content_type="text/csv")
    elif fmt == "json":
        resp = StreamingHttpResponse(_json_parts(sweep), content_type="application/json")
    else:
        raise Http404("no such format")
    resp["Content-Disposition"] = f'attachment; filename="sweep-{sweep.pk}.{fmt}"'
    return resp
