"""JSON bodies whose numbers with a fraction arrive as exact Decimals (amounts are never floats)."""

from __future__ import annotations

import json
from decimal import Decimal

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class DecimalJSONParser(JSONParser):
    """``0.08`` in the body is ``Decimal("0.08")``, exactly as written (the requirement views)."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return json.loads(stream.read().decode(encoding), parse_float=Decimal, parse_constant=_refuse)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


def _refuse(name: str):
    raise ValueError(f"{name} is not a JSON number")
