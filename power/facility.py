"""IT power and facility power, energy and electricity cost.

Seed chapter §14.8 (seed-figures.md D11, D12; P4, P5): IT power is the sum of compute,
storage, management/login and network; facility power = IT × PUE (÷ the electrical chain
efficiency when the PUE does not already include it); a year is 8,760 h.

The chapter's Table 14-26 rounds facility power to whole kW before multiplying by the
hours (2,573.5 kW × 1.08 = 2,779.38 → 2,779 kW → 24,344,040 kWh). Planning and utility
contracts state power in whole kW, so this model does the same and shows the exact
figure beside it; the difference is below 0.02 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from power import PowerInputError, require_fraction, require_positive

HOURS_PER_YEAR = 8760

PUE_BY_COOLING: dict[str, float] = {
    "air": 1.5,  # seed P4: legacy air 1.8–2.5, economised air 1.2–1.4; a typical modern air hall
    "air_containment": 1.35,
    "direct_to_chip": 1.08,  # seed P4: liquid 1.03–1.1; the chapter's design uses 1.08
    "immersion": 1.04,  # seed P4: immersion < 1.05
}

# The site-size rule for the PUE left empty. An air-cooled hall of a site this large is a purpose-built one
# with economiser (free) cooling, not a legacy computer room: seed P4 puts economised air at 1.2–1.4, and the
# best end is what large operators reach — Google reports a fleet-wide PUE of ≈1.10, counting only sites above
# 5 MW of IT load (google.com/corporate/green/datacenters/measuring.html; 1.10 for Q2 2021 against the Uptime
# Institute 2021 survey's 1.57 average for large data centres, CNBC 2022-04-13). The 20 MW threshold is an
# assumption: well above the seed's 2.6 MW design and a colocation hall, at the scale of a campus built for one
# cluster. Liquid cooling's PUE is already below it and stays as it is.
HYPERSCALE_SITE_IT_KW = 20_000.0
ECONOMISED_AIR_PUE = 1.2


def default_pue(cooling_type: str, it_kw: float) -> tuple[float, str]:
    """The PUE the cooling implies on a site of ``it_kw`` of IT load, and why."""
    typical = PUE_BY_COOLING[cooling_type]
    name = cooling_type.replace("_", " ")
    if it_kw >= HYPERSCALE_SITE_IT_KW and typical > ECONOMISED_AIR_PUE:
        return ECONOMISED_AIR_PUE, (
            f"IT load {it_kw:,.0f} kW ≥ {HYPERSCALE_SITE_IT_KW:,.0f} kW: a site of this size cools its {name} halls "
            f"with economisers (free cooling) — economised air 1.2–1.4 (seed P4), at its best end as large operators "
            f"measure ≈1.10 fleet-wide (Google, sites above 5 MW of IT) → PUE {ECONOMISED_AIR_PUE:g} "
            f"(a smaller site's {name}: {typical:g})"
        )
    return typical, f"typical for {name} cooling (seed P4): {typical:g}"


ELECTRICAL_CHAIN_EFFICIENCY: dict[str, float] = {
    "in_pue": 1.0,  # the PUE already counts conversion losses
    "ups_line_interactive": 0.98,  # seed P5
    "ups_double_conversion": 0.93,  # seed P5: 92–94 %
    "hvdc_240v": 0.94,  # seed P5: 240 V HVDC raises conversion efficiency 85 % → 94 %
    "legacy_ac": 0.85,
}


@dataclass(frozen=True)
class ItLoad:
    compute_node_count: int
    compute_node_w: float
    storage_node_count: int = 0
    storage_node_w: float = 0.0
    mgmt_node_count: int = 0
    mgmt_node_w: float = 0.0
    network_w: float = 0.0
    average_load_frac: float = 1.0
    scale_up_w: float = 0.0  # NVLink switch trays of rack-scale systems, counted with compute

    def __post_init__(self) -> None:
        errors: dict[str, str] = {}
        require_positive(errors, compute_node_w=self.compute_node_w)
        for name in ("storage_node_w", "mgmt_node_w", "network_w", "scale_up_w"):
            if getattr(self, name) < 0:
                errors[name] = f"must be ≥ 0, got {getattr(self, name)}"
        if self.compute_node_count < 1:
            errors["compute_node_count"] = f"must be at least 1, got {self.compute_node_count}"
        require_fraction(errors, average_load_frac=self.average_load_frac)
        if errors:
            raise PowerInputError(errors)


@dataclass(frozen=True)
class FacilityPower:
    compute_kw: float
    storage_kw: float
    mgmt_kw: float
    network_kw: float
    it_kw: float
    pue: float
    chain_efficiency: float
    facility_kw: float
    facility_kw_billed: int
    average_load_frac: float
    annual_kwh: float
    electricity_usd_per_kwh: Decimal
    annual_electricity_usd: Decimal
    derivations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "compute_kw": round(self.compute_kw, 3),
            "storage_kw": round(self.storage_kw, 3),
            "mgmt_kw": round(self.mgmt_kw, 3),
            "network_kw": round(self.network_kw, 3),
            "it_kw": round(self.it_kw, 3),
            "pue": self.pue,
            "chain_efficiency_frac": self.chain_efficiency,
            "facility_kw": round(self.facility_kw, 3),
            "facility_kw_billed": self.facility_kw_billed,
            "average_load_frac": self.average_load_frac,
            "annual_kwh": round(self.annual_kwh, 1),
            "electricity_usd_per_kwh": str(self.electricity_usd_per_kwh),
            "annual_electricity_usd": str(self.annual_electricity_usd),
            "derivations": dict(self.derivations),
        }


def it_power_kw(load: ItLoad) -> dict[str, float]:
    return {
        "compute": (load.compute_node_count * load.compute_node_w + load.scale_up_w) / 1000,
        "storage": load.storage_node_count * load.storage_node_w / 1000,
        "mgmt": load.mgmt_node_count * load.mgmt_node_w / 1000,
        "network": load.network_w / 1000,
    }


def facility_power_kw(it_kw: float, pue: float, chain_efficiency: float) -> float:
    """Facility power = IT × PUE ÷ electrical chain efficiency [kW]."""
    return it_kw * pue / chain_efficiency


def whole_dollars(x: Decimal) -> Decimal:
    return x.quantize(Decimal("1"), ROUND_HALF_UP)


def plan_facility(
    load: ItLoad,
    *,
    pue: float,
    electricity_usd_per_kwh: Decimal,
    chain: str = "in_pue",
    network_source: str = "",
) -> FacilityPower:
    errors: dict[str, str] = {}
    if not math.isfinite(pue) or pue < 1:
        errors["pue"] = f"PUE is facility ÷ IT power and cannot be below 1, got {pue}"
    if electricity_usd_per_kwh < 0:
        errors["electricity_usd_per_kwh"] = f"must be ≥ 0, got {electricity_usd_per_kwh}"
    if chain not in ELECTRICAL_CHAIN_EFFICIENCY:
        errors["electrical_chain"] = f"choose one of {', '.join(ELECTRICAL_CHAIN_EFFICIENCY)}"
    if errors:
        raise PowerInputError(errors)
    parts = it_power_kw(load)
    it = sum(parts.values())
    eff = ELECTRICAL_CHAIN_EFFICIENCY[chain]
    fac = facility_power_kw(it, pue, eff)
    billed = int(Decimal(str(fac)).quantize(Decimal("1"), ROUND_HALF_UP))
    kwh = billed * HOURS_PER_YEAR * load.average_load_frac
    cost = whole_dollars(Decimal(str(kwh)) * electricity_usd_per_kwh)
    d = {
        "compute_kw": f"{load.compute_node_count:,} nodes × {load.compute_node_w:,.0f} W = {parts['compute']:,.1f} kW",
        "storage_kw": f"{load.storage_node_count} × {load.storage_node_w:,.0f} W = {parts['storage']:,.1f} kW",
        "mgmt_kw": f"{load.mgmt_node_count} management + login × {load.mgmt_node_w:,.0f} W = {parts['mgmt']:,.1f} kW",
        "network_kw": f"{parts['network']:,.1f} kW {network_source}".strip(),
        "it_kw": " + ".join(f"{v:,.1f}" for v in parts.values()) + f" = {it:,.1f} kW (nameplate)",
        "facility_kw": (
            f"{it:,.1f} kW × PUE {pue:g}"
            + (f" ÷ {eff:g} electrical chain ({chain})" if eff != 1 else "")
            + f" = {fac:,.2f} kW, planned as {billed:,} kW"
        ),
        "annual_kwh": (
            f"{billed:,} kW × {HOURS_PER_YEAR:,} h"
            + (f" × {load.average_load_frac:g} average load" if load.average_load_frac != 1 else "")
            + f" = {kwh:,.0f} kWh/year"
        ),
        "annual_electricity_usd": f"{kwh:,.0f} kWh × ${electricity_usd_per_kwh}/kWh = ${cost:,} per year",
    }
    return FacilityPower(
        compute_kw=parts["compute"],
        storage_kw=parts["storage"],
        mgmt_kw=parts["mgmt"],
        network_kw=parts["network"],
        it_kw=it,
        pue=pue,
        chain_efficiency=eff,
        facility_kw=fac,
        facility_kw_billed=billed,
        average_load_frac=load.average_load_frac,
        annual_kwh=kwh,
        electricity_usd_per_kwh=electricity_usd_per_kwh,
        annual_electricity_usd=cost,
        derivations=d,
    )
