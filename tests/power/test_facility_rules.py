"""power/facility.py's rules, one figure each, derived by hand in the docstrings (make-mutation survivors:
the typical PUE per cooling type, the electrical-chain efficiencies, the load's zero defaults in the
derivations, the JSON precision, the inclusive bounds of the PUE and the price, the derivation's optional
clauses)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from power import PowerInputError
from power.facility import ItLoad, plan_facility


def one_mw() -> ItLoad:
    """1,000 kW of IT, nothing else (made in the test, not at collection: a mutant of ItLoad must see it)."""
    return ItLoad(compute_node_count=100, compute_node_w=10_000)


@pytest.mark.parametrize(
    ("cooling", "pue", "facility_kw"),
    [
        ("air", 1.5, 1500),  # a typical modern air hall (seed P4: economised air 1.2–1.4, legacy air 1.8–2.5)
        ("air_containment", 1.35, 1350),
        ("direct_to_chip", 1.08, 1080),  # seed P4: liquid 1.03–1.1; the chapter's own design uses 1.08
        ("immersion", 1.04, 1040),  # seed P4: immersion below 1.05
    ],
)
def test_the_typical_pue_follows_the_cooling_when_none_is_given(cooling, pue, facility_kw):
    """1,000 kW of IT × the cooling type's typical PUE, said in the derivation with its source."""
    import dataclasses
    from types import SimpleNamespace

    from cluster.requests import power_request
    from cluster.requirements import Requirements
    from power.plan import cooling_and_pue

    r = Requirements()
    r = dataclasses.replace(
        r, cooling=dataclasses.replace(r.cooling, type=cooling), power=dataclasses.replace(r.power, pue=None)
    )
    kind, got, why = cooling_and_pue(power_request(r), SimpleNamespace(compute_rack_kw=40.0), 1000.0)  # a small site
    assert (kind, got) == (cooling, pue)
    assert why == f"typical for {cooling.replace('_', ' ')} cooling (seed P4): {pue:g}"
    fac = plan_facility(one_mw(), pue=got, electricity_usd_per_kwh=Decimal("0.10"), chain="in_pue")
    assert fac.facility_kw_billed == facility_kw


@pytest.mark.parametrize(
    ("chain", "eff", "facility_kw"),
    [
        ("in_pue", 1.0, 1200),  # the PUE already counts the conversion losses
        ("ups_line_interactive", 0.98, 1224),  # 1,200 ÷ 0.98 = 1,224.49 (seed P5)
        ("ups_double_conversion", 0.93, 1290),  # 1,200 ÷ 0.93 = 1,290.32 (seed P5: 92–94 %)
        ("hvdc_240v", 0.94, 1277),  # 1,200 ÷ 0.94 = 1,276.60 (seed P5: 240 V HVDC 94 %)
        ("legacy_ac", 0.85, 1412),  # 1,200 ÷ 0.85 = 1,411.76 (seed P5: legacy conversion 85 %)
    ],
)
def test_each_electrical_chain_divides_by_its_efficiency(chain, eff, facility_kw):
    """1,000 kW IT × PUE 1.2 = 1,200 kW, ÷ the chain's efficiency; the derivation names a lossy chain only."""
    fac = plan_facility(one_mw(), pue=1.2, electricity_usd_per_kwh=Decimal("0.10"), chain=chain)
    assert fac.chain_efficiency == eff
    assert fac.facility_kw == pytest.approx(1200 / eff, rel=1e-12)
    assert fac.facility_kw_billed == facility_kw
    said = f" ÷ {eff:g} electrical chain ({chain})"
    assert (said in fac.derivations["facility_kw"]) == (chain != "in_pue")


def test_a_load_of_compute_only_says_zero_storage_and_management():
    """ItLoad's defaults are no storage and no management: 0 × 0 W = 0.0 kW in each derivation."""
    fac = plan_facility(one_mw(), pue=1.2, electricity_usd_per_kwh=Decimal("0.10"))
    assert (fac.storage_kw, fac.mgmt_kw, fac.network_kw) == (0, 0, 0)
    assert fac.derivations["storage_kw"] == "0 × 0 W = 0.0 kW"
    assert fac.derivations["mgmt_kw"] == "0 management + login × 0 W = 0.0 kW"


def test_the_json_reports_kilowatts_to_the_watt_and_energy_to_a_tenth():
    """1 node × 1,234.5678 W = 1.2345678 kW → 1.235; storage 2,345.6789 W → 2.346; management 3,456.789 W →
    3.457; network 4,567.891 W → 4.568; IT 11.6047238 kW → 11.605; × PUE 1.3 = 15.08614094 kW → 15.086
    (planned 15 kW); energy 15 × 8,760 × 0.7777 = 102,189.78 kWh → 102,189.8."""
    load = ItLoad(
        compute_node_count=1,
        compute_node_w=1234.5678,
        storage_node_count=1,
        storage_node_w=2345.6789,
        mgmt_node_count=1,
        mgmt_node_w=3456.789,
        network_w=4567.891,
        average_load_frac=0.7777,
    )
    d = plan_facility(load, pue=1.3, electricity_usd_per_kwh=Decimal("0.10")).to_dict()
    assert (d["compute_kw"], d["storage_kw"], d["mgmt_kw"], d["network_kw"]) == (1.235, 2.346, 3.457, 4.568)
    assert (d["it_kw"], d["facility_kw"], d["facility_kw_billed"]) == (11.605, 15.086, 15)
    assert d["annual_kwh"] == 102_189.8


def test_a_pue_of_exactly_one_and_free_electricity_are_allowed_below_them_refused():
    """PUE = facility ÷ IT ≥ 1 (1.0 is the ideal, allowed); a price of $0/kWh is allowed, −$0.01 is not."""
    ideal = plan_facility(one_mw(), pue=1.0, electricity_usd_per_kwh=Decimal("0"))
    assert (ideal.facility_kw_billed, ideal.annual_electricity_usd) == (1000, Decimal("0"))
    with pytest.raises(PowerInputError) as exc:
        plan_facility(one_mw(), pue=0.99, electricity_usd_per_kwh=Decimal("-0.01"))
    assert set(exc.value.errors) == {"pue", "electricity_usd_per_kwh"}
    with pytest.raises(PowerInputError) as exc:
        plan_facility(one_mw(), pue=1.0, electricity_usd_per_kwh=Decimal("-0.5"))
    assert set(exc.value.errors) == {"electricity_usd_per_kwh"}


def test_the_energy_derivation_names_a_partial_load_only():
    """1,200 kW × 8,760 h = 10,512,000 kWh at full load; × 0.5 average load = 5,256,000 kWh."""
    full = plan_facility(one_mw(), pue=1.2, electricity_usd_per_kwh=Decimal("0.10"))
    assert full.derivations["annual_kwh"] == "1,200 kW × 8,760 h = 10,512,000 kWh/year"
    half = ItLoad(compute_node_count=100, compute_node_w=10_000, average_load_frac=0.5)
    fac = plan_facility(half, pue=1.2, electricity_usd_per_kwh=Decimal("0.10"))
    assert fac.derivations["annual_kwh"] == "1,200 kW × 8,760 h × 0.5 average load = 5,256,000 kWh/year"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"compute_node_count": 0}, "compute_node_count"),
        ({"storage_node_w": -1.0}, "storage_node_w"),
        ({"mgmt_node_w": -0.5}, "mgmt_node_w"),
        ({"network_w": -1.0}, "network_w"),
        ({"scale_up_w": -1.0}, "scale_up_w"),
    ],
)
def test_the_load_refuses_what_cannot_be(kwargs, field):
    """At least one compute node; no negative watts (zero is fine: a design without storage)."""
    with pytest.raises(PowerInputError) as exc:
        ItLoad(**{"compute_node_count": 1, "compute_node_w": 1000.0, **kwargs})
    assert set(exc.value.errors) == {field}


def test_the_smallest_load_is_accepted():
    """One node and zero watts for every optional part are a valid (if small) load: 1 × 1,000 W = 1 kW."""
    load = ItLoad(compute_node_count=1, compute_node_w=1000.0, storage_node_w=0.0, mgmt_node_w=0.0, network_w=0.0)
    assert plan_facility(load, pue=1.0, electricity_usd_per_kwh=Decimal("0.1")).it_kw == 1.0
