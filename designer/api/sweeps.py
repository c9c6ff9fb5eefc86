"""REST API for sweeps: /api/v1/sweeps/ — yours only."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from designer.access import visible_design
from designer.api.pagination import ID_SCHEMA, MAX_OFFSET, PAGE_PARAMETERS, owned_page, paged, query_int
from designer.ids import parse_id
from designer.models import Sweep
from designer.sweep_views import point_dicts
from designer.sweeps import SweepSpecError, cancel_sweep, create_sweep, rerun_sweep, sweep_progress


class SweepSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Sweep
        fields = [
            "id",
            "name",
            "design",
            "revision",
            "spec",
            "fabric_labels",
            "variants",
            "status",
            "total_points",
            "done_points",
            "created_at",
            "started_at",
            "finished_at",
            "error",
            "progress",
        ]

    def get_progress(self, obj) -> dict:
        return sweep_progress(obj)


class SweepCreateSerializer(serializers.Serializer):
    design = serializers.IntegerField()
    revision = serializers.IntegerField(
        required=False, min_value=1, max_value=10**9, help_text="revision number (default: the latest)"
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    spec = serializers.DictField(help_text="collectives, algorithms, min_bytes, max_bytes, factor, vary")


class SweepViewSet(viewsets.ViewSet):
    queryset = Sweep.objects.none()  # for the schema (ids are integers); access is the owner's only
    serializer_class = SweepSerializer

    def _get(self, request, pk) -> Sweep:
        try:
            return Sweep.objects.get(pk=parse_id(pk) or 0, owner=request.user)
        except Sweep.DoesNotExist:
            raise Http404 from None

    @extend_schema(
        responses=paged(SweepSerializer, "SweepPage"),
        parameters=[*PAGE_PARAMETERS, OpenApiParameter("design", ID_SCHEMA, description="only this design's")],
    )
    def list(self, request):
        return owned_page(self, request, Sweep.objects.filter(owner=request.user), SweepSerializer)

    def retrieve(self, request, pk=None):
        return Response(SweepSerializer(self._get(request, pk)).data)

    @extend_schema(
        request=SweepCreateSerializer,
        responses={201: SweepSerializer, 422: OpenApiResponse(OpenApiTypes.OBJECT, description="no such revision")},
    )
    def create(self, request):
        ser = SweepCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        design = visible_design(request.user, ser.validated_data["design"])
        number = ser.validated_data.get("revision")
        rev = design.revisions.filter(number=number).first() if number else design.head
        if rev is None:
            # well-formed, naming a row that does not exist: 422, as simulations and calibrations answer it
            return Response({"errors": {"revision": [f"design {design.pk} has no revision {number}"]}}, status=422)
        try:
            sweep = create_sweep(request.user, rev, ser.validated_data["spec"], name=ser.validated_data.get("name", ""))
        except SweepSpecError as exc:
            return Response({"errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)
        return Response(SweepSerializer(sweep).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=SweepSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        sweep = self._get(request, pk)
        cancel_sweep(sweep)
        sweep.refresh_from_db()
        return Response(SweepSerializer(sweep).data)

    @extend_schema(request=None, responses={201: SweepSerializer})
    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        try:
            new = rerun_sweep(self._get(request, pk), request.user)
        except SweepSpecError as exc:
            return Response({"errors": exc.errors}, status=400)
        return Response(SweepSerializer(new).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        parameters=[
            OpenApiParameter(
                "offset", {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}, description="first index"
            ),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 10_000}, description="points"),
        ],
    )
    @action(detail=True, methods=["get"])
    def points(self, request, pk=None):
        """Points in index order; ``?offset=&limit=`` (limit ≤ 10,000)."""
        sweep = self._get(request, pk)
        offset = query_int(request, "offset", 0, 0, MAX_OFFSET)
        limit = query_int(request, "limit", 1000, 1, 10_000)
        return Response(
            {"count": sweep.done_points, "offset": offset, "points": list(point_dicts(sweep, offset, offset + limit))}
        )
