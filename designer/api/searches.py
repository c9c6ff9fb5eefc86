"""REST API for design searches: /api/v1/searches/ — yours only (designer/searches.py does the work)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from cluster.search import CONSTRAINTS, MAX_VALUES, OBJECTIVES, SPEC_KEYS, VARY_AXES
from cluster.search_workload import MAX_FINALISTS
from designer.access import visible_design
from designer.api.pagination import ID_SCHEMA, PAGE_PARAMETERS, owned_page, paged, query_int
from designer.ids import parse_id
from designer.search_models import DesignSearch
from designer.searches import (
    DesignNotWritable,
    SearchSpecError,
    all_rows,
    cancel_search,
    create_search,
    rerun_search,
    save_candidate,
    search_progress,
)

ERRORS_SCHEMA = {
    "type": "object",
    "properties": {
        "errors": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "detail": {"type": "string"},
    },
}  # designer/api/schema.py's one error shape


class SearchSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = DesignSearch
        fields = [
            "id", "name", "design", "revision", "spec", "status", "total_candidates", "done_candidates",
            "feasible_candidates", "created_at", "started_at", "finished_at", "error", "progress", "report",
        ]  # fmt: skip

    def get_progress(self, obj) -> dict:
        return search_progress(obj)


VALUE = {"oneOf": [{"type": "string", "maxLength": 200}, {"type": "number"}, {"type": "boolean"}]}
SPEC_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "vary": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                name: {"type": "array", "minItems": 1, "maxItems": MAX_VALUES, "items": VALUE} for name in VARY_AXES
            },
            "description": "requirement field → the values it takes (the candidates: every combination)",
        },
        "constraints": {
            "type": "object",
            "additionalProperties": False,
            "properties": {name: {"type": "number", "minimum": 0, "nullable": True} for name in CONSTRAINTS},
        },
        "objectives": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": list(OBJECTIVES)}},
        "allreduce_bytes": {
            "oneOf": [
                {"type": "integer", "minimum": 1, "maximum": 2**40},
                {"type": "string", "minLength": 1, "maxLength": 40},
            ]
        },
        "keep_given_network": {"type": "boolean"},
        "workload_target": {
            "type": "object",
            "additionalProperties": False,
            "nullable": True,
            "properties": {
                "job_class": {"type": "string", "maxLength": 200},
                "p95_wait_h": {"type": "number", "minimum": 0},
                "finalists": {"type": "integer", "minimum": 1, "maximum": MAX_FINALISTS},
            },
        },
    },
}
"""The spec's shape, as the schema states it and :func:`spec_shape_errors` checks it: a body outside it is bad
input (400); one inside it that the search refuses — a value a field does not take, too many candidates, a job
class the design lacks — is well-formed but unprocessable (422), as the requirement operations answer."""


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def spec_shape_errors(spec) -> dict[str, list[str]]:
    """Where a spec leaves :data:`SPEC_SCHEMA` (field by field, as ``vary.<field>``, ``constraints.<name>``…)."""
    if not isinstance(spec, dict):
        return {"spec": ["an object"]}
    errors: dict[str, list[str]] = {}
    for key in spec:
        if key not in SPEC_SCHEMA["properties"]:
            errors[f"spec.{key}" if key else "spec"] = [f"unknown key {key!r}; a spec has {', '.join(SPEC_KEYS)}"]
    vary = spec.get("vary", {})
    if not isinstance(vary, dict):
        errors["vary"] = ["an object: requirement field → list of values"]
    else:
        for name, values in vary.items():
            ok = isinstance(values, list) and 1 <= len(values) <= MAX_VALUES
            ok = ok and all(isinstance(v, bool) or _is_number(v) or (isinstance(v, str) and len(v) <= 200)
                            for v in values)  # fmt: skip
            if name not in VARY_AXES:
                errors[f"vary.{name}"] = [f"cannot vary {name!r}; choose from {', '.join(VARY_AXES)}"]
            elif not ok:
                errors[f"vary.{name}"] = [f"a list of 1 … {MAX_VALUES} strings, numbers or booleans"]
    constraints = spec.get("constraints", {})
    if not isinstance(constraints, dict):
        errors["constraints"] = ['an object: bound → number, e.g. {"max_capex_usd": 2e8}']
    else:
        for name, value in constraints.items():
            if name not in CONSTRAINTS:
                errors[f"constraints.{name}"] = [f"unknown constraint; choose from {', '.join(CONSTRAINTS)}"]
            elif value is not None and not (_is_number(value) and value >= 0):
                errors[f"constraints.{name}"] = ["a number ≥ 0"]
    objectives = spec.get("objectives", ["capex_usd"])
    if not (
        isinstance(objectives, list) and objectives and all(isinstance(o, str) and o in OBJECTIVES for o in objectives)
    ):
        errors["objectives"] = [f"a non-empty list of {', '.join(OBJECTIVES)}"]
    size = spec.get("allreduce_bytes", 1)
    if not ((_is_number(size) and float(size).is_integer() and 1 <= size <= 2**40)
            or (isinstance(size, str) and 1 <= len(size) <= 40)):  # fmt: skip
        errors["allreduce_bytes"] = ["a whole number of bytes 1 … 2^40, or a size such as 256MiB"]
    if not isinstance(spec.get("keep_given_network", False), bool):
        errors["keep_given_network"] = ["true or false"]
    target = spec.get("workload_target")
    if target is not None:
        if not isinstance(target, dict) or set(target) - {"job_class", "p95_wait_h", "finalists"}:
            errors["workload_target"] = ["an object: job_class, p95_wait_h and optionally finalists"]
        else:
            bad = [k for k, ok in (
                ("job_class", isinstance(target.get("job_class", ""), str)),
                ("p95_wait_h", "p95_wait_h" not in target or (_is_number(target["p95_wait_h"])
                                                              and target["p95_wait_h"] >= 0)),
                ("finalists", "finalists" not in target or (isinstance(target["finalists"], int)
                                                            and not isinstance(target["finalists"], bool)
                                                            and 1 <= target["finalists"] <= MAX_FINALISTS)),
            ) if not ok]  # fmt: skip
            for k in bad:
                errors[f"workload_target.{k}"] = ["not of the documented type or range"]
    return errors


@extend_schema_field(SPEC_SCHEMA)
class SpecField(serializers.DictField):
    """A search spec: shaped as :data:`SPEC_SCHEMA` (else 400, field by field)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        errors = spec_shape_errors(value)
        if errors:
            raise serializers.ValidationError([f"{k}: {' '.join(v)}" for k, v in errors.items()])
        return value


class SearchCreateSerializer(serializers.Serializer):
    design = serializers.IntegerField()
    revision = serializers.IntegerField(
        required=False, min_value=1, max_value=10**9, help_text="revision number (default: the latest)"
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    spec = SpecField(help_text="vary, constraints, objectives, allreduce_bytes, keep_given_network, workload_target")


class CandidateSerializer(serializers.Serializer):
    candidate = serializers.IntegerField(min_value=0, max_value=10**6)
    message = serializers.CharField(required=False, allow_blank=True, max_length=200)


class SearchViewSet(viewsets.ViewSet):
    queryset = DesignSearch.objects.none()  # for the schema; access is the owner's only
    serializer_class = SearchSerializer

    def _get(self, request, pk) -> DesignSearch:
        try:
            return DesignSearch.objects.get(pk=parse_id(pk) or 0, owner=request.user)
        except DesignSearch.DoesNotExist:
            raise Http404 from None

    @extend_schema(
        responses=paged(SearchSerializer, "SearchPage"),
        parameters=[*PAGE_PARAMETERS, OpenApiParameter("design", ID_SCHEMA, description="only this design's")],
    )
    def list(self, request):
        return owned_page(self, request, DesignSearch.objects.filter(owner=request.user), SearchSerializer)

    def retrieve(self, request, pk=None):
        return Response(SearchSerializer(self._get(request, pk)).data)

    @extend_schema(
        request=SearchCreateSerializer,
        responses={
            201: SearchSerializer,
            400: OpenApiResponse(
                ERRORS_SCHEMA,
                description="bad input, field by field: a body or spec outside "
                "the schema (an unknown or empty key, a value of the wrong type)",
            ),
            404: OpenApiResponse(ERRORS_SCHEMA, description="no such design, or not yours to see"),
            422: OpenApiResponse(
                ERRORS_SCHEMA,
                description="well-formed but refused, field by field: no such "
                "revision; a value a varied field does not take (vary.<field>), more candidates "
                "than a search may have (vary), a job class the design lacks, a design too large "
                "for a request (design)",
            ),
        },
    )
    def create(self, request):
        ser = SearchCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        design = visible_design(request.user, ser.validated_data["design"])
        number = ser.validated_data.get("revision")
        rev = design.revisions.filter(number=number).first() if number else design.head
        if rev is None:
            return Response({"errors": {"revision": [f"design {design.pk} has no revision {number}"]}}, status=422)
        try:
            search = create_search(request.user, rev, ser.validated_data["spec"], ser.validated_data.get("name", ""))
        except SearchSpecError as exc:  # well-formed (SpecField checked its shape) but refused: 422
            return Response({"errors": exc.errors}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        return Response(SearchSerializer(search).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=SearchSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        search = self._get(request, pk)
        cancel_search(search)
        search.refresh_from_db()
        return Response(SearchSerializer(search).data)

    @extend_schema(
        request=None,
        responses={201: SearchSerializer, 422: OpenApiResponse(ERRORS_SCHEMA, description="the spec no longer holds")},
    )
    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        try:
            new = rerun_search(self._get(request, pk), request.user)
        except SearchSpecError as exc:
            return Response({"errors": exc.errors}, status=422)
        return Response(SearchSerializer(new).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=CandidateSerializer,
        responses={
            201: OpenApiTypes.OBJECT,
            403: OpenApiResponse(ERRORS_SCHEMA, description="the design is not yours to change (or deleted)"),
            422: OpenApiResponse(ERRORS_SCHEMA, description="no such candidate, or one that duplicates another"),
        },
    )
    @action(detail=True, methods=["post"])
    def save(self, request, pk=None):
        """A candidate as a new revision of the design (its own evaluation: the candidate's figures). The design
        must be yours: a search of a design you may only read saves nothing (403; clone the design first)."""
        search = self._get(request, pk)
        ser = CandidateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        try:
            rev = save_candidate(search, ser.validated_data["candidate"], request.user,
                                 ser.validated_data.get("message", ""))  # fmt: skip
        except DesignNotWritable as exc:
            raise PermissionDenied(exc.errors["design"][0]) from None
        except SearchSpecError as exc:
            return Response({"errors": exc.errors}, status=422)
        return Response(
            {"design": rev.design_id, "revision": rev.number, "summary": rev.results["summary"]}, status=201
        )

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        parameters=[
            OpenApiParameter("offset", {"type": "integer", "minimum": 0, "maximum": 10**6}, description="first"),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 5_000}, description="rows"),
        ],
    )
    @action(detail=True, methods=["get"])
    def rows(self, request, pk=None):
        """Every candidate's row in index order (i, s = status, f = figures, why); ``?offset=&limit=``."""
        search = self._get(request, pk)
        offset = query_int(request, "offset", 0, 0, 10**6)
        limit = query_int(request, "limit", 1000, 1, 5_000)
        rows = [r for r in all_rows(search) if offset <= r["i"] < offset + limit]
        return Response({"count": search.done_candidates, "offset": offset, "rows": rows})
