"""power/capping.py's rules (make-mutation survivors: the curve's clipping, total = GPUs × throughput each, the
gain against full power, the bounds, the JSON precision). Hand derivations in the docstrings."""

from __future__ import annotations

import pytest

from power import PowerInputError
from power.capping import plan_capping, relative_throughput


def test_the_curve_is_clipped_to_its_floor_and_to_full_power():
    """Below the curve's first point (30 % TDP → 0.35) a cap keeps the floor's 0.35; above 100 % it is 1.0."""
    assert float(relative_throughput(0.10)) == pytest.approx(0.35)
    assert float(relative_throughput(1.20)) == pytest.approx(1.0)


def test_total_throughput_is_gpus_times_each_gpus_share_and_the_gain_is_against_full_power():
    """1,400 kW at 700 W, no host share, PUE 1: full power is 1,400 ÷ 0.7 = 2,000 GPUs × 1.0 = 2,000 GPU
    equivalents. At 80 %: ⌊1,400 ÷ 0.56⌋ = 2,500 GPUs × r(0.8), r between 0.875 (71 %) and 1.0 → between 2,187.5
    and 2,500. The best's gain is its total ÷ 2,000 − 1, said in the derivation."""
    plan = plan_capping(1400, 700, host_w_per_gpu=0.0, pue=1.0)
    assert (plan.full_power.gpu_count, plan.full_power.total_throughput_gpu_equiv) == (2000, 2000.0)
    at80 = next(p for p in plan.points if abs(p.cap_frac - 0.80) < 1e-9)
    assert at80.gpu_count == 2500 and 2187.5 < at80.total_throughput_gpu_equiv < 2500
    assert at80.total_throughput_gpu_equiv == pytest.approx(2500 * at80.relative_throughput_per_gpu, rel=1e-12)
    gain = plan.best.total_throughput_gpu_equiv / 2000 - 1
    assert 0 < gain < 0.25
    assert plan.derivations["best"].endswith(f"vs 2,000 GPUs at full power: {gain:+.1%}")


def test_a_host_share_and_the_pue_raise_each_gpus_cost():
    """(700 W + 300 W host) × PUE 1.25 = 1.25 kW a GPU at full power: 1,000 kW holds 800 GPUs."""
    plan = plan_capping(1000, 700, host_w_per_gpu=300.0, pue=1.25)
    assert plan.full_power.gpu_count == 800


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"budget_kw": 0.0}, "capping_budget_kw"),
        ({"tdp_w": 0.0}, "gpu_tdp_w"),
        ({"host_w_per_gpu": -1.0}, "host_overhead_w"),
        ({"pue": 0.99}, "pue"),
    ],
)
def test_what_cannot_be_is_refused_on_its_field(kwargs, field):
    args = {"budget_kw": 100.0, "tdp_w": 700.0, "host_w_per_gpu": 0.0, "pue": 1.0, **kwargs}
    with pytest.raises(PowerInputError) as exc:
        plan_capping(args.pop("budget_kw"), args.pop("tdp_w"), **args)
    assert set(exc.value.errors) == {field}


def test_small_but_valid_figures_are_accepted():
    """A 0.5 W part, a PUE of 1.5, no host share: 1 kW ÷ (0.0005 kW × 1.5) = 1,333 GPUs at full power."""
    assert plan_capping(1.0, 0.5, host_w_per_gpu=0.0, pue=1.5).full_power.gpu_count == 1333


def test_the_json_rounds_watts_to_a_tenth_and_shares_to_four_places():
    """700.3 W at the 59 % cap: 0.59 × 700.3 = 413.177 W → 413.2; shares and totals keep 4 and 1 places."""
    plan = plan_capping(1000, 700.3, host_w_per_gpu=0.0, pue=1.0)
    raw = next(p for p in plan.points if abs(p.cap_frac - 0.59) < 1e-9)
    out = next(p for p in plan.to_dict()["points"] if p["cap_frac"] == 0.59)
    assert out["cap_w"] == 413.2
    assert out["relative_throughput_per_gpu"] == round(raw.relative_throughput_per_gpu, 4)
    assert out["relative_throughput_per_gpu"] != round(raw.relative_throughput_per_gpu, 3)
    assert out["total_throughput_gpu_equiv"] == round(raw.total_throughput_gpu_equiv, 1)
    assert out["total_throughput_gpu_equiv"] not in (
        round(raw.total_throughput_gpu_equiv),
        round(raw.total_throughput_gpu_equiv, 2),
    )


def test_the_curve_passes_through_the_seeds_points():
    """Seed P2 (H100, 700 W TDP): capped at 400 W it keeps 70 % of its throughput, at 500 W 85–90 % (0.875, the
    middle); the curve goes through both points exactly (a monotone cubic through its knots)."""
    assert float(relative_throughput(400 / 700)) == pytest.approx(0.70, abs=1e-12)
    assert float(relative_throughput(500 / 700)) == pytest.approx(0.875, abs=1e-12)


def test_a_budget_below_one_gpu_at_full_power_has_no_gain_figure():
    """1.0 kW holds no GPU at full power (700 W + 575 W host = 1.275 kW) but one at 40 % (280 + 575 = 0.855 kW): the
    gain over full power (÷ 0) is no figure, and the text says why; 0.5 kW holds none at any cap."""
    plan = plan_capping(1.0, 700.0, host_w_per_gpu=575.0, pue=1.0)
    assert (plan.full_power.gpu_count, plan.best.gpu_count) == (0, 1)
    assert plan.derivations["best"].endswith(
        "vs 0 GPUs at full power: no gain figure, the budget holds no GPU at full power"
    )
    none = plan_capping(0.5, 700.0, host_w_per_gpu=575.0, pue=1.0)
    assert {p.gpu_count for p in none.points} == {0}
