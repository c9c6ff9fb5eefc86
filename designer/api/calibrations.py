"""REST API for calibration profiles: /api/v1/calibrations/ — yours only."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response

from cluster.calibrate import COLUMNS, CalibrationInputError
from designer.access import visible_design
from designer.api.pagination import ID_SCHEMA, PAGE_PARAMETERS, owned_page, paged
from designer.calibrations import create_calibration
from designer.ids import parse_id
from designer.models import CalibrationProfile
from topology.collectives import Collective
from topology.nccl_logs import MAX_LOG_CHARS


class LogField(serializers.CharField):
    """A pasted log: NUL characters (a terminal capture's noise; PostgreSQL cannot store them) are dropped, not
    refused — the schema allows any string."""

    def to_internal_value(self, data):
        return super().to_internal_value(data.replace("\x00", "") if isinstance(data, str) else data)


class CalibrationSerializer(serializers.ModelSerializer):
    class Meta:
        model = CalibrationProfile
        fields = ["id", "name", "design", "revision", "collective", "column", "log_filename", "log_sha256",
                  "parameters", "result", "created_at"]  # fmt: skip


class CalibrationCreateSerializer(serializers.Serializer):
    design = serializers.IntegerField(min_value=1, max_value=2**62)
    revision = serializers.IntegerField(required=False, min_value=1, max_value=2**31, help_text="default: the latest")
    name = serializers.CharField(max_length=200)
    collective = serializers.ChoiceField(choices=[c.value for c in Collective], default="all_reduce")
    column = serializers.ChoiceField(choices=list(COLUMNS), default="out_of_place")
    gpus = serializers.IntegerField(required=False, min_value=2, max_value=1_048_576, help_text="default: from the log")
    log = LogField(max_length=MAX_LOG_CHARS, trim_whitespace=False, help_text="nccl-tests stdout")
    log_filename = serializers.CharField(required=False, allow_blank=True, max_length=255)


class CalibrationViewSet(viewsets.ViewSet):
    queryset = CalibrationProfile.objects.none()
    serializer_class = CalibrationSerializer

    def _get(self, request, pk) -> CalibrationProfile:
        try:
            return CalibrationProfile.objects.get(pk=parse_id(pk) or 0, owner=request.user)
        except CalibrationProfile.DoesNotExist:
            raise Http404 from None

    @extend_schema(
        responses=paged(CalibrationSerializer, "CalibrationPage"),
        parameters=[*PAGE_PARAMETERS, OpenApiParameter("design", ID_SCHEMA, description="only this design's")],
    )
    def list(self, request):
        return owned_page(self, request, CalibrationProfile.objects.filter(owner=request.user), CalibrationSerializer)

    def retrieve(self, request, pk=None):
        return Response(CalibrationSerializer(self._get(request, pk)).data)

    @extend_schema(
        request=CalibrationCreateSerializer,
        responses={201: CalibrationSerializer, 400: OpenApiTypes.OBJECT, 422: OpenApiTypes.OBJECT},
        description="Fit a profile. 400: a malformed request; 422: a well-formed one whose log is refused "
        "(malformed, of another collective or GPU count, other GPUs) or whose fit does not converge.",
    )
    def create(self, request):
        ser = CalibrationCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        v = ser.validated_data
        design = visible_design(request.user, v["design"])
        rev = design.revisions.filter(number=v["revision"]).first() if "revision" in v else design.head
        if rev is None:
            return Response(
                {"errors": {"revision": [f"design {design.pk} has no revision {v['revision']}"]}}, status=422
            )
        try:
            profile = create_calibration(request.user, rev, v["name"], v["collective"], v["log"], column=v["column"],
                                         gpus=v.get("gpus"), filename=v.get("log_filename", ""))  # fmt: skip
        except CalibrationInputError as exc:  # well-formed, but the log or the fit is refused
            return Response({"errors": exc.errors}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        return Response(CalibrationSerializer(profile).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None})
    def destroy(self, request, pk=None):
        self._get(request, pk).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
