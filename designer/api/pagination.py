"""Every API list: ``?limit=`` (50 by default, at most 500) and ``?offset=``; answers count/next/previous/results."""

from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_LIMIT = 500
ID_SCHEMA = {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}
"""A database id as the API takes it (designer/ids.py parse_id)."""
MAX_OFFSET = 10**12

PAGE_PARAMETERS = [
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
        description="rows per page (50 by default, at most 500)",
    ),
    OpenApiParameter("offset", {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}, description="rows to skip"),
]


def query_int(request, name: str, default: int, minimum: int, maximum: int) -> int:
    """One whole number from the query string, or a field error (never a silent clamp or a repeat)."""
    values = request.query_params.getlist(name)
    if not values:
        return default
    allowed = f"a whole number from {minimum:,} to {maximum:,}"
    if len(values) > 1:
        raise ValidationError({"errors": {name: [f"give {name} once ({allowed})"]}})
    raw = values[0]
    if not (raw.isascii() and raw.isdigit() and len(raw) <= len(str(maximum))) or not minimum <= int(raw) <= maximum:
        raise ValidationError({"errors": {name: [f"{raw!r} is not {allowed}"]}})
    return int(raw)


def query_id(request, name: str) -> int | None:
    """An optional id from the query string (``?revision=2``): None when absent, a field error when malformed
    or repeated (which one would count?)."""
    from designer.ids import parse_id

    values = request.query_params.getlist(name)
    if not values:
        return None
    if len(values) > 1 or parse_id(values[0]) is None:
        raise ValidationError({"errors": {name: [f"one {name} number, e.g. 2"]}})
    return parse_id(values[0])


def paged(row_serializer, name: str):
    """The schema of a page of rows, for views that paginate by hand."""
    return inline_serializer(
        name=name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": row_serializer(many=True),
        },
    )


class Pages(LimitOffsetPagination):
    """Limit/offset pages whose parameters are checked, not clamped: a bad one is a 400 naming it."""

    default_limit = 50
    max_limit = MAX_LIMIT

    def get_schema_operation_parameters(self, view):
        """The bounds the parameters are checked against, so clients (and fuzzers) know them."""
        return [
            {"name": p.name, "in": "query", "required": False, "description": p.description, "schema": p.type}
            for p in PAGE_PARAMETERS
        ]

    def get_limit(self, request):
        return query_int(request, "limit", self.default_limit, 1, MAX_LIMIT)

    def get_offset(self, request):
        return query_int(request, "offset", 0, 0, MAX_OFFSET)


def owned_page(view, request, qs, serializer_class):
    """The caller's rows (``qs`` already filtered to them), optionally ``?design=`` only, newest first, paged;
    a malformed design id is a field error."""
    from rest_framework.response import Response

    from designer.ids import parse_id

    designs = request.query_params.getlist("design")
    if designs:
        if len(designs) > 1 or parse_id(designs[0]) is None:
            return Response({"errors": {"design": ["one design id, e.g. 3"]}}, status=400)
        qs = qs.filter(design_id=parse_id(designs[0]))
    paginator = Pages()
    page = paginator.paginate_queryset(qs.order_by("-created_at", "-pk"), request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)
