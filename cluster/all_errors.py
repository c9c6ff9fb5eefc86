"""Every field's error at once (pure: no Django).

Values that do not parse (a negative GPU count, a PUE below 1) are refused before anything is planned, so the
engine's own refusals — a NIC faster than the switch ports, a fabric that does not fit — would only show after
the user fixed the first ones, one round trip per layer. Here, when some values are refused, the fields that did
parse are planned once more on their own (the refused ones take their defaults) and the engine's refusals on
*those* fields join the list. A refusal on a field that was itself refused, or on a field the user did not type,
is left out: it could be the default's doing, not the user's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cluster.requirements import FIELD_BY_FLAT, Requirements, field_path
from cluster.validate import RequirementsError, flat_values, validate_flat

Planner = Callable[[Requirements], object]
"""Plans validated requirements, raising :class:`RequirementsError` on the field that refuses."""


def beside_flat(
    exc: RequirementsError, flat: Mapping[str, Any], plan: Planner, strict: bool = False
) -> RequirementsError:
    """``exc`` (flat field names) with the engine's refusals on the other typed fields added."""
    bad = set(exc.errors)
    extra = _engine_errors(flat, bad, plan, strict)
    if not extra:
        return exc
    return RequirementsError({**exc.errors, **extra}, unprocessable=exc.unprocessable)


def beside_nested(exc: RequirementsError, data: Any, plan: Planner, strict: bool = False) -> RequirementsError:
    """``exc`` (dotted paths, as a file or the API types them) with the engine's refusals on the other fields."""
    flat = flat_values(data, strict)
    bad = {name for name in flat if name in exc.errors or field_path(name) in exc.errors}
    extra = _engine_errors(flat, bad, plan, strict)
    if not extra:
        return exc
    return RequirementsError(
        {**exc.errors, **{field_path(k): v for k, v in extra.items()}}, unprocessable=exc.unprocessable
    )


def _engine_errors(flat: Mapping[str, Any], bad: set[str], plan: Planner, strict: bool) -> dict[str, list[str]]:
    kept = {k: v for k, v in flat.items() if k in FIELD_BY_FLAT and k not in bad}
    if not bad or not kept:
        return {}
    try:
        plan(validate_flat(kept, strict=strict))
    except RequirementsError as more:
        return {k: v for k, v in more.errors.items() if k in kept}
    return {}
