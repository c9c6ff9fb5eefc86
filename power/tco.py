"""Total cost of ownership: CapEx, OpEx per year, the N-year total, cost per GPU-hour.

Seed chapter Table 14-26 (seed-figures.md D15), 5 years: CapEx $82,341,600 (GPU nodes
$62.5M, storage $2.8M, network $10,791,600, management $250k, liquid cooling $3.5M,
facility $2M, software licences $500k); OpEx $3,647,523 a year (electricity $1,947,523,
5 operations FTE $1M, spares & maintenance $500k, software $200k); 5-year total
$100,579,215. Money is Decimal; each line is rounded to whole dollars, as the table is.
An optional discount rate gives the present value of the OpEx stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from power import PowerInputError

USD = Decimal("1")


def _usd(x: Decimal) -> Decimal:
    return x.quantize(USD, ROUND_HALF_UP)


@dataclass(frozen=True)
class CostLine:
    name: str
    amount_usd: Decimal
    derivation: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "amount_usd": str(self.amount_usd), "derivation": self.derivation}


@dataclass(frozen=True)
class TcoInputs:
    capex: tuple[CostLine, ...]
    opex_per_year: tuple[CostLine, ...]
    years: int = 5
    gpu_count: int = 1
    utilisation_frac: float = 0.8
    discount_rate_frac: float = 0.0

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}
        if not 1 <= self.years <= 30:
            errors["tco_years"] = f"must be 1 to 30 years, got {self.years}"
        if not 0 < self.utilisation_frac <= 1:
            errors["tco_utilisation_frac"] = f"must be a fraction in (0, 1], got {self.utilisation_frac}"
        if not 0 <= self.discount_rate_frac < 1:
            errors["discount_rate_pct"] = f"must be 0 to 100 %, got {self.discount_rate_frac * 100:g}"
        for line in (*self.capex, *self.opex_per_year):
            if line.amount_usd < 0:
                errors[line.name] = f"cannot be negative, got {line.amount_usd}"
        if errors:
            raise PowerInputError(errors)


@dataclass(frozen=True)
class Tco:
    capex: tuple[CostLine, ...]
    opex_per_year: tuple[CostLine, ...]
    years: int
    capex_usd: Decimal
    opex_usd_per_year: Decimal
    total_usd: Decimal
    present_value_usd: Decimal
    cost_per_gpu_hour_usd: Decimal
    cumulative_usd: tuple[Decimal, ...]
    derivations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "capex": [c.to_dict() for c in self.capex],
            "opex_per_year": [c.to_dict() for c in self.opex_per_year],
            "years": self.years,
            "capex_usd": str(self.capex_usd),
            "opex_usd_per_year": str(self.opex_usd_per_year),
            "total_usd": str(self.total_usd),
            "present_value_usd": str(self.present_value_usd),
            "cost_per_gpu_hour_usd": str(self.cost_per_gpu_hour_usd),
            "cumulative_usd": [str(x) for x in self.cumulative_usd],
            "derivations": dict(self.derivations),
        }


def total_cost_of_ownership(t: TcoInputs) -> Tco:
    capex = sum((c.amount_usd for c in t.capex), Decimal(0))
    opex = sum((c.amount_usd for c in t.opex_per_year), Decimal(0))
    total = capex + opex * t.years
    r = Decimal(str(t.discount_rate_frac))
    pv = capex + sum((opex / (1 + r) ** y for y in range(1, t.years + 1)), Decimal(0))
    gpu_hours = Decimal(t.gpu_count) * 8760 * t.years * Decimal(str(t.utilisation_frac))
    per_hour = (total / gpu_hours).quantize(Decimal("0.0001"), ROUND_HALF_UP)
    cumulative = tuple(capex + opex * y for y in range(0, t.years + 1))
    d = {
        "capex_usd": " + ".join(f"{c.name} ${c.amount_usd:,}" for c in t.capex) + f" = ${capex:,}",
        "opex_usd_per_year": " + ".join(f"{c.name} ${c.amount_usd:,}" for c in t.opex_per_year) + f" = ${opex:,}",
        "total_usd": f"${capex:,} + {t.years} × ${opex:,} = ${total:,}",
        "present_value_usd": (
            f"${capex:,} + Σ ${opex:,} ÷ (1 + {t.discount_rate_frac:g})^y, y = 1…{t.years} = ${_usd(pv):,}"
            if t.discount_rate_frac
            else "no discount rate: equals the total"
        ),
        "cost_per_gpu_hour_usd": (
            f"${total:,} ÷ ({t.gpu_count:,} GPUs × 8,760 h × {t.years} years × {t.utilisation_frac:g} utilisation) "
            f"= ${per_hour}/GPU-hour"
        ),
    }
    return Tco(t.capex, t.opex_per_year, t.years, capex, opex, total, _usd(pv), per_hour, cumulative, d)


def line(name: str, amount: Decimal, derivation: str) -> CostLine:
    return CostLine(name, _usd(amount), derivation)
