"""JSON bodies, checked before any view sees them: nested at most MAX_JSON_DEPTH levels, no lone surrogate in any
text or key, and (the requirement and catalog views) numbers with a fraction as exact Decimals.

``json.loads`` takes ``"\\ud800"`` (a lone surrogate: not a character, so not encodable as UTF-8; a key or a
message holding one was a 500 wherever it was echoed or stored) and recurses once per ``[`` (100,000 of them:
a RecursionError, a 500). Both are 400 field errors here, named by their path in the body.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 64
"""Arrays and objects inside one another, the body itself the first (a requirements body uses 4)."""
SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_ERROR = "contains a lone surrogate (U+D800–U+DFFF, not a character)"
MAX_REPORTED = 50


def _name(key: Any) -> str:
    """A path component as text that can itself be encoded (a surrogate in a key is written as ``\\udXXX``)."""
    return str(key).encode("utf-8", "backslashreplace").decode("utf-8")


def body_errors(data: Any) -> dict[str, list[str]]:
    """Field errors of a parsed body: depth beyond MAX_JSON_DEPTH (under its top-level key, or ``body``), lone
    surrogates in text or keys (under their dotted path). Iterative: the body may be as deep as json allows."""
    errors: dict[str, list[str]] = {}
    stack: list[tuple[Any, tuple, int]] = [(data, (), 1)]
    while stack and len(errors) < MAX_REPORTED:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            if SURROGATE.search(value):
                errors[".".join(path) or "body"] = [SURROGATE_ERROR]
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_JSON_DEPTH:
            errors[path[0] if path else "body"] = [f"nested deeper than {MAX_JSON_DEPTH} levels"]
            continue
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            name = _name(key)
            if isinstance(key, str) and SURROGATE.search(key):
                errors[".".join((*path, name))] = [SURROGATE_ERROR]
            stack.append((item, (*path, name), depth + 1))
    return errors


class StrictJSONParser(JSONParser):
    """The API's JSON: bounded depth, no lone surrogates, no NaN/Infinity; fractions as floats."""

    parse_float = float

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.loads(stream.read().decode(encoding), parse_float=self.parse_float, parse_constant=_refuse)
        except RecursionError:  # far deeper than MAX_JSON_DEPTH: json recurses once per level
            raise ValidationError({"errors": {"body": [f"nested deeper than {MAX_JSON_DEPTH} levels"]}}) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        errors = body_errors(data)
        if errors:
            raise ValidationError({"errors": errors})
        return data


class DecimalJSONParser(StrictJSONParser):
    """``0.08`` in the body is ``Decimal("0.08")``, exactly as written (the requirement and catalog views)."""

    parse_float = Decimal


def _refuse(name: str):
    raise ValueError(f"{name} is not a JSON number")
