"""REST API for design searches: /api/v1/searches/ — yours only (designer/searches.py does the work)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from designer.access import visible_design
from designer.api.pagination import ID_SCHEMA, PAGE_PARAMETERS, owned_page, paged, query_int
from designer.ids import parse_id
from designer.search_models import DesignSearch
from designer.searches import (
    SearchSpecError,
    all_rows,
    cancel_search,
    create_search,
    rerun_search,
    save_candidate,
    search_progress,
)


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


class SearchCreateSerializer(serializers.Serializer):
    design = serializers.IntegerField()
    revision = serializers.IntegerField(
        required=False, min_value=1, max_value=10**9, help_text="revision number (default: the latest)"
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    spec = serializers.DictField(help_text="vary, constraints, objectives, allreduce_bytes, workload_target")


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
        responses={201: SearchSerializer, 422: OpenApiResponse(OpenApiTypes.OBJECT, description="no such revision")},
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
        except SearchSpecError as exc:
            return Response({"errors": exc.errors}, status=status.HTTP_400_BAD_REQUEST)
        return Response(SearchSerializer(search).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=SearchSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        search = self._get(request, pk)
        cancel_search(search)
        search.refresh_from_db()
        return Response(SearchSerializer(search).data)

    @extend_schema(request=None, responses={201: SearchSerializer})
    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        try:
            new = rerun_search(self._get(request, pk), request.user)
        except SearchSpecError as exc:
            return Response({"errors": exc.errors}, status=400)
        return Response(SearchSerializer(new).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=CandidateSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def save(self, request, pk=None):
        """A candidate as a new revision of the design (its own evaluation: the candidate's figures)."""
        search = self._get(request, pk)
        ser = CandidateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        try:
            rev = save_candidate(search, ser.validated_data["candidate"], request.user,
                                 ser.validated_data.get("message", ""))  # fmt: skip
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
