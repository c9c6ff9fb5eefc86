"""Goldens derived by hand (in each docstring) for figures no published example pins:
the electrical chain, the average load, the discount year and the cost per GPU-hour."""

from __future__ import annotations

from decimal import Decimal

import pytest

from power.facility import ItLoad, facility_power_kw, plan_facility
from power.tco import TcoInputs, line, total_cost_of_ownership


def test_a_lossy_electrical_chain_divides_the_facility_power():
    """1,000 kW IT × PUE 1.2 through a double-conversion UPS (93 %, seed P5):
    1,000 × 1.2 ÷ 0.93 = 1,290.3226 kW (multiplying would give 1,116 kW: the UPS would *save* power)."""
    assert facility_power_kw(1000, 1.2, 0.93) == pytest.approx(1290.3226, abs=1e-4)
    load = ItLoad(compute_node_count=100, compute_node_w=10_000)
    fac = plan_facility(load, pue=1.2, electricity_usd_per_kwh=Decimal("0.10"), chain="ups_double_conversion")
    assert fac.facility_kw == pytest.approx(1290.3226, abs=1e-4)
    assert fac.facility_kw_billed == 1290


def test_the_average_load_scales_the_energy_not_the_power():
    """100 × 10 kW = 1,000 kW IT, PUE 1.1 → 1,100 kW planned; at 0.8 average draw a year is
    1,100 × 8,760 × 0.8 = 7,708,800 kWh, at $0.10 = $770,880 (nameplate would be 9,636,000 kWh)."""
    load = ItLoad(compute_node_count=100, compute_node_w=10_000, average_load_frac=0.8)
    fac = plan_facility(load, pue=1.1, electricity_usd_per_kwh=Decimal("0.10"))
    assert fac.facility_kw_billed == 1100
    assert fac.annual_kwh == pytest.approx(7_708_800)
    assert fac.annual_electricity_usd == Decimal("770880")


def _tco(**kw):
    capex = (line("Hardware", Decimal("1000"), ""),)
    opex = (line("Running", Decimal("100"), ""),)
    return total_cost_of_ownership(TcoInputs(capex, opex, **kw))


def test_present_value_discounts_from_the_end_of_year_one():
    """CapEx $1,000 now, OpEx $100 at the end of each of 2 years, 10 %:
    PV = 1,000 + 100 ÷ 1.1 + 100 ÷ 1.1² = 1,000 + 90.91 + 82.64 = $1,173.55 → $1,174 (whole dollars);
    discounting from year 0 would give 1,000 + 100 + 90.91 = $1,191."""
    t = _tco(years=2, gpu_count=1, utilisation_frac=0.5, discount_rate_frac=0.10)
    assert t.total_usd == Decimal("1200")
    assert t.present_value_usd == Decimal("1174")


def test_cost_per_gpu_hour_counts_every_year():
    """Total $1,200 over 2 years for 1 GPU at 50 % utilisation: 1 × 8,760 h × 2 × 0.5 = 8,760 GPU-hours →
    $1,200 ÷ 8,760 = $0.1370 per GPU-hour (one year only would give $0.2740)."""
    assert _tco(years=2, gpu_count=1, utilisation_frac=0.5).cost_per_gpu_hour_usd == Decimal("0.1370")
    # three years, 4 GPUs, 80 %: total 1,000 + 3 × 100 = 1,300 ÷ (4 × 8,760 × 3 × 0.8 = 84,096) = $0.0155
    assert _tco(years=3, gpu_count=4, utilisation_frac=0.8).cost_per_gpu_hour_usd == Decimal("0.0155")
