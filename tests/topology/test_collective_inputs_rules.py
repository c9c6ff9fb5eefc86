"""The collective model's inputs (topology/collective_inputs.py): GPU generations from published figures and every
check at and past its edge."""

from __future__ import annotations

import pytest

from topology.collective_inputs import GPU_GENERATIONS, Fabric, check_calibration, generation_for

BASE = {"gpus_per_node": 8, "node_count": 2, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 400.0}


def test_generations_from_published_figures():
    """NVLink per GPU = links × NCCL's per-link figure (src/graph/topo.h, NCCL v2.30.7-1: SM80 20, SM90 20.6, SM100
    40.1 GB/s): A100 12 links (NVLink 3) = 240; H100/H200 18 links (NVLink 4) = 370.8; Blackwell 18 links (NVLink 5)
    = 721.8. NVLink SHARP (NVLS) needs the third-generation NVSwitch: Hopper and Blackwell, not A100. GB200 and
    GB300 NVL72 racks are one NVLink domain of 72 GPUs. A TPU's ICI is no NVLink."""
    figures = {n: (g.nvlink_gbyte_s, g.nvls, g.nvlink_domain_gpus) for n, g in GPU_GENERATIONS.items()}
    assert figures == {
        "A100": (240.0, False, None),
        "H100": (370.8, True, None),
        "H200": (370.8, True, None),
        "B200": (721.8, True, None),
        "GB200": (721.8, True, 72),
        "B300": (721.8, True, None),
        "GB300": (721.8, True, 72),
        "TPU-v4": (0.0, False, None),
    }
    assert generation_for("H100-SXM5") is GPU_GENERATIONS["H100"]
    with pytest.raises(ValueError, match=r"^gpu_model: .*MI300X runs another library"):
        generation_for("MI300X")


@pytest.mark.parametrize(
    ("field", "ok", "bad", "says"),
    [
        ("nvlink_gbyte_s", 0.5, 0.0, "nvlink_gbyte_s: must be > 0, got 0.0"),
        ("nic_gbps", 0.5, -1.0, "nic_gbps: must be > 0, got -1.0"),
        ("switch_radix", 2, 1, "switch_radix: must be a whole number ≥ 2, got 1"),
        ("node_count", 1, 0, "node_count: must be a whole number ≥ 1, got 0"),
        ("oversubscription", 1.0, 0.99, "oversubscription: must be ≥ 1 (n:1), got 0.99"),
    ],
)
def test_fabric_checks_at_and_past_their_edges(field, ok, bad, says):
    Fabric(**{**BASE, field: ok})
    with pytest.raises(ValueError) as exc:
        Fabric(**{**BASE, field: bad})
    assert str(exc.value) == says


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ((0.0499, 0.0, 0.0), "bw_efficiency: a number in [0.05, 4], got 0.0499"),
        ((4.01, 0.0, 0.0), "bw_efficiency: a number in [0.05, 4], got 4.01"),
        ((1.0, -1000.5, 0.0), "latency_offset_us: a number in [-1000, 10000], got -1000.5"),
        ((1.0, 10_000.5, 0.0), "latency_offset_us: a number in [-1000, 10000], got 10000.5"),
        ((1.0, 0.0, -0.1), "simple_latency_offset_us: a number in [0, 10000], got -0.1"),
        ((1.0, 0.0, 10_000.5), "simple_latency_offset_us: a number in [0, 10000], got 10000.5"),
        ((True, 0.0, 0.0), "bw_efficiency: a number in [0.05, 4], got True"),
    ],
)
def test_calibration_bounds_past_each_edge(values, says):
    with pytest.raises(ValueError) as exc:
        check_calibration(*values)
    assert str(exc.value) == says


def test_calibration_bounds_are_inclusive():
    for values in ((0.05, -1000.0, 0.0), (4.0, 10_000.0, 10_000.0)):
        check_calibration(*values)


def test_torus_dimensions():
    """Three whole numbers ≥ 1 whose product is the chip count: 1 × 1 × 16 holds 2 × 8 chips; 0, 2.5, or two
    numbers are refused, and so is 4 × 4 × 2 = 32 ≠ 16."""
    Fabric(**BASE, torus_dims=(1, 1, 16))
    for dims in ((0, 4, 4), (2.5, 2, 3), (4, 4), (2, -1, -8)):
        with pytest.raises(ValueError, match=r"^torus_dims: three whole numbers ≥ 1"):
            Fabric(**BASE, torus_dims=dims)
    with pytest.raises(ValueError, match=r"^torus_dims: \(4, 4, 2\) hold 32 chips, the fabric has 16"):
        Fabric(**BASE, torus_dims=(4, 4, 2))
