"""Bodies over the size limit get a JSON 413 under /api/, naming the limit, before anything reads them.

Django refuses a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only when a view reads it, as a SuspiciousOperation:
an HTML "Bad Request (400)" on a JSON API. Here the declared length is checked first."""

from __future__ import annotations

from django.conf import settings
from django.http import JsonResponse


def too_large(size_bytes: int | None = None) -> JsonResponse:
    """The 413 answer: ``{"errors": {"body": ["N bytes; the API takes a body of at most M bytes"]}}``."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    said = f"{size_bytes:,} bytes; " if size_bytes is not None else ""
    return JsonResponse({"errors": {"body": [f"{said}the API takes a body of at most {limit:,} bytes"]}}, status=413)


def declared_length(request) -> int:
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:  # Django reads a malformed length as 0 too
        return 0


class ApiBodyLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if request.path.startswith("/api/") and limit is not None and declared_length(request) > limit:
            return too_large(declared_length(request))
        return self.get_response(request)
