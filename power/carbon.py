"""Energy and CO₂ of a training run and of a year of operation.

Seed chapter (seed-figures.md P6): 2,000 × H100 × 700 W × 0.9 utilisation × 0.7 average
power ÷ TDP = 882 kW; × PUE 1.1 = 970.2 kW; × 90 days (2,160 h) = 2,095,632 kWh; at
0.4 kg CO₂/kWh → 838 t, at 0.01 kg/kWh → 21 t.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from power import PowerInputError, require_fraction


@dataclass(frozen=True)
class TrainingRun:
    gpu_count: int
    gpu_tdp_w: float
    utilisation_frac: float
    power_frac: float  # average draw ÷ TDP while busy
    pue: float
    days: float
    grid_kg_co2_per_kwh: float

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}
        if self.gpu_count < 1:
            errors["gpu_count"] = "must be at least 1"
        if not self.gpu_tdp_w > 0:
            errors["gpu_tdp_w"] = f"must be positive, got {self.gpu_tdp_w}"
        require_fraction(errors, run_utilisation_frac=self.utilisation_frac, run_power_frac=self.power_frac)
        if self.pue < 1:
            errors["pue"] = f"cannot be below 1, got {self.pue}"
        if not self.days > 0:
            errors["run_days"] = f"must be positive, got {self.days}"
        if self.grid_kg_co2_per_kwh < 0:
            errors["grid_kg_co2_per_kwh"] = f"must be ≥ 0, got {self.grid_kg_co2_per_kwh}"
        if errors:
            raise PowerInputError(errors)


@dataclass(frozen=True)
class RunFootprint:
    it_kw: float
    facility_kw: float
    hours: float
    energy_kwh: float
    co2_t: float
    derivations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "it_kw": round(self.it_kw, 3),
            "facility_kw": round(self.facility_kw, 3),
            "hours": self.hours,
            "energy_kwh": round(self.energy_kwh, 1),
            "co2_t": round(self.co2_t, 3),
            "derivations": dict(self.derivations),
        }


def training_run_footprint(run: TrainingRun) -> RunFootprint:
    it_kw = run.gpu_count * run.gpu_tdp_w * run.utilisation_frac * run.power_frac / 1000
    fac = it_kw * run.pue
    hours = run.days * 24
    kwh = fac * hours
    t = kwh * run.grid_kg_co2_per_kwh / 1000
    d = {
        "it_kw": f"{run.gpu_count:,} GPUs × {run.gpu_tdp_w:g} W × {run.utilisation_frac:g} utilisation × "
        f"{run.power_frac:g} power ÷ TDP = {it_kw:,.1f} kW",
        "facility_kw": f"{it_kw:,.1f} kW × PUE {run.pue:g} = {fac:,.1f} kW",
        "energy_kwh": f"{fac:,.1f} kW × {run.days:g} days × 24 h = {kwh:,.0f} kWh",
        "co2_t": f"{kwh:,.0f} kWh × {run.grid_kg_co2_per_kwh:g} kg CO₂/kWh = {t:,.1f} t CO₂",
    }
    return RunFootprint(it_kw, fac, hours, kwh, t, d)


def annual_co2_t(annual_kwh: float, grid_kg_co2_per_kwh: float) -> float:
    return annual_kwh * grid_kg_co2_per_kwh / 1000
