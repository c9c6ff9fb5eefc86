"""How one requirement field is declared: its kind, default, range, choices and help.

A section dataclass (cluster/requirements.py) declares its fields with these helpers; the
metadata is read by the validator (cluster/validate.py), by the Django model that stores
revisions (designer/models.py builds its columns from it) and by the form, so a field is
declared in exactly one place.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class FieldSpec:
    """What a field accepts. ``flat`` is its name in forms and stored revisions."""

    kind: str  # "int" | "real" | "money" | "text" | "longtext" | "bool"
    help: str
    default: Any = None
    nullable: bool = False
    minimum: Any = None
    maximum: Any = None
    choices: tuple[tuple[Any, str], ...] = ()
    blank: bool = False  # text: "" allowed
    max_length: int = 0
    decimal_places: int = 2
    pattern: str = ""
    pattern_message: str = ""
    small: bool = False  # stored as a small integer
    flat: str = ""

    @property
    def allowed(self) -> str:
        return f"allowed: {_number(self.minimum)} to {_number(self.maximum)}"


def _number(x: Any) -> str:
    """10,000,000 rather than 1e+07; 0.001 and 1e+09 kW stay as written."""
    if float(x) == int(x) and abs(x) < 10**15:
        return f"{int(x):,}"
    return f"{x:,g}"


def _field(spec: FieldSpec) -> Any:
    return dataclasses.field(default=spec.default, metadata={"spec": spec})


def pos_int(default: int, help: str, maximum: int = 10_000_000, minimum: int = 1, flat: str = "") -> Any:
    """A whole number with a default (``minimum`` may be 0)."""
    return _field(FieldSpec("int", help, default, minimum=minimum, maximum=maximum, flat=flat))


def opt_int(help: str, maximum: int = 100_000, minimum: int = 1, flat: str = "") -> Any:
    """A whole number that may be left empty (None: the engine chooses)."""
    return _field(FieldSpec("int", help, None, nullable=True, minimum=minimum, maximum=maximum, flat=flat))


def real(default: float, help: str, minimum: float = 0.0, maximum: float = 1e9, flat: str = "") -> Any:
    return _field(FieldSpec("real", help, default, minimum=minimum, maximum=maximum, flat=flat))


def opt_real(help: str, minimum: float, maximum: float, flat: str = "") -> Any:
    return _field(FieldSpec("real", help, None, nullable=True, minimum=minimum, maximum=maximum, flat=flat))


def money(default: str, help: str, maximum: int = 10**12, places: int = 2, flat: str = "") -> Any:
    """A Decimal amount ≥ 0 with at most ``places`` decimals (prices are never floats)."""
    return _field(
        FieldSpec(
            "money",
            help,
            Decimal(default),
            minimum=Decimal(0),
            maximum=Decimal(maximum),
            decimal_places=places,
            flat=flat,
        )
    )


def opt_money(help: str, maximum: int = 10**12, flat: str = "") -> Any:
    return _field(
        FieldSpec("money", help, None, nullable=True, minimum=Decimal(0), maximum=Decimal(maximum), flat=flat)
    )


def choice(
    default: Any,
    help: str,
    choices: tuple[tuple[Any, str], ...],
    max_length: int = 20,
    blank: bool = False,
    flat: str = "",
) -> Any:
    return _field(FieldSpec("text", help, default, choices=choices, max_length=max_length, blank=blank, flat=flat))


def text(
    default: str,
    help: str,
    max_length: int = 200,
    blank: bool = False,
    pattern: str = "",
    pattern_message: str = "",
    flat: str = "",
) -> Any:
    return _field(
        FieldSpec(
            "text",
            help,
            default,
            max_length=max_length,
            blank=blank,
            pattern=pattern,
            pattern_message=pattern_message,
            flat=flat,
        )
    )


def long_text(default: str, help: str, flat: str = "") -> Any:
    return _field(FieldSpec("longtext", help, default, blank=True, flat=flat))


def flag(default: bool, help: str, flat: str = "") -> Any:
    """Yes or no (a checkbox in the form; true/false in files and the API)."""
    return _field(FieldSpec("bool", help, default, flat=flat))


def int_choice(default: int, help: str, choices: tuple[tuple[int, str], ...], flat: str = "") -> Any:
    """A whole number from a short list (stored as a small integer)."""
    return _field(FieldSpec("int", help, default, choices=choices, small=True, flat=flat))


def tier_choice(help: str, flat: str = "") -> Any:
    return _field(
        FieldSpec("int", help, None, nullable=True, choices=((1, "1"), (2, "2"), (3, "3")), small=True, flat=flat)
    )
