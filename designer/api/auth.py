"""Personal API tokens: ``Authorization: Token cd_<prefix>_<secret>``; stored hashed."""

from __future__ import annotations

import hmac
from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

from designer.models import ApiToken, hash_token

LAST_USED_RESOLUTION = timedelta(seconds=60)


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Token <key>`` or ``Authorization: Bearer <key>`` (the same personal token)."""

    keyword = "Token"
    keywords = ("Token", "Bearer")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode(errors="replace").split()
        if not header or header[0] not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("use the header 'Authorization: Token <key>' (or Bearer <key>)")
        key = header[1]
        parts = key.split("_")
        if len(parts) < 3 or parts[0] != "cd":
            raise exceptions.AuthenticationFailed("malformed token")
        token = ApiToken.objects.select_related("user").filter(prefix=parts[1]).first()
        if token is None or not hmac.compare_digest(token.key_hash, hash_token(key)):
            raise exceptions.AuthenticationFailed("invalid token")
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("token revoked")
        if token.expires_at <= timezone.now():
            raise exceptions.AuthenticationFailed("token expired")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("user inactive")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            # a write per request serialised every API call on SQLite's one writer (benchmarks/load.py);
            # the tokens page shows the minute, so once a minute is enough
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request):
        return self.keyword


class ReadOnlyTokenPermission(permissions.BasePermission):
    message = "this API token is read-only"

    def has_permission(self, request, view):
        if isinstance(request.auth, ApiToken) and request.auth.read_only:
            return request.method in permissions.SAFE_METHODS
        return True


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """How the schema tells clients about personal tokens (``Token`` or ``Bearer``)."""

    target_class = "designer.api.auth.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A personal API token from the API tokens page: `Token cd_…` or `Bearer cd_…`.",
        }
