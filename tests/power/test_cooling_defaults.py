"""The PUE left empty follows the cooling type and the site's size (power/facility.py default_pue): an air hall of
a site with ≥ 20 MW of IT load is economised (free cooling), PUE 1.2 — seed P4's economised air 1.2–1.4 at its
best end, which large operators beat (Google ≈1.10 fleet-wide, sites above 5 MW of IT). Smaller sites keep the
typical PUE of their cooling (seed P4). A cooling type or PUE given always wins."""

from __future__ import annotations

import pytest

from cluster.pipeline import plan_cluster
from cluster.validate import validate
from power.facility import ECONOMISED_AIR_PUE, HYPERSCALE_SITE_IT_KW, PUE_BY_COOLING, default_pue


@pytest.mark.parametrize(
    ("cooling", "it_kw", "pue"),
    [
        ("air", 19_999.0, 1.5),  # below the threshold: a typical air hall
        ("air", 20_000.0, 1.2),  # at it: economised
        ("air_containment", 50_000.0, 1.2),
        ("direct_to_chip", 50_000.0, 1.08),  # already below 1.2: unchanged
        ("immersion", 500_000.0, 1.04),
        ("direct_to_chip", 2_623.5, 1.08),
    ],
)
def test_the_pue_follows_the_site(cooling, it_kw, pue):
    got, why = default_pue(cooling, it_kw)
    assert got == pue
    if it_kw >= HYPERSCALE_SITE_IT_KW and PUE_BY_COOLING[cooling] > ECONOMISED_AIR_PUE:
        assert why.startswith(f"IT load {it_kw:,.0f} kW ≥ 20,000 kW: a site of this size cools its")
        assert "(seed P4)" in why and "Google" in why
    else:
        assert why == f"typical for {cooling.replace('_', ' ')} cooling (seed P4): {pue:g}"


@pytest.fixture(scope="module")
def hyperscale_h100():
    return plan_cluster(validate({"gpu_count": 100_000}))


def test_a_100k_h100_design_gets_an_economised_air_site(hyperscale_h100):
    """12,500 DGX H100 × 10.2 kW = 127,500 kW of compute; storage 200 × 2.5 kW = 500 kW; management + login
    9 × 1.5 kW = 13.5 kW; the network is the BOM's. Racks of 4 × 10.2 = 40.8 kW hold in air (41 kW), so the
    cooling is air; the IT load ≥ 20 MW makes it an economised site: PUE 1.2, not 1.5. Annual energy = the
    billed kW × 8,760 h."""
    power = hyperscale_h100.power
    fac = power.facility
    assert power.cooling.cooling_type == "air" and power.racks.compute_rack_kw == pytest.approx(4 * 10.2)
    assert fac.compute_kw == pytest.approx(12_500 * 10.2)
    assert (fac.storage_kw, fac.mgmt_kw) == (pytest.approx(200 * 2.5), pytest.approx(9 * 1.5))
    it = 127_500 + 500 + 13.5 + fac.network_kw
    assert fac.it_kw == pytest.approx(it)
    assert fac.pue == 1.2
    assert fac.facility_kw_billed == round(it * 1.2)
    assert fac.annual_kwh == fac.facility_kw_billed * 8760
    # by hand: 127,500 + 500 + 13.5 + 13,075.08 (network: the BOM's switches 7,508.1 + transceivers 5,553.9 — modules
    # bought a cage at a time, twin-port where the cage is (#34.2), an odd port paired onto the longer-reach twin
    # module and storage runs past 100 m on twin 2×200G-FR4 modules, so 9.7 kW of modules fewer than one a port —
    # + active cables 13.1 kW, in the two-hall floor plan, bom/layout.py hall_layout: its runs stay ≤ 100 m in a hall,
    # so short-reach optics replace the 2 km FR4/LR4 runs of one 1.3 km-deep block) = 141,088.6 kW IT × 1.2 =
    # 169,306.3 → 169,306 kW × 8,760 h = 1,483,120,560 kWh a year, against 141,088.6 × 1.5 = 211,632.9 → 211,633 kW ×
    # 8,760 = 1,853,905,080 kWh at the small-site air PUE of 1.5 (−20 %)
    assert fac.network_kw == pytest.approx(13_075.08, abs=0.01)
    assert fac.annual_kwh == 169_306 * 8760 == 1_483_120_560
    assert fac.derivations["pue"].startswith("IT load 141,089 kW ≥ 20,000 kW: a site of this size cools its air halls")
    assert fac.derivations["pue"].endswith("→ PUE 1.2 (a smaller site's air: 1.5)")
    assert fac.derivations["annual_kwh"] == "169,306 kW × 8,760 h = 1,483,120,560 kWh/year"


def test_a_value_given_wins_at_any_size():
    plan = plan_cluster(validate({"gpu_count": 100_000, "power": {"pue": 1.4}}))
    assert plan.power.facility.pue == 1.4 and "pue" not in plan.power.facility.derivations
    plan = plan_cluster(validate({"gpu_count": 100_000, "cooling": {"type": "direct_to_chip"}}))
    assert plan.power.cooling.cooling_type == "direct_to_chip" and plan.power.facility.pue == 1.08


def test_the_seed_design_keeps_its_small_site_figures():
    """The 2,000-GPU design is ≈2.6 MW of IT (250 × 10.2 kW = 2,550 kW of compute), far below 20 MW: its air
    hall keeps PUE 1.5, and its nodes the DGX H100's 10.2 kW."""
    plan = plan_cluster(validate({"gpu_count": 2000}))
    fac = plan.power.facility
    assert plan.power.node_power_w == 10_200 and fac.compute_kw == pytest.approx(250 * 10.2)
    assert fac.it_kw < 20_000 and fac.pue == 1.5
    assert fac.derivations["pue"] == "typical for air cooling (seed P4): 1.5"
