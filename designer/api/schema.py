"""OpenAPI post-processing: every operation documents the error answers it can give.

All errors share one shape: ``{"errors": {field: [message, …]}}`` for bad input (400) and a body over the
size limit (413), ``{"detail": "…"}`` for authentication (401), permission (403) and missing objects (404).
A URL over gunicorn's request-line limit is its own 414 (HTML), documented too."""

from __future__ import annotations

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "errors": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "detail": {"type": "string"},
    },
}
ERRORS = {
    "400": "Bad input: one message per field",
    "401": "Not signed in, or a bad token",
    "403": "Signed in but not allowed (e.g. a read-only token writing, or a non-staff user changing the catalog)",
    "404": "No such object, or not yours to see",
}
BODY_ERRORS = {"415": "The request body is not JSON (the API takes JSON objects only)"}
URI_TOO_LONG = {
    "description": "The request line (path and query) is over 4,094 bytes: gunicorn refuses it before the app "
    "(its limit_request_line), with a short HTML page",
    "content": {"text/html": {"schema": {"type": "string"}}},
}


def _too_large() -> dict:
    """413: the body is over DATA_UPLOAD_MAX_MEMORY_SIZE (designer/api/limits.py), on any operation."""
    from django.conf import settings

    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return {
        "description": f"The request body is over {limit:,} bytes (the trace limit, 5 MiB of text, fits in it)",
        "content": {"application/json": {"schema": ERROR_SCHEMA}},
    }


def _unwrap_pages(operation: dict) -> None:
    """A hand-paginated list is one page object, not an array of pages (drf-spectacular wraps list actions)."""
    for response in operation["responses"].values():
        schema = response.get("content", {}).get("application/json", {}).get("schema", {})
        ref = schema.get("items", {}).get("$ref", "") if schema.get("type") == "array" else ""
        if ref.endswith("Page"):
            response["content"]["application/json"]["schema"] = {"$ref": ref}


def _requirements_body(operation: dict, components: dict) -> None:
    """The requirement operations take the generated requirements schema (designer/api/requirements_schema.py)."""
    from designer.api.requirements_schema import BODIES, COMPONENTS, UNPROCESSABLE

    name = BODIES.get(operation.get("operationId", ""))
    if name is None:
        return
    components.update(COMPONENTS)
    operation["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
    }
    operation["responses"]["422"] = {
        "description": UNPROCESSABLE,
        "content": {"application/json": {"schema": ERROR_SCHEMA}},
    }


CATALOG_WRITES = ("parts_", "prices_", "price_books_", "quotes_")
CONFLICT = "The value collides with a stored row (a SKU taken, a book already pricing that part, a name+version taken)"
MISSING_ROW = "Well-formed, but names a price book, part or quote that does not exist, or a quote of another price book"


def _catalog_conflicts(operation: dict) -> None:
    op = operation.get("operationId", "")
    if "requestBody" not in operation or not op.startswith(CATALOG_WRITES) or "new_version" in op:
        return
    operation["responses"].setdefault(
        "409", {"description": CONFLICT, "content": {"application/json": {"schema": ERROR_SCHEMA}}}
    )
    if op.startswith(("prices_", "quotes_")):
        operation["responses"].setdefault(
            "422", {"description": MISSING_ROW, "content": {"application/json": {"schema": ERROR_SCHEMA}}}
        )


def add_error_responses(result, generator, request, public):
    components = result.setdefault("components", {}).setdefault("schemas", {})
    for path in result.get("paths", {}).values():
        for _method, operation in path.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            _unwrap_pages(operation)
            _requirements_body(operation, components)
            _catalog_conflicts(operation)
            errors = {**ERRORS, **(BODY_ERRORS if "requestBody" in operation else {})}
            for code, text in errors.items():
                operation["responses"].setdefault(
                    code, {"description": text, "content": {"application/json": {"schema": ERROR_SCHEMA}}}
                )
            operation["responses"].setdefault("413", _too_large())
            operation["responses"].setdefault("414", URI_TOO_LONG)
    return result
