"""What the collective model is asked about — GPU generations and the fabric — and the checks on it.

Every check raises ``ValueError`` whose message starts with the argument's name, so the form, the API
and the CLI can put it on the right field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from topology.nccl_tuning import ARCHES, NVLINK_LINK_GBYTE_S

# what NCCL gets of a NIC: 400G → 48 GB/s (src/graph/search.cc:1058's top inter speed; nccl-tests#290: 46–48)
NIC_EFF = 0.96
ICI = "ici"  # a TPU-style torus interconnect: only the torus forms apply

# What NCCL gets of a NIC's line rate, per class of inter-node network (the model's input, not NCCL's: NCCL
# v2.30.7-1 src/graph/search.cc:1058 sm90SpeedArrayInter tops at 48 GB/s for a 400G port on any fabric).
# Each class: (share of line rate, the net plugin's latency [µs], why). The latency is what a net plugin reports
# as ncclNetProperties.latency: search.cc:745 copies it to graph->latencyInter and tuning.cc:389-391 adds it to
# every inter-node step's latency, twice for Simple (InfiniBand and socket transports report 0:
# src/transport/net_ib/init.cc:558, net_socket.cc:174).
NETWORK_CLASSES: dict[str, tuple[float, float, str]] = {
    "infiniband": (
        NIC_EFF,
        0.0,
        "InfiniBand: 400G → 48 GB/s, search.cc:1058's top inter speed; 46–48 GB/s measured "
        "(github.com/NVIDIA/nccl-tests/issues/290)",
    ),
    "roce_ar": (
        NIC_EFF,
        0.0,
        "RoCE with adaptive routing / packet spraying (Spectrum-X class): flows keep their line "
        "rate as on InfiniBand; NCCL's src/graph/search.cc:1160 does not tell IB and RoCE apart",
    ),
    "roce": (
        0.80,
        0.0,
        "RoCE on ECMP hashing, no adaptive routing: 8 × H100 × 8 × 400G RoCE, 4 nodes, busbw 320 GB/s "
        "of 400 (github.com/NVIDIA/nccl/issues/1221, NCCL 2.19.3)",
    ),
    "efa": (
        0.67,
        20.0,
        "AWS EFA (SRD over Ethernet, aws-ofi-nccl): 70 % of on-prem InfiniBand at 8 nodes "
        "(github.com/aws/aws-ofi-nccl/issues/19) × 0.96; 20 µs a network step, the internode latency "
        "aws-ofi-nccl's own tuner gives NCCL (include/nccl_ofi_param.h:285 TUNER_NET_LATENCY, commit 2daf7d30; "
        "2 × p5 all-reduce 1 KiB 65 µs modelled, 69 measured). EFA v1 (p4d/p4de) is slower: its net plugin "
        "reports 75 µs (src/platform-aws.cpp) — type the class's latency when it matters",
    ),
    "tcpx": (
        0.84,
        49.0,
        "GCP GPUDirect-TCPX/TCPXO (TCP, NIC-side header split): the one published run we have, "
        "2 × A3 Mega (8 × 200G), peaks at 337 GB/s busbw = NVLS-tree at 84 % of line rate and takes 123 µs at "
        "1 KB = Tree/LL with 49 µs a network step (github.com/lessizzmore/create-a3mega-ztan-fork; so those two "
        "rows check the form, not the figures)",
    ),
}
# Host enqueue + kernel launch per call [µs]: nccl-tests launches its iterations back to back and waits once,
# so a call takes the longer of the GPU's time and the host's; NCCL's latencies (tuning.cc) are the GPU's.
PLATFORM_CLASSES: dict[str, tuple[float, str]] = {
    "bare_metal": (
        6.0,
        "DGX/HGX bare metal: a 2 × H100 NVLS all-reduce of 128 B takes 5.6 µs in all "
        "(github.com/NVIDIA/nccl/issues/1259, NCCL 2.20.5)",
    ),
    "cloud_vm": (
        30.0,
        "cloud VM (x86, virtualised launch): Azure ND H200 v5 all-reduce stays at 30–31 µs from 1 KB "
        "to 512 KB (github.com/Azure/AI-benchmarking-guide, ND_H200_v5_results.md, NCCL 2.20.5)",
    ),
    "grace_rack": (
        15.5,
        "Grace-hosted rack (GB200/GB300 NVL72 tray): Azure ND GB200 v6 stays at 15–18 µs from 1 KB "
        "to 512 KB (github.com/Azure/AI-benchmarking-guide, ND_GB200_v6_results.md, NCCL 2.25.1)",
    ),
}


def network_efficiency(network_class: str) -> float:
    if network_class not in NETWORK_CLASSES:
        raise ValueError(f"network_class: one of {', '.join(NETWORK_CLASSES)}, got {network_class!r}")
    return NETWORK_CLASSES[network_class][0]


def network_latency_us(network_class: str) -> float:
    network_efficiency(network_class)  # the same check
    return NETWORK_CLASSES[network_class][1]


def host_overhead_us(platform_class: str) -> float:
    if platform_class not in PLATFORM_CLASSES:
        raise ValueError(f"host_platform: one of {', '.join(PLATFORM_CLASSES)}, got {platform_class!r}")
    return PLATFORM_CLASSES[platform_class][0]


@dataclass(frozen=True)
class GpuGeneration:
    name: str
    arch: str  # NCCL compute-capability class (volta/ampere/hopper/blackwell), or "ici"
    nvlink_links: int  # NVLink ports per GPU
    nvls: bool  # NVSwitch with NVLink SHARP (Hopper or newer)
    nvlink_domain_gpus: int | None = None  # GPUs in one NVLink domain when larger than a node (NVL72)

    @property
    def nvlink_gbyte_s(self) -> float:
        """NVLink per GPU as NCCL counts it: links × the per-link bandwidth of src/graph/topo.h."""
        if self.arch == ICI:
            return 0.0
        return round(self.nvlink_links * NVLINK_LINK_GBYTE_S[self.arch], 3)


GPU_GENERATIONS: dict[str, GpuGeneration] = {
    "A100": GpuGeneration("A100", "ampere", 12, False),  # 12 × 20 = 240 GB/s
    "H100": GpuGeneration("H100", "hopper", 18, True),  # 18 × 20.6 = 370.8 GB/s
    "H200": GpuGeneration("H200", "hopper", 18, True),
    "B200": GpuGeneration("B200", "blackwell", 18, True),  # 18 × 40.1 = 721.8 GB/s
    "GB200": GpuGeneration("GB200", "blackwell", 18, True, nvlink_domain_gpus=72),
    "B300": GpuGeneration("B300", "blackwell", 18, True),
    "GB300": GpuGeneration("GB300", "blackwell", 18, True, nvlink_domain_gpus=72),
    "TPU-v4": GpuGeneration("TPU-v4", ICI, 0, False),
}
GPU_MODEL_GENERATION = {
    "A100-SXM4-80GB": "A100",
    "H100-SXM5": "H100",
    "H200-SXM": "H200",
    "B200": "B200",
    "GB200": "GB200",
    "B300": "B300",
    "GB300": "GB300",
    "TPU-v4": "TPU-v4",
}


def generation_for(gpu_model: str) -> GpuGeneration:
    """The generation the collective model uses for a catalogue GPU; others are refused, not mapped."""
    if gpu_model not in GPU_MODEL_GENERATION:
        raise ValueError(
            f"gpu_model: the collective model follows NCCL on NVIDIA GPUs (and ICI-style tori); {gpu_model} "
            "runs another library (RCCL), whose tuning is not modelled"
        )
    return GPU_GENERATIONS[GPU_MODEL_GENERATION[gpu_model]]


def nic_gbyte_s(nic_gbps, efficiency=NIC_EFF):
    """Effective NIC bandwidth [GB/s]: the network class's share of the line rate ÷ 8 (InfiniBand: 400G → 48 GB/s)."""
    return nic_gbps / 8 * efficiency


def _values(name: str, x) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a number, got {x!r}") from None
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: must be finite, got {x!r}")
    return a


def check_count(name: str, x, minimum: int = 1) -> None:
    a = _values(name, x)
    if np.any(a < minimum) or np.any(a != np.floor(a)):
        raise ValueError(f"{name}: must be a whole number ≥ {minimum}, got {x!r}")


def check_positive(name: str, x) -> None:
    if np.any(_values(name, x) <= 0):
        raise ValueError(f"{name}: must be > 0, got {x!r}")


def check_sizes(size_bytes) -> np.ndarray:
    a = _values("size_bytes", size_bytes)
    if np.any(a < 0):
        raise ValueError(f"size_bytes: must be ≥ 0, got {size_bytes!r}")
    return a


CALIBRATION_BOUNDS = {
    "bw_efficiency": (0.05, 4.0),
    "latency_offset_us": (-1_000.0, 10_000.0),
    "simple_latency_offset_us": (0.0, 10_000.0),
}


def check_calibration(bw_efficiency, latency_offset_us, simple_latency_offset_us) -> None:
    values = (bw_efficiency, latency_offset_us, simple_latency_offset_us)
    for (name, (lo, hi)), v in zip(CALIBRATION_BOUNDS.items(), values, strict=True):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(f"{name}: a number in [{lo:g}, {hi:g}], got {v!r}")


@dataclass(frozen=True)
class Fabric:
    """What a collective sees of a design (arrays broadcast against each other)."""

    gpus_per_node: np.ndarray | int
    node_count: np.ndarray | int
    nvlink_gbyte_s: np.ndarray | float
    nics_per_node: np.ndarray | int
    nic_gbps: np.ndarray | float
    nvls: bool = False  # NVSwitch with NVLink SHARP: Hopper or newer, asked for explicitly
    sharp: bool = False  # SHARP-capable (InfiniBand) switches: CollNet, multi-node NVLS
    oversubscription: np.ndarray | float = 1.0  # taper above a pod / between groups
    pods: np.ndarray | int = 1  # pods (fat-tree), groups (Dragonfly+)
    rail_optimized: bool = False
    torus_dims: tuple[int, int, int] | None = None
    torus_link_gbps: float = 400.0
    switch_radix: int = 64
    arch: str = "hopper"  # NCCL compute-capability class of the GPUs (tuning.cc tables), or "ici"
    # calibration to a cluster's nccl-tests log (topology/calibration.py); the defaults are the bare model
    bw_efficiency: float = 1.0
    latency_offset_us: float = 0.0
    simple_latency_offset_us: float = 0.0
    # the network class's share of the NIC line rate (NETWORK_CLASSES) and the host's enqueue + launch time per
    # call (PLATFORM_CLASSES); the defaults are InfiniBand and no host floor (NCCL's GPU-side time)
    nic_efficiency: float = NIC_EFF
    host_overhead_us: float = 0.0
    net_latency_us: float = 0.0  # the net plugin's latency, added per inter-node step (twice for Simple)

    def __post_init__(self) -> None:
        check_fabric(self)

    @classmethod
    def from_dict(cls, d: dict) -> Fabric:
        """From the JSON-safe keyword dict designs and sweeps store (torus_dims a list there)."""
        dims = d.get("torus_dims")
        return cls(**{**d, "torus_dims": tuple(dims) if dims else None})


def check_fabric(f: Fabric) -> None:
    """Counts ≥ 1 and whole, bandwidths > 0, a known arch, NVLS only where NCCL offers it, a torus that fits."""
    if f.arch not in ARCHES and f.arch != ICI:
        raise ValueError(f"arch: one of {', '.join((*ARCHES, ICI))}, got {f.arch!r}")
    for name in ("gpus_per_node", "node_count", "nics_per_node", "pods"):
        check_count(name, getattr(f, name))
    check_count("switch_radix", f.switch_radix, 2)
    for name in ("nvlink_gbyte_s", "nic_gbps", "torus_link_gbps"):
        check_positive(name, getattr(f, name))
    if np.any(_values("oversubscription", f.oversubscription) < 1):
        raise ValueError(f"oversubscription: must be ≥ 1 (n:1), got {f.oversubscription!r}")
    check_calibration(f.bw_efficiency, f.latency_offset_us, f.simple_latency_offset_us)
    bounds = (("nic_efficiency", (0.05, 1.0)), ("host_overhead_us", (0.0, 10_000.0)), ("net_latency_us", (0.0, 1e4)))
    for name, (lo, hi) in bounds:
        v = getattr(f, name)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(f"{name}: a number in [{lo:g}, {hi:g}], got {v!r}")
    if f.nvls and f.arch not in ("hopper", "blackwell"):
        raise ValueError(f"nvls: NVLink SHARP needs NVSwitch on Hopper or newer; arch is {f.arch}")
    if f.torus_dims is None:
        if f.arch == ICI:
            raise ValueError("torus_dims: an ICI fabric is a torus; give its three dimensions")
        return
    dims = tuple(f.torus_dims)
    if len(dims) != 3 or any(not isinstance(k, int | np.integer) or k < 1 for k in dims):
        raise ValueError(f"torus_dims: three whole numbers ≥ 1, got {f.torus_dims!r}")
    chips = np.asarray(f.gpus_per_node) * np.asarray(f.node_count)
    if np.any(chips != math.prod(dims)):
        raise ValueError(f"torus_dims: {dims} hold {math.prod(dims)} chips, the fabric has {chips.tolist()}")
