"""Pure power, rack, cooling, TCO and carbon models (no Django). Errors raise PowerInputError."""

from __future__ import annotations

from collections.abc import Mapping


class PowerInputError(ValueError):
    """Inputs the power models refuse, keyed by field, each with what is allowed."""

    def __init__(self, errors: Mapping[str, str]):
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))

    @classmethod
    def single(cls, field: str, message: str) -> PowerInputError:
        return cls({field: message})


def require_positive(errors: dict[str, str], **values: float | None) -> None:
    for name, value in values.items():
        if value is None or not value > 0:
            errors[name] = f"must be positive, got {value}"


def require_fraction(errors: dict[str, str], **values: float) -> None:
    for name, value in values.items():
        if not 0 < value <= 1:
            errors[name] = f"must be a fraction in (0, 1], got {value}"
