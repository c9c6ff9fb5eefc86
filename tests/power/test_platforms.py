"""Node power from the platform (power/platforms.py): the data sheet's maximum, GPUs × TDP and the host share
between them. Every golden below is worked by hand from the cited figure, not taken from the code's output.

Sources (the rows' own ``source`` strings say the same):
- DGX A100: NVIDIA DGX A100 User Guide (DU-09821-001), §1.1.3 Power Specifications — 6.5 kW max.
- DGX H100/H200: NVIDIA DGX H100/H200 User Guide, Introduction, Power Specifications — 10.2 kW max.
- DGX B200: NVIDIA DGX B200 User Guide, "Introduction to DGX B200", Power Specifications — 14.3 kW max
  (docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html).
- GB200 NVL72: ≈120 kW a rack (seed §14.7; DGX SuperPOD GB200 RA), split in power/rack_systems.py.
"""

from __future__ import annotations

import dataclasses

import pytest

from cluster.pipeline import plan_cluster
from cluster.requests import node_power_request
from cluster.requirements import Requirements
from cluster.validate import validate
from power.plan import NodePowerRequest, capping_host_w, node_power_w
from power.platforms import GENERIC_HOST_W, platform_for, platforms


def _node(model: str, gpus: int = 8, **kw) -> NodePowerRequest:
    return NodePowerRequest(
        **{
            "gpu_model": model,
            "gpus_per_node": gpus,
            "gpu_tdp_w": None,
            "node_power_w": None,
            "host_overhead_w": None,
            **kw,
        }
    )


@pytest.mark.parametrize(
    ("model", "watts", "derivation"),
    [
        # NVIDIA DGX A100 User Guide: 6,500 W max; host = 6,500 − 8 × 400 = 3,300 W
        (
            "A100-SXM4-80GB",
            6500.0,
            "DGX A100 platform (NVIDIA DGX A100 User Guide: 6,500 W max): 8 × 400 W TDP + 3,300 W host = 6,500 W",
        ),
        # NVIDIA DGX H100/H200 User Guide: 10,200 W max; host = 10,200 − 8 × 700 = 4,600 W (the old default)
        (
            "H100-SXM5",
            10200.0,
            "DGX H100 platform (NVIDIA DGX H100/H200 User Guide: 10,200 W max): "
            "8 × 700 W TDP + 4,600 W host = 10,200 W",
        ),
        ("H200-SXM", 10200.0, "DGX H200 platform (NVIDIA DGX H100/H200 User Guide: 10,200 W max)"),
        # NVIDIA DGX B200 User Guide: 14,300 W max; host = 14,300 − 8 × 1,000 = 6,300 W (was 4,600 → 12,600 W)
        (
            "B200",
            14300.0,
            "DGX B200 platform (NVIDIA DGX B200 User Guide: 14,300 W max): 8 × 1000 W TDP + 6,300 W host = 14,300 W",
        ),
    ],
)
def test_an_eight_gpu_node_draws_its_data_sheet_maximum(model, watts, derivation):
    got, why = node_power_w(_node(model))
    assert got == watts
    assert why.startswith(derivation)


def test_a_gb200_nvl72_rack_draws_its_rack_figure():
    """Compute tray 4 × 1,200 W + 1,667 W = 6,467 W; rack 18 × 6,467 + 9 switch trays × 400 W = 116,406 + 3,600
    = 120,006 W ≈ the seed's 120 kW GB200 NVL72 rack (§14.7; NVIDIA GB200 NVL72 ≈120–132 kW)."""
    watts, why = node_power_w(_node("GB200", 4))
    assert watts == 4 * 1200 + 1667 == 6467
    assert why.startswith("GB200 NVL72 compute tray platform (assumption: the ≈120 kW rack split")
    plan = plan_cluster(
        validate({"gpu_count": 72, "gpu_model": "GB200", "compute_fabric": {"nic_gbps": 800, "switch_model": "Q3400"}})
    )
    assert plan.power.racks.compute_rack_kw == pytest.approx((18 * 6467 + 9 * 400) / 1000)  # 120.006 kW
    assert plan.power.capping.host_w_per_gpu == pytest.approx(1667 / 4)  # the tray host, 416.75 W a GPU


def test_every_row_says_where_its_maximum_comes_from():
    for model, row in platforms().items():
        assert row.gpu_model == model and row.source and row.document
        assert row.host_w >= 0, model
        if row.assumption:
            assert "assumption" in row.document + row.source, model
    assert platform_for("TPU-v4") is None  # no platform: the generic rule


def test_the_host_share_is_the_maximum_less_the_gpus():
    """MI300X: 3 × 3,200 W = 9,600 W (XE9680 3+3 supplies, an assumption) − 8 × 750 W = 3,600 W host."""
    row = platform_for("MI300X")
    assert (row.max_system_w, row.host_w) == (9600.0, 9600.0 - 8 * 750.0)
    assert node_power_w(_node("MI300X"))[0] == 8 * 750 + 3600


def test_a_node_figure_given_wins():
    assert node_power_w(_node("B200", node_power_w=9000.0)) == (9000.0, "9,000 W as given")


def test_a_host_given_wins_over_the_platform():
    """B200 with the old 4,600 W typed: 8 × 1,000 + 4,600 = 12,600 W, "as given"; the capping host follows it."""
    node = _node("B200", host_overhead_w=4600.0)
    assert node_power_w(node) == (12600.0, "8 × 1000 W TDP + 4,600 W host as given = 12,600 W")
    assert capping_host_w(node) == 4600.0


def test_a_custom_tdp_scales_the_gpu_part_only():
    """A100 capped at 300 W: 8 × 300 + the platform's 3,300 W host = 5,700 W."""
    watts, why = node_power_w(_node("A100-SXM4-80GB", gpu_tdp_w=300.0))
    assert watts == 8 * 300 + 3300
    assert why.endswith("8 × 300 W TDP + 3,300 W host = 5,700 W")


def test_another_gpu_count_gets_the_host_share_per_gpu():
    """A 4-GPU H100 node: 4 × 700 + 4,600 ÷ 8 × 4 = 2,800 + 2,300 = 5,100 W."""
    watts, why = node_power_w(_node("H100-SXM5", 4))
    assert watts == 4 * 700 + 4600 / 8 * 4 == 5100
    assert "2,300 W host (DGX H100's 4,600 W ÷ 8 GPUs × 4 GPUs)" in why


def test_a_model_without_a_platform_keeps_the_generic_host():
    """TPU-v4, 4 chips a host: 4 × 192 W + 4,600 W = 5,368 W."""
    watts, why = node_power_w(_node("TPU-v4", 4))
    assert GENERIC_HOST_W == 4600.0
    assert watts == 4 * 192 + 4600
    assert "no platform for TPU-v4" in why


def test_the_requirement_is_empty_by_default_and_reaches_the_engine():
    r = Requirements()
    assert r.power.host_overhead_w is None
    assert node_power_request(r).host_overhead_w is None
    typed = dataclasses.replace(r, power=dataclasses.replace(r.power, host_overhead_w=3000.0))
    assert node_power_request(typed).host_overhead_w == 3000.0


def test_a_dgx_b200_design_fits_two_nodes_an_air_rack():
    """14.3 kW nodes in the air budget of 41 kW: ⌊41 ÷ 14.3⌋ = 2 a rack, 28.6 kW (4,600 W hosts gave 12.6 kW,
    3 a rack)."""
    plan = plan_cluster(validate({"gpu_count": 64, "gpu_model": "B200"}))
    assert plan.power.node_power_w == 14300
    assert plan.power.racks.nodes_per_rack == 2
    assert plan.power.racks.compute_rack_kw == pytest.approx(2 * 14.3)


def test_rows_without_a_published_maximum_are_flagged_as_assumptions():
    """The DGX A100, H100/H200 and B200 maxima are the user guides' figures; B300 (no data sheet found), MI300X
    (no OEM maximum: the XE9680's 3+3 supplies) and the GB200/GB300 NVL72 compute trays (a split of the rack
    figure, power/rack_systems.py) are assumptions — and each row's document says which it is."""
    flagged = {model for model, row in platforms().items() if row.assumption}
    assert flagged == {"B300", "MI300X", "GB200", "GB300"}
    for model, row in platforms().items():
        assert row.assumption == row.document.startswith("assumption"), model
