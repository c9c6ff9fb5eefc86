"""404 under /api/ is JSON in every mode: Django's DEBUG page (or a URL no route matches) is HTML,
which API clients and the schema do not expect."""

from __future__ import annotations

from django.http import JsonResponse


class ApiJsonNotFoundMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.path.startswith("/api/")
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return JsonResponse({"detail": "Not found."}, status=404)
        return response
