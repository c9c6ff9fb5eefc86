"""REST API v1: the same design operations and ownership rules as the pages."""

from __future__ import annotations

import json

from django.http import Http404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action, api_view, parser_classes, renderer_classes
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.response import Response

from bom.diff import diff_summary
from designer.access import owned_design, visible_design, visible_revision
from designer.api.pagination import ID_SCHEMA, PAGE_PARAMETERS, Pages, paged, query_id
from designer.api.parsers import DecimalJSONParser
from designer.api.renderers import FastJSONRenderer
from designer.api.requirements_schema import MESSAGE_MAX
from designer.api.serializers import (
    BomSerializer,
    ChecksSerializer,
    DesignListSerializer,
    DesignSerializer,
    RevisionSerializer,
)
from designer.compare import bom_diff_rows, comparison_rows, oldest_first, summary_rows
from designer.export_jobs import download_response, job_progress, needs_job, readable_job, request_export
from designer.ids import parse_id
from designer.models import Design
from designer.requirements import RequirementsError, flatten, from_form_strings, nest
from designer.services import (
    EXPORT_FORMATS,
    EXPORT_MEDIA_TYPES,
    clone_design,
    create_design,
    evaluate,
    evaluate_flat,
    revise,
    revision_checks,
)

# what each download is: bom.json an object, the csv and text files text, the rest bytes
EXPORT_SCHEMAS = {"application/json": OpenApiTypes.OBJECT, "text/csv": OpenApiTypes.STR, "text/plain": OpenApiTypes.STR}
EXPORT_HELP = (
    "bom.xlsx (BOM + cut sheet + elevations; above 20,000 cables without the cut sheet), bom-only.xlsx (BOM, TCO, "
    "price book), bom.csv, bom.json, cabling.csv (streamed), cabling.xlsx (the cut sheet's own workbook), racks.csv, "
    "netbox.zip, elevations.svg; Slurm: slurm.zip (all of them), slurm.conf, "
    "topology.conf (tree), topology-block.conf (Slurm ≥ 23.11), gres.conf, cgroup.conf, sacctmgr.sh; Kubernetes: "
    "kubernetes.yaml (Kueue, Volcano), label-nodes.sh; roce.yaml (the RoCE tuning of an Ethernet fabric)"
)


def _errors(exc: RequirementsError, nested: bool = True) -> Response:
    """400 for malformed values, 422 for well-formed ones a rule or the planner refuses."""
    return Response({"errors": exc.nested() if nested else exc.errors}, status=exc.status_code)


def _body(request, default_message: str) -> tuple[dict, str]:
    """``{"requirements": {...}, "message": "..."}`` → (requirements, message); every fault at once (400)."""
    body = request.data
    if not isinstance(body, dict):
        raise RequirementsError({"non_field_errors": ['send a JSON object: {"requirements": {…}, "message": "…"}']})
    errors: dict[str, list[str]] = {
        key: ["unknown field; the body takes requirements and message"]
        for key in body
        if key not in ("requirements", "message")
    }
    requirements = body.get("requirements")
    if not isinstance(requirements, dict):
        errors["requirements"] = ["required: a JSON object of requirement fields, as in examples/*.yaml"]
    message = body.get("message", default_message)
    if not isinstance(message, str) or len(message) > MESSAGE_MAX or "\x00" in message:
        errors["message"] = [f"text of at most {MESSAGE_MAX} characters"]
    if errors:
        raise RequirementsError(errors)
    return requirements, message


def _deep_merge(base: dict, patch: dict) -> dict:
    out = dict(base)
    for k, v in patch.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _head_json(design: Design, patch: dict) -> dict:
    """The head's requirements as JSON would carry them (amounts as decimal strings), for a PATCH to merge into.
    A patch giving node_count (and no gpu_count) replaces the head's gpu_count."""
    head = json.loads(json.dumps(nest(design.head.requirements()), default=str))
    if "node_count" in patch and "gpu_count" not in patch:
        head.pop("gpu_count", None)
    return head


class DesignViewSet(viewsets.ViewSet):
    """Designs you own or that are shared with you. Writes make a new immutable revision."""

    parser_classes = [DecimalJSONParser]
    queryset = Design.objects.none()  # for the schema (ids are integers); access goes through designer.access

    serializer_class = DesignSerializer

    @extend_schema(responses=paged(DesignListSerializer, "DesignPage"), parameters=PAGE_PARAMETERS)
    def list(self, request):
        """Designs you may read, newest change first, ``?limit=&offset=`` (50 a page, at most 500)."""
        qs = Design.objects.visible_to(request.user).select_related("owner").order_by("-updated_at", "-pk")
        paginator = Pages()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response(DesignListSerializer(page, many=True, context={}).data)

    def retrieve(self, request, pk=None):
        return Response(DesignSerializer(visible_design(request.user, _int(pk)), context={}).data)

    @extend_schema(request=OpenApiTypes.OBJECT)  # the generated requirements schema (designer/api/schema.py)
    def create(self, request):
        try:
            requirements, message = _body(request, "created")
            ev = evaluate(requirements, strict=True)
        except RequirementsError as exc:
            return _errors(exc)
        design = create_design(request.user, ev.requirements, ev, message=message)
        return Response(DesignSerializer(design, context={}).data, status=status.HTTP_201_CREATED)

    def _revise(self, request, pk, partial: bool):
        design = owned_design(request.user, _int(pk))
        try:
            incoming, message = _body(request, "")
            if partial:
                incoming = _deep_merge(_head_json(design, incoming), incoming)
            ev = evaluate(incoming, strict=True)
        except RequirementsError as exc:
            return _errors(exc)
        revise(design, request.user, ev.requirements, ev, message=message)
        return Response(DesignSerializer(design, context={}).data)

    @extend_schema(request=OpenApiTypes.OBJECT)
    def update(self, request, pk=None):
        return self._revise(request, pk, partial=False)

    @extend_schema(request=OpenApiTypes.OBJECT)
    def partial_update(self, request, pk=None):
        return self._revise(request, pk, partial=True)

    def destroy(self, request, pk=None):
        design = owned_design(request.user, _int(pk))
        Design.objects.filter(pk=design.pk).update(deleted_at=timezone.now())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=DesignSerializer)
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        design = owned_design(request.user, _int(pk), include_deleted=True)
        Design.objects.filter(pk=design.pk).update(deleted_at=None)
        return Response(DesignSerializer(design, context={}).data)

    @extend_schema(
        operation_id="designs_bom_retrieve",
        parameters=[OpenApiParameter("revision", ID_SCHEMA, description="revision number (default: latest)")],
        responses={200: BomSerializer, 400: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
    )
    @action(detail=True, methods=["get"])
    def bom(self, request, pk=None):
        """The BOM of a revision as purchase-order lines (``?revision=N``): what bom.xlsx and bom.csv carry."""
        from bom.export import bom_rows
        from designer.services import stored_bom

        design = visible_design(request.user, _int(pk))
        number = query_id(request, "revision")
        rev = design.revisions.filter(number=number).first() if number else design.head
        if rev is None:
            raise Http404
        bom = stored_bom(rev)
        body = {
            "design": design.pk,
            "revision": rev.number,
            "price_book": bom.get("price_book") or {},
            "lines": list(bom_rows(bom)),
            **{k: bom[k] for k in ("totals_usd", "total_usd", "link_count", "link_end_count")},
            "checks": revision_checks(rev),
        }
        return Response(BomSerializer(body).data)

    @extend_schema(
        operation_id="designs_checks_retrieve",
        parameters=[OpenApiParameter("revision", ID_SCHEMA, description="revision number (default: latest)")],
        responses={200: ChecksSerializer, 400: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
    )
    @action(detail=True, methods=["get"])
    def checks(self, request, pk=None):
        """A revision's one list of checks (``?revision=N``), every section's: the same list and count as its page,
        the live panel and every export (xlsx Checks sheet, bom.csv, the NetBox and Slurm zips' README)."""
        design = visible_design(request.user, _int(pk))
        number = query_id(request, "revision")
        rev = design.revisions.filter(number=number).first() if number else design.head
        if rev is None:
            raise Http404
        checks = revision_checks(rev)
        body = {
            "design": design.pk,
            "revision": rev.number,
            "failing_count": sum(not c["ok"] for c in checks),
            "count": len(checks),
            "checks": checks,
        }
        return Response(ChecksSerializer(body).data)

    @extend_schema(responses=RevisionSerializer(many=True))
    @action(detail=True, methods=["get"])
    def revisions(self, request, pk=None):
        design = visible_design(request.user, _int(pk))
        return Response(RevisionSerializer(design.revisions.order_by("-number"), many=True).data)

    @extend_schema(operation_id="designs_revision_number_retrieve", responses=RevisionSerializer)
    @action(detail=True, methods=["get"], url_path=r"revisions/(?P<number>\d+)")
    def revision(self, request, pk=None, number=None):
        design = visible_design(request.user, _int(pk))
        rev = design.revisions.filter(number=_int(number)).first()
        if rev is None:
            raise Http404
        return Response(RevisionSerializer(rev).data)

    @extend_schema(request=None, responses={201: DesignSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, pk=None):
        copy = clone_design(visible_design(request.user, _int(pk)), request.user)
        return Response(DesignSerializer(copy, context={}).data, status=status.HTTP_201_CREATED)


def _int(pk) -> int:
    n = parse_id(pk)
    if n is None:
        raise Http404
    return n


@extend_schema(request=OpenApiTypes.OBJECT, responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
@api_view(["POST"])
@parser_classes([DecimalJSONParser])
@renderer_classes([FastJSONRenderer, BrowsableAPIRenderer])  # DRF's two, the JSON written by orjson (its module)
def evaluate_view(request):
    """Compute a design without saving it. ``?layout=flat`` takes and answers with form field names."""
    flat_layout = request.query_params.get("layout") == "flat"
    try:
        if flat_layout:
            body = request.data if isinstance(request.data, dict) else {}
            ev = evaluate_flat(from_form_strings(body))
        else:
            ev = evaluate(_body(request, "")[0], strict=True)
    except RequirementsError as exc:
        return _errors(exc, nested=not flat_layout)
    return Response(ev.result)


COMPARE_PARAMETERS = [
    OpenApiParameter("r", {"type": "array", "items": ID_SCHEMA}, description="revision ids"),
    OpenApiParameter("d", {"type": "array", "items": ID_SCHEMA}, description="design ids, their latest revision"),
]
COMPARE_ERRORS = {
    400: OpenApiTypes.OBJECT,
    404: OpenApiTypes.OBJECT,
    422: OpenApiResponse(OpenApiTypes.OBJECT, description="well-formed ids, but not 2 to 4 revisions in all"),
}


def _compared(request):
    """(revisions oldest first, None) or (None, the error response)."""
    rs, ds = request.query_params.getlist("r"), request.query_params.getlist("d")
    bad = {k: ["not an id"] for k, values in (("r", rs), ("d", ds)) if any(parse_id(v) is None for v in values)}
    if bad:
        return None, Response({"errors": bad}, status=400)
    revisions = [visible_revision(request.user, parse_id(r)) for r in rs]
    for d in ds:
        revisions.append(visible_design(request.user, parse_id(d)).revisions.order_by("-number").first())
    if not 2 <= len(revisions) <= 4:
        return None, Response({"errors": {"r": ["give 2 to 4 revisions (r=) or designs (d=)"]}}, status=422)
    return oldest_first(revisions), None


@extend_schema(
    operation_id="compare_bom_diff",
    parameters=COMPARE_PARAMETERS,
    responses={
        (200, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"): OpenApiTypes.BINARY,
        **COMPARE_ERRORS,
    },
)
@api_view(["GET"])
def compare_bom_diff_view(request):
    """The BOM diff by part number of 2–4 revisions as xlsx (live Δ formulas with cached values)."""
    from designer.views import bom_diff_response

    revisions, error = _compared(request)
    return error or bom_diff_response(revisions)


@extend_schema(parameters=COMPARE_PARAMETERS, responses={200: OpenApiTypes.OBJECT, **COMPARE_ERRORS})
@api_view(["GET"])
def compare_view(request):
    """Compare 2–4 revisions: ``?r=<revision id>`` and/or ``?d=<design id>`` (latest revision). ``bom_diff``:
    per part number each BOM's quantity, spares, cost and lines, and status/deltas against the first."""
    revisions, error = _compared(request)
    if error:
        return error
    rows = comparison_rows(revisions)
    diff, _ = bom_diff_rows(revisions)
    return Response(
        {
            "columns": [{"design": r.design_id, "revision": r.number, "name": r.name} for r in revisions],
            "bom_diff": {
                "rows": [_diff_json(row) for row in diff],
                "against_first": [
                    {**x, "cost_delta_usd": str(x["cost_delta_usd"])}
                    for x in (diff_summary(diff, i) for i in range(1, len(revisions)))
                ],
            },
            "summary": [
                {
                    "label": row.label,
                    "unit": row.unit,
                    "values": [c.value for c in row.cells],
                    "delta": [c.delta for c in row.cells],
                    "delta_pct": [c.delta_pct for c in row.cells],
                }
                for row in summary_rows(revisions)
            ],
            "rows": [
                {
                    "section": row.section,
                    "key": row.key,
                    "differs": row.differs,
                    "values": [c.value for c in row.cells],
                    "delta": [c.delta for c in row.cells],
                    "delta_pct": [c.delta_pct for c in row.cells],
                }
                for row in rows
            ],
        }
    )


@extend_schema(
    operation_id="designs_export",
    parameters=[
        OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(EXPORT_FORMATS), description=EXPORT_HELP),
        OpenApiParameter("revision", ID_SCHEMA, description="revision number (default: latest)"),
    ],
    responses={
        **{(200, media): EXPORT_SCHEMAS.get(media, OpenApiTypes.BINARY) for media in EXPORT_MEDIA_TYPES},
        202: OpenApiResponse(OpenApiTypes.OBJECT, description="a large design's export: the job building it"),
        303: OpenApiResponse(OpenApiTypes.OBJECT, description="that job is done: Location is the file"),
        400: OpenApiTypes.OBJECT,
        404: OpenApiTypes.OBJECT,
    },
)
@api_view(["GET"])
def export_view(request, pk: int, fmt: str):
    """Download an export of a revision (``?revision=N``): the BOM as xlsx with live formulas (bom.xlsx: with the
    cut sheet and rack elevations; bom-only.xlsx: without), csv or json, the streamed cut sheet, racks, NetBox
    import set or elevation drawing. The same lines as data: ``GET /api/v1/designs/{id}/bom/``. A design with more
    links than EXPORT_INLINE_MAX_LINKS gets bom.xlsx, netbox.zip, cabling.csv, cabling.xlsx, racks.csv and
    elevations.svg from a background job: 202 with the job (Location: ``/api/v1/exports/{job}/``; the same job for
    every request), then 303 to its file once built. Above 20,000 cables bom.xlsx leaves the cut sheet to
    cabling.xlsx / cabling.csv (its Summary says so)."""
    from designer.views import export_response

    design = visible_design(request.user, pk)
    number = query_id(request, "revision")
    rev = design.revisions.filter(number=number).first() if number else design.head
    if rev is None:
        raise Http404
    if needs_job(rev, fmt):  # too large for a request: 202 and the job to poll (303 to the file once built)
        job = request_export(rev, fmt, show_author=True, user=request.user)
        body = _job_json(request, job)
        done = job.status == "done"
        resp = Response(body, status=status.HTTP_303_SEE_OTHER if done else status.HTTP_202_ACCEPTED)
        resp["Location"] = body["download_url"] if done else body["url"]
        return resp
    return export_response(rev, fmt)


def _job_json(request, job) -> dict:
    from django.urls import reverse

    body = job_progress(job)
    body["url"] = request.build_absolute_uri(reverse("api-export-job", args=[job.pk]))
    body["download_url"] = (
        request.build_absolute_uri(reverse("api-export-job-download", args=[job.pk])) if job.status == "done" else None
    )
    return body


@extend_schema(operation_id="exports_retrieve", responses={200: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT})
@api_view(["GET"])
def export_job_view(request, pk: int):
    """A background export (a large design's bom.xlsx, netbox.zip, cabling.csv, cabling.xlsx, racks.csv or
    elevations.svg): status (pending, running, done, failed), stage, fraction_done, elapsed_s, error, filename,
    size_bytes, expires_at, and download_url once done. Readable by whoever may read the design."""
    return Response(_job_json(request, readable_job(request.user, pk)))


@extend_schema(
    operation_id="exports_download",
    responses={
        **{(200, media): EXPORT_SCHEMAS.get(media, OpenApiTypes.BINARY) for media in EXPORT_MEDIA_TYPES},
        404: OpenApiTypes.OBJECT,
        409: OpenApiResponse(OpenApiTypes.OBJECT, description="not built yet: the job's status"),
    },
)
@api_view(["GET"])
def export_job_download_view(request, pk: int):
    """The finished file of a background export, streamed (409 with the job's status until it is done)."""
    job = readable_job(request.user, pk)
    if job.status != "done":
        return Response(_job_json(request, job), status=status.HTTP_409_CONFLICT)
    return download_response(job)


def _diff_json(row) -> dict:
    """One part number across the compared BOMs; status and deltas against the first (null for the first)."""
    n = len(row.totals)
    return {
        "sku": row.sku,
        "manufacturer": row.manufacturer,
        "description": row.description,
        "quantity": [t.quantity for t in row.totals],
        "spares": [t.spares for t in row.totals],
        "cost_usd": [str(t.cost_usd) for t in row.totals],
        "lines": [list(t.line_ids) for t in row.totals],
        "status": [None, *(row.status(i) for i in range(1, n))],
        "quantity_delta": [None, *(row.quantity_delta(i) for i in range(1, n))],
        "cost_delta_usd": [None, *(str(row.cost_delta_usd(i)) for i in range(1, n))],
    }


__all__ = ["DesignViewSet", "compare_view", "evaluate_view", "flatten"]
