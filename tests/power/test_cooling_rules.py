"""power/cooling.py's rules, one figure each, derived by hand in the docstrings (make-mutation survivors:
each cooling type's density limit and liquid share, the glycol's properties, exact multiples of a CDU or a
dry cooler, inclusive bounds, the air-cooled zeros, the JSON precision and the derivations' arithmetic)."""

from __future__ import annotations

import pytest

from power import PowerInputError
from power.cooling import FLUIDS, coolant_flow_l_per_min, cooling_for_density, default_rack_budget_kw, plan_cooling
from tests.power.conftest import cooling_request


@pytest.mark.parametrize(
    ("rack_kw", "kind"),
    [
        (41.0, "air"),  # four air-cooled DGX H100 per rack, 4 × 10.2 = 40.8 kW, under the 41 kW limit
        (41.5, "air_containment"),
        (60.0, "air_containment"),  # seed P3: up to ≈60 kW with containment / rear-door exchangers
        (60.5, "direct_to_chip"),
        (140.0, "direct_to_chip"),  # above a GB200 NVL72's ≈120–132 kW
        (140.5, "immersion"),
        (250.0, "immersion"),
    ],
)
def test_each_density_gets_the_least_intensive_cooling_that_holds_it(rack_kw, kind):
    """Limits are inclusive (a rack at exactly the limit keeps the lighter type); 0.5 kW above it moves up."""
    assert cooling_for_density(rack_kw) == kind


def test_beyond_immersion_is_refused():
    with pytest.raises(PowerInputError) as exc:
        cooling_for_density(250.5)
    assert exc.value.errors["rack_budget_kw"].startswith("250.5 kW per rack is beyond every cooling type here")


@pytest.mark.parametrize(
    ("kind", "liquid_kw", "cdus"),
    [
        ("air", 0.0, 0),
        ("air_containment", 0.0, 0),
        ("direct_to_chip", 800.0, 2),  # 1,000 kW × 80 % to the liquid loop → ⌈800 ÷ 3,000⌉ = 1 + 1 (N+1)
        ("immersion", 1000.0, 2),  # all of it
    ],
)
def test_the_liquid_loop_takes_the_cooling_types_share(kind, liquid_kw, cdus):
    """1,000 kW of IT in 30 kW racks: air types have no loop (no CDU, no flow), liquid types one."""
    plan = plan_cooling(cooling_request(rack_kw=30, it_kw=1000, facility_kw=1100, cooling_type=kind))
    assert (plan.liquid_heat_kw, plan.cdu_count) == (liquid_kw, cdus)
    if not liquid_kw:
        assert plan.coolant_flow_l_per_min == 0.0
        assert plan.derivations["cdu_count"] == "no liquid loop"
        assert plan.derivations["coolant_flow_l_per_min"] == "air cooled: no coolant loop"
        n_plus_2 = plan_cooling(
            cooling_request(rack_kw=30, it_kw=1000, facility_kw=1100, cooling_type=kind, redundancy=2)
        )
        assert n_plus_2.cdu_count == 0  # no loop: no CDU, and no spare for one either


def test_propylene_glycol_carries_less_heat_per_litre():
    """25 % propylene glycol (c = 3.90 kJ/kg·K, ρ = 1.020 kg/L): 1,000 kW at ΔT 13 K → 1,000 ÷ (3.90 × 13) =
    19.7239 kg/s ÷ 1.020 = 19.3372 L/s → 1,160.23 L/min (water: 1,000 ÷ (4.18 × 13) ÷ 0.993 × 60 = 1,111.9)."""
    assert coolant_flow_l_per_min(1000, 13, FLUIDS["pg25"]) == pytest.approx(1160.2274, abs=1e-3)
    plan = plan_cooling(cooling_request(rack_kw=100, it_kw=1250, facility_kw=1300, cooling_type="direct_to_chip",
                                        fluid="pg25"))  # fmt: skip
    assert plan.coolant_flow_l_per_min == pytest.approx(1160.2274, abs=1e-3)  # 1,250 × 80 % = 1,000 kW


def test_exact_multiples_need_no_extra_unit():
    """Immersion, 3,000 kW of IT: the loop carries 3,000 kW = exactly one 3,000 kW CDU (+1 for N+1 = 2), and
    the heat is exactly three 1,000 kW dry coolers (+1 = 4). The flow: 3,000 ÷ (4.18 × 13) = 55.2 kg/s."""
    plan = plan_cooling(cooling_request(rack_kw=100, it_kw=3000, facility_kw=3100, cooling_type="immersion"))
    assert (plan.cdu_count, plan.heat_rejection_unit_count) == (2, 4)
    d = plan.derivations
    assert d["cdu_count"] == "⌈3,000 kW ÷ 3,000 kW per CDU⌉ = 1 + 1 redundant = 2 (N+1)"
    assert d["heat_rejection_unit_count"] == "⌈3,000 kW ÷ 1,000 kW per dry cooler / tower⌉ = 3 + 1 = 4"
    assert (
        "3,000 kW ÷ (4.18 kJ/kg·K × 13 K) = 55.2 kg/s ÷ 0.993 kg/L = 3,336 L/min of water"
        in (d["coolant_flow_l_per_min"])
    )


def test_n_plus_zero_and_the_inclusive_limits_are_allowed():
    """No redundancy asked: ⌈800 ÷ 3,000⌉ = 1 CDU and ⌈1,000 ÷ 1,000⌉ = 1 dry cooler. A rack at exactly its chosen
    type's limit (41 kW, air) is allowed; a fractional-kW CDU is odd but positive."""
    plan = plan_cooling(cooling_request(rack_kw=41, it_kw=1000, facility_kw=1100, cooling_type="direct_to_chip",
                                        redundancy=0))  # fmt: skip
    assert (plan.cdu_count, plan.heat_rejection_unit_count) == (1, 1)
    assert (
        plan_cooling(cooling_request(rack_kw=41, it_kw=100, facility_kw=110, cooling_type="air")).cooling_type == "air"
    )
    tiny = plan_cooling(cooling_request(rack_kw=100, it_kw=1, facility_kw=1, cooling_type="immersion", cdu_unit_kw=0.5))
    assert tiny.cdu_count == 2 + 1  # ⌈1 ÷ 0.5⌉ = 2, + 1


@pytest.mark.parametrize(
    ("kwargs", "fields"),
    [
        ({"supply_c": 40.0, "return_c": 40.0}, {"coolant_return_c"}),  # no ΔT: no heat carried
        ({"cdu_unit_kw": 0.0}, {"cdu_unit_kw"}),
        ({"heat_rejection_unit_kw": 0.0}, {"heat_rejection_unit_kw"}),
        ({"cdu_unit_kw": 0.0, "heat_rejection_unit_kw": -1.0}, {"cdu_unit_kw", "heat_rejection_unit_kw"}),
        ({"redundancy": -1}, {"redundancy"}),
        ({"rack_kw": 41.5, "cooling_type": "air"}, {"cooling_type"}),
    ],
)
def test_what_cannot_be_is_refused_on_its_field(kwargs, fields):
    with pytest.raises(PowerInputError) as exc:
        plan_cooling(cooling_request(**{"rack_kw": 30, "it_kw": 100, "facility_kw": 110, **kwargs}))
    assert set(exc.value.errors) == fields


def test_the_json_reports_liquid_heat_to_the_watt_and_flow_to_a_tenth():
    """1,234.5678 kW × 80 % = 987.65424 kW → 987.654; 987.65424 ÷ (4.18 × 13) = 18.17546 kg/s ÷ 0.993 × 60 =
    1,098.2148 L/min → 1,098.2."""
    d = plan_cooling(cooling_request(rack_kw=100, it_kw=1234.5678, facility_kw=1300, cooling_type="direct_to_chip"))
    assert (d.to_dict()["liquid_heat_kw"], d.to_dict()["coolant_flow_l_per_min"]) == (987.654, 1098.2)


def test_an_empty_rack_budget_takes_what_the_cooling_holds():
    """Empty cooling and budget: air's 41 kW — or, for a rack-scale NVLink system, direct-to-chip's 140 kW."""
    assert default_rack_budget_kw("", False) == (
        41.0, "left empty: the air limit of 41 kW per rack (cooling left empty too: air, the least intensive)"
    )  # fmt: skip
    kw, why = default_rack_budget_kw("", True)
    assert kw == 140.0 and why.startswith("left empty: the direct to chip limit of 140 kW per rack (cooling left")
    assert default_rack_budget_kw("immersion", True) == (250.0, "left empty: the immersion limit of 250 kW per rack")
