"""Calibration pages: upload an nccl-tests log for a design, see measured vs model vs calibrated."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from cluster.calibrate import COLUMNS, CalibrationInputError
from designer import charts
from designer.access import visible_design
from designer.calibrations import create_calibration, owned_calibration
from topology.collectives import Collective
from topology.nccl_logs import MAX_LOG_CHARS

MAX_UPLOAD_BYTES = MAX_LOG_CHARS


def _log_from_request(request: HttpRequest) -> tuple[str, str, dict[str, list[str]]]:
    upload = request.FILES.get("log_file")
    if upload is None:
        return request.POST.get("log_text", ""), "", {}
    if upload.size > MAX_UPLOAD_BYTES:
        return "", upload.name, {"log_file": [f"{upload.size:,} bytes; a log may have {MAX_UPLOAD_BYTES:,}"]}
    try:
        return upload.read().decode("utf-8"), upload.name, {}
    except UnicodeDecodeError:
        return "", upload.name, {"log_file": ["not a text file (UTF-8): upload the stdout of all_reduce_perf"]}


@login_required
@require_http_methods(["GET", "POST"])
def calibration_new(request: HttpRequest, pk: int) -> HttpResponse:
    design = visible_design(request.user, pk)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        text, filename, errors = _log_from_request(request)
        if not errors:
            try:
                profile = create_calibration(
                    request.user,
                    design.head,
                    request.POST.get("name", ""),
                    request.POST.get("collective", "all_reduce"),
                    text,
                    column=request.POST.get("column", "out_of_place"),
                    gpus=request.POST.get("gpus", ""),
                    filename=filename,
                )
            except CalibrationInputError as exc:
                errors = exc.errors
            else:
                messages.success(request, f"Calibrated: {profile.result['derivation']}.")
                return redirect("calibration-detail", pk=profile.pk)
    return render(
        request,
        "designer/calibration_new.html",
        {
            "design": design,
            "errors": errors,
            "post": request.POST,
            "collectives": [c.value for c in Collective],
            "columns": COLUMNS,
        },
        status=400 if errors else 200,
    )


@login_required
def calibration_detail(request: HttpRequest, pk: int) -> HttpResponse:
    profile = owned_calibration(request.user, pk)
    return render(
        request,
        "designer/calibration_detail.html",
        {"profile": profile, "r": profile.result, "chart": charts.calibration_chart(profile.result)},
    )


@login_required
def calibration_log(request: HttpRequest, pk: int) -> HttpResponse:
    """The log exactly as uploaded (provenance)."""
    profile = owned_calibration(request.user, pk)
    resp = HttpResponse(profile.log_text, content_type="text/plain; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{profile.log_filename or f"calibration-{profile.pk}.log"}"'
    return resp


@login_required
@require_POST
def calibration_delete(request: HttpRequest, pk: int) -> HttpResponse:
    profile = owned_calibration(request.user, pk)
    design_pk = profile.design_id
    profile.delete()
    messages.success(request, "Calibration deleted.")
    return redirect("design-detail", pk=design_pk)
