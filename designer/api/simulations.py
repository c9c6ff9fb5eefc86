"""REST API for workload simulations and capacity searches: /api/v1/simulations/ — yours only."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from cluster.simulation import MAX_CANDIDATES
from designer.access import visible_design
from designer.api.pagination import ID_SCHEMA, PAGE_PARAMETERS, owned_page, paged
from designer.api.strict import StrictCharField, StrictChoiceField, StrictFloatField, StrictIntegerField
from designer.ids import parse_id
from designer.models import SimulationRun
from designer.simulations import MAX_TRACE_CHARS, SimulationInputError, cancel_run, create_run, run_progress
from scheduling.failures import FABRIC_KINDS

# The bounds cluster.simulation.parse_fabric_rates enforces, stated in the schema so a schema-valid request is one
# the server takes (schemathesis checks both ways): AFR 0 ≤ x < 100 %, repair 0 < h ≤ 8,760 (one year).
_AFR_PCT = {"type": "number", "minimum": 0, "exclusiveMaximum": True, "maximum": 100,
            "description": "annualised failure rate [% per part per year]"}  # fmt: skip
_REPAIR_H = {"type": "number", "exclusiveMinimum": True, "minimum": 0, "maximum": 8760,
             "description": "hours the part is out of service per failure"}  # fmt: skip
FABRIC_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        kind: {
            "oneOf": [
                _AFR_PCT,
                {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"afr_pct": _AFR_PCT, "repair_h": _REPAIR_H},
                },
            ]
        }
        for kind in FABRIC_KINDS
    },
}


@extend_schema_field(FABRIC_SCHEMA)
class FabricRatesField(serializers.JSONField):
    """Fabric part AFRs: typed in the schema (FABRIC_SCHEMA); every value checked by parse_fabric_rates."""


class SimulationSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    revision_number = serializers.SerializerMethodField()

    class Meta:
        model = SimulationRun
        fields = ["id", "name", "kind", "design", "revision", "revision_number", "params", "status", "progress",
                  "created_at", "started_at", "finished_at", "error", "result"]  # fmt: skip

    def get_progress(self, obj) -> dict:
        return run_progress(obj)

    def get_revision_number(self, obj) -> int | None:
        return obj.revision.number if obj.revision else None


class SimulationListSerializer(SimulationSerializer):
    class Meta(SimulationSerializer.Meta):
        fields = [f for f in SimulationSerializer.Meta.fields if f != "result"]


class TargetSerializer(serializers.Serializer):
    job_class = StrictCharField(max_length=60, help_text="the class the target is for")
    p95_wait_h = StrictFloatField(min_value=0, max_value=87_600, help_text="its p95 queue wait at most this")
    min_utilization = StrictFloatField(min_value=0, max_value=0.999, required=False, default=0.0)


class SimulationCreateSerializer(serializers.Serializer):
    design = StrictIntegerField(min_value=1, max_value=10**18 - 1)
    revision = StrictIntegerField(
        required=False, min_value=1, max_value=10**9, help_text="revision number (default: latest)"
    )
    kind = StrictChoiceField(choices=SimulationRun.Kind.values, default="simulate")
    name = StrictCharField(required=False, allow_blank=True, max_length=200)
    trace = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=MAX_TRACE_CHARS,
        trim_whitespace=False,
        help_text="a job trace (CSV text) replayed instead of the workload (simulate only)",
    )
    trace_format = StrictChoiceField(choices=["ours", "acme"], default="ours")
    target = TargetSerializer(required=False, help_text="capacity: the queueing target")
    gpus = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=10**18 - 1),  # above MAX_REQUEST_GPUS: 422 naming it
        required=False,
        max_length=MAX_CANDIDATES,
        help_text="capacity: candidate GPU counts, each at most MAX_REQUEST_GPUS (default 0.6–1.6 × the design's)",
    )
    fabric = FabricRatesField(
        required=False,
        help_text="simulate: fabric part failures, part kind (leaf, spine, nic, optic, cable) → its AFR [% per part "
        "per year] or {afr_pct, repair_h}; a kind not given keeps its cited default (on by default; all 0: GPU "
        "failures only). Errors on fabric.<kind>.afr_pct / .repair_h",
    )


class SimulationViewSet(viewsets.ViewSet):
    queryset = SimulationRun.objects.none()  # for the schema (ids are integers); access is the owner's only
    serializer_class = SimulationSerializer

    def _get(self, request, pk) -> SimulationRun:
        try:
            return SimulationRun.objects.select_related("revision").get(pk=parse_id(pk) or 0, owner=request.user)
        except SimulationRun.DoesNotExist:
            raise Http404 from None

    @extend_schema(
        responses=paged(SimulationListSerializer, "SimulationPage"),
        parameters=[*PAGE_PARAMETERS, OpenApiParameter("design", ID_SCHEMA, description="only this design's")],
    )
    def list(self, request):
        qs = SimulationRun.objects.filter(owner=request.user).select_related("revision")
        return owned_page(self, request, qs, SimulationListSerializer)

    def retrieve(self, request, pk=None):
        return Response(SimulationSerializer(self._get(request, pk)).data)

    @extend_schema(
        request=SimulationCreateSerializer,
        responses={201: SimulationSerializer, 400: OpenApiTypes.OBJECT, 422: OpenApiTypes.OBJECT},
        description="Queue a run. 400: a malformed request; 422: a well-formed one the design's workload, the "
        "trace or the target refuses, or a capacity search without a target (field errors: workload.classes, trace, "
        "trace.row N.column, target, target.job_class, gpus).",
    )
    def create(self, request):
        """Queue a simulation (or a capacity search) of a design revision's workload; poll the run for progress.
        400: a malformed request; 422: well-formed, but the design's workload or the target refuses."""
        ser = SimulationCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        v = ser.validated_data
        design = visible_design(request.user, v["design"])
        number = v.get("revision")
        rev = design.revisions.filter(number=number).first() if number else design.head
        if rev is None:
            return Response({"errors": {"revision": [f"design {design.pk} has no revision {number}"]}}, status=422)
        if v["kind"] == "capacity" and "target" not in v:
            return Response({"errors": {"target": ["a capacity search needs a target"]}}, status=422)  # kind × target
        try:
            run = create_run(
                request.user,
                rev,
                kind=v["kind"],
                name=v.get("name", ""),
                trace_text=v.get("trace"),
                trace_format=v["trace_format"],
                target=v.get("target"),
                gpus=v.get("gpus"),
                fabric=v.get("fabric"),
            )
        except SimulationInputError as exc:
            code = status.HTTP_422_UNPROCESSABLE_ENTITY if exc.unprocessable else status.HTTP_400_BAD_REQUEST
            return Response({"errors": exc.errors}, status=code)
        return Response(SimulationSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=SimulationSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self._get(request, pk)
        cancel_run(run)
        run.refresh_from_db()
        return Response(SimulationSerializer(run).data)
