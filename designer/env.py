"""Strict parsing of settings from the environment: a bad value is an error, not a default."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be ≥ {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_trusted_proxy_count() -> int:
    """TRUSTED_PROXY_COUNT (default 0). The retired USE_X_FORWARDED_FOR=1 still means one proxy
    (it took the client-written leftmost entry; now the one the proxy appended); both set is refused."""
    legacy = os.environ.get("USE_X_FORWARDED_FOR")
    if legacy is None:
        return env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)
    if "TRUSTED_PROXY_COUNT" in os.environ:
        raise ImproperlyConfigured(
            "USE_X_FORWARDED_FOR is replaced by TRUSTED_PROXY_COUNT: set only TRUSTED_PROXY_COUNT"
        )
    return 1 if env_bool("USE_X_FORWARDED_FOR", False) else 0
