"""Cooling: the type the rack density needs, CDUs, coolant flow and heat rejection.

Seed chapter (seed-figures.md P3, D13): air holds ≈30–40 kW per rack (up to ≈60 kW with
containment / rear-door exchangers), direct-to-chip liquid ≈70 kW and beyond, immersion
≈100 kW and beyond. Coolant flow from Q = ṁ·c·ΔT. The chapter's 1,000 L/min for 2.78 MW
at ΔT = 13 K is inconsistent: water needs ≈3,070 L/min for that heat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from power import PowerInputError

# Highest rack density [kW] each cooling type holds (seed P3: air ≈30–40 kW, up to ≈60 kW with
# containment; the GB200 NVL72's ≈120–132 kW racks are cooled direct-to-chip, so that limit is set
# above them). Air is set at 41 kW: NVIDIA's air-cooled DGX H100 SuperPOD puts four DGX H100 per
# rack, 4 × 10.2 kW = 40.8 kW (DGX SuperPOD Data Center Design, DGX H100, "Planning").
MAX_RACK_KW: dict[str, float] = {"air": 41.0, "air_containment": 60.0, "direct_to_chip": 140.0, "immersion": 250.0}
COOLING_ORDER = ("air", "air_containment", "direct_to_chip", "immersion")
# Share of IT heat the liquid loop captures (the rest goes to room air).
LIQUID_CAPTURE_FRAC: dict[str, float] = {"air": 0.0, "air_containment": 0.0, "direct_to_chip": 0.8, "immersion": 1.0}


@dataclass(frozen=True)
class Fluid:
    name: str
    specific_heat_kj_per_kg_k: float
    density_kg_per_l: float


FLUIDS = {
    "water": Fluid("water", 4.18, 0.993),  # at ≈38 °C, mid-way between 32 °C supply and 45 °C return
    "pg25": Fluid("propylene glycol 25 %", 3.90, 1.020),
}


def coolant_flow_l_per_min(heat_kw: float, delta_t_k: float, fluid: Fluid) -> float:
    """ṁ = Q ÷ (c·ΔT) [kg/s] → litres per minute."""
    kg_s = heat_kw / (fluid.specific_heat_kj_per_kg_k * delta_t_k)
    return kg_s / fluid.density_kg_per_l * 60


def default_rack_budget_kw(cooling_type: str, liquid_only: bool) -> tuple[float, str]:
    """The rack budget when the user leaves it empty: what the cooling type holds (when that is empty too:
    air, or direct-to-chip liquid for a rack-scale system that must be liquid cooled)."""
    kind = cooling_type or ("direct_to_chip" if liquid_only else "air")
    why = f"left empty: the {kind.replace('_', ' ')} limit of {MAX_RACK_KW[kind]:g} kW per rack"
    if not cooling_type:
        why += (
            " (cooling left empty too: a rack-scale NVLink system is liquid cooled, seed §14.7)"
            if liquid_only
            else " (cooling left empty too: air, the least intensive)"
        )
    return MAX_RACK_KW[kind], why


def cooling_for_density(rack_kw: float) -> str:
    for kind in COOLING_ORDER:
        if rack_kw <= MAX_RACK_KW[kind]:
            return kind
    raise PowerInputError.single(
        "rack_budget_kw",
        f"{rack_kw:g} kW per rack is beyond every cooling type here (max "
        f"{MAX_RACK_KW['immersion']:g} kW); lower the rack budget",
    )


@dataclass(frozen=True)
class CoolingRequest:
    """Every figure but the redundancy comes from the requirements (power/plan.py): no policy defaults here."""

    rack_kw: float
    it_kw: float
    facility_kw: float
    cooling_type: str  # empty: the least intensive type that holds the rack density
    supply_c: float
    return_c: float
    fluid: str
    cdu_unit_kw: float
    heat_rejection_unit_kw: float
    redundancy: int = 1  # N+1 (the requirements have no field for it: every plan is N+1)


@dataclass(frozen=True)
class CoolingPlan:
    cooling_type: str
    chosen_automatically: bool
    liquid_heat_kw: float
    cdu_count: int
    coolant_flow_l_per_min: float
    heat_rejection_unit_count: int
    derivations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "cooling_type": self.cooling_type,
            "chosen_automatically": self.chosen_automatically,
            "liquid_heat_kw": round(self.liquid_heat_kw, 3),
            "cdu_count": self.cdu_count,
            "coolant_flow_l_per_min": round(self.coolant_flow_l_per_min, 1),
            "heat_rejection_unit_count": self.heat_rejection_unit_count,
            "derivations": dict(self.derivations),
        }


def plan_cooling(req: CoolingRequest) -> CoolingPlan:
    errors: dict[str, str] = {}
    if req.cooling_type and req.cooling_type not in MAX_RACK_KW:
        errors["cooling_type"] = f"choose one of {', '.join(COOLING_ORDER)} (or leave empty to choose by density)"
    if req.return_c <= req.supply_c:
        errors["coolant_return_c"] = (
            f"the return ({req.return_c:g} °C) must be warmer than the supply ({req.supply_c:g} °C)"
        )
    if req.fluid not in FLUIDS:
        errors["coolant_fluid"] = f"choose one of {', '.join(FLUIDS)}"
    for name in ("cdu_unit_kw", "heat_rejection_unit_kw"):
        if not getattr(req, name) > 0:
            errors[name] = f"must be positive, got {getattr(req, name)}"
    if req.redundancy < 0:
        errors["redundancy"] = "must be ≥ 0"
    if errors:
        raise PowerInputError(errors)
    auto = not req.cooling_type
    kind = cooling_for_density(req.rack_kw) if auto else req.cooling_type
    if req.rack_kw > MAX_RACK_KW[kind]:
        better = cooling_for_density(req.rack_kw)
        raise PowerInputError.single(
            "cooling_type",
            f"{kind.replace('_', ' ')} cooling holds about {MAX_RACK_KW[kind]:g} kW per rack; these racks draw "
            f"{req.rack_kw:,.1f} kW. Choose {better.replace('_', ' ')} (or lower the rack power budget)",
        )
    fluid = FLUIDS[req.fluid]
    dt = req.return_c - req.supply_c
    capture = LIQUID_CAPTURE_FRAC[kind]
    liquid_kw = req.it_kw * capture
    flow = coolant_flow_l_per_min(liquid_kw, dt, fluid) if liquid_kw else 0.0
    n = math.ceil(liquid_kw / req.cdu_unit_kw - 1e-9) if liquid_kw else 0
    cdus = n + req.redundancy if n else 0
    heat = req.it_kw  # all IT heat leaves the building through the heat-rejection plant
    m = math.ceil(heat / req.heat_rejection_unit_kw - 1e-9)
    chapter_flow = coolant_flow_l_per_min(req.facility_kw, dt, fluid)
    d = {
        "cooling_type": (
            f"{req.rack_kw:,.1f} kW per rack → {kind.replace('_', ' ')} (holds ≈{MAX_RACK_KW[kind]:g} kW per rack)"
            + (" — chosen by density" if auto else " — as chosen")
        ),
        "liquid_heat_kw": f"{req.it_kw:,.1f} kW IT × {capture:.0%} captured by liquid = {liquid_kw:,.1f} kW",
        "cdu_count": (
            f"⌈{liquid_kw:,.0f} kW ÷ {req.cdu_unit_kw:,.0f} kW per CDU⌉ = {n} + {req.redundancy} "
            f"redundant = {cdus} (N+{req.redundancy})"
            if liquid_kw
            else "no liquid loop"
        ),
        "coolant_flow_l_per_min": (
            f"Q = ṁ·c·ΔT: {liquid_kw:,.0f} kW ÷ ({fluid.specific_heat_kj_per_kg_k} kJ/kg·K × {dt:g} K) = "
            f"{liquid_kw / (fluid.specific_heat_kj_per_kg_k * dt):,.1f} kg/s ÷ {fluid.density_kg_per_l} kg/L = "
            f"{flow:,.0f} L/min of {fluid.name} ({req.supply_c:g} °C supply, {req.return_c:g} °C return). "
            f"The chapter's 1,000 L/min cannot carry its own 2.78 MW at ΔT {dt:g} K: the facility's "
            f"{req.facility_kw:,.0f} kW would need {chapter_flow:,.0f} L/min"
            if liquid_kw
            else "air cooled: no coolant loop"
        ),
        "heat_rejection_unit_count": (
            f"⌈{heat:,.0f} kW ÷ {req.heat_rejection_unit_kw:,.0f} kW per dry cooler / tower⌉ = {m} + "
            f"{req.redundancy} = {m + req.redundancy}"
        ),
    }
    return CoolingPlan(kind, auto, liquid_kw, cdus, flow, m + req.redundancy, d)
