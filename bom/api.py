"""Catalog API: everyone signed in reads; only staff change parts and prices."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from bom.models import Part, Price, PriceBook
from designer.api.auth import ReadOnlyTokenPermission
from designer.api.pagination import PAGE_PARAMETERS, paged

# every catalog view: signed in, read-only tokens read only, and only staff write
CATALOG_PERMISSIONS = [permissions.IsAuthenticated, ReadOnlyTokenPermission]


class StaffWritePermission(permissions.BasePermission):
    message = "only staff may change the catalog"

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or bool(request.user and request.user.is_staff)


class PartSerializer(serializers.ModelSerializer):
    class Meta:
        model = Part
        fields = "__all__"


class PriceSerializer(serializers.ModelSerializer):
    sku = serializers.CharField(source="part.sku", read_only=True)
    unit_price_usd = serializers.DecimalField(max_digits=14, decimal_places=2, read_only=True)

    class Meta:
        model = Price
        fields = [
            "id",
            "price_book",
            "part",
            "sku",
            "list_price_usd",
            "discount_pct",
            "unit_price_usd",
            "source_note",
            "is_assumption",
        ]


class PriceBookSerializer(serializers.ModelSerializer):
    class Meta:
        model = PriceBook
        fields = ["id", "name", "version", "currency", "effective_date", "note", "is_active", "created_at"]


class PartViewSet(viewsets.ModelViewSet):
    queryset = Part.objects.order_by("pk")
    serializer_class = PartSerializer
    permission_classes = [*CATALOG_PERMISSIONS, StaffWritePermission]


class PriceBookViewSet(viewsets.ModelViewSet):
    queryset = PriceBook.objects.order_by("-effective_date", "-version", "pk")
    serializer_class = PriceBookSerializer
    permission_classes = [*CATALOG_PERMISSIONS, StaffWritePermission]

    @extend_schema(responses=paged(PriceSerializer, "PricePage"), parameters=PAGE_PARAMETERS)
    @action(detail=True, methods=["get"], serializer_class=PriceSerializer)
    def prices(self, request, pk=None):
        """The book's prices, paginated like every list."""
        book = self.get_object()
        page = self.paginate_queryset(book.prices.select_related("part").order_by("pk"))
        return self.get_paginated_response(PriceSerializer(page, many=True).data)

    @extend_schema(
        request=inline_serializer("NewVersion", {"note": serializers.CharField(required=False, allow_blank=True)}),
        responses={201: PriceBookSerializer},
    )
    @action(detail=True, methods=["post"], url_path="new-version")
    def new_version(self, request, pk=None):
        body = request.data if isinstance(request.data, dict) else None
        if body is None:
            return Response({"errors": {"non_field_errors": ['send a JSON object, e.g. {"note": "…"}']}}, 400)
        book = self.get_object().new_version(note=str(body.get("note", ""))[:500])
        return Response(PriceBookSerializer(book).data, status=201)


class PriceViewSet(viewsets.ModelViewSet):
    queryset = Price.objects.select_related("part", "price_book").order_by("pk")
    serializer_class = PriceSerializer
    permission_classes = [*CATALOG_PERMISSIONS, StaffWritePermission]
