"""Catalog API: everyone signed in reads; only staff change parts and prices."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from bom.currencies import ISO_4217
from bom.models import Part, Price, PriceBook, Quote
from designer.api.auth import ReadOnlyTokenPermission
from designer.api.pagination import ID_SCHEMA, PAGE_PARAMETERS, paged, query_int
from designer.api.parsers import DecimalJSONParser
from designer.api.strict import StrictCharField, StrictChoiceField, StrictModelSerializer

# every catalog view: signed in, read-only tokens read only, and only staff write
CATALOG_PERMISSIONS = [permissions.IsAuthenticated, ReadOnlyTokenPermission]


class StaffWritePermission(permissions.BasePermission):
    message = "only staff may change the catalog"

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or bool(request.user and request.user.is_staff)


# physical bounds, so a typo like 4e9 W is refused rather than priced (and the schema states them)
PART_BOUNDS = {
    "port_gbps": {"max_value": 100_000},
    "reach_m": {"max_value": 1_000_000},
    "length_m": {"max_value": 100_000},
    "power_w": {"max_value": 10_000_000},
    "port_count": {"max_value": 100_000},
    "ports_per_module": {"max_value": 64},
    "rack_units": {"max_value": 60},
}


class PartSerializer(StrictModelSerializer):
    class Meta:
        model = Part
        fields = "__all__"
        extra_kwargs = PART_BOUNDS


class PriceSerializer(StrictModelSerializer):
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
            "lead_time_weeks",
            "quote",
        ]

    def validate(self, attrs):
        book = attrs.get("price_book") or (self.instance.price_book if self.instance else None)
        quote = attrs.get("quote", self.instance.quote if self.instance else None)
        if quote is not None and book is not None and quote.price_book_id != book.pk:
            raise serializers.ValidationError(
                {"quote": [f"{quote} is a quote of another price book; attach quotes of {book}"]}, code="rule"
            )
        return attrs


class QuoteSerializer(StrictModelSerializer):
    class Meta:
        model = Quote
        fields = ["id", "price_book", "reference", "supplier", "quoted_on", "valid_until", "note"]

    def validate(self, attrs):
        quoted = attrs.get("quoted_on") or (self.instance.quoted_on if self.instance else None)
        valid = attrs.get("valid_until", self.instance.valid_until if self.instance else None)
        if quoted and valid and valid < quoted:
            raise serializers.ValidationError(
                {"valid_until": ["a quote cannot expire before the day it was made"]}, code="rule"
            )
        return attrs


class PriceBookSerializer(StrictModelSerializer):
    currency = StrictChoiceField(
        choices=sorted(ISO_4217),
        required=False,
        error_messages={"invalid_choice": "{input!r} is not an ISO 4217 currency code in use (e.g. USD, EUR, JPY)"},
    )

    class Meta:
        model = PriceBook
        fields = ["id", "name", "version", "currency", "effective_date", "note", "is_active", "created_at"]
        read_only_fields = ["version", "created_at"]  # a new version comes from new-version, never an edit


class NewVersionSerializer(serializers.Serializer):
    note = StrictCharField(required=False, allow_blank=True, max_length=500)


class CatalogViewSet(viewsets.ModelViewSet):
    parser_classes = [DecimalJSONParser]  # amounts in JSON numbers arrive exactly as written
    permission_classes = [*CATALOG_PERMISSIONS, StaffWritePermission]


class PartViewSet(CatalogViewSet):
    queryset = Part.objects.order_by("pk")
    serializer_class = PartSerializer


class PriceBookViewSet(CatalogViewSet):
    queryset = PriceBook.objects.order_by("-effective_date", "-version", "pk")
    serializer_class = PriceBookSerializer

    @extend_schema(responses=paged(PriceSerializer, "PricePage"), parameters=PAGE_PARAMETERS)
    @action(detail=True, methods=["get"], serializer_class=PriceSerializer)
    def prices(self, request, pk=None):
        """The book's prices, paginated like every list."""
        book = self.get_object()
        page = self.paginate_queryset(book.prices.select_related("part").order_by("pk"))
        return self.get_paginated_response(PriceSerializer(page, many=True).data)

    @extend_schema(request=NewVersionSerializer, responses={201: PriceBookSerializer})
    @action(detail=True, methods=["post"], url_path="new-version")
    def new_version(self, request, pk=None):
        """A copy of the book (all its prices) as the next version; ``{"note": "…"}`` optional."""
        book = self.get_object()
        if not isinstance(request.data, dict):
            return Response({"errors": {"non_field_errors": ['send a JSON object, e.g. {"note": "…"}']}}, 400)
        body = NewVersionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(PriceBookSerializer(book.new_version(note=body.validated_data.get("note", ""))).data, 201)


class PriceViewSet(CatalogViewSet):
    queryset = Price.objects.select_related("part", "price_book").order_by("pk")
    serializer_class = PriceSerializer


@extend_schema_view(
    list=extend_schema(
        parameters=[*PAGE_PARAMETERS, OpenApiParameter("price_book", ID_SCHEMA, description="one book's quotes")]
    )
)
class QuoteViewSet(CatalogViewSet):
    """Suppliers' quotes attached to a price book version (``?price_book=`` filters)."""

    serializer_class = QuoteSerializer
    queryset = Quote.objects.select_related("price_book").order_by("pk")

    def get_queryset(self):
        qs = super().get_queryset()
        if self.action == "list" and "price_book" in self.request.query_params:
            book = query_int(self.request, "price_book", 0, 1, ID_SCHEMA["maximum"])
            qs = qs.filter(price_book_id=book)
        return qs
