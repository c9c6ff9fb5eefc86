"""Every API list: ``?limit=`` (50 by default, at most 500) and ``?offset=``; answers count/next/previous/results."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination

PAGE_PARAMETERS = [
    OpenApiParameter("limit", OpenApiTypes.INT, description="rows per page (50 by default, at most 500)"),
    OpenApiParameter("offset", OpenApiTypes.INT, description="rows to skip"),
]


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
    default_limit = 50
    max_limit = 500
