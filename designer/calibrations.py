"""Calibration profiles, the service side: a log in, a fitted profile stored (or field errors out)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.http import Http404

from cluster.calibrate import CalibrationInputError, calibrate
from cluster.requirements import Requirements
from designer.models import CalibrationProfile, DesignRevision

MAX_NAME = 200


def create_calibration(
    user,
    revision: DesignRevision,
    name: str,
    collective: str,
    log_text: str,
    column: str = "out_of_place",
    gpus: Any = None,
    filename: str = "",
) -> CalibrationProfile:
    """Fit the design revision's collective model to the log; CalibrationInputError names the field."""
    errors: dict[str, list[str]] = {}
    name = (name or "").strip()
    if not name:
        errors["name"] = ["give the profile a name, e.g. 'prod-a, 2 nodes, NCCL 2.21'"]
    elif len(name) > MAX_NAME:
        errors["name"] = [f"at most {MAX_NAME} characters"]
    gpu_count = None
    if gpus not in (None, ""):
        text = str(gpus).strip()
        if not text.isascii() or not text.isdigit() or not 2 <= int(text) <= 1_048_576:
            errors["gpus"] = ["the GPU count of the run: a whole number from 2 to 1,048,576"]
        else:
            gpu_count = int(text)
    if errors:
        raise CalibrationInputError(errors)
    r = Requirements.from_flat(revision.requirements())
    result = calibrate(r, log_text, collective, column=column, gpus=gpu_count)
    try:
        with transaction.atomic():
            return CalibrationProfile.objects.create(
                owner=user,
                design=revision.design,
                revision=revision,
                name=name,
                collective=collective,
                column=column,
                log_text=log_text,
                log_filename=(filename or "")[:255],
                log_sha256=result["provenance"]["sha256"],
                parameters=result["parameters"],
                result=result,
            )
    except IntegrityError:
        raise CalibrationInputError(
            {"name": [f"you already have a calibration named {name!r} on this design"]}
        ) from None


def owned_calibration(user, pk: int) -> CalibrationProfile:
    try:
        return CalibrationProfile.objects.select_related("design").get(pk=pk, owner=user)
    except CalibrationProfile.DoesNotExist:
        raise Http404("no such calibration") from None
