"""The requirements body in the OpenAPI schema, generated from the one field declaration.

Every field of cluster/requirements.py appears with the JSON type, range, choices and pattern
the API's strict validation (cluster/validate.py, ``strict=True``) enforces, so a value the
schema allows is never refused as malformed (400). What a schema cannot state — rules between
fields (whole nodes, a switch model's radix), and planning refusals (a fabric that does not fit
its switch, the per-request budget) — is answered with 422 and the same ``errors`` shape.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from cluster.fields import FieldSpec
from cluster.requirements import FIELDS, SECTIONS
from cluster.validate import NODE_COUNT_MAX, NOT_FREE_TEXT, NOT_ONE_LINE, money_pattern
from scheduling.workload import CLASS_COLUMNS, MAX_CLASSES, REQUIRED_COLUMNS, SLA_CLASSES

# one line of printable text (cluster/validate.py refuses the same characters), with some non-space character
NOT_BLANK = f"^[^{NOT_ONE_LINE}]*[^\\s{NOT_ONE_LINE}][^{NOT_ONE_LINE}]*$"
ANY_TEXT = f"^[^{NOT_ONE_LINE}]*$"
FREE_TEXT = f"^[^{NOT_FREE_TEXT}]*$"  # tabs and line breaks allowed
NO_NUL = r"^[^\x00]*$"  # a revision's message: shown escaped on pages, never written to a generated file
MESSAGE_MAX = 200


def field_schema(spec: FieldSpec) -> dict[str, Any]:
    """One field's JSON schema (OpenAPI 3.0: ``nullable`` for fields that may be left empty)."""
    kind = spec.kind
    out: dict[str, Any]
    if kind == "bool":
        out = {"type": "boolean"}
    elif kind == "int" and spec.choices:
        out = {"type": "integer", "enum": [c for c, _ in spec.choices]}
    elif kind in ("int", "real"):
        out = {"type": "integer" if kind == "int" else "number", "minimum": spec.minimum, "maximum": spec.maximum}
    elif kind == "money":
        out = {
            "oneOf": [
                {
                    "type": "number",
                    "minimum": 0,
                    "maximum": int(spec.maximum),
                    "multipleOf": float(Decimal(1).scaleb(-spec.decimal_places)),
                },
                {"type": "string", "pattern": money_pattern(spec)},
            ]
        }
    elif kind == "longtext":
        out = {"type": "string", "pattern": FREE_TEXT}
    elif spec.choices:
        out = {"type": "string", "enum": [c for c, _ in spec.choices] + ([""] if spec.blank else [])}
        out["enum"] = list(dict.fromkeys(out["enum"]))
    elif spec.pattern:
        inner = spec.pattern.removeprefix("^").removesuffix("$")
        out = {
            "type": "string",
            "maxLength": spec.max_length,
            "pattern": f"^(?:{inner})?$" if spec.blank else f"^{inner}$",
        }
    else:
        out = {"type": "string", "maxLength": spec.max_length, "pattern": ANY_TEXT if spec.blank else NOT_BLANK}
    if spec.nullable:
        out["nullable"] = True
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    out["description"] = spec.help
    return out


def _torus(spec: FieldSpec) -> dict[str, Any]:
    """torus_dims: "XxYxZ" or a list of three whole numbers."""
    text = field_schema(spec)
    listed = {
        "type": "array",
        "items": {"type": "integer", "minimum": 1, "maximum": 100_000},
        "minItems": 3,
        "maxItems": 3,
    }
    return {"oneOf": [{k: v for k, v in text.items() if k != "description"}, listed], "description": spec.help}


def _classes(spec: FieldSpec) -> dict[str, Any]:
    """workload.classes: a list of job classes (what the API returns and takes), or null."""
    ctrl = r"\x00-\x1f\x7f-\x9f\u2028\u2029"  # one cell of one line: no control or line-separator character
    cell = f'[^,"{ctrl}]'
    name = f'^[^\\S{ctrl}]*[^,"\\s#{ctrl}]{cell}*$'  # and its first character is not # (a comment line)
    number = {"type": "number"}
    whole = {"type": "integer", "minimum": 1}
    item = {
        "type": "object",
        "additionalProperties": False,
        "required": list(CLASS_COLUMNS[:REQUIRED_COLUMNS]),
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 60, "pattern": name},
            "share_pct": number, "min_gpus": whole, "max_gpus": whole, "granularity_gpus": whole,
            "min_hours": number, "max_hours": number, "sla": {"type": "string", "enum": list(SLA_CLASSES)},
            "tenant": {"type": "string", "maxLength": 60, "pattern": f"^{cell}*$"},
            "comm_fraction": {"type": "number", "minimum": 0, "maximum": 1},  # 1 itself: a rule (422)
            "duration": {"type": "string", "enum": ["log_uniform", "uniform", "exponential"]},
        },
    }  # fmt: skip
    return {"type": "array", "maxItems": MAX_CLASSES, "items": item, "nullable": True,
            "description": spec.help.replace("one per line: ", "each ").replace(
                "; empty", " (files and forms also take the text layout, one class per line); empty")}  # fmt: skip


def _properties(path_section: str) -> dict[str, Any]:
    special = {"torus_dims": _torus, "classes": _classes}
    return {f.key: special.get(f.key, field_schema)(f.spec) for f in FIELDS if f.path_section == path_section}


def requirements_schema(partial: bool = False) -> dict[str, Any]:
    """The nested requirements object (as in examples/*.yaml). ``partial``: PATCH, nothing required."""
    props: dict[str, Any] = _properties("")
    props["node_count"] = {
        "type": "integer",
        "minimum": 1,
        "maximum": NODE_COUNT_MAX,
        "description": "Compute nodes (instead of gpu_count): gpu_count = node_count × gpus_per_node",
    }
    for _name, path_section, _cls in SECTIONS:
        if path_section:
            props[path_section] = {
                "type": "object",
                "nullable": True,
                "additionalProperties": False,
                "properties": _properties(path_section),
            }
    out: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": props}
    if not partial:
        out["anyOf"] = [{"required": ["gpu_count"]}, {"required": ["node_count"]}]
    return out


def input_schema(requirements_ref: str) -> dict[str, Any]:
    """The request body: ``{"requirements": {...}, "message": "..."}``."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["requirements"],
        "properties": {
            "requirements": {"$ref": requirements_ref},
            "message": {
                "type": "string",
                "maxLength": MESSAGE_MAX,
                "pattern": NO_NUL,
                "description": "what changed (kept with the revision)",
            },
        },
    }


COMPONENTS = {
    "Requirements": requirements_schema(),
    "RequirementsPatch": requirements_schema(partial=True),
    "RequirementsInput": input_schema("#/components/schemas/Requirements"),
    "RequirementsPatchInput": input_schema("#/components/schemas/RequirementsPatch"),
}
BODIES = {
    "designs_create": "RequirementsInput",
    "designs_update": "RequirementsInput",
    "designs_partial_update": "RequirementsPatchInput",
    "evaluate_create": "RequirementsInput",
}
UNPROCESSABLE = (
    "Well-formed values a rule between fields or the planner refuses (e.g. GPUs that do not fill whole "
    "nodes, a fabric that does not fit its switch, more GPUs than a request may plan): one message per field"
)
