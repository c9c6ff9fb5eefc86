"""The one validation path: raw values (form strings, JSON, YAML, stored columns) → Requirements.

Every error comes back under the field the user typed — flat names for the form
(``storage_nic_gbps``), dotted paths for files and the API (``storage.nic_gbps``) — and all
of a request's errors are reported at once. Messages say what is wrong and what is allowed.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from cluster.fields import FieldSpec
from cluster.requirements import FIELD_BY_FLAT, FIELDS, SECTIONS, Field, Requirements, field_path
from power.rack_systems import rack_scale_system
from scheduling import SchedulerInputError
from scheduling.workload import Profile, check_profile, classes_text, parse_classes
from topology.switches import SWITCH_MODELS

_INT = re.compile(r"^[+-]?[0-9]+$")
_NUMBER = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_PATH_SECTIONS = tuple(p for _, p, _ in SECTIONS if p)


class RequirementsError(ValueError):
    """Bad requirements: ``errors`` maps a field name (flat or dotted) to messages.

    ``unprocessable``: every value is well-formed on its own (type, range, choice — what the API
    schema states) and the refusal comes from a rule between fields or from planning (whole
    nodes, a fabric that does not fit its switch, the per-request budget). The API answers 422
    for those and 400 for malformed values.
    """

    def __init__(self, errors: Mapping[str, list[str]], unprocessable: bool = False):
        self.errors = dict(errors)
        self.unprocessable = unprocessable
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in self.errors.items()))

    def nested(self) -> dict[str, list[str]]:
        """The same errors under dotted paths as typed in a file or the API."""
        return {field_path(k): v for k, v in self.errors.items()}

    @property
    def status_code(self) -> int:
        return 422 if self.unprocessable else 400


class _Bad(ValueError):
    pass


def _show(value: Any) -> str:
    return f"{value!r}" if isinstance(value, str) else str(value)


def _in_range(spec: FieldSpec, value: Any) -> Any:
    if spec.minimum is not None and value < spec.minimum:
        raise _Bad(f"{value} is too small; {spec.allowed}")
    if spec.maximum is not None and value > spec.maximum:
        raise _Bad(f"{value} is too large; {spec.allowed}")
    return value


def _as_int(spec: FieldSpec, raw: Any) -> int:
    if isinstance(raw, bool):
        raise _Bad(f"{_show(raw)} is not a whole number")
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, float | Decimal):
        if not (math.isfinite(raw) and raw == int(raw)):
            raise _Bad(f"{_show(raw)} is not a whole number")
        value = int(raw)
    elif isinstance(raw, str) and _INT.match(raw.strip()):
        value = int(raw.strip())
    else:
        raise _Bad(f"{_show(raw)} is not a whole number")
    if spec.choices:
        allowed = [c for c, _ in spec.choices]
        if value not in allowed:
            empty = " or leave empty" if spec.nullable else ""
            raise _Bad(f"{value} is not a valid choice; choose from {', '.join(map(str, allowed))}{empty}")
        return value
    return _in_range(spec, value)


def _as_real(spec: FieldSpec, raw: Any) -> float:
    if isinstance(raw, bool):
        raise _Bad(f"{_show(raw)} is not a number")
    if isinstance(raw, int | float | Decimal):
        value = float(raw)
    elif isinstance(raw, str) and _NUMBER.match(raw.strip()):
        value = float(raw.strip())
    else:
        raise _Bad(f"{_show(raw)} is not a number")
    if not math.isfinite(value):
        raise _Bad(f"{_show(raw)} is not a finite number; {spec.allowed}")
    return _in_range(spec, value)


def _as_money(spec: FieldSpec, raw: Any) -> Decimal:
    text = raw.strip() if isinstance(raw, str) else repr(raw) if isinstance(raw, float) else str(raw)
    if isinstance(raw, bool) or not _NUMBER.match(text):
        raise _Bad(f"{_show(raw)} is not an amount")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise _Bad(f"{_show(raw)} is not an amount") from None
    if not value.is_finite():
        raise _Bad(f"{_show(raw)} is not a finite amount")
    _in_range(spec, value)
    exponent = value.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > spec.decimal_places:
        raise _Bad(f"{value} has more than {spec.decimal_places} decimal places")
    return value


def _as_text(spec: FieldSpec, raw: Any) -> str:
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise _Bad(f"{_show(raw)} is not text")
    value = str(raw)
    if "\x00" in value:
        raise _Bad("contains a NUL character, which no text field may hold")
    _printable(value, multiline=spec.kind == "longtext")  # before strip(): it would hide a trailing line break
    value = value.strip() if spec.kind != "longtext" else value
    if spec.kind == "longtext":
        return value
    if spec.choices:
        allowed = [c for c, _ in spec.choices]
        if value == "" and spec.blank:
            return value  # an optional choice left empty (e.g. no switch model: type radix and speed)
        if value not in allowed:
            shown = ", ".join(c or "(empty)" for c in allowed)
            raise _Bad(f"{_show(raw)} is not a valid choice; choose from {shown}")
        return value
    if not value and not spec.blank:
        raise _Bad("required; this field may not be empty")
    if len(value) > spec.max_length:
        raise _Bad(f"at most {spec.max_length} characters (this has {len(value)})")
    if value and spec.pattern and not re.match(spec.pattern, value):
        raise _Bad(spec.pattern_message)
    return value


# A one-line field holds no control or format character, no line or paragraph separator and no lone
# surrogate (it reaches comment lines of shell, Slurm and YAML files; scheduling/quoting.py is the first
# wall); a free-text field may hold tabs and line breaks, nothing else of those. Characters of the Basic
# Multilingual Plane (every line break is there): the same character class is the API schema's pattern
# (designer/api/requirements_schema.py), so what the schema allows the field takes, and nothing else.
_NOT_PRINTABLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _bmp_class(categories: frozenset[str], keep: str = "") -> str:
    """A regex character-class body (``\\u0000-\\u001f…``) of the BMP characters in ``categories`` but ``keep``."""
    spans: list[list[int]] = []
    for code in range(0x10000):
        ch = chr(code)
        if unicodedata.category(ch) in categories and ch not in keep:
            if spans and spans[-1][1] == code - 1:
                spans[-1][1] = code
            else:
                spans.append([code, code])
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in spans)


NOT_ONE_LINE = _bmp_class(_NOT_PRINTABLE - {"Cs"})
"""What no one-line text field holds, as a character-class body for ``[^…]`` in Python and ECMA regexes; the API
schema's pattern. Lone surrogates (Cs) are refused too, but not named here: Rust's regex (jsonschema-rs, which
schemathesis validates with) cannot compile them, and the API's JSON parser refuses them before any field."""
NOT_FREE_TEXT = _bmp_class(_NOT_PRINTABLE - {"Cs"}, keep="\t\n\r")
"""What no free-text field holds (tabs and line breaks are allowed), as above."""
_SURROGATES = "\\ud800-\\udfff"
_BAD_ONE_LINE = re.compile(f"[{NOT_ONE_LINE}{_SURROGATES}]")
_BAD_FREE_TEXT = re.compile(f"[{NOT_FREE_TEXT}{_SURROGATES}]")


def _kind_of(ch: str) -> str:
    if "\ud800" <= ch <= "\udfff":
        return "a lone surrogate, not a character"
    return "a line break" if ch in "\n\r\v\f\x85\u2028\u2029" else "a control or format character"


def _printable(value: str, multiline: bool) -> None:
    bad = (_BAD_FREE_TEXT if multiline else _BAD_ONE_LINE).search(value)
    if bad:
        ch, where = bad.group(), "" if multiline else "one line of "
        raise _Bad(
            f"contains U+{ord(ch):04X} ({_kind_of(ch)}) at character {bad.start() + 1}; write {where}printable text"
        )


def _as_bool(spec: FieldSpec, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise _Bad(f"{_show(raw)} is not yes or no; use true or false")


_PARSERS = {
    "bool": _as_bool,
    "int": _as_int,
    "real": _as_real,
    "money": _as_money,
    "text": _as_text,
    "longtext": _as_text,
}


def money_pattern(spec: FieldSpec) -> str:
    """An amount as a JSON string: digits, at most ``decimal_places`` decimals, within the maximum (a power of 10)."""
    top = int(spec.maximum)
    digits = len(str(top)) - 1
    assert top == 10**digits, "money maxima are powers of ten"
    places = spec.decimal_places
    return rf"^([0-9]{{1,{digits}}}(\.[0-9]{{1,{places}}})?|{top}(\.0{{1,{places}}})?)$"


_JSON_KIND = {
    "int": "a whole number",
    "real": "a number",
    "bool": "true or false",
    "text": "text in quotes",
    "longtext": "text in quotes",
    "money": "an amount",
}


def _strict(spec: FieldSpec, raw: Any) -> None:
    """JSON values as the API schema states them: no numbers in quotes, no text for booleans."""
    kind = spec.kind
    if isinstance(raw, bool):
        ok = kind == "bool"
    elif kind == "int":
        ok = isinstance(raw, int) or (isinstance(raw, float | Decimal) and math.isfinite(raw) and raw == int(raw))
    elif kind == "real":
        ok = isinstance(raw, int | float | Decimal)
    elif kind == "money":
        ok = isinstance(raw, int | Decimal | str)
        shown = f"digits with at most {spec.decimal_places} decimals, at most {_show_max(spec)}"
        if isinstance(raw, str) and not re.match(money_pattern(spec), raw):
            raise _Bad(f'{_show(raw)} is not an amount: {shown}, e.g. "{spec.default}" or {spec.default}')
    elif kind in ("text", "longtext"):
        ok = isinstance(raw, str)
        if ok and kind == "text" and len(raw) > (spec.max_length or 10**9):
            raise _Bad(f"at most {spec.max_length} characters (this has {len(raw)})")
        if ok and spec.choices and raw not in [c for c, _ in spec.choices] and not (raw == "" and spec.blank):
            shown = ", ".join(c or "(empty)" for c, _ in spec.choices)
            raise _Bad(f"{_show(raw)} is not a valid choice; choose from {shown}")
    else:  # bool
        ok = False
    if not ok:
        raise _Bad(f"{_show(raw)} is not {_JSON_KIND.get(kind, 'valid')}")


def _show_max(spec: FieldSpec) -> str:
    return f"{int(spec.maximum):,}"


def parse_field(field: Field, raw: Any, strict: bool = False) -> Any:
    """One raw value → its typed value, or _Bad with the message. Empty means 'not given' when optional.

    ``strict``: the value came as JSON through the API, so it must have the JSON type the schema states
    (forms and YAML files may write numbers as text)."""
    spec = field.spec
    if strict and raw is None and not spec.nullable:
        raise _Bad(f"null: give a value (the default is {spec.default!r}) or leave the field out")
    if strict and raw is not None:
        _strict(spec, raw)
    if raw is None or (isinstance(raw, str) and raw.strip() == "" and spec.kind not in ("text", "longtext")):
        if spec.nullable:
            return None
        if spec.kind in ("text", "longtext") and spec.blank:
            return ""
        raise _Bad(f"required; the default is {spec.default}")
    return _PARSERS[spec.kind](spec, raw)


def validate_flat(data: Mapping[str, Any], given: Iterable[str] | None = None, strict: bool = False) -> Requirements:
    """Flat raw values → Requirements; missing fields take their defaults.

    ``given``: the fields the user typed (default: the keys of ``data``) — a switch model
    only overrides the radix and port speed the user did not type. ``strict``: JSON types (the API).
    The error is ``unprocessable`` when every value parsed and only rules between fields refuse.
    """
    values: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for name in data:
        if name not in FIELD_BY_FLAT:
            errors[name] = ["unknown field"]
    for f in FIELDS:
        if f.flat not in data:
            values[f.flat] = f.spec.default
            continue
        try:
            values[f.flat] = parse_field(f, data[f.flat], strict)
            if f.flat == "wl_classes":
                _parse_classes(values[f.flat])
        except _Bad as exc:
            errors[f.flat] = [str(exc)]
    malformed = bool(errors)
    typed = set(data if given is None else given)
    for name, message in _cross_field_errors(values, typed, errors).items():
        errors.setdefault(name, []).append(message)
    if errors:
        raise RequirementsError(errors, unprocessable=not malformed)
    return Requirements.from_flat(values)


def _cross_field_errors(v: dict[str, Any], given: set[str], bad: Mapping[str, Any]) -> dict[str, str]:
    """Checks between fields (only between fields that parsed). May fill values the user left out."""
    errors: dict[str, str] = {}
    model = v.get("switch_model") or ""
    if model and "switch_model" not in bad:
        m = SWITCH_MODELS[model]
        for name, value in (("switch_radix", m.radix), ("switch_port_gbps", float(m.port_gbps))):
            if name in bad:
                continue
            if name not in given:
                v[name] = value
            elif v[name] != value:
                errors[name] = (
                    f"{model} has {value:g} here; clear the switch model to type your own "
                    f"{'port count' if name == 'switch_radix' else 'port speed'}"
                )
    raid = ("storage_raid_data_drives", "storage_raid_parity_drives", "storage_drives_per_node")
    if not set(raid) & set(bad):
        data, parity, drives = (v[n] for n in raid)
        if data + parity > drives:
            errors["storage_raid_data_drives"] = (
                f"a RAID group of {data}+{parity} needs {data + parity} drives; a server has {drives}"
            )
    if not {"wl_classes", "wl_arrival", "wl_jobs_per_day", "wl_preempt", "wl_policy"} & set(bad):
        _workload_errors(v, errors)
    if {"gpu_count", "gpus_per_node"} & set(bad):
        return errors
    _rack_scale(v, given, errors)
    if errors.keys() & {"gpus_per_node", "gpu_count"}:
        return errors
    per, gpus = v["gpus_per_node"], v["gpu_count"]
    if "nics_per_node" not in given and "gpus_per_node" in given:
        v["nics_per_node"] = per
    if gpus % per:
        errors["gpu_count"] = (
            f"{gpus:,} GPUs do not fill whole nodes of {per}; use a multiple of {per} "
            f"(e.g. {gpus - gpus % per:,} or {gpus - gpus % per + per:,})"
        )
    return errors


def _rack_scale(v: dict[str, Any], given: set[str], errors: dict[str, str]) -> None:
    """A rack-scale NVLink system (GB200/GB300 NVL72): a node is a compute tray, GPUs come in whole racks."""
    system = rack_scale_system(v.get("gpu_model") or "")
    if system is None:
        return
    if "gpus_per_node" not in given:
        v["gpus_per_node"] = system.gpus_per_tray
        if "nics_per_node" not in given:
            v["nics_per_node"] = system.gpus_per_tray
    elif v["gpus_per_node"] != system.gpus_per_tray:
        errors["gpus_per_node"] = (
            f"a {system.name} node is a compute tray of {system.gpus_per_tray} GPUs; "
            f"set {system.gpus_per_tray} (or leave it empty)"
        )
        return
    gpus, dom = v["gpu_count"], system.domain_gpus
    if gpus % dom:
        low = gpus - gpus % dom
        errors["gpu_count"] = (
            f"{system.name} comes in whole racks of {dom} GPUs (one NVLink domain each); {gpus:,} is not a "
            f"multiple of {dom}: use " + (f"{low:,} or " if low else "") + f"{low + dom:,}"
        )


def flatten(data: Any) -> dict[str, Any]:
    """Nested file/API layout → flat raw values. Unknown keys are errors, not ignored."""
    flat, errors, rules = _flatten(data)
    if errors or rules:
        raise RequirementsError({**rules, **errors}, unprocessable=not errors)
    return flat


NODE_COUNT_MAX = int(FIELD_BY_FLAT["gpu_count"].spec.maximum)


def flat_values(data: Any, strict: bool = False) -> dict[str, Any]:
    """Nested requirements → their flat raw values as far as they flatten (what does not is :func:`validate`'s to
    report)."""
    return _flatten(data, strict)[0]


def _flatten(data: Any, strict: bool = False) -> tuple[dict[str, Any], dict[str, list[str]], dict[str, list[str]]]:
    """→ (flat values, malformed-value errors, rule errors between well-formed values)."""
    if not isinstance(data, dict):
        return {}, {"non_field_errors": ["requirements must be a mapping of fields"]}, {}
    flat: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    rules: dict[str, list[str]] = {}
    node_count = data.get("node_count")
    for key, value in data.items():
        if key in _PATH_SECTIONS:
            _flatten_section(key, value, flat, errors)
        elif key == "node_count":
            continue
        elif key in FIELD_BY_FLAT and FIELD_BY_FLAT[key].path_section == "":
            flat[key] = value
        else:
            errors[key] = [f"unknown field {key!r}"]
    if "torus_dims" in flat and flat["torus_dims"] is None:
        flat["torus_dims"] = ""
    dims = flat.get("torus_dims")
    if isinstance(dims, list | tuple):
        if len(dims) == 3 and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 100_000 for d in dims):
            flat["torus_dims"] = "x".join(str(d) for d in dims)
        else:
            errors["torus_dims"] = [
                f"{list(dims)!r}: a list takes three whole numbers from 1 to 100,000, e.g. [16, 16, 16]"
            ]
            del flat["torus_dims"]
    _flatten_classes(flat, errors, strict)
    _apply_node_count(node_count, flat, errors, rules, present="node_count" in data)
    return flat, errors, rules


def _flatten_classes(flat: dict[str, Any], errors: dict[str, list[str]], strict: bool = False) -> None:
    """workload.classes: a list of mappings (or, in files, the text layout; null = none) → the stored text.
    ``strict`` (the API): a list, as its schema says."""
    value = flat.get("wl_classes", "")
    if strict and isinstance(value, str) and "wl_classes" in flat:
        errors["wl_classes"] = ['a list of job classes, e.g. [{"name": "pretraining", "share_pct": 40, …}]']
        del flat["wl_classes"]
    elif value is None:
        flat["wl_classes"] = ""
    elif isinstance(value, list):
        try:
            flat["wl_classes"] = classes_text(parse_classes(value)) if value else ""
        except SchedulerInputError as exc:
            errors["wl_classes"] = list(exc.errors.values())
            del flat["wl_classes"]


def _parse_classes(text: str) -> None:
    """The job-class table must parse (a malformed value); whether the classes make sense is a rule below."""
    if text.strip():
        try:
            parse_classes(text)
        except SchedulerInputError as exc:
            raise _Bad("; ".join(exc.errors.values())) from None


def _workload_errors(v: dict[str, Any], errors: dict[str, str]) -> None:
    """The job classes on their own (shares add up to 100 %, sizes and durations in order); against the
    batch partition once the pipeline knows it (cluster/simulation.py). Jobs per day when asked for."""
    if v.get("wl_arrival") == "jobs_per_day" and v.get("wl_jobs_per_day") is None:
        errors["wl_jobs_per_day"] = "arrival is jobs per day: give how many"
    if v.get("wl_preempt") and v.get("wl_policy") == "fifo":
        errors["wl_preempt"] = "preemption orders the queue by class: use the easy policy"
    text = v.get("wl_classes") or ""
    if not isinstance(text, str) or not text.strip():
        return
    try:
        check_profile(Profile(parse_classes(text)), None)
    except SchedulerInputError as exc:
        errors["wl_classes"] = "; ".join(_class_message(k, m) for k, m in exc.errors.items())


def _class_message(key: str, message: str) -> str:
    """'classes.1.min_gpus' → 'class 2: min_gpus …' (the form shows every class in one field)."""
    parts = key.split(".")
    if len(parts) == 3:
        return f"class {int(parts[1]) + 1}: {parts[2]} {message}"
    return message


def _flatten_section(key: str, value: Any, flat: dict[str, Any], errors: dict[str, list[str]]) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        errors[key] = [f"{key} must be a mapping of fields"]
        return
    keys = {f.key: f for f in FIELDS if f.path_section == key}
    for sub, sub_value in value.items():
        if sub in keys:
            flat[keys[sub].flat] = sub_value
        else:
            errors[f"{key}.{sub}"] = [f"unknown field; {key} takes {', '.join(keys)}"]


def _apply_node_count(
    node_count: Any,
    flat: dict[str, Any],
    errors: dict[str, list[str]],
    rules: dict[str, list[str]],
    present: bool = False,
) -> None:
    if "gpu_count" not in flat and node_count is None:
        errors["gpu_count"] = ["give gpu_count or node_count"]
    if node_count is None:
        if present:
            errors["node_count"] = ["null: give a whole number of nodes, or leave node_count out"]
        return
    per = flat.get("gpus_per_node", 8)
    if not isinstance(node_count, int) or isinstance(node_count, bool) or not 1 <= node_count <= NODE_COUNT_MAX:
        errors["node_count"] = [f"must be a whole number from 1 to {NODE_COUNT_MAX:,}, got {node_count!r}"]
    elif not isinstance(per, int) or isinstance(per, bool):
        pass  # the field check reports gpus_per_node
    elif "gpu_count" in flat and flat["gpu_count"] != node_count * per:
        rules["node_count"] = [
            f"{node_count:,} nodes × {per} GPUs = {node_count * per:,}, not gpu_count {flat['gpu_count']}"
        ]
    elif node_count * per > NODE_COUNT_MAX:
        rules["node_count"] = [
            f"{node_count:,} nodes × {per} GPUs = {node_count * per:,} GPUs, more than the "
            f"{NODE_COUNT_MAX:,} a design may have"
        ]
    else:
        flat["gpu_count"] = node_count * per


def validate(data: Any, strict: bool = False) -> Requirements:
    """Nested (file/API) requirements → Requirements; all errors at once, under the dotted paths typed.

    ``strict``: JSON types as the API schema states them (see :func:`parse_field`)."""
    flat, errors, rules = _flatten(data, strict)
    unprocessable = not errors
    try:
        r = validate_flat(flat, strict=strict)
    except RequirementsError as exc:
        unprocessable = unprocessable and exc.unprocessable
        errors = {**exc.errors, **rules, **errors}
        if "gpu_count" in errors and "give gpu_count or node_count" in errors["gpu_count"]:
            errors["gpu_count"] = ["give gpu_count or node_count"]
    else:
        if not errors and not rules:
            return r
        errors = {**rules, **errors}
    raise RequirementsError({field_path(k): v for k, v in errors.items()}, unprocessable=unprocessable)


def from_form_strings(data: Mapping[str, Any]) -> dict[str, Any]:
    """Flat values as a browser sends them: the requirement fields only (csrf tokens etc. dropped)."""
    return {name: value for name, value in data.items() if name in FIELD_BY_FLAT}


def load_requirements_file(path: Path) -> Any:
    """Read a YAML (or JSON) requirements file; syntax errors, nesting deeper than 64 levels and aliases that
    expand past 100,000 values (cluster/yaml_input.py) become errors on 'file'."""
    import yaml

    from cluster.yaml_input import YamlInputError, load_yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RequirementsError({"file": [f"cannot read {path}: {exc.strerror}"]}) from None
    except UnicodeDecodeError as exc:
        raise RequirementsError({"file": [f"{path} is not UTF-8 text: {exc.reason} at byte {exc.start}"]}) from None
    try:
        return load_yaml(text)
    except YamlInputError as exc:
        raise RequirementsError({"file": [f"{path}: {exc}"]}) from None
    except yaml.YAMLError as exc:
        raise RequirementsError({"file": [f"{path} is not valid YAML: {exc}"]}) from None
