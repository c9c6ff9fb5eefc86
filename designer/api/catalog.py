"""Catalog API: everyone signed in reads; only staff change parts and prices.

Every write stamps the row's ``changed_by``/``changed_at`` and the admin's history (LogEntry);
deleting what planning or saved designs rely on is refused with 409 (``code`` names the reason)."""

from __future__ import annotations

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import exceptions, permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from bom.currencies import ISO_4217
from bom.models import Part, Price, PriceBook, Quote
from bom.parts import PORT_GROUPS_PATTERN
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
    "extra_port_groups": {  # the parser's own rule (bom/parts.py), stated in the schema
        "pattern": PORT_GROUPS_PATTERN,
        "pattern_message": "port groups are 'count x speedG' joined by '+', e.g. 8x100G",
    },
}


@extend_schema_field({"type": "string", "nullable": True, "readOnly": True})
class ChangedByField(serializers.Field):
    """The user name of whoever last changed the row; shown to staff only (null to others)."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def get_attribute(self, instance):
        return instance

    def to_representation(self, instance):
        request = self.context.get("request")
        user = instance.changed_by
        return user.get_username() if user and request and request.user.is_staff else None


AUDIT_FIELDS = ["changed_by", "changed_at"]


class AuditedSerializer(StrictModelSerializer):
    changed_by = ChangedByField(help_text="who last changed it (staff see the user name; others null)")
    changed_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="when it was last changed")


class PartSerializer(AuditedSerializer):
    class Meta:
        model = Part
        fields = "__all__"
        extra_kwargs = PART_BOUNDS


class PriceSerializer(AuditedSerializer):
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
            *AUDIT_FIELDS,
        ]

    def validate(self, attrs):
        book = attrs.get("price_book") or (self.instance.price_book if self.instance else None)
        quote = attrs.get("quote", self.instance.quote if self.instance else None)
        if quote is not None and book is not None and quote.price_book_id != book.pk:
            raise serializers.ValidationError(
                {"quote": [f"{quote} is a quote of another price book; attach quotes of {book}"]}, code="rule"
            )
        return attrs


class QuoteSerializer(AuditedSerializer):
    class Meta:
        model = Quote
        fields = ["id", "price_book", "reference", "supplier", "quoted_on", "valid_until", "note", *AUDIT_FIELDS]

    def validate(self, attrs):
        quoted = attrs.get("quoted_on") or (self.instance.quoted_on if self.instance else None)
        valid = attrs.get("valid_until", self.instance.valid_until if self.instance else None)
        if quoted and valid and valid < quoted:
            raise serializers.ValidationError(
                {"valid_until": ["a quote cannot expire before the day it was made"]}, code="rule"
            )
        return attrs


class PriceBookSerializer(AuditedSerializer):
    currency = StrictChoiceField(
        choices=sorted(ISO_4217),
        required=False,
        error_messages={"invalid_choice": "{input!r} is not an ISO 4217 currency code in use (e.g. USD, EUR, JPY)"},
    )

    class Meta:
        model = PriceBook
        fields = [
            "id",
            "name",
            "version",
            "currency",
            "effective_date",
            "note",
            "is_active",
            "created_at",
            *AUDIT_FIELDS,
        ]
        read_only_fields = ["version", "created_at"]  # a new version comes from new-version, never an edit


class NewVersionSerializer(serializers.Serializer):
    note = StrictCharField(required=False, allow_blank=True, max_length=500)


class CatalogInUse(exceptions.APIException):
    """409: deleting (or retiring) a catalog row planning or saved designs rely on."""

    status_code = 409
    default_code = "in_use"

    def __init__(self, refusals: list[tuple[str, str]]):
        messages = [why for _code, why in refusals]
        super().__init__({"errors": {"non_field_errors": messages}, "code": refusals[0][0]})


IN_USE = OpenApiResponse(
    {
        "type": "object",
        "properties": {
            "errors": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
            "code": {"type": "string"},
        },
    },
    description="Refused: the row is in use (``code``: e.g. price_book_current, price_book_last_active, "
    "price_book_in_use, part_priced); the message says why and what to do instead",
)


def log_change(request, obj, flag: int, message: str = "") -> None:
    """The admin's history records API changes too (who, what, when; deletions included)."""
    LogEntry.objects.log_actions(request.user.pk, [obj], flag, message or f"via the API ({request.method})")


class CatalogViewSet(viewsets.ModelViewSet):
    parser_classes = [DecimalJSONParser]  # amounts in JSON numbers arrive exactly as written
    permission_classes = [*CATALOG_PERMISSIONS, StaffWritePermission]

    def perform_create(self, serializer):
        log_change(self.request, self._save(serializer), ADDITION)

    def perform_update(self, serializer):
        log_change(self.request, self._save(serializer), CHANGE)

    def _save(self, serializer):
        user = self.request.user
        return serializer.save(changed_by=user if user.is_authenticated else None, changed_at=timezone.now())

    def perform_destroy(self, instance):
        refusals = instance.deletion_refusals([instance]) if hasattr(instance, "deletion_refusals") else []
        if refusals:
            raise CatalogInUse(refusals)
        log_change(self.request, instance, DELETION)
        instance.delete()


REFUSABLE_DELETE = extend_schema_view(destroy=extend_schema(responses={204: None, 409: IN_USE}))


@REFUSABLE_DELETE
class PartViewSet(CatalogViewSet):
    queryset = Part.objects.order_by("pk")
    serializer_class = PartSerializer


@REFUSABLE_DELETE
class PriceBookViewSet(CatalogViewSet):
    queryset = PriceBook.objects.order_by("-effective_date", "-version", "pk")
    serializer_class = PriceBookSerializer

    def perform_update(self, serializer):
        book = serializer.instance
        if book.is_active and serializer.validated_data.get("is_active") is False:
            why = book.deactivation_refusal()
            if why:
                raise CatalogInUse([("price_book_last_active", why)])
        super().perform_update(serializer)

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
        new = book.new_version(note=body.validated_data.get("note", ""), user=request.user)
        log_change(request, new, ADDITION, f"new version of {book}")
        return Response(PriceBookSerializer(new, context=self.get_serializer_context()).data, 201)


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
