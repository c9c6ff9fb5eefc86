"""Every API list: ``?limit=`` (50 by default, at most 500) and ``?offset=``; answers count/next/previous/results."""

from rest_framework.pagination import LimitOffsetPagination


class Pages(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500
