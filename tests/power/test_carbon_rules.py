"""power/carbon.py's rules derived by hand (make-mutation survivors: the inclusive bounds of a training run,
the JSON precision, the annual CO₂'s kg → t)."""

from __future__ import annotations

import pytest

from power import PowerInputError
from power.carbon import TrainingRun, annual_co2_t, training_run_footprint

RUN = dict(gpu_count=1, gpu_tdp_w=700.0, utilisation_frac=1.0, power_frac=1.0, pue=1.0, days=1.0,
           grid_kg_co2_per_kwh=0.0)  # fmt: skip


def test_the_smallest_run_is_allowed():
    """One GPU, PUE exactly 1, a clean grid (0 kg/kWh): 700 W × 24 h = 16.8 kWh, no CO₂."""
    fp = training_run_footprint(TrainingRun(**RUN))
    assert (fp.energy_kwh, fp.co2_t) == (pytest.approx(16.8), 0.0)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("gpu_count", 0, "gpu_count"),
        ("gpu_tdp_w", 0.0, "gpu_tdp_w"),
        ("gpu_tdp_w", -1.0, "gpu_tdp_w"),
        ("pue", 0.99, "pue"),
        ("days", 0.0, "run_days"),
        ("grid_kg_co2_per_kwh", -0.01, "grid_kg_co2_per_kwh"),
    ],
)
def test_a_run_that_cannot_be_is_refused_on_its_field(field, value, error):
    with pytest.raises(PowerInputError) as exc:
        TrainingRun(**{**RUN, field: value})
    assert set(exc.value.errors) == {error}


@pytest.mark.parametrize(("field", "value"), [("gpu_tdp_w", 0.5), ("days", 0.5), ("grid_kg_co2_per_kwh", 0.5)])
def test_fractions_of_a_unit_are_fine(field, value):
    """Half a watt, half a day, half a kilogram: positive is positive (a bound at 1 would refuse them)."""
    assert training_run_footprint(TrainingRun(**{**RUN, field: value})).energy_kwh > 0


def test_the_json_rounds_power_to_the_watt_energy_to_a_tenth_and_co2_to_the_kilogram():
    """3 GPUs × 700.5 W × 0.9 × 0.75 = 1,418.5125 W → 1.419 kW; × PUE 1.3 = 1.8440663 kW → 1.844; × 2.5 days ×
    24 h = 110.643975 kWh → 110.6; × 0.4567 kg/kWh = 50.531 kg → 0.051 t (each a digit more or less differs)."""
    run = TrainingRun(gpu_count=3, gpu_tdp_w=700.5, utilisation_frac=0.9, power_frac=0.75, pue=1.3, days=2.5,
                      grid_kg_co2_per_kwh=0.4567)  # fmt: skip
    d = training_run_footprint(run).to_dict()
    assert (d["it_kw"], d["facility_kw"], d["energy_kwh"], d["co2_t"], d["hours"]) == (1.419, 1.844, 110.6, 0.051, 60.0)


def test_a_years_co2_is_kilowatt_hours_times_kilograms_in_tonnes():
    """Seed D12's 24,344,040 kWh a year at 0.4 kg CO₂/kWh = 9,737,616 kg = 9,737.616 t."""
    assert annual_co2_t(24_344_040, 0.4) == pytest.approx(9737.616, rel=1e-12)
