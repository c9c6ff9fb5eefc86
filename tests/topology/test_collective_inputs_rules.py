"""The collective model's inputs (topology/collective_inputs.py): GPU generations from published figures and every
check at and past its edge."""

from __future__ import annotations

import math

import pytest

from topology.collective_inputs import (
    GPU_GENERATIONS,
    Fabric,
    check_calibration,
    generation_for,
    host_overhead_us,
    network_efficiency,
    network_latency_us,
)
from topology.collectives import ASSUMPTIONS, Collective, collective_cost

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


# --- the network and platform classes and the per-fabric bounds (mutation survivors of #35's classes) ---

H100_2 = {"gpus_per_node": 8, "node_count": 2, "nvlink_gbyte_s": 370.8, "nics_per_node": 8, "nic_gbps": 200.0}


def _one_kib_us(**fabric) -> float:
    return float(collective_cost(Collective.ALL_REDUCE, 1024.0, Fabric(**{**H100_2, **fabric})).time_us)


@pytest.mark.parametrize("network", ["infiniband", "roce_ar", "roce"])
def test_verbs_classes_add_no_plugin_latency(network):
    """InfiniBand and RoCE (adaptive routing or ECMP) run NCCL's own net_ib transport, which reports a latency of 0
    (NCCL v2.30.7-1 src/transport/net_ib/init.cc:558). So a 2-node 1 KiB all-reduce on those classes takes NCCL's
    own GPU-side time."""
    assert network_latency_us(network) == 0.0
    assert _one_kib_us(net_latency_us=network_latency_us(network)) == _one_kib_us()


def test_efa_takes_the_aws_tuner_latency_twice_on_a_two_node_tree():
    """EFA: 20 µs a network step, aws-ofi-nccl's tuner figure (include/nccl_ofi_param.h:285 TUNER_NET_LATENCY).
    A 2-node Tree/LL all-reduce crosses the network up and down the tree: + 2 × 20 = 40 µs of GPU-side time
    over the net_ib classes' (tuning.cc:389-391 adds the plugin latency to every inter-node step)."""
    assert network_latency_us("efa") == 20.0
    assert _one_kib_us(net_latency_us=20.0) == pytest.approx(_one_kib_us() + 40.0, abs=0.5)


def test_tcpx_plugin_latency_is_fitted_to_the_1_kib_row():
    """2 × A3 Mega over GPUDirect-TCPXO, 1 KiB in place: 123.1 µs (github.com/lessizzmore/create-a3mega-ztan-fork).
    Tree/LL across 2 nodes takes the plugin's latency twice (up and down the tree), so each µs of it moves the
    1 KiB time by 2 µs: the class's whole-µs latency is the one within 1 µs of the row (±1 µs would be 2 off)."""
    tcpx = {"nic_efficiency": network_efficiency("tcpx"), "host_overhead_us": host_overhead_us("cloud_vm")}
    lat = network_latency_us("tcpx")
    assert _one_kib_us(**tcpx, net_latency_us=lat + 1.0) - _one_kib_us(**tcpx, net_latency_us=lat) == pytest.approx(2.0)
    assert _one_kib_us(**tcpx, net_latency_us=lat) == pytest.approx(123.1, abs=1.0)


@pytest.mark.parametrize(("platform", "floor_us"), [("bare_metal", 6.0), ("cloud_vm", 30.0), ("grace_rack", 15.5)])
def test_each_platform_class_is_the_floor_of_a_tiny_call(platform, floor_us):
    """A 1-byte all-to-all between 2 GPUs of one node is one Simple hop + 1 µs post overhead on the GPU — under
    5 µs — so the call takes the platform's enqueue + launch, the figures ASSUMPTIONS states: DGX/HGX bare metal
    6 µs (nccl#1259: 5.6 µs in all), cloud VM 30 µs (Azure ND H200 v5: 30–31 µs), Grace-hosted rack 15.5 µs
    (Azure ND GB200 v6: 15–18 µs)."""
    two = {**BASE, "node_count": 1, "gpus_per_node": 2}
    gpu = float(collective_cost(Collective.ALL_TO_ALL, 1.0, Fabric(**two)).time_us)
    assert 0 < gpu < 5.0
    f = Fabric(**two, host_overhead_us=host_overhead_us(platform))
    assert float(collective_cost(Collective.ALL_TO_ALL, 1.0, f).time_us) == floor_us
    assert f"{floor_us:g} µs" in " ".join(ASSUMPTIONS)


def test_the_default_fabric_has_no_host_floor():
    """The bare model is NCCL's GPU-side time: no host floor unless a platform class is given. A calibrated
    fabric (bw_efficiency 4, offset −1000 µs) keeps a call at ≥ t ÷ 2e = t ÷ 8: a 2-GPU all-to-all of 1 byte
    (≈ 4.4 µs) comes to ≈ 0.55 µs, under any whole-µs floor."""
    cal = {**BASE, "node_count": 1, "gpus_per_node": 2, "bw_efficiency": 4.0, "latency_offset_us": -1000.0}
    assert Fabric(**cal).host_overhead_us == 0.0
    uncalibrated = Fabric(**{**cal, "bw_efficiency": 1.0, "latency_offset_us": 0.0})
    bare = float(collective_cost(Collective.ALL_TO_ALL, 1.0, uncalibrated).time_us)
    t = float(collective_cost(Collective.ALL_TO_ALL, 1.0, Fabric(**cal)).time_us)
    assert t == pytest.approx(bare / 8)
    assert t < 1.0


@pytest.mark.parametrize(
    ("field", "ok", "bad", "says"),
    [
        ("nic_efficiency", (0.05, 1.0), 0.0499, "nic_efficiency: a number in [0.05, 1], got 0.0499"),
        ("nic_efficiency", (0.05, 1.0), 1.01, "nic_efficiency: a number in [0.05, 1], got 1.01"),
        ("host_overhead_us", (0.0, 10_000.0), -0.5, "host_overhead_us: a number in [0, 10000], got -0.5"),
        ("host_overhead_us", (0.0, 10_000.0), 10_000.5, "host_overhead_us: a number in [0, 10000], got 10000.5"),
        ("net_latency_us", (0.0, 10_000.0), -0.5, "net_latency_us: a number in [0, 10000], got -0.5"),
        ("net_latency_us", (0.0, 10_000.0), 10_000.5, "net_latency_us: a number in [0, 10000], got 10000.5"),
    ],
)
def test_class_bounds_are_inclusive_and_refuse_past_each_edge(field, ok, bad, says):
    for v in ok:
        assert getattr(Fabric(**{**BASE, field: v}), field) == v
    with pytest.raises(ValueError) as exc:
        Fabric(**{**BASE, field: bad})
    assert str(exc.value) == says


@pytest.mark.parametrize("field", ["nic_efficiency", "host_overhead_us", "net_latency_us"])
@pytest.mark.parametrize("bad", [True, "5", None, math.nan, math.inf])
def test_class_fields_refuse_what_is_not_a_finite_number(field, bad):
    """A bool is no number here (True would read as 1), and a string or None is refused with the field's
    name — a ValueError the form can place, not a TypeError from math.isfinite."""
    with pytest.raises(ValueError, match=rf"^{field}: a number in \["):
        Fabric(**{**BASE, field: bad})
