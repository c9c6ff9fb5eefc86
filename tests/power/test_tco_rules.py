"""power/tco.py by hand: the year count, the GPU-hour, the cumulative curve and the input bounds.

Each figure is worked out in the docstring from the inputs, not read off the code.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from power import PowerInputError
from power.tco import TcoInputs, line, total_cost_of_ownership

CAPEX = (line("Hardware", Decimal("1000"), ""),)
OPEX = (line("Running", Decimal("100"), ""),)


def test_defaults_are_five_years_for_one_gpu():
    """The seed's TCO horizon is 5 years (Table 14-26): 1,000 + 5 × 100 = $1,500; one GPU at 80 %:
    1 × 8,760 × 5 × 0.8 = 35,040 GPU-hours → 1,500 ÷ 35,040 = $0.0428."""
    t = total_cost_of_ownership(TcoInputs(CAPEX, OPEX))
    assert t.years == 5 and t.total_usd == Decimal("1500")
    assert t.cost_per_gpu_hour_usd == Decimal("0.0428")


def test_a_year_is_8760_hours():
    """$87,600,000 over 1 year for 1 GPU at 100 %: 87,600,000 ÷ 8,760 = $10,000.0000 per GPU-hour exactly
    (8,761 hours would give $9,998.8586, 8,759 $10,001.1417)."""
    t = total_cost_of_ownership(
        TcoInputs((line("Hardware", Decimal("87600000"), ""),), (), years=1, gpu_count=1, utilisation_frac=1.0)
    )
    assert t.cost_per_gpu_hour_usd == Decimal("10000.0000")


def test_the_cumulative_curve_starts_at_capex_and_adds_a_year_of_opex_each_year():
    """Year 0: $1,000 (the purchase); then +$100 a year: 1,100, 1,200, 1,300 after 3 years."""
    t = total_cost_of_ownership(TcoInputs(CAPEX, OPEX, years=3))
    assert t.cumulative_usd == (Decimal("1000"), Decimal("1100"), Decimal("1200"), Decimal("1300"))


@pytest.mark.parametrize("years", [1, 30])
def test_one_to_thirty_years_are_accepted(years):
    assert total_cost_of_ownership(TcoInputs(CAPEX, OPEX, years=years)).total_usd == 1000 + 100 * years


@pytest.mark.parametrize(
    ("kw", "field", "message"),
    [
        ({"years": 0}, "tco_years", "must be 1 to 30 years, got 0"),
        ({"years": 31}, "tco_years", "got 31"),
        ({"utilisation_frac": 0.0}, "tco_utilisation_frac", "got 0.0"),
        ({"utilisation_frac": 1.01}, "tco_utilisation_frac", "got 1.01"),
        ({"discount_rate_frac": 1.0}, "discount_rate_pct", "must be 0 to 100 %, got 100"),
        ({"discount_rate_frac": -0.01}, "discount_rate_pct", "got -1"),
    ],
)
def test_inputs_out_of_range_are_refused_naming_the_field(kw, field, message):
    with pytest.raises(PowerInputError) as exc:
        TcoInputs(CAPEX, OPEX, **kw)
    assert message in exc.value.errors[field]


def test_edge_inputs_that_make_sense_are_accepted():
    """Full utilisation (1.0), no discount (0) and a steep 99 % discount rate are all allowed; a $0 line too."""
    TcoInputs(CAPEX, OPEX, utilisation_frac=1.0, discount_rate_frac=0.0)
    t = total_cost_of_ownership(TcoInputs(CAPEX, OPEX, years=1, discount_rate_frac=0.99))
    assert t.present_value_usd == Decimal("1050")  # 1,000 + 100 ÷ 1.99 = 1,050.25 → $1,050
    TcoInputs((line("Free", Decimal("0"), ""),), OPEX)


def test_every_negative_line_is_named():
    with pytest.raises(PowerInputError) as exc:
        TcoInputs((line("Hardware", Decimal("-1"), ""),), (line("Power", Decimal("-5"), ""),))
    assert exc.value.errors == {"Hardware": "cannot be negative, got -1", "Power": "cannot be negative, got -5"}
