"""Serializer fields that take exactly what the OpenAPI schema says, and say exactly what they take.

DRF's stock fields coerce: ``5`` becomes the text ``"5"``, ``"5"`` the number 5, ``"yes"`` true,
and surrounding spaces vanish before a blank check. A procurement tool reading the schema
cannot know that, and a fuzzer (schemathesis, `make test-services`) flags every such case as
an accepted invalid request. These fields refuse the other JSON types, and their schema states
the pattern (non-blank text, no NUL; amounts as exact decimals) they enforce.

Errors: a value that only collides with a stored row (a duplicate SKU, a book already priced
for a part) is a conflict, 409; one that only names a row that does not exist, or well-formed
values a rule between fields refuses (code ``rule``: a quote of another book), is 422; the rest
are 400. All come as ``{"errors": {field: [message, …]}}``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.views import exception_handler

NOT_BLANK = r"^[^\x00]*[^\s\x00][^\x00]*$"
# a blank-allowed field: drf-spectacular adds the empty string as a oneOf branch of its own, so this
# pattern must not match "" too (oneOf means exactly one)
SOME_TEXT = r"^[^\x00]+$"


class StrictCharField(serializers.CharField):
    """Text only (no numbers); kept as sent, blank means nothing but spaces. ``pattern``: a full-match rule."""

    default_error_messages = {"pattern": "does not match {pattern}"}

    def __init__(self, pattern: str = "", pattern_message: str = "", **kwargs):
        kwargs["trim_whitespace"] = False
        self.pattern = pattern
        self.pattern_message = pattern_message
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        import re

        if not isinstance(data, str):
            self.fail("invalid")
        if not self.allow_blank and not data.strip():
            self.fail("blank")
        if self.pattern and not re.fullmatch(self.pattern, data):  # as JSON Schema: `$` is the end, not "\n"
            raise ValidationError(self.pattern_message or f"does not match {self.pattern}", code="invalid")
        return super().to_internal_value(data)


# An http(s) URL with a dotted host name (labels of letters, digits and inner hyphens; a letters-only top-level
# domain), an optional port and an optional path/query/fragment without spaces or control characters (spelt
# out, not `\s`: Python counts \x1c–\x1f as spaces, JavaScript-style schema regexes do not): a subset of what Django's
# URLValidator accepts, stated as the schema's pattern so that what the schema allows the server takes.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HTTP_URL = rf"^https?://(?:{_LABEL}\.)+[A-Za-z]{{2,63}}(?::[1-9][0-9]{{0,3}})?(?:[/?#][^\x00-\x20\x7f]*)?$"


class StrictURLField(StrictCharField):
    """A data sheet or product page address: :data:`HTTP_URL`, e.g. https://www.nvidia.com/…"""

    def __init__(self, **kwargs):
        kwargs.setdefault("pattern", HTTP_URL)
        kwargs.setdefault("pattern_message", "an http(s) address with a dotted host, e.g. https://example.com/page")
        super().__init__(**kwargs)


class StrictChoiceField(serializers.ChoiceField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | Decimal | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """An id as a JSON integer; one no row can have (0, 20 digits) is 'does not exist', never a server error."""

    def to_internal_value(self, data):
        from designer.ids import parse_id

        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("incorrect_type", data_type=type(data).__name__)
        if parse_id(data) is None:
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | Decimal | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class AmountField(serializers.DecimalField):
    """An exact decimal: a JSON number (parsed as Decimal, designer/api/parsers.py) or a decimal string.

    Answers are decimal strings, as DRF writes them."""

    default_error_messages = {"not_amount": 'give an amount as a number or a decimal string, e.g. 600 or "600.00"'}

    def pattern(self) -> str:
        """Digits, at most ``decimal_places`` decimals, below 10^(max_digits − places) or up to a power-of-ten max."""
        places = self.decimal_places
        if self.max_value is None:
            return rf"^[0-9]{{1,{self.max_digits - places}}}(\.[0-9]{{1,{places}}})?$"
        top = Decimal(self.max_value)
        whole = len(str(int(top))) - 1
        assert top == Decimal(10) ** whole, "amount maxima are powers of ten"
        return rf"^([0-9]{{1,{whole}}}(\.[0-9]{{1,{places}}})?|{int(top)}(\.0{{1,{places}}})?)$"

    def largest(self) -> Decimal:
        if self.max_value is not None:
            return Decimal(self.max_value)
        return Decimal(10) ** (self.max_digits - self.decimal_places) - Decimal(1).scaleb(-self.decimal_places)

    def to_internal_value(self, data):
        import re

        if isinstance(data, bool) or not isinstance(data, int | Decimal | str):
            self.fail("not_amount")
        if isinstance(data, str) and not re.fullmatch(self.pattern(), data):
            self.fail("not_amount")
        if isinstance(data, Decimal) and not data.is_finite():
            self.fail("not_amount")
        return super().to_internal_value(str(data))


def _text_schema(field: StrictCharField) -> dict[str, Any]:
    pattern = field.pattern or (SOME_TEXT if field.allow_blank else NOT_BLANK)
    out: dict[str, Any] = {"type": "string", "pattern": pattern}
    if field.max_length is not None:
        out["maxLength"] = field.max_length
    return out


class StrictCharFieldSchema(OpenApiSerializerFieldExtension):
    target_class = StrictCharField
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        return _text_schema(self.target)


class PrimaryKeySchema(OpenApiSerializerFieldExtension):
    target_class = StrictPrimaryKeyRelatedField

    def map_serializer_field(self, auto_schema, direction):
        from designer.api.pagination import ID_SCHEMA

        return dict(ID_SCHEMA)


class AmountFieldSchema(OpenApiSerializerFieldExtension):
    target_class = AmountField

    def map_serializer_field(self, auto_schema, direction):
        f: AmountField = self.target
        text = {"type": "string", "format": "decimal", "pattern": f.pattern()}
        if direction == "response":
            return text
        number = {
            "type": "number",
            "minimum": 0,
            "maximum": float(f.largest()),
            "multipleOf": float(Decimal(1).scaleb(-f.decimal_places)),
        }
        return {"oneOf": [number, text]}


class StrictModelSerializer(serializers.ModelSerializer):
    """A ModelSerializer built from the strict fields."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
    }
    serializer_choice_field = StrictChoiceField
    serializer_related_field = StrictPrimaryKeyRelatedField


def _strict_mapping() -> None:
    from django.db import models

    m = StrictModelSerializer.serializer_field_mapping
    for model_field in (models.CharField, models.TextField, models.SlugField):
        m[model_field] = StrictCharField
    for model_field in (
        models.IntegerField,
        models.PositiveIntegerField,
        models.PositiveSmallIntegerField,
        models.SmallIntegerField,
        models.BigIntegerField,
    ):
        m[model_field] = StrictIntegerField
    m[models.URLField] = StrictURLField  # DRF drops the model's URLValidator for a URLField: the pattern decides
    m[models.FloatField] = StrictFloatField
    m[models.BooleanField] = StrictBooleanField
    m[models.DecimalField] = AmountField


_strict_mapping()


def _codes(detail: Any) -> set[str]:
    if isinstance(detail, dict):
        return set().union(*(_codes(v) for v in detail.values())) if detail else set()
    if isinstance(detail, list):
        return set().union(*(_codes(v) for v in detail)) if detail else set()
    return {str(detail)}


def _flat(errors: dict, prefix: str = "") -> dict[str, list]:
    """Nested serializer errors under dotted names (``{"target": {"p95_wait_h": [...]}}`` → ``target.p95_wait_h``;
    a list item's errors under its index), so every field error is a list of messages."""
    out: dict[str, list] = {}
    for key, value in errors.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, f"{name}."))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, v in enumerate(value):
                out.update(_flat(v, f"{name}.{i}."))
        else:
            out[name] = value if isinstance(value, list) else [value]
    return out


def api_exception_handler(exc, context):
    """DRF's handler, then: field errors under ``errors``; conflicts 409; references to missing rows 422; a body
    over the size limit (one sent without its length) 413."""
    from django.core.exceptions import RequestDataTooBig

    if isinstance(exc, RequestDataTooBig):
        from designer.api.limits import too_large

        return too_large()
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, ValidationError):
        return response
    data = response.data
    if not (isinstance(data, dict) and set(data) == {"errors"}):
        data = {"errors": data if isinstance(data, dict) else {"non_field_errors": data}}
    data = {"errors": _flat(data["errors"])} if isinstance(data["errors"], dict) else data
    codes = _codes(exc.get_codes())
    if codes == {"unique"}:
        response.status_code = 409
    elif codes and codes <= {"unique", "does_not_exist", "rule"}:  # "rule": well-formed values a rule refuses
        response.status_code = 422
    response.data = data
    return response
